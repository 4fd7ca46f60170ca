"""Grade the held-out wrong answers (tests/heldout/entries.py) and write what the grader said, for judging by hand.

    python -m tests.heldout.grade OUT_DIR [--round 2|3|4|5|6|7|8|9|10|11|12|attacks] [--only NAME ...]

Each entry is notebook NN's answer key with one TODO cell replaced by the entry's source, handed in by a
student named after the entry. They are graded together by `python -m grader grade`'s own function, in
sandboxed kernels, with a fixed grading seed (the same fresh inputs on every run), and OUT_DIR/verdicts.md
gets, per entry, its true cause and every part that lost marks with the verdict's words. Judge each
verdict against the true cause (accurate / partial / symptom / misdirected / full marks) in
tests/heldout/judged.md; the closing note and the README report the table. --round 2 grades the second set
(tests/heldout/round2.py), written later the same way, against a grader the first set had already shaped;
--round 3 the third (tests/heldout/round3.py), against a grader both had shaped; --round 4 the fourth
(tests/heldout/round4.py), against a grader all three had shaped; --round 5 the fifth (tests/heldout/round5*.py),
--round 6 the sixth (tests/heldout/round6.py), --round 7 the seventh (tests/heldout/round7.py), --round 8 the eighth
(tests/heldout/round8a.py and round8b.py, by two people), --round 9 the ninth (round9a.py and round9b.py, by two
people), --round 10 the tenth (round10a.py and round10b.py, by two people), --round 11 the eleventh (round11a.py and
round11b.py, by two people), --round 12 the twelfth (round12a.py and round12b.py, by two people), --round 13 the
thirteenth (round13a.py and round13b.py, by two people), --round 14 the fourteenth (round14a.py and round14b.py, by
two people), --round 15 the fifteenth (round15a.py and round15b.py, by two people).
--round attacks grades the attempts to game the grader (tests/heldout/attacks*.py): the verdicts.md lists each
attempt's parts with their scores, and every attacked part must score nothing.
"""
import argparse
import os
import shutil
from pathlib import Path

import nbformat

from grader.engine.grade import grade_class
from grader.engine.nbgrader_plugin import SEED_VARIABLE
from tests.heldout import attacks, attacks2, attacks3, attacks4, attacks5, attacks6, attacks7, attacks8
from tests.heldout import entries as round1, round2, round3, round4, round5_early
from tests.heldout import round5_late, round6, round7, round8a, round8b, round9a, round9b, round10a, round10b
from tests.heldout import round11a, round11b, round12a, round12b, round13a, round13b, round14a, round14b
from tests.heldout import round15a, round15b
from tests.sample_class import submission
from tests.students import Student

SEED = "20261125"


def entries_of_round(number):
    return {"1": round1.ENTRIES, "2": round2.ENTRIES, "3": round3.ENTRIES, "4": round4.ENTRIES,
            "5": round5_early.ENTRIES + round5_late.ENTRIES,
            "6": round6.ENTRIES, "7": round7.ENTRIES, "8": round8a.ENTRIES + round8b.ENTRIES,
            "9": round9a.ENTRIES + round9b.ENTRIES, "10": round10a.ENTRIES + round10b.ENTRIES,
            "11": round11a.ENTRIES + round11b.ENTRIES, "12": round12a.ENTRIES + round12b.ENTRIES,
            "13": round13a.ENTRIES + round13b.ENTRIES, "14": round14a.ENTRIES + round14b.ENTRIES,
            "15": round15a.ENTRIES + round15b.ENTRIES,
            "attacks": (attacks.ENTRIES + attacks2.ENTRIES + attacks3.ENTRIES + attacks4.ENTRIES
                        + attacks5.ENTRIES + attacks6.ENTRIES + attacks7.ENTRIES + attacks8.ENTRIES)}[str(number)]


def write(folder, entries):
    for e in entries:
        path = folder / e.name / e.assignment / f"{e.assignment}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(submission(Student(e.assignment, {}, cells={e.cell: e.source})), str(path))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.heldout.grade")
    parser.add_argument("out")
    parser.add_argument("--round", default="1",
                        choices=tuple(str(n) for n in range(1, 16)) + ("attacks",))
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    shutil.rmtree(out, ignore_errors=True)
    entries = [e for e in entries_of_round(args.round) if not args.only or e.name in args.only]
    write(out / "submissions", entries)
    os.environ[SEED_VARIABLE] = SEED
    rows = grade_class(out / "submissions", out / "course", say=lambda *a: None, progress=False)
    lines = []
    for e in entries:
        mine = [r for r in rows if r["student_id"] == e.name and not r["needs_manual_grade"]]
        lost = [r for r in mine if r["part_score"] < r["part_max_score"] or args.round == "attacks"]
        lines.append(f"## {e.name} ({e.assignment}, {e.cell})\n\ntrue cause: {e.cause}\n")
        if not lost:
            lines.append("- FULL MARKS\n")
        for r in lost:
            lines.append(f"- {r['part']} {r['part_score']:g}/{r['part_max_score']:g} [{r['finding'] or '-'}] "
                         f"{r['verdict']}")
        lines.append("")
    (out / "verdicts.md").write_text("\n".join(lines))
    print(f"{len(entries)} entries graded: {out / 'verdicts.md'}")


if __name__ == "__main__":
    main()
