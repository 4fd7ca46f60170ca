"""Where sealed verdicts plug into nbgrader's autograde (see nbgrader_config.py).

    InjectProbes  (before Execute)  each probed test cell becomes a probe with fresh inputs
    Execute                         nbgrader runs the notebook in the student's kernel
    SealVerdicts  (after Execute)   the grader marks the probes' reports and writes the verdict

Fresh inputs are drawn from a secret kept next to the gradebook (or
COURSE_GRADING_SEED), the student and the notebook: grading the same
submission again draws the same inputs, so it gives the same grade.

``cached(Execute)`` keeps every executed notebook in <course>/executed/, keyed
by exactly what ran (the probes included). A notebook graded before (by a
parallel run, or by a run that was killed later) is not run again: its outputs
are put back, and nbgrader goes on as if it had just run it.

The verdict replaces the cell's outputs and the probe's source is put back to
what the student saw (hidden tests removed), so the autograded notebook and the
feedback made from it hold verdicts only: no hidden code, inputs or references.
"""
import copy
import functools
import hashlib
import json
import os
import secrets
import traceback
from typing import NamedTuple, Optional
from urllib.parse import urlparse

import jsonschema
import nbformat
import numpy as np
from nbgrader import utils
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import (CheckCellMetadata, ClearHiddenTests, ClearOutput, DeduplicateIds,
                                    NbGraderPreprocessor, OverwriteCells, OverwriteKernelspec)

from . import parallel, protocol
from .parallel import SurviveKernelDeath
from .courseware import course

SEED_VARIABLE = "COURSE_GRADING_SEED"  # the secret, given outright (tests; reproducing a run elsewhere)
RUN_VARIABLE = "COURSE_GRADING_RUN"     # errors cached by a parallel run count for that run only
SECRET_FILE = ".grading_secret"


def course_root(resources):
    """The course directory: where nbgrader's sqlite gradebook is (else the working directory)."""
    url = urlparse(resources["nbgrader"].get("db_url") or "")
    if url.scheme == "sqlite" and url.path:
        return os.path.dirname(url.path)
    return os.getcwd()


def grading_secret(root):
    """The course's secret for drawing fresh inputs: COURSE_GRADING_SEED, else made once next to the gradebook."""
    if os.environ.get(SEED_VARIABLE):
        return os.environ[SEED_VARIABLE]
    path = os.path.join(root, SECRET_FILE)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        with open(path) as f:
            return f.read().strip()
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    with open(path) as f:
        return f.read().strip()


def probe_rng(secret, student, assignment, notebook, grade_id, code=""):
    """The generator a probe draws its fresh inputs from: one per secret, student, notebook, part and
    submitted code (`submitted_code`): the same submission graded again draws the same inputs, and a
    resubmission with any change to its code draws new ones, so inputs leaked by one run are worth nothing."""
    words = "\0".join([str(secret), student or "", assignment or "", notebook, grade_id, code]).encode()
    return np.random.default_rng(int.from_bytes(hashlib.sha256(words).digest()[:16], "little"))


def submitted_code(nb):
    """A digest of the notebook's code as submitted: every code cell but the graded test cells (which the
    grader replaces), in order."""
    sources = [c.source for c in nb.cells if c.cell_type == "code" and not is_test_cell(c)]
    return hashlib.sha256(json.dumps(sources, ensure_ascii=False).encode()).hexdigest()


def is_test_cell(cell):
    return cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell)


def visible_source(cell):
    """The test cell as the student's notebook shows it: hidden tests removed."""
    shown = copy.deepcopy(cell)
    ClearHiddenTests()._remove_hidden_test_region(shown)
    return shown.source


@functools.lru_cache(maxsize=64)
def _released_answers(path, mtime):
    """{grade_id of a test cell: [(grade_id, source) of each answer cell it grades, as handed out]}.

    A test grades the code answer cells between the test before it and itself; a test with none
    there (05's test_mha_masks, after test_mha) grades the same cells as the test before it."""
    parts, answers, last = {}, [], []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and utils.is_solution(cell):
            answers.append((cell.metadata.nbgrader["grade_id"], cell.source))
        elif is_test_cell(cell):
            last = answers or last
            parts[cell.metadata.nbgrader["grade_id"]] = last
            answers = []
    return parts


def untouched_parts(nb, resources):
    """The graded tests whose answer cells are all exactly as the course handed them out (from the
    course directory's release/, which `nbgrader generate_assignment` wrote): not attempted."""
    info = resources["nbgrader"]
    release = os.path.join(course_root(resources), "release", str(info.get("assignment")), f"{info['notebook']}.ipynb")
    try:
        parts = _released_answers(release, os.path.getmtime(release))
    except (OSError, ValueError, KeyError):
        return set()  # no release to compare with: every part counts as attempted
    answers = {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells
               if c.cell_type == "code" and utils.is_solution(c)}
    return {test for test, cells in parts.items()
            if cells and all(answers.get(grade_id, "").rstrip() == source.rstrip() for grade_id, source in cells)}



def defined_names(source):
    """The names a cell's source defines at its top level: def, class, or an assignment at the start of a line."""
    import re
    return [a or b for a, b in re.findall(r"^(?:def|class)\s+(\w+)|^(\w+)\s*=", source, re.M)]


def syntax_errors(sources):
    """{name: where} for the names that code cells (their `sources`) which do not compile would define (def,
    class, or an assignment at the start of a line), where being "a syntax error on line k (what Python says)"."""
    import ast
    import warnings
    from IPython.core.inputtransformer2 import TransformerManager
    from .forkserver import python_cells_untokenized
    # As the kernels read cells: IPython's search for its own syntax only in a cell that does not compile
    # as it stands (the search is most of the time this takes, and cannot change a cell that compiles)
    manager = TransformerManager()
    python_cells_untokenized(manager)
    broken = {}
    for source in sources:
        if source.startswith(protocol.PROBE_HEADER):
            continue
        try:
            with warnings.catch_warnings():  # what compiling says of a cell (an invalid escape) is the kernel's to show
                warnings.simplefilter("ignore")
                # (a top-level `await` is no error: the kernel runs such a cell, as IPython's autoawait does)
                compile(manager.transform_cell(source), "<cell>", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except SyntaxError as e:
            where = f"a syntax error on line {e.lineno} ({e.msg})" if e.lineno else f"a syntax error ({e.msg})"
            for name in defined_names(source):
                broken.setdefault(name, where)
        except (ValueError, RecursionError, MemoryError):
            continue
    return broken


def unfinished(cells):
    """[{name: protocol.Unfinished}] a code cell: the names each of `cells` ((source, the enames of its error
    outputs) of each code cell as the kernel ran it) would define (as syntax_errors finds them) when it did not
    run to its end: a syntax error, its time limit, an error. Only a cell with an error output is compiled."""
    import re
    found = []
    for source, kinds in cells:
        names = {}
        kinds = [str(k) for k in kinds]
        if kinds and not source.startswith(protocol.PROBE_HEADER) and "KernelStopped" not in kinds:
            where = syntax_errors([source])
            if where:
                names = {name: protocol.Unfinished(f"did not run, {w}", "Correct that line and run the cell again.",
                                                   "syntax") for name, w in where.items()}
            else:
                if "CellTimeoutError" in kinds:
                    why = ("was stopped at its time limit before it got there",
                           "Find what keeps that cell running so long (a loop that never ends?), then run it again.")
                else:
                    kind = kinds[0] if re.fullmatch(r"[A-Za-z_]\w{0,40}", kinds[0]) else "an error"
                    why = (f"stopped at an error ({kind}) before it got there",
                           "Correct what raises it, then run the cell again.")
                for name in defined_names(source):
                    names.setdefault(name, protocol.Unfinished(*why, "unfinished"))
        found.append(names)
    return found


def unfinished_before(found, index):
    """{name: protocol.Unfinished} of the code cells before the `index`-th (`found()`: unfinished's list); an
    earlier cell's reason first."""
    names = {}
    for cell in found()[:index]:
        for name, why in cell.items():
            names.setdefault(name, why)
    return names


class Sealed(NamedTuple):
    """What InjectProbes leaves SealVerdicts of one probed part (resources["sealed_probes"][grade_id])."""
    probe: protocol.Probe
    cases: list            # the inputs drawn for this grading
    shown: str             # the test cell as the student sees it (hidden tests removed)
    judgement: Optional[str]  # the probe with the course's helpers in place (judging a part wrong as run), or None


class InjectProbes(NbGraderPreprocessor):
    """Replace each probed test cell's source by a probe carrying inputs drawn now."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        notebook = info["notebook"]
        probes = course().PROBES.get(notebook, {})
        secret = grading_secret(course_root(resources))
        code = submitted_code(nb)
        solutions = {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells if utils.is_solution(c)}
        resources["untouched_parts"] = untouched_parts(nb, resources)
        sealed = resources["sealed_probes"] = {}
        for cell in nb.cells:
            # Only SealVerdicts writes a verdict: course metadata a submission carries keeps the build's
            # marker of a generated cell, if it is one, and nothing else.
            if "course" in cell.metadata:
                generated = cell.metadata["course"].get("generated") if isinstance(cell.metadata["course"], dict) else None
                del cell.metadata["course"]
                if isinstance(generated, str):
                    cell.metadata["course"] = {"generated": generated}
            if not is_test_cell(cell):
                continue
            grade_id = cell.metadata.nbgrader["grade_id"]
            probe = probes.get(grade_id)
            if probe is None:
                if "BEGIN HIDDEN TESTS" in cell.source:
                    raise ValueError(f"{notebook}: test cell '{grade_id}' has hidden tests but no "
                                     "sealed probe in grader/assignments: it cannot be graded")
                continue
            rng = probe_rng(secret, info.get("student"), info.get("assignment"), notebook, grade_id, code)
            cases = probe.cases(rng)
            cell_source = ""
            if probe.cell:
                cell_source = solutions.get(probe.cell, f"raise NameError('the cell {probe.cell} is missing')")
            swap = {name: probes[part].kernel_reference for name, part in probe.uses.items()
                    if part in probes and probes[part].kernel_reference}
            shown = visible_source(cell)
            cell.source = protocol.probe_source(probe, cases, cell_source, shown=shown)  # never the course's helpers
            judgement = protocol.probe_source(probe, cases, cell_source, swap) if swap else None
            sealed[grade_id] = Sealed(probe, cases, shown, judgement)
        return nb, resources


class SealVerdicts(NbGraderPreprocessor):
    """Mark each probe's report in this process and write the verdict nbgrader will score."""

    def preprocess(self, nb, resources):
        sealed = resources.pop("sealed_probes", {})
        untouched = resources.pop("untouched_parts", set())
        done = {}  # grade_id -> (what, Verdict): a part's helpers come before it in the notebook
        code = [c for c in nb.cells if c.cell_type == "code"]
        ran = [(c.metadata.nbgrader["grade_id"] if is_test_cell(c) and c.metadata.nbgrader["grade_id"] in sealed
                else None, c.source) for c in code]  # as the kernel ran them
        # (looked for only when a part lost marks: compiling cells costs more than most verdicts)
        found = functools.cache(functools.partial(unfinished, [(c.source, [o.get("ename") for o in c.outputs
                                                                          if o.get("output_type") == "error"])
                                                               for c in code]))
        judge = self.judgements(nb, ran, sealed, untouched, resources)
        for index, cell in enumerate(code):
            if not is_test_cell(cell) or cell.metadata.nbgrader["grade_id"] not in sealed:
                continue
            broken = functools.partial(unfinished_before, found, index)
            grade_id = cell.metadata.nbgrader["grade_id"]
            probe, cases, shown, judgement = sealed[grade_id]
            points = float(cell.metadata.nbgrader["points"])
            helpers = {name: done.get(part) for name, part in probe.uses.items()}
            try:
                # (an untouched part is not judged: the placeholder is wrong with any helpers)
                v = protocol.verdict(probe, cases, cell.outputs, points, helpers, functools.partial(judge, grade_id)
                                     if judgement and grade_id not in untouched else None, broken)
            except Exception:  # whatever a report holds, it costs its own part only, never the notebook
                self.log.warning("%s: the report of %s could not be read:\n%s", resources["nbgrader"]["notebook"],
                                 grade_id, traceback.format_exc(limit=-3))
                v = protocol.Verdict(0.0, points, f"{probe.what}: not graded, the probe's report could not be read",
                                     finding="reported")
            for error in protocol.taken_errors():  # a diagnosis that failed: the verdict says less, scores the same
                self.log.warning("%s: a diagnosis of %s failed, and its verdict says less:\n%s",
                                 resources["nbgrader"]["notebook"], grade_id, error)
            if grade_id in untouched and v.score < v.points:
                # The placeholder's result is no mistake the student made: say so, name none.
                v = protocol.Verdict(v.score, v.points, f"{probe.what}: {protocol.NOT_ATTEMPTED}: the TODO cell it grades is as "
                                     "it was handed out. Fill it in, then run its check.",
                                     finding=protocol.NOT_ATTEMPTED)
            done[grade_id] = (probe.what, v)
            cell.outputs = [nbformat.from_dict(o) for o in protocol.verdict_outputs(v)]
            cell.source = shown
            # For the class report: what was recognised, without reading the message back.
            cell.metadata["course"] = {"verdict": {"score": v.score, "points": v.points,
                                                   "mistake": v.mistake, "message": v.message,
                                                   "finding": v.finding}}
        return nb, resources


    def judgements(self, nb, ran, sealed, untouched, resources):
        """judge(part): the outputs of `part`'s probe with the course's helpers in place, for a part wrong as
        the notebook runs it (and not untouched). The parts wrong as run are judged together, a kernel for as
        many as can share one (judgement_group); a part whose shared kernel failed is run alone, as if it had
        been the only one. [] when that failed too."""
        wrong = []  # in notebook order
        for cell in nb.cells:
            if is_test_cell(cell) and cell.metadata.nbgrader["grade_id"] in sealed.keys() - untouched:
                part = sealed[cell.metadata.nbgrader["grade_id"]]
                try:
                    if part.judgement and protocol.wrong_as_run(part.probe, part.cases, cell.outputs):
                        wrong.append(cell.metadata.nbgrader["grade_id"])
                except Exception:  # a report that cannot be read: its part is judged alone, if at all
                    pass
        uses = {g: set(sealed[g].probe.uses.items()) for g in wrong}
        judged = {}

        def judge(grade_id):
            if grade_id not in judged:
                group = judgement_group(grade_id, [g for g in wrong if g not in judged], uses)
                judged.update(self.judge(ran, {g: sealed[g].judgement for g in group}, resources))
                if grade_id not in judged and len(group) > 1:
                    judged.update(self.judge(ran, {grade_id: sealed[grade_id].judgement}, resources))
            return judged.setdefault(grade_id, [])
        return judge

    def judge(self, ran, judgements, resources):
        """{part: its probe's outputs} for the parts of `judgements` ({part: its probe with the course's
        helpers in place}), run after the student's cells up to the last of them, in a kernel started for
        this alone and thrown away: the student's code may keep the helpers there, but nothing of that
        kernel is shown, stored or run again. {} if it failed."""
        cells, at = [nbformat.v4.new_code_cell(NO_FIGURES)], {}
        for part, source in ran:
            if part in judgements:
                at[part] = len(cells)
            cells.append(nbformat.v4.new_code_cell(judgements.get(part, source)))
            if len(at) == len(judgements):
                break
        nb = nbformat.v4.new_notebook(cells=cells)
        notebook, parts = resources["nbgrader"]["notebook"], ", ".join(at)
        self.log.info("%s: %s wrong as the notebook runs it: running the notebook again up to it, with the "
                      "course's helpers, in a kernel of its own", notebook, parts)
        timeout = int(os.environ.get("COURSE_CELL_TIMEOUT") or 60)
        mode = parallel.kernel_mode(os.environ.get("COURSE_UNSANDBOXED") == "1")
        result = parallel.execute({"notebook": json.dumps(nb), "timeout": timeout,
                                   "notebook_timeout": 10 * timeout, "mode": mode})
        if "notebook" not in result:
            self.log.warning("%s: %s could not be judged with the course's helpers: %s",
                             notebook, parts, result.get("error"))
            return {}
        executed = nbformat.v4.reads(result["notebook"]).cells
        return {part: executed[i].outputs for part, i in at.items()}


# A judgement kernel's first cell. Nothing of that kernel is shown, so its figures are not drawn: the inline
# backend then shows a figure as its text ("<Figure size ...>") and closes it as before, and what the code
# computes is the same. Drawing is much of a plotting notebook's cost (02's four figures: 2.6 of its 6.4 CPU-s).
NO_FIGURES = "%config InlineBackend.figure_formats = set()"


def judgement_group(first, wrong, uses):
    """The parts judged in one kernel with `first`, in notebook order: it, and each later part wrong as the
    notebook runs it (`wrong`) whose course helpers (`uses`: {part: {(name, part it is graded in)}}) include
    those of every part before it in the group. Whatever the student's code keeps of an earlier judgement
    in that kernel, a later part is then given no course helper its own judgement does not give it anyway."""
    if first not in wrong:
        return [first]
    group = [first]
    for part in wrong[wrong.index(first) + 1:]:
        if all(uses[before] <= uses[part] for before in group):
            group.append(part)
    return group


class FeedbackStyle(CSSHTMLHeaderPreprocessor):
    """nbconvert's header CSS for the feedback page, and one rule more: a verdict (a stream or error
    output, shown in <pre>) wraps inside the page instead of running on in one line that scrolls."""

    WRAP = ".output_area pre, .output_subarea pre { white-space: pre-wrap; overflow-wrap: anywhere; }"

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        resources["inlining"]["css"].append(self.WRAP)
        return nb, resources


# ------------------------------------------------------------------ executed-notebook cache

def execution_key(nb, timeout, sandboxed):
    """What decides a notebook's outputs: every cell's type and source, the cell timeout, the sandbox."""
    cells = [[c.cell_type, c.source] for c in nb.cells]
    text = json.dumps([cells, timeout, bool(sandboxed)], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def cache_path(root, student, assignment, notebook):
    return os.path.join(root, "executed", student, assignment, notebook + ".ipynb")


def store(path, key, nb=None, error=None, run=None):
    """Keep an executed notebook (or the error it ended in, for this run) under its key; atomic.

    The entry is compact JSON, not nbformat.write's: no schema validation and no indent, made by
    json.dumps, whose encoder is C (json.dump, like an indent, runs the pure-Python one: 2.5 times the
    CPU on a graded class's notebooks). It is still a notebook nbformat reads, and only this module
    reads it back.
    """
    os.makedirs(os.path.dirname(path), exist_ok=True)
    entry = dict(nbformat.v4.new_notebook() if nb is None else nb)  # nb itself is left as it is
    entry["metadata"] = dict(entry.get("metadata", {}), course_execution={
        "key": key, "error": error, "run": run or os.environ.get(RUN_VARIABLE)})
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(entry, ensure_ascii=False))
    os.replace(tmp, path)


def load(path, key):
    """The cached entry for key: (notebook, error), or None."""
    try:
        with open(path, encoding="utf-8") as f:
            entry = nbformat.v4.reads(f.read())  # this module's own JSON: not validated again
        meta = entry.metadata.get("course_execution", {})
    except (OSError, ValueError, AttributeError):
        return None
    if meta.get("key") != key:
        return None
    if meta.get("error") and meta.get("run") != os.environ.get(RUN_VARIABLE):
        return None  # an error of an earlier run: try again
    return entry, meta.get("error")


def cached(execute_class, sandboxed):
    """execute_class (nbgrader's Execute or a subclass), reusing executed notebooks from <course>/executed."""

    class Cached(SurviveKernelDeath, execute_class):
        def preprocess(self, nb, resources, *args, **kwargs):
            info = resources["nbgrader"]
            path = cache_path(course_root(resources), info["student"], info["assignment"], info["notebook"])
            key = execution_key(nb, self.timeout, sandboxed)
            hit = load(path, key)
            if hit is None:
                nb, resources = super().preprocess(nb, resources, *args, **kwargs)
                store(path, key, nb)
                return nb, resources
            done, error = hit
            if error:
                raise RuntimeError(error)
            self.log.info("Outputs from %s (executed before, same cells)", path)
            for cell, ran in zip(nb.cells, done.cells):
                if cell.cell_type == "code":
                    cell.outputs = ran.outputs
                    cell.execution_count = ran.execution_count
            return nb, resources

    Cached.__name__ = Cached.__qualname__ = "Cached" + execute_class.__name__
    return Cached


# ------------------------------------------------------------------ what one notebook must not do to the class

class DeduplicateIdsSafely(DeduplicateIds):
    """nbgrader's DeduplicateIds, minus a way for one student to stop the whole class's autograde.

    A cell pasted twice in Jupyter carries its grade id twice. nbgrader's DeduplicateIds
    empties the copy's nbgrader metadata (``{}``), which its metadata check then reads as
    schema version 0 and raises SchemaTooOldError: nbgrader treats that as a broken course
    and stops grading every student after this one. Here the copy's metadata goes
    altogether (the copy becomes an ordinary cell, as DeduplicateIds means it to), and
    metadata of another schema version, which only an edited notebook has, fails this
    student's notebook alone.
    """

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        current = MetadataValidator().schema_version
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader")
            if meta == {}:
                del cell.metadata["nbgrader"]
            elif meta is not None and meta.get("schema_version", 0) != current:
                raise ValueError(f"the notebook's nbgrader metadata was edited: schema version "
                                 f"{meta.get('schema_version', 0)} in a cell (this course's is {current})")
        return nb, resources


class _SchemaCheckedOnce(BaseMetadataValidator):
    """nbgrader's metadata check with its schema compiled once (see CheckCellMetadataQuickly)."""

    def validate_cell(self, cell):
        meta = cell.metadata.get("nbgrader")
        if meta is None or meta.get("schema_version", 0) != self.schema_version:
            return super().validate_cell(cell)  # nbgrader's own answer: nothing to check, or a version error
        # What jsonschema.validate does, minus checking the schema itself on every call.
        error = jsonschema.exceptions.best_match(_compiled_schema().iter_errors(meta))
        if error is not None:
            raise error


@functools.lru_cache(maxsize=None)
def _compiled_schema():
    """nbgrader's metadata schema (the current version: the only one validate_cell checks here), compiled."""
    schema = MetadataValidator().schema
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


class _QuickMetadataValidator(MetadataValidator, _SchemaCheckedOnce):
    pass


class CheckCellMetadataQuickly(CheckCellMetadata):
    """nbgrader's CheckCellMetadata: the same checks and errors, at a fifth of the cost.

    nbgrader validates each cell's metadata with jsonschema.validate, which first
    checks the schema itself, every cell, every notebook: 80% of the 0.03 s it
    takes a notebook, and nbgrader's autograde runs it twice per notebook.
    """

    def preprocess(self, nb, resources):
        try:
            _QuickMetadataValidator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources


RESTORED = "restored"  # the generated note saying what RestoreFromRelease put back (the report reads it)
GRADING_KEYS = ("grade", "solution", "locked", "task", "points", "schema_version")  # what decides how a cell is graded
RESTORED_NOTE = "**Graded with these cells as handed out** (your other cells as you wrote them): "


def _release_notebook(resources):
    """The notebook as handed out (course/release/<assignment>/<notebook>.ipynb), or None."""
    info = resources["nbgrader"]
    path = os.path.join(course_root(resources), "release", str(info.get("assignment")), f"{info['notebook']}.ipynb")
    try:
        return nbformat.read(path, as_version=4)
    except (OSError, ValueError, KeyError):
        return None


class RestoreFromRelease(NbGraderPreprocessor):
    """A slip costs only the cell it touches: the graded and locked cells are the release's, by grade_id.

    A student can change a cell's nbgrader metadata (a test cell made a solution, points changed, a graded
    cell added or pasted, a schema version edited) or delete a cell. nbgrader then stops on the whole
    notebook ("Notebook failed to validate", "Inconsistent checksums"), or scores a deleted test zero
    with no word. Here, before nbgrader's own checks: every cell the release has keeps the release's
    metadata (nbgrader's OverwriteCells then restores the source of graded and locked cells, and the
    student's answers stay theirs); a cell marked as graded that the release does not have (or a second
    copy of one) becomes an ordinary cell, in place; a deleted one is put back after the cell that came
    before it. What was put back is said once, in a note at the top of the notebook: the feedback shows
    it, and the report reads it (report.restored).
    """

    def preprocess(self, nb, resources):
        # Only the grader writes the note: a cell that claims to be one is dropped.
        nb.cells = [c for c in nb.cells if not (isinstance(c.metadata.get("course"), dict)
                                                and c.metadata["course"].get("generated") == RESTORED)]
        release = _release_notebook(resources)
        if release is None:
            return nb, resources
        handed = {}
        for cell in release.cells:
            meta = cell.metadata.get("nbgrader")
            if isinstance(meta, dict) and meta.get("grade_id"):
                handed[meta["grade_id"]] = cell
        said, seen = [], set()
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            if grade_id not in handed or grade_id in seen:
                del cell.metadata["nbgrader"]
                if meta:  # DeduplicateIds' emptied {} too: nothing a student could have meant to grade
                    said.append("a cell marked as graded that the notebook as handed out does not have (or a second "
                                "copy of one) was graded as an ordinary cell")
                continue
            seen.add(grade_id)
            want = handed[grade_id].metadata["nbgrader"]
            if any(meta.get(k) != want.get(k) for k in GRADING_KEYS):
                said.append(f"the nbgrader metadata of cell {grade_id} was changed: put back as handed out")
            # Always the release's (its checksums included, which a notebook saved elsewhere may lack): only
            # what decides how a cell is graded is worth a word.
            cell.metadata["nbgrader"] = copy.deepcopy(want)
        order = list(handed)
        for k, grade_id in enumerate(order):
            if grade_id in seen:
                continue
            before = next((g for g in reversed(order[:k]) if g in seen), None)
            at = 0 if before is None else 1 + next(i for i, c in enumerate(nb.cells)
                                                   if c.metadata.get("nbgrader", {}).get("grade_id") == before)
            nb.cells.insert(at, copy.deepcopy(handed[grade_id]))
            seen.add(grade_id)
            said.append(f"cell {grade_id} was deleted: put back as handed out")
        if said:
            note = nbformat.v4.new_markdown_cell(RESTORED_NOTE + "; ".join(dict.fromkeys(said)) + ".")
            note.metadata["course"] = {"generated": RESTORED}
            nb.cells.insert(0, note)
        return nb, resources


# What nbgrader's autograde does to a submission before running it (its sanitizing pass);
# nbgrader_config.py sets it, and `grade` plans each notebook with the same list.
# (Not OverwriteCells' add_missing_cells, which would put back a deleted test cell: in nbgrader
# 0.9.6 it fails with a KeyError when the cell before it is not a graded one, and the
# notebook is then not graded at all. RestoreFromRelease puts deleted cells back instead.)
SANITIZE = [ClearOutput, RestoreFromRelease, DeduplicateIdsSafely, OverwriteKernelspec, OverwriteCells,
            CheckCellMetadataQuickly]

