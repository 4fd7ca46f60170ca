"""Per assignment: how each graded cell is probed, and what the build writes into its generated cells.

Each module nbNN_<name>.py here serves the assignment NN_<name> and defines
    PROBES  {grade_id of a test cell: Probe}
    VALUES  {key of a generated cell: function returning {variable name: value}}
A new notebook adds a module; nothing else needs registering.
"""
import importlib
import pkgutil

MODULES = {
    info.name[2:]: importlib.import_module(f"{__name__}.{info.name}")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)
    if info.name.startswith("nb")
}

PROBES = {name: module.PROBES for name, module in MODULES.items()}

VALUES = {}
for _module in MODULES.values():
    for _key, _make in _module.VALUES.items():
        if _key in VALUES:
            raise KeyError(f"generated cell key '{_key}' is defined twice in grader/assignments")
        VALUES[_key] = _make
