"""Notebook 10's inputs: the notebook's examples and the fresh corpora and texts drawn at grading time.

A probe cannot pass a dict: a corpus travels as its words (lists of symbols) and their frequencies, merges as
lists of two symbols, a vocabulary as its list of tokens in id order.
"""
from . import reference as ref

# The example of Sennrich, Haddow and Birch (2016), Algorithm 1: four words and their frequencies.
PAPER_WORDS = ["low", "lower", "newest", "widest"]
PAPER_FREQS = [5, 2, 6, 3]
# The notebook's second corpus for count_pairs: runs of one letter ("aaaa": overlapping pairs) and a pair
# that comes back ("abab"), with frequencies.
REPEATS_WORDS = ["aaaa", "abab", "banana", "bad"]
REPEATS_FREQS = [2, 3, 1, 4]
# The notebook's second example for merge_pair: a corpus part-way through learning, with "ba" already a
# symbol, and the pair ("a", "a"), which overlaps itself in ("a", "a", "a").
MERGE_WORDS = [["a", "a", "a", ref.EOW], ["ba", "a", "a", ref.EOW], ["a", "a", "b", "a", "a", ref.EOW],
               ["b", "a", "d", ref.EOW]]
MERGE_FREQS = [3, 2, 1, 4]
MERGE_PAIR = ["a", "a"]
# The notebook's second example for learn_merges: pairs that tie, where the pair counted first is not the smallest.
TIES_WORDS = ["zoo", "boot", "tab", "bat"]
TIES_FREQS = [2, 1, 2, 2]

# The text the notebook learns its merges from (written for this notebook), and a text it has never seen.
TRAIN_TEXT = (
    "the river runs low in the summer and the old boat lies on the lower bank. "
    "newer boats are wider, and the newest boat is the widest on the river. "
    "in the winter the river runs higher and faster, and the lowest fields are under water. "
    "the farmer who owns the lower fields walks along the bank every morning and counts the boats. "
    "she knows the river better than anyone: where it is deep, where it is shallow, where the water is fastest. "
    "her father rowed the old boat, and his father built it from the wood of the tallest trees on the hill. "
    "the boat is slower than the newer boats, but it is the strongest, and it has never sunk. "
    "when the river is lowest the children walk across it, and when it is highest nobody walks near it. "
    "the town that stands on the other bank is older than the bridge, and the bridge is older than the road. "
    "every summer the town holds a boat race, and the fastest boat wins a barrel of apples. "
    "the old boat has never won, but it has finished every race, which is more than the newest boats can say. "
    "at night the river is quiet, and the only sound is the water against the wood of the lowest step. "
    "the farmer listens to it and thinks of the summers when the river was lower and the boats were fewer."
)
NUM_MERGES = 120          # the merges the notebook's encode and decode examples use
# A text with words the training text never had ("bananas" holds ("a", "n") twice), a run of two spaces, and
# characters it never saw ("7", "!").
NEW_TEXT = "the quiet river  is lower than 7 bananas!"
DECODE_TEXT = " the newest boats are slower  than the old boat"  # a space first, and a run of two


def corpus_words(corpus):
    """A corpus as the probe sends it: its words as lists of symbols, and its frequencies."""
    return {"words": [list(w) for w in corpus], "freqs": [int(f) for f in corpus.values()]}


def char_corpus(words, freqs):
    """{word as characters and EOW: frequency}."""
    return {tuple(w) + (ref.EOW,): int(f) for w, f in zip(words, freqs)}


def trained(text=TRAIN_TEXT, num_merges=NUM_MERGES):
    """(merges, tokens) learned from a text."""
    corpus = ref.corpus_from_text(text)
    merges = ref.learn_merges(corpus, num_merges)
    return merges, ref.make_vocab(corpus, merges)


# ---------------------------------------------------------------- fresh inputs

def fresh_lexicon(rng):
    """4 to 7 distinct words of 2 to 7 letters from 3 to 5 letters, with runs of one letter (a letter repeats
    its neighbour often), one word a run of 3 to 5 of one letter (overlapping pairs), and one word that
    repeats a pair of two letters ("abab"): words of the kind where the mistakes show."""
    letters = [str(c) for c in rng.choice(list("abdeilnorst"), size=int(rng.integers(3, 6)), replace=False)]
    words = {letters[0] * int(rng.integers(3, 6)), (letters[1] + letters[2]) * 2 + str(rng.choice(letters))}
    while len(words) < int(rng.integers(4, 8)):
        word = [str(rng.choice(letters))]
        for _ in range(int(rng.integers(1, 7))):
            word.append(word[-1] if rng.random() < 0.35 else str(rng.choice(letters)))
        words.add("".join(word))
    words = sorted(words)
    order = rng.permutation(len(words))
    return [words[k] for k in order], letters


def fresh_corpus(rng, merges_first=(0, 3)):
    """A fresh corpus {word: frequency}, some of its pairs already merged (0 to 2 learned merges by default)."""
    words, _ = fresh_lexicon(rng)
    corpus = char_corpus(words, rng.integers(1, 7, size=len(words)))
    for pair in ref.learn_merges(corpus, int(rng.integers(*merges_first))):
        corpus = ref.merge_pair(corpus, pair)
    return corpus


def fresh_text_case(rng):
    """Merges learned from a fresh text, and a new text to encode: words of the training text and new words,
    a character never seen in training, a run of spaces, a space at the start or the end."""
    words, letters = fresh_lexicon(rng)
    freqs = rng.integers(1, 5, size=len(words))
    train = " ".join(w for w, f in zip(words, freqs) for _ in range(int(f)))
    merges, tokens = trained(train, int(rng.integers(4, 11)))
    unseen = str(rng.choice([c for c in "cfghkmpquvwxyz" if c not in letters]))
    new_words = [str(rng.choice(words)) for _ in range(int(rng.integers(3, 6)))]
    k = int(rng.integers(len(new_words)))
    cut = int(rng.integers(len(new_words[k]) + 1))
    new_words[k] = new_words[k][:cut] + unseen + new_words[k][cut:]
    gaps = [" "] * (len(new_words) - 1)
    gaps[int(rng.integers(len(gaps)))] = " " * int(rng.integers(2, 4))
    text = new_words[0] + "".join(g + w for g, w in zip(gaps, new_words[1:]))
    text = " " + text if rng.random() < 0.5 else text + " "
    return {"text": text, "merges": [list(m) for m in merges], "tokens": tokens}, len(merges)
