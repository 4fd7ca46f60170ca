"""Views of notebook 06's results that make a mistake easier to see (Probe.views; shared/views.py says how).
"""
import numpy as np

from . import reference as ref


def table_rows(inputs, value):
    """Notebook 06's embeddings: each word's vector should be the table's row for its id. When every vector
    is some row of the table, but not its own, say how the rows it took differ."""
    table = np.asarray(inputs["embedding_matrix"], dtype=float)  # (V, D)
    value = np.asarray(value, dtype=float)
    if value.size % table.shape[1]:
        return None
    rows = value.reshape(-1, table.shape[1])  # (T, D)
    right = ref.tokenize(inputs["text"], {w: n for n, w in enumerate(inputs["vocab_words"])})  # (T,)
    found = []
    for row in rows:
        same = [k for k in range(len(table)) if np.allclose(row, table[k])]
        if not same:
            return None
        found.append(same[0])
    if len(found) != len(right) or found == list(right):
        return None
    shift = {f - r for f, r in zip(found, right)}
    if len(shift) == 1:
        k = shift.pop()
        return (f"each word's vector is a row of embedding_matrix, but {abs(k)} row(s) {'after' if k > 0 else 'before'} "
                "the row of its id: are the ids shifted?")
    return ("each word's vector is a row of embedding_matrix, but not always the row of its id: are the ids the "
            "ones tokenize gives (vocab[word], vocab[UNK] for an unknown word)?")
TABLE_ROWS = ("", table_rows, ())
