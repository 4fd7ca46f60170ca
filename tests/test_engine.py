"""The grading engine: forked sandboxed kernels, the executed-notebook cache, deterministic draws,
kill-and-resume, and the Dask path. (Whole-class scores: test_grading.py; serial vs parallel:
test_benchmark.py.)"""
import asyncio
import copy as copy_module
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from grader.course import PROBES
from grader.engine import parallel, report
from grader.engine.grade import grade_class
from grader.engine import nbgrader_plugin
from grader.engine.nbgrader_plugin import (RUN_VARIABLE, SECRET_FILE, SEED_VARIABLE, InjectProbes, SealVerdicts,
                                    cache_path, execution_key, grading_secret, judgement_group, load,
                                    probe_rng, store, submitted_code)
from tests.sample_class import STUDENTS, write_class

ROOT = Path(__file__).resolve().parents[1]
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="forked kernels need the grader to run as root")


def _scores(rows):
    return {(r["student_id"], r["assignment"], r["part"]): (r["part_score"], r["needs_manual_grade"]) for r in rows}


# ----------------------------------------------------------------------------- draws

def test_probes_draw_from_the_secret_the_student_and_the_notebook(monkeypatch, tmp_path):
    nb = nbformat.read(ROOT / "release/01_self_attention/01_self_attention.ipynb", as_version=4)
    monkeypatch.setenv(SEED_VARIABLE, "12345")
    drawn = {}
    for student in ("ada", "ada", "bob"):
        resources = {"nbgrader": {"notebook": "01_self_attention", "assignment": "01_self_attention",
                                  "student": student, "db_url": f"sqlite:///{tmp_path}/gradebook.db"}}
        _, resources = InjectProbes().preprocess(nbformat.from_dict(nb), resources)
        sealed = resources["sealed_probes"]
        assert sealed, "no probe was injected"
        for grade_id, (probe, cases, *_) in sealed.items():
            expected = probe.cases(probe_rng("12345", student, "01_self_attention", "01_self_attention", grade_id,
                                             submitted_code(nb)))
            for got, want in zip(cases, expected):
                for name in want.inputs:
                    assert str(got.inputs[name]) == str(want.inputs[name])
        drawn.setdefault(student, []).append(repr([c.inputs for _, cs, *_ in sealed.values() for c in cs]))
    assert drawn["ada"][0] == drawn["ada"][1]   # graded again: the same inputs
    assert drawn["ada"][0] != drawn["bob"][0]   # another student: other inputs
    # The same student hands in again with one character of code changed: other inputs, so inputs
    # leaked by the first run (printed, quoted in an error) cannot be looked up in the second.
    changed = nbformat.from_dict(nb)
    solution = next(c for c in changed.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
    solution.source += "\n"
    resources = {"nbgrader": {"notebook": "01_self_attention", "assignment": "01_self_attention",
                              "student": "ada", "db_url": f"sqlite:///{tmp_path}/gradebook.db"}}
    _, resources = InjectProbes().preprocess(changed, resources)
    again = repr([c.inputs for _, cs, *_ in resources["sealed_probes"].values() for c in cs])
    assert again != drawn["ada"][0]


@pytest.mark.parametrize("assignment", sorted(PROBES))
def test_the_course_helpers_are_only_in_the_judgement_never_in_the_students_kernel(assignment, tmp_path):
    """A part that calls another graded part is judged with the course's helper in a kernel of its own
    (SealVerdicts.judge): the notebook the student's kernel runs holds no helper's source."""
    nb = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    resources = {"nbgrader": {"notebook": assignment, "assignment": assignment, "student": "ada",
                              "db_url": f"sqlite:///{tmp_path}/gradebook.db"}}
    injected, resources = InjectProbes().preprocess(nbformat.from_dict(nb), resources)
    helpers = {probe.kernel_reference for probe in PROBES[assignment].values() if probe.kernel_reference}
    def forms(text):  # as written, as a JSON string, and as JSON inside JSON (how a probe carries its request)
        once = json.dumps(text)[1:-1]
        return text, once, json.dumps(once)[1:-1]

    ran = "\n".join(c.source for c in injected.cells)
    judged = [judgement for *_, judgement in resources["sealed_probes"].values() if judgement]
    assert not any(form in ran for helper in helpers for form in forms(helper))
    uses = [p for p in PROBES[assignment].values()
            if any(PROBES[assignment][u].kernel_reference for u in p.uses.values() if u in PROBES[assignment])]
    assert len(judged) == len(uses)
    assert all(any(form in j for h in helpers for form in forms(h)) for j in judged)


def test_a_judgement_kernel_is_shared_only_by_parts_it_gives_no_helper_they_lack():
    """Parts wrong as run share a judgement kernel when each one's course helpers include those of every
    part judged before it there: whatever the student's code keeps of an earlier judgement, a later part
    gets no course code its own judgement does not hold."""
    uses = {"a": {("softmax", "s")}, "b": {("softmax", "s")}, "c": {("softmax", "s"), ("attn", "t")},
            "d": {("attn", "t")}}
    assert judgement_group("a", ["a", "b", "c", "d"], uses) == ["a", "b", "c"]
    assert judgement_group("d", ["a", "b", "c", "d"], uses) == ["d"]
    assert judgement_group("c", ["a", "c", "d"], uses) == ["c"]  # c gives attn, which d has; softmax it has not
    assert judgement_group("x", ["a", "b"], uses) == ["x"]  # not known to be wrong: alone, as it asked


def executed_with_mistake(assignment, definition, right, wrong, tmp_path, monkeypatch):
    """An answer key with one mistake (`right` replaced by `wrong` in the cell defining `definition`), its
    probes injected and run as grading runs it (grading seed 7): the executed notebook, and its resources."""
    nb = nbformat.read(ROOT / f"solutions/{assignment}/{assignment}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if definition in c.source)
    assert right in cell.source
    cell.source = cell.source.replace(right, wrong)
    monkeypatch.setenv(SEED_VARIABLE, "7")
    resources = {"nbgrader": {"notebook": assignment, "assignment": assignment,
                              "student": "ada", "db_url": f"sqlite:///{tmp_path}/gradebook.db"}}
    injected, resources = InjectProbes().preprocess(nb, resources)
    result = parallel.execute({"notebook": json.dumps(injected), "timeout": 60, "notebook_timeout": 600,
                               "mode": parallel.kernel_mode()})
    return nbformat.v4.reads(result["notebook"]), resources


def test_parts_wrong_through_the_same_helper_are_judged_in_one_kernel_as_they_would_be_alone(tmp_path, monkeypatch):
    """04 with attention_weights scaled by the wrong size: both multi-head parts are wrong as the notebook
    runs them, and are judged with the course's attention_weights in one kernel, not one each, with the
    verdicts they get when each is judged in a kernel of its own."""
    executed, resources = executed_with_mistake("04_multihead_attention", "def attention_weights",
                                                "np.sqrt(Q.shape[0])", "np.sqrt(X.shape[0])", tmp_path, monkeypatch)
    runs, execute = [], parallel.execute
    monkeypatch.setattr(parallel, "execute", lambda task: runs.append(task) or execute(task))

    def verdicts():
        graded, _ = SealVerdicts().preprocess(copy_module.deepcopy(executed), copy_module.deepcopy(resources))
        return {c.metadata.nbgrader["grade_id"]: c.metadata["course"]["verdict"] for c in graded.cells
                if "verdict" in c.metadata.get("course", {})}

    together = verdicts()
    assert len(runs) == 1
    monkeypatch.setattr(nbgrader_plugin, "judgement_group", lambda first, wrong, uses: [first])
    alone = verdicts()
    assert len(runs) == 3
    assert together == alone
    assert together["test_attention_weights"]["score"] == 0
    for part in ("test_multihead", "test_multihead_general"):
        assert together[part]["score"] == together[part]["points"] and together[part]["finding"] == "helper"


def test_a_judgement_kernel_draws_no_figure_and_judges_as_one_that_draws_them(tmp_path, monkeypatch):
    """05 with masked_softmax filling the masked scores with 0: the multi-head parts after it are wrong as the
    notebook runs them, and their judgement runs the notebook again through its two heatmap cells. Nothing of
    that kernel is shown, so it draws no figure; its verdicts are the ones a kernel drawing them gives."""
    executed, resources = executed_with_mistake("05_batched_masked_attention", "def masked_softmax(",
                                                "np.where(mask, scores, -1e6)", "np.where(mask, scores, 0)",
                                                tmp_path, monkeypatch)
    judged, execute = [], parallel.execute
    monkeypatch.setattr(parallel, "execute", lambda task: judged.append(execute(task)) or judged[-1])

    def run():
        """The verdicts, and the figures drawn in the judgement kernels (PNGs, in its outputs)."""
        judged.clear()
        graded, _ = SealVerdicts().preprocess(copy_module.deepcopy(executed), copy_module.deepcopy(resources))
        verdicts = {c.metadata.nbgrader["grade_id"]: c.metadata["course"]["verdict"] for c in graded.cells
                    if "verdict" in c.metadata.get("course", {})}
        drawn = [o for r in judged for c in nbformat.v4.reads(r["notebook"]).cells if c.cell_type == "code"
                 for o in c.outputs if "image/png" in o.get("data", {})]
        return verdicts, drawn, len(judged)

    def figures_before(part):
        cells = [c for c in executed.cells if c.cell_type == "code"]
        last = next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade_id") == part)
        return sum("image/png" in o.get("data", {}) for c in cells[:last] for o in c.outputs)

    assert figures_before("test_mha_masks") >= 2  # the student's own run draws the heatmaps
    verdicts, drawn, kernels = run()
    assert kernels >= 1 and drawn == []
    monkeypatch.setattr(nbgrader_plugin, "NO_FIGURES", "")  # a judgement kernel that draws them
    drawing, drawn, _ = run()
    assert len(drawn) >= 2
    assert verdicts == drawing
    assert verdicts["test_masked_softmax"]["score"] == 0
    for part in ("test_mha", "test_mha_masks"):
        assert verdicts[part]["score"] == verdicts[part]["points"] and verdicts[part]["finding"] == "helper"


def test_the_secret_is_made_once_and_kept_private(monkeypatch, tmp_path):
    monkeypatch.delenv(SEED_VARIABLE, raising=False)
    first = grading_secret(str(tmp_path))
    assert len(first) == 64 and grading_secret(str(tmp_path)) == first
    assert (tmp_path / SECRET_FILE).stat().st_mode & 0o777 == 0o600


# ----------------------------------------------------------------------------- cache

def test_the_cache_returns_only_what_ran_with_exactly_these_cells(monkeypatch, tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    key = execution_key(nb, 60, True)
    assert key != execution_key(nb, 30, True) != execution_key(nb, 60, False)
    path = cache_path(str(tmp_path), "ada", "01", "01")
    assert load(path, key) is None
    store(path, key, nb)
    assert load(path, key)[0].cells[0].source == "x = 1" and load(path, key)[1] is None
    nb.cells[0].source = "x = 2"
    assert load(path, execution_key(nb, 60, True)) is None
    # an error (a kernel that died, a notebook over its limit) holds for its own run only
    monkeypatch.setenv(RUN_VARIABLE, "run-1")
    store(path, key, error="the kernel died")
    assert load(path, key)[1] == "the kernel died"
    monkeypatch.setenv(RUN_VARIABLE, "run-2")
    assert load(path, key) is None


# ----------------------------------------------------------------------------- forked kernels

def _outputs(nb):
    """Each cell's outputs, a stream's consecutive messages joined: a kernel flushes print()'s text on a
    timer, so how one cell's stdout is cut into messages depends on the machine's load, not on the kernel
    (CI once had "... matches the true values" and its newline in two messages)."""
    out = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            if o.output_type == "stream" and out and out[-1][0] == "stream" and out[-1][1] == o.name and out[-1][5] is c:
                out[-1] = (*out[-1][:2], out[-1][2] + o.text, *out[-1][3:])
                continue
            out.append((o.output_type, o.get("name"), o.get("text") if o.output_type == "stream" else None,
                        o.get("ename"), sorted(o.get("data", {})), c))
    return [item[:5] for item in out]


@root_only
def test_a_forked_kernel_runs_a_notebook_as_a_sandboxed_one_does():
    nb = nbformat.read(ROOT / "solutions/04_multihead_attention/04_multihead_attention.ipynb", as_version=4)
    task = {"notebook": nbformat.writes(nb), "timeout": 60, "notebook_timeout": 300}
    forked = parallel.execute(dict(task, mode=parallel.FORKED))
    boxed = parallel.execute(dict(task, mode=parallel.BWRAP))
    forked, boxed = (nbformat.reads(r["notebook"], as_version=4) for r in (forked, boxed))
    assert _outputs(forked) == _outputs(boxed)
    assert any("image/png" in o[4] for o in _outputs(forked)), "figures must render inline"


# IPython's own syntax, and cells near it that are Python, or neither.
IPYTHON_SYNTAX = [
    "%time x = 1", "%%time\nx = 1", "!ls", "!!ls", "x = !ls", "x = %pwd", "x?", "x??", "?x", "%pwd?", "x.y[0]?",
    "/f 1 2", ",f a b", ";f a b", "if True:\n    !ls\n", "def f():\n    x = %pwd\n", "x = 1\n%time y = 2",
    "for i in range(2):\n    i?\n", "x = \\\n  %pwd", "f(a=\n%pwd)", "x = 1; %pwd", "In [1]: x = 1",
    ">>> x = 1\n... y = 2", "    x = 1\n    y = 2", "\n\n  x = 1\n", 'x = """\n!ls\n"""', "x = 'a?'",
    "x = '%d' % 3", "y = 5 % 2", "a != b", "x %= 2", "# x?", "x = 1  # why?", "print('!')", "lambda x=1: x % 2",
    "x = (1,\n, 2)", "if 1:\n  a = 1\n b = 2", "s = 'unterminated", "x = 1 +", "x = [\n1,\n", "x = '\\q'",
    "\x00", "await asyncio.sleep(0)", "return 1", "get_ipython().system('ls')", "a = b if c else d?", "x = 1\r\ny = 2?",
    "f'{x!r}?'", "x = f'{1:%}'", "def f():\n\treturn 1\n        ", "",
]


def test_python_cells_skip_ipythons_token_search_and_read_as_ipython_reads_them():
    """What the forked kernels' shortcut (forkserver.python_cells_untokenized) makes of every cell of the
    course and of IPython's own syntax is what IPython makes of it, error or not; its parse shows no warning
    of its own and leaves the warning filters as they were."""
    import warnings
    from IPython.core.inputtransformer2 import TransformerManager
    from grader.engine.forkserver import python_cells_untokenized
    ipython, shortcut = TransformerManager(), TransformerManager()
    python_cells_untokenized(shortcut)

    def transformed(manager, cell):
        try:
            return manager.transform_cell(cell)
        except Exception as e:  # noqa: BLE001 (an error is an outcome to compare too)
            return type(e), str(e)

    paths = sorted(ROOT.glob("solutions/*/*.ipynb")) + sorted(ROOT.glob("release/*/*.ipynb")) + \
        sorted(ROOT.glob("notebooks/*.ipynb"))
    cells = [c.source for p in paths for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"]
    assert len(paths) >= 23 and len(cells) > 500
    filters = list(warnings.filters)
    for cell in cells + IPYTHON_SYNTAX:
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("always")
            got = transformed(shortcut, cell)
        assert got == transformed(ipython, cell), cell
        assert not shown, (cell, [str(w.message) for w in shown])
    assert warnings.filters == filters
    assert shortcut.transform_cell("x = '\\q'") == "x = '\\q'\n"  # compiled (its warning silenced), not searched


def test_the_grader_finds_the_cells_that_do_not_compile_as_ipython_reads_them(monkeypatch):
    """nbgrader_plugin.syntax_errors reads cells with the shortcut above: the same cells are broken as when
    IPython searches every cell for its syntax (each cell here defines a name of its own, so every broken
    one shows)."""
    from grader.engine import forkserver
    from grader.engine.nbgrader_plugin import syntax_errors
    cells = [c.source for p in sorted(ROOT.glob("solutions/*/*.ipynb"))
             for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"]
    named = [f"{cell}\ncell_{i} = 1" for i, cell in enumerate(cells + IPYTHON_SYNTAX + ["def f(:\n  pass"])]
    shortcut = syntax_errors(named)
    with monkeypatch.context() as m:
        m.setattr(forkserver, "python_cells_untokenized", lambda manager: None)  # IPython as it is
        searched = syntax_errors(named)
    assert shortcut == searched
    assert 5 < len({n for n in shortcut if n.startswith("cell_")}) < len(IPYTHON_SYNTAX)  # some broken, not all


def test_the_cells_the_grader_finds_broken_are_those_a_kernel_reports_a_syntax_error_for():
    """syntax_errors names the names of exactly the cells a kernel does not run for a syntax error: a
    top-level `await`, which the kernel runs, is none; `return` outside a function is one."""
    from grader.engine.nbgrader_plugin import syntax_errors
    cells = [f"{cell}\ncell_{i} = 1" for i, cell in enumerate(
        IPYTHON_SYNTAX + ["async with x:\n    pass", "async for i in []:\n    pass", "def f(:\n  pass"])]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    result = parallel.execute({"notebook": json.dumps(nb), "timeout": 30, "notebook_timeout": 300,
                               "mode": parallel.kernel_mode()})
    ran = [c for c in nbformat.v4.reads(result["notebook"]).cells if c.cell_type == "code"]
    assert len(ran) == len(cells)
    in_kernel = {f"cell_{i}" for i, c in enumerate(ran)
                 if any(o.get("ename") in ("SyntaxError", "IndentationError", "TabError") for o in c.outputs)}
    assert {n for n in syntax_errors(cells) if n.startswith("cell_")} == in_kernel
    assert 5 < len(in_kernel) < len(cells) - 5


STARVED_CELLS = [
    # the kernel and three busy processes of its own on one core: the kernel gets a quarter of it, or less if
    # the machine's other work shares that core (the other test worker's)
    "import os, subprocess, sys, time\nos.sched_setaffinity(0, {0})\n"
    "hogs = [subprocess.Popen([sys.executable, '-c', 'import os, time\\nos.sched_setaffinity(0, {0})\\n"
    "t = time.time()\\nwhile time.time() - t < 60: pass']) for _ in range(3)]\ntime.sleep(0.5)",
    # 1 s of CPU: more than the 3 s limit of wall time at a quarter of a core, less than 3 x 3 s down to a ninth
    "t0 = time.perf_counter(); c0 = time.process_time()\nwhile time.process_time() - c0 < 1.0: pass\n"
    "print('ran', round(time.perf_counter() - t0, 1))",
    "t1 = time.perf_counter()\ntime.sleep(30)",  # waiting is not starving: stopped at its limit
    "print('slept', round(time.perf_counter() - t1, 1))\nt2 = time.perf_counter()\nwhile True: pass",
    "print('looped', round(time.perf_counter() - t2, 1))\n[h.kill() for h in hogs]",
]


@pytest.mark.parametrize("mode", [parallel.UNSANDBOXED, pytest.param(parallel.FORKED, marks=root_only),
                                  pytest.param(parallel.BWRAP, marks=root_only)])
def test_a_cells_time_limit_does_not_count_the_time_its_kernel_waited_for_a_core(mode):
    """A kernel that gets a quarter of a core (grading beside other notebooks) still gets its cell's limit of
    running time; a cell that sleeps is stopped at its limit of wall time, as nbclient stops it; one that
    never ends is stopped at STARVED_LIMIT times its limit at the latest."""
    assert parallel.waited_for_a_core(os.getpid()) is not None, "this test needs Linux's /proc/<pid>/schedstat"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in STARVED_CELLS])
    task = {"notebook": nbformat.writes(nb), "timeout": 3, "notebook_timeout": 120, "mode": mode}
    ran = nbformat.reads(parallel.execute(task)["notebook"], as_version=4).cells
    said = ["".join(o.get("text", "") for o in c.outputs if o.output_type == "stream") for c in ran]
    errors = [[o.ename for o in c.outputs if o.output_type == "error"] for c in ran]
    assert errors[:2] == [[], []] and said[1].startswith("ran "), (said, errors)
    assert float(said[1].split()[1]) > 3.5  # it did wait for the core: nbclient alone would have stopped it
    assert "KeyboardInterrupt" in errors[2] and 2.5 < float(said[3].split()[1]) < 5
    assert "KeyboardInterrupt" in errors[3] and 2.5 < float(said[4].split()[1]) < 3 * 3 + 2


# Children that ignore the interrupt, as one busy in a C loop does (it takes a signal only when the loop ends):
# ipykernel interrupts its whole process group.
DEAF = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(60)"
STARTED_CELLS = [
    f"import os, subprocess, sys\nearly = subprocess.Popen([sys.executable, '-c', {DEAF!r}])",
    # past its limit: the kernel waits for a child that would run a minute
    f"late = subprocess.Popen([sys.executable, '-c', {DEAF!r}])\nlate.wait()",
    # (the interrupt can cut short the wait that reaped `late`, and its status is then lost: "reaped")
    "def fate(p):\n"
    "    if p.returncode is not None:\n"
    "        return str(p.returncode)\n"
    "    try:\n"
    "        pid, status = os.waitpid(p.pid, os.WNOHANG)\n"
    "    except ChildProcessError:\n"
    "        return 'reaped'\n"
    "    return 'running' if pid == 0 else str(-os.WTERMSIG(status) if os.WIFSIGNALED(status) else status)\n"
    "print(fate(early), fate(late))\nearly.kill()",
]


@pytest.mark.parametrize("mode", [parallel.UNSANDBOXED, pytest.param(parallel.FORKED, marks=root_only),
                                  pytest.param(parallel.BWRAP, marks=root_only)])
def test_a_cell_stopped_at_its_limit_is_stopped_with_the_processes_it_started(mode):
    """The child the stopped cell started is killed and the notebook goes on; the one an earlier cell started
    still runs."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in STARTED_CELLS])
    # (5 s a cell: the limit holds for the cell after the stopped one too, whose reply comes after the interrupt and
    # the kill; 2 s was passed by it under CI's load once, the cell having run: "running -9" printed)
    task = {"notebook": nbformat.writes(nb), "timeout": 5, "notebook_timeout": 60, "mode": mode}
    ran = nbformat.reads(parallel.execute(task)["notebook"], as_version=4).cells
    errors = [[o.ename for o in c.outputs if o.output_type == "error"] for c in ran]
    said = ["".join(o.get("text", "") for o in c.outputs if o.output_type == "stream") for c in ran]
    # stopped at its limit (the kill can end the wait before the interrupt comes: no KeyboardInterrupt then)
    assert errors[0] == [] and "CellTimeoutError" in errors[1] and errors[2] == [], (errors, said)
    # a 60 s sleeper that is not running was stopped; how it reads depends on who reaped it (Popen says 0 when
    # a child was reaped before it could wait)
    assert said[2].split()[0] == "running" and said[2].split()[1] in ("-9", "reaped", "0"), said


@root_only
def test_a_forked_kernel_shows_ipythons_syntax_and_warnings_as_a_sandboxed_one_does():
    """The shortcut above, in a kernel: magics, shell escapes, help, prompts, errors, and a warning shown once,
    always, or once a location, as the sandboxed kernel (ipykernel as it is) shows them."""
    sources = ["x = 1\nx?", "%pwd?", "y = !echo hi\ny", "%%capture caught\nprint('caught')", "caught.stdout",
               ">>> 1 + 1", "if 1:\n  a = 1\n b = 2", "y = '\\q'", "import warnings\nwarnings.simplefilter('always')",
               "y = '\\q'", "y = '\\q'", "warnings.simplefilter('once', DeprecationWarning)\nz = '\\w'", "z = '\\w'",
               "def f():\n    warnings.warn('from f')\n", "warnings.resetwarnings()\nf()", "f()", "x is 1",
               "warnings.filters = ()", "1 + 1", "%pwd?"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    task = {"notebook": nbformat.writes(nb), "timeout": 60, "notebook_timeout": 120}
    forked, boxed = (nbformat.reads(parallel.execute(dict(task, mode=mode))["notebook"], as_version=4)
                     for mode in (parallel.FORKED, parallel.BWRAP))
    # a warning names the cell's file, in the kernel's own temporary folder (/tmp/k<uid>/ipykernel_7/ when forked)
    folder = re.compile(r"/tmp/(k\d+/)?ipykernel_\d+/")
    forked, boxed = ([(*o[:2], o[2] and folder.sub("", o[2]), *o[3:]) for o in _outputs(nb)] for nb in (forked, boxed))
    assert forked == boxed
    assert sum(o[2].count("Warning") for o in forked if o[1] == "stderr") >= 6, "the warnings must show"


@root_only
def test_forked_kernels_are_isolated_from_each_other_and_cleaned_up():
    from grader.engine.forkserver import ForkedKernelManager

    def execute(kc, code):
        return _execute(kc, code, evalue=False)

    async def run():
        kms = [ForkedKernelManager(kernel_name="python3") for _ in range(2)]
        clients = []
        for km in kms:
            await km.start_kernel()
            kc = km.client()
            kc.start_channels()
            await kc.wait_for_ready(timeout=60)
            clients.append(kc)
        whoami = ("import os, subprocess\n"
                  "open(os.path.expanduser(f'~/answers-{os.getuid()}'), 'w').write('42')\n"
                  "subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
                  "print(os.getuid(), os.path.expanduser('~'))\n")
        a = (await execute(clients[0], whoami)).split()
        b = (await execute(clients[1], whoami)).split()
        peek = await execute(clients[1], "import glob\nprint(sorted(glob.glob('/tmp/*/answers-*')))")
        signal_a = await execute(clients[1], f"import os, signal\nos.kill({kms[0].provisioner.pid}, 0)")
        for kc, km in zip(clients, kms):
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
        return a, b, peek, signal_a

    (uid_a, home_a), (uid_b, home_b), peek, signal_a = asyncio.run(run())
    assert uid_a != uid_b and int(uid_a) >= 2_000_000_000
    assert peek.strip() == f"['/tmp/k{uid_b}/answers-{uid_b}']"   # B sees its own home only, nothing of A's
    assert signal_a in ("PermissionError", "ProcessLookupError")  # nor can it signal A's kernel
    time.sleep(0.2)
    for uid in (uid_a, uid_b):  # nothing of either survives its kernel, not even a detached sleep
        leftover = subprocess.run(["pgrep", "-u", uid], capture_output=True, text=True).stdout
        assert leftover == "", f"processes of uid {uid} left running: {leftover}"
        free = socket.socket(socket.AF_UNIX)
        free.bind(f"\0course-kernel-uid-{uid}")  # its uid's lock was released with it
        free.close()


@root_only
def test_living_sees_a_uids_running_processes_not_its_zombies_nor_the_caller():
    """The zygote's killer stops sending SIGKILL when `living` says the uid has nothing left that can fork."""
    from grader.engine.forkserver import living
    from grader.engine.sandbox import SandboxedKernelManager, lock_free_uid
    km = SandboxedKernelManager()
    uid, lock = lock_free_uid(km.uid_range_start, km.uid_range_size)  # held: no kernel of a test beside runs as it
    try:
        _living_sees(living, uid)
    finally:
        lock.close()


def _living_sees(living, uid):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.write(w, b"1")
            time.sleep(60)
        finally:
            os._exit(0)
    try:
        assert os.read(r, 1) == b"1"
        assert living(uid)
        os.kill(pid, signal.SIGKILL)
        for _ in range(500):  # a zombie until reaped
            if open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
                break
            time.sleep(0.01)
        assert not living(uid)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r), os.close(w)
    # the caller itself does not count
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os._exit(3 if living(uid) else 4)
        finally:
            os._exit(1)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 4


@root_only
def test_a_forked_kernels_processes_that_keep_forking_do_not_outlive_it():
    """A process that forks a child and exits, again and again, changes its pid faster than one kill(-1) can
    be sure of it: the release kills until nothing of the uid is left living."""
    from grader.engine.forkserver import ForkedKernelManager

    async def run():
        km = ForkedKernelManager(kernel_name="python3")
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=60)
        uid = (await _execute(kc, "import os\nprint(os.getuid())")).split()[0]
        await _execute(kc, "import os\n"
                           "for _ in range(4):\n"
                           "    if os.fork() == 0:\n"
                           "        while True:\n"
                           "            if os.fork():\n"
                           "                os._exit(0)\n"
                           "import time; time.sleep(0.3)\n")
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
        return uid

    uid = asyncio.run(run())
    left = subprocess.run(["ps", "-u", uid, "-o", "pid=,stat="], capture_output=True, text=True).stdout.split("\n")
    assert not [line for line in left if line.split() and not line.split()[1].startswith("Z")], left
    time.sleep(0.2)
    assert subprocess.run(["pgrep", "-u", uid], capture_output=True, text=True).stdout == ""


async def _execute(kc, code, evalue=True):
    """Run code through a started kernel client; its output and errors as text ("Name: message", or the
    name alone without evalue)."""
    msg_id = kc.execute(code)
    text = ""
    while True:
        msg = await kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            text += msg["content"]["text"]
        if msg["msg_type"] == "error":
            text += f"{msg['content']['ename']}: {msg['content']['evalue']}" if evalue else msg["content"]["ename"]
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return text


async def _run_forked(code):
    """Run code in a fresh forked kernel, then shut it down; its output and errors as text."""
    from grader.engine.forkserver import ForkedKernelManager
    km = ForkedKernelManager(kernel_name="python3")
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=60)
    text = await _execute(kc, code)
    kc.stop_channels()
    await km.shutdown_kernel(now=True)
    return text


FILL_AND_LOCK = """\
import os
locked = os.path.expanduser('~/locked')
os.makedirs(locked, exist_ok=True)
n = 0
try:
    while True:
        with open(f'{locked}/{n}', 'wb') as f:
            f.write(b'x' * 2**23)
        n += 1
except OSError:
    pass
for d in ('/tmp', '/dev/shm', f'/run/kernel/k{os.getuid()}'):
    try:
        with open(f'{d}/fill', 'wb') as f:
            f.write(b'x' * 2**27)
    except OSError:
        pass
os.chmod(locked, 0o500)   # its owner cannot delete what is in it now
print(n)"""


@root_only
def test_a_kernel_that_fills_and_locks_its_tmp_leaves_the_next_one_everything():
    """Its home, /dev/shm and the socket directory filled, the files made undeletable (and /tmp tried): the next
    kernel of the same zygote starts, sees none of it and has all its space (they were a shared tmpfs once,
    and this took every later kernel of the run down with 'No space left on device')."""
    from grader.engine.forkserver import zygote
    before = zygote()
    filled = asyncio.run(_run_forked(FILL_AND_LOCK))
    assert int(filled) >= 32, filled  # it did fill its /tmp (8 MiB a file)
    seen = asyncio.run(_run_forked("import glob, os, shutil\nhome = os.path.expanduser('~')\n"
                                   "print(sorted(os.listdir(home)), os.listdir('/dev/shm'), "
                                   "shutil.disk_usage(home).used < 2**20, [os.listdir(d) for d in glob.glob('/tmp/k*')])"))
    # its own home and /dev/shm are empty and have all their space; every home it sees under /tmp is empty
    assert seen.strip() in ("['.ipython'] [] True", "[] [] True") or seen.startswith("['.ipython'] [] True ["), seen
    assert "locked" not in seen, seen
    assert zygote() is before


@root_only
def test_a_zygote_that_died_or_cannot_fork_is_replaced_before_the_next_kernel():
    from grader.engine.forkserver import Zygote, zygote
    first = zygote()
    first.process.kill()
    first.process.wait()
    assert asyncio.run(_run_forked("print(6 * 7)")).strip() == "42"
    second = zygote()
    assert second is not first
    real = Zygote.spawn

    def fails_once(self, uid, connection):  # a zygote that answers but cannot fork (its tmpfs full, say)
        Zygote.spawn = real
        raise RuntimeError("zygote: OSError: [Errno 28] No space left on device")
    Zygote.spawn = fails_once
    try:
        assert asyncio.run(_run_forked("print(6 * 7)")).strip() == "42"
    finally:
        Zygote.spawn = real
    assert zygote() is not second


@root_only
def test_a_kernels_children_share_its_memory_budget():
    """Forked children each under the per-process limit cannot together hold more than the kernel's budget:
    past it the largest is killed. Without a budget the same children all hold their memory."""
    from grader.engine import cgroup
    from grader.engine.forkserver import zygote
    if "memory" not in cgroup.hierarchies():
        pytest.skip("this machine offers no cgroup memory controller to the grader (RLIMIT_AS per process applies)")
    hold = ("import os, time\n"
            "kids = []\n"
            "for _ in range(3):\n"
            "    pid = os.fork()\n"
            "    if pid == 0:\n"
            "        block = bytearray(300 * 2**20)\n"
            "        block[::4096] = b'1' * len(block[::4096])  # touched: resident, not only reserved\n"
            "        time.sleep(2)\n"
            "        os._exit(0)\n"
            "    kids.append(pid)\n"
            "print(sum(os.waitpid(pid, 0)[1] == 0 for pid in kids))")
    z = zygote()
    try:
        z.sandbox.kernel_memory = 700 * 2**20
        held_with_budget = int(asyncio.run(_run_forked(hold)))
        z.sandbox.kernel_memory = 0
        held_without = int(asyncio.run(_run_forked(hold)))
    finally:
        from grader.engine.sandbox_policy import SandboxPolicy
        z.sandbox.kernel_memory = SandboxPolicy.kernel_memory.default_value
    assert held_without == 3
    assert held_with_budget < 3  # 900 MiB asked of a 700 MiB budget: at least one child was stopped
    assert not [n for n in os.listdir(cgroup.hierarchies()["memory"][1]) if n.startswith(f"g{os.getpid()}-")]


@root_only
def test_busy_children_share_their_kernels_one_core():
    """Processes a kernel starts (setsid'd ones too) run in its cgroup, limited to cpu_limit cores together."""
    from grader.engine import cgroup
    from grader.engine.forkserver import zygote
    if cgroup.hierarchy() is None:
        pytest.skip("this machine offers no cgroup cpu controller to the grader (RLIMIT_CPU and the kill apply)")
    count = ("import multiprocessing as mp, time\n"
             "def count(q):\n"
             "    n, t = 0, time.time()\n"
             "    while time.time() - t < 2:\n"
             "        n += 1\n"
             "    q.put(n)\n"
             "q = mp.Queue()\n"
             "ps = [mp.Process(target=count, args=(q,)) for _ in range(4)]\n"
             "[p.start() for p in ps]\n[p.join() for p in ps]\n"
             "print(sum(q.get() for _ in ps))")
    z = zygote()
    try:
        z.sandbox.cpu_limit = 0.1
        limited = int(asyncio.run(_run_forked(count)))
        z.sandbox.cpu_limit = 1.0
        one_core = int(asyncio.run(_run_forked(count)))
    finally:
        z.sandbox.cpu_limit = 1.0
    assert limited < 0.5 * one_core, (limited, one_core)  # a tenth of a core against a whole one
    assert not [n for n in os.listdir(cgroup.hierarchy()[1]) if n.startswith(f"g{os.getpid()}-")]


@root_only
def test_nothing_a_forked_kernel_writes_reaches_the_graders_terminal(tmp_path):
    """os.write to fd 1 and 2, and print to sys.__stderr__: a kernel's writes never show where the grader
    runs (a submission could clear the screen or print a fake grade table there)."""
    marker = "TERMINAL-" + "INJECTION"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import os, sys\n"
        f"os.write(1, b'\\x1b[2J {marker} one')\n"
        f"os.write(2, b'\\x1b]0;{marker}\\x07 two')\n"
        f"print('{marker} three', file=sys.__stderr__, flush=True)\n"
        "print('in the notebook')")]
    task = {"notebook": nbformat.writes(nb), "timeout": 60, "notebook_timeout": 120, "mode": parallel.FORKED}
    script = ("import json, sys\nfrom grader.engine import parallel\n"
              "print(json.dumps(parallel.execute(json.loads(sys.stdin.read()))))")
    run = subprocess.run([sys.executable, "-c", script], input=json.dumps(task), capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.splitlines()[-1])
    executed = nbformat.reads(result["notebook"], as_version=4)
    assert "in the notebook" in str(executed.cells[0].outputs)
    assert marker not in run.stderr and marker not in "\n".join(run.stdout.splitlines()[:-1])


@root_only
def test_every_output_type_is_capped_per_cell():
    """30 MB of display data, of results and of HTML in one cell each: the grading process keeps at most
    its limit of each cell, with a note, and the next cell runs as usual."""
    from grader.engine.parallel import SurviveKernelDeath
    limit = SurviveKernelDeath.output_limit
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
                    "from IPython.display import display\n"
                    "for _ in range(30):\n    display({'text/plain': 'x' * 2**20}, raw=True)"),
                nbformat.v4.new_code_cell("from IPython.display import HTML, display\n"
                                          "for _ in range(30):\n    display(HTML('<p>' + 'y' * 2**20))"),
                nbformat.v4.new_code_cell("print('still running')")]
    task = {"notebook": nbformat.writes(nb), "timeout": 60, "notebook_timeout": 120, "mode": parallel.FORKED}
    executed = nbformat.reads(parallel.execute(task)["notebook"], as_version=4)
    for cell in executed.cells[:2]:
        assert len(json.dumps(cell.outputs)) < limit + 2**21
        assert "output cut" in cell.outputs[-1].get("text", "")
    assert "still running" in executed.cells[2].outputs[0]["text"]


@root_only
def test_one_huge_display_is_cut_in_the_kernel_and_one_sent_around_the_cut_is_refused():
    """100 MB in one display: the kernel sends a note instead, the next cell runs. The same sent through
    ipykernel's own publisher, around the kernel's cut: the grader refuses the message (zmq's MAXMSGSIZE)
    instead of reading it, and the notebook still ends."""
    huge = "'x' * (100 * 2**20)"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"from IPython.display import display\ndisplay({{'text/html': {huge}}}, raw=True)"),
                nbformat.v4.new_code_cell("print('next cell')")]
    task = {"notebook": nbformat.writes(nb), "timeout": 60, "notebook_timeout": 120, "mode": parallel.FORKED}
    executed = nbformat.reads(parallel.execute(task)["notebook"], as_version=4)
    assert "output cut" in executed.cells[0].outputs[0]["data"]["text/plain"]
    assert executed.cells[1].outputs[0]["text"] == "next cell\n"
    nb.cells[0].source = ("import ipykernel.zmqshell\n"
                          f"ipykernel.zmqshell.ZMQDisplayPublisher.publish(get_ipython().display_pub, {{'text/html': {huge}}})")
    result = parallel.execute(dict(task, notebook=nbformat.writes(nb)))
    assert len(result.get("notebook", "")) < 2**20, "the refused message reached the notebook"


@root_only
def test_a_probe_runs_outside_the_kernels_history():
    """A later cell that prints In, _ih or Out finds no probe there (a probe's source holds its inputs)."""
    from grader.engine.protocol import PROBE_HEADER
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_code_cell(PROBE_HEADER + "secret_inputs = 'PROBE-' + 'INPUTS'"),
                nbformat.v4.new_code_cell("print(In, _ih, Out, _oh)")]
    task = {"notebook": nbformat.writes(nb), "timeout": 60, "notebook_timeout": 120, "mode": parallel.FORKED}
    executed = nbformat.reads(parallel.execute(task)["notebook"], as_version=4)
    shown = str(executed.cells[2].outputs)
    assert "x = 1" in shown and "Sealed probe" not in shown and "PROBE-INPUTS" not in shown, shown


# ----------------------------------------------------------------------------- a class

ASSIGNMENT = "01_self_attention"


@pytest.fixture(scope="module")
def one_assignment(tmp_path_factory):
    root = tmp_path_factory.mktemp("engine")
    write_class(root / "submissions", [ASSIGNMENT])
    return root


@root_only
def test_students_with_hostile_ids_each_score_under_their_own_safe_id(tmp_path):
    """Folders named as glob patterns, formulas, SQL, full-width and combining letters, each holding the answer
    key: each scores full under its safe id, and the student whose real id one of them imitates is untouched."""
    from grader.engine.intake import safe_id
    from tests.sample_class import submission
    key = nbformat.writes(submission(STUDENTS["correct", ASSIGNMENT]))
    untouched = nbformat.writes(submission(STUDENTS["untouched", ASSIGNMENT]))
    names = ["*", "[c]tl_key", "ｃｔｌ＿ｋｅｙ", "c\u0301tl_key", "x'; DROP TABLE student; --",
             '=HYPERLINK("evil.example","y")', "-ctl_key", "@ctl"]
    for name in names + ["ctl_key"]:
        path = tmp_path / "class" / name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(untouched if name == "ctl_key" else key)
    rows = grade_class(tmp_path / "class", tmp_path / "course", say=lambda *a: None, progress=False)
    total = {}
    for r in rows:
        if not r["needs_manual_grade"]:
            total[r["student_id"]] = total.get(r["student_id"], 0) + r["part_score"]
    full = sum(v for k, v in STUDENTS["correct", ASSIGNMENT].expected.items() if v != "manual")
    assert total == {**{safe_id(n): full for n in names}, "ctl_key": 0}, total


# What matplotlib and Jupyter keep per user, made by any use of them (a font list, a migration marker):
# not files of a run.
TOOL_CACHES = (".cache/matplotlib", ".config/matplotlib", ".ipython", ".jupyter")


@root_only
def test_a_killed_run_loses_nothing_and_the_next_finishes_it(one_assignment, tmp_path):
    """Kill a grading run once some notebooks are done; run again: the same grades as one clean run. Neither
    run, the killed one included, leaves a file outside the course directory (their TMPDIR and HOME stay
    empty: no sandbox folders, connection files, uid locks or Dask scratch space)."""
    outside = {"TMPDIR": tmp_path / "tmp", "HOME": tmp_path / "home"}
    for folder in outside.values():
        folder.mkdir()
    env = {**os.environ, SEED_VARIABLE: "777", "PYTHONPATH": str(ROOT), **{k: str(v) for k, v in outside.items()}}
    course = tmp_path / "course"
    cmd = [sys.executable, "-m", "grader", "grade", str(one_assignment / "submissions"), "--course", str(course),
           "--workers", "2"]
    run = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    deadline = time.time() + 300
    while len(list(course.glob("executed/*/*/*.ipynb"))) < 3:
        assert run.poll() is None and time.time() < deadline, "the run ended before it could be killed"
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    done_before = len(list(course.glob("executed/*/*/*.ipynb")))
    total = sum(a == ASSIGNMENT for _, a in STUDENTS)
    assert done_before < total, "killed too late to test anything"

    resumed = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"{done_before} already run with the same cells" in resumed.stdout + resumed.stderr
    assert not list(outside["TMPDIR"].iterdir()), f"left in TMPDIR: {sorted(outside['TMPDIR'].iterdir())}"
    left = [str(p.relative_to(outside["HOME"])) for p in outside["HOME"].rglob("*") if p.is_file()
            and not any(p.is_relative_to(outside["HOME"] / cache) for cache in TOOL_CACHES)]
    assert not left, f"left in HOME: {left}"
    resumed = [r for r in report.collect(course) if r["assignment"] == ASSIGNMENT]

    said = []
    os.environ[SEED_VARIABLE] = "777"
    try:
        again = grade_class(one_assignment / "submissions", course, say=said.append, workers=2, progress=False)
    finally:
        del os.environ[SEED_VARIABLE]
    assert f"0 notebooks to run, {total} already run" in " ".join(said)
    expected = {(sid, a, part): pts for (sid, a), s in STUDENTS.items() if a == ASSIGNMENT
                for part, pts in s.expected.items() if not isinstance(pts, str)}
    got = {k: score for k, (score, manual) in _scores(resumed).items() if k in expected and not manual}
    assert got == pytest.approx(expected)
    assert _scores(again) == _scores(resumed)


@root_only
def test_regrading_from_scratch_draws_the_same_inputs_and_gives_the_same_gradebook(one_assignment, tmp_path):
    os.environ[SEED_VARIABLE] = "4242"
    try:
        first = grade_class(one_assignment / "submissions", tmp_path / "a", say=lambda *a: None, workers=2,
                            progress=False)
        second = grade_class(one_assignment / "submissions", tmp_path / "b", say=lambda *a: None,
                             scheduler="local", workers=2, progress=False)
    finally:
        del os.environ[SEED_VARIABLE]
    assert _scores(first) == _scores(second)
    assert len(first) == sum(len(s.expected) for (_, a), s in STUDENTS.items() if a == ASSIGNMENT)
    # the same probes ran in both: every executed notebook has the same cells
    for path in (tmp_path / "a").glob("executed/*/*/*.ipynb"):
        twin = tmp_path / "b" / path.relative_to(tmp_path / "a")
        a, b = (nbformat.read(p, as_version=4) for p in (path, twin))
        assert a.metadata.course_execution.key == b.metadata.course_execution.key


@root_only
def test_plan_is_what_nbgrader_runs(one_assignment, tmp_path, monkeypatch):
    """Every notebook the parallel run executed was taken up by nbgrader without running it again."""
    monkeypatch.setenv(SEED_VARIABLE, "99")
    rows = grade_class(one_assignment / "submissions", tmp_path / "course", say=lambda *a: None, workers=2,
                       progress=False)
    assert rows
    log = (tmp_path / "course" / "logs" / f"autograde_{ASSIGNMENT}.log").read_text()
    ran = log.count("Autograding ")
    assert ran == sum(a == ASSIGNMENT for _, a in STUDENTS)
    assert log.count("executed before, same cells") == ran


@root_only
def test_a_student_is_recorded_as_soon_as_their_notebooks_have_run(tmp_path, monkeypatch):
    """Recording does not wait for the assignment's slowest notebook: a run does not end with one process
    recording a whole assignment, judgement kernels and all, while the other cores wait (issue 30, point 3)."""
    from grader.engine.build import SOURCE, answer_key
    from nbgrader import utils
    from tests.sample_class import submission
    from tests.students import Student
    name = "01_self_attention"
    first = next(c for c in answer_key(nbformat.read(str(SOURCE / name / f"{name}.ipynb"), as_version=4)).cells
                 if utils.is_solution(c))
    slow = first.source + "\nimport time\ntime.sleep(12)  # a notebook that takes long, as 09's training does"
    for student, cells in (("quick", {}), ("slow", {first.metadata.nbgrader["grade_id"]: slow})):
        path = tmp_path / "submissions" / student / name / f"{name}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(submission(Student(name, {}, cells=cells)), str(path))
    monkeypatch.setenv(SEED_VARIABLE, "99")
    rows = grade_class(tmp_path / "submissions", tmp_path / "course", say=lambda *a: None, workers=2,
                       progress=False)
    assert {r["student_id"] for r in rows} == {"quick", "slow"}
    assert all(r["part_score"] == r["part_max_score"] for r in rows if not r["needs_manual_grade"]), rows
    course = tmp_path / "course"
    recorded = (course / "autograded" / "quick" / name / f"{name}.ipynb").stat().st_mtime
    slow_ran = (course / "executed" / "slow" / name / f"{name}.ipynb").stat().st_mtime
    assert recorded < slow_ran - 3  # recorded while the slow one still ran
    log = (course / "logs" / f"autograde_{name}.log").read_text()
    assert log.count("Autograding ") == 2 and log.count("executed before, same cells") == 2  # one log, both in it


# ----------------------------------------------------------------------------- the plan does what nbgrader does

def _tampered(nb):
    """The release notebook, and copies edited the ways a student's notebook can be: name -> notebook."""
    def edit(change):
        copy = nbformat.from_dict(json.loads(json.dumps(nb)))
        change(copy.cells, {c.metadata.nbgrader["grade_id"]: c for c in copy.cells if "nbgrader" in c.metadata})
        return copy

    def set_meta(cell, **meta):
        return lambda cells, by_id: by_id[cell].metadata.nbgrader.update(meta)

    def to_markdown(cell):  # what Jupyter's "change cell type" does: a markdown cell has no outputs
        cell.update(cell_type="markdown", attachments={})
        del cell["outputs"], cell["execution_count"]

    return {
        "as released": nb,
        "points as text": edit(set_meta("test_softmax", points="three")),
        "points raised": edit(set_meta("test_softmax", points=99)),
        "no grade id": edit(lambda cells, by_id: by_id["test_softmax"].metadata.nbgrader.pop("grade_id")),
        "an extra key": edit(set_meta("test_softmax", bonus=True)),
        "an unknown grade id": edit(set_meta("test_softmax", grade_id="test_bonus")),
        "an old schema": edit(set_meta("test_softmax", schema_version=1)),
        "a newer schema": edit(set_meta("test_softmax", schema_version=9)),
        "unlocked": edit(set_meta("test_self_attention", locked=False)),
        "a hidden test edited": edit(lambda cells, by_id: setattr(by_id["test_self_attention"], "source", "pass")),
        "a test cell made markdown": edit(lambda cells, by_id: to_markdown(by_id["test_softmax"])),
        "a duplicate grade id": edit(lambda cells, by_id: cells.append(copy_module.deepcopy(by_id["test_softmax"]))),
        "a written answer not graded": edit(set_meta("why_extreme", grade=False)),
    }


def _outcome(function, nb):
    try:
        return function(nb)
    except Exception as e:
        return type(e).__name__, str(e)


def test_the_quick_metadata_check_says_what_nbgraders_says():
    from nbgrader.nbgraderformat import MetadataValidator
    from grader.engine.nbgrader_plugin import _QuickMetadataValidator
    release = nbformat.read(ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    outcomes = {}
    for name, nb in _tampered(release).items():
        theirs = _outcome(MetadataValidator().validate_nb, nb)
        ours = _outcome(_QuickMetadataValidator().validate_nb, nb)
        assert ours == theirs, name
        outcomes[name] = ours
    assert outcomes["as released"] is None
    refused = [name for name, outcome in outcomes.items() if outcome is not None]
    assert {"points as text", "no grade id", "an extra key", "an old schema", "a newer schema",
            "a duplicate grade id", "a written answer not graded"} <= set(refused)


def test_the_plan_overwrites_cells_as_nbgrader_does(tmp_path):
    from nbgrader.preprocessors import OverwriteCells
    from grader.engine.grade import AssignmentCells, OverwriteCellsOnce, ensure_released, prepare
    course = tmp_path / "course"
    prepare(course)
    ensure_released(course, ASSIGNMENT)
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    cells = AssignmentCells(db_url, ASSIGNMENT)
    release = nbformat.read(ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    changed = 0
    for name, nb in _tampered(release).items():
        resources = {"nbgrader": {"notebook": ASSIGNMENT, "assignment": ASSIGNMENT, "student": "s",
                                  "db_url": db_url}}
        copy = lambda: nbformat.from_dict(json.loads(json.dumps(nb)))  # noqa: E731
        theirs = _outcome(lambda n: OverwriteCells()(n, resources)[0], copy())
        ours = _outcome(lambda n: OverwriteCellsOnce(cells=cells)(n, resources)[0], copy())
        assert ours == theirs, name
        changed += theirs != nb
    assert changed >= 4  # points, grade id, lock and hidden test put back: the comparison saw real work


def test_grading_learns_each_assignments_time_and_runs_the_longest_first():
    from grader.engine.grade import LongestFirst
    order = LongestFirst()
    for a in ("01", "09", "05"):
        for i in range(3):
            order.add(a, (a, i))
    assert len(order) == 9
    # One notebook of each, to learn its time, in the order planned.
    assert [order.next() for _ in range(3)] == [("01", ("01", 0)), ("09", ("09", 0)), ("05", ("05", 0))]
    order.finished("01", 0.5)
    order.finished("09", 4.0)
    order.finished("05", None)  # its worker failed: no time learnt
    assert order.next() == ("05", ("05", 1))  # still untimed and none of it running: one more to learn
    assert order.next() == ("09", ("09", 1))  # then the longest
    assert order.next() == ("09", ("09", 2))
    order.finished("05", 9.0)
    assert [order.next() for _ in range(3)] == [("05", ("05", 2)), ("01", ("01", 1)), ("01", ("01", 2))]
    assert order.next() is None and len(order) == 0


@root_only
def test_a_forked_notebook_reports_its_kernels_cpu_which_orders_grading():
    parallel._warm_up(parallel.FORKED)  # as a grading worker starts: the zygote is there before the notebook
    nb = nbformat.read(ROOT / "solutions/01_self_attention/01_self_attention.ipynb", as_version=4)
    result = parallel.execute({"notebook": nbformat.writes(nb), "timeout": 60, "notebook_timeout": 300,
                               "mode": parallel.FORKED})
    assert "notebook" in result and result["seconds"] > 0
    assert result["kernel_cpu"] > 0  # the forked kernel's CPU, read from its zygote once it is reaped


def test_a_new_gradebook_is_the_one_nbgrader_makes(tmp_path, monkeypatch):
    """create_gradebook stamps the schema version in-process; nbgrader asks an `alembic` subprocess. Same
    tables, same version: nbgrader's commands (and its migrations) take either."""
    import sqlite3
    from nbgrader.api import Gradebook
    from grader.engine.grade import create_gradebook
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # `alembic`
    theirs, ours = tmp_path / "theirs.db", tmp_path / "ours.db"
    Gradebook(f"sqlite:///{theirs}").close()
    create_gradebook(ours)

    def schema(path):
        with sqlite3.connect(path) as db:
            tables = sorted(db.execute("SELECT type, name, sql FROM sqlite_master"))
            return tables, db.execute("SELECT version_num FROM alembic_version").fetchall()

    tables, version = schema(theirs)
    assert len(tables) > 10 and len(version) == 1 and version[0][0]
    assert schema(ours) == (tables, version)
    create_gradebook(ours)  # one that exists is left as it is
    assert schema(ours) == (tables, version)
