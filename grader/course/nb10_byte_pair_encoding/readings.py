"""Notebook 10's readings of a wrong result (Probe.readings): the numbers a probe reports, read back as the
pairs, words, merges, tokens and text the student's code made, and the first difference said in those
terms ("your counts give the pair ('t', '</w>') 0 where the corpus has it 3 times"), never as "entry 78".

Each reading takes a case's inputs and the student's result as the probe reports it (reference.pair_table,
segment_lengths, merge_codes, the ids, text_codes) and returns one sentence, or None when the result cannot
be read that way (the grader then says what it can from the numbers).
"""
import numpy as np

from . import reference as ref
from .mistakes import corpus_of, merges_of, vocab_of

SHOWN = 2  # differences named one by one; the rest are counted


def _word(symbols):
    """A word as its symbols, "n e w es t </w>"."""
    return " ".join(symbols)


def _times(n):
    return f"{n:g} time{'' if n == 1 else 's'}"


def _first(k, what):
    """ "your first 3 merges are right; " (or "your first merge is right; "), nothing when none is."""
    if not k:
        return ""
    return f"your first {what} is right; " if k == 1 else f"your first {k} {what}s are right; "


def _positions_skipped(corpus, got):
    """ "leave out the first pair of each word" when the counts are those of a loop over each word's positions with
    other bounds or another step (range(1, len(word) - 1), range(0, len(word) - 1, 2), ...); else None."""
    for start in (0, 1):
        for trim in (0, 1):
            for step in (1, 2):
                if (start, trim, step) == (0, 0, 1):
                    continue
                counts = {}
                for word, freq in corpus.items():
                    for k in range(start, len(word) - 1 - trim, step):
                        counts[word[k], word[k + 1]] = counts.get((word[k], word[k + 1]), 0) + freq
                if np.array_equal(ref.pair_table(counts, corpus), got):
                    said = (["leave out the first pair of each word"] if start and step == 1 else [])
                    said += [f"count only every other pair of each word (positions {start}, {start + 2}, "
                             f"{start + 4}, ...)"] if step == 2 else []
                    said += ["leave out the last pair of each word"] if trim else []
                    return " and ".join(said)
    return None


def pair_counts(inputs, value):
    """count_pairs: the first pairs whose counts differ, and keys that are no pair of the corpus's symbols; or the
    positions of each word the counts leave out, when a loop with other bounds or another step makes them."""
    corpus = corpus_of(inputs)
    symbols = ref.symbols_of(corpus)
    want = ref.pair_table(ref.count_pairs(corpus), corpus)
    got = np.asarray(value, dtype=float)
    if got.shape != want.shape:
        return None
    skipped = not np.array_equal(got, want) and _positions_skipped(corpus, got)
    if skipped:
        return (f"your counts {skipped}: count the pair at every position, k = 0 to len(word) - 2, times the word's "
                "frequency")
    counts = ref.count_pairs(corpus)
    backwards = {(b, a): n for (a, b), n in counts.items()}
    if backwards != counts and np.array_equal(ref.pair_table(backwards, corpus), got):
        a, b = next((a, b) for (a, b) in counts if (b, a) not in counts)
        return (f"your counts give every pair the wrong way round, {(b, a)!r} where {a!r} is followed by {b!r}: a key "
                "is (word[k], word[k + 1]), a symbol and then the one after it")
    pairs = [(a, b) for a in symbols for b in symbols]
    wrong = [k for k in range(len(pairs)) if got[k] != want[k]]
    said = []
    if wrong:
        shown = [f"{pairs[k]!r} {_times(got[k])} where the corpus has it {_times(want[k])}" for k in wrong[:SHOWN]]
        more = len(wrong) - SHOWN
        said.append("your counts give the pair " + "; the pair ".join(shown)
                    + (f"; {more} more pair{'s are' if more > 1 else ' is'} counted wrong" if more > 0 else ""))
    if got[-1] != want[-1]:
        said.append(f"{got[-1]:g} of your keys {'are' if got[-1] != 1 else 'is'} not a pair of two of the "
                    "corpus's symbols: a key is the tuple (a, b) of two symbols side by side in a word")
    return "; ".join(said) or None


def merged_words(inputs, value):
    """merge_pair: the first word that comes out other than the merge makes it, or the number of words."""
    corpus = corpus_of(inputs)
    pair = tuple(inputs["pair"])
    want = ref.segment_lengths(ref.merge_pair(corpus, pair), corpus)
    got = [np.asarray(v, dtype=float).reshape(-1) for v in value]
    if len(got) != len(want):
        return None
    if got[-1][0] != want[-1][0]:  # first: a word kept twice, or two made one, is what the others follow from
        return (f"your result has {got[-1][0]:g} words where the corpus has {want[-1][0]:g}: each word once, "
                "merged or as it was")
    for word, g, w in zip(corpus, got, want):
        if np.array_equal(g, w):
            continue
        text = "".join(word)
        right = _split(text, w[1:])
        if g.size == 1 and g[0] == -1:
            return (f"no word of your result has the characters of {_word(word)!r}: merging {pair!r} should give "
                    f"{_word(right)!r}, every character kept")
        if g[0] != w[0]:
            return f"your {_word(_split(text, g[1:]))!r} has frequency {g[0]:g}, where the word's is {w[0]:g}"
        return f"your result has {_word(_split(text, g[1:]))!r} where merging {pair!r} gives {_word(right)!r}"
    return None


def _split(text, lengths):
    """The text cut into symbols of these lengths (a word of the result, from its characters)."""
    out, at = [], 0
    for n in lengths:
        out.append(text[at:at + int(n)])
        at += int(n)
    if at != len(text):
        raise ValueError("lengths that do not cover the word")
    return out


def _pair(codes):
    codes = [int(c) for c in np.asarray(codes, dtype=float).reshape(-1)]
    cut = codes.index(-1)
    return "".join(map(chr, codes[:cut])), "".join(map(chr, codes[cut + 1:]))


def learned(inputs, value):
    """learn_merges: how many merges are right, then the first one that is not, with the counts behind it."""
    corpus = corpus_of(inputs)
    want = ref.learn_merges(corpus, int(inputs["num_merges"]))
    got = [_pair(v) for v in value]
    k = 0
    while k < min(len(got), len(want)) and got[k] == want[k]:
        corpus = ref.merge_pair(corpus, want[k])
        k += 1
    counts = ref.count_pairs(corpus)  # the corpus after the k merges both have made
    first = _first(k, "merge")
    if k == len(want) == len(got):
        return None
    if k == len(got):
        stop = f"{first}then you stop" if k else "you learn no merge"
        return (f"{stop}, where the rules go on with {want[k]!r}, a pair seen {_times(counts[want[k]])}: learning "
                "stops only after num_merges merges, or when no pair is left")
    if k == len(want):
        return f"{first}then you learn more, where the rules stop: no pair is left after those {k}"
    yours, right = got[k], want[k]
    seen = counts.get(yours, 0)
    if seen == counts[right]:
        why = (f"both are seen {_times(seen)}, and on a tie the smaller pair comes first, as Python compares "
               "tuples: symbol by symbol")
    else:
        why = f"yours is seen {_times(seen)} in the corpus as it is then, {right!r} {_times(counts[right])}"
    return f"{first}merge {k + 1} is {yours!r} where the rules take {right!r}: {why}"


def encoded(inputs, value):
    """encode: how many words come out right, then the first word that does not, as the tokens the student's ids
    give for it against the tokens the merges give (an empty word, which a space at either end of the text or
    two spaces side by side make, said as such)."""
    tokens = list(inputs["tokens"])
    merges, vocab = merges_of(inputs), vocab_of(inputs)
    want = ref.encode(inputs["text"], merges, vocab)
    got = [int(g) for g in np.asarray(value, dtype=float).reshape(-1)]
    if any(not 0 <= g < len(tokens) for g in got):
        return None
    k = 0
    while k < min(len(got), len(want)) and got[k] == want[k]:
        k += 1
    if k == len(want) == len(got):
        return None
    if k == len(want) < len(got):
        return f"{_first(k, 'id')}then you have {len(got) - k} more, from {tokens[got[k]]!r}, where the text ends"
    words = inputs["text"].split(" ")
    per_word = [ref.encode(w, merges, vocab) for w in words]  # (a word has no space: one word's ids)
    j, start = 0, 0
    while start + len(per_word[j]) <= k:
        start += len(per_word[j])
        j += 1
    word = (f"word {j + 1}, {words[j]!r}," if words[j] else
            f"word {j + 1}, the empty word {'the space that starts the text makes' if j == 0 else 'the space that ends the text makes' if j == len(words) - 1 else 'between two spaces'},")
    due = _token_list([tokens[i] for i in per_word[j]])
    right = "" if not j else "your first word is right; " if j == 1 else f"your first {j} words are right; "
    # The word's letters merged without its marker, and the rest of the ids right from the next word on
    bare = _without_marker(words[j], merges, vocab)
    if bare and bare != per_word[j] and got[start:] == bare + want[start + len(per_word[j]):]:
        last = ", the last one too," if j == len(words) - 1 else ""
        return (f"{right}{word} comes out as {_token_list([tokens[i] for i in bare])}, its tokens without the "
                f"end-of-word marker, where the merges give {due}: every word{last} ends with {ref.EOW!r} before "
                "the merges are applied")
    if k == len(got):
        if k == start:
            return f"{right}then your ids stop: {word} is missing, which the merges encode as {due}"
        return f"{right}then your ids stop inside {word} which the merges encode as {due}"
    # The student's ids for this word, when the rest of theirs is the rest of the encoding: exactly those between
    end = start + len(per_word[j])
    m = next((m for m in range(start, len(got) + 1) if got[m:] == want[end:]), None)
    if m == start:
        return f"{right}{word} is missing, which the merges encode as {due}"
    if m is None:  # or the student's tokens from here that spell the word and its marker, when some do
        spelt = next((m for m in range(start + 1, min(len(got), start + 40) + 1)
                      if "".join(tokens[i] for i in got[start:m]) == words[j] + ref.EOW), None)
        m = spelt
    if m is not None:
        return f"{right}{word} comes out as {_token_list([tokens[i] for i in got[start:m]])} where the merges give {due}"
    return f"{right}{word} should come out as {due}; your ids there begin with {tokens[got[k]]!r}"


def _without_marker(word, merges, vocab):
    """The ids of a word the merges are applied to without its end-of-word marker ([] for the empty word)."""
    symbols = tuple(word)
    for pair in merges if symbols else ():
        symbols = next(iter(ref.merge_pair({symbols: 1}, pair)))
    return [vocab.get(s, vocab[ref.UNK]) for s in symbols]


def _token_list(strings):
    return " ".join(repr(t) for t in strings) if strings else "nothing"


def decoded(inputs, value):
    """decode: how far the text is right, then a few characters of each from the first that differs."""
    want = ref.decode(inputs["ids"], list(inputs["tokens"]))
    got = "".join(chr(int(c)) for c in np.asarray(value, dtype=float).reshape(-1))
    k = 0
    while k < min(len(got), len(want)) and got[k] == want[k]:
        k += 1
    if got == want:
        return None
    first = f"your text is right for its first {k} character{'s' if k != 1 else ''}, " if k else ""
    if k == len(got):
        stop = f"{first}then it stops" if k else "your text is empty"
        return f"{stop}, where the text goes on with {want[k:k + 12]!r}"
    if k == len(want):
        return f"{first}then it goes on with {got[k:k + 12]!r}, where the text ends"
    return f"{first}{'then ' if k else ''}your text has {got[k:k + 12]!r} where the right one has {want[k:k + 12]!r}"
