"""What students read: every book reference is one the book has, and no source goes unnamed.

The notebooks' text (markdown cells, and comments in code cells) is read as it is
written in source/ and notebooks/; generated cells are the build's and hold numbers
only.
"""
import re
from pathlib import Path

import nbformat
import pytest

from grader.course.shared import book

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "source").glob("*/*.ipynb")) + sorted((ROOT / "notebooks").glob("*.ipynb"))

# A reference to chapter 12: a number 12.x or 12.x.y (not a value such as 12.18249396), maybe a range.
NUMBER = r"12\.\d{1,2}(?:\.\d)?(?![\d.]\d)"
REFERENCE = re.compile(rf"(?<![\d.])({NUMBER})(?:\s*(?:–|-|to)\s*({NUMBER}))?")
KIND = re.compile(r"(?i)(sections?|§|equations?|eqs?\.|figures?|notebooks?|problems?|exercises?)")
KINDS = {"section": "section", "§": "section", "equation": "equation", "eq.": "equation", "eqs.": "equation",
         "figure": "figure", "notebook": "notebook", "problem": "problem", "exercise": "problem"}


def text_of(cell):
    if cell.metadata.get("course", {}).get("generated"):
        return ""
    if cell.cell_type == "markdown":
        return cell.source
    return "\n".join(line[line.index("#"):] for line in cell.source.splitlines() if "#" in line)


def book_references(text):
    """[(kind, number, the words around it)] of every chapter-12 number in text."""
    found = []
    for m in REFERENCE.finditer(text):
        before = text[max(0, m.start() - 60):m.start()]
        kinds = list(KIND.finditer(before))
        # the reference's own word, unless a sentence or clause ended since
        kind = None
        if kinds and not re.search(r"[.;:)]\s", before[kinds[-1].end():]):
            word = kinds[-1].group(1).lower()
            kind = KINDS.get(word.rstrip("s") if word not in ("eqs.", "§") else word, KINDS.get(word))
        if kind is None and m.group(1).count(".") == 2:
            kind = "section"  # 12.5.1: a subsection, as in "tokenisation (12.5.1)"
        for number in filter(None, m.groups()):
            found.append((kind, number, text[max(0, m.start() - 40):m.end() + 10].replace("\n", " ")))
    return found


def all_references():
    for path in NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        for i, cell in enumerate(nb.cells):
            for kind, number, words in book_references(text_of(cell)):
                yield f"{path.name} cell {i}", kind, number, words


def test_the_reader_finds_references_of_every_kind():
    kinds = {kind for _, kind, _, _ in all_references()}
    assert {"section", "equation", "figure", "notebook"} <= kinds
    assert book_references("equations 12.2–12.8") == [("equation", "12.2", "equations 12.2–12.8"),
                                                       ("equation", "12.8", "equations 12.2–12.8")]
    assert book_references("[0.1, 12.18249396]") == []
    assert [k for k, _, _ in book_references("tokenisation (12.5.1), problem 12.3")] == ["section", "problem"]


def test_every_book_reference_is_in_the_books_table():
    wrong = []
    for where, kind, number, words in all_references():
        if kind not in book.TABLES:
            wrong.append(f"{where}: {number!r} ({kind or 'no word says what it is'}): ...{words}...")
        elif number not in book.TABLES[kind]:
            wrong.append(f"{where}: {kind} {number} is not the book's: ...{words}...")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("words", [r"\bseed 00\d", r"(?i)\bthe blog post\b", r"(?i)\bseed document"])
def test_no_source_goes_unnamed(words):
    said = [f"{path.name} cell {i}" for path in NOTEBOOKS
            for i, cell in enumerate(nbformat.read(str(path), as_version=4).cells)
            if re.search(words, text_of(cell))]
    assert not said, said


@pytest.mark.parametrize("folder", ["source", "release"])
def test_generated_cells_are_collapsed_and_introduced_by_a_line(folder):
    """The build's cells (checks, true values) are collapsed, and one line of markdown above each says what it
    holds: the first thing a student reads after the imports is not a page of helper code or numbers. A module
    of the course's code that a notebook gives to be read (09's model, "module:...") stays open, and is
    introduced the same way."""
    wrong = []
    for path in sorted((ROOT / folder).glob("*/*.ipynb")):
        cells = nbformat.read(str(path), as_version=4).cells
        for i, cell in enumerate(cells):
            key = cell.metadata.get("course", {}).get("generated")
            if not key:
                continue
            to_read = key.startswith("module:")
            if bool(cell.metadata.get("jupyter", {}).get("source_hidden")) == to_read:
                wrong.append(f"{path.name} cell {i}: {'collapsed' if to_read else 'not collapsed'}")
            before = cells[i - 1]
            intro = "The next cell is the course's" if to_read else "The next cell, collapsed, holds"
            if before.cell_type != "markdown" or not before.source.startswith(intro):
                wrong.append(f"{path.name} cell {i}: no line above it says what it holds")
    assert not wrong, wrong


def test_every_figure_has_alt_text_in_the_feedback_template():
    """A figure cell says what its figure shows ("alt" in the cell's metadata), which nbconvert's classic
    template, and so nbgrader's feedback, puts on the image: no "No description has been provided"."""
    from nbconvert import HTMLExporter
    exporter = HTMLExporter(template_name="classic")
    missing = []
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        html, _ = exporter.from_notebook_node(nb)
        images = re.findall(r"<img\b[^>]*>", html)
        assert images, f"{path.name}: no figure rendered"
        missing += [f"{path.name}: {tag[:60]}..." for tag in images if 'alt="' not in tag or "No description" in tag]
    assert not missing, missing
