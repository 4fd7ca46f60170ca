"""Due dates and the late penalty, from one file in the course directory: COURSE_DIR/deadlines.toml.

    penalty = "zero"     # nbgrader's LateSubmissionPlugin: "none" (the default) or "zero"
    unproven = "on time" # what a submission whose time cannot be established counts as: "on time"
                         # (the default) or "late"; either way it is flagged (see `decide`)

    [due]                # UTC unless the date names another zone
    01_self_attention = "2026-12-01 17:00:00 UTC"
    02_scaled_attention = "2026-12-08 17:00:00 UTC"

`python -m grader grade` reads it on every run: it writes each due date into the gradebook
(nbgrader's `duedate`, which formgrader shows and nbgrader's AssignLatePenalties compares with
each submission's timestamp.txt) and the penalty into the course's nbgrader_config.py. A date
taken out of the file is taken out of the gradebook. Without the file nothing is late.

When a submission was handed in (`decide`): an LMS's own record counts where there is one (a file
name Canvas marked LATE; the date of an entry in a zip of files named as an LMS names them);
otherwise nbgrader's timestamp.txt, which the student's side writes, so it is checked against the
notebook's own time in the collected folder. A timestamp that is missing, unreadable, relative
(a date with no year), out of range, or earlier than the notebook it comes with is flagged, in
the printed table, the report and grades.csv, and counts as `unproven` says.
"""
import re
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path

from nbgrader.utils import parse_utc

FILE = "deadlines.toml"
PENALTIES = ("none", "zero")  # LateSubmissionPlugin.penalty_method's choices in nbgrader 0.9
UNPROVEN = ("on time", "late")
MAX_TIMESTAMP_BYTES = 256      # a time is 30 characters: a larger timestamp.txt is refused unread
EARLIEST = datetime(2000, 1, 1)
# A notebook is saved before it is handed in, so its file is older than its timestamp. By how much the
# file may be newer before the timestamp is doubted: a folder's times are the machine's clock; a zip
# entry's date is in a zone the archive does not record, so a day.
SLACK = {"folder": timedelta(minutes=10), "zip": timedelta(days=1)}
# nbgrader's own form, an ISO 8601 date and time, with an optional zone: UTC, GMT, Z or an offset
_ABSOLUTE = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)"
                       r" ?(UTC|GMT|Z|[+-]\d{2}:?\d{2})?")


class DeadlineError(ValueError):
    """The deadlines file cannot be used (the message names the file and the entry)."""


def read(course, assignments):
    """(penalty, {assignment: due datetime in UTC}, unproven) from COURSE_DIR/deadlines.toml; ("none", {},
    "on time") without it."""
    path = Path(course) / FILE
    if not path.exists():
        return "none", {}, "on time"
    try:
        table = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise DeadlineError(f"{path}: not TOML that can be read: {e}")
    unknown = sorted(set(table) - {"penalty", "due", "unproven"})
    if unknown:
        raise DeadlineError(f"{path}: unknown key(s) {', '.join(unknown)}: it holds penalty = ..., unproven = ... "
                            "and a [due] table")
    unproven = table.get("unproven", "on time")
    if unproven not in UNPROVEN:
        raise DeadlineError(f"{path}: unproven = {unproven!r}: a submission whose time cannot be established "
                            f"counts as {' or '.join(repr(u) for u in UNPROVEN)}")
    penalty = table.get("penalty", "none")
    if penalty not in PENALTIES:
        raise DeadlineError(f"{path}: penalty = {penalty!r}: nbgrader's late submission plugin takes "
                            f"{' or '.join(repr(p) for p in PENALTIES)}")
    due = {}
    for assignment, when in table.get("due", {}).items():
        if assignment not in assignments:
            raise DeadlineError(f"{path}: [due] {assignment}: not an assignment of this course "
                                f"({', '.join(assignments)})")
        try:
            due[assignment] = parse_utc(str(when))
        except (ValueError, OverflowError) as e:
            raise DeadlineError(f"{path}: [due] {assignment} = {when!r}: not a date nbgrader can read ({e}); "
                                "write it as \"2026-12-01 17:00:00 UTC\"")
    return penalty, due, unproven


def read_timestamp(data):
    """(time in UTC, None) from the bytes of a timestamp.txt, or (None, what is wrong with it). Only an
    absolute date and time is read (no "June", no "last tuesday"), from at most MAX_TIMESTAMP_BYTES."""
    if data is None:
        return None, "no timestamp.txt came with it"
    if len(data) > MAX_TIMESTAMP_BYTES:
        return None, f"its timestamp.txt is larger than {MAX_TIMESTAMP_BYTES} bytes, so it was not read"
    try:
        text = data.decode("utf-8").removeprefix("\ufeff").strip()  # the byte-order mark Notepad writes
    except UnicodeDecodeError:
        return None, "its timestamp.txt is not UTF-8 text"
    found = _ABSOLUTE.fullmatch(text)
    if not found:
        return None, "its timestamp.txt does not hold a date and time such as 2026-12-01 17:00:00 UTC"
    day, clock, zone = found.groups()
    zone = "+00:00" if zone in (None, "UTC", "GMT", "Z") else zone
    try:
        when = datetime.fromisoformat(f"{day}T{clock}{zone}")
    except ValueError:
        return None, "its timestamp.txt holds a date and time that do not exist"
    return when.astimezone(timezone.utc).replace(tzinfo=None), None


def written(when):
    """A time as nbgrader's timestamp.txt holds it, in UTC (nbgrader's parse_utc reads this form right)."""
    return when.strftime("%Y-%m-%d %H:%M:%S.%f") + " UTC"


def decide(evidence, due, unproven, now):
    """(the time nbgrader is to use or None, a flag or None) for one submission to an assignment due at `due`.

    evidence: {"claim": timestamp.txt's time (ISO) or None, "problem": what is wrong with it or None,
    "file_time": the newest notebook's time (ISO), "source": "folder", "zip" or "lms" (flat files an LMS
    named: its entry dates are its record), "lms_late": the LMS marked it late}. A flag says what was found
    and what it counted as."""
    claim = evidence.get("claim") and datetime.fromisoformat(evidence["claim"])
    problem = evidence.get("problem")
    file_time = evidence.get("file_time") and datetime.fromisoformat(evidence["file_time"])
    if due is None:
        return claim, None
    late_time = max(file_time, due + timedelta(seconds=1)) if file_time else due + timedelta(seconds=1)
    if evidence.get("lms_late"):
        return late_time, "the LMS marked it late (its file name says LATE); counted late"
    if evidence.get("source") == "lms" and file_time:
        return file_time, None  # the LMS's record of when it was handed in
    if claim is not None and not EARLIEST <= claim <= now + timedelta(days=1):
        claim, problem = None, f"its timestamp.txt says {claim:%Y-%m-%d %H:%M}, before 2000 or in the future"
    if claim is not None and file_time and claim < file_time - SLACK.get(evidence.get("source"), SLACK["folder"]):
        said = (f"its timestamp.txt says {claim:%Y-%m-%d %H:%M} UTC, but the notebook is from "
                f"{file_time:%Y-%m-%d %H:%M} UTC")
        if unproven == "late":
            return file_time, said + "; counted at the notebook's time (deadlines.toml: unproven = \"late\")"
        return claim, said + "; counted as timestamp.txt says (deadlines.toml: unproven = \"on time\")"
    if claim is None:
        if unproven == "late":
            return late_time, (problem or "no time") + "; counted late (deadlines.toml: unproven = \"late\")"
        return None, (problem or "no time") + "; counted on time (deadlines.toml: unproven = \"on time\")"
    return claim, None



FLAGS = Path("logs") / "lateness.json"  # in the course: {"<student>/<assignment>": flag} of the latest intakes


def flags(course):
    """{"<student>/<assignment>": what was found about when it was handed in} (see `decide`)."""
    import json
    try:
        return json.loads((Path(course) / FLAGS).read_text())
    except (OSError, ValueError):
        return {}


def apply(course, timing, due, unproven, now=None):
    """For each submission taken in now ({(student, assignment): evidence}, intake's), write the time nbgrader
    is to use into its timestamp.txt in course/submitted (none: on time), and keep its flag, replacing the
    one an earlier intake kept; the other students' stay."""
    import json
    now = now or datetime.now(timezone.utc).replace(tzinfo=None)
    course = Path(course)
    kept = flags(course)
    for (student, assignment), evidence in sorted(timing.items()):
        folder = course / "submitted" / student / assignment
        if not folder.is_dir():
            continue
        when, flag = decide(evidence, due.get(assignment), unproven, now)
        stamp = folder / "timestamp.txt"
        if when is None:
            stamp.unlink(missing_ok=True)
        else:
            stamp.write_text(written(when))
        key = f"{student}/{assignment}"
        if flag:
            kept[key] = flag
        else:
            kept.pop(key, None)
    path = course / FLAGS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, indent=1, sort_keys=True))
