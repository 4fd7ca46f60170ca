"""The recording processes (grader/engine/record.py): nbgrader's gradebook opened on one engine a process."""
import sqlite3
import subprocess
import sys
from pathlib import Path

from grader.engine.grade import create_gradebook

ROOT = Path(__file__).resolve().parents[1]

# Run in a child: keep_gradebook_engines changes nbgrader's Gradebook for the whole process it runs in.
CHILD = """
import sqlite3
import sys
from nbgrader.api import Gradebook
from grader.engine import record
url = sys.argv[1]
if sys.argv[2] == "kept":
    record.keep_gradebook_engines()
    record.keep_gradebook_engines()  # a second call changes nothing
with Gradebook(url, course_id="c") as first:
    first.add_student("s1", first_name="One")
    engine = first.engine
with Gradebook(url, course_id="c") as second:
    assert [s.id for s in second.students] == ["s1"]
    second.add_student("s2")
    print("same engine" if second.engine is engine else "new engine")
    print("cached statements", len(second.engine._compiled_cache))
    # what the Gradebooks wrote is committed and unlocked: another connection writes at once, with no wait
    other = sqlite3.connect(url.removeprefix("sqlite:///"), timeout=0)
    other.execute("insert into student (id, first_name) values ('s3', 'Three')")
    other.commit()
with Gradebook(url, course_id="c") as third:
    print("students", sorted(s.id for s in third.students))
"""


def _child(path, mode):
    out = subprocess.run([sys.executable, "-c", CHILD, f"sqlite:///{path}", mode], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_a_recording_process_opens_each_gradebook_on_one_engine_and_reads_and_writes_as_nbgrader(tmp_path):
    create_gradebook(tmp_path / "kept.db")
    create_gradebook(tmp_path / "stock.db")
    kept, stock = _child(tmp_path / "kept.db", "kept"), _child(tmp_path / "stock.db", "stock")
    assert kept[0] == "same engine" and stock[0] == "new engine"
    assert int(kept[1].split()[-1]) > 0  # the first opening's compiled queries serve the next ones
    assert kept[2:] == stock[2:] == ["students ['s1', 's2', 's3']"]
    for path in ("kept.db", "stock.db"):  # everything committed, as the other process sees it
        rows = sqlite3.connect(tmp_path / path).execute("select id, first_name from student order by id").fetchall()
        assert rows == [("s1", "One"), ("s2", None), ("s3", "Three")]
