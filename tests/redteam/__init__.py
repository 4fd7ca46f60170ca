"""The red-team corpus (issue 6): hostile or broken submissions, each with the outcome it deserves.

An entry is one student's hand-in: mostly notebook 01 filled with a known answer
(`WRONG`, which honestly scores 0 on every autograded part, or the answer key)
plus an attack. `corpus.ENTRIES` lists them; `write_corpus` lays them out, with the
control students, as nbgrader's submitted/ folder. Attacks that need to know
where things are (the course directory, a canary file, a port) get it from a
`Context`, so they aim at the real paths of the run that grades them.

Attacks only ever write canary files (named redteam_canary_<token>_...) and only
read real files; they never delete or modify anything.
"""
import copy
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import nbformat
from nbgrader import utils

from grader.engine.build import RELEASE, ROOT, SOLUTIONS, SOURCE
from tests.sample_class import submission
from tests.students import MANUAL, Student
from tests.students.nb01 import A01, FULL_01

PARTS_01 = [p for p in FULL_01]                      # every graded part of notebook 01
ZERO_01 = {p: 0 for p in FULL_01}                    # a notebook that could not be graded at all
WRONG_01 = dict(ZERO_01, why_extreme=MANUAL)         # the wrong answer, honestly: 0 on every autograded part

# Wrong on every autograded part, each for a catalogued reason: the bias left out of the
# queries, keys and values (loop and matrix form), a softmax that is not normalised, and a loop
# that sums the keys (a mistake of its own: a loop wrong only through its softmax is marked with
# the course's softmax and keeps its marks).
WRONG_EDITS = {
    "qkv_loop": [(" + beta_q", ""), (" + beta_k", ""), (" + beta_v", "")],
    "softmax_def": [("items_out = np.exp(items_in) / np.sum(np.exp(items_in))", "items_out = np.exp(items_in)")],
    "attention_loop": [("attention[m] * all_values[m]", "attention[m] * all_keys[m]")],
    "self_attention_def": [(" + beta_q", ""), (" + beta_k", ""), (" + beta_v", "")],
}

CANARY = "redteam_canary"     # every file an attack tries to create is named CANARY_<token>_...
LEAKED = "REDTEAM-LEAKED"     # printed by an attack that read something it must not see
WROTE = "REDTEAM-WROTE"       # printed by an attack that wrote somewhere it must not


@dataclass
class Context:
    """Where this run's things are, for attacks that aim at real paths."""
    course: Path            # the course directory grading writes to
    submissions: Path       # the folder of submissions the corpus is written to
    token: str              # makes this run's canaries and markers unique
    port: int = 0           # a TCP port on 127.0.0.1 serving the answer key (the network attack)
    seed: str = ""          # the course secret grading draws fresh inputs from (the lookup-table attack)
    home: Path = Path(os.path.expanduser("~"))
    repo: Path = ROOT

    def canary(self, where, entry):
        return Path(where) / f"{CANARY}_{self.token}_{entry}"


@dataclass
class Entry:
    """One red-team submission and what grading it must give."""
    name: str                                   # the student id
    about: str                                  # one line: the attack or breakage
    write: Callable[[Path, Context], None]      # writes <folder>/<assignment>/<files> for this student
    expected: dict                              # part -> exact score, or MANUAL
    assignment: str = A01
    canaries: Callable[[Context], list] = None  # files the attack tries to create: none may exist after
    reason_has: str = ""                        # words the student's one-line reason must contain
    daemon: bool = False                        # leaves a process behind if it can (marked with the token)
    plain: str = ""                             # compare.py: why it is not run with plain nbgrader, if it is not
    late: bool = None                           # its submission must count late (True) or on time (False):
    #                                             graded under LATENESS's deadlines.toml (None: not at stake)


# The corpus's course directory has these due dates: the lateness entries (issue 25) hand in notebook 03,
# which nothing else in the corpus does, and a time in doubt counts late.
LATENESS = ('penalty = "zero"\nunproven = "late"\n'
            '[due]\n03_permutation_equivariance = "2026-02-01 17:00:00 UTC"\n')

# ------------------------------------------------------------------ notebooks

def key_notebook():
    """The release notebook with the answer key's code."""
    return submission(Student(A01, FULL_01))


def wrong_notebook():
    """The release notebook with the wrong answer (WRONG_EDITS)."""
    return submission(Student(A01, WRONG_01, edits=WRONG_EDITS))


def cell_index(nb, grade_id):
    for i, cell in enumerate(nb.cells):
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            return i
    raise KeyError(f"no cell {grade_id} in the notebook")


def cell(nb, grade_id):
    return nb.cells[cell_index(nb, grade_id)]


def plain_cell(source):
    """A code cell a student added: no nbgrader metadata."""
    return nbformat.v4.new_code_cell(source)


def insert_before(nb, grade_id, source):
    nb.cells.insert(cell_index(nb, grade_id), plain_cell(source))
    return nb


def insert_after(nb, grade_id, source):
    nb.cells.insert(cell_index(nb, grade_id) + 1, plain_cell(source))
    return nb


def append(nb, source):
    nb.cells.append(plain_cell(source))
    return nb


def set_source(nb, grade_id, source):
    cell(nb, grade_id).source = source
    return nb


def duplicate(nb, grade_id):
    """A second copy of a cell right after it (new cell id, same nbgrader metadata)."""
    i = cell_index(nb, grade_id)
    twin = copy.deepcopy(nb.cells[i])
    twin.id = nbformat.v4.new_code_cell().id
    nb.cells.insert(i + 1, twin)
    return nb


def fill(template, ctx, **more):
    """Put this run's paths into an attack's source: @@NAME@@ -> repr(value)."""
    values = dict(TOKEN=ctx.token, COURSE=str(ctx.course), REPO=str(ctx.repo), HOME=str(ctx.home),
                  PORT=ctx.port, LEAKED=LEAKED, WROTE=WROTE, **more)
    for name, value in values.items():
        template = template.replace(f"@@{name}@@", repr(value))
    if "@@" in template:
        raise ValueError(f"red-team attack source: unfilled placeholder in {template[template.index('@@'):][:40]!r}")
    return template


def notebook_path(folder, assignment=A01, name=None):
    path = Path(folder) / assignment / f"{name or assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def writes(make, assignment=A01):
    """An Entry.write that saves the notebook make(ctx) under its assignment's usual name."""
    def write(folder, ctx):
        nbformat.write(make(ctx), str(notebook_path(folder, assignment)))
    return write


def answer_sources(path):
    """{grade_id: source} of the solution cells of a notebook file (the network attack's payload)."""
    nb = nbformat.read(str(path), as_version=4)
    return {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells if utils.is_solution(c)}


def key_payload():
    """What the network attack's server hands out: the answer key's solution cells, as JSON."""
    return json.dumps(answer_sources(SOLUTIONS / A01 / f"{A01}.ipynb")).encode()


# ------------------------------------------------------------------ the class

CONTROLS = {
    # graded in the corpus run and alone: their results must be the same
    "ctl_correct": (FULL_01, lambda ctx: key_notebook()),
    "ctl_wrong": (WRONG_01, lambda ctx: wrong_notebook()),
    "ctl_partial": (dict(FULL_01, test_self_attention=0), lambda ctx: submission(Student(
        A01, {}, edits={"self_attention_def": [("softmax_cols(K.T @ Q)", "softmax_cols(Q.T @ K)")]}))),
    # named to come last: graded after every attack, on kernels forked where the attacks ran
    "zz_ctl_after_attacks": (FULL_01, lambda ctx: key_notebook()),
}


def write_controls(folder, ctx):
    for sid, (_, make) in CONTROLS.items():
        nbformat.write(make(ctx), str(notebook_path(Path(folder) / sid)))


def write_corpus(folder, ctx, entries=None):
    """The corpus and the controls as <student>/<assignment>/... under folder."""
    from .corpus import ENTRIES
    folder = Path(folder)
    write_controls(folder, ctx)
    for entry in entries or ENTRIES:
        (folder / entry.name).mkdir(parents=True, exist_ok=True)
        entry.write(folder / entry.name, ctx)
    return folder


__all__ = ["A01", "CANARY", "CONTROLS", "Context", "Entry", "FULL_01", "LEAKED", "MANUAL", "PARTS_01",
           "RELEASE", "SOLUTIONS", "SOURCE", "WROTE", "WRONG_01", "ZERO_01", "write_corpus"]
