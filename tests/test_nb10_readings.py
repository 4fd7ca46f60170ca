"""Notebook 10's readings (grader/course/nb10_byte_pair_encoding/readings.py) say a wrong result in the student's
terms: pairs, words, merges, tokens, text. Each is shown here on a mistake the catalogue does not have, written
below, with the reference's pieces for everything else; and each says nothing of a right result."""
import numpy as np
from grader.course.nb10_byte_pair_encoding import readings, reference as ref
from grader.course.nb10_byte_pair_encoding.mistakes import corpus_of
from grader.course.nb10_byte_pair_encoding.cases import corpus_words
from grader.course.nb10_byte_pair_encoding.probes import PROBES, learn_examples, text_examples


def _book(part):
    return PROBES[part].cases(np.random.default_rng(0))[0].inputs


def _counted(corpus, positions, times=lambda freq: freq):
    counts = {}
    for word, freq in corpus.items():
        for k in positions(len(word)):
            counts[word[k], word[k + 1]] = counts.get((word[k], word[k + 1]), 0) + times(freq)
    return counts


def test_pair_counts_says_which_positions_a_loop_with_other_bounds_or_step_leaves_out():
    inputs = _book("test_count_pairs")
    corpus = corpus_of(inputs)
    for positions, words in ((lambda n: range(n - 2), "leave out the last pair of each word"),
                             (lambda n: range(1, n - 1), "leave out the first pair of each word"),
                             (lambda n: range(0, n - 1, 2), "count only every other pair of each word (positions 0, "
                                                            "2, 4, ...)")):
        said = readings.pair_counts(inputs, ref.pair_table(_counted(corpus, positions), corpus))
        assert said == f"your counts {words}: count the pair at every position, k = 0 to len(word) - 2, times the " \
                       "word's frequency", said
    assert readings.pair_counts(inputs, ref.pair_table(ref.count_pairs(corpus), corpus)) is None


def test_pair_counts_says_every_pair_is_counted_the_wrong_way_round():
    """Round 15's o10: zip(word[1:], word[:-1]) keys each pair as (the symbol, the one before it)."""
    inputs = _book("test_count_pairs")
    corpus = corpus_of(inputs)
    backwards = {}
    for word, freq in corpus.items():
        for pair in zip(word[1:], word[:-1]):
            backwards[pair] = backwards.get(pair, 0) + freq
    said = readings.pair_counts(inputs, ref.pair_table(backwards, corpus))
    assert said and said.startswith("your counts give every pair the wrong way round, (") and said.endswith(
        "a key is (word[k], word[k + 1]), a symbol and then the one after it"), said
    import ast
    import re
    shown, a, b = re.search(r"way round, (\(.+?\)) where (.+?) is followed by (.+?):", said).groups()
    a, b = ast.literal_eval(a), ast.literal_eval(b)
    assert ast.literal_eval(shown) == (b, a) and (a, b) in ref.count_pairs(corpus), said  # the corpus's pair, forwards


def test_pair_counts_names_the_pairs_counted_wrong_otherwise():
    inputs = _book("test_count_pairs")
    corpus = corpus_of(inputs)
    right = ref.count_pairs(corpus)
    once = _counted(corpus, lambda n: range(n - 1), times=lambda freq: 1)  # each word once, whatever its frequency
    said = readings.pair_counts(inputs, ref.pair_table(once, corpus))
    first = next(p for p in sorted(right) if once[p] != right[p])
    assert said.startswith(f"your counts give the pair {first!r} {once[first]} time"), said
    assert f"where the corpus has it {right[first]} times" in said, said


def test_merged_words_shows_the_first_word_merged_otherwise():
    inputs = {**corpus_words({("l", "o", "w", ref.EOW): 3, ("e", "s", "e", "s", ref.EOW): 2}), "pair": ["e", "s"]}
    corpus, pair = corpus_of(inputs), tuple(inputs["pair"])
    merged = {}
    for word, freq in corpus.items():  # only the first place the pair stands is merged
        word = list(word)
        for k in range(len(word) - 1):
            if (word[k], word[k + 1]) == pair:
                word[k:k + 2] = [word[k] + word[k + 1]]
                break
        merged[tuple(word)] = freq
    said = readings.merged_words(inputs, ref.segment_lengths(merged, corpus))
    assert said == "your result has 'es e s </w>' where merging ('e', 's') gives 'es es </w>'", said
    assert readings.merged_words(inputs, ref.segment_lengths(ref.merge_pair(corpus, pair), corpus)) is None


def test_learned_tells_a_tie_broken_another_way_from_a_pair_counted_wrong():
    inputs = learn_examples()[1]  # the notebook's corpus with ties
    corpus = corpus_of(inputs)
    merges = []
    for _ in range(int(inputs["num_merges"])):  # ties broken by the largest pair
        counts = ref.count_pairs(corpus)
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        corpus = ref.merge_pair(corpus, best)
    said = readings.learned(inputs, ref.merge_codes(merges))
    assert "on a tie the smaller pair comes first" in said, said
    right = ref.learn_merges(corpus_of(inputs), int(inputs["num_merges"]))
    assert readings.learned(inputs, ref.merge_codes(right)) is None
    said = readings.learned(inputs, ref.merge_codes(right[:-1]))  # one merge short
    assert said.startswith(f"your first {len(right) - 1} merges are right; then you stop, where the rules go on "
                           f"with {right[-1]!r}"), said


def test_encoded_names_the_first_word_that_differs_as_its_tokens():
    inputs = text_examples()[0]
    merges, vocab = [tuple(m) for m in inputs["merges"]], {t: n for n, t in enumerate(inputs["tokens"])}
    right = ref.encode(inputs["text"], merges, vocab)
    words = inputs["text"].split(" ")
    first = len(ref.encode(words[0], merges, vocab))  # the first word's ids
    wrong = right[:first + 2] + [vocab[ref.UNK]] + right[first + 3:]
    said = readings.encoded(inputs, np.array(wrong, dtype=float))
    due = [inputs["tokens"][i] for i in ref.encode(words[1], merges, vocab)]
    assert said.startswith(f"your first word is right; word 2, {words[1]!r}, comes out as ") and \
        f"{ref.UNK!r}" in said and said.endswith("where the merges give " + " ".join(map(repr, due))), said
    assert readings.encoded(inputs, np.array(right, dtype=float)) is None
    said = readings.encoded(inputs, np.array(right[:first] + right[len(ref.encode(" ".join(words[:2]), merges, vocab)):],
                                             dtype=float))
    assert said == f"your first word is right; word 2, {words[1]!r}, is missing, which the merges encode as " + \
        " ".join(map(repr, due)), said


def test_encoded_says_a_word_merged_without_its_end_of_word_marker():
    """The last word encoded without its marker (the marker taken for the space between words): said as that
    word's tokens without the marker, with the rule, not as ids that stop early."""
    inputs = text_examples()[0]
    merges, vocab = [tuple(m) for m in inputs["merges"]], {t: n for n, t in enumerate(inputs["tokens"])}
    words = inputs["text"].split(" ")
    head = ref.encode(" ".join(words[:-1]), merges, vocab)
    bare = tuple(words[-1])
    for pair in merges:
        bare = next(iter(ref.merge_pair({bare: 1}, pair)))
    assert bare[-1:] != (ref.EOW,)
    said = readings.encoded(inputs, np.array(head + [vocab.get(s, vocab[ref.UNK]) for s in bare], dtype=float))
    assert f"word {len(words)}, {words[-1]!r}, comes out as " in said and "its tokens without the end-of-word " \
        "marker" in said and said.endswith(f"every word, the last one too, ends with {ref.EOW!r} before the merges "
                                            "are applied"), said
    # The marker spelled out as four letters: the word's letters come first, then <unk> ids, not the next word
    first = tuple(words[0])
    for pair in merges:
        first = next(iter(ref.merge_pair({first: 1}, pair)))
    spelt = [vocab.get(s, vocab[ref.UNK]) for s in first] + [vocab[ref.UNK]] * 4
    said = readings.encoded(inputs, np.array(spelt + ref.encode(" ".join(words[1:]), merges, vocab), dtype=float))
    assert "without the end-of-word marker" not in said, said


def test_decoded_shows_where_the_text_first_differs():
    inputs = text_examples()[1]
    right = ref.decode(inputs["ids"], list(inputs["tokens"]))
    said = readings.decoded(inputs, ref.text_codes(right[:10] + "#" + right[11:]))
    assert said == (f"your text is right for its first 10 characters, then your text has {('#' + right[11:22])!r} "
                    f"where the right one has {right[10:22]!r}"), said
    said = readings.decoded(inputs, ref.text_codes(right + " "))  # a space too many at the end
    assert said == f"your text is right for its first {len(right)} characters, then it goes on with ' ', where the text ends"
    assert readings.decoded(inputs, ref.text_codes(right)) is None


def test_merged_words_says_first_that_a_word_is_there_twice():
    inputs = {**corpus_words({("l", "o", "w", ref.EOW): 3, ("e", "s", "t", ref.EOW): 2}), "pair": ["e", "s"]}
    corpus, pair = corpus_of(inputs), tuple(inputs["pair"])
    both = {**corpus, **ref.merge_pair(corpus, pair)}  # the merged words added, the old ones kept
    said = readings.merged_words(inputs, ref.segment_lengths(both, corpus))
    assert said == "your result has 3 words where the corpus has 2: each word once, merged or as it was", said
