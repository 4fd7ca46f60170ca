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


# ------------------------------------------------------------------------------------------------------------
# Numbers the notebooks' text states, each checked against the course's reference code.
#
# A table, not a walker over the markdown: a sentence such as "0.250 of the block at the crossing" does not say
# which computation its number comes from, and words like "below", "from" or "at most" mean different
# comparisons, so each claim is listed with the phrase a student reads, the value as written there, how the
# two compare, and the function (over grader/course) that computes it. A phrase reworded, a number changed in
# the text, or a change in the reference that moves a number, each fails a test below.

import functools  # noqa: E402
import itertools  # noqa: E402
import math  # noqa: E402

import numpy as np  # noqa: E402

from grader.course.nb07_attention_backprop import cases as cases07, mistakes as mistakes07, reference as ref07  # noqa: E402
from grader.course.nb08_transformer_block import reference as ref08  # noqa: E402
from grader.course.shared import reference as shared_ref, tiny_transformer as tiny  # noqa: E402

GPT2 = dict(D=768, H=12, D_ff=3072)  # notebook 08's sizes: GPT-2 small's block


def _attention_flops(T):
    return ref08.block_flops(GPT2["D"], GPT2["H"], T, 0)


def _mlp_flops(T):
    return ref08.block_flops(GPT2["D"], GPT2["H"], T, GPT2["D_ff"]) - _attention_flops(T)


def _quadratic_coefficient(D, H, D_ff):
    """The T^2 coefficient of the reference's block_flops (a quadratic in T), by finite differences."""
    f = [ref08.block_flops(D, H, T, D_ff) for T in (0, 1, 2, 3)]
    assert f[3] - 3 * f[2] + 3 * f[1] - f[0] == 0, "block_flops is not quadratic in T"
    return (f[2] - 2 * f[1] + f[0]) // 2


def _quadratic_share(T):
    """The share of the block's multiply-adds in the T^2 terms (scores and weighted sums), per the reference."""
    return _quadratic_coefficient(**GPT2) * T * T / ref08.block_flops(GPT2["D"], GPT2["H"], T, GPT2["D_ff"])


def _crossing():
    return next(T for T in itertools.count(1) if _attention_flops(T) >= _mlp_flops(T))


def _equal_at_the_crossing():
    T = _crossing()
    return T if _attention_flops(T) == _mlp_flops(T) else None


def _quadratic_terms_as_the_text_counts_them():
    """Notebook 08 computes the T^2 terms itself as 2 T^2 D: the reference's coefficient, at any sizes."""
    return all(_quadratic_coefficient(D, H, D_ff) == 2 * D
               for D, H, D_ff in [(768, 12, 3072), (8, 2, 32), (6, 3, 24), (1024, 16, 4096)])


def _gelu_gap():
    """The largest |GPT-2's tanh GELU - z Phi(z)| over z in [-8, 8] (both meet the ReLU's limits further out)."""
    z = np.linspace(-8, 8, 160001)
    exact = z * 0.5 * (1 + np.vectorize(math.erf)(z / np.sqrt(2)))
    approximation = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3)))
    return float(np.max(np.abs(approximation - exact)))


def _fully_masked_row_is_uniform():
    """The course fills masked scores with -1e6, so a query with no key to see gets uniform weights."""
    scores = np.random.default_rng(0).normal(size=(2, 3, 5))  # (B, Tq, Tk)
    weights = shared_ref.masked_softmax(scores, np.array([0, 3]))  # sequence 0: no valid key
    return shared_ref.MASK_VALUE == -1e6 and bool(np.all(weights[0] == 1 / 5))


@functools.lru_cache(maxsize=None)
def _gradient_check_scale():
    """Notebook 07's scale, from the reference: relative errors (eps = 1e-6) of the true gradients of the book's
    attention loss, of the same times 1.05, and of the wrong gradients of the recognised mistakes."""
    i = cases07.book_07()
    parameters = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    argument = dict(zip(ref07.ATTENTION_GRADIENTS, ("X",) + parameters))
    true = ref07.attention_backward(i["X"], *[i[n] for n in parameters], i["dX_prime"])

    def error(name, gradient):
        def loss_of(value):
            given = dict(i, **{argument[name]: value})
            return ref07.attention_loss(given["X"], *[given[n] for n in parameters], i["dX_prime"])
        return ref07.gradient_check(loss_of, i[argument[name]], gradient)

    known = [name for name in ref07.ATTENTION_GRADIENTS if name != "d_beta_k"]  # d_beta_k is 0: its error says nothing
    wrong = [error(name, g) for mistake in mistakes07.ATTENTION_BACKWARD
             for name, g in zip(ref07.ATTENTION_GRADIENTS, mistake.compute(i))
             if np.shape(g) == np.shape(true[name]) and not np.allclose(g, true[name], rtol=1e-4, atol=1e-6)]
    return {"right": max(error(name, true[name]) for name in known),
            "off": [error(name, 1.05 * true[name]) for name in known], "wrong": wrong}


def _mha_right():
    """Notebook 07 section 4: the true dx and W_q gradients of its example, checked as the notebook checks them."""
    i = cases07.book_07_mha()
    p, x, H, dout = cases07.mha_params_07(i), i["x"], int(i["num_heads"]), i["dout"]
    dx, grads = ref07.mha_backward(x, p, H, dout)
    return max(ref07.gradient_check(lambda x_: ref07.mha_loss(x_, p, H, dout), x, dx),
               ref07.gradient_check(lambda W: ref07.mha_loss(x, dict(p, W_q=W), H, dout), p["W_q"], grads["W_q"]))


def _separator_is_the_last_uncounted_target():
    tokens, targets, weights = tiny.reversal_batch(np.random.default_rng(0), 1000)
    L = tokens.shape[1] // 2
    return bool(np.all(targets[:, L - 1] == tiny.SEP) and np.all(weights[:, :L] == 0) and np.all(weights[:, L:] == 1))


NB07, NB08, NB09 = "07_attention_backprop", "08_transformer_block", "09_tiny_transformer"
CLAIMS = [  # (notebook, phrase in its markdown, the value as the phrase writes it, how they compare, computed by)
    (NB08, "at $T = 1536$ the two cost exactly the same", "1536", "=", _equal_at_the_crossing),
    (NB08, "0.250 of the block at the crossing", "0.250", "=", lambda: _quadratic_share(_crossing())),
    (NB08, "0.308 at $T = 2048$", "0.308", "=", lambda: _quadratic_share(2048)),
    (NB08, "more than half only from $T = 4609$", "4609", "=",
     lambda: next(T for T in itertools.count(1) if _quadratic_share(T) > 0.5)),
    (NB08, "$2T^2D$ multiply-adds in all", True, "is", _quadratic_terms_as_the_text_counts_them),
    (NB08, "by at most $4.7\\times10^{-4}$", "4.7\\times10^{-4}", "=", _gelu_gap),
    (NB08, "its scores all become `-1e6`, so its weights are uniform", True, "is", _fully_masked_row_is_uniform),
    (NB07, "the true gradients give errors below $10^{-7}$", "10^{-7}", "<", lambda: _gradient_check_scale()["right"]),
    (NB07, "$10^{-2}$ and above, wrong", "10^{-2}", ">=",
     lambda: min(_gradient_check_scale()["wrong"] + _gradient_check_scale()["off"])),
    (NB07, "only 5% too large give 0.024", "0.024", "=", lambda: min(_gradient_check_scale()["off"])),
    (NB07, "only 5% too large give 0.024", "0.024", "=", lambda: max(_gradient_check_scale()["off"])),
    (NB07, "give from 0.18 to 1.", "0.18", "=", lambda: min(_gradient_check_scale()["wrong"])),
    (NB07, "give from 0.18 to 1.", "1", "=", lambda: max(_gradient_check_scale()["wrong"])),
    (NB07, "Read them on section 3's scale: below about $10^{-7}$, right", "10^{-7}", "<", _mha_right),
    (NB09, "At position $L-1$ it is always the separator", True, "is", _separator_is_the_last_uncounted_target),
]


def _number(written):
    """(value, significant digits) of a number as the text writes it: 1536, 0.250, 10^{-7}, 4.7\\times10^{-4}."""
    m = re.fullmatch(r"(?:([\d.]+)\\times)?10\^\{(-?\d+)\}", written)
    mantissa, exponent = (m.group(1) or "1", int(m.group(2))) if m else (written, 0)
    if "e" in mantissa:  # 1.0e-09, as the self-test below writes a number
        mantissa, exponent = mantissa.split("e")[0], int(mantissa.split("e")[1])
    digits = len(mantissa.replace(".", "").lstrip("0"))
    return float(mantissa) * 10.0 ** exponent, digits


def _agrees(stated, relation, computed):
    if relation == "is":
        return computed is True and stated is True
    if computed is None:
        return False
    value, digits = _number(stated)
    if relation == "=":  # the computed value, rounded to the digits the text shows, is the text's
        return math.isclose(float(f"{computed:.{digits}g}"), value, rel_tol=1e-12)
    return {"<": computed < value, ">=": computed >= value}[relation]


def _markdown(notebook):
    path = ROOT / "source" / notebook / f"{notebook}.ipynb"
    return [cell.source for cell in nbformat.read(str(path), as_version=4).cells if cell.cell_type == "markdown"]


@pytest.mark.parametrize("notebook, phrase, stated, relation, compute", CLAIMS,
                         ids=[f"{n[:2]}: {p}" for n, p, *_ in CLAIMS])
def test_what_the_text_states_is_what_the_course_computes(notebook, phrase, stated, relation, compute):
    assert any(phrase in text for text in _markdown(notebook)), f"{notebook}: no markdown cell says {phrase!r}"
    assert stated is True or stated in phrase, f"the value {stated!r} is not in the phrase {phrase!r}"
    computed = compute()
    assert _agrees(stated, relation, computed), f"{notebook}: {phrase!r} states {stated} ({relation}); the course computes {computed}"


def test_a_changed_number_fails_its_claim():
    """A number changed in the text no longer matches its phrase; and the comparison itself notices a wrong
    number: the next value at the digits the text shows, or a bound on the wrong side of the computed value,
    or a fact that does not hold, does not agree."""
    for _, phrase, stated, relation, compute in CLAIMS:
        if stated is True:
            assert not _agrees(True, relation, False), phrase
            continue
        value, digits = _number(stated)
        computed = compute()
        if relation == "=":
            step = 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)
            for changed in (value + step, value - step):
                assert not _agrees(f"{changed:.{digits}g}", relation, computed), phrase
        else:
            wrong_side = computed / 10 if relation == "<" else computed * 10
            assert not _agrees(f"{wrong_side:.1e}", relation, computed), phrase
