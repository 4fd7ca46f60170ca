"""Fixture submissions: one module per assignment, each defining STUDENTS {student id: Student}."""
from dataclasses import dataclass, field

MANUAL = "manual"   # a written answer: graded by hand in formgrader


@dataclass
class Student:
    assignment: str
    expected: dict                                  # grade_id -> points, or MANUAL
    edits: dict = field(default_factory=dict)       # grade_id -> [(old, new), ...] applied to the answer key
    cells: dict = field(default_factory=dict)       # grade_id -> the whole cell as the student wrote it
    untouched: bool = False                         # hand in the release notebook as it is
    diagnoses: dict = field(default_factory=dict)   # grade_id -> words the verdict must contain
    written: str = "The dot products are large, so the softmax saturates and its gradients vanish."
