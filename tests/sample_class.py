"""The bundled sample class: fixture submissions, each with the score every graded part deserves.

A student here is the release notebook with answers pasted in: the answer key's
cells (`correct`), edits of them (one known mistake each), or whole cells copied
from a seed document as its author wrote them. `write_class(folder)` lays them out
as nbgrader's submitted/ folder: <student>/<assignment>/<notebook>.ipynb.

    python -m tests.sample_class FOLDER [--assignment A]
"""
from pathlib import Path

import nbformat
from nbgrader import utils

from grader.engine.build import RELEASE, SOURCE, answer_key
from tests.students import MANUAL, Student, modules  # noqa: F401 (re-exported for the tests)

# {(student id, assignment): Student}: a student id may hand in several assignments.
STUDENTS = {(sid, student.assignment): student for module in modules() for sid, student in module.STUDENTS.items()}


def submission(student: Student):
    """The notebook this student hands in."""
    name = student.assignment
    nb = nbformat.read(str(RELEASE / name / f"{name}.ipynb"), as_version=4)
    if student.untouched:
        return nb
    key = {c.metadata.nbgrader["grade_id"]: c.source
           for c in answer_key(nbformat.read(str(SOURCE / name / f"{name}.ipynb"), as_version=4)).cells
           if utils.is_solution(c)}
    for cell in nb.cells:
        if not utils.is_solution(cell):
            continue
        grade_id = cell.metadata.nbgrader["grade_id"]
        if cell.cell_type == "markdown":
            cell.source = student.written
            continue
        source = student.cells.get(grade_id, key[grade_id])
        for old, new in student.edits.get(grade_id, []):
            if old not in source:
                raise ValueError(f"sample class: '{old}' is not in cell {grade_id} of {name}")
            source = source.replace(old, new)
        cell.source = source
    return nb


def write_class(folder, assignments=None):
    """Lay the sample class out as <student>/<assignment>/<notebook>.ipynb under `folder`."""
    folder = Path(folder)
    for (sid, assignment), student in STUDENTS.items():
        if assignments and assignment not in assignments:
            continue
        path = folder / sid / student.assignment / f"{student.assignment}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(submission(student), str(path))
    return folder


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(prog="python -m tests.sample_class", description="write the sample class")
    parser.add_argument("folder")
    parser.add_argument("--assignment", action="append", help="only this assignment (repeatable)")
    args = parser.parse_args()
    print(f"sample class written to {write_class(args.folder, args.assignment)}")
