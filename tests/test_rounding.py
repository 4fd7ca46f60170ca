"""What the course commits does not depend on the machine that built it.

The last bits of a floating-point result depend on the CPU, the BLAS kernel and the thread count. The
notebooks hold none of them: generated values are written on the grid of their result's largest entry
(zero in exact arithmetic is written 0), a check says "matches" without printing a difference, and the
build check compares numbers as numbers.
"""
import json
import os
import re
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from grader.course.shared import notebook_values, rounding
from grader.engine import build
from grader.engine.build import RELEASE, ROOT, SOLUTIONS, SOURCE, assignments

COMMITTED = sorted([p for folder in (SOURCE, RELEASE, SOLUTIONS) for a in assignments() for p in (folder / a).glob("*.ipynb")]
                   + list((ROOT / "notebooks").glob("*.ipynb")))
RENDER_ALL = """
import json, sys
from threadpoolctl import threadpool_info
from grader.course import VALUES, render
kernels = sorted({(i["internal_api"], str(i.get("architecture")), i["num_threads"]) for i in threadpool_info()})
print(json.dumps({"kernels": kernels, "cells": {key: render(key) for key in VALUES}}))
"""


def _render_in_child(coretype, threads):
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    done = subprocess.run([sys.executable, "-c", RENDER_ALL], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_generated_cell_is_byte_identical_under_two_blas_kernels_and_thread_counts():
    """Haswell's AVX2 kernels on one thread, and OpenBLAS's generic SSE kernel (Prescott) on two: both run on
    any x86-64 CPU, and they sum in different orders, so their last bits differ."""
    one, two = _render_in_child("Haswell", 1), _render_in_child("Prescott", 2)
    print("kernels:", one["kernels"], "and", two["kernels"])
    assert one["kernels"] != two["kernels"], "OPENBLAS_CORETYPE had no effect: the test compared a kernel with itself"
    differ = [key for key in one["cells"] if one["cells"][key] != two["cells"][key]]
    assert not differ, f"generated cells that depend on the BLAS kernel: {differ}"


def _results(value):
    """The results of one generated statement, each as one flat array: a dict of results (a mistake's name
    -> its gradients) gives one each; a dict of arrays or a list of arrays of different shapes is one."""
    if isinstance(value, dict) and any(isinstance(v, dict) for v in value.values()):
        for v in value.values():
            yield from _results(v)
        return
    leaves = []

    def collect(v):
        if isinstance(v, dict):
            for x in v.values():
                collect(x)
        elif isinstance(v, (list, tuple)) and rounding.is_ragged(list(v)):
            for x in v:
                collect(x)
        elif not isinstance(v, str):
            a = np.asarray(v)
            if a.dtype.kind == "f":
                leaves.append(a.ravel())
    collect(value)
    if leaves:
        yield np.concatenate(leaves)


def _tiny(flat):
    finite = np.abs(flat[np.isfinite(flat)])
    largest = finite.max(initial=0.0)
    return finite[(finite > 0) & (finite < 1e-12 * largest)]


def _significant(token):
    """The significant digits of a number as printed: '-3.790887902288585' has 16."""
    return re.sub(r"[eE].*", "", token).lstrip("+-").replace(".", "").lstrip("0")


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_committed_number_is_rounding_noise(path):
    """No generated value holds an entry below 1e-12 of its result's largest; no output prints a number
    below 1e-12 (a difference at rounding level), below 1e-12 of the largest number on its line, or with
    more significant digits than a generated value keeps (a float's repr shows its last bits)."""
    nb = nbformat.read(str(path), as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        key = cell.metadata.get("course", {}).get("generated")
        if key and not key.startswith("module:") and key != "checks":
            names = {"np": np}
            exec(cell.source, names)
            for name, value in names.items():
                if name in ("np", "__builtins__"):
                    continue
                for flat in _results(value):
                    found += [f"{key}: {name} holds {x:.3g}" for x in _tiny(flat)]
        for output in cell.get("outputs", []):
            text = output.get("text", "") + output.get("data", {}).get("text/plain", "")
            for unit in build._units(text):
                numbers = np.array([float(t) for t in build._NUMBER.findall(unit)] or [0.0])
                numbers = numbers[np.isfinite(numbers)]
                small = numbers[(numbers != 0) & ((np.abs(numbers) < 1e-12)
                                                  | (np.abs(numbers) < 1e-12 * np.abs(numbers).max(initial=0)))]
                found += [f"cell {cell.get('id')} prints {x:.3g}" for x in small]
                found += [f"cell {cell.get('id')} prints {t}, more digits than rounding leaves alone"
                          for t in build._NUMBER.findall(unit) if len(_significant(t)) > rounding.DIGITS]
    assert not found, f"{path.relative_to(ROOT)}: " + "; ".join(found[:5])


def test_values_go_on_the_grid_of_their_results_largest_entry():
    gradients = {"dX": np.array([1.3, -0.25]), "d_beta_k": np.array([-6.938893904e-17, 9.540979118e-18])}
    text = notebook_values._literal(gradients)
    assert "e-17" not in text and "e-18" not in text and not re.search(r"-0(?![.\d])", text)
    assert "1.3" in text and "-0.25" in text
    assert rounding.rounded(np.array([1 / 3, np.nan, -np.inf, -1e-300])).tolist()[0] == pytest.approx(1 / 3, abs=1e-10)
    assert np.isnan(rounding.rounded(np.array([np.nan]))[0])
    assert str(rounding.rounded(np.array([2.0, -1e-30]))[1]) == "0.0"
    # each mistake's result has its own scale: a tiny mistake is not zeroed next to a large one
    text = notebook_values._literal({"small": {"d": np.array([3e-6, 1e-6])}, "large": {"d": np.array([5e3, 1.0])}})
    assert "3e-06" in text and "5000" in text


def test_the_build_check_compares_numbers_as_numbers_and_still_sees_a_real_change():
    committed = "x_true = np.array([[1.234567891, 0],\n                  [2e-10, -0.5]])\n"
    assert build.same_text(committed, committed.replace("1.234567891", "1.234567892"))  # a last digit
    assert build.same_text(committed, committed.replace("2e-10", "1e-10").replace("[[1.2", "[[ 1.2"))
    assert not build.same_text(committed, committed.replace("1.234567891", "1.234577891"))  # past 1e-8
    assert not build.same_text(committed, committed.replace("-0.5", "0.5"))
    assert not build.same_text(committed, committed.replace("x_true", "y_true"))
    assert not build.same_text(committed, committed.replace("[2e-10, -0.5]", "[2e-10, -0.5, 1]"))


def test_only_outputs_and_generated_values_get_the_tolerance(tmp_path):
    def notebook(name, code, output, generated):
        meta = {"course": {"generated": "values"}} if generated else {}
        cell = nbformat.v4.new_code_cell(code, id="c", metadata=meta, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text=output)])
        path = tmp_path / f"{name}.ipynb"
        nbformat.write(nbformat.v4.new_notebook(cells=[cell]), str(path))
        return path

    base = notebook("base", "x = 0.1234567891", "loss 2.302585093\n", True)
    assert build.same_notebook(base, notebook("digit", "x = 0.1234567892", "loss 2.302585094\n", True))
    assert not build.same_notebook(base, notebook("loss", "x = 0.1234567891", "loss 2.402585093\n", True))
    assert not build.same_notebook(base, notebook("by_hand", "x = 0.1234567892", "loss 2.302585093\n", False))
