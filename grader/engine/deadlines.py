"""Due dates and the late penalty, from one file in the course directory: COURSE_DIR/deadlines.toml.

    penalty = "zero"     # nbgrader's LateSubmissionPlugin: "none" (the default) or "zero"

    [due]                # UTC unless the date names another zone
    01_self_attention = "2026-12-01 17:00:00 UTC"
    02_scaled_attention = "2026-12-08 17:00:00 UTC"

`python -m grader grade` reads it on every run: it writes each due date into the gradebook
(nbgrader's `duedate`, which formgrader shows and nbgrader's AssignLatePenalties compares with
each submission's timestamp.txt) and the penalty into the course's nbgrader_config.py. A date
taken out of the file is taken out of the gradebook. Without the file nothing is late.
"""
import tomllib
from pathlib import Path

from nbgrader.utils import parse_utc

FILE = "deadlines.toml"
PENALTIES = ("none", "zero")  # LateSubmissionPlugin.penalty_method's choices in nbgrader 0.9


class DeadlineError(ValueError):
    """The deadlines file cannot be used (the message names the file and the entry)."""


def read(course, assignments):
    """(penalty, {assignment: due datetime in UTC}) from COURSE_DIR/deadlines.toml; ("none", {}) without it."""
    path = Path(course) / FILE
    if not path.exists():
        return "none", {}
    try:
        table = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise DeadlineError(f"{path}: not TOML that can be read: {e}")
    unknown = sorted(set(table) - {"penalty", "due"})
    if unknown:
        raise DeadlineError(f"{path}: unknown key(s) {', '.join(unknown)}: it holds penalty = ... and a [due] table")
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
    return penalty, due

