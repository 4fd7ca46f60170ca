"""Notebook 10's reference implementations: byte-pair encoding as Sennrich, Haddow and Birch (2016) learn it,
with the rules the notebook states.

- A corpus is {word: frequency}, a word a tuple of symbols (strings). A text's words are text.split(" "), so
  two spaces in a row give an empty word; each word becomes its characters followed by the end-of-word
  marker EOW.
- count_pairs counts every adjacent pair at every position (("a", "a", "a") holds ("a", "a") twice), times
  the word's frequency.
- merge_pair merges left to right, without overlaps: ("a", "a", "a") with ("a", "a") gives ("aa", "a").
- learn_merges takes the most frequent pair; among equally frequent pairs, the smallest in Python's order
  of tuples (first symbols compared, then second; characters by code point). It stops early when no pair
  is left.
- encode applies the merges to each word in the order they were learned; a symbol not in the vocabulary
  (a character never seen in training) gets the id of UNK.
- decode joins the tokens' strings, turns every EOW into a space and drops the last space.
"""
import numpy as np

EOW = "</w>"
UNK = "<unk>"


def corpus_from_text(text):
    """{word as a tuple of characters and EOW: how many times it occurs}, in order of first occurrence."""
    corpus = {}
    for word in text.split(" "):
        key = tuple(word) + (EOW,)
        corpus[key] = corpus.get(key, 0) + 1
    return corpus


def count_pairs(corpus):
    """{(a, b): how many times symbol a is directly followed by symbol b}, over the corpus, with frequencies."""
    counts = {}
    for word, freq in corpus.items():
        for pair in zip(word[:-1], word[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def merge_symbols(symbols, pair):
    """One word's symbols with every occurrence of `pair` merged, left to right, without overlaps."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def merge_pair(corpus, pair):
    """A new corpus with `pair` merged in every word."""
    merged = {}
    for word, freq in corpus.items():
        new = merge_symbols(word, pair)
        merged[new] = merged.get(new, 0) + freq
    return merged


def best_pair(counts):
    """The most frequent pair; among equally frequent ones, the smallest tuple."""
    return min(counts, key=lambda pair: (-counts[pair], pair))


def learn_merges(corpus, num_merges, count_pairs=count_pairs, merge_pair=merge_pair):
    """The merges, in the order learned: up to num_merges pairs (fewer when no pair is left). The helpers can
    be given, as a student's learn_merges calls theirs (probes.py draws corpora where a wrong one shows)."""
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(corpus)
        if not counts:
            break
        pair = best_pair(counts)
        merges.append(pair)
        corpus = merge_pair(corpus, pair)
    return merges


def make_vocab(corpus, merges):
    """The tokens, in id order: UNK, EOW, the corpus's characters sorted, then each merge's new symbol
    (a symbol made twice keeps its first id)."""
    tokens = [UNK, EOW]
    for symbol in sorted({s for word in corpus for s in word} - {EOW}) + [a + b for a, b in merges]:
        if symbol not in tokens:
            tokens.append(symbol)
    return tokens


def word_symbols(word, merges, merge_pair=merge_pair):
    """One word of a text as the symbols the merges make of it, applied in the order learned, with merge_pair
    as the notebook's encode does."""
    symbols = tuple(word) + (EOW,)
    for pair in merges:
        symbols = next(iter(merge_pair({symbols: 1}, pair)))
    return symbols


def encode(text, merges, vocab, merge_pair=merge_pair):
    """The token ids of a text; vocab is {token: id}."""
    ids = []
    for word in text.split(" "):
        ids += [vocab.get(s, vocab[UNK]) for s in word_symbols(word, merges, merge_pair)]
    return ids


def decode(ids, tokens):
    """The text of a list of ids; tokens is the list of token strings, in id order."""
    return "".join(tokens[i] for i in ids).replace(EOW, " ")[:-1]


# ---------------------------------------------------------------- results as numbers (what the probes report)

def symbols_of(corpus):
    """The sorted symbols a corpus uses."""
    return sorted({s for word in corpus for s in word})


def pair_table(counts, corpus):
    """count_pairs's result as numbers: the count of every (a, b) of the corpus's symbols, a before b in
    sorted order, then the number of other keys with a nonzero count."""
    symbols = symbols_of(corpus)
    table = [counts.get((a, b), 0) for a in symbols for b in symbols]
    other = sum(1 for k, v in counts.items()
                if v and not (isinstance(k, tuple) and len(k) == 2 and k[0] in symbols and k[1] in symbols))
    return np.array(table + [other], dtype=float)


def segment_lengths(merged, corpus):
    """merge_pair's result as numbers: for each word of the given corpus, in order, [frequency, the lengths
    of its symbols] in the result (the result's word with the same characters), or [-1] if there is none;
    then [the number of words in the result]."""
    out = []
    for word in corpus:
        found = next((k for k in merged if "".join(k) == "".join(word)), None)
        out.append(np.array([-1.0] if found is None else [merged[found]] + [len(s) for s in found], dtype=float))
    return out + [np.array([len(merged)], dtype=float)]


def merge_codes(merges):
    """learn_merges's result as numbers: one array per merge, the code points of its first symbol, -1, then
    those of its second."""
    return [np.array([ord(c) for c in a] + [-1] + [ord(c) for c in b], dtype=float) for a, b in merges]


def text_codes(text):
    """decode's result as numbers: the code point of every character."""
    return np.array([ord(c) for c in text], dtype=float)
