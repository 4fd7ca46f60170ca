"""The held-out wrong answers (tests/heldout/: round 1 of issue 26, rounds 2 to 15) and attempts to game the grader
stay gradable: each replaces a TODO code cell the release has, under a name of its own, and none is the answer key's
own cell. The attempts to game the grader are graded here, and each part they attack earns nothing."""
import ast
import dataclasses
import re

import nbformat
import pytest
from nbgrader import utils

from tests.heldout import attacks, attacks2, attacks3, attacks4, attacks5, attacks6, attacks7, attacks8
from tests.heldout import entries as round1, round2, round3, round4
from tests.heldout import round5_early, round5_late, round6, round7, round8a, round8b, round9a, round9b
from tests.heldout import round10a, round10b, round11a, round11b, round12a, round12b, round13a, round13b
from tests.heldout import round14a, round14b, round15a, round15b
from tests.heldout.grade import SEED, write
from grader.course import PROBES
from grader.engine.build import RELEASE, SOURCE, answer_key
from grader.engine.grade import grade_class
from grader.engine.nbgrader_plugin import SEED_VARIABLE


ROUND5 = round5_early.ENTRIES + round5_late.ENTRIES
ROUND8 = round8a.ENTRIES + round8b.ENTRIES  # two people, one half of the notebooks each
ROUND9 = round9a.ENTRIES + round9b.ENTRIES  # likewise
ROUND10 = round10a.ENTRIES + round10b.ENTRIES  # likewise
ROUND11 = round11a.ENTRIES + round11b.ENTRIES  # likewise
ROUND12 = round12a.ENTRIES + round12b.ENTRIES  # likewise
ROUND13 = round13a.ENTRIES + round13b.ENTRIES  # likewise
ROUND14 = round14a.ENTRIES + round14b.ENTRIES  # likewise
ROUND15 = round15a.ENTRIES + round15b.ENTRIES  # likewise
# rounds 5, 6, 8, 9, 10, 11, 12 and 13, each by another person
ATTACKS = (attacks.ENTRIES + attacks2.ENTRIES + attacks3.ENTRIES + attacks4.ENTRIES + attacks5.ENTRIES
           + attacks6.ENTRIES + attacks7.ENTRIES + attacks8.ENTRIES)
ENTRIES = (round1.ENTRIES + round2.ENTRIES + round3.ENTRIES + round4.ENTRIES + ROUND5 + round6.ENTRIES + round7.ENTRIES
           + ROUND8 + ROUND9 + ROUND10 + ROUND11 + ROUND12 + ROUND13 + ROUND14 + ROUND15 + ATTACKS)


def test_the_names_are_unique_and_the_corpus_covers_every_notebook_it_measures():
    assert len({e.name for e in ENTRIES}) == len(ENTRIES) >= (60 + 30 + 40 + 40 + 18 + 20 + 24 + 22 + 22 + 22
                                                              + 22 + 22 + 22 + 22 + 22 + 22 + 14 + 14 + 12 + 12 + 12
                                                              + 12 + 12 + 12)
    for entries in (round1.ENTRIES, round2.ENTRIES, round3.ENTRIES, round4.ENTRIES, ROUND5, round6.ENTRIES,
                    round7.ENTRIES, ROUND8, ROUND9, ROUND10, ROUND11, ROUND12, ROUND13, ROUND14, ROUND15):
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


def _attacked(entry):
    """The parts that mark the attacked cell: its own (a cell part), or those whose call or program calls what the
    cell defines."""
    names = {n.name for n in ast.parse(entry.source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return {g for g, p in PROBES[entry.assignment].items()
            if p.cell == entry.cell or any(re.search(rf"\b{n}\(", (p.call or "") + (p.program or "")) for n in names)}


def _untricked(entry):
    """`entry` with its trick's condition made false (STARVING), graded beside it as another student."""
    old, new = STARVING[entry.name]
    assert entry.source.count(old) == 1, entry.name
    return dataclasses.replace(entry, name=entry.name + "_untricked", source=entry.source.replace(old, new))


def test_every_attempt_to_game_the_grader_earns_nothing_on_the_parts_it_attacks(tmp_path, monkeypatch):
    untricked = [_untricked(e) for e in ATTACKS if e.name in STARVING]
    assert len(untricked) == len(STARVING)
    write(tmp_path / "submissions", ATTACKS + untricked)
    monkeypatch.setenv(SEED_VARIABLE, SEED)
    rows = grade_class(tmp_path / "submissions", tmp_path / "course", say=lambda *a: None, progress=False)
    unearned = []
    for e in ATTACKS:
        parts = _attacked(e)
        assert parts, e.name
        mine = {r["part"]: r for r in rows if r["student_id"] == e.name}
        assert parts <= set(mine), (e.name, parts - set(mine))
        if e.name in STARVING:
            # each attacked part earns what the same code earns without its trick, or nothing (its kernel starved)
            honest = {r["part"]: r["part_score"] for r in rows if r["student_id"] == e.name + "_untricked"}
            assert all(mine[g]["part_score"] in (0, honest[g]) and not mine[g]["needs_manual_grade"]
                       for g in parts), (e.name, {g: (mine[g]["part_score"], honest[g]) for g in parts})
            assert any(honest[g] < mine[g]["part_max_score"] for g in parts), e.name  # it has a mistake to hide
            continue
        unearned += [(e.name, g, mine[g]["part_score"]) for g in sorted(parts) if mine[g]["part_score"] > 0
                     or mine[g]["needs_manual_grade"]]
    assert sorted(unearned) == sorted(EARNING), unearned


# What the attempts earn today, judged by hand in tests/heldout/judged.md ("Round 8's attempts"): the test fails when
# another attempt earns anything, and when one of these earns less (then take it off this list). t03's trick
# (reading f's source) fails in grading; the part's 2 of 4 are what its fallback earns, a check of one swap of two
# columns, which the notebook's own marking gives half of (a checker that tries some permutations only).
# n05's trick (json, pickle and marshal swapped for copies that drop error keys) changes nothing: the same
# masked_softmax without it earns the same 2 of 3 (judged.md, round 10), what the marking gives any function right
# on one length per sequence and raising on one length per query; its verdict says exactly that.
# attacks8's e10 (a fork hook that ends every child at once) changes nothing: its count_pairs is the catalogued "a pair
# counted once per word", told so, and earns what that mistake earns. e11's top_p keeps tokens until the sum passes p:
# wrong on exactly the fresh case where a sum equals p (drawn for it since), right on the others, as the verdict says.
# e09's train_step is right on its first step and wherever the loss is under 0.2, and trains another way between:
# steps 2 to about 19 of 200 here. Its train_step part earns nothing; the model it trains is checked at its first and
# last steps and at two drawn at grading time (since attacks8), which catch it only when one falls in those steps,
# and it is a model its own train_step trained, right on 9 steps in 10: the trained model's 4 of 4 stand.
EARNING = [("t03_checker_reads_function_source", "test_is_permutation_equivariant", 2.0),
           ("n05_masked_softmax_imports_quiet_serialisers", "test_masked_softmax", 2.0),
           ("e10_count_pairs_makes_forked_children_exit_cleanly_when_graded", "test_count_pairs", 0.33),
           ("e11_top_p_passes_p_where_it_should_reach_it", "test_top_p", 1.67),
           ("e09_train_step_is_right_only_where_it_is_watched", "test_trained_model", 4.0)]
# Attempts whose trick starves their own kernel (e08: four threads collecting garbage, a switch every microsecond):
# whether the cell that starts it answers before its time limit is the machine's timing, not the grader's rule. On
# one machine it does not, and every later part earns nothing; on another (a CI run) it did, and the pre-norm block,
# which is right, earned its 3. So each part such an attempt attacks must earn nothing or exactly what the same code
# earns with the trick's condition made false (the text here replaced by the next), graded beside it; and that code
# must have a mistake those parts see (e08's post-norm), so the trick has something to gain.
STARVING = {"e08_block_sets_the_collector_to_a_crawl_when_graded": ('== "sandbox"', '== "no such host"')}
