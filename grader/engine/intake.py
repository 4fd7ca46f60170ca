"""Intake: put a class's submissions into a course's submitted/ folder, naming every file it cannot place.

    take_in(source, course, only=None, say=print) -> Intake

`source` is
  - a folder in nbgrader's submitted/ layout: <student>/<assignment>/<notebook>.ipynb, with
    nbgrader's optional <student>/<assignment>/timestamp.txt, or
  - a .zip as an LMS gives it: that layout zipped (wrapping folders above <student> are fine),
    or flat files named <student>_<anything>_<notebook>.ipynb, as Canvas names them
    (doejane_12345_67890_01_self_attention.ipynb; a resubmission gets -1, -2 before .ipynb).
    The notebook's name decides the assignment. A folder may hold such flat files too.

The assignments are grader.engine.build.assignments(); an assignment's notebooks are the
names of source/<assignment>/*.ipynb. Every file that is not placed is named, once,
with the reason (said as "skipped: <path>: <reason>"). A notebook that nbgrader will
not be able to read (empty, not UTF-8, not JSON, nbformat 3, not valid nbformat 4) is
placed all the same, so the student still gets a gradebook row and a zero with a
reason from grading, and is named too ("unreadable: <path>: <reason>").

Student ids are data, never patterns or formulas: an id outside the safe alphabet (ASCII letters
and digits, then letters, digits, "_", "-" and "."; at most 64) becomes a stable, collision-free
safe id (`safe_id`: its letters transliterated, then 8 hex digits of its hash), said as
"renamed: <original> -> <safe id>" and kept in the intake notes. nbgrader, which reads ids as
glob patterns, and the CSV then never see a glob character or a formula.

Taking in a student's assignment again replaces that student's folder for it in
course/submitted. Nothing else of the course directory is touched (autograded/,
feedback/, gradebook.db), and the source is only read.
"""
import hashlib
import json
import re
import shutil
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

import nbformat
from nbgrader.plugins import FileNameCollectorPlugin

from . import build, deadlines

TIMESTAMP = "timestamp.txt"  # nbgrader's submission time, beside the notebooks
# nbgrader's own collector (the one `nbgrader zip_collect` uses) reads an LMS file name:
# the student id is the letters and digits before the first underscore, the rest names the file.
LMS_NAME = r"(?P<student_id>[^\W_]+)_(?P<file_id>.+)$"
LMS_FORM = "<student>_<anything>_<notebook>.ipynb"
RESUBMITTED = re.compile(r"-\d+$")  # Canvas appends -1, -2 to a file handed in again
# A browser's second download of a file: "name (1).ipynb", "name(2).ipynb", "name copy.ipynb" -> "name.ipynb"
BROWSER_COPY = re.compile(r"( ?\(\d+\)| copy(?: \d+)?)(?=\.ipynb$)")


# Limits on what is read, so a zip bomb (a few MB that unpack to gigabytes) costs nothing: a notebook of
# this course is well under 1 MB, with its figures a few MB. A file (or zip entry) larger than
# MAX_FILE_BYTES is refused unread; once MAX_TOTAL_BYTES have been read, the rest is refused too. For a zip
# entry the size is the one the archive declares, and no more than that is ever decompressed.
MAX_FILE_BYTES = 50 * 2**20
MAX_TOTAL_BYTES = 2**30


class IntakeError(ValueError):
    """The source cannot be taken in at all (the message names it and says why)."""


@dataclass
class Intake:
    assignments: list = field(default_factory=list)  # sorted assignment ids with a submission placed
    empty: list = field(default_factory=list)        # (student, assignment) handed in, nothing placeable
    placed: list = field(default_factory=list)       # (student, assignment, path in course/submitted)
    problems: list = field(default_factory=list)     # (path, reason): not placed, or placed but unreadable
    renamed: dict = field(default_factory=dict)      # safe id -> the id as handed in, where they differ
    # (student, assignment) -> when it was handed in, as far as the source tells (deadlines.decide's evidence)
    timing: dict = field(default_factory=dict)


@dataclass
class _Entry:
    """One file of the source: a file in the folder, or an entry of the zip."""
    where: str      # what messages call it: its path, or <zip>/<name in the archive>
    parts: tuple    # its path inside the source
    time: datetime  # when it was last changed, in UTC (the zip's timestamp for an archive entry)
    read: object    # (at most n bytes, or all: None) -> bytes
    refused: str = ""  # why it is not taken in whatever it holds (a symbolic link, too large)
    size: int = 0   # bytes, as the folder or the archive says
    origin: str = "folder"  # "folder", "zip", or "lms": a flat file named as an LMS names it
    lms_late: bool = False  # the LMS marked it late in its name


SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def safe_id(name):
    """`name` if it is a safe student id, else a stable safe id made from it (see the module docstring)."""
    if SAFE_ID.fullmatch(name) and ".." not in name:
        return name
    letters = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "_", letters).strip("_")[:40] or "student"
    return f"{slug}_{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def take_in(source, course, only=None, say=print, students=None):
    """Copy the submissions in `source` (folder or .zip) into course/submitted; see the module docstring.
    students: only these (as handed in, or their safe ids); the others are left where they are."""
    source, course = Path(source).resolve(), Path(course).resolve()
    submitted = course / "submitted"
    notebooks = {a: sorted(p.name for p in (build.SOURCE / a).glob("*.ipynb")) for a in build.assignments()}
    unknown = sorted(set(only or ()) - set(notebooks))
    if unknown:
        raise IntakeError(f"{', '.join(unknown)}: not an assignment of this course ({', '.join(notebooks)})")
    intake = Intake()

    def skip(where, why, placed=False, taken=False):
        if (where, why) not in intake.problems:  # a folder that is not an assignment is named once
            intake.problems.append((where, why))
            say(f"{'taken' if taken else 'unreadable' if placed else 'skipped'}: {where}: {why}")

    if source.is_dir():
        if source == submitted or source in submitted.parents or submitted in source.parents:
            raise IntakeError(f"{source}: the source and {submitted} overlap; take in from a folder outside it")
        chosen = _choose(_folder_entries(source, skip), notebooks, only, skip)
        _place(_only_students(chosen, students), submitted, intake, skip)
    elif source.is_file() and zipfile.is_zipfile(source):
        with zipfile.ZipFile(source) as archive:
            chosen = _choose(_zip_entries(source, archive, skip), notebooks, only, skip)
            _place(_only_students(chosen, students), submitted, intake, skip)
    elif source.is_file():
        raise IntakeError(f"{source}: not a folder of submissions nor a zip archive")
    else:
        raise IntakeError(f"{source}: no such folder or zip archive")
    for student, original in sorted(intake.renamed.items()):
        say(f"renamed: {original!r} -> {student} (a student id here is letters, digits, '_', '-' and '.')")
    intake.assignments = sorted({a for _, a, _ in intake.placed} | {a for _, a in intake.empty})
    _keep_notes(course, intake)
    return intake


NOTES = Path("logs") / "intake.json"  # in the course: what intake said about each submission


def notes(course):
    """{"<student>/<assignment>": [what intake said about a file of it, ...]} of the latest intakes."""
    try:
        return json.loads((Path(course) / NOTES).read_text())
    except (OSError, ValueError):
        return {}


def _keep_notes(course, intake):
    """Keep, for the report, what was said about each submission's files (its folder's name in the path)."""
    kept = notes(course)
    taken = {(s, a) for s, a, _ in intake.placed} | set(intake.empty)
    for student, assignment in taken:
        handed_in = f"/{intake.renamed.get(student, student)}/{assignment}/"
        kept[f"{student}/{assignment}"] = [f"{Path(where).name}: {why}" for where, why in intake.problems
                                           if handed_in in where.replace("\\", "/")]
        if student in intake.renamed:
            kept[f"{student}/{assignment}"].insert(0, f"handed in as {intake.renamed[student]!r}")
    path = Path(course) / NOTES
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, indent=1, sort_keys=True))


def _hidden(parts):
    # Skipped without a word: .ipynb_checkpoints, .DS_Store and macOS's __MACOSX/ are written by
    # Jupyter and the OS, never handed in; naming them in every student's folder would bury real problems.
    return any(p.startswith(".") or p == "__MACOSX" for p in parts)


def _folder_entries(source, skip):
    for path in sorted(source.rglob("*")):
        parts = path.relative_to(source).parts
        if _hidden(parts):
            continue
        if path.is_symlink():
            # Never followed: a link unpacked from an archive could point at source/ or another student's work.
            yield _Entry(str(path), parts, datetime.now(), None, refused="a symbolic link: not followed")
        elif path.is_file():
            size = path.stat().st_size
            mtime = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).replace(tzinfo=None)
            yield _Entry(str(path), parts, mtime, lambda limit=None, path=path: _read_file(path, limit),
                         refused=_too_large(size), size=size)


def _zip_entries(source, archive, skip):
    # Entries are read one by one from the archive rather than unpacked by nbgrader's ExtractorPlugin:
    # that drops absolute and ../ paths without a word, opens archives found inside the archive, and
    # forgets each entry's timestamp, while here every entry is named and duplicates go by timestamp.
    # Nothing is unpacked: only a student folder's name becomes a path, and the check below refuses ../ and /.
    for info in archive.infolist():
        name = info.filename
        if info.is_dir():
            continue
        # Backslashes count too: an archive made on Windows may use them as separators.
        if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name) or ".." in re.split(r"[/\\]", name):
            skip(f"{source}/{name}", "refused: its path leads out of the archive (zip-slip)")
            continue
        parts = PurePosixPath(name).parts
        if not _hidden(parts):
            yield _Entry(f"{source}/{name}", parts, datetime(*info.date_time),
                         lambda limit=None, info=info: _read_at_most(archive, info, limit),
                         refused=_too_large(info.file_size), size=info.file_size, origin="zip")


def _too_large(size):
    if size > MAX_FILE_BYTES:
        return (f"refused unread: {size / 2**20:.0f} MiB, more than the {MAX_FILE_BYTES // 2**20} MiB a "
                "submitted file may hold")
    return ""


def _read_at_most(archive, info, limit=None):
    """An entry's bytes, decompressing no more than it declares (and never more than MAX_FILE_BYTES, or
    than `limit` + 1 bytes: enough to tell that it is larger)."""
    with archive.open(info) as f:
        data = f.read((limit if limit is not None else MAX_FILE_BYTES) + 1)
    if limit is None and len(data) > MAX_FILE_BYTES:
        raise OSError(f"more than {MAX_FILE_BYTES // 2**20} MiB when unpacked")
    return data


def _read_file(path, limit=None):
    """A file's bytes, or its first `limit` + 1 (enough to tell that it is larger)."""
    with open(path, "rb") as f:
        return f.read() if limit is None else f.read(limit + 1)


def _choose(entries, notebooks, only, skip):
    """{(student, assignment): {file name: entry}}: what to place, the later of two copies of a file."""
    by_name = {nb: a for a, names in notebooks.items() for nb in names}  # notebook names are unique in source/
    collector = FileNameCollectorPlugin(named_regexp=LMS_NAME, valid_ext=[".ipynb"])
    chosen = {}
    copies = {}  # (student, assignment, notebook) -> entries named as a browser names a second download
    for entry in entries:
        parts = entry.parts
        # nbgrader's layout: the first folder named after an assignment, below a student's folder.
        at = next((i for i in range(1, len(parts) - 1) if parts[i] in notebooks), None)
        if at is not None:
            student, assignment, rest = parts[at - 1], parts[at], parts[at + 1:]
            if only and assignment not in only:
                continue  # not asked for: neither taken in nor named
            expected = notebooks[assignment]
            if entry.refused:
                skip(entry.where, entry.refused)
                chosen.setdefault((student, assignment), {})  # the student handed something in all the same
                continue
            if len(rest) == 1 and rest[0] not in expected and BROWSER_COPY.sub("", rest[0]) in expected:
                copies.setdefault((student, assignment, BROWSER_COPY.sub("", rest[0])), []).append(entry)
                continue  # taken below if it is the only notebook of that name, copy suffix aside
            if rest not in [(name,) for name in expected + [TIMESTAMP]]:
                what = ("in a subfolder" if len(rest) > 1 else
                        "a renamed notebook" if rest[0].endswith(".ipynb") else "not a notebook")
                skip(entry.where, f"{what}: {assignment} takes {', '.join(expected)}, directly in its folder")
                chosen.setdefault((student, assignment), {})  # the student handed something in all the same
                continue
            name = rest[0]
        elif entry.refused:
            skip(entry.where, entry.refused)
            continue
        elif len(parts) == 1:
            student, assignment, name = _lms_file(entry, by_name, collector, skip)
            if student is None or (only and assignment not in only):
                continue
        elif len(parts) == 2:
            skip(entry.where, "not in an assignment folder: expected <student>/<assignment>/<notebook>.ipynb"
                              f" or a file named {LMS_FORM}")
            continue
        else:
            folder = str(Path(entry.where).parent)
            skip(folder, f"not an assignment of this course ({', '.join(notebooks)})")
            continue
        files = chosen.setdefault((student, assignment), {})
        old = files.get(name)
        if old is None:
            files[name] = entry
            continue
        # Two copies of one file: the later one counts (archive order breaks a tie).
        older, newer = (entry, old) if entry.time < old.time else (old, entry)
        files[name] = newer
        skip(older.where, f"two files for {student}'s {name}: took the later {newer.where} "
                          f"({newer.time:%Y-%m-%d %H:%M:%S}), not this one ({older.time:%Y-%m-%d %H:%M:%S})")
    for (student, assignment, name), found in sorted(copies.items(), key=lambda kv: kv[0]):
        files = chosen.setdefault((student, assignment), {})  # the student handed something in all the same
        if name in files or len(found) > 1:
            for entry in found:
                skip(entry.where, f"a renamed notebook: {assignment} takes {name}" +
                     (f", which is there too" if name in files else f", and {len(found)} copies of it are there"))
            continue
        files[name] = found[0]
        skip(found[0].where, f"taken as {name}: the only notebook of {assignment} in the folder, named as a browser "
                             "names a second download", taken=True)
    return chosen


def _only_students(chosen, students):
    """The chosen submissions of these students only (all when students is None)."""
    if not students:
        return chosen
    return {(student, a): files for (student, a), files in chosen.items()
            if student in students or safe_id(student) in students}


def _lms_file(entry, by_name, collector, skip):
    """(student, assignment, notebook) for a flat file named as an LMS names it, or Nones after naming it."""
    name = entry.parts[0]
    info = collector.collect(name)
    if info is None or name in by_name:
        why = ("not a notebook (only .ipynb files are taken in)" if not name.endswith(".ipynb")
               else f"no student in the file name: expected {LMS_FORM}")
        skip(entry.where, why)
        return None, None, None
    stem = RESUBMITTED.sub("", info["file_id"].removesuffix(".ipynb"))
    hits = [nb for nb in by_name if stem == nb.removesuffix(".ipynb") or stem.endswith("_" + nb.removesuffix(".ipynb"))]
    if not hits:
        skip(entry.where, f"not a notebook of this course: the name ends with none of {', '.join(by_name)}")
        return None, None, None
    notebook = max(hits, key=len)
    entry.origin = "lms"
    entry.lms_late = bool(re.match(r"late_", info["file_id"], re.IGNORECASE))  # Canvas: doejane_LATE_12345_...
    return info["student_id"], by_name[notebook], notebook


def _place(chosen, submitted, intake, skip):
    total = 0
    for (original, assignment), files in sorted(chosen.items()):
        student = safe_id(original)
        if student != original:
            intake.renamed[student] = original
        content = {}
        for name, entry in sorted(files.items()):
            if total + entry.size > MAX_TOTAL_BYTES:
                skip(entry.where, f"refused unread: the submissions already read hold {total / 2**20:.0f} MiB, "
                                  f"and {MAX_TOTAL_BYTES // 2**30} GiB in all is the limit")
                continue
            total += entry.size
            try:
                # A timestamp is read a few hundred bytes at most: a large one is refused in constant time.
                content[name] = entry.read(deadlines.MAX_TIMESTAMP_BYTES if name == TIMESTAMP else None)
            except (OSError, EOFError, zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError) as e:
                skip(entry.where, f"cannot be read: {e}")  # a damaged or encrypted archive entry
        stamp = files.get(TIMESTAMP)
        claim, problem = deadlines.read_timestamp(content.get(TIMESTAMP))
        if stamp and TIMESTAMP in content:
            if claim is None:
                skip(stamp.where, f"not a time nbgrader can read: {problem.removeprefix('its timestamp.txt ')}; the "
                                  "submission is taken in without it (and flagged, if the assignment has a due date)")
                del content[TIMESTAMP]
            else:
                content[TIMESTAMP] = deadlines.written(claim).encode()  # as nbgrader reads it right
        handed = [e for n, e in files.items() if n != TIMESTAMP and n in content]
        intake.timing[(student, assignment)] = {
            "claim": claim.isoformat() if claim else None, "problem": problem,
            "file_time": max(e.time for e in handed).isoformat() if handed else None,
            "source": next((e.origin for e in handed if e.origin == "lms"), handed[0].origin if handed else "folder"),
            "lms_late": any(e.lms_late for e in handed)}
        if set(content) <= {TIMESTAMP}:
            if stamp and TIMESTAMP in content:
                skip(stamp.where, f"no notebook of {assignment} beside it")
            target = submitted / student / assignment
            if not target.exists():
                # Nothing placeable (a renamed notebook, say) and nothing earlier: an empty submission,
                # so grading still gives the student a gradebook row, with zeros and the reason.
                target.mkdir(parents=True)
                intake.empty.append((student, assignment))
            continue  # an earlier submission, if any, stays as it was
        target = submitted / student / assignment
        if target.exists():
            shutil.rmtree(target)  # taken in again: the new submission replaces the old one as a whole
        target.mkdir(parents=True)
        for name, data in content.items():
            (target / name).write_bytes(data)
            if name == TIMESTAMP:
                continue
            intake.placed.append((student, assignment, target / name))
            why = unreadable(data)
            if why:
                skip(files[name].where, f"{why} (placed all the same, so grading records it)", placed=True)


def unreadable(data):
    """Why nbformat cannot read these bytes as an nbformat 4 notebook, or None if it can."""
    if not data.strip():
        return "empty file"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 text ({e.reason} at byte {e.start})"
    try:
        nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    except nbformat.reader.NotJSONError:
        return "not JSON"
    except nbformat.ValidationError as e:
        return f"not a valid nbformat 4 notebook ({e.message})"
    except Exception as e:  # nbformat raises what the JSON provokes (NBFormatError, TypeError, ...)
        return f"not a notebook ({type(e).__name__}: {e})"
    if nb.get("nbformat") != 4:
        return f"nbformat {nb.get('nbformat')}: nbgrader here reads nbformat 4"
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as e:
        return f"not a valid nbformat 4 notebook ({e.message})"
    return None
