"""Grade the red-team corpus with plain nbgrader and with this course's grader; print a markdown table.

    python -m tests.redteam.compare [--keep DIR]

Plain side: stock `nbgrader autograde` (nbgrader's default preprocessors, no plugin, no
sandbox) on a conventional variant of notebook 01, whose hidden tests are ordinary
`assert np.allclose(student_result, reference)` lines, built in a temporary course.
Attacks run there for real, so that course is a throwaway copy owned by an unprivileged
user (nobody), and nbgrader runs as that user with limits on processes, memory, CPU time
and file size (setpriv + prlimit). The interpreter lives under /root (0700), so the user
keeps CAP_DAC_READ_SEARCH: it reads what the grading user could read, as plain nbgrader's
kernels do, and writes only where nobody may. Attacks only create canary files and read.

This side: grader.engine.grade.grade_class, sandboxed, on the same corpus aimed at its own course.

Not run in CI (it takes minutes and needs root); see tests/test_redteam.py for the checks.
"""
import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import nbformat
import numpy as np
from nbgrader.api import Gradebook, MissingEntry

from grader.course.shared import reference as shared_ref
from grader.engine.build import SOURCE
from grader.engine.grade import grade_class
from grader.engine.nbgrader_plugin import SEED_VARIABLE
from grader.engine.report import write_report
from grader.engine.sandbox import _children
from tests.redteam import A01, CANARY, CONTROLS, LEAKED, MANUAL, WROTE, Context, write_controls, write_corpus
from tests.redteam.corpus import CANARY_STUDENT, ENTRIES, daemon_mark
from tests.test_redteam import AnswerServer, processes_with, redirected_fds

NOBODY = 65534
SEED = 20261122
LIMITS = ["--nproc=512", f"--as={4 * 1024 ** 3}", "--cpu=900", f"--fsize={256 * 1024 ** 2}", "--core=0"]

PLAIN_CONFIG = """\
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "plain-nbgrader"
c.CourseDirectory.root = {root!r}
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE"}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.Execute.timeout = 10
"""


def _literal(a):
    return f"np.array({np.asarray(a, dtype=float).tolist()!r})"


def conventional_hidden_tests():
    """{grade_id: hidden test lines}: ordinary asserts, on the notebook's data and on one other input."""
    rng = np.random.default_rng(12)
    items = rng.normal(size=5)
    X = rng.normal(size=(4, 5))
    return {
        "test_qkv_loop": "assert np.allclose(np.hstack(all_queries), queries_true)\n"
                         "assert np.allclose(np.hstack(all_keys), keys_true)\n"
                         "assert np.allclose(np.hstack(all_values), values_true)",
        "test_softmax": f"assert np.allclose(softmax({_literal(items)}), {_literal(shared_ref.softmax(items))})",
        "test_attention_loop": "assert np.allclose(np.hstack(all_x_prime), X_prime_true)",
        "test_self_attention": (
            f"_X = {_literal(X)}\n"
            "assert np.allclose(self_attention(_X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k), "
            "self_attention_expected(_X))"),
    }


def conventional_source(path):
    """Notebook 01's source with conventional hidden tests (the reference for self_attention is inlined)."""
    nb = nbformat.read(str(SOURCE / A01 / f"{A01}.ipynb"), as_version=4)
    hidden = conventional_hidden_tests()
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in hidden:
            start = cell.source.index("### BEGIN HIDDEN TESTS")
            end = cell.source.index("### END HIDDEN TESTS")
            lines = hidden[grade_id]
            if grade_id == "test_self_attention":  # the reference, written out as a course would
                lines = ("def self_attention_expected(X):\n"
                         "    Q = omega_q @ X + beta_q; K = omega_k @ X + beta_k; V = omega_v @ X + beta_v\n"
                         "    A = np.exp(K.T @ Q - (K.T @ Q).max(axis=0)); A = A / A.sum(axis=0)\n"
                         "    return V @ A\n") + lines
            cell.source = cell.source[:start] + "### BEGIN HIDDEN TESTS\n" + lines + "\n" + cell.source[end:]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def as_nobody(cmd, cwd, home):
    """cmd as the unprivileged user, limited; it can read what root reads, write only what nobody may."""
    return subprocess.run(
        ["prlimit", *LIMITS, "--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", "--", *cmd],
        cwd=cwd, env={"PATH": os.defpath, "HOME": str(home), "LANG": "C.UTF-8",
                      "JUPYTER_RUNTIME_DIR": str(home / "runtime")},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=3600)


def plain_nbgrader(root, server_port):
    """The corpus graded by stock nbgrader autograde as nobody; {student: outcome}."""
    course = root / "plain"
    home = root / "plain_home"
    conventional_source(course / "source" / A01 / f"{A01}.ipynb")
    (course / "nbgrader_config.py").write_text(PLAIN_CONFIG.format(root=str(course)))
    nbgrader = str(Path(sys.executable).with_name("nbgrader"))
    subprocess.run([nbgrader, "generate_assignment", A01, "--force"], cwd=course, check=True, capture_output=True)
    ctx = Context(course=course, submissions=root / "plain_submissions", token=secrets.token_hex(4),
                  port=server_port, home=home, seed=str(SEED))
    write_corpus(course / "submitted", ctx, [e for e in ENTRIES if not e.plain])
    home.mkdir()
    for path in [root, course, home, *course.rglob("*"), *home.rglob("*")]:
        os.lchown(path, NOBODY, NOBODY)
    # One student at a time: a single bad notebook (duplicated cell ids) stops a whole
    # `nbgrader autograde` run, and the table is about what happens to each entry.
    # Each student's outcome is read right after its own run: the gradebook attack rewrites
    # every grade already there, which would hide what happened to the others.
    found = {}
    with open(root / "plain_autograde.log", "w") as log:
        for student in sorted(p.name for p in (course / "submitted").iterdir()):
            done = as_nobody([nbgrader, "autograde", A01, f"--student={student}", "--force"], course, home)
            log.write(done.stdout)
            found[student] = outcomes(ctx, [student])[student]
    return ctx, found


class PeakMemory:
    """Samples the resident memory of this process and of every process it started, the sandboxes' kernels
    aside (a kernel's memory is its own, bounded by its rlimits): the grading processes, workers and nbgrader."""

    def __init__(self, every=0.1):
        self.every, self.total, self.largest = every, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    @staticmethod
    def _status(pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            return fields["Name"].strip(), int(fields.get("VmRSS", "0 kB").split()[0]) * 1024
        except (OSError, KeyError, ValueError):
            return None, 0

    def _run(self):
        while not self._stop.wait(self.every):
            children = _children()
            total, todo = 0, [os.getpid()]
            while todo:
                pid = todo.pop()
                name, rss = self._status(pid)
                if name == "bwrap":
                    continue  # a sandbox: its kernels are not the grader's memory
                total += rss
                self.largest = max(self.largest, rss)
                todo.extend(children.get(pid, []))
            self.total = max(self.total, total)


def this_grader(root, server_port):
    """Grade the corpus, the controls alone and the controls beside the CPU hog; (ctx, outcomes, measures)."""
    ctx = Context(course=root / "course", submissions=root / "submissions", token=secrets.token_hex(4),
                  port=server_port, seed=str(SEED))
    write_corpus(ctx.submissions, ctx)
    write_controls(root / "alone", ctx)
    write_corpus(root / "beside_hog", ctx, [e for e in ENTRIES if e.name == "rt_cpu_hog"])
    terminal = root / "terminal"
    started = time.monotonic()
    with open(terminal, "wb") as seen, redirected_fds(seen.fileno()), PeakMemory() as memory:
        grade_class(ctx.submissions, ctx.course, say=lambda *a: None, timeout=10, progress=False)
        bomb = zip_bomb(root)
    corpus_seconds = time.monotonic() - started
    missing = {s: why for s, a, why in write_report(ctx.course)[1] if a == A01}
    timed = {}
    for name in ("alone", "beside_hog"):
        started = time.monotonic()
        rows = grade_class(root / name, root / f"{name}_course", say=lambda *a: None, timeout=10, progress=False)
        timed[name] = (time.monotonic() - started, {s: sum(r["part_score"] for r in rows if r["student_id"] == s
                                                        and not r["needs_manual_grade"]) for s in CONTROLS})
    measures = {"corpus_seconds": corpus_seconds, "timed": timed, "terminal": terminal.read_bytes(),
                "zip_bomb": bomb, "memory": memory}
    return ctx, outcomes(ctx, [*CONTROLS, *(e.name for e in ENTRIES)], missing), measures


def zip_bomb(root):
    """An LMS zip of a few MB holding a 2 GiB notebook, taken in: (zip size, what intake said about it)."""
    from grader.engine.intake import take_in
    bomb = root / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open(f"bomb/{A01}/{A01}.ipynb", "w", force_zip64=True) as f:
            block = b"\0" * 2**24
            for _ in range(128):
                f.write(block)
    said = []
    take_in(bomb, root / "bomb_course", say=said.append)
    return bomb.stat().st_size, said


def outcomes(ctx, students, missing=None):
    """{student: (autograded score, out of, notes)} from the course's gradebook and autograded notebooks."""
    out = {}
    missing = missing or {}
    with Gradebook(f"sqlite:///{ctx.course / 'gradebook.db'}") as gb:
        for student in students:
            notes = []
            try:
                sub = gb.find_submission(A01, student)
            except MissingEntry:
                out[student] = (None, None, ["no gradebook row"])
                continue
            grades = [g for nb in sub.notebooks for g in nb.grades if g.name.startswith("test_")]
            score, most = sum(g.score for g in grades), sum(g.max_score for g in grades)
            if any(g.manual_score is not None for g in grades):
                notes.append("manual scores written into the gradebook")
            path = ctx.course / "autograded" / student / A01 / f"{A01}.ipynb"
            if path.exists():
                text = json.dumps([o for c in nbformat.read(str(path), as_version=4).cells
                                   for o in c.get("outputs", [])])
                if LEAKED in text:
                    notes.append("read forbidden files/network")
                if WROTE in text:
                    notes.append("wrote outside the output folders")
            else:
                notes.append("not graded" + (f": {missing[student]}" if student in missing else ""))
            out[student] = (score, most, notes)
        if "rt_write_gradebook" in out and CANARY_STUDENT in {s.id for s in gb.students}:
            out["rt_write_gradebook"][2].append("added a student to the gradebook")
    return out


def cleanup(ctx):
    """Remove this run's canaries (our own files) and stop processes the daemon entry started (ours)."""
    left = []
    for where in (ctx.repo, ctx.repo / "source", ctx.repo / "solutions", ctx.repo / "release", ctx.repo / "grader",
                  Path("/tmp"), ctx.home, Path(os.path.expanduser("~"))):
        for path in Path(where).glob(f"{CANARY}_{ctx.token}_*"):
            left.append(str(path))
            path.unlink()
    for pid in processes_with(daemon_mark(ctx)):
        left.append(f"process {pid}")
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def cell_text(result):
    score, most, notes = result
    if score is None:
        return "; ".join(notes)
    return f"{score:g}/{most:g}" + (" (" + "; ".join(notes) + ")" if notes else "")


def main():
    parser = argparse.ArgumentParser(prog="python -m tests.redteam.compare", description=__doc__.split("\n")[0])
    parser.add_argument("--keep", help="work in this folder and keep it (default: a temporary one, removed)")
    parser.add_argument("--ours-only", action="store_true", help="skip plain nbgrader: this grader's run only")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("compare: run as root (the plain side switches to the user nobody)")
    root = Path(args.keep or tempfile.mkdtemp(prefix="redteam-compare-"))
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    server = AnswerServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    os.environ[SEED_VARIABLE] = str(SEED)
    try:
        if args.ours_only:
            plain, plain_left = {}, "not run (--ours-only)"
        else:
            plain_ctx, plain = plain_nbgrader(root, server.server_address[1])
            plain_left = cleanup(plain_ctx)
        ours_ctx, ours, measures = this_grader(root, server.server_address[1])
        ours_left = cleanup(ours_ctx)
    finally:
        server.shutdown()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    expected = {e.name: e.expected for e in ENTRIES}
    expected.update({sid: exp for sid, (exp, _) in CONTROLS.items()})
    about = {e.name: e.about for e in ENTRIES}
    why_not = {e.name: e.plain for e in ENTRIES if e.plain}
    print("| entry | what it does | deserves | plain nbgrader | this grader |")
    print("|---|---|---|---|---|")
    for student in [*CONTROLS, *(e.name for e in ENTRIES)]:
        deserved = sum(v for k, v in expected[student].items() if k.startswith("test_") and v != MANUAL)
        plain_text = (f"not run plainly: {why_not[student]}" if student in why_not else
                      cell_text(plain[student]) if student in plain else "not run")
        print(f"| {student} | {about.get(student, 'control')} | {deserved:g}/8 | {plain_text} | "
              f"{cell_text(ours[student])} |")
    print(f"\nleft behind by plain nbgrader (removed now): {plain_left or 'nothing'}")
    print(f"left behind by this grader (removed now): {ours_left or 'nothing'}")
    (alone, alone_scores), (hog, hog_scores) = measures["timed"]["alone"], measures["timed"]["beside_hog"]
    print(f"\nthis grader: the corpus ({len(ENTRIES)} entries and {len(CONTROLS)} controls) in "
          f"{measures['corpus_seconds']:.0f} s; the {len(CONTROLS)} controls alone in {alone:.0f} s, scoring "
          f"{alone_scores}; beside rt_cpu_hog in {hog:.0f} s, scoring {hog_scores}")
    memory = measures["memory"]
    print(f"peak resident memory of the grading processes, kernels aside, over the corpus (its 450 MiB display "
          f"included) and the zip bomb: {memory.total / 2**20:.0f} MiB in all, {memory.largest / 2**20:.0f} MiB "
          f"in the largest process")
    size, said = measures["zip_bomb"]
    print(f"zip bomb ({size / 2**20:.1f} MB holding a 2 GiB notebook): {'; '.join(said) or 'nothing said'}")
    escapes = measures["terminal"].count(b"\x1b")
    print(f"escape sequences that reached the grader's terminal: {escapes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
