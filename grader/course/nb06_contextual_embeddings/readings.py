"""Notebook 06's reading of a wrong tokenize result (Probe.readings): its ids read word by word.

A tokenizer's steps are strings (the sentence lower-cased, its words), which the probe's trace does not keep;
what the grader can always read is which words got a wrong id and what id each got. `tokenized` says which
words those are (named by the one property of the sentence's words that picks out exactly them, when only one
does: the words with capital letters, the words the vocabulary does not know, the last word...), what id they
got (<unk>'s, 0, the next word's...) and what is due; or, when the count is off, which words are missing.
Each is a fact of this result on this sentence, never a guess at the code behind it.
"""
import re

import numpy as np

from . import reference as ref
from .cases import UNK


def _words(inputs):
    """(the words as written, their right ids, the vocabulary) of the case's sentence."""
    vocab = {word: n for n, word in enumerate(inputs["vocab_words"])}
    words = inputs["sentence"].split()
    return words, [int(i) for i in ref.tokenize(inputs["sentence"], vocab)], vocab


def _properties(inputs):
    """[(words for the words that have it, which of the sentence's words have it)], simplest first."""
    words, want, vocab = _words(inputs)
    unk, T = vocab[UNK], len(words)
    gaps = re.findall(r"\s+", inputs["sentence"].strip())  # the whitespace before words 2..T
    counts = {w.lower(): sum(v.lower() == w.lower() for v in words) for w in words}
    has = [("the first word", lambda t: t == 0),
           ("the last word", lambda t: t == T - 1),
           ("the words with capital letters in them", lambda t: words[t] != words[t].lower()),
           ("the words with punctuation stuck to them", lambda t: not words[t].isalnum()),
           ("the words the vocabulary does not know", lambda t: want[t] == unk),
           ("the words the vocabulary knows", lambda t: want[t] != unk),
           ("the words whose id in the vocabulary is 0", lambda t: want[t] == 0 and want[t] != unk),
           ("the words after a tab or a run of spaces", lambda t: t > 0 and gaps[t - 1] != " "),
           ("the words that come more than once", lambda t: counts[words[t].lower()] > 1),
           ("every word", lambda t: True)]
    return [(said, {t for t in range(T) if fits(t)}) for said, fits in has]


def _wrong_words(inputs, value):
    """Which of the sentence's words get a wrong id, when the result is one whole id a word; else None."""
    words, want, _ = _words(inputs)
    try:
        got = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if got.shape != (len(words),) or not np.array_equal(got, np.round(got)):
        return None
    return {t for t in range(len(words)) if got[t] != want[t]}


def _named(inputs, where, every=()):
    """The one property that picks out exactly these words, here and in every other case whose result has
    one id a word (no word there when it is right), or "" when none or several do: a property said when
    another fits as well could point at the wrong cause."""
    fits = [said for said, which in _properties(inputs) if which == set(where)]
    for other, value in every:
        wrong = _wrong_words(other, value) if value is not None else None
        if wrong is not None:
            fits = [said for said, which in _properties(other) if said in fits and which == wrong]
    return fits[0] if len(fits) == 1 else ""


def _quoted(words, where):
    """'RIVER' and 'Boat'; a word that comes more than once with its place: 'the' (word 7)."""
    picked = [repr(words[t]) + (f" (word {t + 1})" if words.count(words[t]) > 1 else "") for t in where]
    return picked[0] if len(picked) == 1 else ", ".join(picked[:-1]) + " and " + picked[-1]


def _what_they_got(inputs, where, got):
    """What the wrong ids are, as one description that fits every one of them (two words or more: for one,
    a relation such as "one less than its right id" would as likely be chance), or ""."""
    words, want, vocab = _words(inputs)
    unk, T = vocab[UNK], len(words)
    kinds = [(f"<unk>'s id ({unk})", lambda t: unk),
             ("0", lambda t: 0),
             ("-1", lambda t: -1),
             ("the id of the word before it", lambda t: want[t - 1] if t > 0 else None),
             ("the id of the word after it", lambda t: want[t + 1] if t + 1 < T else None),
             ("one more than its right id", lambda t: want[t] + 1),
             ("one less than its right id", lambda t: want[t] - 1),
             ("its position in the sentence", lambda t: t)]
    for said, made in kinds:
        if all(made(t) is not None and got[t] == made(t) for t in where):
            return said
    return ""


def tokenized(inputs, value, every=()):
    """tokenize: which words got a wrong id, what they got and what is due; or which words are missing."""
    words, want, vocab = _words(inputs)
    got = np.asarray(value, dtype=float)
    if got.ndim != 1 or not np.all(np.isfinite(got)) or not np.array_equal(got, np.round(got)):
        return None
    got = [int(g) for g in got]
    T = len(words)
    if len(got) < T:  # words dropped: which, when leaving out the words of one property gives exactly these ids
        for said, which in _properties(inputs):
            kept = [want[t] for t in range(T) if t not in which]
            if which and kept == got and said != "every word":
                listed = f" ({_quoted(words, sorted(which))})" if len(which) <= 4 else ""
                return (f"your {len(got)} ids for {T} words leave out {said}{listed}: "
                        "every word gets an id, <unk>'s when the vocabulary does not know it")
        return f"your {len(got)} ids are for a sentence of {T} words (split on any whitespace): one id a word"
    if len(got) > T:
        return f"your {len(got)} ids are for a sentence of {T} words (split on any whitespace): one id a word"
    where = [t for t in range(T) if got[t] != want[t]]
    if not where:
        return None
    unk = vocab[UNK]
    if len(where) == 1:  # its id said as the vocabulary's word that has it
        t = where[0]
        low = words[t].lower()
        due = (f"the id of {low!r} in the vocabulary" if low in vocab else
               f"<unk>'s id, the vocabulary not knowing {low!r}")
        owner = [w for w, n in vocab.items() if n == got[t]]
        about = (", <unk>'s" if owner == [UNK] else f", the id of {owner[0]!r}" if owner else
                 ", which no word of the vocabulary has")
        named = _named(inputs, where, every)
        named = (f"; on {'every input' if every else 'this input'} the wrong ids are exactly those of {named}"
                 if named and named != "every word" else "")
        return f"word {t + 1} of {T}, {words[t]!r}, gets id {got[t]}{about}, where {want[t]} is due: {due}{named}"
    lower = [words[t].lower() for t in where]
    if all(w in vocab for w in lower):
        due = "their ids in the vocabulary are due"
    elif all(w not in vocab for w in lower):
        due = f"<unk>'s id ({unk}) is due, the vocabulary not knowing them"
    else:
        due = f"their ids in the vocabulary are due, or <unk>'s ({unk}) for a word it does not know"
    got_said = _what_they_got(inputs, where, got)
    named = _named(inputs, where, every)
    listed = _quoted(words, where) if len(where) <= 4 else ""
    which = f"{named}: {listed}" if named and listed else named or listed or \
        f"words {', '.join(str(t + 1) for t in where)}"
    return (f"{len(where)} of the {T} words get a wrong id ({which})"
            + (f"; each gets {got_said}" if got_said else "") + f", where {due}")
