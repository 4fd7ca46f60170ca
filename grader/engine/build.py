"""The build: source/ -> release/ (student notebooks) and solutions/ (executed answer keys).

    python -m grader build            rebuild release/ and solutions/, refresh generated cells in source/
    python -m grader build --check    change nothing; exit 1 naming every stale file

Release notebooks are made by `nbgrader generate_assignment` in a throw-away
course directory, so an instructor's gradebook and submissions are never touched
(nbgrader's --force deletes the release folder when submissions exist).
Solutions are the source with solution markers and hidden tests stripped,
executed by nbclient with their outputs stored: nbval's regression target.
Building twice gives byte-identical files.
"""
import copy
import fnmatch
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config
from nbgrader import utils

from .courseware import course
from .nbgrader_plugin import visible_source

ROOT = Path(__file__).resolve().parents[2]  # the repository: grader/engine/build.py
SOURCE, RELEASE, SOLUTIONS = ROOT / "source", ROOT / "release", ROOT / "solutions"
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
# What editors and Python leave beside notebooks (JupyterLab's checkpoints, macOS's folder files): never
# built, never compared, never deleted.
EDITOR_FILES = (".ipynb_checkpoints", "__pycache__", ".DS_Store", "*~")


def _editors(path):
    """Whether a path (relative to an assignment folder) is, or is inside, something an editor wrote."""
    return any(fnmatch.fnmatch(part, pattern) for part in path.parts for pattern in EDITOR_FILES)


class BuildError(Exception):
    pass


def assignments():
    """Every assignment folder in source/, in course order."""
    return sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


def write(nb, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


# ---------------------------------------------------------------- source/

INTRO = {  # the line above a generated cell, which is collapsed: what it holds
    "checks": "The next cell, collapsed, holds the course's checks: the comparisons the grader makes too. You "
              "need nothing but this notebook to run them; open the cell to read them.",
    "module:tiny_transformer": "The next cell is the course's model and its backward pass, the same code the "
                               "grader uses; read it through once before you train it.",
    None: "The next cell, collapsed, holds the true values for the check below and the values some common "
          "mistakes give, computed by the course's reference code.",
}
OLD_INTRO = "The checks below are the course's own; you need nothing but this notebook to run them."


def refresh_generated_cells(nb):
    """Rewrite the cells the build owns (checks and reference values); True if any changed.

    They are collapsed (JupyterLab's and Notebook 7's "source_hidden"): a student reads the text and the
    TODOs, not pages of numbers; a module of the course's code ("module:NAME") is there to be read, and stays
    open. One line of markdown above each, which the build owns too, says what it
    holds."""
    changed = False
    i = 0
    while i < len(nb.cells):
        cell = nb.cells[i]
        key = cell.metadata.get("course", {}).get("generated")
        if key:
            new = course().render(key).rstrip("\n")
            if _holds_values(cell) and same_text(cell.source, new):
                new = cell.source  # the same values, up to the last digits this machine's BLAS gave
            hidden = not key.startswith("module:")
            changed |= cell.source != new or cell.metadata.get("jupyter", {}).get("source_hidden", False) != hidden
            cell.source = new
            if hidden:
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
            else:
                cell.metadata.get("jupyter", {}).pop("source_hidden", None)
            intro = INTRO.get(key, INTRO[None])
            before = nb.cells[i - 1] if i else None
            if before is not None and (before.metadata.get("course", {}).get("intro") or before.source == OLD_INTRO):
                changed |= before.source != intro
                before.source = intro
                before.metadata["course"] = {"intro": True}
            else:
                nb.cells.insert(i, nbformat.v4.new_markdown_cell(intro, metadata={"course": {"intro": True}}))
                changed = True
                i += 1
        i += 1
    return changed


# ---------------------------------------------------------------- release/

def nbgrader_config(root):
    """This course's nbgrader configuration, pointed at another course directory."""
    from traitlets.config.loader import PyFileConfigLoader
    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    config.CourseDirectory.root = str(root)
    return config


def generate_release(assignment, source_dir, out_dir):
    """Student notebooks for one assignment, by nbgrader, in a throw-away course directory."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    with tempfile.TemporaryDirectory(prefix="course-build-") as tmp:
        shutil.copytree(source_dir, Path(tmp) / "source" / assignment)
        config = nbgrader_config(tmp)
        api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        result = api.generate_assignment(assignment, force=True, create=True)
        if not result["success"]:
            raise BuildError(f"nbgrader could not release {assignment}:\n{result.get('log', '')}"
                             f"{result.get('error', '')}")
        shutil.copytree(Path(tmp) / "release" / assignment, out_dir, dirs_exist_ok=True)
    for path in sorted(out_dir.glob("*.ipynb")):  # one canonical JSON layout, whatever wrote it
        write(nbformat.read(str(path), as_version=4), path)


# ---------------------------------------------------------------- solutions/

def answer_key(nb):
    """The source with its answers in place: solution markers and hidden tests removed."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if utils.is_solution(cell):
            cell.source = "\n".join(line for line in cell.source.splitlines()
                                    if line.strip() not in SOLUTION_MARKERS)
        elif cell.cell_type == "code" and utils.is_grade(cell):
            cell.source = visible_source(cell)
    return nb


MACHINE_DEPENDENT = "# NBVAL_IGNORE_OUTPUT"  # the first line of a cell whose output differs from run to run


def execute(nb, cwd):
    """Run a notebook top to bottom in a fresh kernel and keep its outputs (no timings)."""
    # coalesce_streams: a print the kernel flushes in two pieces (it does, on a busy machine)
    # is one output all the same, so building twice gives the same file.
    # ipc transport: the kernel talks over local sockets, not TCP on localhost (ipykernel warns
    # about unencrypted TCP, once a notebook, in the build's output). The socket path must be
    # absolute: the kernel runs in cwd, this process does not.
    # MPLCONFIGDIR: matplotlib builds its own font cache (half a second) rather than reading the machine's.
    # A cache written by another matplotlib, without the fonts this one ships, makes the mathtext figures
    # warn on stderr, and those warnings would be built into the notebooks.
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as private:
        ipc = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(private) / "kernel")}})
        NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=False, coalesce_streams=True,
                       resources={"metadata": {"path": str(cwd)}}, config=ipc
                       ).execute(env={**os.environ, "MPLCONFIGDIR": private})
    nb.metadata.pop("widgets", None)
    return nb


# ---------------------------------------------------------------- the whole build

PIXEL_NOISE = 2  # out of 255: a figure's pixels may differ this much from machine to machine and be the same figure
# A number in a generated value or an output may differ this much from machine to machine and be the same
# number: relative to itself (a last digit printed), or to the largest number of its statement or output
# (an entry near zero, which the course writes on the grid of its array's largest entry: grader/rounding.py).
NUMBER_TOLERANCE = 1e-8
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _units(text):
    """A text in the pieces that share one scale: top-level statements of code (a generated cell holds one
    array, or one dict of arrays, a statement), lines of output (a printed array's rows go on indented)."""
    return re.split(r"\n(?=\S)", text)


def same_text(a, b):
    """Whether two texts are the same but for numbers within NUMBER_TOLERANCE: the same words, the same
    count of numbers, each pair close. Whitespace may differ (numpy pads columns to the widest entry, and
    wraps a line where the widths add up)."""
    if a == b:
        return True
    left, right = _units(a), _units(b)
    if len(left) != len(right):
        return False
    for x, y in zip(left, right):
        if x == y:
            continue
        if "".join(_NUMBER.sub("#", x).split()) != "".join(_NUMBER.sub("#", y).split()):
            return False
        nx = [float(t) for t in _NUMBER.findall(x)]
        ny = [float(t) for t in _NUMBER.findall(y)]
        scale = max(map(abs, nx + ny), default=0.0)
        if any(abs(p - q) > NUMBER_TOLERANCE * (max(abs(p), abs(q)) + scale) for p, q in zip(nx, ny)):
            return False
    return True


def same_notebook(a, b):
    """Whether two notebook files are the same but for what differs from machine to machine: every cell
    and output equal, but for numbers within NUMBER_TOLERANCE (same_text) and figures with no pixel more
    than PIXEL_NOISE apart (the same size). The last bits of a BLAS result differ between CPUs, kernels and
    thread counts: they move a printed last digit, or a line's anti-aliasing by one level (06's PCA plot:
    67 of 801,021 pixels, by 1); a real change (a value past the tolerance, a label, a curve, a new cell or
    output) differs by far more."""
    if Path(a).suffix != ".ipynb":
        return False
    try:
        left, right = (nbformat.reads(Path(p).read_text(), as_version=4) for p in (a, b))
    except Exception:
        return False
    if left.keys() != right.keys() or left.metadata != right.metadata or len(left.cells) != len(right.cells):
        return False
    return all(_same_cell(x, y) for x, y in zip(left.cells, right.cells))


def _holds_values(cell):
    """Whether a cell holds values the build computed (not code: the checks, a module of the course's)."""
    key = cell.get("metadata", {}).get("course", {}).get("generated")
    return bool(key) and key != "checks" and not key.startswith("module:")


def _same_cell(x, y):
    """Code must be equal; generated values and every output may differ in their numbers' last digits
    (same_text), and figures by rendering noise (_same_png)."""
    if x.keys() != y.keys() or x.metadata != y.metadata:
        return False
    if not (same_text(x.source, y.source) if _holds_values(x) else x.source == y.source):
        return False
    return all(_same_node(x[k], y[k]) for k in x if k not in ("source", "metadata"))


def _same_node(x, y):
    if isinstance(x, dict) and isinstance(y, dict):
        if x.keys() != y.keys():
            return False
        return all(_same_png(x[k], y[k]) if k == "image/png" else _same_node(x[k], y[k]) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(_same_node(p, q) for p, q in zip(x, y))
    if isinstance(x, str) and isinstance(y, str):
        return same_text(x, y)
    return x == y


def _same_png(x, y):
    import base64
    import io

    import numpy as np
    from PIL import Image
    if x == y:
        return True
    try:
        one, two = (np.asarray(Image.open(io.BytesIO(base64.b64decode(v))).convert("RGBA"), dtype=int) for v in (x, y))
    except Exception:
        return False
    return one.shape == two.shape and int(np.max(np.abs(one - two), initial=0)) <= PIXEL_NOISE


def inputs_digest(assignment):
    """One hash of what an assignment's build depends on and what it wrote: its source, the course's
    code (the reference values and checks come from grader/), the nbgrader configuration, and release/
    and solutions/ as they are now (a hand edit there is undone by the next build). Editor files aside."""
    folders = {"source": SOURCE / assignment, "release": RELEASE / assignment,
               "solutions": SOLUTIONS / assignment, "grader": ROOT / "grader"}
    files = [(f"{role}/{p.relative_to(folder)}", p) for role, folder in folders.items() for p in folder.rglob("*")
             if p.is_file() and not _editors(p.relative_to(folder))]
    h = hashlib.sha256()
    for name, path in sorted(files) + [("nbgrader_config.py", ROOT / "nbgrader_config.py")]:
        h.update(name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


STAMPS = ROOT / ".build_stamps.json"  # {assignment: inputs_digest after its last build}; not committed


def _stamps():
    try:
        return json.loads(STAMPS.read_text())
    except (OSError, ValueError):
        return {}


def build(check=False, only=None, out=sys.stdout, force=False):
    """Build every assignment (or `only` those); with check, compare instead of writing. An assignment
    whose inputs have not changed since its last build here is not executed again, unless `force`. A check
    that finds an assignment up to date stamps it as a build would: its files are what a build makes."""
    stale = []
    stamps = _stamps()
    with tempfile.TemporaryDirectory(prefix="course-built-") as tmp:
        for assignment in only or assignments():
            src_dir = SOURCE / assignment
            if not check and not force and stamps.get(assignment) == inputs_digest(assignment):
                print(f"build: {assignment} up to date (nothing it depends on changed since it was built)",
                      file=out, flush=True)
                continue
            print(f"build: {assignment}", file=out, flush=True)
            stale_before = len(stale)
            staged = Path(tmp) / "source" / assignment
            shutil.copytree(src_dir, staged, ignore=shutil.ignore_patterns(*EDITOR_FILES))
            for path in sorted(staged.glob("*.ipynb")):
                nb = nbformat.read(str(path), as_version=4)
                if refresh_generated_cells(nb):
                    stale.append(SOURCE / assignment / path.name)
                write(nb, path)
            generate_release(assignment, staged, Path(tmp) / "release" / assignment)
            for path in sorted(staged.glob("*.ipynb")):
                nb = execute(answer_key(nbformat.read(str(path), as_version=4)), staged)
                for cell in nb.cells:
                    # What depends on the machine (02's timings) is not kept: building twice gives the same
                    # file, and nbval skips comparing it anyway.
                    if cell.cell_type == "code" and cell.source.startswith(MACHINE_DEPENDENT):
                        cell.outputs = []
                write(nb, Path(tmp) / "solutions" / assignment / path.name)

            for kind, committed in (("source", SOURCE), ("release", RELEASE), ("solutions", SOLUTIONS)):
                built_dir, here = Path(tmp) / kind / assignment, committed / assignment
                for built in sorted(built_dir.rglob("*")):
                    if built.is_dir():
                        continue
                    target = here / built.relative_to(built_dir)
                    if target.exists() and (target.read_bytes() == built.read_bytes() or same_notebook(target, built)):
                        continue
                    if kind != "source":
                        stale.append(target)
                    if not check:
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(built, target)
                if here.exists() and kind != "source":
                    # A file in release/ or solutions/ that the build does not make: listed as stale, and
                    # removed (saying so) by a build, so the folder holds exactly what the source gives.
                    built_names = {p.relative_to(built_dir) for p in built_dir.rglob("*")}
                    for extra in sorted(p for p in here.rglob("*") if p.is_file()):
                        if extra.relative_to(here) not in built_names and not _editors(extra.relative_to(here)):
                            stale.append(extra)
                            if not check:
                                print(f"removed: {_shown(extra)} (the build does not make it)", file=out)
                                extra.unlink()
            if not check or len(stale) == stale_before:
                stamps[assignment] = inputs_digest(assignment)
                STAMPS.write_text(json.dumps(stamps, indent=1, sort_keys=True) + "\n")
    return sorted(set(stale))


def _shown(path):
    """A path as the README's commands see it: relative to the repository when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def blas_in_use():
    """numpy's BLAS as it runs now, e.g. "openblas Haswell, 1 thread": what a build's last bits depend on."""
    import numpy  # noqa: F401 (threadpoolctl finds the libraries numpy has loaded)
    from threadpoolctl import threadpool_info
    found = [f"{i['internal_api']} {i.get('architecture') or ''}".strip() + f", {i['num_threads']} thread(s)"
             for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(found) or "no BLAS library found"


def main(check=False, only=None, force=False):
    if check:  # a stale file on another machine is easier to explain knowing the kernel that computed it
        print(f"build check: numpy's BLAS is {blas_in_use()}", flush=True)
    stale = build(check=check, only=only, force=force)
    rel = [_shown(p) for p in stale if check or p.exists()]  # a removed file was named when it went
    if check:
        for path in rel:
            print(f"stale: {path} (rebuild with `python -m grader build`)")
        print("build check: " + ("up to date" if not rel else f"{len(rel)} stale file(s)"))
        return 1 if rel else 0
    for path in rel:
        print(f"wrote: {path}")
    print(f"build: done, {len(rel)} file(s) changed")
    return 0
