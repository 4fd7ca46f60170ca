"""The class report: what every student scored on every part, which mistakes were named, who could not be graded.

    python -m grader report COURSE_DIR [--out DIR]

Reads the gradebook and the autograded notebooks of a course directory (the
verdicts are in each test cell's metadata) and writes, by default to
COURSE_DIR/report/:
    grades.csv    a row per student and part: nbgrader export's columns, then the part's
    index.html    score histograms, pass rate per part, the most frequent named mistakes,
                  and the notebooks that could not be graded and why
"""
import csv
import html
import re
import sys
from collections import Counter
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from . import deadlines, intake
from .protocol import NOT_ATTEMPTED

EXPORT_COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
                  "raw_score", "late_submission_penalty", "score", "max_score"]  # as `nbgrader export` writes them
PART_COLUMNS = ["notebook", "part", "part_score", "part_max_score", "needs_manual_grade", "mistake", "finding", "verdict",
                "lateness",  # what was found about when it was handed in (deadlines.decide), when it is in doubt
                "restored"]  # the cells graded as handed out where the notebook differed (RestoreFromRelease)


def _verdicts(path):
    """{grade_id: verdict} from an autograded notebook's test cells."""
    if not path.exists():
        return {}
    nb = nbformat.read(str(path), as_version=4)
    out = {}
    for c in nb.cells:
        verdict, grading = c.metadata.get("course", {}), c.metadata.get("nbgrader", {})
        verdict = verdict.get("verdict") if isinstance(verdict, dict) else None
        # A verdict is the grader's only on a graded test cell (SealVerdicts writes no other), and only as it writes it.
        if c.cell_type == "code" and isinstance(grading, dict) and grading.get("grade") and not grading.get("solution") \
                and isinstance(verdict, dict) and isinstance(verdict.get("message"), str):
            out[str(grading.get("grade_id"))] = {k: verdict.get(k) for k in ("score", "points", "mistake", "message", "finding")
                                                 if verdict.get(k) is None or isinstance(verdict.get(k), (str, int, float))}
    return out


def _restored(path):
    """What the grader put back as handed out in an autograded notebook (its generated note), or ""."""
    from .nbgrader_plugin import RESTORED, RESTORED_NOTE
    if not path.exists():
        return ""
    for c in nbformat.read(str(path), as_version=4).cells[:1]:
        course = c.metadata.get("course")
        if c.cell_type == "markdown" and isinstance(course, dict) and course.get("generated") == RESTORED:
            return c.source.removeprefix(RESTORED_NOTE).rstrip(".")
    return ""


def _answer_as_handed_out(grade):
    """A written answer nbgrader scored 0 itself because its cell is as released (unchanged checksum):
    nobody graded it, and 0 would read as a grade."""
    return (grade.cell_type == "markdown" and grade.auto_score == 0 and grade.manual_score is None
            and not grade.needs_manual_grade)


def collect(course):
    """A row per student, assignment and graded part, from the gradebook and the verdicts."""
    course = Path(course)
    rows = []
    doubts = deadlines.flags(course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment in sorted(gb.assignments, key=lambda a: a.name):
            for student in sorted(gb.students, key=lambda s: s.id):
                try:
                    sub = gb.find_submission(assignment.name, student.id)
                except MissingEntry:
                    continue
                export = {
                    "assignment": assignment.name, "duedate": assignment.duedate, "timestamp": sub.timestamp,
                    "student_id": student.id, "last_name": student.last_name, "first_name": student.first_name,
                    "email": student.email, "raw_score": sub.score, "late_submission_penalty": sub.late_submission_penalty,
                    "score": sub.score - sub.late_submission_penalty, "max_score": sub.max_score,
                }
                for nb in sub.notebooks:
                    graded = course / "autograded" / student.id / assignment.name / f"{nb.name}.ipynb"
                    verdicts, restored = _verdicts(graded), _restored(graded)
                    for grade in nb.grades:
                        verdict = verdicts.get(grade.name, {})
                        if _answer_as_handed_out(grade):
                            verdict = {"finding": NOT_ATTEMPTED, "message": f"{NOT_ATTEMPTED}: the answer is as it was "
                                                                            "handed out"}
                        rows.append(dict(export, notebook=nb.name, part=grade.name, part_score=grade.score,
                                         part_max_score=grade.max_score, needs_manual_grade=grade.needs_manual_grade,
                                         mistake=verdict.get("mistake") or "", verdict=verdict.get("message", ""),
                                         finding=verdict.get("finding") or "",
                                         lateness=doubts.get(f"{student.id}/{assignment.name}", "")
                                         if assignment.duedate else "", restored=restored))
    return rows


DIAGNOSED = {"named": "a named mistake", "step": "the first wrong step", "structural": "a structural finding",
             "helper": "a helper's mistake",
             "precision": "short of the precision asked for", "syntax": "a syntax error in the cell",
             "unfinished": "a cell that stopped before its end", "undefined": "its function not defined"}


def diagnosis_coverage(rows):
    """How the parts that lost marks were explained: {kind: count}, kinds as in Verdict.finding
    ("reported": an error or a shape with no cause; "none": wrong values and nothing more)."""
    counts = Counter()
    for r in rows:
        if r["needs_manual_grade"] or r["part_score"] >= r["part_max_score"] or not r.get("verdict") \
                or r.get("finding") == NOT_ATTEMPTED:  # a placeholder left as it was: nothing to diagnose
            continue
        counts[r.get("finding") or "none"] += 1
    return counts


def _found(counts):
    """What the grader found by looking at the result or the cell, without a name: the "found" column."""
    return sum(counts[kind] for kind in ("step", "structural", "precision", "syntax", "unfinished", "undefined"))


def print_diagnosis_report(course, show=True):
    """Print, per notebook and in all, how many parts that lost marks got a diagnosis; returns the counts."""
    rows = collect(course)
    total = diagnosis_coverage(rows)
    lost = sum(total.values())
    print(f"{'notebook':32} {'lost marks':>10} {'named':>6} {'found':>6} {'helper':>7} {'no cause':>9}")
    for notebook in sorted({r["notebook"] for r in rows}):
        c = diagnosis_coverage([r for r in rows if r["notebook"] == notebook])
        print(f"{notebook:32} {sum(c.values()):>10} {c['named']:>6} {_found(c):>6} {c['helper']:>7} "
              f"{c['reported'] + c['none']:>9}")
    diagnosed = sum(total[k] for k in DIAGNOSED)
    print(f"{'all':32} {lost:>10} {total['named']:>6} {_found(total):>6} {total['helper']:>7} "
          f"{total['reported'] + total['none']:>9}")
    if lost:
        print(f"diagnosed: {diagnosed} of {lost} parts that lost marks ({100 * diagnosed / lost:.0f}%): "
              f"{total['named']} named, {total['step']} the first wrong step, {total['structural']} structural, "
              f"{total['precision']} short of the "
              f"precision asked for, {total['syntax']} a syntax error, {total['helper']} a helper's mistake")
    print(f"not attempted (answer cells as handed out, left out above): "
          f"{sum(r.get('finding') == NOT_ATTEMPTED for r in rows)} parts")
    kept = sum(1 for r in rows if r.get("finding") == "helper" and r["part_score"] >= r["part_max_score"])
    print(f"marked with the course's helper in place of a wrong one of the student's, and right: {kept} parts")
    if show:
        for r in rows:
            if r.get("verdict") and not r["needs_manual_grade"] and r["part_score"] < r["part_max_score"] \
                    and (r.get("finding") or "none") not in DIAGNOSED and r.get("finding") != NOT_ATTEMPTED:
                print(f"  no cause: {r['student_id']} {r['part']}: {r['verdict'][:160]}")
    return total


def ungraded(course):
    """(student, assignment, reason) for every submission that has no autograded notebook."""
    course = Path(course)
    out = []
    for folder in sorted((course / "submitted").glob("*/*")):
        student, assignment = folder.parent.name, folder.name
        missing = [p.name for p in folder.glob("*.ipynb")
                   if not (course / "autograded" / student / assignment / p.name).exists()]
        if not any(folder.glob("*.ipynb")):
            said = intake.notes(course).get(f"{student}/{assignment}", [])
            out.append((student, assignment, "no notebook handed in under the assignment's name (scored 0)"
                        + "".join(f"; {s}" for s in said)))
        elif missing:
            # a file nbformat cannot read: say what is wrong with it rather than nbgrader's traceback
            why = next(filter(None, (intake.unreadable((folder / name).read_bytes()) for name in missing)), None)
            out.append((student, assignment, why or _reason(course, student, assignment)))
    return out


def _reason(course, student, assignment):
    """The error nbgrader logged for this submission, in one line."""
    log = course / "logs" / f"autograde_{assignment}.log"
    if not log.exists():
        return "not autograded yet"
    # nbgrader's log has a section per student, each opened by this line; the student's error is in theirs.
    sections = re.split(r"^.*Creating/updating student with ID '(.*?)'.*$", log.read_text(errors="replace"),
                        flags=re.M)
    mine = [text for sid, text in zip(sections[1::2], sections[2::2]) if sid == student]
    if not mine:
        return "no notebook nbgrader could read"
    errors = re.findall(r"^\s*([A-Za-z_.]*(?:Error|Exception)): (.+)$", mine[-1], re.M)
    return f"{errors[-1][0]}: {errors[-1][1][:200]}" if errors else "nbgrader could not grade it (see the log)"


def inert(value):
    """A CSV cell a spreadsheet shows as text: one that starts as a formula would (=, +, -, @, a tab or a
    carriage return) gets a leading apostrophe (OWASP's rule for CSV injection). Numbers stay numbers."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def write_csv(rows, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=EXPORT_COLUMNS + PART_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows({k: inert(v) for k, v in row.items()} for row in rows)


def _plots(rows, out):
    """The three pictures: score histograms, pass rate per part, named mistakes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    assignments = sorted({r["assignment"] for r in rows})
    auto = [r for r in rows if not r["needs_manual_grade"] and r["part"].startswith("test_")]
    files = {}

    # At most three histograms a row: the image stays under 1000 px wide, inside the page.
    columns = min(3, len(assignments))
    rows_of_plots = -(-len(assignments) // columns)
    fig, axes = plt.subplots(rows_of_plots, columns, figsize=(3.2 * columns, 2.8 * rows_of_plots), squeeze=False)
    for ax in axes.flat[len(assignments):]:
        ax.set_visible(False)
    for ax, a in zip(axes.flat, assignments):
        totals = {}
        for r in auto:
            if r["assignment"] == a:
                got, most, _ = totals.get(r["student_id"], (0.0, 0.0, 0.0))
                totals[r["student_id"]] = (got + (r["part_score"] or 0), most + r["part_max_score"], late_penalty(r))
        ax.hist([100 * max(0.0, g - late) / m for g, m, late in totals.values() if m], bins=[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100.01],
                color="tab:blue", edgecolor="white")
        ax.set_title(a, fontsize=9)
        ax.set_xlabel("autograded score (%)")
        ax.set_ylabel("students")
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))  # students come whole
    fig.tight_layout()
    files["histograms"] = "histograms.png"
    fig.savefig(out / files["histograms"], dpi=100)
    plt.close(fig)

    parts = list(dict.fromkeys((r["assignment"], r["part"]) for r in auto))
    rate = [sum(r["part_score"] == r["part_max_score"] for r in auto if (r["assignment"], r["part"]) == p)
            / max(1, sum((r["assignment"], r["part"]) == p for r in auto)) for p in parts]
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(parts) + 1))
    ax.barh([f"{a[:2]} {p.removeprefix('test_')}" for a, p in parts], [100 * x for x in rate], color="tab:green")
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("students with full marks (%)")
    fig.tight_layout()
    files["pass_rate"] = "pass_rate.png"
    fig.savefig(out / files["pass_rate"], dpi=100)
    plt.close(fig)

    counts = Counter(r["mistake"] for r in rows if r["mistake"]).most_common(15)
    if counts:
        fig, ax = plt.subplots(figsize=(7, 0.35 * len(counts) + 1))
        ax.barh([m for m, _ in counts], [n for _, n in counts], color="tab:red")
        ax.invert_yaxis()
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_xlabel("parts where the verdict named it")
        fig.tight_layout()
        files["mistakes"] = "mistakes.png"
        fig.savefig(out / files["mistakes"], dpi=100)
        plt.close(fig)
    return files


def put_back(rows):
    """[(student, notebook, what was restored)] for the notebooks graded with some cells as handed out."""
    return sorted({(r["student_id"], r["notebook"], r["restored"]) for r in rows if r.get("restored")})


def flagged(rows):
    """[(student, assignment, flag)] handed in for an assignment with a due date at a time that is in doubt
    (no timestamp.txt, one that cannot be read, or one the notebook contradicts): deadlines.decide."""
    return sorted({(r["student_id"], r["assignment"], r["lateness"]) for r in rows if r.get("lateness")})


def late_penalty(r):
    """nbgrader's late penalty on the submission a row belongs to (0 when on time or without due dates)."""
    return float(r.get("late_submission_penalty") or 0)


def student_totals(rows):
    """{student: {assignment: (autograded score after the late penalty, its maximum, written answers still
    to grade by hand, the late penalty, written answers' score, their maximum)}}: the autograded score is
    the one grades.csv and the export give for those parts; written answers, graded by hand or not, are
    counted apart, so every autograded column has one denominator."""
    out = {}
    for r in rows:
        got, most, pending, penalty, hand, hand_most = out.setdefault(r["student_id"], {}).get(
            r["assignment"], (0.0, 0.0, 0, 0.0, 0.0, 0.0))
        if r["needs_manual_grade"]:
            pending += 1
        elif r["part"].startswith("test_"):
            got, most = got + (r["part_score"] or 0), most + r["part_max_score"]
        elif r.get("finding") != NOT_ATTEMPTED:  # graded by hand
            hand, hand_most = hand + (r["part_score"] or 0), hand_most + r["part_max_score"]
        out[r["student_id"]][r["assignment"]] = (got, most, pending, late_penalty(r), hand, hand_most)
    return {s: {a: (max(0.0, got - penalty), most, pending, penalty, hand, hand_most)
                for a, (got, most, pending, penalty, hand, hand_most) in by.items()} for s, by in out.items()}


def write_html(rows, missing, out):
    """index.html beside its pictures."""
    files = _plots(rows, out) if rows else {}
    e = html.escape
    mistakes = Counter(r["mistake"] for r in rows if r["mistake"])
    where = {m: sorted({f"{r['assignment'][:2]} {r['part'].removeprefix('test_')}" for r in rows if r["mistake"] == m})
             for m in mistakes}
    students = len({r["student_id"] for r in rows})
    parts = [
        "<!doctype html><meta charset='utf-8'><title>Class report</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}img{max-width:100%;height:auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;"
        "white-space:nowrap}</style>",
        f"<h1>Class report</h1><p>students: {students}; assignments: {len({r['assignment'] for r in rows})}; "
        f"graded parts: {len(rows)}; notebooks that could not be graded: {len(missing)}.</p>",
    ]
    if files:
        parts += ["<h2>Scores</h2>", f"<img src='{files['histograms']}' alt='score histograms, one per assignment'>",
                  "<h2>Pass rate per part</h2>", f"<img src='{files['pass_rate']}' alt='pass rate per part'>"]
    totals = student_totals(rows)
    assignments = sorted({r["assignment"] for r in rows})
    # Columns named by the notebook's number (its name in the tooltip), so six of them fit the page.
    parts.append("<h2>Students</h2><p>Autograded score out of the autograded maximum, per notebook, after nbgrader's "
                 "late penalty (\"late (-8)\"); written answers apart: graded by hand (\"2/2 by hand\") or still "
                 "to grade (\"1 by hand\").</p><div style='overflow-x:auto'><table><tr><th>student</th>"
                 + "".join(f"<th title='{e(a)}'>{e(a[:2])}</th>" for a in assignments) + "</tr>")
    for student in sorted(totals):
        cells = []
        for a in assignments:
            if a not in totals[student]:
                cells.append("<td>-</td>")
                continue
            got, most, pending, penalty, hand, hand_most = totals[student][a]
            cells.append(f"<td>{got:g}/{most:g}" + (f", late (-{penalty:g})" if penalty else "")
                         + (f", {hand:g}/{hand_most:g} by hand" if hand_most else "")
                         + (f", {pending} by hand" if pending else "") + "</td>")
        parts.append(f"<tr><td>{e(student)}</td>" + "".join(cells) + "</tr>")
    parts.append("</table></div>")
    if put_back(rows):
        parts.append("<p>Graded with cells as handed out (the notebook's graded or locked cells differed from the "
                     "release; the student's other cells were kept):</p><ul>"
                     + "".join(f"<li>{e(s)} / {e(a)}: {e(said)}</li>" for s, a, said in put_back(rows)) + "</ul>")
    if flagged(rows):
        parts.append("<p>Lateness flagged (a due date is set, and when the submission was handed in is in doubt; "
                     "deadlines.toml's <code>unproven</code> says what it counts as):</p><ul>"
                     + "".join(f"<li>{e(s)} / {e(a)}: {e(flag)}</li>" for s, a, flag in flagged(rows)) + "</ul>")
    parts += ["<h2>Most frequent named mistakes</h2>"]
    if mistakes:
        parts.append(f"<img src='{files['mistakes']}' alt='named mistakes'>")
        parts.append("<table><tr><th>mistake</th><th>count</th><th>parts</th></tr>" + "".join(
            f"<tr><td>{e(m)}</td><td>{n}</td><td>{e(', '.join(where[m]))}</td></tr>" for m, n in mistakes.most_common())
            + "</table>")
    else:
        parts.append("<p>No named mistakes.</p>")
    parts.append("<h2>Notebooks that could not be graded</h2>")
    if missing:
        parts.append("<table><tr><th>student</th><th>assignment</th><th>why</th></tr>" + "".join(
            f"<tr><td>{e(s)}</td><td>{e(a)}</td><td>{e(why)}</td></tr>" for s, a, why in missing) + "</table>")
    else:
        parts.append("<p>None.</p>")
    (out / "index.html").write_text("\n".join(parts) + "\n")


def write_report(course, out=None):
    """grades.csv and index.html for a graded course directory; returns (rows, ungraded)."""
    course = Path(course)
    out = Path(out) if out else course / "report"
    out.mkdir(parents=True, exist_ok=True)
    rows, missing = collect(course), ungraded(course)
    write_csv(rows, out / "grades.csv")
    write_html(rows, missing, out)
    return rows, missing


def main(course, out=None):
    if not (Path(course) / "gradebook.db").exists():
        print(f"report: {course}: no gradebook.db there; grade a class into it first "
              "(python -m grader grade SUBMISSIONS --course COURSE_DIR)", file=sys.stderr)
        return 2
    rows, missing = write_report(course, out)
    where = Path(out) if out else Path(course) / "report"
    print(f"report: {len(rows)} graded parts, {len(missing)} notebooks not graded -> "
          f"{where / 'index.html'}, {where / 'grades.csv'}")
    return 0
