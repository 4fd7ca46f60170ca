"""A synthetic class for the grading benchmark: N students x every notebook, a realistic mix drawn from a seed.

Every submission starts from a sample student of tests/students, written the way
tests/sample_class.py writes them; the broken kinds then spoil one solution cell:

    correct        a sample student with full marks (the answer key, right in other ways, the book's students)
    partly_wrong   a sample student with a named mistake, or the untouched release notebook
    name_error     the answer key with a typo at the top of a solution cell: NameError, nothing below it runs
    syntax_error   the answer key with a solution cell that does not parse: SyntaxError
    looping        the answer key with a solution cell that never ends: only the cell timeout stops it
    missing        the answer key handed in under a name of the student's own, so the notebook nbgrader expects is missing

    python -m benchmarks.synthetic_class FOLDER [--students 100] [--assignments all|A,B] [--seed 1]
"""
import copy
import functools
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader import utils

from grader.engine.build import RELEASE, assignments as course_assignments
from tests.sample_class import STUDENTS, submission

# The share of each kind in a class, in percent: most students hand in
# something right or partly right; a few break a cell or the file name; ~1.5% loop forever.
MIX = {"correct": 50, "partly_wrong": 38.5, "name_error": 4, "syntax_error": 3, "missing": 3, "looping": 1.5}
KINDS = tuple(MIX)

# What the broken kinds put at the top of the chosen solution cell.
BREAKS = {
    "name_error": "weigths = weigths / 2  # a typo: NameError\n",
    "syntax_error": "for n in range(3)  # no colon: SyntaxError\n    pass\n",
    "looping": "while True:  # never ends: only the cell timeout stops it\n    pass\n",
}


@dataclass(frozen=True)
class Entry:
    """One notebook of the class: who hands it in, what kind it is, and what it is made from."""
    student_id: str
    assignment: str
    kind: str
    sample: str = "correct"  # the sample student (tests/students) the notebook starts from
    cell: str = ""           # the solution cell a broken kind spoils (its grade_id)

    @property
    def path(self):
        """Where it goes under the submissions folder (nbgrader's submitted/ layout)."""
        # Saved under a name of the student's own: the name nbgrader looks for is not there. (A browser's
        # second download, "name (1).ipynb", is taken as the notebook when it is the only one.)
        name = f"my_{self.assignment}" if self.kind == "missing" else self.assignment
        return Path(self.student_id, self.assignment, f"{name}.ipynb")


@functools.cache
def samples(assignment):
    """{"correct": [...], "partly_wrong": [...]}: the assignment's sample students, by whether they earn full marks."""
    full = STUDENTS["correct", assignment].expected
    out = {"correct": [], "partly_wrong": []}
    for (sid, a), student in sorted(STUDENTS.items()):
        if a == assignment:
            out["correct" if student.expected == full else "partly_wrong"].append(sid)
    return out


@functools.cache
def solution_code_cells(assignment):
    """grade_ids of the assignment's code solution cells, in notebook order."""
    nb = nbformat.read(str(RELEASE / assignment / f"{assignment}.ipynb"), as_version=4)
    return [c.metadata.nbgrader["grade_id"] for c in nb.cells if c.cell_type == "code" and utils.is_solution(c)]


def entry(student_id, assignment, kind, rng):
    """A notebook of the given kind, its sample student or broken cell drawn from rng."""
    if kind in ("correct", "partly_wrong"):
        return Entry(student_id, assignment, kind, sample=rng.choice(samples(assignment)[kind]))
    if kind in BREAKS:
        return Entry(student_id, assignment, kind, cell=rng.choice(solution_code_cells(assignment)))
    if kind == "missing":
        return Entry(student_id, assignment, kind)
    raise ValueError(f"synthetic class: unknown kind {kind!r} (known: {', '.join(KINDS)})")


def mix(n):
    """n kinds in MIX's proportions (rounded by largest remainder), in KINDS order."""
    total = sum(MIX.values())
    exact = {k: n * MIX[k] / total for k in KINDS}
    counts = {k: int(exact[k]) for k in KINDS}
    for k in sorted(KINDS, key=lambda k: counts[k] - exact[k])[:n - sum(counts.values())]:
        counts[k] += 1
    return [k for k in KINDS for _ in range(counts[k])]


def draw(n_students, assignments=None, seed=1):
    """The class: n_students x assignments notebooks in MIX's proportions, shuffled with the seed.

    The proportions are exact (not drawn), so every class of a size does the same work;
    the seed decides who hands in what.
    """
    assignments = assignments or course_assignments()
    unknown = sorted(set(assignments) - set(course_assignments()))
    if unknown:
        raise ValueError(f"synthetic class: {', '.join(unknown)}: not an assignment of this course "
                         f"({', '.join(course_assignments())})")
    rng = random.Random(seed)
    slots = [(f"student{i + 1:03d}", a) for i in range(n_students) for a in assignments]
    kinds = mix(len(slots))
    rng.shuffle(kinds)
    return [entry(student_id, assignment, kind, rng) for (student_id, assignment), kind in zip(slots, kinds)]


@functools.cache
def _sample_notebook(sample, assignment):
    # Reading and filling the release notebook is most of the cost; a class reuses few samples.
    return submission(STUDENTS[sample, assignment])


def notebook(e):
    """The notebook this entry hands in."""
    nb = copy.deepcopy(_sample_notebook(e.sample, e.assignment))
    if e.kind in BREAKS:
        cell = next(c for c in nb.cells if utils.is_solution(c) and c.metadata.nbgrader["grade_id"] == e.cell)
        cell.source = BREAKS[e.kind] + cell.source
    return nb


def write(folder, plan):
    """Lay the class out as <student>/<assignment>/<notebook>.ipynb under folder; returns folder."""
    folder = Path(folder)
    for e in plan:
        path = folder / e.path
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook(e), str(path))
    return folder


def describe(plan):
    """One line: how many notebooks of each kind."""
    counts = Counter(e.kind for e in plan)
    return f"{len(plan)} notebooks: " + ", ".join(f"{counts[k]} {k}" for k in KINDS)


def parse_assignments(text):
    """'all' or a comma-separated list of assignment names."""
    return course_assignments() if text == "all" else [a.strip() for a in text.split(",") if a.strip()]


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(prog="python -m benchmarks.synthetic_class", description=__doc__.split("\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--assignments", default="all", help="all, or a comma-separated list")
    parser.add_argument("--seed", type=int, default=1, help="fixes the mix")
    args = parser.parse_args()
    plan = draw(args.students, parse_assignments(args.assignments), args.seed)
    print(f"{describe(plan)} -> {write(args.folder, plan)}")
