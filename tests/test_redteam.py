"""The red-team corpus (issue 6), graded in one run with the course's grader.

Every entry gets exactly the scores its Entry says (no false marks), a gradebook
submission and a one-line reason; the control students get what they get when
graded alone; nothing is written outside the grading output folders; nothing a
student started outlives grading; no attack's "I read it" / "I wrote it" marker
reaches a returned notebook.
"""
import contextlib
import hashlib
import json
import os
import re
import secrets
import signal
import socketserver
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbgrader.api import Gradebook, MissingEntry

from grader.engine.grade import grade_class
from grader.engine.nbgrader_plugin import SEED_VARIABLE
from grader.engine.report import write_report
from tests.redteam import (LATENESS, A01, CANARY, CONTROLS, LEAKED, MANUAL, RELEASE, WROTE, Context, key_payload,
                           write_controls, write_corpus)
from tests.redteam.corpus import (CANARY_STUDENT, ENTRIES, WRITTEN_PAYLOAD, active_marker, daemon_mark,
                                  first_hand_in, leaked_cases, lookup_table_notebook, terminal_marker)

SEED = 20261122
TIMEOUT = 10    # seconds per cell: the infinite loops cost this much, once each
REPO_FOLDERS = ("source", "solutions", "release", "grader")


def tree_hash(folder):
    """{relative path: sha256} of every file under folder (compiled Python aside: imports write it)."""
    folder = Path(folder)
    out = {}
    for path in sorted(folder.rglob("*")):
        if "__pycache__" in path.parts or path.is_dir():
            continue
        out[str(path.relative_to(folder))] = (hashlib.sha256(path.read_bytes()).hexdigest()
                                              if not path.is_symlink() else "-> " + os.readlink(path))
    return out


def changed(before, after):
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


class AnswerServer(socketserver.ThreadingTCPServer):
    """Hands the answer key to anyone who connects: the network attack's target."""
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        payload = key_payload()

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                self.request.sendall(payload)

        super().__init__(("127.0.0.1", 0), Handler)


def processes_with(mark):
    """Pids of processes whose command line holds `mark`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if mark.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


@contextlib.contextmanager
def redirected_fds(fd):
    """fd 1 and 2 of this process (and so of every process it starts) go to fd meanwhile."""
    saved = [os.dup(1), os.dup(2)]
    sys.stdout.flush(), sys.stderr.flush()
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        sys.stdout.flush(), sys.stderr.flush()
        for target, copy in zip((1, 2), saved):
            os.dup2(copy, target)
            os.close(copy)


@dataclass
class Run:
    ctx: Context
    rows: list
    missing: list
    alone: list
    repo_changed: list
    submissions_changed: list
    survivors: list
    log: list
    terminal: str       # what reached the grading process's fd 1 and 2 while the corpus was graded


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("redteam")
    server = AnswerServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ctx = Context(course=root / "course", submissions=root / "submissions", token=secrets.token_hex(4),
                  port=server.server_address[1], seed=str(SEED))
    write_corpus(ctx.submissions, ctx)
    ctx.course.mkdir(parents=True)
    (ctx.course / "deadlines.toml").write_text(LATENESS)
    write_controls(root / "alone", ctx)
    repo_before = {name: tree_hash(ctx.repo / name) for name in REPO_FOLDERS}
    submissions_before = tree_hash(ctx.submissions)
    log = []
    os.environ[SEED_VARIABLE] = str(SEED)  # the same fresh inputs for the corpus run and the controls alone
    terminal = root / "terminal"
    try:
        with open(terminal, "wb") as seen, redirected_fds(seen.fileno()):
            rows = grade_class(ctx.submissions, ctx.course, say=log.append, timeout=TIMEOUT, progress=False)
        survivors = processes_with(daemon_mark(ctx))
        _, missing = write_report(ctx.course)
        alone = grade_class(root / "alone", root / "alone_course", say=log.append, timeout=TIMEOUT, progress=False)
    finally:
        del os.environ[SEED_VARIABLE]
        server.shutdown()
        server.server_close()
    for pid in processes_with(daemon_mark(ctx)):  # ours, started by the daemon entry: do not leave them running
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    repo_changed = [f"{name}/{p}" for name in REPO_FOLDERS
                    for p in changed(repo_before[name], tree_hash(ctx.repo / name))]
    return Run(ctx, rows, missing, alone, repo_changed, changed(submissions_before, tree_hash(ctx.submissions)),
               survivors, log, terminal.read_bytes().decode(errors="replace"))


def release_points(assignment=A01):
    nb = nbformat.read(str(RELEASE / assignment / f"{assignment}.ipynb"), as_version=4)
    return {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader["points"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")}


ASSIGNMENT = {e.name: e.assignment for e in ENTRIES}   # what each student handed in (the controls: 01)


def scores(rows, student):
    assignment = ASSIGNMENT.get(student, A01)
    return {r["part"]: (MANUAL if r["needs_manual_grade"] else r["part_score"])
            for r in rows if r["student_id"] == student and r["assignment"] == assignment}


def reasons(run, student):
    """What the report says about this student: verdicts, named mistakes, why it was not graded."""
    said = [r[k] for r in run.rows if r["student_id"] == student for k in ("verdict", "mistake", "restored") if r.get(k)]
    return said + [why for s, a, why in run.missing if s == student and a == ASSIGNMENT.get(student, A01)]


def test_the_corpus_covers_the_issue_and_every_part():
    assert len(ENTRIES) >= 25
    for entry in ENTRIES:
        assert set(entry.expected) == set(release_points(entry.assignment)), \
            f"{entry.name}: expectation for {sorted(entry.expected)}"
    for sid, (expected, _) in CONTROLS.items():
        assert set(expected) == set(release_points()), sid


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_each_entry_gets_exactly_its_expected_scores(run, entry):
    got = scores(run.rows, entry.name)
    assert got == pytest.approx(entry.expected), (
        f"{entry.name} ({entry.about}): got {got}, expected {entry.expected}; report says {reasons(run, entry.name)}")


def test_only_the_graders_verdicts_reach_the_report(run):
    """Text a submission put in its metadata never shows as a named mistake or a verdict, and the report
    (written in spite of a number where a verdict would be) opens its CSV as text."""
    forged = [r for r in run.rows if r["student_id"] == "rt_forged_verdict_metadata"]
    assert forged and not any("HYPERLINK" in str(r["mistake"]) + str(r["verdict"]) for r in forged)
    written = (run.ctx.course / "report" / "grades.csv").read_text()
    assert "HYPERLINK" not in written and "\n=" not in written and ",=" not in written


@pytest.mark.parametrize("student", list(CONTROLS) + [e.name for e in ENTRIES])
def test_every_student_has_a_gradebook_submission_and_a_one_line_reason(run, student):
    with Gradebook(f"sqlite:///{run.ctx.course / 'gradebook.db'}") as gb:
        try:
            gb.find_submission(ASSIGNMENT.get(student, A01), student)
        except MissingEntry:
            pytest.fail(f"{student}: no submission in the gradebook")
    said = reasons(run, student)
    assert said, f"{student}: no verdict, named mistake or not-graded reason"
    assert all("\n" not in s.strip() for s in said), f"{student}: a reason of several lines: {said}"
    wanted = next((e.reason_has for e in ENTRIES if e.name == student), "")
    assert not wanted or any(wanted.lower() in s.lower() for s in said), f"{student}: no reason says {wanted!r}: {said}"


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.late is not None], ids=lambda e: e.name)
def test_lateness_holds_whatever_timestamp_txt_says(run, entry):
    """A submission counts late or on time as it truly was handed in: the notebook's own time against a
    backdated timestamp.txt; a timestamp in doubt (unreadable, relative, 2 MB, missing) counts as the
    course's deadlines.toml says (here "late") and is flagged."""
    mine = [r for r in run.rows if r["student_id"] == entry.name]
    assert mine, f"{entry.name}: not graded"
    penalty = max(float(r["late_submission_penalty"] or 0) for r in mine)
    assert (penalty > 0) == entry.late, f"{entry.name} ({entry.about}): late penalty {penalty}"
    flagged = {r["lateness"] for r in mine}
    assert (flagged != {""}) == (entry.name != "rt_on_time"), f"{entry.name}: lateness flag {flagged}"


def test_no_part_is_added_or_reweighted(run):
    for student in list(CONTROLS) + [e.name for e in ENTRIES]:
        points = release_points(ASSIGNMENT.get(student, A01))
        mine = {r["part"]: r["part_max_score"] for r in run.rows if r["student_id"] == student}
        assert mine == pytest.approx(points), f"{student}: parts and their points {mine}"


def test_controls_get_their_scores_and_are_graded_as_if_alone(run):
    def seen(rows, student):
        return sorted((r["part"], r["part_score"], r["part_max_score"], r["needs_manual_grade"], r["mistake"],
                       r["verdict"]) for r in rows if r["student_id"] == student)
    for student, (expected, _) in CONTROLS.items():
        assert scores(run.alone, student) == pytest.approx(expected), f"{student} alone"
        assert seen(run.rows, student) == seen(run.alone, student), f"{student}: graded differently in the corpus run"


def test_nothing_is_written_outside_the_grading_output_folders(run):
    ctx = run.ctx
    assert not run.repo_changed, f"the repo changed during grading: {run.repo_changed[:10]}"
    assert not run.submissions_changed, f"the submissions folder changed: {run.submissions_changed[:10]}"
    tried = [p for e in ENTRIES if e.canaries for p in e.canaries(ctx)]
    assert tried, "no entry tries to write a canary"
    assert not [p for p in tried if os.path.lexists(p)], "canary files were written"
    pattern = f"{CANARY}_{ctx.token}_*"
    strays = [p for where in (ctx.repo, Path("/tmp"), ctx.home, ctx.course / "submitted", ctx.course / "release")
              for p in Path(where).glob(pattern)]
    strays += list((ctx.course / "submitted").rglob(pattern))
    assert not strays, f"canary files were written: {strays}"


def test_the_gradebook_is_changed_only_by_grading(run):
    with Gradebook(f"sqlite:///{run.ctx.course / 'gradebook.db'}") as gb:
        students = {s.id for s in gb.students}
        assert CANARY_STUDENT not in students
        assert students == set(CONTROLS) | {e.name for e in ENTRIES}
        by_hand = [(s.id, g.name, g.manual_score)
                   for s in gb.students for sub in s.submissions for nb in sub.notebooks for g in nb.grades
                   if g.manual_score is not None]
        assert not by_hand, f"grades nobody marked by hand have manual scores: {by_hand[:5]}"


def test_no_attack_marker_reaches_a_returned_notebook(run):
    """An attack prints LEAKED/WROTE when it read or wrote what it must not: never in any output."""
    found = []
    for path in sorted((run.ctx.course / "autograded").glob("*/*/*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        for c in nb.cells:
            for o in c.get("outputs", []):
                text = str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                if LEAKED in text or WROTE in text:
                    found.append(f"{path.parent.parent.name}: {text.strip()[:200]}")
    assert not found, found


def _helper_texts():
    """Lines of every helper the grader puts in place of a student's (Probe.kernel_reference) that no
    student's own code holds: its docstring's lines."""
    import ast
    from grader.course import PROBES
    texts = set()
    for probes in PROBES.values():
        for probe in probes.values():
            if probe.kernel_reference:
                for node in ast.walk(ast.parse(probe.kernel_reference)):
                    if isinstance(node, ast.FunctionDef) and ast.get_docstring(node):
                        texts |= {line.strip() for line in ast.get_docstring(node).splitlines() if len(line.strip()) > 25}
    return texts


def test_no_course_helper_reaches_a_returned_notebook_or_the_log(run):
    """The course's helpers are put in place of a student's only in a kernel the grader throws away: none of
    their text is in any output of a returned notebook, its feedback or the log, whatever the kernel kept."""
    texts = _helper_texts()
    assert len(texts) >= 5, texts
    kept = [e for e in ENTRIES if e.name.startswith("rt_keeps_helpers")]
    assert len(kept) >= 2
    found = []
    for e in kept:
        page = _feedback(run, e.name, e.assignment)
        found += [f"{e.name} feedback: {t[:60]}" for t in texts if t in page]
    for path in (run.ctx.course / "autograded").glob("*/*/*.ipynb"):
        nb = nbformat.read(str(path), as_version=4)
        text = json.dumps([c.get("outputs", []) for c in nb.cells])
        found += [f"{path.parent.parent.name}: {t[:60]}" for t in texts if json.dumps(t)[1:-1] in text]
    found += [f"log: {t[:60]}" for t in texts if t in "\n".join(run.log) + run.terminal]
    assert not found, found


def test_nothing_a_student_started_outlives_grading(run):
    assert not run.survivors, f"processes still running after grading: {run.survivors}"


def test_nothing_a_kernel_writes_reaches_the_graders_terminal(run):
    """Escape sequences and a fake grade table written to fd 1 and 2 (rt_terminal_injection) never show."""
    assert terminal_marker(run.ctx) not in run.terminal
    assert "\x1b]0;" not in run.terminal and "\x1b[2J" not in run.terminal


def _feedback(run, student, assignment=A01):
    nbgrader = Path(sys.executable).with_name("nbgrader")
    subprocess.run([str(nbgrader), "generate_feedback", assignment, "--student", student, "--force"],
                   cwd=run.ctx.course, check=True, capture_output=True)
    return next((run.ctx.course / "feedback" / student / assignment).glob("*.html")).read_text()


def test_feedback_and_the_report_carry_nothing_active_from_a_submission(run):
    """A <script>, an onerror handler and a Javascript output (rt_active_content), and a written answer holding
    HTML and a formula (rt_written_payload): inert in the feedback, absent from the class report."""
    html = _feedback(run, "rt_active_content")
    assert active_marker(run.ctx) in html, "the attack's output is not in its feedback at all"
    assert not re.search(r"<script>\s*fetch|<img[^>]*\sonerror=", html), "active content in the feedback"
    assert "application/javascript" not in html
    html = _feedback(run, "rt_written_payload")
    assert "alert('written')" in html and "<script>alert('written')" not in html
    report = (run.ctx.course / "report" / "index.html").read_text()
    assert "alert(" not in report and "HYPERLINK" not in report
    named = [r["mistake"] for r in run.rows if r["student_id"] == "rt_written_payload" and r["mistake"]]
    assert not any("all right" in m or "HYPERLINK" in m for m in named), named


def test_a_leak_is_worth_nothing_to_a_second_hand_in(run):
    """The worst leak: every input the first hand-in drew, answered right in a lookup table. The table is
    right on those inputs, and the second hand-in (rt_lookup_table) still scores 0 for self_attention:
    its changed code draws other inputs."""
    first = first_hand_in(run.ctx)
    probe, cases = leaked_cases(run.ctx, first)
    namespace = {"np": np}
    exec(next(c.source for c in lookup_table_notebook(run.ctx).cells
              if c.metadata.get("nbgrader", {}).get("grade_id") == "self_attention_def"), namespace)
    for case in cases:  # the table would pass on the first hand-in's inputs
        got = namespace["self_attention"](**{k: case.inputs[k] for k in
                                             ("X", "omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")})
        assert np.allclose(got, probe.reference(case.inputs))
    assert scores(run.rows, "rt_lookup_table")["test_self_attention"] == 0
