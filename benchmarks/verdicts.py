"""What the verdicts cost in the recording process: a course directory graded before is marked again, in this
process, from the outputs its kernels left in <course>/executed, and the CPU seconds a notebook of the probes
(InjectProbes: inputs drawn, probe sources written) and of the verdicts (SealVerdicts) are printed by assignment.

    python -m benchmarks.verdicts COURSE [--students student001,student002] [--assignments 07_attention_backprop]
                                         [--out verdicts.json]

COURSE is a course directory this grader graded (benchmarks.grade_class writes one: OUT/parallel), with the grading
seed it used: COURSE_GRADING_SEED as it was then (grade_class prints it), or the course's own .grading_secret. The
judgement runs (a part wrong as the notebook runs it, marked again with the course's helpers in a kernel of its own)
are not made: every part is marked as the notebook ran it, so each wrong part's first-wrong-step search runs, as
for a part whose helpers are right. That is the most verdict work a class can ask of the recording process. The
judgement runs the verdicts ask for are counted: the kernels a grading run of this code would start for them.

--out writes every verdict (student/assignment/part: score, message, ...) as JSON: two runs of different code on
the same course must write the same file, when the change is meant to be a speed-up only.
"""
import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.verdicts")
    parser.add_argument("course", type=Path)
    parser.add_argument("--students", default="", help="comma-separated (default: every student graded)")
    parser.add_argument("--assignments", default="", help="comma-separated (default: every assignment graded)")
    parser.add_argument("--out", type=Path, help="write the verdicts here, as JSON")
    args = parser.parse_args(argv)

    import nbformat
    from grader.engine import nbgrader_plugin as plugin

    course = args.course.resolve()
    if not (course / "executed").is_dir() or not (course / "autograded").is_dir():
        parser.error(f"{course}: no executed/ and autograded/ folders: give a course directory this grader graded")
    if not os.environ.get(plugin.SEED_VARIABLE) and not (course / plugin.SECRET_FILE).exists():
        parser.error(f"{course}: set {plugin.SEED_VARIABLE} to the grading seed the course was graded with "
                     "(it has no grading secret of its own)")
    # The judgement runs are not made (see the module's docstring): every part is marked as the notebook ran it.
    # Each is counted: a kernel a grading run would start, for these parts.
    kernels = []  # [((student, assignment, notebook), the parts judged in it)]

    def judge(self, ran, judgements, resources):
        info = resources["nbgrader"]
        kernels.append(((info["student"], info["assignment"], info["notebook"]), tuple(judgements)))
        return {part: [] for part in judgements}  # outputs with no report: marked as the notebook ran it
    plugin.SealVerdicts.judge = judge

    students = set(filter(None, args.students.split(",")))
    assignments = set(filter(None, args.assignments.split(",")))
    seconds = collections.defaultdict(lambda: [0, 0.0, 0.0])  # assignment -> [notebooks, probes, verdicts]
    verdicts = {}
    for path in sorted(course.glob("autograded/*/*/*.ipynb")):
        student, assignment, notebook = path.parent.parent.name, path.parent.name, path.stem
        executed = Path(plugin.cache_path(course, student, assignment, notebook))
        if (students and student not in students) or (assignments and assignment not in assignments) \
                or not executed.exists():
            continue
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            cell.metadata.pop("course", None)  # the verdict recorded then
        resources = {"nbgrader": {"notebook": notebook, "student": student, "assignment": assignment,
                                  "db_url": f"sqlite:///{course / 'gradebook.db'}"}}
        start = time.process_time()
        nb, resources = plugin.InjectProbes().preprocess(nb, resources)
        probed = time.process_time()
        ran = nbformat.reads(executed.read_text(encoding="utf-8"), as_version=4)
        for cell, done in zip(nb.cells, ran.cells):
            if cell.cell_type == "code":
                cell.outputs = done.outputs
        read = time.process_time()
        nb, resources = plugin.SealVerdicts().preprocess(nb, resources)
        end = time.process_time()
        row = seconds[assignment]
        row[0] += 1
        row[1] += probed - start
        row[2] += end - read
        for cell in nb.cells:
            if "verdict" in cell.metadata.get("course", {}):
                verdicts[f"{student}/{assignment}/{cell.metadata.nbgrader['grade_id']}"] = cell.metadata.course.verdict
    if not seconds:
        parser.error(f"{course}: no notebook graded there matches --students and --assignments")

    print(f"{'assignment':32}{'notebooks':>10}{'probes CPU-s a nb':>19}{'verdicts CPU-s a nb':>21}")
    for assignment, (n, probes, marked) in sorted(seconds.items()):
        print(f"{assignment:32}{n:>10}{probes / n:>19.3f}{marked / n:>21.3f}")
    n = sum(r[0] for r in seconds.values())
    print(f"{'all':32}{n:>10}{sum(r[1] for r in seconds.values()) / n:>19.3f}"
          f"{sum(r[2] for r in seconds.values()) / n:>21.3f}")
    print(f"judgement runs a grading run would make: {len(kernels)} kernels, for {sum(len(p) for _, p in kernels)} "
          f"parts (a kernel each, or one shared), in {len({k for k, _ in kernels})} of {n} notebooks")
    if args.out:
        args.out.write_text(json.dumps(verdicts, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
        print(f"{len(verdicts)} verdicts -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
