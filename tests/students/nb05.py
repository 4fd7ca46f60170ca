"""Sample students of notebook 05 (batched, masked multi-head attention): the answer key, the seeds' code, one mistake each."""
from tests.students import MANUAL, Student

A05 = "05_batched_masked_attention"
FULL_05 = {"test_masked_softmax": 3, "test_loop_heads": 2, "test_transpose_qkv": 1, "test_transpose_output": 1,
           "test_init_weight": 1, "test_mha": 3, "test_mha_masks": 2, "test_boolean_masks": 1,
           "test_masked_softmax_bool": 2, "why_init": MANUAL}


def _05(**changed):
    return dict(FULL_05, **changed)


# Seed 001's class as its author wrote it (the seed is a PDF export: its lost underscores, docstring
# quotes and an HTML tag are restored, nothing else). It masks with -inf and draws its weights from
# np.random.rand; the grader overwrites the weights, so only what its code computes is judged.
SEED_001_CLASS = '''\
class MultiHeadAttention:
    """
    Multi-head attention.

    Parameters:
    num_hiddens: int
        Number of hidden units.
    num_heads: int
        Number of attention heads.
    dropout: float
        Dropout rate.
    bias: bool
        Whether to include bias parameters in the model.
    """
    def __init__(self, num_hiddens, num_heads, dropout=0.0, bias=False):
        self.num_heads = num_heads
        self.num_hiddens = num_hiddens
        self.d_k = self.d_v = num_hiddens // num_heads
        self.W_q = np.random.rand(num_hiddens, num_hiddens)
        self.W_k = np.random.rand(num_hiddens, num_hiddens)
        self.W_v = np.random.rand(num_hiddens, num_hiddens)
        self.W_o = np.random.rand(num_hiddens, num_hiddens)
        if bias:
            self.b_q = np.random.rand(num_hiddens)
            self.b_k = np.random.rand(num_hiddens)
            self.b_v = np.random.rand(num_hiddens)
            self.b_o = np.random.rand(num_hiddens)
        else:
            self.b_q = self.b_k = self.b_v = self.b_o = np.zeros(num_hiddens)

    def transpose_qkv(self, X):
        """
        Transposition for batch processing

        Parameters:
        X: np.ndarray
            Input tensor

        Returns:
        np
            Transposed tensor
        """
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1)
        X = X.transpose(0, 2, 1, 3)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X):
        """
        Transposition for output

        Parameters:
        X: np.ndarray
            Input tensor

        Returns:
        np
            Transposed tensor
        """
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2])
        X = X.transpose(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)

    def scaled_dot_product_attention(self, Q, K, V, valid_lens):
        """
        Scaled dot product attention

        Parameters:
        Q: np.ndarray
            Query tensor
        K: np.ndarray
            Key tensor
        V: np.ndarray
            Value tensor
        valid_lens: np.ndarray
            Valid lengths for the query

        Returns:
        np
            Output tensor
        """
        d_k = Q.shape[-1]
        scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(d_k)
        if valid_lens is not None:
            mask = np.arange(scores.shape[-1]) < valid_lens[:, None]
            scores = np.where(mask[:, None, :], scores, -np.inf)
        attention_weights = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
        attention_weights /= attention_weights.sum(axis=-1, keepdims=True)
        return np.matmul(attention_weights, V)

    def forward(self, queries, keys, values, valid_lens):
        """
        Forward pass

        Parameters:
        queries: np.ndarray
            Query tensor
        keys: np.ndarray
            Key tensor
        values: np.ndarray
            Value tensor
        valid_lens: np.ndarray
            Valid lengths for the query

        Returns:
            Output tensor
        """
        queries = self.transpose_qkv(np.dot(queries, self.W_q) + self.b_q)
        keys = self.transpose_qkv(np.dot(keys, self.W_k) + self.b_k)
        values = self.transpose_qkv(np.dot(values, self.W_v) + self.b_v)

        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, self.num_heads, axis=0)

        output = self.scaled_dot_product_attention(queries, keys, values, valid_lens)
        output_concat = self.transpose_output(output)
        return np.dot(output_concat, self.W_o) + self.b_o'''

# Seed 002's loop over heads as written, from `split_dim` on, its number of heads N named H as in the notebook;
# the lines before it in the seed's cell (N = 4, the assert, proj = np.random.rand(E, E)) are the notebook's
# read-only inputs cell.
SEED_002_LOOP = """\
split_dim = E // H
heads = []

for i in range(H):
    q_head = q[:, :, i * split_dim: (i + 1) * split_dim]    # (B, C, E / H)
    k_head = k[   :, i * split_dim: (i + 1) * split_dim]    # (C, E / H)
    v_head = v[   :, i * split_dim: (i + 1) * split_dim]    # (C, E / H)
    # print(q_head.shape, k_head.T.shape, v_head.shape)

    scores = q_head @ k_head.T / np.sqrt(split_dim)         # (B, C, C)
    attention_weights = softmax(scores)                     # (B, C, C)

    # weighted sum of values
    local_head = attention_weights @ v_head                 # (B, C, E / H)
    heads.append(local_head)

raw_multi_head_output = np.concatenate(heads, axis=-1)      # (B, C, E)
print("concat", raw_multi_head_output.shape)

attention = raw_multi_head_output @ proj                    # (B, C, E) . (E, E) -> (B, C, E)
print("proj(concat) -> attention", raw_multi_head_output.shape)"""

MASK_LINE = "weights = softmax(np.where(mask, scores, -1e6))  # (B, Tq, Tk)"
HELPER_FIXED = "right once your"  # a part marked with the course's version of a helper the student got wrong

STUDENTS = {
    "correct": Student(A05, FULL_05),
    "untouched": Student(A05, {part: 0 for part in FULL_05}, untouched=True),
    # Its class is right wherever every sequence has a valid key; an empty sequence gives nan, and its
    # mask cannot take one length per query (causal masks), so no single mistake explains it.
    "seed001": Student(
        A05, _05(test_mha_masks=0), cells={"mha_class": SEED_001_CLASS},
        diagnoses={"test_mha_masks": "holds nan"}),
    "seed002": Student(A05, FULL_05, cells={"loop_heads": SEED_002_LOOP}),
    # A mistake in masked_softmax costs marks in masked_softmax only: MultiHeadAttention, which calls it,
    # is marked with the course's masked_softmax in place of the student's (its own code is right).
    "mask_zero": Student(
        A05, _05(test_masked_softmax=0),
        edits={"masked_softmax_def": [(MASK_LINE, MASK_LINE.replace("-1e6", "0"))]},
        diagnoses={"test_masked_softmax": "masked with 0", "test_mha": HELPER_FIXED,
                   "test_mha_masks": HELPER_FIXED}),
    "mask_after_softmax": Student(
        A05, _05(test_masked_softmax=0),
        edits={"masked_softmax_def": [(MASK_LINE, "weights = softmax(scores) * mask  # (B, Tq, Tk)")]},
        diagnoses={"test_masked_softmax": "masked after the softmax", "test_mha": HELPER_FIXED,
                   "test_mha_masks": HELPER_FIXED}),
    # -inf in masked_softmax: right on d2l's example and wherever no query is left without a key; nan
    # on the fresh lengths, each of which holds a 0. Right on the book's case only earns nothing.
    # MultiHeadAttention is marked with the course's masked_softmax, as above.
    "mask_inf": Student(
        A05, _05(test_masked_softmax=0),
        edits={"masked_softmax_def": [(MASK_LINE, MASK_LINE.replace("-1e6", "-np.inf"))]},
        diagnoses={"test_masked_softmax": "with -inf: a query with no valid key", "test_mha_masks": HELPER_FIXED}),
    "lens_tiled": Student(
        A05, _05(test_mha=0, test_mha_masks=0),
        edits={"mha_class": [("np.repeat(valid_lens, self.num_heads, axis=0)", "np.tile(valid_lens, self.num_heads)")]},
        diagnoses={"test_mha": "valid_lens tiled, not repeated", "test_mha_masks": "valid_lens tiled, not repeated"}),
    "merge_no_transpose": Student(
        A05, _05(test_transpose_output=0),
        edits={"transpose_output_def": [
            ("    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])  # (B, H, T, d)\n", ""),
            ("    X = X.transpose(0, 2, 1, 3)  # (B, T, H, d)\n", ""),
            ("X_merged = X.reshape(X.shape[0], X.shape[1], -1)  # (B, T, H*d)",
             "X_merged = X.reshape(-1, X.shape[1], X.shape[2] * num_heads)  # (B, T, H*d)")]},
        diagnoses={"test_transpose_output": "heads merged with a reshape and no transpose",
                   "test_mha": HELPER_FIXED, "test_mha_masks": HELPER_FIXED}),
}

# Further mistakes, two to a student where the parts are independent of each other
# (the grader sets MultiHeadAttention's weights itself, so init_weight never reaches the other parts).
INIT = 'W = rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))'
SPLIT = '    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)  # (B, T, H, d)\n    X = X.transpose(0, 2, 1, 3)  # (B, H, T, d)\n    X_split = X.reshape(-1, X.shape[2], X.shape[3])  # (B*H, T, d)'
STUDENTS.update({
    "split_no_transpose": Student(
        A05, _05(test_transpose_qkv=0, test_init_weight=0),
        edits={"transpose_qkv_def": [(SPLIT, "    X_split = X.reshape(X.shape[0] * num_heads, X.shape[1], -1)  # (B*H, T, d)")],
               "init_weight_def": [(INIT, INIT.replace("np.sqrt(fan_in)", "np.sqrt(fan_out)"))]},
        diagnoses={"test_transpose_qkv": "heads split with a reshape and no transpose",
                   "test_mha": HELPER_FIXED, "test_init_weight": "scaled by fan_out"}),
    "loop_sqrt_e": Student(
        A05, _05(test_loop_heads=0, test_init_weight=0),
        edits={"loop_heads": [("head_scores = q_head @ k_head.T / np.sqrt(split_dim)",
                               "head_scores = q_head @ k_head.T / np.sqrt(E)")],
               "init_weight_def": [(INIT, "W = rng.random((fan_in, fan_out))")]},
        diagnoses={"test_loop_heads": "scaled by sqrt(E), not sqrt(E/H)",
                   "test_init_weight": "weights from a uniform draw in [0, 1)"}),
    "init_not_scaled": Student(
        A05, _05(test_init_weight=0), edits={"init_weight_def": [(INIT, INIT.replace("1.0 / np.sqrt(fan_in)", "1.0"))]},
        diagnoses={"test_init_weight": "not scaled"}),
    "init_std_fan_in": Student(
        A05, _05(test_init_weight=0), edits={"init_weight_def": [(INIT, INIT.replace("1.0 / np.sqrt(fan_in)", "1.0 / fan_in"))]},
        diagnoses={"test_init_weight": "std 1/fan_in"}),
})

# Issue 13: more named mistakes. A masked_softmax mistake shares a student with an init_weight mistake (the
# grader sets MultiHeadAttention's weights itself, so init_weight reaches no other part); a mistake in
# forward has a student of its own, since forward calls masked_softmax, transpose_qkv and transpose_output.
MASK_ARANGE = "mask = np.arange(scores.shape[-1]) < lens  # (B, Tq, Tk)"


def _softmax_over(axis):
    """masked_softmax's last line with a softmax written out over another axis of (B, Tq, Tk)."""
    return (f"masked = np.where(mask, scores, -1e6)  # (B, Tq, Tk)\n"
            f"    e = np.exp(masked - np.max(masked, axis={axis}, keepdims=True))\n"
            f"    weights = e / np.sum(e, axis={axis}, keepdims=True)")


def _forward(old, new):
    return {"mha_class": [(old, new)]}


# A mistake in masked_softmax: 0 there; MultiHeadAttention is marked with the course's masked_softmax in
# place of the student's (its own code is right), so that mistake costs marks once.
_MASKED_ONLY = dict(test_masked_softmax=0, test_init_weight=0)
_HELPER_FIXED = {"test_mha": HELPER_FIXED, "test_mha_masks": HELPER_FIXED}
STUDENTS.update({
    "mask_off_by_one": Student(
        A05, _05(**_MASKED_ONLY),
        edits={"masked_softmax_def": [(MASK_ARANGE, MASK_ARANGE.replace("< lens", "<= lens"))],
               "init_weight_def": [(INIT, "W = np.random.rand(fan_in, fan_out)")]},
        diagnoses={"test_masked_softmax": "mask off by one", "test_init_weight": "weights from np.random.rand", **_HELPER_FIXED}),
    "mask_over_queries": Student(
        A05, _05(**_MASKED_ONLY),
        edits={"masked_softmax_def": [(MASK_ARANGE, "mask = np.arange(scores.shape[1])[:, None] < lens  # (B, Tq, 1)")],
               "init_weight_def": [(INIT, INIT.replace("rng.normal", "np.random.normal"))]},
        diagnoses={"test_masked_softmax": "mask over the queries", "test_init_weight": "drawn from np.random, not rng", **_HELPER_FIXED}),
    "softmax_axis_1": Student(
        A05, _05(**_MASKED_ONLY),
        edits={"masked_softmax_def": [(MASK_LINE, _softmax_over(1))],
               "init_weight_def": [(INIT, INIT.replace("1.0 / np.sqrt(fan_in)", "np.sqrt(2 / (fan_in + fan_out))"))]},
        diagnoses={"test_masked_softmax": "softmax over axis 1 (the queries)", "test_init_weight": "Glorot (Xavier) std", **_HELPER_FIXED}),
    "softmax_axis_0": Student(
        A05, _05(**_MASKED_ONLY),
        edits={"masked_softmax_def": [(MASK_LINE, _softmax_over(0))],
               "init_weight_def": [(INIT, INIT.replace("size=(fan_in, fan_out)", "size=(fan_out, fan_in)"))]},
        diagnoses={"test_masked_softmax": "softmax over axis 0 (the batch)", "test_init_weight": "weight shape transposed", **_HELPER_FIXED}),
    # Right weights, but the caller's scores overwritten: two thirds of the part, and its check says why.
    "masked_softmax_in_place": Student(
        A05, _05(test_masked_softmax=2),
        edits={"masked_softmax_def": [(MASK_LINE, "scores[...] = np.where(mask, scores, -1e6)  # in place\n"
                                                  "    weights = softmax(scores)  # (B, Tq, Tk)")]},
        diagnoses={"test_masked_softmax": "changed its argument"}),
    # Mistakes in forward itself.
    "keys_values_swapped": Student(
        A05, _05(test_mha=0, test_mha_masks=0),
        edits={"mha_class": [("keys @ self.W_k + self.b_k", "keys @ self.W_v + self.b_v"),
                             ("values @ self.W_v + self.b_v", "values @ self.W_k + self.b_k")]},
        diagnoses={"test_mha": "keys and values swapped", "test_mha_masks": "keys and values swapped"}),
    "queries_from_w_k": Student(
        A05, _05(test_mha=0, test_mha_masks=0),
        edits=_forward("queries @ self.W_q + self.b_q", "queries @ self.W_k + self.b_k"),
        diagnoses={"test_mha": "queries from W_k", "test_mha_masks": "queries from W_k"}),
    "w_o_left_out": Student(
        A05, _05(test_mha=0, test_mha_masks=0),
        edits=_forward("transpose_output(heads_out, self.num_heads) @ self.W_o + self.b_o",
                       "transpose_output(heads_out, self.num_heads)"),
        diagnoses={"test_mha": "output projection W_o left out", "test_mha_masks": "output projection W_o left out"}),
    # forward uses the notebook's global num_heads (5): right on seed 001's case only, which earns nothing.
    "fixed_heads": Student(
        A05, _05(test_mha=0, test_mha_masks=0),
        edits={"mha_class": [("self.num_heads)", "num_heads)"), (", self.num_heads, axis=0)", ", num_heads, axis=0)")]},
        diagnoses={"test_mha": "fixed number of heads", "test_mha_masks": "a fixed number of heads"}),
    "scaled_by_num_hiddens": Student(
        A05, _05(test_mha=0, test_mha_masks=0),
        edits=_forward("/ np.sqrt(Q.shape[-1])", "/ np.sqrt(self.num_hiddens)"),
        diagnoses={"test_mha": "scaled by sqrt(num_hiddens), not sqrt(head size)",
                   "test_mha_masks": "scaled by sqrt(num_hiddens), not sqrt(head size)"}),
    # forward masks by itself, with -inf, instead of calling masked_softmax: right wherever every query has
    # a key (seed 001's case, the fresh lengths, causal masks), nan for an empty sequence.
    "mha_masks_with_inf": Student(
        A05, _05(test_mha_masks=1),
        edits=_forward("self.attention_weights = masked_softmax(scores, valid_lens)  # (B*H, Tq, Tk)",
                       "if valid_lens is not None:\n"
                       "            lens = valid_lens[:, None, None] if valid_lens.ndim == 1 else valid_lens[:, :, None]\n"
                       "            scores = np.where(np.arange(scores.shape[-1]) < lens, scores, -np.inf)\n"
                       "        self.attention_weights = softmax(scores)  # (B*H, Tq, Tk)"),
        diagnoses={"test_mha_masks": "masked with -inf"}),
    "valid_lens_ignored": Student(
        A05, _05(test_mha=0, test_mha_masks=0),
        edits=_forward("masked_softmax(scores, valid_lens)", "softmax(scores)"),
        diagnoses={"test_mha": "valid_lens ignored", "test_mha_masks": "valid_lens ignored"}),
})

# Issue 15: boolean masks (section 8). The grader hands masked_softmax_bool its own masks, so a mistake in
# key_padding_mask or causal_mask costs marks in test_boolean_masks only: two mistakes share a student.
PADDING = "mask = np.arange(num_keys) < np.asarray(valid_lens)[:, None, None]  # (B, 1, Tk)"
CAUSAL = "mask = np.tril(np.ones((num_queries, num_keys), dtype=bool))  # (Tq, Tk)"
BOOL_LINE = "weights = softmax(np.where(mask, scores, -1e6))  # (B, Tq, Tk)"
STUDENTS.update({
    # Right, written another way: the lengths as a column, the causal mask by comparing positions, and the
    # masked scores set in a copy by boolean indexing.
    "boolean_masks_other_way": Student(
        A05, FULL_05,
        edits={"boolean_masks_def": [
            (PADDING, "mask = (np.arange(num_keys)[None, :] < np.asarray(valid_lens)[:, None])[:, None, :]"),
            (CAUSAL, "mask = np.arange(num_queries)[:, None] >= np.arange(num_keys)[None, :]")],
            "masked_softmax_bool_def": [(BOOL_LINE, "masked = np.array(scores, dtype=float)  # a copy, (B, Tq, Tk)\n"
                                                    "    masked[~np.broadcast_to(mask, masked.shape)] = -1e6\n"
                                                    "    weights = softmax(masked)")]}),
    # PyTorch's nn.MultiheadAttention convention throughout: True marks the keys to ignore.
    "pytorch_mask_convention": Student(
        A05, _05(test_boolean_masks=0, test_masked_softmax_bool=0),
        edits={"boolean_masks_def": [(PADDING, PADDING.replace(" < ", " >= "))],
               "masked_softmax_bool_def": [(BOOL_LINE, BOOL_LINE.replace("mask, scores, -1e6", "mask, -1e6, scores"))]},
        diagnoses={"test_boolean_masks": "padding mask inverted (True = ignore)",
                   "test_masked_softmax_bool": "mask inverted (True taken as masked)"}),
    "padding_off_by_one_bool_zero": Student(
        A05, _05(test_boolean_masks=0, test_masked_softmax_bool=0),
        edits={"boolean_masks_def": [(PADDING, PADDING.replace(" < ", " <= "))],
               "masked_softmax_bool_def": [(BOOL_LINE, BOOL_LINE.replace("-1e6", "0"))]},
        diagnoses={"test_boolean_masks": "padding mask off by one", "test_masked_softmax_bool": "masked with 0"}),
    "causal_triu_bool_after_softmax": Student(
        A05, _05(test_boolean_masks=0, test_masked_softmax_bool=0),
        edits={"boolean_masks_def": [(CAUSAL, CAUSAL.replace("np.tril", "np.triu"))],
               "masked_softmax_bool_def": [(BOOL_LINE, "weights = softmax(scores) * mask  # (B, Tq, Tk)")]},
        diagnoses={"test_boolean_masks": "causal mask from np.triu",
                   "test_masked_softmax_bool": "masked after the softmax"}),
    # Right wherever every query has a valid key (the causal masks): half the cases, half the marks.
    "bool_mask_inf": Student(
        A05, _05(test_masked_softmax_bool=1),
        edits={"masked_softmax_bool_def": [(BOOL_LINE, BOOL_LINE.replace("-1e6", "-np.inf"))]},
        diagnoses={"test_masked_softmax_bool": "masked with -inf"}),
    "bool_mask_added": Student(
        A05, _05(test_masked_softmax_bool=1),
        edits={"masked_softmax_bool_def": [(BOOL_LINE, "weights = softmax(scores + np.where(mask, 0.0, -1e6))  # (B, Tq, Tk)")]},
        diagnoses={"test_masked_softmax_bool": "-1e6 added, not put in place"}),
})
