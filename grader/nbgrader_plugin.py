"""Where sealed verdicts plug into nbgrader's autograde (see nbgrader_config.py).

    InjectProbes  (before Execute)  each probed test cell becomes a probe with fresh inputs
    Execute                         nbgrader runs the notebook in the student's kernel
    SealVerdicts  (after Execute)   the grader marks the probes' reports and writes the verdict

The verdict replaces the cell's outputs and the probe's source is put back to
what the student saw (hidden tests removed), so the autograded notebook and the
feedback made from it hold verdicts only: no hidden code, inputs or references.
"""
import copy
import os
import secrets
import zlib

import nbformat
import numpy as np
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor

from . import protocol
from .assignments import PROBES

SEED_VARIABLE = "COURSE_GRADING_SEED"  # fixes the fresh inputs, to reproduce a grading run exactly


def is_test_cell(cell):
    return cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell)


def visible_source(cell):
    """The test cell as the student's notebook shows it: hidden tests removed."""
    shown = copy.deepcopy(cell)
    ClearHiddenTests()._remove_hidden_test_region(shown)
    return shown.source


class InjectProbes(NbGraderPreprocessor):
    """Replace each probed test cell's source by a probe carrying inputs drawn now."""

    def preprocess(self, nb, resources):
        notebook = resources["nbgrader"]["notebook"]
        probes = PROBES.get(notebook, {})
        seed = int(os.environ.get(SEED_VARIABLE) or secrets.randbits(64))
        solutions = {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells if utils.is_solution(c)}
        sealed = resources["sealed_probes"] = {}
        for cell in nb.cells:
            if not is_test_cell(cell):
                continue
            grade_id = cell.metadata.nbgrader["grade_id"]
            probe = probes.get(grade_id)
            if probe is None:
                if "BEGIN HIDDEN TESTS" in cell.source:
                    raise ValueError(f"{notebook}: test cell '{grade_id}' has hidden tests but no "
                                     "sealed probe in grader/assignments: it cannot be graded")
                continue
            rng = np.random.default_rng([seed, zlib.crc32(grade_id.encode())])
            cases = probe.cases(rng)
            cell_source = ""
            if probe.cell:
                cell_source = solutions.get(probe.cell, f"raise NameError('the cell {probe.cell} is missing')")
            sealed[grade_id] = (probe, cases, visible_source(cell))
            cell.source = protocol.probe_source(probe, cases, cell_source)
        return nb, resources


class SealVerdicts(NbGraderPreprocessor):
    """Mark each probe's report in this process and write the verdict nbgrader will score."""

    def preprocess(self, nb, resources):
        sealed = resources.pop("sealed_probes", {})
        for cell in nb.cells:
            if not is_test_cell(cell) or cell.metadata.nbgrader["grade_id"] not in sealed:
                continue
            probe, cases, shown = sealed[cell.metadata.nbgrader["grade_id"]]
            points = float(cell.metadata.nbgrader["points"])
            v = protocol.verdict(probe, cases, cell.outputs, points)
            cell.outputs = [nbformat.from_dict(o) for o in protocol.verdict_outputs(v)]
            cell.source = shown
            # For the class report: what was recognised, without reading the message back.
            cell.metadata["course"] = {"verdict": {"score": v.score, "points": v.points,
                                                   "mistake": v.mistake, "message": v.message}}
        return nb, resources
