"""Intake (grader/engine/intake.py): a folder or an LMS zip into course/submitted, every file it cannot place named."""
import json
import os
import re
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.engine.build import assignments
from grader.engine.intake import IntakeError, safe_id, take_in

A1, A2 = "01_self_attention", "02_scaled_attention"
NB1, NB2 = f"{A1}.ipynb", f"{A2}.ipynb"


def notebook(text):
    """A valid nbformat 4 notebook whose one cell says `text` (so copies can be told apart)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"answer = {text!r}", id="answer")])
    return nbformat.writes(nb).encode()


NBFORMAT_3 = nbformat.writes(nbformat.v3.new_notebook(worksheets=[nbformat.v3.new_worksheet()]), version=3).encode()


def write(root, files):
    """Write {relative path: bytes} under root; return root."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def make_zip(path, entries):
    """A zip of [(name, bytes, (y, m, d, H, M, S))] in this order (the archive's order)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data, when in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path


def tree(root):
    """{relative path: bytes} of every file under root."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def outside_submitted(course):
    """Everything intake must leave alone: all but submitted/ and its own notes for the report."""
    return {k: v for k, v in tree(course).items() if not k.startswith("submitted/") and k != "logs/intake.json"}


@pytest.fixture
def course(tmp_path):
    """A course directory that has been graded before: none of this may change."""
    return write(tmp_path / "course", {
        "gradebook.db": b"not touched",
        f"autograded/jane/{A1}/{NB1}": notebook("graded before"),
        f"feedback/jane/{A1}/{A1}.html": b"<p>feedback</p>",
        f"submitted/zoe/{A1}/{NB1}": notebook("zoe, handed in before"),
    })


def run(source, course, **kw):
    said = []
    intake = take_in(source, course, say=said.append, **kw)
    return intake, said


# ---------------------------------------------------------------- a folder in nbgrader's layout

def test_folder_layout_is_placed_as_it_is(tmp_path, course):
    src = write(tmp_path / "subs", {
        f"jane/{A1}/{NB1}": notebook("jane 1"),
        f"jane/{A1}/timestamp.txt": b"2026-01-02 10:00:00.000000 UTC",
        f"jane/{A2}/{NB2}": notebook("jane 2"),
        f"bob/{A2}/{NB2}": notebook("bob 2"),
    })
    before_source, before_course = tree(src), outside_submitted(course)
    intake, said = run(src, course)
    sub = course / "submitted"
    assert intake.assignments == [A1, A2]
    assert sorted(intake.placed) == sorted([("jane", A1, sub / "jane" / A1 / NB1),
                                            ("jane", A2, sub / "jane" / A2 / NB2),
                                            ("bob", A2, sub / "bob" / A2 / NB2)])
    assert intake.problems == [] and said == []
    for student, assignment, path in intake.placed:
        assert path.read_bytes() == (src / student / assignment / path.name).read_bytes()
    assert (sub / "jane" / A1 / "timestamp.txt").read_bytes() == b"2026-01-02 10:00:00.000000 UTC"
    assert (sub / "zoe" / A1 / NB1).read_bytes() == notebook("zoe, handed in before")  # another student: untouched
    assert tree(src) == before_source and outside_submitted(course) == before_course


def test_folder_names_every_file_it_cannot_place(tmp_path, course):
    src = write(tmp_path / "subs", {
        f"jane/{A1}/{NB1}": notebook("jane"),
        f"jane/{A1}/data.csv": b"1,2",                        # an extra file
        f"jane/{A1}/sub/{NB1}": notebook("nested"),           # not where nbgrader looks
        f"jane/homework1/{NB1}": notebook("wrong folder"),    # not an assignment: the folder is named once
        "jane/homework1/notes.txt": b"notes",
        f"bob/{A2}/my_attention.ipynb": notebook("bob"),      # a renamed notebook
        f"bob/{NB2}": notebook("no assignment folder"),
        "README.txt": b"from the LMS",
        # written by Jupyter and macOS, skipped without a word
        f"jane/{A1}/.ipynb_checkpoints/{A1}-checkpoint.ipynb": notebook("checkpoint"),
        ".DS_Store": b"\0", f"bob/{A2}/.DS_Store": b"\0",
    })
    before_course = outside_submitted(course)
    intake, said = run(src, course)
    assert intake.placed == [("jane", A1, course / "submitted" / "jane" / A1 / NB1)]
    assert sorted(os.listdir(course / "submitted" / "jane" / A1)) == [NB1]
    # nothing of bob's could be placed: an empty submission, so grading gives bob a row of zeros
    assert os.listdir(course / "submitted" / "bob" / A2) == [] and intake.empty == [("bob", A2)]
    got = dict(intake.problems)
    assert len(got) == len(intake.problems)  # each named once: homework1/ holds two files
    assert set(got) == {str(src / p) for p in [f"jane/{A1}/data.csv", f"jane/{A1}/sub/{NB1}", "jane/homework1",
                                               f"bob/{A2}/my_attention.ipynb", f"bob/{NB2}", "README.txt"]}
    assert "not a notebook" in got[str(src / f"jane/{A1}/data.csv")] and NB1 in got[str(src / f"jane/{A1}/data.csv")]
    assert "in a subfolder" in got[str(src / f"jane/{A1}/sub/{NB1}")]
    assert "renamed notebook" in got[str(src / f"bob/{A2}/my_attention.ipynb")]
    assert f"{A2} takes {NB2}" in got[str(src / f"bob/{A2}/my_attention.ipynb")]
    assert "not an assignment of this course" in got[str(src / "jane/homework1")]
    assert "not in an assignment folder" in got[str(src / f"bob/{NB2}")]
    assert "not a notebook" in got[str(src / "README.txt")]
    assert sorted(said) == sorted(f"skipped: {p}: {why}" for p, why in intake.problems)
    assert outside_submitted(course) == before_course


def test_symbolic_links_are_named_and_not_followed(tmp_path, course):
    secret = write(tmp_path / "elsewhere", {NB1: notebook("the answer key")})
    src = write(tmp_path / "subs", {f"bob/{A2}/{NB2}": notebook("bob")})
    (src / "jane" / A1).mkdir(parents=True)
    (src / "jane" / A1 / NB1).symlink_to(secret / NB1)
    (src / "eve").symlink_to(secret, target_is_directory=True)
    intake, _ = run(src, course)
    assert intake.placed == [("bob", A2, course / "submitted" / "bob" / A2 / NB2)]
    assert dict(intake.problems) == {str(src / "jane" / A1 / NB1): "a symbolic link: not followed",
                                     str(src / "eve"): "a symbolic link: not followed"}
    # jane handed in a link: an empty submission (a row of zeros, and this reason, at grading)
    assert os.listdir(course / "submitted" / "jane" / A1) == [] and intake.empty == [("jane", A1)]
    assert not (course / "submitted" / "eve").exists()


def test_the_sample_class_is_taken_in_whole(tmp_path):
    from tests.sample_class import STUDENTS, write_class  # the class the end-to-end tests grade
    intake, said = run(write_class(tmp_path / "subs"), tmp_path / "course")
    assert intake.problems == [] and said == []
    assert sorted((s, a) for s, a, _ in intake.placed) == sorted(STUDENTS)
    assert intake.assignments == assignments()


def test_unreadable_notebooks_are_placed_and_named(tmp_path, course):
    broken = {
        "empty": (b"", "empty file"),
        "blank": (b"  \n", "empty file"),
        "garbage": (b"{not json", "not JSON"),
        "latin1": ('{"nbformat": 4, "cells": ["caf\u00e9"]}'.encode("latin-1"), "not UTF-8"),
        "old": (NBFORMAT_3, "nbformat 3"),
        "future": (b'{"nbformat": 5, "nbformat_minor": 0, "cells": [], "metadata": {}}', "not a notebook"),
        "list": (b"[]", "not a notebook"),
        "schema": (b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}', "not a valid nbformat 4 notebook"),
    }
    src = write(tmp_path / "subs", {f"{who}/{A1}/{NB1}": data for who, (data, _) in broken.items()})
    intake, said = run(src, course)
    assert sorted(s for s, _, _ in intake.placed) == sorted(broken)
    for student, _, path in intake.placed:
        assert path.read_bytes() == broken[student][0]  # byte for byte, so grading sees what was handed in
    got = dict(intake.problems)
    assert set(got) == {str(src / who / A1 / NB1) for who in broken}
    for who, (_, words) in broken.items():
        assert words in got[str(src / who / A1 / NB1)], who
        assert "placed" in got[str(src / who / A1 / NB1)]
    assert all(line.startswith("unreadable: ") for line in said) and len(said) == len(broken)


def test_taking_in_again_replaces_that_students_assignment_only(tmp_path, course):
    first = write(tmp_path / "first", {f"zoe/{A1}/{NB1}": notebook("old"),
                                       f"zoe/{A1}/timestamp.txt": b"2026-01-01 00:00:00 UTC",
                                       f"zoe/{A2}/{NB2}": notebook("zoe 2")})
    run(first, course)
    before_course = outside_submitted(course)
    second = write(tmp_path / "second", {f"zoe/{A1}/{NB1}": notebook("new")})
    intake, _ = run(second, course)
    sub = course / "submitted" / "zoe"
    assert intake.placed == [("zoe", A1, sub / A1 / NB1)]
    assert (sub / A1 / NB1).read_bytes() == notebook("new")
    assert not (sub / A1 / "timestamp.txt").exists()  # the old submission is replaced as a whole
    assert (sub / A2 / NB2).read_bytes() == notebook("zoe 2")
    assert outside_submitted(course) == before_course


def test_a_student_with_nothing_placeable_keeps_the_earlier_submission(tmp_path, course):
    src = write(tmp_path / "subs", {f"zoe/{A1}/renamed.ipynb": notebook("zoe again")})
    intake, _ = run(src, course)
    assert intake.placed == [] and intake.assignments == []
    assert (course / "submitted" / "zoe" / A1 / NB1).read_bytes() == notebook("zoe, handed in before")
    assert [why for _, why in intake.problems] == [f"a renamed notebook: {A1} takes {NB1}, directly in its folder"]


def test_a_timestamp_nbgrader_cannot_read_is_named_and_left_out(tmp_path, course):
    src = write(tmp_path / "subs", {f"jane/{A1}/{NB1}": notebook("jane"), f"jane/{A1}/timestamp.txt": b"last tuesday",
                                    f"bob/{A1}/timestamp.txt": b"2026-01-01 00:00:00 UTC"})
    intake, _ = run(src, course)
    assert intake.placed == [("jane", A1, course / "submitted" / "jane" / A1 / NB1)]
    assert not (course / "submitted" / "jane" / A1 / "timestamp.txt").exists()
    # nothing of bob's could be placed: an empty submission, so grading gives bob a row of zeros
    assert os.listdir(course / "submitted" / "bob" / A1) == [] and intake.empty == [("bob", A1)]
    got = dict(intake.problems)
    assert "not a time nbgrader can read" in got[str(src / f"jane/{A1}/timestamp.txt")]
    assert "no notebook" in got[str(src / f"bob/{A1}/timestamp.txt")]


def test_only_takes_in_the_assignments_asked_for(tmp_path, course):
    src = write(tmp_path / "subs", {f"jane/{A1}/{NB1}": notebook("1"), f"jane/{A2}/{NB2}": notebook("2"),
                                    f"jane/{A2}/renamed.ipynb": notebook("2'"), f"jane/homework/{NB1}": notebook("h")})
    intake, _ = run(src, course, only=[A2])
    assert intake.assignments == [A2] and [a for _, a, _ in intake.placed] == [A2]
    assert not (course / "submitted" / "jane" / A1).exists()
    assert {Path(p).name for p, _ in intake.problems} == {"renamed.ipynb", "homework"}  # A1's files: not asked for


def test_bad_sources_are_refused_with_their_name(tmp_path, course):
    before = tree(course)
    with pytest.raises(IntakeError, match="no such folder"):
        take_in(tmp_path / "missing", course)
    fake = tmp_path / "class.zip"
    fake.write_text("not a zip")
    with pytest.raises(IntakeError, match=f"{fake}: not a folder of submissions nor a zip archive"):
        take_in(fake, course)
    with pytest.raises(IntakeError, match="overlap"):
        take_in(course / "submitted", course)
    with pytest.raises(IntakeError, match="overlap"):
        take_in(tmp_path, course)  # the course is inside the source
    with pytest.raises(IntakeError, match="01_self_atention: not an assignment"):
        take_in(tmp_path / "missing", course, only=["01_self_atention"])
    assert tree(course) == before


# ---------------------------------------------------------------- zips

T = (2026, 1, 5, 12, 0, 0)


def test_zip_of_the_folder_layout(tmp_path, course):
    archive = make_zip(tmp_path / "class.zip", [
        (f"submitted/jane/{A1}/{NB1}", notebook("jane"), T),  # a wrapping folder above the students
        (f"submitted/jane/{A1}/timestamp.txt", b"2026-01-05 12:00:00 UTC", T),
        (f"submitted/bob/{A2}/{NB2}", notebook("bob"), T),
        (f"submitted/bob/{A2}/renamed.ipynb", notebook("bob'"), T),
        (f"submitted/bob/{A2}/.ipynb_checkpoints/x-checkpoint.ipynb", notebook("x"), T),
        (f"__MACOSX/submitted/bob/{A2}/._{NB2}", b"\0\0", T),
        (f"submitted/bob/essays/{NB2}", notebook("e"), T),
    ])
    before_course = outside_submitted(course)
    intake, said = run(archive, course)
    sub = course / "submitted"
    assert sorted(intake.placed) == sorted([("jane", A1, sub / "jane" / A1 / NB1), ("bob", A2, sub / "bob" / A2 / NB2)])
    assert (sub / "jane" / A1 / NB1).read_bytes() == notebook("jane")
    # written as nbgrader writes it (its own reader drops an offset written any other way)
    assert (sub / "jane" / A1 / "timestamp.txt").read_bytes() == b"2026-01-05 12:00:00.000000 UTC"
    assert (sub / "bob" / A2 / NB2).read_bytes() == notebook("bob")
    got = dict(intake.problems)
    assert set(got) == {f"{archive}/submitted/bob/{A2}/renamed.ipynb", f"{archive}/submitted/bob/essays"}
    assert "renamed notebook" in got[f"{archive}/submitted/bob/{A2}/renamed.ipynb"]
    assert "not an assignment" in got[f"{archive}/submitted/bob/essays"]
    assert sorted(said) == sorted(f"skipped: {p}: {why}" for p, why in intake.problems)
    assert outside_submitted(course) == before_course


def test_flat_lms_zip_the_notebook_name_decides_the_assignment(tmp_path, course):
    archive = make_zip(tmp_path / "submissions.zip", [
        (f"doejane_12345_67890_{NB1}", notebook("jane 1"), T),
        (f"doejane_12345_67891_{NB2}", notebook("jane 2"), T),
        (f"smithbob_LATE_222_333_{A2}-1.ipynb", notebook("bob 2, handed in again"), T),  # Canvas: late, resubmitted
        (f"müller_1_2_{NB1}", notebook("müller"), T),
    ])
    intake, said = run(archive, course)
    sub = course / "submitted"
    muller = safe_id("müller")  # not ASCII: a safe id, said and kept (see test_unsafe_student_ids_...)
    assert muller.startswith("muller_")
    assert sorted(intake.placed) == sorted([("doejane", A1, sub / "doejane" / A1 / NB1),
                                            ("doejane", A2, sub / "doejane" / A2 / NB2),
                                            ("smithbob", A2, sub / "smithbob" / A2 / NB2),
                                            (muller, A1, sub / muller / A1 / NB1)])
    assert (sub / "smithbob" / A2 / NB2).read_bytes() == notebook("bob 2, handed in again")
    assert intake.assignments == [A1, A2] and intake.problems == []
    assert said == [f"renamed: 'müller' -> {muller} (a student id here is letters, digits, '_', '-' and '.')"]


def test_flat_lms_zip_names_every_entry_it_cannot_place(tmp_path, course):
    early, late = (2026, 1, 5, 9, 0, 0), (2026, 1, 5, 18, 30, 0)
    archive = make_zip(tmp_path / "submissions.zip", [
        (f"doejane_1_2_{NB1}", notebook("jane, late"), late),
        (f"doejane_1_3_{A1}-1.ipynb", notebook("jane, early"), early),  # later in the archive, older by time
        (f"smithbob_1_2_{NB2}", notebook("bob, first"), T),
        (f"smithbob_1_3_{NB2}", notebook("bob, same time"), T),          # a tie: the later in the archive counts
        ("doejane_1_2_report.pdf", b"%PDF", T),                            # wrong extension
        (NB1, notebook("whose?"), T),                                    # no student in the name
        ("_1_2_" + NB1, notebook("whose?"), T),
        ("doejane_1_2_homework3.ipynb", notebook("?"), T),               # not a notebook of this course
        ("../../evil.ipynb", notebook("escape"), T),                     # zip-slip, every spelling
        ("/tmp/evil.ipynb", notebook("absolute"), T),
        ("..\\..\\evil.ipynb", notebook("windows"), T),
        ("C:/evil.ipynb", notebook("drive"), T),
        ("__MACOSX/._doejane_1_2_" + NB1, b"\0", T),                     # silently skipped
    ])
    outside = tree(tmp_path)
    intake, said = run(archive, course)
    sub = course / "submitted"
    assert sorted(intake.placed) == sorted([("doejane", A1, sub / "doejane" / A1 / NB1),
                                            ("smithbob", A2, sub / "smithbob" / A2 / NB2)])
    assert (sub / "doejane" / A1 / NB1).read_bytes() == notebook("jane, late")
    assert (sub / "smithbob" / A2 / NB2).read_bytes() == notebook("bob, same time")
    got = {p.removeprefix(f"{archive}/"): why for p, why in intake.problems}
    assert set(got) == {f"doejane_1_3_{A1}-1.ipynb", f"smithbob_1_2_{NB2}", "doejane_1_2_report.pdf", NB1,
                        "_1_2_" + NB1, "doejane_1_2_homework3.ipynb", "../../evil.ipynb", "/tmp/evil.ipynb",
                        "..\\..\\evil.ipynb", "C:/evil.ipynb"}
    assert f"took the later {archive}/doejane_1_2_{NB1}" in got[f"doejane_1_3_{A1}-1.ipynb"]
    assert f"took the later {archive}/smithbob_1_3_{NB2}" in got[f"smithbob_1_2_{NB2}"]
    assert "not a notebook" in got["doejane_1_2_report.pdf"]
    assert "no student" in got[NB1] and "no student" in got["_1_2_" + NB1]
    assert "not a notebook of this course" in got["doejane_1_2_homework3.ipynb"]
    assert NB1 in got["doejane_1_2_homework3.ipynb"]
    for slip in ["../../evil.ipynb", "/tmp/evil.ipynb", "..\\..\\evil.ipynb", "C:/evil.ipynb"]:
        assert "zip-slip" in got[slip]
    assert sorted(said) == sorted(f"skipped: {p}: {why}" for p, why in intake.problems)
    # nothing written anywhere but course/submitted
    unchanged = {k: v for k, v in outside.items() if not k.startswith("course/submitted/")}
    assert {k: v for k, v in tree(tmp_path).items()
            if not k.startswith("course/submitted/") and k != "course/logs/intake.json"} == unchanged
    assert not Path("/tmp/evil.ipynb").exists()


def test_unreadable_notebook_in_a_zip_is_placed_and_a_damaged_entry_named(tmp_path, course):
    path = tmp_path / "class.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"doejane_1_{NB1}", b"")
        z.writestr(f"smithbob_1_{NB1}", b"SMITHBOB-ANSWER" + notebook("bob"))
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"SMITHBOB-ANSWER", b"SMITHBOB-ANSWEX"))  # a damaged entry: its CRC fails
    intake, said = run(path, course)
    assert intake.placed == [("doejane", A1, course / "submitted" / "doejane" / A1 / NB1)]
    got = dict(intake.problems)
    assert "empty file" in got[f"{path}/doejane_1_{NB1}"]
    assert "cannot be read" in got[f"{path}/smithbob_1_{NB1}"]
    # nothing of smithbob's could be placed: an empty submission, so grading gives smithbob a row of zeros
    assert os.listdir(course / "submitted" / "smithbob" / A1) == [] and intake.empty == [("smithbob", A1)]


def test_every_assignment_of_the_course_is_known(tmp_path, course):
    # The rules above use two assignments; every one of the course is taken in both ways.
    names = assignments()
    assert len(names) >= 6
    src = write(tmp_path / "subs", {f"jane/{a}/{a}.ipynb": notebook(a) for a in names})
    archive = make_zip(tmp_path / "flat.zip", [(f"bob_1_{a}.ipynb", notebook(a), T) for a in names])
    assert run(src, course)[0].assignments == names
    intake, _ = run(archive, course)
    assert intake.assignments == names and intake.problems == []
    assert all(p.read_bytes() == notebook(a) for _, a, p in intake.placed)


def test_what_intake_says_about_a_submission_is_kept_for_the_report(tmp_path):
    from grader.engine.intake import notes
    src = write(tmp_path / "subs", {f"bob/{A2}/my_attention.ipynb": notebook("bob")})
    course = tmp_path / "course"
    run(src, course)
    said = notes(course)[f"bob/{A2}"]
    assert said == [f"my_attention.ipynb: a renamed notebook: {A2} takes {NB2}, directly in its folder"]


def test_a_zip_bomb_is_refused_unread_and_named(tmp_path, course):
    """An entry that unpacks to more than a submitted file may hold (here 60 MiB of zeros in a 60 KiB zip)
    is named and refused without being decompressed; the rest of the class is taken in."""
    from grader.engine import intake
    path = tmp_path / "lms.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"bomb/{A1}/{NB1}", b"\0" * (60 * 2**20))
        z.writestr(f"ada/{A1}/{NB1}", notebook("ada"))
    assert path.stat().st_size < 2**20
    said = []
    result = take_in(path, course, say=said.append)
    assert any(f"bomb/{A1}/{NB1}" in line and "refused unread" in line for line in said), said
    assert ("ada", A1) in {(s, a) for s, a, _ in result.placed}
    assert not (course / "submitted" / "bomb" / A1 / NB1).exists()
    assert intake.MAX_FILE_BYTES < 60 * 2**20


def test_past_the_limit_in_all_the_rest_is_refused_unread(tmp_path, course, monkeypatch):
    from grader.engine import intake
    one = notebook("first")
    monkeypatch.setattr(intake, "MAX_TOTAL_BYTES", len(one) + 10)
    source = write(tmp_path / "class", {f"ada/{A1}/{NB1}": one, f"bob/{A1}/{NB1}": notebook("second")})
    said = []
    result = take_in(source, course, say=said.append)
    assert [s for s, _, _ in result.placed] == ["ada"]
    assert any(f"bob/{A1}/{NB1}" in line and "in all is the limit" in line for line in said), said


@pytest.mark.parametrize("name", ["*", "[c]tl_key", "ｃｔｌ＿ｋｅｙ", "cte\u0301l", '=HYPERLINK("evil.example","y")',
                                  "Robert'); DROP TABLE students;--", "-rf", "a" * 80])
def test_unsafe_student_ids_become_stable_safe_ids(tmp_path, course, name):
    """A glob pattern, a formula, SQL, full-width or combining letters: the id is data, never a pattern."""
    source = write(tmp_path / "class", {f"{name}/{A1}/{NB1}": notebook(name), f"ctl/{A1}/{NB1}": notebook("ctl")})
    intake, said = run(source, course)
    safe = safe_id(name)
    assert safe != name and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", safe) and safe == safe_id(name)
    assert sorted(s for s, _, _ in intake.placed) == sorted(["ctl", safe])
    assert (course / "submitted" / safe / A1 / NB1).read_bytes() == notebook(name)
    assert any(repr(name) in line and safe in line for line in said)
    assert json.loads((course / "logs" / "intake.json").read_text())[f"{safe}/{A1}"][0] == f"handed in as {name!r}"


def test_a_browsers_second_download_is_taken_when_it_is_the_only_notebook_of_its_name(tmp_path, course):
    src = write(tmp_path / "src", {
        f"ada/{A1}/{A1} (1).ipynb": notebook("ada"),                                   # the only one: taken
        f"bo/{A1}/{A1} (1).ipynb": notebook("bo 1"), f"bo/{A1}/{A1} (2).ipynb": notebook("bo 2"),  # which one?
        f"cy/{A1}/{NB1}": notebook("cy"), f"cy/{A1}/{A1} copy.ipynb": notebook("cy copy"),    # the right name is there
    })
    said = []
    got = take_in(src, course, say=said.append)
    submitted = course / "submitted"
    assert (submitted / "ada" / A1 / NB1).read_bytes() == notebook("ada")
    assert any(line.startswith("taken: ") and f"{A1} (1).ipynb" in line and f"taken as {NB1}" in line for line in said)
    assert not (submitted / "bo" / A1 / NB1).exists() and ("bo", A1) in got.empty
    assert sum(line.startswith("skipped: ") and "/bo/" in line for line in said) == 2
    assert (submitted / "cy" / A1 / NB1).read_bytes() == notebook("cy")
    assert any(line.startswith("skipped: ") and f"{A1} copy.ipynb" in line and "which is there too" in line for line in said)
