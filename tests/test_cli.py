"""The instructor's command line: bad input gets one clear line and a documented exit code, and leaves nothing half-made."""
import csv
import os
from datetime import datetime
import subprocess
import sys

import pytest

from grader.engine.grade import NOT_ALL_GRADED, NOTHING_TO_GRADE


def grader(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def test_an_empty_folder_is_one_clear_line_exit_2_and_no_course_directory(tmp_path):
    (tmp_path / "empty").mkdir()
    run = grader("grade", tmp_path / "empty", "--course", tmp_path / "course", "--unsandboxed")
    assert run.returncode == NOTHING_TO_GRADE, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert "no submission to grade" in run.stderr and "an empty folder" in run.stderr
    assert "<student>/<assignment>/<notebook>.ipynb" in run.stderr
    assert not (tmp_path / "course").exists()


def test_a_folder_in_the_wrong_layout_says_what_it_found(tmp_path):
    # Notebooks one level too high (student/notebook.ipynb, no assignment folder), and a stray file.
    folder = tmp_path / "class"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "01_self_attention.ipynb").write_text("{}")
    (folder / "notes.txt").write_text("hello")
    run = grader("grade", folder, "--course", tmp_path / "course", "--unsandboxed")
    assert run.returncode == NOTHING_TO_GRADE, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert "2 entries at its top (alice/, notes.txt)" in run.stderr
    assert not (tmp_path / "course").exists()


def test_a_course_directory_that_existed_is_left_in_place(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "keep.txt").write_text("graded before")
    run = grader("grade", tmp_path / "empty", "--course", tmp_path / "course", "--unsandboxed")
    assert run.returncode == NOTHING_TO_GRADE
    assert (tmp_path / "course" / "keep.txt").read_text() == "graded before"


@pytest.mark.parametrize("option, value, said", [("--workers", "0", "must be 1 or more"),
                                                  ("--workers", "-2", "must be 1 or more"),
                                                  ("--timeout", "0", "must be 1 or more"),
                                                  ("--workers", "two", "not a whole number")])
def test_a_bad_option_value_is_an_argparse_error_naming_the_option(tmp_path, option, value, said):
    run = grader("grade", tmp_path, option, value)
    assert run.returncode == 2
    assert f"argument {option}" in run.stderr and said in run.stderr
    assert "Traceback" not in run.stderr


def test_the_grade_table_cannot_overwrite_nbgrader_exports_file(tmp_path):
    (tmp_path / "class").mkdir()
    run = grader("grade", tmp_path / "class", "--course", tmp_path / "course", "--csv", tmp_path / "course" / "grades.csv")
    assert run.returncode == NOTHING_TO_GRADE
    assert "nbgrader export" in run.stderr
    assert not (tmp_path / "course").exists()


def test_a_notebook_that_cannot_be_graded_makes_the_exit_code_non_zero_and_is_named(tmp_path):
    folder = tmp_path / "class" / "bob" / "01_self_attention"
    folder.mkdir(parents=True)
    (folder / "01_self_attention.ipynb").write_text("this is not a notebook")
    run = grader("grade", tmp_path / "class", "--course", tmp_path / "course", "--unsandboxed")
    assert run.returncode == NOT_ALL_GRADED, run.stdout[-2000:] + run.stderr[-2000:]
    assert "could not be graded" in run.stderr and "bob / 01_self_attention" in run.stderr
    assert (tmp_path / "course" / "report" / "index.html").exists()  # what was graded is kept and reported
    # stderr is a pipe here, not a terminal: progress is plain lines, one per stage and every few seconds
    assert "\r" not in run.stderr
    import re
    lines = [line[len("grade: "):line.rindex(" (")] for line in run.stderr.splitlines()
             if line.startswith("grade: ") and line.endswith(" s)")]
    stages = [re.sub(r": \d+ of \d+ notebooks run$", "", line) for line in lines]
    assert stages[0].startswith("releasing 01_self_attention (assignment 1 of 1"), stages
    assert stages[-1] == "recorded (1 of 1 assignments)" and stages.count(stages[-1]) == 1, stages
    assert any(s.startswith("planning 01_self_attention (assignment 1 of 1") for s in stages) and "running" in stages
    assert not any("0 of 0 notebooks" in line for line in lines), lines  # nothing planned yet: no count


def test_version_and_help_say_what_each_command_does():
    run = grader("--version")
    assert run.returncode == 0 and run.stdout.startswith("python -m grader ") and "unknown" not in run.stdout
    run = grader("--help")
    for command in ("build", "grade", "report", "export", "diagnose-report"):
        assert f"\n  {command} " in run.stdout
    assert "examples:" in run.stdout and "exit codes" in run.stdout


def test_formgrader_finds_the_source_inside_the_course_directory(tmp_path):
    """Formgrader links an assignment to its source relative to the server's root (the course directory):
    the course's source/ is a link to the repository's, so the link stays inside the root."""
    from grader.engine.build import SOURCE
    from grader.engine.grade import ensure_released, prepare
    course = tmp_path / "course"
    prepare(course)
    ensure_released(course, "02_scaled_attention")
    assert (course / "source").resolve() == SOURCE
    # What formgrader's manage-assignments page links to, read through nbgrader's own config loading
    ask = ("from nbgrader.apps.nbgraderapp import NbGraderApp; from nbgrader.apps.api import NbGraderAPI; "
           "from nbgrader.coursedir import CourseDirectory; app = NbGraderApp(); app.load_config_file(); "
           "print(NbGraderAPI(CourseDirectory(config=app.config), config=app.config)"
           ".get_assignment('02_scaled_attention')['source_path'])")
    run = subprocess.run([sys.executable, "-c", ask], cwd=course, capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "source/02_scaled_attention", run.stderr[-2000:]
    prepare(course)  # preparing again keeps the link
    assert (course / "source").is_symlink()


def test_a_source_changed_since_the_last_release_is_released_again_and_an_unchanged_one_is_not(tmp_path, monkeypatch):
    """A course directory releases an assignment into its gradebook once per version of its source: a
    maintainer who changes a test cell's points (or fixes a test) and grades again grades with the change."""
    import shutil
    import nbformat
    from nbgrader.api import Gradebook
    from grader.engine import grade
    source = tmp_path / "source"
    shutil.copytree(grade.SOURCE / "02_scaled_attention", source / "02_scaled_attention")
    monkeypatch.setattr(grade, "SOURCE", source)
    calls = []
    real = grade.nbgrader
    monkeypatch.setattr(grade, "nbgrader", lambda course, *args, **kw: calls.append(args[:2]) or real(course, *args, **kw))
    course = tmp_path / "course"
    grade.prepare(course)

    def points():
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            return {c.name: c.max_score for nb in gb.find_assignment("02_scaled_attention").notebooks
                    for c in nb.grade_cells}

    grade.ensure_released(course, "02_scaled_attention")
    assert calls == [("generate_assignment", "02_scaled_attention")]
    calls.clear()
    before = points()
    path = source / "02_scaled_attention" / "02_scaled_attention.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    part = next(c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
                and not c.metadata["nbgrader"].get("solution"))
    part.metadata.nbgrader["points"] = before[part.metadata.nbgrader["grade_id"]] + 5
    grade.ensure_released(course, "02_scaled_attention")  # the same gradebook, as a second grading run has
    assert calls == []  # unchanged: not released again
    nbformat.write(nb, str(path))
    grade.ensure_released(course, "02_scaled_attention")
    after = points()
    assert after == {**before, part.metadata.nbgrader["grade_id"]: before[part.metadata.nbgrader["grade_id"]] + 5}
    assert calls == [("generate_assignment", "02_scaled_attention")]
    grade.ensure_released(course, "02_scaled_attention")
    assert len(calls) == 1


def _hand_in(folder, student, notebook):
    """A student's 02 as the given notebook of the repository (release/: untouched; solutions/: the answer key)."""
    from grader.engine.build import ROOT
    a = "02_scaled_attention"
    (folder / student / a).mkdir(parents=True, exist_ok=True)
    (folder / student / a / f"{a}.ipynb").write_bytes((ROOT / notebook / a / f"{a}.ipynb").read_bytes())


def test_a_dry_run_says_where_each_file_goes_and_runs_nothing(tmp_path):
    folder = tmp_path / "class"
    _hand_in(folder, "ada", "release")
    (folder / "bo" / "02_scaled_attention").mkdir(parents=True)
    (folder / "bo" / "02_scaled_attention" / "renamed.ipynb").write_text("{}")
    run = grader("grade", folder, "--course", tmp_path / "course", "--dry-run")
    assert run.returncode == 0, run.stderr
    assert "would grade: ada / 02_scaled_attention / 02_scaled_attention.ipynb: 2 autograded parts" in run.stdout
    assert "would score 0: bo / 02_scaled_attention" in run.stdout
    assert "a renamed notebook" in run.stdout
    assert not (tmp_path / "course").exists()


def test_grading_some_students_leaves_the_others_grades_as_they_were(tmp_path):
    from grader.engine.report import collect
    folder = tmp_path / "class"
    _hand_in(folder, "ada", "release")
    _hand_in(folder, "bo", "release")
    table = tmp_path / "grade_table.csv"
    first = grader("grade", folder, "--course", tmp_path / "course", "--csv", table)
    assert first.returncode == 0, first.stderr[-2000:]
    before = table.read_text().splitlines()
    _hand_in(folder, "ada", "solutions")  # both now hand in the answer key; only bo is regraded
    _hand_in(folder, "bo", "solutions")
    again = grader("grade", folder, "--course", tmp_path / "course", "--student", "bo", "--csv", table)
    assert again.returncode == 0, again.stderr[-2000:]
    # The class's grade table keeps ada's rows as they were and has bo's new ones.
    after = table.read_text().splitlines()
    assert len(after) == len(before)
    assert [line for line in after if ",ada," in line] == [line for line in before if ",ada," in line]
    assert [line for line in after if ",bo," in line] != [line for line in before if ",bo," in line]
    scores = {}
    for r in collect(tmp_path / "course"):
        if not r["needs_manual_grade"]:
            scores[r["student_id"]] = scores.get(r["student_id"], 0) + r["part_score"]
    assert scores["ada"] == 0 and scores["bo"] > 0, scores
    assert "\nada " not in again.stdout  # the grade table holds the students graded in this run
    report = grader("report", tmp_path / "course", "--out", tmp_path / "report")  # the README's report command
    assert report.returncode == 0 and "<td>ada</td>" in (tmp_path / "report" / "index.html").read_text()


def test_due_dates_and_the_late_penalty_come_from_the_course_directorys_deadlines_file(tmp_path):
    from grader.engine.report import collect
    folder, course = tmp_path / "class", tmp_path / "course"
    for student, handed_in in (("early", "2026-01-30 09:00:00 UTC"), ("late", "2026-02-02 09:00:00 UTC"),
                               ("backdated", "2026-01-30 09:00:00 UTC")):
        _hand_in(folder, student, "solutions")
        (folder / student / "02_scaled_attention" / "timestamp.txt").write_text(handed_in)
        saved = {"backdated": "2026-02-03 09:00:00"}.get(student, handed_in[:19])  # when the notebook was saved
        seconds = datetime.fromisoformat(saved + "+00:00").timestamp()
        os.utime(folder / student / "02_scaled_attention" / "02_scaled_attention.ipynb", (seconds, seconds))
    _hand_in(folder, "untimed", "solutions")  # no timestamp.txt: its lateness cannot be judged, and is said so
    course.mkdir()
    (course / "deadlines.toml").write_text('penalty = "zero"\n[due]\n02_scaled_attention = "2026-02-01 17:00:00 UTC"\n')
    run = grader("grade", folder, "--course", course)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = {r["student_id"]: r for r in collect(course)}
    assert str(rows["late"]["duedate"]).startswith("2026-02-01 17:00")
    assert rows["early"]["late_submission_penalty"] == 0 and rows["early"]["score"] == rows["early"]["raw_score"] > 0
    assert rows["late"]["raw_score"] > 0 and rows["late"]["score"] == 0  # "zero": a late submission scores 0
    # One score everywhere: the printed table and the HTML report give the late student 0 too.
    table = {line.split()[0]: line.split() for line in run.stdout.splitlines() if line.split()[:1] in (["early"], ["late"])}
    assert table["late"][-2] == "0" and float(table["early"][-2]) == rows["early"]["raw_score"]
    assert "late, nbgrader's penalty taken from the auto total: late (-" in run.stdout
    page = (course / "report" / "index.html").read_text()
    assert "<tr><td>late</td><td>0/5, late (-" in page and "<tr><td>early</td><td>5/5" in page
    # A time in doubt is flagged in the table, the report and grades.csv, and counts as deadlines.toml says
    # (by default as the student's timestamp.txt says, or on time without one).
    assert "lateness flagged: untimed / 02_scaled_attention: no timestamp.txt came with it; counted on time" in run.stdout
    assert "lateness flagged: backdated / 02_scaled_attention: its timestamp.txt says 2026-01-30 09:00 UTC, but the " \
           "notebook is from 2026-02-03 09:00 UTC" in run.stdout
    assert "early /" not in run.stdout and "late / 02" not in run.stdout.replace("lateness", "")
    assert "Lateness flagged" in page and "untimed / 02_scaled_attention" in page and "backdated" in page
    csv_rows = list(csv.DictReader(open(course / "report" / "grades.csv")))
    assert {r["student_id"] for r in csv_rows if r["lateness"]} == {"untimed", "backdated"}
    assert rows["backdated"]["score"] == rows["backdated"]["raw_score"] > 0  # unproven = "on time", the default
    # unproven = "late": the backdated hand-in counts at its notebook's time, the untimed one late
    (course / "deadlines.toml").write_text('penalty = "zero"\nunproven = "late"\n'
                                           '[due]\n02_scaled_attention = "2026-02-01 17:00:00 UTC"\n')
    run = grader("grade", folder, "--course", course)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = {r["student_id"]: r for r in collect(course)}
    assert rows["backdated"]["score"] == rows["untimed"]["score"] == 0 and rows["early"]["score"] > 0
    # The logs this project writes hold nbgrader's messages, not SQLAlchemy's autoflush notes
    logs = "".join(p.read_text() for p in (course / "logs").glob("*.log"))
    assert "autograde" in logs and "SAWarning" not in logs


@pytest.mark.parametrize("text, said", [('penalty = "half"\n', "penalty = 'half'"),
                                        ('[due]\n02_scaled_attention = "next friday"\n', "[due] 02_scaled_attention"),
                                        ('[due]\n99_nothing = "2026-12-01 17:00:00 UTC"\n', "not an assignment"),
                                        ('due = [\n', "not TOML")])
def test_a_deadlines_file_that_cannot_be_used_is_named_before_anything_is_graded(tmp_path, text, said):
    (tmp_path / "class").mkdir()
    _hand_in(tmp_path / "class", "ada", "release")
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "deadlines.toml").write_text(text)
    run = grader("grade", tmp_path / "class", "--course", tmp_path / "course")
    assert run.returncode == NOTHING_TO_GRADE
    assert "deadlines.toml" in run.stderr and said in run.stderr, run.stderr
    assert not (tmp_path / "course" / "gradebook.db").exists()


@pytest.mark.parametrize("command", [["nbgrader", "validate", "release/02_scaled_attention/02_scaled_attention.ipynb"],
                                     ["python", "-m", "grader.engine.sandbox_check"]])
def test_kernels_this_project_starts_use_local_sockets_so_no_unencrypted_tcp_warning(command):
    from pathlib import Path
    from grader.engine.build import ROOT
    program = str(Path(sys.executable).with_name(command[0])) if command[0] == "nbgrader" else sys.executable
    run = subprocess.run([program, *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert "You did not provide a response" in run.stdout + run.stderr or "sandbox available" in run.stdout, \
        run.stdout[-1000:] + run.stderr[-1000:]  # the command ran its kernels
    assert "without encryption" not in run.stdout + run.stderr


def test_grading_a_student_who_is_not_there_says_so_and_names_close_ones(tmp_path):
    folder = tmp_path / "class"
    for student in ("ada", "bob"):
        (folder / student / "01_self_attention").mkdir(parents=True)
        (folder / student / "01_self_attention" / "01_self_attention.ipynb").write_text("{}")
    run = grader("grade", folder, "--course", tmp_path / "course", "--student", "adb")
    assert run.returncode == NOTHING_TO_GRADE
    assert "no submission of adb there (close names: ada)" in run.stderr, run.stderr
    assert "the lines above say why" not in run.stderr


def test_a_report_of_a_folder_that_is_not_a_course_is_refused(tmp_path):
    (tmp_path / "not_a_course").mkdir()
    run = grader("report", tmp_path / "not_a_course")
    assert run.returncode == 2 and "no gradebook.db there" in run.stderr, run.stderr
    assert not (tmp_path / "not_a_course" / "report").exists()
