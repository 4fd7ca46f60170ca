"""The grading benchmark, small, as a correctness test: both graders give every notebook the same scores.

Three students x two assignments, one notebook of each kind of the synthetic class.
No timing is asserted: the machine is shared and the point is identical scores.
"""
import os
import re
from collections import Counter

import pytest

from benchmarks.floor import floor
from benchmarks.grade_class import Run, benchmark, differences, main, results, scores, side_by_side, ungraded
from benchmarks.synthetic_class import KINDS, Entry, draw
from grader.engine.build import assignments as course_assignments
from grader.engine.nbgrader_plugin import SEED_VARIABLE
from tests.sample_class import MANUAL, STUDENTS

A, B = "01_self_attention", "02_scaled_attention"

# One of each kind. The broken ones spoil a cell whose own test is named here, so that
# part must score zero whatever else the break does to the notebook.
PLAN = [
    Entry("s1", A, "correct", sample="seed003"),
    Entry("s1", B, "partly_wrong", sample="no_scaling"),
    Entry("s2", A, "name_error", cell="softmax_def"),
    Entry("s2", B, "syntax_error", cell="scaled_attention_def"),
    Entry("s3", A, "missing"),
    Entry("s3", B, "looping", cell="softmax_cols_def"),
]
SPOILT = {("s2", A): "test_softmax", ("s2", B): "test_scaled_attention", ("s3", B): "test_softmax_cols"}


TIMEOUT = 5  # seconds a cell, in the graders and the floor


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("benchmark")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(SEED_VARIABLE, "20261123")
        return out, benchmark(out, PLAN, workers=2, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def runs(bench):
    fast, plain, _ = bench[1]
    return fast, plain


def test_the_plan_has_every_kind():
    assert sorted(e.kind for e in PLAN) == sorted(KINDS)


def test_scores_are_identical(runs):
    fast, plain = runs
    assert differences(plain, fast) == []


def test_every_notebook_handed_in_under_its_name_has_its_rows_in_both_gradebooks(runs):
    for run in runs:
        assert ungraded(PLAN, run) == [], run.name
        got = Counter((r["student_id"], r["assignment"]) for r in run.rows)
        for e in PLAN:
            if e.kind != "missing":  # its row, or none, is intake's call (compared by the score test)
                assert got[e.student_id, e.assignment] == len(STUDENTS["correct", e.assignment].expected), \
                    (run.name, e)


@pytest.mark.parametrize("e", [e for e in PLAN if e.kind in ("correct", "partly_wrong")], ids=lambda e: e.kind)
def test_sample_students_get_the_scores_they_deserve(runs, e):
    expected = STUDENTS[e.sample, e.assignment].expected
    for run in runs:
        got = {part: MANUAL if manual else score for (sid, a, part), (score, manual) in scores(run.rows).items()
               if (sid, a) == (e.student_id, e.assignment)}
        assert got == pytest.approx(expected), run.name


@pytest.mark.parametrize("key", sorted(SPOILT), ids="/".join)
def test_a_spoilt_cell_scores_zero(runs, key):
    for run in runs:
        assert scores(run.rows)[(*key, SPOILT[key])] == (0, False), run.name


def test_the_missing_notebook_scores_nothing(runs):
    for run in runs:
        got = [score for (sid, a, _), (score, _) in scores(run.rows).items() if (sid, a) == ("s3", A)]
        assert not any(got), run.name


def test_the_looping_cell_is_stopped_by_the_cell_timeout(runs):
    for run in runs:
        graded = run.course / "autograded" / "s3" / B / f"{B}.ipynb"
        assert "CellTimeoutError" in graded.read_text(), run.name


def test_the_floor_runs_every_notebook_the_graders_run_and_what_stops_each_cell(bench):
    out, (fast, plain, run) = bench
    ran = {(e.student_id, e.assignment): e for e in PLAN if e.kind != "missing"}  # the misnamed one is not graded
    by = {tuple(r["path"].removeprefix(str(out / "submissions") + "/").split("/")[:2]): r for r in run.notebooks}
    assert set(by) == set(ran)
    for key, r in by.items():
        assert r["cpu"] > 0 and 0 < r["wall"] <= run.wall, key
        kind = ran[key].kind
        if kind in ("name_error", "syntax_error"):  # (a right notebook may raise too: the book's student does)
            assert r["error"] > 0, (key, r)
        assert r["timeout"] == (kind == "looping"), (key, r)
        if kind == "looping":
            assert r["wall"] >= TIMEOUT, r  # its looping cell ran until the cell timeout stopped it
    assert run.cpu == pytest.approx(sum(r["cpu"] for r in run.notebooks))
    text = side_by_side(PLAN, run, fast, plain)
    assert "floor" in text and f"{fast.seconds / run.wall:.2f}x" in text and f"{fast.cpu.own() / run.cpu:.2f}x" in text
    assert fast.cpu.own() > 0 and plain.cpu.own() > 0


def test_what_the_benchmark_prints_after_its_runs(bench, capsys):
    out, (fast, plain, run) = bench
    assert results(PLAN, run, fast, plain, out, profile=True) == 0
    printed = capsys.readouterr().out
    for words in ("this grader / floor", "where the CPU went", "idle (cores x wall - both)", "scores identical"):
        assert words in printed, words
    wrong = Run("parallel", fast.course, fast.seconds, [dict(r, part_score=-1) for r in fast.rows], cpu=fast.cpu)
    assert results(PLAN, run, wrong, plain, out) == 1 and "scores differ" in capsys.readouterr().out
    # --no-plain: the floor and this grader, said to be uncompared, never "identical"
    assert results(PLAN, run, fast, None, out, profile=True) == 0
    printed = capsys.readouterr().out
    assert "scores not compared" in printed and "scores identical" not in printed
    assert not any(line.startswith("plain") for line in printed.splitlines())  # no row, no profile, no ratio


def test_the_grader_records_in_its_own_processes_counted_as_recording(runs):
    """This grader's nbgrader autograde runs in recording processes (grader/engine/record.py), which name
    themselves so that the profile counts them as recording, not as the workers that run notebooks."""
    from benchmarks.cpu_by_process import RECORDING, WORKERS
    fast, plain = runs
    assert fast.cpu.totals().get(RECORDING, 0) > 0.5 and fast.cpu.totals().get(WORKERS, 0) > 0
    assert plain.cpu.totals().get(RECORDING, 0) > 0.5  # plain nbgrader's command, by its command line
    assert fast.cpu.peak > 50 * 2**20 and "peak memory" in fast.cpu.table(notebooks=6, wall=fast.seconds)


def test_the_floor_runs_cells_as_a_kernel_would(tmp_path):
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nx = 1"),
        nbformat.v4.new_code_cell("raise ValueError('skipped, as a kernel records it')"),
        nbformat.v4.new_code_cell("x += 1\nprint(x)\nplt.plot([1, 2]); plt.show(); plt.plot([2, 1])"),
        nbformat.v4.new_code_cell("while True:\n    pass"),
        nbformat.v4.new_code_cell("def ("),
        nbformat.v4.new_markdown_cell("not code"),
        nbformat.v4.new_code_cell("assert x == 2 and not plt.get_fignums()  # the figures were drawn and closed\nx"),
    ])
    nbformat.write(nb, tmp_path / "a.ipynb")
    got = floor([tmp_path / "a.ipynb"], timeout=1, cores=1)
    [r] = got.notebooks
    assert (r["ok"], r["error"], r["timeout"]) == (3, 2, 1), r
    assert r["wall"] >= 1 and r["cpu"] > 0 and got.wall >= r["wall"]


def test_a_difference_or_a_lost_notebook_is_reported():
    row = {"student_id": "s1", "assignment": A, "part": "test_softmax", "part_score": 1.0, "needs_manual_grade": False}
    plain = Run("plain", None, 1.0, [row, dict(row, part="test_qkv_loop")])
    fast = Run("parallel", None, 1.0, [dict(row, part_score=0.0), dict(row, student_id="s2")])
    assert differences(plain, fast) == [
        f"s1 / {A} / test_qkv_loop: plain score=1.0 manual=False, parallel no row",
        f"s1 / {A} / test_softmax: plain score=1.0 manual=False, parallel score=0.0 manual=False",
        f"s2 / {A} / test_softmax: plain no row, parallel score=1.0 manual=False",
    ]
    assert differences(plain, plain) == []
    # Rows for s1's first notebook only: every other notebook is lost, except the missing one.
    assert ungraded(PLAN, plain) == [PLAN[1], PLAN[2], PLAN[3], PLAN[5]]


def test_draw_is_reproducible_and_has_the_mix():
    plan = draw(100, seed=1)
    assert plan == draw(100, seed=1) and plan != draw(100, seed=2)
    assert len({(e.student_id, e.assignment) for e in plan}) == len(plan) == 100 * len(course_assignments())
    counts = Counter(e.kind for e in plan)
    assert set(counts) == set(KINDS)
    assert 0.01 * len(plan) <= counts["looping"] <= 0.02 * len(plan)  # 1-2% of the class loops forever
    assert counts["correct"] + counts["partly_wrong"] >= 0.8 * len(plan)  # most hand in working code


def test_bad_arguments_are_refused_with_a_message(tmp_path, capsys):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "gradebook.db").write_text("")
    for argv, words in [(["--assignments", "99_nothing"], "99_nothing: not an assignment"),
                        (["--out", str(tmp_path / "old")], "not empty"),
                        (["--students", "0"], "at least 1")]:
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2 and words in capsys.readouterr().err


def test_cpu_by_process_counts_what_a_process_burns_after_it_starts_watching():
    import subprocess
    import sys
    from benchmarks.cpu_by_process import CpuByProcess
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass"
    with CpuByProcess(every=0.05) as cpu:
        subprocess.run([sys.executable, "-c", burn], check=True)
        sum(i * i for i in range(2_000_000))  # this process's own share
    totals = cpu.totals()
    assert totals["other processes"] >= 0.5
    assert totals["this process (plan, keep results, progress)"] > 0
    assert cpu.own() == pytest.approx(sum(totals.values()))
    assert cpu.peak > 2**20  # this process's memory at least
    assert "all of this run" in cpu.table(notebooks=1, wall=1.0)


def test_the_verdicts_benchmark_marks_the_graded_course_again_as_grading_marked_it(runs, tmp_path, capsys, monkeypatch):
    """benchmarks/verdicts.py marks the parallel run's course again from its executed notebooks: every part it
    marks without a judgement run (a part that calls no other graded part) gets the score the gradebook holds."""
    import json

    from benchmarks.verdicts import main as verdicts
    from grader.course import PROBES
    fast, _ = runs
    monkeypatch.setenv(SEED_VARIABLE, "20261123")
    assert verdicts([str(fast.course), "--out", str(tmp_path / "verdicts.json")]) == 0
    printed = capsys.readouterr().out
    assert "verdicts CPU-s a nb" in printed and f"{A:32}" in printed
    # The judgement runs it counts are the kernels the grading run started for them, as its logs say.
    counted = int(re.search(r"judgement runs a grading run would make: (\d+) kernels", printed).group(1))
    started = sum(log.read_text().count("running the notebook again")
                  for log in (fast.course / "logs").glob("autograde_*.log"))
    assert counted == started >= 1  # s2's loop calls the softmax its NameError left undefined: judged
    marked = json.loads((tmp_path / "verdicts.json").read_text())
    recorded = scores(fast.rows)
    compared = 0
    for key, v in marked.items():
        student, assignment, part = key.split("/")
        if not PROBES[assignment][part].uses:
            assert v["score"] == recorded[(student, assignment, part)][0], key
            compared += 1
    assert compared >= 6 and any(v["score"] < v["points"] for v in marked.values())  # wrong ones among them
    with pytest.raises(SystemExit):  # a folder that is no graded course: said, not a traceback
        verdicts([str(tmp_path)])
    assert "no executed/ and autograded/" in capsys.readouterr().err


def test_the_recording_benchmark_grades_a_copy_again_with_no_students_kernel(runs, tmp_path, capsys, monkeypatch):
    """benchmarks/recording.py grades a copy of the parallel run's course again: every notebook is found already
    run, so no student's kernel runs (a judgement kernel may), and the copy's gradebook holds the same scores."""
    from benchmarks.cpu_by_process import KERNELS, RECORDING
    from benchmarks.recording import main as recording
    from grader.engine import report
    fast, _ = runs
    monkeypatch.setenv(SEED_VARIABLE, "20261123")
    assert recording([str(fast.course), str(fast.course.parent / "submissions"), "--timeout", str(TIMEOUT),
                      "--rounds", "1", "--out", str(tmp_path)]) is None
    printed = capsys.readouterr().out
    recorded = len(list(fast.course.glob("autograded/*/*/*.ipynb")))
    assert printed.startswith(f"round 1: {recorded} notebooks recorded again in ") and recorded >= 4
    assert RECORDING in printed and KERNELS not in printed, printed
    assert scores(report.collect(tmp_path / "round1")) == scores(fast.rows)
    with pytest.raises(SystemExit):
        recording([str(tmp_path / "nothing"), str(tmp_path)])
    assert "no executed/ or gradebook.db" in capsys.readouterr().err


def test_the_transforms_benchmark_times_every_notebook_the_kernels_ran(runs, tmp_path, capsys):
    """benchmarks/transforms.py times IPython's reading of every executed notebook's cells, probes included,
    as IPython has it and with the forked kernels' shortcut; a folder without notebooks is said so."""
    from benchmarks.transforms import main as transforms
    fast, _ = runs
    executed = sorted((fast.course / "executed").glob("*/*/*.ipynb"))
    assert transforms([str(fast.course / "executed"), "--rounds", "1"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"{len(executed)} notebooks from ") and len(executed) >= 3
    assert re.search(rf"^{A} +{sum(p.parent.name == A for p in executed)} ", printed, re.M)
    assert re.search(r"^all +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +-?[\d.]+$", printed, re.M) and "IPython's search:" in printed
    with pytest.raises(SystemExit, match="no notebooks under"):
        transforms([str(tmp_path)])


def test_the_floor_benchmark_runs_each_graded_notebook_alone(runs, tmp_path, capsys):
    """benchmarks/floor.py --course: every notebook the grading run executed, one at a time: its floor, the
    submission in a forked kernel and the notebook with its probes in, by assignment and in all; --students
    keeps those students' notebooks only; a course with nothing executed is said so."""
    from benchmarks.floor import main as floor_main
    fast, _ = runs
    executed = sorted((fast.course / "executed").glob("*/*/*.ipynb"))
    assert floor_main(["--course", str(fast.course), "--timeout", str(TIMEOUT)]) == 0
    printed = capsys.readouterr().out
    row = r" +[\d.]+ +[\d.]+ +[\d.]+x +[\d.]+ +[\d.]+x$"
    for a in (A, B):
        assert re.search(rf"^{a} +{sum(p.parent.name == a for p in executed)}{row}", printed, re.M), printed
    assert re.search(rf"^all +{len(executed)}{row}", printed, re.M) and len(executed) >= 4
    assert floor_main(["--course", str(fast.course), "--students", "s1", "--timeout", str(TIMEOUT)]) == 0
    printed = capsys.readouterr().out
    assert re.search(rf"^all +{sum(p.parts[-3] == 's1' for p in executed)}{row}", printed, re.M), printed
    with pytest.raises(SystemExit, match="no executed notebooks under"):
        floor_main(["--course", str(tmp_path)])


def test_a_kernel_under_a_recording_process_is_told_apart_as_a_judgement_kernel():
    """A kernel whose ancestors include a recording process (nbgrader_plugin.SealVerdicts.judge started it) is
    counted as a judgement kernel; any other process is not."""
    import signal
    import subprocess
    import sys
    import time
    from benchmarks.cpu_by_process import _stat, _under_recording
    from grader.engine.record import PROCESS_NAME
    # a process named as a recording process names itself, with a child (the kernel's stand-in) and a grandchild
    parent = subprocess.Popen([sys.executable, "-c", f"open('/proc/self/comm', 'w').write({PROCESS_NAME!r})\n"
                               "import subprocess, sys\n"
                               "subprocess.run([sys.executable, '-c', 'import subprocess, sys; subprocess.run("
                               "[\"sleep\", \"30\"])'])"], start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            now = {int(p): _stat(int(p)) for p in os.listdir("/proc") if p.isdigit()}
            now = {p: s for p, s in now.items() if s}
            grandchildren = [p for p, s in now.items() if s[2] in {c for c, t in now.items() if t[2] == parent.pid}]
            if grandchildren:
                break
            time.sleep(0.05)
        assert grandchildren and all(_under_recording(p, now) for p in grandchildren)
        assert not _under_recording(os.getpid(), now) and not _under_recording(parent.pid, now)
    finally:
        os.killpg(parent.pid, signal.SIGKILL)  # the three of them
        parent.wait()
