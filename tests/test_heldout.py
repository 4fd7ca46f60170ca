"""The held-out wrong answers (tests/heldout/: round 1 of issue 26, rounds 2 to 4) stay gradable: each replaces a TODO
code cell the release has, under a name of its own, and none is the answer key's own cell."""
import nbformat
import pytest
from nbgrader import utils

from tests.heldout import entries as round1, round2, round3, round4
from grader.engine.build import RELEASE, SOURCE, answer_key


ENTRIES = round1.ENTRIES + round2.ENTRIES + round3.ENTRIES + round4.ENTRIES


def test_the_names_are_unique_and_the_corpus_covers_every_notebook_it_measures():
    assert len({e.name for e in ENTRIES}) == len(ENTRIES) >= 60 + 30 + 40 + 40
    for entries in (round1.ENTRIES, round2.ENTRIES, round3.ENTRIES, round4.ENTRIES):
        assert {e.assignment[:2] for e in entries} == {f"{n:02d}" for n in range(1, 12)}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_each_entry_replaces_a_todo_cell_of_the_release_with_something_else(entry):
    release = nbformat.read(str(RELEASE / entry.assignment / f"{entry.assignment}.ipynb"), as_version=4)
    todo = {c.metadata.nbgrader["grade_id"] for c in release.cells if c.cell_type == "code" and utils.is_solution(c)}
    assert entry.cell in todo
    key = {c.metadata.nbgrader["grade_id"]: c.source for c in answer_key(nbformat.read(
        str(SOURCE / entry.assignment / f"{entry.assignment}.ipynb"), as_version=4)).cells if utils.is_solution(c)}
    assert entry.source.strip() != key[entry.cell].strip()
    compile(entry.source, entry.name, "exec")  # a mistake of substance, not a syntax error
