"""The build: release/ and solutions/ are up to date, and release/ gives nothing away."""
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader import utils

from grader.engine import build
from grader.engine.build import RELEASE, SOURCE, SOLUTIONS, assignments

NOTEBOOKS = [(a, p.name) for a in assignments() for p in sorted((SOURCE / a).glob("*.ipynb"))]


def test_release_and_solutions_are_up_to_date():
    stale = build.build(check=True)
    assert not stale, "stale (run `python -m grader build`): " + ", ".join(map(str, stale))


@pytest.mark.parametrize("assignment, name", NOTEBOOKS)
def test_source_is_committed_without_outputs(assignment, name):
    nb = nbformat.read(str(SOURCE / assignment / name), as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code")


def _secret_lines(nb):
    """Lines of solutions and hidden tests that say something (not blank, not a bare keyword)."""
    secret, inside = [], False
    for cell in nb.cells:
        for line in cell.source.splitlines():
            if re.search(r"### BEGIN (SOLUTION|HIDDEN TESTS)", line):
                inside = True
            elif re.search(r"### END (SOLUTION|HIDDEN TESTS)", line):
                inside = False
            elif inside and len(line.strip()) > 12:
                secret.append(line.strip())
    return secret


@pytest.mark.parametrize("assignment, name", NOTEBOOKS)
def test_release_holds_no_solution_and_no_hidden_test(assignment, name):
    released = (RELEASE / assignment / name).read_text()
    assert "BEGIN SOLUTION" not in released and "HIDDEN TESTS" not in released
    source = nbformat.read(str(SOURCE / assignment / name), as_version=4)
    leaked = [line for line in _secret_lines(source) if line in released]
    assert not leaked, f"solution or hidden-test lines in release/{assignment}/{name}: {leaked}"


@pytest.mark.parametrize("assignment, name", NOTEBOOKS)
def test_release_runs_before_it_is_filled_in(assignment, name, tmp_path):
    """Run All on an untouched release notebook reaches the end: only the checks fail, each with its message in
    a line or two (CheckFailed, no traceback through the check's code); a cell that only shows something (a
    heatmap, a comparison) shows a note instead of raising."""
    nb = nbformat.read(str(RELEASE / assignment / name), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = {c.metadata.nbgrader["grade_id"] if "nbgrader" in c.metadata else c.id: o
              for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"}
    checks = [c.metadata.nbgrader["grade_id"] for c in nb.cells
              if c.cell_type == "code" and utils.is_grade(c) and not utils.is_solution(c)]
    raised = {cell: e.ename for cell, e in errors.items() if cell not in checks}
    assert not raised, f"cells that are not checks raise before anything is filled in: {raised}"
    long = {cell: (e.ename, len(e.traceback)) for cell, e in errors.items() if e.ename != "CheckFailed"
            or len(e.traceback) > 2}
    assert not long, f"checks that show a traceback, not a message of a line or two: {long}"
    passing = [c for c in checks if c not in errors]
    assert not passing, f"checks that pass on the untouched placeholders: {passing}"


@pytest.mark.parametrize("assignment, name", NOTEBOOKS)
def test_every_graded_cell_is_probed_or_graded_by_hand(assignment, name):
    from grader.course import PROBES
    nb = nbformat.read(str(SOURCE / assignment / name), as_version=4)
    tests = {c.metadata.nbgrader["grade_id"] for c in nb.cells
             if c.cell_type == "code" and utils.is_grade(c) and not utils.is_solution(c)}
    assert tests == set(PROBES.get(name[:-len(".ipynb")], {})), "test cells and the notebook folder's PROBES (grader/course) disagree"
    solutions = {c.metadata.nbgrader["grade_id"] for c in nb.cells if utils.is_solution(c)}
    for probe in PROBES.get(name[:-len(".ipynb")], {}).values():
        assert not probe.cell or probe.cell in solutions, f"probe runs a cell that is not there: {probe.cell}"


def test_solutions_exist_for_every_source_notebook():
    assert {(a, n) for a, n in NOTEBOOKS} == {(p.parent.name, p.name) for p in SOLUTIONS.glob("*/*.ipynb")}


def test_the_build_leaves_what_editors_write_alone_and_says_what_else_it_removes(tmp_path, monkeypatch):
    """JupyterLab's checkpoints, __pycache__ and .DS_Store beside the notebooks are neither built, nor
    stale, nor deleted; a file the build does not make in release/ is named as it is removed."""
    import io
    import shutil
    a = "02_scaled_attention"
    for name in ("source", "release", "solutions"):
        shutil.copytree(build.ROOT / name / a, tmp_path / name / a)
    monkeypatch.setattr(build, "SOURCE", tmp_path / "source")
    monkeypatch.setattr(build, "RELEASE", tmp_path / "release")
    monkeypatch.setattr(build, "SOLUTIONS", tmp_path / "solutions")
    monkeypatch.setattr(build, "STAMPS", tmp_path / "stamps.json")
    editors = [tmp_path / kind / a / where for kind in ("source", "release", "solutions")
               for where in (".ipynb_checkpoints/02_scaled_attention-checkpoint.ipynb", "__pycache__/x.pyc", ".DS_Store")]
    for path in editors:
        path.parent.mkdir(exist_ok=True)
        path.write_text("{}")
    foreign = tmp_path / "release" / a / "notes.txt"
    foreign.write_text("not made by the build")
    said = io.StringIO()
    stale = build.build(only=[a], out=said)
    assert stale == [foreign]
    assert not foreign.exists() and f"removed: {foreign} (the build does not make it)" in said.getvalue()
    assert all(path.read_text() == "{}" for path in editors)


@pytest.fixture
def built_01(tmp_path, monkeypatch):
    """Notebook 01's source, release and solutions copied to tmp_path, and the build pointed there, with its
    answer key not executed: (the assignment, the list of folders the build would have executed in)."""
    import shutil
    a = "01_self_attention"
    for name in ("source", "release", "solutions"):
        shutil.copytree(build.ROOT / name / a, tmp_path / name / a)
    for name, where in (("SOURCE", "source"), ("RELEASE", "release"), ("SOLUTIONS", "solutions")):
        monkeypatch.setattr(build, name, tmp_path / where)
    monkeypatch.setattr(build, "STAMPS", tmp_path / "stamps.json")
    runs = []
    monkeypatch.setattr(build, "execute", lambda nb, cwd: runs.append(cwd) or nb)  # the answer key, not run
    return a, runs


def test_a_check_that_finds_an_assignment_up_to_date_stamps_it_and_one_that_finds_it_stale_does_not(
        tmp_path, built_01):
    """So that CI's `make demo`, after `make test` checked every assignment, does not execute them again."""
    import io
    import json
    a, runs = built_01
    build.build(only=[a], out=io.StringIO())  # the copy now holds what this build makes
    build.STAMPS.unlink()
    assert build.build(check=True, only=[a], out=io.StringIO()) == [] and len(runs) == 2
    said = io.StringIO()
    build.build(only=[a], out=said)
    assert f"build: {a} up to date" in said.getvalue() and len(runs) == 2
    (tmp_path / "release" / a / f"{a}.ipynb").write_text("{}")
    build.STAMPS.unlink()
    assert build.build(check=True, only=[a], out=io.StringIO())
    stamps = json.loads(build.STAMPS.read_text()) if build.STAMPS.exists() else {}
    assert a not in stamps


def test_a_build_with_nothing_changed_executes_nothing_and_says_up_to_date(tmp_path, built_01):
    import io
    a, runs = built_01
    build.build(only=[a], out=io.StringIO())
    assert len(runs) == 1
    said = io.StringIO()
    assert build.build(only=[a], out=said) == [] and len(runs) == 1
    assert f"build: {a} up to date" in said.getvalue()
    build.build(only=[a], out=io.StringIO(), force=True)
    assert len(runs) == 2
    # A change to what the build reads (the source), or to what it wrote (a hand edit), builds again
    path = tmp_path / "source" / a / f"{a}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    nb.cells[0].source += " "
    nbformat.write(nb, str(path))
    build.build(only=[a], out=io.StringIO())
    assert len(runs) == 3
    (tmp_path / "release" / a / f"{a}.ipynb").write_text("{}")
    build.build(only=[a], out=io.StringIO())
    assert len(runs) == 4 and nbformat.read(str(tmp_path / "release" / a / f"{a}.ipynb"), as_version=4).cells


def test_figures_that_differ_only_by_rendering_noise_are_the_same_build_and_real_changes_are_not(tmp_path):
    """A BLAS result's last bits differ between CPUs and move anti-aliasing by a level (06's PCA plot on two
    machines: 67 pixels of 801,021, by 1): that is the same figure. A changed pixel, size or text is not."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    def png(pixels):
        buf = io.BytesIO()
        Image.fromarray(pixels.astype(np.uint8)).save(buf, format="PNG")
        return base64.b64encode(buf.getvalue()).decode()

    def notebook(name, pixels, text="a plot"):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("plot()", id="plot", outputs=[
            nbformat.v4.new_output("display_data", data={"image/png": png(pixels), "text/plain": text})])])
        path = tmp_path / f"{name}.ipynb"
        nbformat.write(nb, str(path))
        return path

    figure = np.random.default_rng(0).integers(0, 255, size=(40, 60, 3))
    noise = figure.copy()
    noise[3:5, 7] = np.clip(noise[3:5, 7] + 1, 0, 255)
    changed = figure.copy()
    changed[10:14, 20:30] = 255 - changed[10:14, 20:30]
    original = notebook("original", figure)
    assert build.same_notebook(original, notebook("noise", noise))
    assert not build.same_notebook(original, notebook("changed", changed))
    assert not build.same_notebook(original, notebook("smaller", figure[:-1]))
    assert not build.same_notebook(original, notebook("other_text", noise, text="another plot"))


def test_the_build_draws_figures_with_matplotlibs_own_fonts_whatever_the_machines_font_cache(tmp_path, monkeypatch):
    """A machine's font cache written by another matplotlib, without the fonts this one ships (STIX, which
    mathtext uses): a figure drawn in the build warns of no missing font, so no warning is built into a
    notebook."""
    import json
    import subprocess
    import sys

    machine = tmp_path / "machine"
    monkeypatch.setenv("MPLCONFIGDIR", str(machine))
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True)
    [cache] = machine.glob("fontlist-*.json")
    fonts = json.loads(cache.read_text())
    for kind in ("ttflist", "afmlist"):  # this matplotlib's own fonts are named relative to its mpl-data
        fonts[kind] = [f for f in fonts[kind] if not f["fname"].startswith("fonts/")]
    cache.write_text(json.dumps(fonts))
    missing = subprocess.run([sys.executable, "-c", "import matplotlib.font_manager as fm; fm.findfont('STIXGeneral')"],
                             capture_output=True, text=True)
    assert "not found" in missing.stderr  # the machine's cache is as broken as the test means it to be

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.title(r'$\\sqrt{d_k}$')\nplt.show()")])
    outputs = build.execute(nb, tmp_path).cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data"], [o.get("text", "") for o in outputs]


def test_nbval_kernels_take_no_tcp_port():
    """nbval's kernels talk over unix sockets of their own (conftest.py), as every kernel the project starts.

    Over TCP, two kernels started side by side (xdist's two workers) can race for a port, and one dies at start.
    """
    import os

    from nbval.kernel import CURRENT_ENV_KERNEL_NAME, RunningKernel

    kernels = [RunningKernel(CURRENT_ENV_KERNEL_NAME) for _ in range(2)]
    try:
        for kernel in kernels:
            assert kernel.km.transport == "ipc"
            assert os.path.exists(f"{kernel.km.ip}-{kernel.km.shell_port}")
            kernel.await_reply(kernel.execute_cell_input("6 * 7", allow_stdin=False), timeout=30)  # Empty if not
            assert kernel.is_alive()
        assert kernels[0].km.ip != kernels[1].km.ip
    finally:
        for kernel in kernels:
            kernel.stop()
