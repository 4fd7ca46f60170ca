"""Fixture submissions: one module nbNN.py per assignment, each defining STUDENTS {student id: Student}."""
import importlib
import pkgutil
from dataclasses import dataclass, field

MANUAL = "manual"   # a written answer: graded by hand in formgrader


@dataclass
class Student:
    assignment: str
    expected: dict                                  # grade_id -> points, or MANUAL
    edits: dict = field(default_factory=dict)       # grade_id -> [(old, new), ...] applied to the answer key
    cells: dict = field(default_factory=dict)       # grade_id -> the whole cell as the student wrote it
    untouched: bool = False                         # hand in the release notebook as it is
    diagnoses: dict = field(default_factory=dict)   # grade_id -> words the verdict must contain (or a tuple: one of them)
    written: str = "The dot products are large, so the softmax saturates and its gradients vanish."


def modules():
    """Every nbNN module of this package, in course order."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name) if info.name.startswith("nb")]
