"""Per assignment: how each graded cell is probed, and what the build writes into its generated cells.

Each module nbNN_<name>.py defines
    PROBES  {grade_id of a test cell: Probe}
    VALUES  {key of a generated cell: function returning {variable name: value}}
"""
from . import nb01_self_attention

MODULES = {
    "01_self_attention": nb01_self_attention,
}

PROBES = {name: module.PROBES for name, module in MODULES.items()}

VALUES = {}
for _module in MODULES.values():
    for _key, _make in _module.VALUES.items():
        if _key in VALUES:
            raise KeyError(f"generated cell key '{_key}' is defined twice in grader/assignments")
        VALUES[_key] = _make
