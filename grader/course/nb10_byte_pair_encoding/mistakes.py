"""Notebook 10's named mistakes: each a wrong answer the grader computes with the reference pieces, and what
to tell the student. Each computes the result as the probe reports it (reference.pair_table, segment_lengths,
merge_codes, token ids, text_codes), on the inputs of one case.
"""
import numpy as np

from . import reference as ref
from ...engine.protocol import Mistake


def corpus_of(i):
    """The case's corpus as the probe builds it: {tuple(word): frequency}."""
    return {tuple(w): int(f) for w, f in zip(i["words"], i["freqs"])}


def vocab_of(i):
    return {t: n for n, t in enumerate(i["tokens"])}


def merges_of(i):
    return [tuple(m) for m in i["merges"]]


# ---------------------------------------------------------------- count_pairs

def _counting(per_word):
    """A wrong count_pairs(corpus) -> counts: each word's pairs counted by per_word(word) -> {pair: count},
    times its frequency."""
    def count_pairs(corpus):
        counts = {}
        for word, freq in corpus.items():
            for pair, n in per_word(word).items():
                counts[pair] = counts.get(pair, 0) + n * freq
        return counts
    return count_pairs


def _count_mistake(name, message, count_pairs):
    """A count_pairs mistake from its wrong function: its result is that function's, as the probe reports it."""
    return Mistake(name, message, lambda i: ref.pair_table(count_pairs(corpus_of(i)), corpus_of(i)),
                   function=count_pairs)


def _nonoverlapping(word):
    """Each pair counted as a string search counts it: left to right, an occurrence never reusing a symbol
    of the previous one of the same pair (("a", "a", "a") holds ("a", "a") once)."""
    out = {}
    for pair in dict.fromkeys(zip(word[:-1], word[1:])):
        n, k = 0, 0
        while k + 1 < len(word):
            if (word[k], word[k + 1]) == pair:
                n, k = n + 1, k + 2
            else:
                k += 1
        out[pair] = n
    return out


OVERLAPS_COUNTED_ONCE = _count_mistake(
    "overlapping pairs counted once",
    "in (\"a\", \"a\", \"a\") the pair (\"a\", \"a\") stands at two positions, and both count: look at every "
    "position k and count (word[k], word[k + 1]), as zip(word[:-1], word[1:]) does, with no skipping",
    _counting(_nonoverlapping))

ONCE_PER_WORD = _count_mistake(
    "a pair counted once per word",
    "a pair that occurs twice in a word counts twice (times the word's frequency): count every position, "
    "not each distinct pair of the word once (a set of the word's pairs loses the repeats)",
    _counting(lambda word: {p: 1 for p in zip(word[:-1], word[1:])}))

FREQUENCY_IGNORED = _count_mistake(
    "frequencies ignored",
    "each word stands for all its occurrences in the text: add the word's frequency for each of its pairs, "
    "not 1",
    lambda corpus: ref.count_pairs({w: 1 for w in corpus}))

COUNT_PAIRS = [OVERLAPS_COUNTED_ONCE, ONCE_PER_WORD, FREQUENCY_IGNORED]


# ---------------------------------------------------------------- merge_pair

def _merge_first_only(symbols, pair):
    for k in range(len(symbols) - 1):
        if (symbols[k], symbols[k + 1]) == tuple(pair):
            return tuple(symbols[:k]) + (symbols[k] + symbols[k + 1],) + tuple(symbols[k + 2:])
    return tuple(symbols)


def _merge_step_of_one(symbols, pair):
    """After a merge the loop moves on by one symbol, not two: the pair's second symbol is kept as well."""
    out, k = [], 0
    while k < len(symbols):
        if k + 1 < len(symbols) and (symbols[k], symbols[k + 1]) == tuple(pair):
            out.append(symbols[k] + symbols[k + 1])
        else:
            out.append(symbols[k])
        k += 1
    return tuple(out)


def _merge_from_the_right(symbols, pair):
    """The word walked from its last symbol: where occurrences overlap, the right-hand one is merged."""
    out, k = [], len(symbols) - 1
    while k >= 0:
        if k >= 1 and (symbols[k - 1], symbols[k]) == tuple(pair):
            out.append(symbols[k - 1] + symbols[k])
            k -= 2
        else:
            out.append(symbols[k])
            k -= 1
    return tuple(out[::-1])


def _merge_by_replace(symbols, pair):
    """The word written out with spaces and the pair replaced in that string: a match may start or end inside
    a symbol ("xa b" becomes "xab")."""
    return tuple(" ".join(symbols).replace(" ".join(pair), "".join(pair)).split(" "))


def _merging(merge):
    """A wrong merge_pair(corpus, pair) -> corpus: each word merged by merge(symbols, pair)."""
    def merge_pair(corpus, pair):
        out = {}
        for word, freq in corpus.items():
            new = merge(word, tuple(pair))
            out[new] = out.get(new, 0) + freq
        return out
    return merge_pair


def _merge_mistake(name, message, merge):
    """A merge_pair mistake from its wrong way of merging one word: its result as the probe reports it."""
    merge_pair = _merging(merge)
    return Mistake(name, message, lambda i: ref.segment_lengths(merge_pair(corpus_of(i), i["pair"]), corpus_of(i)),
                   function=merge_pair)


MERGED_ONCE_PER_WORD = _merge_mistake(
    "merged once per word",
    "only the first occurrence of the pair in each word was merged: go on along the word after a merge, so "
    "that every occurrence is merged (left to right, without overlaps)",
    _merge_first_only)

SECOND_SYMBOL_KEPT = _merge_mistake(
    "the pair's second symbol kept",
    "after merging word[k] and word[k + 1] the loop moved on by one, so word[k + 1] was used again: move on by "
    "two after a merge, by one otherwise",
    _merge_step_of_one)

MERGED_FROM_THE_RIGHT = _merge_mistake(
    "merged from the right",
    "where occurrences overlap, as in (\"a\", \"a\", \"a\"), merging starts from the left: (\"aa\", \"a\"), not "
    "(\"a\", \"aa\"): walk the word from its first symbol",
    _merge_from_the_right)

MERGED_BY_STRING_REPLACE = _merge_mistake(
    "merged by string replace",
    "replacing \"a b\" by \"ab\" in the word written out with spaces also matches where \"a\" is the end of a "
    "longer symbol or \"b\" the start of one (\"xa b\" becomes \"xab\"): compare whole symbols, "
    "word[k] == pair[0] and word[k + 1] == pair[1]",
    _merge_by_replace)

MERGE_PAIR = [MERGED_ONCE_PER_WORD, SECOND_SYMBOL_KEPT, MERGED_FROM_THE_RIGHT, MERGED_BY_STRING_REPLACE]


# ---------------------------------------------------------------- learn_merges

def _learned(i, choose=ref.best_pair, update=True):
    corpus = corpus_of(i)
    merges = []
    for _ in range(int(i["num_merges"])):
        counts = ref.count_pairs(corpus)
        if not counts:
            break
        pair = choose(counts)
        merges.append(pair)
        if update:
            corpus = ref.merge_pair(corpus, pair)
    return ref.merge_codes(merges)


TIE_FIRST_SEEN = Mistake(
    "ties broken by first seen",
    "max(counts, key=counts.get) keeps the pair counted first among equally frequent ones; the rule here is "
    "the smallest pair among them: min(counts, key=lambda p: (-counts[p], p))",
    lambda i: _learned(i, choose=lambda c: max(c, key=c.get)))

TIE_LARGEST = Mistake(
    "ties broken by the largest pair",
    "among equally frequent pairs this takes the largest in Python's order; the rule here is the smallest: "
    "min(counts, key=lambda p: (-counts[p], p))",
    lambda i: _learned(i, choose=lambda c: max(c, key=lambda p: (c[p], p))))

CORPUS_NOT_UPDATED = Mistake(
    "corpus not updated after a merge",
    "the same pair was chosen again and again: merge_pair returns a new corpus, and the next count must be "
    "of that one: keep what merge_pair returns as the corpus you count next",
    lambda i: _learned(i, update=False))

LEARN_MERGES = [TIE_FIRST_SEEN, TIE_LARGEST, CORPUS_NOT_UPDATED]


# ---------------------------------------------------------------- encode

def _encoded(i, words=lambda text: text.split(" "), symbols=None, unknown="unk"):
    merges, vocab = merges_of(i), vocab_of(i)
    symbols = symbols or (lambda word: ref.word_symbols(word, merges))
    ids = []
    for word in words(i["text"]):
        for s in symbols(word):
            if s in vocab:
                ids.append(vocab[s])
            elif unknown == "unk":
                ids.append(vocab[ref.UNK])
    return np.array(ids, dtype=float)


def _in_order(word, merges, eow=True):
    symbols = tuple(word) + ((ref.EOW,) if eow else ())
    for pair in merges:
        symbols = ref.merge_symbols(symbols, pair)
    return symbols


def _where_they_occur(word, merges):
    """Left to right along the word: the first adjacent pair that is any merge is merged, again and again."""
    known = set(merges)
    symbols = tuple(word) + (ref.EOW,)
    while True:
        k = next((k for k in range(len(symbols) - 1) if (symbols[k], symbols[k + 1]) in known), None)
        if k is None:
            return symbols
        symbols = symbols[:k] + (symbols[k] + symbols[k + 1],) + symbols[k + 2:]


EOW_DROPPED = Mistake(
    "end-of-word marker dropped",
    "each word must end with \"</w>\" before the merges, as in training: tuple(word) + (EOW,); without it the "
    "merges that end a word never apply and no token says where a word ends",
    lambda i: _encoded(i, symbols=lambda word: _in_order(word, merges_of(i), eow=False)))


MERGES_REVERSED = Mistake(
    "merges applied in reverse order",
    "apply the merges in the order they were learned, first learned first: a later merge builds on the "
    "symbols the earlier ones made",
    lambda i: _encoded(i, symbols=lambda word: _in_order(word, merges_of(i)[::-1])))

MERGES_WHERE_THEY_OCCUR = Mistake(
    "merges applied where they occur, not in the order learned",
    "merging the first pair along the word that is any merge is not what training did: go through the "
    "merges in the order learned, and apply each to the whole word before the next",
    lambda i: _encoded(i, symbols=lambda word: _where_they_occur(word, merges_of(i))))

EACH_MERGE_ONCE = Mistake(
    "each merge applied once per word",
    "a merge applies at every occurrence of its pair in a word, not only the first (left to right, without "
    "overlaps), as merge_pair does",
    lambda i: _encoded(i, symbols=lambda word: _once_each(word, merges_of(i))))


def _once_each(word, merges):
    symbols = tuple(word) + (ref.EOW,)
    for pair in merges:
        symbols = _merge_first_only(symbols, pair)
    return symbols


UNKNOWN_DROPPED = Mistake(
    "unknown characters dropped",
    "a character never seen in training must become the id of <unk>, not vanish: vocab.get(symbol, vocab[UNK])",
    lambda i: _encoded(i, unknown="drop"))

SPLIT_ON_WHITESPACE = Mistake(
    "split() in place of split(\" \")",
    "split() with no argument drops empty words (two spaces in a row, a space at either end) and splits at "
    "tabs and newlines too, so decode cannot give the text back: split at single spaces, text.split(\" \")",
    lambda i: _encoded(i, words=str.split))

ENCODE = [EOW_DROPPED, MERGES_REVERSED, MERGES_WHERE_THEY_OCCUR, EACH_MERGE_ONCE, UNKNOWN_DROPPED,
          SPLIT_ON_WHITESPACE]


# ---------------------------------------------------------------- decode

def _joined(i):
    return "".join(i["tokens"][k] for k in i["ids"])


SPACES_LOST = Mistake(
    "spaces lost",
    "\"</w>\" was removed, not turned into a space, so the words run together: replace each \"</w>\" by \" \" "
    "and drop the last space",
    lambda i: ref.text_codes(_joined(i).replace(ref.EOW, "")))

LAST_SPACE_KEPT = Mistake(
    "last space kept",
    "every word ends with \"</w>\", the last one too, so the text comes out with one space too many at its "
    "end: drop the last character, [:-1]",
    lambda i: ref.text_codes(_joined(i).replace(ref.EOW, " ")))

SPACES_STRIPPED = Mistake(
    "strip() in place of dropping the last space",
    "strip() also removes the spaces the text itself had at its start and end: drop exactly one space, the "
    "last character, [:-1]",
    lambda i: ref.text_codes(_joined(i).replace(ref.EOW, " ").strip()))

SPACE_BETWEEN_TOKENS = Mistake(
    "a space between tokens",
    "\" \".join(...) puts a space between the pieces of a word too: join the tokens with \"\", and let "
    "\"</w>\" say where a space goes",
    lambda i: ref.text_codes(" ".join(i["tokens"][k] for k in i["ids"]).replace(ref.EOW, " ")[:-1]))

DECODE = [SPACES_LOST, LAST_SPACE_KEPT, SPACES_STRIPPED, SPACE_BETWEEN_TOKENS]
