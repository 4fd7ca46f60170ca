"""Notebook 10, byte-pair encoding: its probes and the values its checks show.

Every result is reported as numbers (reference.py, "results as numbers"): count_pairs's dict as the count
of every pair of the corpus's symbols, merge_pair's corpus as each word's frequency and symbol lengths,
learn_merges's pairs and decode's text as code points, encode's ids as they are. The probe's call does that
conversion in the kernel, and the notebook's checks do the same (its cell "how the checks read your results").
A text is read by str's own methods (str.__str__), never by a method its class may override: a str subclass
whose iteration gives other characters than it holds (attacks7's b10) is read as what it holds.
"""
import numpy as np

from . import cases, mistakes, readings, reference as ref
from ..shared import cases as shared_cases
from ...engine.protocol import Case, Probe, Trait, held, kernel_source

N_FRESH = 3
NP = "__import__('numpy')"
CORPUS = "{tuple(w): f for w, f in zip(words, freqs)}"  # a probe cannot pass a dict: the call builds it
# The copy of it a function is given, reported after the call (Probe.handed): one that changes it in place is seen
HANDED = held("corpus", "dict(c)")


_same, _results, _every_mistake_shows, _helper_mistakes_show = (
    shared_cases.same_result, shared_cases.results_of, shared_cases.every_mistake_shows,
    shared_cases.helper_mistakes_show)


def _told_apart(probe, inputs_list):
    """Whether, for every two mistakes, some inputs give them different results."""
    results = [_results(probe, i)[1:] for i in inputs_list]
    n = len(probe.mistakes)
    return all(any(not _same(r[a], r[b]) for r in results) for a in range(n) for b in range(a + 1, n))


def _fresh(rng, probe, draw):
    """N_FRESH fresh cases, each wrong for every mistake, and together telling every two mistakes apart and
    showing each mistake of the helpers the part calls (a corpus where no pair overlaps itself learns the same
    merges with a count_pairs that counts overlapping pairs once)."""
    while True:
        drawn = []
        while len(drawn) < N_FRESH:
            inputs, about = draw(rng)
            if _every_mistake_shows(probe, inputs):
                drawn.append((inputs, about))
        inputs = [i for i, _ in drawn]
        if _told_apart(probe, inputs) and _helper_mistakes_show(probe, PROBES, inputs):
            return [Case("fresh", i, about=about) for i, about in drawn]


# ---------------------------------------------------------------- the notebook's examples

def paper_corpus():
    return cases.char_corpus(cases.PAPER_WORDS, cases.PAPER_FREQS)


def repeats_corpus():
    return cases.char_corpus(cases.REPEATS_WORDS, cases.REPEATS_FREQS)


def merge_example():
    return {**cases.corpus_words({tuple(w): f for w, f in zip(cases.MERGE_WORDS, cases.MERGE_FREQS)}),
            "pair": list(cases.MERGE_PAIR)}


def paper_merge():
    return {**cases.corpus_words(paper_corpus()), "pair": ["e", "s"]}


def end_merge():
    """The paper's corpus after its first two merges, ("e", "s") and ("es", "t"), and its third, ("est", "</w>"):
    a pair that is the last two symbols of its words, where a loop bound one short never looks."""
    corpus = paper_corpus()
    for pair in (("e", "s"), ("es", "t")):
        corpus = ref.merge_pair(corpus, pair)
    return {**cases.corpus_words(corpus), "pair": ["est", ref.EOW]}


def learn_examples():
    return [{**cases.corpus_words(paper_corpus()), "num_merges": 10},
            {**cases.corpus_words(cases.char_corpus(cases.TIES_WORDS, cases.TIES_FREQS)), "num_merges": 6}]


def text_examples():
    merges, tokens = cases.trained()
    common = {"merges": [list(m) for m in merges], "tokens": tokens}
    encode_example = {"text": cases.NEW_TEXT, **common}
    vocab = {t: n for n, t in enumerate(tokens)}
    decode_example = {"ids": ref.encode(cases.DECODE_TEXT, merges, vocab), "tokens": tokens}
    return encode_example, decode_example


# ---------------------------------------------------------------- cases

def _count_draw(rng):
    corpus = cases.fresh_corpus(rng)
    return cases.corpus_words(corpus), f"{len(corpus)} words"


def _count_cases(rng):
    book = [Case("book", cases.corpus_words(paper_corpus())),
            Case("book", cases.corpus_words(repeats_corpus()), about="the notebook's second corpus")]
    return book + _fresh(rng, PROBES["test_count_pairs"], _count_draw)


def _merge_draw(rng):
    """A corpus with one or two symbols already merged, and a pair to merge: most often a letter with itself
    (overlapping occurrences), else any pair of the corpus."""
    corpus = cases.fresh_corpus(rng, merges_first=(0, 1))
    doubles = sorted(p for p in ref.count_pairs(corpus) if p[0] == p[1])
    pair = doubles[int(rng.integers(len(doubles)))] if doubles and rng.random() < 0.8 else None
    others = sorted(p for p in ref.count_pairs(corpus) if p != pair and pair and pair[0] in p)
    for _ in range(int(rng.integers(1, 3))):  # merge pairs that hold the pair's symbol: "ba" beside "a"
        if others:
            corpus = ref.merge_pair(corpus, others[int(rng.integers(len(others)))])
            others = sorted(p for p in ref.count_pairs(corpus) if p != pair and pair[0] in p)
    pairs = sorted(ref.count_pairs(corpus))
    if pair not in pairs:
        pair = pairs[int(rng.integers(len(pairs)))]
    return {**cases.corpus_words(corpus), "pair": list(pair)}, f"{len(corpus)} words, the pair {pair}"


def _merge_cases(rng):
    book = [Case("book", paper_merge()), Case("book", merge_example(), about="the notebook's second example"),
            Case("book", end_merge(), about="the notebook's third example, a pair at the end of its words")]
    return book + _fresh(rng, PROBES["test_merge_pair"], _merge_draw)


def _merges_seen_more_than_once(corpus):
    """(how many merges learning makes before the most frequent pair is one seen once, whether a pair is
    left then)."""
    n = 0
    while True:
        counts = ref.count_pairs(corpus)
        if not counts or counts[ref.best_pair(counts)] < 2:
            return n, bool(counts)
        corpus = ref.merge_pair(corpus, ref.best_pair(counts))
        n += 1


def _merges_until_no_pair(corpus):
    """How many merges learning makes before no pair is left (every word one symbol)."""
    n = 0
    while ref.count_pairs(corpus):
        corpus = ref.merge_pair(corpus, ref.best_pair(ref.count_pairs(corpus)))
        n += 1
    return n


def _learn_draw(rng):
    """A fresh corpus, and 1 to 3 merges more than those of pairs seen twice or more, with a pair seen once
    still left then: learning goes on while any pair is left, a pair seen once included, and every fresh
    case shows it. Half the time, 1 or 2 merges more than the corpus has pairs for: learning then stops when no
    pair is left, as the notebook's 300 merges on its training text do."""
    while True:
        corpus = cases.fresh_corpus(rng, merges_first=(0, 1))
        n, left = _merges_seen_more_than_once(corpus)
        if left:
            n = _merges_until_no_pair(corpus) + int(rng.integers(1, 3)) if rng.random() < 0.5 else \
                n + int(rng.integers(1, 4))
            return {**cases.corpus_words(corpus), "num_merges": n}, f"{len(corpus)} words, {n} merges"


def _runs_out(inputs):
    return int(inputs["num_merges"]) > _merges_until_no_pair(_corpus(inputs))


def _learn_cases(rng):
    paper, ties = learn_examples()
    book = [Case("book", paper), Case("book", ties, about="the notebook's second corpus")]
    while True:  # at least one fresh case asks for more merges than its corpus has pairs for, and one does not
        fresh = _fresh(rng, PROBES["test_learn_merges"], _learn_draw)
        if len({_runs_out(c.inputs) for c in fresh}) == 2:
            return book + fresh


def _encode_draw(rng):
    inputs, n = cases.fresh_text_case(rng)
    return inputs, f"{n} merges, a text of {len(inputs['text'])} characters"


# The last case encodes the first fresh text again, with fewer of its merges: an encode that keeps something from
# one call to the next (segmentations memoised by word in a default argument, a global) gives the earlier call's
# answer there, and the verdict says which input it is wrong on (round 8)
AGAIN = Trait("the text is one an earlier call encoded, now with fewer merges", "the text is new to the calls before",
              note="each call's ids depend on its own text and merges alone")


def _encode_cases(rng):
    encoded = lambda i: ref.encode(i["text"], mistakes.merges_of(i), mistakes.vocab_of(i))  # noqa: E731
    while True:  # fresh texts whose first has a shorter list of merges that gives other ids and shows every mistake
        fresh = _fresh(rng, PROBES["test_encode"], _encode_draw)
        first = fresh[0].inputs
        found = [(k, dict(first, merges=first["merges"][:k])) for k in range(len(first["merges"]) // 2, -1, -1)]
        found = [(k, i) for k, i in found
                 if encoded(i) != encoded(first) and _every_mistake_shows(PROBES["test_encode"], i)]
        if found:
            k, again = found[0]
            break
    return [Case("book", text_examples()[0], traits={AGAIN: False})] + \
        [Case("fresh", c.inputs, about=c.about, traits={AGAIN: False}) for c in fresh] + \
        [Case("fresh", again, about=f"the first fresh text again, with its first {k} merges only",
              traits={AGAIN: True})]


def _decode_draw(rng):
    inputs, n = cases.fresh_text_case(rng)
    vocab = {t: k for k, t in enumerate(inputs["tokens"])}
    ids = ref.encode(inputs["text"], [tuple(m) for m in inputs["merges"]], vocab)
    return {"ids": ids, "tokens": inputs["tokens"]}, f"{len(ids)} ids"


def _ends_in_a_merged_word_end(inputs):
    """Whether the ids' last token is a word's end merged with letters ('oat</w>'), not a lone '</w>'."""
    last = inputs["tokens"][inputs["ids"][-1]]
    return last != ref.EOW and last.endswith(ref.EOW)


def _decode_cases(rng):
    while True:  # a text that ends in a lone '</w>' does not show a decode that drops the last token
        fresh = _fresh(rng, PROBES["test_decode"], _decode_draw)
        if any(_ends_in_a_merged_word_end(c.inputs) for c in fresh):
            return [Case("book", text_examples()[1])] + fresh


def _corpus(i):
    return mistakes.corpus_of(i)


PROBES = {
    "test_count_pairs": Probe(
        what="count_pairs",
        call=f"(lambda c: (lambda s: (lambda r: {NP}.array([r.get((a, b), 0) for a in s for b in s] + "
             "[sum(1 for k, v in r.items() if v and not (isinstance(k, tuple) and len(k) == 2 and k[0] in s "
             f"and k[1] in s))], dtype=float))(count_pairs({HANDED})))(sorted({{x for w in c for x in w}})))({CORPUS})",
        cases=_count_cases,
        reference=lambda i: ref.pair_table(ref.count_pairs(_corpus(i)), _corpus(i)),
        mistakes=mistakes.COUNT_PAIRS,
        readings=(readings.pair_counts,),  # the numbers read back as what the code made
        relative=True,  # reported against the corpus given: another answer can report the same numbers
        kernel_reference=kernel_source("count_pairs", ref.count_pairs),
        handed={"corpus": _corpus},
        exact_shape=True,
    ),
    "test_merge_pair": Probe(
        what="merge_pair",
        call=f"(lambda c: (lambda r: [{NP}.array(next(([r[k]] + [len(x) for x in k] for k in r "
             "if ''.join(k) == ''.join(w)), [-1]), dtype=float) for w in c] + "
             f"[{NP}.array([len(r)], dtype=float)])(merge_pair({HANDED}, tuple(pair))))({CORPUS})",
        cases=_merge_cases,
        reference=lambda i: ref.segment_lengths(ref.merge_pair(_corpus(i), tuple(i["pair"])), _corpus(i)),
        mistakes=mistakes.MERGE_PAIR,
        readings=(readings.merged_words,),  # the numbers read back as what the code made
        relative=True,  # reported against the corpus given: another answer can report the same numbers
        kernel_reference=kernel_source("merge_pair", ref.merge_pair, ref.merge_symbols),
        handed={"corpus": _corpus},
    ),
    "test_learn_merges": Probe(
        what="learn_merges",
        call=f"(lambda c: [{NP}.array([ord(ch) for ch in str.__str__(a)] + [-1] + [ord(ch) for ch in str.__str__(b)], "
             "dtype=float) "
             f"for a, b in learn_merges({HANDED}, num_merges)])({CORPUS})",
        cases=_learn_cases,
        reference=lambda i: ref.merge_codes(ref.learn_merges(_corpus(i), int(i["num_merges"]))),
        reference_with=lambda i, helpers: ref.merge_codes(
            ref.learn_merges(_corpus(i), int(i["num_merges"]), **helpers)),
        mistakes=mistakes.LEARN_MERGES,
        readings=(readings.learned,),  # the numbers read back as what the code made
        uses={"count_pairs": "test_count_pairs", "merge_pair": "test_merge_pair"},
        handed={"corpus": _corpus},
    ),
    "test_encode": Probe(
        what="encode",
        call=f"{NP}.asarray(encode(text, [tuple(m) for m in merges], {{t: n for n, t in enumerate(tokens)}}), "
             "dtype=float)",
        cases=_encode_cases,
        reference=lambda i: np.array(ref.encode(i["text"], mistakes.merges_of(i), mistakes.vocab_of(i)), dtype=float),
        reference_with=lambda i, helpers: np.array(
            ref.encode(i["text"], mistakes.merges_of(i), mistakes.vocab_of(i), **helpers), dtype=float),
        mistakes=mistakes.ENCODE,
        readings=(readings.encoded,),  # the numbers read back as what the code made
        uses={"merge_pair": "test_merge_pair"},  # an encode that merges with merge_pair
        exact_shape=True,
    ),
    "test_decode": Probe(
        what="decode",
        call=f"{NP}.array([ord(ch) for ch in str.__str__(decode(ids, tokens))], dtype=float)",
        cases=_decode_cases,
        reference=lambda i: ref.text_codes(ref.decode(i["ids"], i["tokens"])),
        mistakes=mistakes.DECODE,
        readings=(readings.decoded,),  # the numbers read back as what the code made
        exact_shape=True,
    ),
}


# ---------------------------------------------------------------- generated cells

def _differing(probe, i):
    """{what a check says: the mistake's value} for the mistakes of `probe` that are wrong on inputs i."""
    true = probe.reference(i)
    return {m.said: m.compute(i) for m in probe.mistakes if not _same(m.compute(i), true)}


def _bpe_count():
    probe = PROBES["test_count_pairs"]
    paper, repeats = cases.corpus_words(paper_corpus()), cases.corpus_words(repeats_corpus())
    return {"paper_words": list(cases.PAPER_WORDS), "paper_freqs": list(cases.PAPER_FREQS),
            "repeats_words": list(cases.REPEATS_WORDS), "repeats_freqs": list(cases.REPEATS_FREQS),
            "paper_pairs_true": probe.reference(paper), "paper_pairs_mistakes": _differing(probe, paper),
            "repeats_pairs_true": probe.reference(repeats), "repeats_pairs_mistakes": _differing(probe, repeats)}


def _bpe_merge():
    probe = PROBES["test_merge_pair"]
    paper, other, end = paper_merge(), merge_example(), end_merge()
    return {"paper_merge_pair": paper["pair"],
            "paper_merged_true": probe.reference(paper), "paper_merged_mistakes": _differing(probe, paper),
            "other_words": other["words"], "other_freqs": other["freqs"], "other_pair": other["pair"],
            "other_merged_true": probe.reference(other), "other_merged_mistakes": _differing(probe, other),
            "end_words": end["words"], "end_freqs": end["freqs"], "end_pair": end["pair"],
            "end_merged_true": probe.reference(end), "end_merged_mistakes": _differing(probe, end)}


def _bpe_learn():
    probe = PROBES["test_learn_merges"]
    paper, ties = learn_examples()
    return {"ties_words": list(cases.TIES_WORDS), "ties_freqs": list(cases.TIES_FREQS),
            "paper_merges_true": probe.reference(paper), "paper_merges_mistakes": _differing(probe, paper),
            "ties_merges_true": probe.reference(ties), "ties_merges_mistakes": _differing(probe, ties)}


def _bpe_text():
    encode_example, decode_example = text_examples()
    encoded, decoded = PROBES["test_encode"], PROBES["test_decode"]
    return {"train_text": cases.TRAIN_TEXT, "new_text": cases.NEW_TEXT, "decode_text": cases.DECODE_TEXT,
            "train_merges": [" ".join(m) for m in encode_example["merges"]],  # "a b": a symbol holds no space
            "new_text_ids_true": encoded.reference(encode_example),
            "encode_mistakes": _differing(encoded, encode_example),
            "decode_ids": decode_example["ids"],
            "decoded_true": decoded.reference(decode_example),
            "decode_mistakes": _differing(decoded, decode_example)}


VALUES = {
    "bpe_count": _bpe_count,
    "bpe_merge": _bpe_merge,
    "bpe_learn": _bpe_learn,
    "bpe_text": _bpe_text,
}
