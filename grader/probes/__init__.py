"""Which graded cell of which notebook is probed how: {notebook: {grade_id: Probe}}."""
from . import nb01_self_attention

PROBES = {
    "01_self_attention": nb01_self_attention.PROBES,
}
