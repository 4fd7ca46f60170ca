"""When a submission counts as handed in (grader/engine/deadlines.py, issue 25): the LMS's record where there
is one, else timestamp.txt checked against the notebook's own time; a time in doubt is flagged and counts as
deadlines.toml's `unproven` says; a large timestamp.txt is refused unread."""
import os
import time
from datetime import datetime

import pytest

from grader.engine import deadlines
from grader.engine.intake import take_in
from tests.test_intake import A1, NB1, make_zip, notebook, write

DUE = datetime(2026, 3, 1, 17, 0)
NOW = datetime(2026, 3, 10, 12, 0)   # when grading runs
BEFORE, AFTER = datetime(2026, 3, 1, 9, 0), datetime(2026, 3, 2, 9, 0)


@pytest.mark.parametrize("text, when", [
    (b"2026-03-01 09:00:00.000000 UTC", BEFORE),          # as nbgrader writes it
    (b"2026-03-01T09:00:00Z", BEFORE),
    (b"2026-03-01 11:00:00 +02:00", BEFORE),              # nbgrader's own parse_utc drops this offset
    (b"\xef\xbb\xbf2026-03-01 09:00 UTC\r\n", BEFORE),    # the byte-order mark and line end Notepad writes
])
def test_an_absolute_time_is_read_in_utc(text, when):
    assert deadlines.read_timestamp(text) == (when, None)


@pytest.mark.parametrize("text, said", [
    (b"2026-03-01 25:00:00 UTC", "do not exist"),          # hour 25
    (b"2026-02-30 09:00:00 UTC", "do not exist"),
    (b"last tuesday", "does not hold a date and time"),
    (b"June 1", "does not hold a date and time"),          # relative: read against the day of grading
    (b"2026-03-01 09:00:00 UTC+14", "does not hold a date and time"),  # dateutil reads UTC+14 as UTC-14
    (b"2026-03-01\x00 09:00:00 UTC", "does not hold a date and time"),
    (b"", "does not hold a date and time"),
    ("2026-03-01 09:00:00 UTC \u00e9".encode("latin-1"), "not UTF-8"),
    (None, "no timestamp.txt"),
])
def test_a_timestamp_that_cannot_be_read_says_why(text, said):
    when, problem = deadlines.read_timestamp(text)
    assert when is None and said in problem


def _evidence(claim=None, problem=None, file_time=BEFORE, source="folder", lms_late=False):
    return {"claim": claim and claim.isoformat(), "problem": problem, "file_time": file_time and file_time.isoformat(),
            "source": source, "lms_late": lms_late}


def test_a_timestamp_the_notebook_agrees_with_counts_unflagged():
    assert deadlines.decide(_evidence(BEFORE, file_time=BEFORE), DUE, "on time", NOW) == (BEFORE, None)
    assert deadlines.decide(_evidence(AFTER, file_time=BEFORE), DUE, "on time", NOW) == (AFTER, None)


def test_an_early_timestamp_on_a_later_notebook_is_flagged_and_counts_as_unproven_says():
    early = _evidence(BEFORE, file_time=AFTER)
    when, flag = deadlines.decide(early, DUE, "on time", NOW)
    assert when == BEFORE and "but the notebook is from 2026-03-02 09:00" in flag and '"on time"' in flag
    when, flag = deadlines.decide(early, DUE, "late", NOW)
    assert when == AFTER and when > DUE and "counted at the notebook's time" in flag


@pytest.mark.parametrize("claim", [datetime(9999, 1, 1), datetime(1970, 1, 2)])
def test_a_timestamp_out_of_range_is_flagged(claim):
    when, flag = deadlines.decide(_evidence(claim, file_time=None), DUE, "on time", NOW)
    assert when is None and "before 2000 or in the future" in flag and "counted on time" in flag
    when, flag = deadlines.decide(_evidence(claim, file_time=None), DUE, "late", NOW)
    assert when > DUE and "counted late" in flag


def test_no_timestamp_is_never_silently_on_time():
    when, flag = deadlines.decide(_evidence(problem="no timestamp.txt came with it"), DUE, "on time", NOW)
    assert when is None and flag == 'no timestamp.txt came with it; counted on time (deadlines.toml: unproven = "on time")'
    when, flag = deadlines.decide(_evidence(problem="no timestamp.txt came with it"), DUE, "late", NOW)
    assert when > DUE and "counted late" in flag


def test_the_lms_record_counts_where_there_is_one():
    assert deadlines.decide(_evidence(file_time=AFTER, source="lms"), DUE, "on time", NOW) == (AFTER, None)
    when, flag = deadlines.decide(_evidence(BEFORE, file_time=BEFORE, lms_late=True), DUE, "on time", NOW)
    assert when > DUE and "the LMS marked it late" in flag


def test_without_a_due_date_nothing_is_flagged():
    assert deadlines.decide(_evidence(problem="no timestamp.txt came with it"), None, "late", NOW) == (None, None)


def test_unproven_is_read_from_deadlines_toml_and_checked(tmp_path):
    (tmp_path / "deadlines.toml").write_text('unproven = "late"\n[due]\n01_self_attention = "2026-03-01 17:00:00 UTC"\n')
    assert deadlines.read(tmp_path, ["01_self_attention"]) == ("none", {"01_self_attention": DUE}, "late")
    (tmp_path / "deadlines.toml").write_text('unproven = "never"\n')
    with pytest.raises(deadlines.DeadlineError, match="unproven = 'never'"):
        deadlines.read(tmp_path, ["01_self_attention"])
    assert deadlines.read(tmp_path / "nowhere", []) == ("none", {}, "on time")


# ---------------------------------------------------------------- through intake

def _taken(source, course):
    said = []
    return take_in(source, course, say=said.append), said


def test_a_large_timestamp_is_refused_unread_in_constant_time(tmp_path):
    src = write(tmp_path / "subs", {f"jane/{A1}/{NB1}": notebook("jane"), f"jane/{A1}/timestamp.txt": b"1" * 2_000_000})
    start = time.perf_counter()
    intake, said = _taken(src, tmp_path / "course")
    assert time.perf_counter() - start < 1.0
    assert "larger than 256 bytes" in intake.timing[("jane", A1)]["problem"]
    assert not (tmp_path / "course" / "submitted" / "jane" / A1 / "timestamp.txt").exists()


def test_intake_records_the_notebooks_time_and_the_lms_marks(tmp_path):
    src = write(tmp_path / "subs", {f"jane/{A1}/{NB1}": notebook("jane"), f"jane/{A1}/timestamp.txt": b"2026-03-01 09:00 UTC"})
    os.utime(src / "jane" / A1 / NB1, (_utc(AFTER), _utc(AFTER)))
    intake, _ = _taken(src, tmp_path / "course")
    evidence = intake.timing[("jane", A1)]
    assert evidence["claim"] == BEFORE.isoformat() and evidence["file_time"] == AFTER.isoformat()
    assert evidence["source"] == "folder"
    archive = make_zip(tmp_path / "canvas.zip", [
        (f"doejane_LATE_12345_67890_{NB1}", notebook("jane"), (2026, 3, 1, 9, 0, 0)),
        (f"roebob_12345_67891_{NB1}", notebook("bob"), (2026, 3, 2, 9, 0, 0)),
    ])
    intake, _ = _taken(archive, tmp_path / "course2")
    assert intake.timing[("doejane", A1)]["lms_late"] and intake.timing[("doejane", A1)]["source"] == "lms"
    bob = intake.timing[("roebob", A1)]
    assert not bob["lms_late"] and deadlines.decide(bob, DUE, "on time", NOW) == (AFTER, None)


def _utc(naive):
    """Seconds since the epoch of a naive UTC time."""
    from datetime import timezone
    return naive.replace(tzinfo=timezone.utc).timestamp()


def test_apply_writes_the_time_nbgrader_uses_and_keeps_other_students_flags(tmp_path):
    course = tmp_path / "course"
    for student in ("jane", "bob"):
        (course / "submitted" / student / A1).mkdir(parents=True)
    deadlines.apply(course, {("bob", A1): _evidence(problem="no timestamp.txt came with it")}, {A1: DUE}, "on time", NOW)
    deadlines.apply(course, {("jane", A1): _evidence(BEFORE, file_time=AFTER)}, {A1: DUE}, "late", NOW)
    assert (course / "submitted" / "jane" / A1 / "timestamp.txt").read_text() == "2026-03-02 09:00:00.000000 UTC"
    assert not (course / "submitted" / "bob" / A1 / "timestamp.txt").exists()
    assert set(deadlines.flags(course)) == {f"bob/{A1}", f"jane/{A1}"}
