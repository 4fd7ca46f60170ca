"""Notebook 06's reading of tokenize's ids (grader/course/nb06_contextual_embeddings/readings.py): facts of the
result, word by word, and a property of the words named only when it alone picks out the wrong ones on every case."""
import numpy as np

from grader.course.nb06_contextual_embeddings import readings, reference as ref
from grader.course.nb06_contextual_embeddings.cases import OTHER_SENTENCE_06, OTHER_VOCAB_06, UNK

CASE = {"sentence": OTHER_SENTENCE_06, "vocab_words": list(OTHER_VOCAB_06)}  # <unk> at 2, capitals, a tab
VOCAB = {w: n for n, w in enumerate(OTHER_VOCAB_06)}


def _ids(words):
    return np.array([VOCAB.get(w, VOCAB[UNK]) for w in words])


def test_a_right_answer_is_read_as_nothing():
    assert readings.tokenized(CASE, ref.tokenize(CASE["sentence"], VOCAB)) is None


def test_words_looked_up_as_written_are_the_words_with_capitals():
    said = readings.tokenized(CASE, _ids(CASE["sentence"].split()))
    # 'RIVER,' is unknown either way: only 'We' and 'Boat' are wrong, which no one property picks out here
    assert "('We' and 'Boat'); each gets <unk>'s id (2), where their ids in the vocabulary are due" in said, said


def test_a_dropped_word_is_named_and_a_lone_wrong_id_is_said_as_the_word_that_has_it():
    right = ref.tokenize(CASE["sentence"], VOCAB)
    assert "leave out the last word ('bank.')" in readings.tokenized(CASE, right[:-1])
    one = right.copy()
    one[1] = VOCAB["river"]
    assert readings.tokenized(CASE, one) == ("word 2 of 9, 'sat', gets id 0, the id of 'river', where 6 is due: "
                                             "the id of 'sat' in the vocabulary")


def test_a_property_is_named_only_when_it_holds_on_every_case():
    """Unknown words given id 0 are exactly the unknown words here; on a case where the student is right, the
    same property picks out words too (they would be wrong), so it is not said."""
    words = CASE["sentence"].lower().split()
    wrong = np.array([VOCAB.get(w, 0) for w in words])
    assert "(the words the vocabulary does not know: 'RIVER,', 'near' and 'bank.'); each gets 0" in \
        readings.tokenized(CASE, wrong)
    other = {"sentence": "the boat sat by a bank", "vocab_words": list(OTHER_VOCAB_06)}
    right_there = ref.tokenize(other["sentence"], VOCAB)  # 'a' is unknown: the property would pick it
    said = readings.tokenized(CASE, wrong, every=[(CASE, wrong), (other, right_there)])
    assert "the words the vocabulary does not know" not in said and "'RIVER,', 'near' and 'bank.'" in said, said
