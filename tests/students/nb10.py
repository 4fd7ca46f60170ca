"""Sample students of notebook 10 (byte-pair encoding): the answer key, right answers written other ways, the
untouched notebook, and one mistake per part, two parts to a student where the parts are independent.

learn_merges calls count_pairs and merge_pair, and the answer key's encode calls merge_pair: a student whose
helper is wrong gets those parts marked with the course's helper in its place (all their marks when that is
their only fault). The expected scores below follow from the notebook's examples: every mistake is wrong on
every fresh input (the grader draws them so); where a mistake is right on one of a part's two examples, it
keeps that example's share, a sixth of the part (0.33 of 2).
"""
from tests.students import MANUAL, Student

A10 = "10_byte_pair_encoding"
FULL_10 = {"test_count_pairs": 2, "test_merge_pair": 2, "test_learn_merges": 2, "test_encode": 2, "test_decode": 2,
           "why_not_words": MANUAL}


def _10(**changed):
    return dict(FULL_10, **changed)


# Right, written other ways: a Counter, Sennrich et al.'s regular expression (a match must stand between
# spaces), a sort for the tie-break, an encode with its own loop, a decode that splits at the marker.
COUNTER = """\
from collections import Counter

def count_pairs(corpus):
  counts = Counter()
  for word, freq in corpus.items():
    for k in range(len(word) - 1):
      counts[word[k], word[k + 1]] += freq
  return counts"""

REGEX_MERGE = """\
import re

def merge_pair(corpus, pair):
  pattern = re.compile(r"(?<!\\S)" + re.escape(" ".join(pair)) + r"(?!\\S)")
  merged = {}
  for word, freq in corpus.items():
    new = tuple(pattern.sub("".join(pair), " ".join(word)).split(" "))
    merged[new] = merged.get(new, 0) + freq
  return merged"""

SORTED_LEARN = """\
def learn_merges(corpus, num_merges):
  merges = []
  while len(merges) < num_merges:
    counts = count_pairs(corpus)
    if len(counts) == 0:
      break
    best = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[0][0]
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges"""

OWN_LOOP_ENCODE = """\
def encode(text, merges, vocab):
  ids = []
  for word in text.split(" "):
    symbols = list(word) + [EOW]
    for a, b in merges:
      k = 0
      while k < len(symbols) - 1:
        if symbols[k] == a and symbols[k + 1] == b:
          symbols[k:k + 2] = [a + b]
        k += 1
    ids.extend(vocab[s] if s in vocab else vocab[UNK] for s in symbols)
  return ids"""

SPLIT_DECODE = """\
def decode(ids, tokens):
  pieces = "".join(tokens[i] for i in ids).split(EOW)  # the last piece is what follows the last marker: ""
  return " ".join(pieces[:-1])"""

# Mistakes written as whole cells.
FROM_THE_RIGHT = """\
def merge_pair(corpus, pair):
  merged = {}
  for word, freq in corpus.items():
    symbols, k = [], len(word) - 1
    while k >= 0:
      if k >= 1 and word[k - 1] == pair[0] and word[k] == pair[1]:
        symbols.insert(0, word[k - 1] + word[k])
        k -= 2
      else:
        symbols.insert(0, word[k])
        k -= 1
    merged[tuple(symbols)] = merged.get(tuple(symbols), 0) + freq
  return merged"""

STRING_REPLACE = """\
def merge_pair(corpus, pair):
  merged = {}
  for word, freq in corpus.items():
    new = tuple(" ".join(word).replace(" ".join(pair), "".join(pair)).split(" "))
    merged[new] = merged.get(new, 0) + freq
  return merged"""

WHERE_THEY_OCCUR = """\
def encode(text, merges, vocab):
  known = set(merges)
  ids = []
  for word in text.split(" "):
    symbols = list(word) + [EOW]
    merged = True
    while merged:
      merged = False
      for k in range(len(symbols) - 1):
        if (symbols[k], symbols[k + 1]) in known:
          symbols[k:k + 2] = [symbols[k] + symbols[k + 1]]
          merged = True
          break
    ids += [vocab.get(s, vocab[UNK]) for s in symbols]
  return ids"""

EACH_MERGE_ONCE = """\
def encode(text, merges, vocab):
  ids = []
  for word in text.split(" "):
    symbols = list(word) + [EOW]
    for a, b in merges:
      for k in range(len(symbols) - 1):
        if symbols[k] == a and symbols[k + 1] == b:
          symbols[k:k + 2] = [a + b]
          break
    ids += [vocab.get(s, vocab[UNK]) for s in symbols]
  return ids"""

OVERLAPS_ONCE = """\
def count_pairs(corpus):
  counts = {}
  for word, freq in corpus.items():
    for pair in dict.fromkeys(zip(word[:-1], word[1:])):  # each pair, found as a search finds it
      n, k = 0, 0
      while k + 1 < len(word):
        if (word[k], word[k + 1]) == pair:
          n, k = n + 1, k + 2
        else:
          k += 1
      counts[pair] = counts.get(pair, 0) + n * freq
  return counts"""

COUNT_LINE = "for pair in zip(word[:-1], word[1:]):"
ADD_LINE = "counts[pair] = counts.get(pair, 0) + freq"
STEP = 'k += 2  # both symbols used: ("a", "a", "a") becomes ("aa", "a")'
CHOOSE = "pair = min(counts, key=lambda p: (-counts[p], p))"
DECODE = 'text = "".join(tokens[i] for i in ids).replace(EOW, " ")[:-1]'

STUDENTS = {
    "correct": Student(A10, FULL_10),
    "correct_other_ways": Student(A10, FULL_10, cells={
        "count_pairs_def": COUNTER, "merge_pair_def": REGEX_MERGE, "learn_merges_def": SORTED_LEARN,
        "encode_def": OWN_LOOP_ENCODE, "decode_def": SPLIT_DECODE}),
    "untouched": Student(A10, {"test_count_pairs": 0, "test_merge_pair": 0, "test_learn_merges": 0, "test_encode": 0,
                               "test_decode": 0, "why_not_words": 0}, untouched=True),
    # A wrong count_pairs: learn_merges, which calls it, is marked with the course's and keeps its marks.
    "overlaps_once_eow_dropped": Student(
        A10, _10(test_count_pairs=0.33, test_encode=0),
        cells={"count_pairs_def": OVERLAPS_ONCE},
        edits={"encode_def": [("symbols = tuple(word) + (EOW,)", "symbols = tuple(word)")]},
        diagnoses={"test_count_pairs": "overlapping pairs counted once", "test_encode": "end-of-word marker dropped",
                   "test_learn_merges": "right once your count_pairs is fixed"}),
    "once_per_word_reversed": Student(
        A10, _10(test_count_pairs=0.33, test_encode=0),
        edits={"count_pairs_def": [(COUNT_LINE, "for pair in set(zip(word[:-1], word[1:])):")],
               "encode_def": [("for pair in merges:", "for pair in merges[::-1]:")]},
        diagnoses={"test_count_pairs": "a pair counted once per word", "test_encode": "merges applied in reverse order"}),
    "frequency_ignored_where_they_occur": Student(
        A10, _10(test_count_pairs=0, test_encode=0),
        edits={"count_pairs_def": [(ADD_LINE, "counts[pair] = counts.get(pair, 0) + 1")]},
        cells={"encode_def": WHERE_THEY_OCCUR},
        diagnoses={"test_count_pairs": "frequencies ignored",
                   "test_encode": "merges applied where they occur, not in the order learned"}),
    # A wrong merge_pair: learn_merges and the answer key's encode call it, and keep their marks. Merged once per
    # word, from the right or by string replace, it is right on two of the three examples (the paper's first merge
    # and its third, a pair at the end of its words, which overlaps nothing): 2 x 1/3 x 2/3 = 0.44.
    "merged_once_spaces_lost": Student(
        A10, _10(test_merge_pair=0.44, test_decode=0),
        edits={"merge_pair_def": [(STEP, "symbols += word[k + 2:]\n        break")],
               "decode_def": [(DECODE, 'text = "".join(tokens[i] for i in ids).replace(EOW, "")')]},
        diagnoses={"test_merge_pair": "merged once per word", "test_decode": "spaces lost",
                   "test_encode": "right once your merge_pair is fixed"}),
    "second_symbol_kept_last_space": Student(
        A10, _10(test_merge_pair=0, test_decode=0),
        edits={"merge_pair_def": [(STEP, "k += 1")],
               "decode_def": [(DECODE, 'text = "".join(tokens[i] for i in ids).replace(EOW, " ")')]},
        diagnoses={"test_merge_pair": "the pair's second symbol kept", "test_decode": "last space kept"}),
    "from_the_right_strip": Student(
        A10, _10(test_merge_pair=0.44, test_decode=0),
        cells={"merge_pair_def": FROM_THE_RIGHT},
        edits={"decode_def": [(DECODE, 'text = "".join(tokens[i] for i in ids).replace(EOW, " ").strip()')]},
        diagnoses={"test_merge_pair": "merged from the right",
                   "test_decode": "strip() in place of dropping the last space"}),
    "string_replace_space_between": Student(
        A10, _10(test_merge_pair=0.44, test_decode=0),
        cells={"merge_pair_def": STRING_REPLACE},
        edits={"decode_def": [(DECODE, 'text = " ".join(tokens[i] for i in ids).replace(EOW, " ")[:-1]')]},
        diagnoses={"test_merge_pair": "merged by string replace", "test_decode": "a space between tokens"}),
    "ties_first_seen_unknown_dropped": Student(
        A10, _10(test_learn_merges=0, test_encode=0),
        edits={"learn_merges_def": [(CHOOSE, "pair = max(counts, key=counts.get)")],
               "encode_def": [("ids += [vocab.get(symbol, vocab[UNK]) for symbol in symbols]",
                               "ids += [vocab[symbol] for symbol in symbols if symbol in vocab]")]},
        diagnoses={"test_learn_merges": "ties broken by first seen", "test_encode": "unknown characters dropped"}),
    "ties_largest_split_whitespace": Student(
        A10, _10(test_learn_merges=0, test_encode=0),
        edits={"learn_merges_def": [(CHOOSE, "pair = max(counts, key=lambda p: (counts[p], p))")],
               "encode_def": [('for word in text.split(" "):', "for word in text.split():")]},
        diagnoses={"test_learn_merges": "ties broken by the largest pair", "test_encode": 'split() in place of split(" ")'}),
    "corpus_not_updated_each_merge_once": Student(
        A10, _10(test_learn_merges=0, test_encode=0),
        edits={"learn_merges_def": [("corpus = merge_pair(corpus, pair)", "merge_pair(corpus, pair)")]},
        cells={"encode_def": EACH_MERGE_ONCE},
        diagnoses={"test_learn_merges": "corpus not updated after a merge",
                   "test_encode": "each merge applied once per word"}),
}
