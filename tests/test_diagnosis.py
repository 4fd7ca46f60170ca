"""Wrong answers the catalogue does not name still get a cause; right answers written other ways get none.

Each entry is a realistic mistake, written as an edit of the answer key, that no catalogued mistake
computes: its verdict must take marks and say what is structurally wrong (or, where it calls a graded
helper, blame the helper), never name a catalogued mistake it did not make. The notebook runs
in-process (our own fixture code), and each part is probed and marked exactly as grading does.

    python -m tests.test_diagnosis      prints every verdict
"""
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import IPython.display
import nbformat
import numpy as np
import pytest

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # in this process only: the build's kernels, started from here too, keep their own

from nbgrader import utils  # noqa: E402

from grader.engine import protocol  # noqa: E402
from grader.course import PROBES  # noqa: E402
from grader.engine.build import SOURCE, answer_key  # noqa: E402
from grader.engine.report import DIAGNOSED  # noqa: E402


def _notebook(assignment, edits):
    nb = answer_key(nbformat.read(str(SOURCE / assignment / f"{assignment}.ipynb"), as_version=4))
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        for old, new in edits.get(grade_id, []):
            assert old in cell.source, f"{assignment} {grade_id}: {old!r} not in the answer key"
            cell.source = cell.source.replace(old, new)
    return nb


def _with_helpers(probes, parts):
    """The parts, and every graded part they use (Probe.uses), and those parts' own, in turn."""
    out, todo = set(), list(parts)
    while todo:
        part = todo.pop()
        if part in probes and part not in out:
            out.add(part)
            todo += list(probes[part].uses.values())
    return out


def grade_in_process(assignment, edits, seed=0, traces=None, parts=None):
    """{grade_id: Verdict} for the answer key with `edits`, every probed part marked as grading marks it.
    `traces`, a dict, gets {grade_id: [(case, trace)]} for the parts that declare steps. `parts`: probe only
    these (and the parts they use, whose verdicts theirs depend on); the other graded cells above the last of
    them run as the student runs them, their visible checks included, as a probe runs them after its report.
    The cells below the last probed part are not run: nothing they do reaches a verdict above them."""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.reset(new_session=False)
    nb = _notebook(assignment, edits)
    solutions = {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells if utils.is_solution(c)}
    probes = PROBES[assignment]
    probed = _with_helpers(probes, parts) if parts is not None else set(probes)
    verdicts, done = {}, {}
    shown = []
    saved_display = IPython.display.display
    IPython.display.display = lambda obj, raw=False: shown.append(obj)
    try:
        for cell in nb.cells:
            if probed <= set(verdicts):
                break  # every probed part is marked: the cells below cannot change a verdict above them
            if cell.cell_type != "code":
                continue
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in probed and utils.is_grade(cell) and not utils.is_solution(cell):
                probe = probes[grade_id]
                cases = probe.cases(np.random.default_rng(seed))
                swap = {n: probes[p].kernel_reference for n, p in probe.uses.items()
                        if p in probes and probes[p].kernel_reference}

                def run_probe(source):
                    shown.clear()
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                        shell.run_cell(source, store_history=False)
                    return [{"output_type": "display_data", "data": obj} for obj in shown]

                cell_source = solutions.get(probe.cell, "")
                outputs = run_probe(protocol.probe_source(probe, cases, cell_source))
                if traces is not None and probe.steps:
                    results = [o for o in outputs if protocol.MIME in o["data"]][0]["data"][protocol.MIME]["results"]
                    traces[grade_id] = list(zip(cases, protocol._read(probe, cases, results)[3]))
                # The grader judges with the course's helpers in a kernel of its own; here, in this one,
                # which the probe puts back as it was.
                judge = (lambda: run_probe(protocol.probe_source(probe, cases, cell_source, swap))) if swap else None
                helpers = {n: done.get(p) for n, p in probe.uses.items()}
                v = protocol.verdict(probe, cases, outputs, float(cell.metadata.nbgrader["points"]), helpers, judge)
                verdicts[grade_id] = done[grade_id] = (probe.what, v)
                continue
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                shell.run_cell(cell.source, store_history=False)
    finally:
        IPython.display.display = saved_display
        import matplotlib.pyplot as plt
        plt.close("all")
    return {g: v for g, (_, v) in verdicts.items()}


def W(assignment, part, edits, because="", step="", looks_like=""):
    """A wrong answer: `edits` {grade_id: [(old, new)]} of the answer key, wrong in `part`; `step`, words the
    verdict must say when the part declares its steps (the first wrong step, e.g. "but not the output");
    `looks_like`, a catalogued mistake whose results it gives by another path (its name is not said)."""
    return SimpleNamespace(assignment=assignment, part=part, edits=edits, because=because, step=step,
                           looks_like=looks_like)


A01, A02, A03, A04, A05, A06 = ("01_self_attention", "02_scaled_attention", "03_permutation_equivariance",
                                "04_multihead_attention", "05_batched_masked_attention", "06_contextual_embeddings")
SA01 = "attention = softmax_cols(K.T @ Q)  # (N, N): column n is query n's weights over the keys"

WRONG = {
    "softmax divided by the sum of the inputs": W(A01, "test_softmax", {"softmax_def": [
        ("np.sum(np.exp(items_in))", "np.sum(items_in)")]}),
    # The shift by the largest score in one place only: the factor named as exp of that score
    "softmax: the maximum subtracted in the sum only": W(A01, "test_softmax", {"softmax_def": [
        ("np.sum(np.exp(items_in))", "np.sum(np.exp(items_in - np.max(items_in)))")]},
        step="is the largest entry of `items_in`: the maximum is subtracted in the sum below only"),
    # A fact without its cause (weight where none is due, in a part with no mask, on the book's saturated case) says
    # less than a fresh case's scores read back: the verdict takes the fresh one
    "softmax: the exponent negated": W(A01, "test_softmax", {"softmax_def": [
        ("np.exp(items_in) / np.sum(np.exp(items_in))", "np.exp(-items_in) / np.sum(np.exp(-items_in))")]},
        step="its weights are the softmax of scores -1 times the right ones"),
    "softmax divided by the count": W(A01, "test_softmax", {"softmax_def": [
        ("np.sum(np.exp(items_in))", "len(items_in)")]}),
    "loop: every query is the first": W(A01, "test_attention_loop", {"attention_loop": [
        ("dot_product = key.T @ all_queries[n]", "dot_product = key.T @ all_queries[0]")]}),
    "self-attention weighs the inputs, not the values": W(A01, "test_self_attention", {"self_attention_def": [
        ("X_prime = V @ attention", "X_prime = X @ attention")]}),
    "self-attention doubled": W(A01, "test_self_attention", {"self_attention_def": [
        ("X_prime = V @ attention", "X_prime = 2 * V @ attention")]}),
    "self-attention: softmax over the whole matrix": W(A01, "test_self_attention", {"self_attention_def": [
        (SA01, "S = K.T @ Q\n  attention = np.exp(S - S.max()) / np.exp(S - S.max()).sum()")]}),
    "softmax_cols divided by the whole sum": W(A02, "test_softmax_cols", {"softmax_cols_def": [
        ("np.sum(exp_values, axis=0, keepdims=True)", "np.sum(exp_values)")]}),
    "softmax_cols shifted by each row's maximum": W(A02, "test_softmax_cols", {"softmax_cols_def": [
        ("np.max(data_in, axis=0, keepdims=True)", "np.max(data_in, axis=1, keepdims=True)")]}),
    "scaled attention: the values scaled too": W(A02, "test_scaled_attention", {"scaled_attention_def": [
        ("X_prime = V @ attention", "X_prime = V @ attention / np.sqrt(D_q)")]}),
    "scaled attention: scaled by a fixed 2": W(A02, "test_scaled_attention", {"scaled_attention_def": [
        ("K.T @ Q / np.sqrt(D_q)", "K.T @ Q / 2")]}),
    "scaled attention: scaled twice": W(A02, "test_scaled_attention", {"scaled_attention_def": [
        ("K.T @ Q / np.sqrt(D_q)", "K.T @ Q / np.sqrt(D_q) / np.sqrt(D_q)")]}),
    "one head: queries without the bias": W(A04, "test_attention_weights", {"attention_weights_def": [
        ("Q = omega_q @ X + beta_q", "Q = omega_q @ X")]}),
    "one head: scaled by a fixed 2": W(A04, "test_attention_weights", {"attention_weights_def": [
        ("K.T @ Q / np.sqrt(Q.shape[0])", "K.T @ Q / 2")]}),
    "two heads: the second head's values without bias": W(A04, "test_multihead", {"multihead_def": [
        ("head2 = (omega_v2 @ X + beta_v2)", "head2 = (omega_v2 @ X)")]}),
    "two heads: the second head attends with the first head's weights": W(A04, "test_multihead", {"multihead_def": [
        ("attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)",
         "attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)")]}),
    "masked_softmax: the mask ignores the batch (every sequence gets the first length)": W(
        A05, "test_masked_softmax", {"masked_softmax_def": [("lens = valid_lens[:, None, None]", "lens = valid_lens[0]")]}),
    "masked_softmax: masked scores set to -10": W(A05, "test_masked_softmax", {"masked_softmax_def": [
        ("np.where(mask, scores, -1e6)", "np.where(mask, scores, -10.0)")]}),
    "transpose_qkv: heads and tokens not swapped": W(A05, "test_transpose_qkv", {"transpose_qkv_def": [
        ("X = X.transpose(0, 2, 1, 3)  # (B, H, T, d)", "X = X.transpose(0, 2, 1, 3)[:, ::-1]  # (B, H, T, d)")]}),
    "transpose_output: the heads merged in reverse": W(A05, "test_transpose_output", {"transpose_output_def": [
        ("X = X.transpose(0, 2, 1, 3)  # (B, T, H, d)", "X = X[:, ::-1].transpose(0, 2, 1, 3)  # (B, T, H, d)")]}),
    "init_weight: std 2/sqrt(fan_in)": W(A05, "test_init_weight", {"init_weight_def": [
        ("1.0 / np.sqrt(fan_in)", "2.0 / np.sqrt(fan_in)")]}),
    "MultiHeadAttention: the output bias left out": W(A05, "test_mha", {"mha_class": [
        ("@ self.W_o + self.b_o", "@ self.W_o")]}),
    "MultiHeadAttention: the last head's values zeroed": W(A05, "test_mha", {"mha_class": [
        ("heads_out = self.attention_weights @ V  # (B*H, Tq, d)",
         "heads_out = self.attention_weights @ V  # (B*H, Tq, d)\n        heads_out[self.num_heads - 1::self.num_heads] = 0")]}),
    "MultiHeadAttention: the queries scaled twice": W(A05, "test_mha", {"mha_class": [
        ("/ np.sqrt(Q.shape[-1])", "/ Q.shape[-1]")]}),
    "tokenize: the last word dropped": W(A06, "test_tokenize", {"tokenize_def": [
        ("tokens = sentence.lower().split()  # T words", "tokens = sentence.lower().split()[:-1]")]}),
    "SelfAttention: the second head's values negated": W(A06, "test_self_attention", {"self_attention_class": [
        ("heads = attn_weights @ V  # (B, H, T, d)",
         "heads = attn_weights @ V  # (B, H, T, d)\n        heads[:, 1] = -heads[:, 1]")]}),
    "qkv loop: the values use the keys' bias": W(A01, "test_qkv_loop", {"qkv_loop": [
        ("value = omega_v @ x + beta_v", "value = omega_v @ x + beta_k")]}),
    "loop: the weighted sum stops one value short": W(A01, "test_attention_loop", {"attention_loop": [
        ("for m in range(N):", "for m in range(N - 1):")]}),
    "permutations: the rows of the identity shuffled twice": W(A03, "test_permutation_matrices", {
        "permutation_matrices_def": [("permutation_matrices.append(np.eye(n)[:, list(order)])  # (n, n)",
                                      "permutation_matrices.append(np.eye(n)[list(order)][:, list(order)])  # (n, n)")]}, because="5 of the 6 orders of 3 columns are missing: every order but the identity"),
    "checker: f(X) @ P compared with P @ f(X)": W(A03, "test_is_permutation_equivariant", {"checker_def": [
        ("f(X @ P) - f_X @ P", "f(X @ P) - P @ f_X")]}, because="a matrix product A @ B met an A with 3 columns and a B with 4 rows"),
    "embeddings: the table's columns looked up": W(A06, "test_text_to_word_embeddings", {"embeddings_def": [
        ("embedding_matrix[token_ids][np.newaxis]", "embedding_matrix.T[:, token_ids].T[np.newaxis] * 0.5")]}),
    "embeddings: the ids off by one": W(A06, "test_text_to_word_embeddings", {"embeddings_def": [
        ("embedding_matrix[token_ids][np.newaxis]", "embedding_matrix[np.asarray(token_ids) - 1][np.newaxis]")]}),
    "tokenize: ids as floats divided by the vocabulary size": W(A06, "test_tokenize", {"tokenize_def": [
        ("return np.array(token_ids, dtype=int)  # (T,)", "return np.array(token_ids) / len(vocab)  # (T,)")]}),
    "pca: the first axis repeated": W(A06, "test_pca", {"pca_def": [
        ("components = Vt[:n_components]  # (k, D)", "components = np.repeat(Vt[:1], n_components, axis=0)  # (k, D)")]}),
}


A07, A08, A09 = "07_attention_backprop", "08_transformer_block", "09_tiny_transformer"
A11 = "11_decoding"

# The first wrong step (issue 26): for every part that declares its steps, a mistake no catalogue names, and
# the step the verdict must say is the first wrong one, whatever it finds of the student's array there.
STEPPED = {
    "self-attention: the values given the queries' bias": W(A01, "test_self_attention", {"self_attention_def": [
        ("V = omega_v @ X + beta_v", "V = omega_v @ X + beta_q")]}, step="but not the values"),
    "qkv loop: the values given the queries' bias": W(A01, "test_qkv_loop", {"qkv_loop": [
        ("value = omega_v @ x + beta_v", "value = omega_v @ x + beta_q")]}, step="but not the values"),
    "loop: each value counted twice in the weighted sum": W(A01, "test_attention_loop", {"attention_loop": [
        ("x_prime = x_prime + attention[m] * all_values[m]", "x_prime = x_prime + 2 * attention[m] * all_values[m]")]},
        step="but not the outputs"),
    "embeddings: the ids sorted": W(A06, "test_text_to_word_embeddings", {"embeddings_def": [
        ("token_ids = tokenize(text, vocab)", "token_ids = np.sort(tokenize(text, vocab))")]},
        step="Your token ids"),
    "softmax: the result kept under another name": W(A01, "test_softmax", {"softmax_def": [
        ("items_out = np.exp(items_in) /", "weights = np.exp(items_in) /")]}, step="holds the right result"),
    "softmax_cols: one added to the column sums": W(A02, "test_softmax_cols", {"softmax_cols_def": [
        ("softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)",
         "sums = np.sum(exp_values, axis=0, keepdims=True) + 1\n  softmax = exp_values / sums")]},
        step="but not the column sums"),
    "scaled attention: the weights squared": W(A02, "test_scaled_attention", {"scaled_attention_def": [
        ("X_prime = V @ attention", "X_prime = V @ attention ** 2")]}, step="but not the output"),
    "one head: the queries given the keys' bias": W(A04, "test_attention_weights", {"attention_weights_def": [
        ("Q = omega_q @ X + beta_q", "Q = omega_q @ X + beta_k")]}, step="queries (omega_q @ X + beta_q) are not right"),
    "two heads: the second head's queries without their bias": W(A04, "test_multihead", {
        "multihead_def": [("attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)",
                           "attention_weights(X, omega_q2, omega_k2, 0 * beta_q2, beta_k2)")]},
        step="head 2's queries (omega_q"),
    "H heads: the queries given the keys' bias": W(A04, "test_multihead_general", {"multihead_general_def": [
        ("attention_weights(X, omega_q, omega_k, beta_q, beta_k)", "attention_weights(X, omega_q, omega_k, beta_k, beta_k)")]},
        step="head 1's queries (omega_q"),
    "masked_softmax: the weights kept under another name": W(A05, "test_masked_softmax", {"masked_softmax_def": [
        ("    weights = softmax(np.where(mask, scores, -1e6))  # (B, Tq, Tk)",
         "    probs = softmax(np.where(mask, scores, -1e6))  # (B, Tq, Tk)")]}, step="holds the right result"),
    "heads loop: the heads joined in reverse": W(A05, "test_loop_heads", {"loop_heads": [
        ("np.concatenate(heads, axis=-1)", "np.concatenate(heads[::-1], axis=-1)")]},
        step="but not the heads side by side"),
    "heads loop: each head's scores left unscaled": W(A05, "test_loop_heads", {"loop_heads": [
        ("head_scores = q_head @ k_head.T / np.sqrt(split_dim)", "head_scores = q_head @ k_head.T")]},
        step="Your head 1's scaled scores (q_head @ k_head.T / np.sqrt(split_dim)"),
    "MultiHeadAttention: the queries projected without their bias": W(A05, "test_mha", {"mha_class": [
        ("queries @ self.W_q + self.b_q", "queries @ self.W_q")]}, step="projected queries (queries @ W_q"),
    "MultiHeadAttention (masks): the values projected without their bias": W(A05, "test_mha_masks", {"mha_class": [
        ("values @ self.W_v + self.b_v", "values @ self.W_v")]}, step="but not the projected values"),
    "masked_softmax_bool: the weights kept under another name": W(A05, "test_masked_softmax_bool", {
        "masked_softmax_bool_def": [("    weights = softmax(np.where(mask, scores, -1e6))  # (B, Tq, Tk)",
                                     "    probs = softmax(np.where(mask, scores, -1e6))  # (B, Tq, Tk)")]},
        step="holds the right result"),
    "SelfAttention: the heads merged with features and heads swapped": W(A06, "test_self_attention", {
        "self_attention_class": [("merged = heads.transpose(0, 2, 1, 3).reshape(B, T, D)",
                                  "merged = heads.transpose(0, 2, 3, 1).reshape(B, T, D)")]},
        step="but not the merged heads"),
    "pca: centred on the median": W(A06, "test_pca", {"pca_def": [
        ("Xc = X - np.mean(X, axis=0)", "Xc = X - np.median(X, axis=0)")]}, step="centred data (X minus"),
    "softmax_backward: the mean of A * dA, not its sum": W(A07, "test_softmax_backward", {"softmax_backward_def": [
        ("np.sum(A * dA, axis=0, keepdims=True)", "np.mean(A * dA, axis=0, keepdims=True)")]},
        step="Your column sums"),
    "attention_backward: dQ not scaled": W(A07, "test_attention_backward", {"attention_backward_def": [
        ("dQ = c * K @ dS", "dQ = K @ dS")]}, step="but not the gradient of the queries dQ"),
    "layer_norm: gamma and beta swapped": W(A08, "test_layer_norm", {"layer_norm_def": [
        ("out = gamma * x_hat + beta", "out = beta * x_hat + gamma")]}, step="but not the result"),
    "mlp: the hidden layer scaled by its width": W(A08, "test_mlp", {"mlp_def": [
        ("hidden = np.maximum(0.0, x @ W1 + b1)", "hidden = np.maximum(0.0, x @ W1 + b1) / np.sqrt(W1.shape[1])")]},
        step="Your ReLU"),
    "pre-norm block: the MLP's output subtracted": W(A08, "test_transformer_block", {"block_def": [
        ("out = h + mlp(layer_norm(h,", "out = h - mlp(layer_norm(h,")]}, step="but not the result"),
    "post-norm block: the second LayerNorm left out": W(A08, "test_post_norm", {"block_def": [
        ("out = layer_norm(h + mlp(h, params[\"W1\"], params[\"b1\"], params[\"W2\"], params[\"b2\"]),\n                         params[\"gamma2\"], params[\"beta2\"])",
         "out = h + mlp(h, params[\"W1\"], params[\"b1\"], params[\"W2\"], params[\"b2\"])")]}, step="is missing"),
    "cross_entropy: the gradient divided by every position, not the weighted count": W(A09, "test_cross_entropy", {
        "cross_entropy_def": [("(weights / count)[..., None]  # (B, T, V)", "(weights / weights.size)[..., None]  # (B, T, V)")]},
        step="Your dlogits"),
    # A mean over the sequences where one over the positions the weights count is due: the factor read as a count
    # of ones over a size, on every case
    "cross_entropy: the gradient divided by the number of sequences, not the weighted count": W(A09,
        "test_cross_entropy", {"cross_entropy_def": [
            ("(weights / count)[..., None]  # (B, T, V)", "(weights / len(logits))[..., None]  # (B, T, V)")]},
        step="is the sum of weights: divided by"),
    # The student's dV, handed to the notebook's merge_heads (as its X) before the function returns, is named as the
    # student's; A where the formula's A^T is due is said either way round (round 14's i07)
    "mha_backward: dV without its transpose of A": W(A07, "test_mha_backward", {"mha_backward_def": [
        ("dV = A.transpose(0, 1, 3, 2) @ d_heads", "dV = A @ d_heads")]},
        step="your `dV` is the gradient of the values dV made with the attention weights transposed the other way"),
    # The old moment where the updated one is due (m_hat from m, not new_m): said as that, not as m in place of grad,
    # which b1 m + (1 - b1) m = m also makes true (round 14's i09)
    "adam_step: m_hat corrected from the old m": W(A09, "test_adam_step", {"adam_step_def": [
        ("m_hat = new_m / (1 - beta1 ** t)", "m_hat = m / (1 - beta1 ** t)")]},
        step="is the bias-corrected m_hat made with the input `m` in place of the new m"),
    "transpose_qkv: the result kept under another name": W(A05, "test_transpose_qkv", {"transpose_qkv_def": [
        ("X_split = X.reshape(-1, X.shape[2], X.shape[3])", "X_heads = X.reshape(-1, X.shape[2], X.shape[3])")]},
        step="holds the right result"),
    "transpose_output: the result kept under another name": W(A05, "test_transpose_output", {"transpose_output_def": [
        ("X_merged = X.reshape(X.shape[0], X.shape[1], -1)", "X_out = X.reshape(X.shape[0], X.shape[1], -1)")]},
        step="holds the right result"),
    "position_encoding: base 1000, not 10000": W(A03, "test_position_encoding", {"position_encoding_def": [
        ("positions / 10000.0 **", "positions / 1000.0 **")]}, step="Your angles"),
    "gradient_check: the central difference upside down": W(A07, "test_gradient_check", {"gradient_check_def": [
        ("(f(X_plus) - f(X_minus)) / (2 * eps)", "(f(X_minus) - f(X_plus)) / (2 * eps)")]}, step="Your numeric gradient"),
    "mha_backward: the bias gradients averaged, not summed": W(A07, "test_mha_backward", {"mha_backward_def": [
        ('grads["b_" + name] = d_proj.sum(axis=(0, 1))', 'grads["b_" + name] = d_proj.mean(axis=(0, 1))')]},
        step='but not grads["b_q"]'),
    "key_padding_mask: the keys counted from 1 (one key too few)": W(A05, "test_boolean_masks", {
        "boolean_masks_def": [("mask = np.arange(num_keys) < np.asarray(valid_lens)[:, None, None]",
                               "mask = np.arange(1, num_keys + 1) < np.asarray(valid_lens)[:, None, None]")]},
        # (the result is the right one for an input off by one, on every input: said before any step)
        because="On every input it gives what the right code gives for valid_lens - 1 (each entry one less): is "
                "something counted from 1 where 0 is due"),
    "causal_mask: the last query aligned with the last key (FlashAttention's bottom-right causal mask)": W(
        A05, "test_boolean_masks", {"boolean_masks_def": [
            ("np.tril(np.ones((num_queries, num_keys), dtype=bool))",
             "np.tril(np.ones((num_queries, num_keys), dtype=bool), k=num_keys - num_queries)")]},
        step="right but the causal mask"),
    "adam_step: v corrected with beta1": W(A09, "test_adam_step", {"adam_step_def": [
        ("v_hat = new_v / (1 - beta2 ** t)", "v_hat = new_v / (1 - beta1 ** t)")]}, step="but not the bias-corrected v_hat"),
    # One term counted with another size: off by the difference of two inputs on every case (24 = 3 x 8 on the book's)
    "block_parameters: b1 counted with D numbers": W(A08, "test_block_parameters", {"counts_def": [
        ("D * D_ff + D_ff + D_ff * D + D", "D * D_ff + D + D_ff * D + D")]},
        because="the input D where the input D_ff is due?"),
    "block_parameters: the MLP's biases left out": W(A08, "test_block_parameters", {"counts_def": [
        ("feed_forward = D * D_ff + D_ff + D_ff * D + D", "feed_forward = D * D_ff + D_ff * D")]},
        step="minus the MLP's biases"),
    "block_flops: the scores and weighted sums of one head": W(A08, "test_block_flops", {"counts_def": [
        ("scores = H * T * T * d", "scores = T * T * d"), ("weighted_sums = H * T * T * d", "weighted_sums = T * T * d")]},
        step="but not the scores' multiply-adds"),
    "init_weight: the standard deviation given as the mean": W(A05, "test_init_weight", {"init_weight_def": [
        ("W = rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))",
         "std = 1.0 / np.sqrt(fan_in)\n    W = rng.normal(std, size=(fan_in, fan_out))")]},
        step="but not the result"),
    "init_weight: drawn around 1": W(A05, "test_init_weight", {"init_weight_def": [
        ("rng.normal(0.0, ", "rng.normal(1.0, ")]},
        step="draws with mean 1 and standard deviation"),
    "layer_norm: statistics over the batch and the features": W(A08, "test_layer_norm", {"layer_norm_def": [
        ("np.mean(x, axis=-1, keepdims=True)", "np.mean(x, axis=(0, 2), keepdims=True)"),
        ("np.var(x, axis=-1, keepdims=True)", "np.var(x, axis=(0, 2), keepdims=True)")]},
        step="your `mean` is the mean over the items and features, where the mean over the features alone is due"),
    # A reduction made inline over other axes: no array of the student's holds it, the result made with it does
    "softmax_backward: the coupling term summed over the whole matrix": W(A07, "test_softmax_backward", {
        "softmax_backward_def": [("dS = A * (dA - column_sums)", "dS = A * (dA - np.sum(A * dA))")]},
        step="your `dS` is the result made with the sum of A * dA over the rows and columns in place of the sum of "
             "A * dA over the rows alone"),
    "softmax_backward: the row sums, not kept as a column": W(A07, "test_softmax_backward", {"softmax_backward_def": [
        ("dS = A * (dA - column_sums)", "dS = A * (dA - np.sum(A * dA, axis=1))")]},
        step="your `dS` is the result made with the sum of A * dA over the columns without `keepdims=True` in place of "
             "the sum of A * dA over the rows alone"),
    # A step held right by one array (the forward pass's cache) while the steps after it are made from another
    "mha_backward: the weights recomputed without the mask": W(A07, "test_mha_backward", {"mha_backward_def": [
        ('Q, K, V, A, heads = cache["Q"], cache["K"], cache["V"], cache["A"], cache["heads"]',
         'Q, K, V, heads = cache["Q"], cache["K"], cache["V"], cache["heads"]\n'
         '  A = softmax_rows(Q @ K.transpose(0, 1, 3, 2) / np.sqrt(Q.shape[-1]))')]},
        step="are right, in your `cache['A']`, but the steps after them are made from your `A` in their place, which "
             "gives weight to the entries above the diagonal"),
    # A step made right in one array while the steps after it are made from another: said right, where it is
    "cross_entropy: the softmax made from the shifted logits, not the log-probabilities": W(A09, "test_cross_entropy", {
        "cross_entropy_def": [("dlogits = (np.exp(log_p) - one_hot)", "dlogits = (np.exp(shifted) - one_hot)")]},
        step="Your log-probabilities (the logits minus their log-sum-exp over the vocabulary) are right, in your "
             "`log_p`, but the steps after them are made from your `shifted` in their place"),
    # A function applied entry by entry in place of the one due (Step.entrywise)
    "mlp: a leaky ReLU": W("08_transformer_block", "test_mlp", {"mlp_def": [
        ("np.maximum(0.0, x @ W1 + b1)", "np.maximum(0.01 * (x @ W1 + b1), x @ W1 + b1)")]},
        step="is not np.maximum(0, h) (h: the hidden pre-activations) where h is negative: at h = "),
    "mlp: a sigmoid": W("08_transformer_block", "test_mlp", {"mlp_def": [
        ("np.maximum(0.0, x @ W1 + b1)", "1 / (1 + np.exp(-(x @ W1 + b1)))")]},
        step="is not np.maximum(0, h) (h: the hidden pre-activations) where h is negative or positive: at h = "),
    # Arguments given in the order of another function's parameters: two renamings at once, said for one head
    "multihead: attention_weights given the values' and queries' weights": W(A04, "test_multihead", {"multihead_def": [
        ("attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)",
         "attention_weights(X, omega_v1, omega_q1, beta_v1, beta_q1)"),
        ("attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)",
         "attention_weights(X, omega_v2, omega_q2, beta_v2, beta_q2)")]},
        step="made with the inputs `omega_v1`, `beta_v1`, `omega_q1` and `beta_q1` in place of `omega_q1`, `beta_q1`, "
             "`omega_k1` and `beta_k1`"),
    "softmax_cols: the weights rounded to 3 decimals": W(A02, "test_softmax_cols", {"softmax_cols_def": [
        ("softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)",
         "softmax = np.round(exp_values / np.sum(exp_values, axis=0, keepdims=True), 3)")]},
        step="the right answer rounded to 3 decimals: return the values unrounded"),
    "multihead: each head's weights transposed": W(A04, "test_multihead", {"multihead_def": [
        ("@ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)",
         "@ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1).T"),
        ("@ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)",
         "@ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2).T")]},
        step="made with head 1's attention weights transposed the other way (a .T added, or the one its formula has"),
    # The transpose of a step is said as that, not as the step "made with" its own transpose in place of itself
    "attention_backward: dA transposed": W(A07, "test_attention_backward", {"attention_backward_def": [
        ("dA = V.T @ dX_prime", "dA = dX_prime.T @ V")]},
        step="your `dA` is the transpose of the right gradient of the weights dA (keys and queries swapped)"),
    # Scaled by the wrong size: the factor named as the ratio of the two sizes, when one pair of them fits
    "attention_weights: scaled by the number of tokens": W(A04, "test_attention_weights", {"attention_weights_def": [
        ("np.sqrt(Q.shape[0])", "np.sqrt(X.shape[1])")]},
        step="0.8165 = sqrt(4)/sqrt(6), where 6 is X.shape[1] and 4 is a size of this input: a scale by the wrong size"),
    "scaled attention: the keys made with the query weights": W(A02, "test_scaled_attention", {"scaled_attention_def": [
        ("K = omega_k @ X + beta_k", "K = omega_q @ X + beta_k")]},
        step="your `K` is the keys made with the input `omega_q` in place of `omega_k`"),
    # The results of "scaled after the softmax" (softmax(K.T @ Q) / sqrt(D_q), then V @ it), reached by scaling
    # the values instead: that name's words ("the weights no longer sum to one") would be false of this code.
    "scaled attention: the values scaled where the scores should be": W(A02, "test_scaled_attention", {
        "scaled_attention_def": [("softmax_cols(K.T @ Q / np.sqrt(D_q))", "softmax_cols(K.T @ Q)"),
                                 ("V = omega_v @ X + beta_v", "V = (omega_v @ X + beta_v) / np.sqrt(Q.shape[0])")]},
        step="values", looks_like="scaled after the softmax"),
    "MultiHeadAttention: the values projected from the keys": W(A05, "test_mha", {"mha_class": [
        ("transpose_qkv(values @ self.W_v", "transpose_qkv(keys @ self.W_v")]},
        step="is the projected values made with the input `keys` in place of `values`"),
    "qkv_loop: the key weights transposed": W(A01, "test_qkv_loop", {"qkv_loop": [
        ("key = omega_k @ x + beta_k", "key = omega_k.T @ x + beta_k")]},
        step="your `all_keys` is the keys made with `omega_k.T` in place of `omega_k`"),
    # A right step in place of an input: the values projected from the queries (or keys), not the tokens
    "qkv_loop: the values projected from the queries": W(A01, "test_qkv_loop", {"qkv_loop": [
        ("value = omega_v @ x + beta_v", "value = omega_v @ query + beta_v")]},
        step="your `all_values` is the values made with the queries in place of `all_x`"),
    "self_attention: the values projected from the keys": W(A01, "test_self_attention", {"self_attention_def": [
        ("V = omega_v @ X + beta_v", "V = omega_v @ K + beta_v")]},
        step="your `V` is the values made with the keys in place of `X`"),
    # A flat vector broadcast with a column: every token's query a 4 x 4 matrix, the right one on its diagonal
    "qkv_loop: each token flattened before the products": W(A01, "test_qkv_loop", {"qkv_loop": [
        ("for x in all_x:\n", "for x in all_x:\n  x = x.ravel()\n")]},
        step="is made of 4 x 4 matrices whose diagonals hold the right values"),
    # A function named as its step returns another shape: the shape said, where no array of it holds the step
    "key_padding_mask: one key too many": W(A05, "test_boolean_masks", {"boolean_masks_def": [
        ("mask = np.arange(num_keys) <", "mask = np.arange(num_keys + 1) <")]},
        step="your `mask` has shape (2, 1, 5), expected (2, 1, 4): 5 keys where 4 are expected"),
    # A loop's running sum overwritten on each pass: the weights behind the outputs are the last key's alone
    "loop: the weighted sum overwritten on each pass": W(A01, "test_attention_loop", {"attention_loop": [
        ("x_prime = x_prime + attention[m] * all_values[m]", "x_prime = all_values[m] * attention[m]")]},
        because="every key but the last is 0, where it should not be, and the last key is right"),
    # The corpus it is given changed in place (emptied and refilled with the merged words): right results, 2/3
    "merge_pair: the corpus it is given refilled": W("10_byte_pair_encoding", "test_merge_pair", {"merge_pair_def": [
        ("  return merged", "  corpus.clear()\n  corpus.update(merged)\n  return corpus")]}),
    "SelfAttention: the keys left unprojected": W(A06, "test_self_attention", {"self_attention_class": [
        ("K = embeddings @ self.k_proj  # (B, T, D)", "K = embeddings  # (B, T, D)")]},
        step="your `K` is the keys split into heads made with the input `X` in place of the projected keys"),
    "pre-norm block: the second LayerNorm skipped": W(A08, "test_transformer_block", {"block_def": [
        ('out = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"]', 'out = h + mlp(h, params["W1"]')]},
        step="is the MLP output made with the first residual sum (x + the attention output) in place of the second "
             "LayerNorm's output"),
    "loop over heads: the keys sliced at the head's index": W(A05, "test_loop_heads", {"loop_heads": [
        ("k_head = k[:, i * split_dim:(i + 1) * split_dim]", "k_head = k[:, i:i + split_dim]")]},
        step="your `k_head` is features 4 to 5 of the input `k`, where features 7 to 8 are due"),
    "train_step: the loss's gradient doubled": W(A09, "test_train_step", {"train_step_def": [
        ("grads = model_backward(dlogits, cache)", "grads = model_backward(2 * dlogits, cache)")]},
        step="but not grads[\"tok_emb\"] (model_backward(dlogits, cache)[\"tok_emb\"]): in your `grads['tok_emb']`, "
             "every entry is 2 times the right one"),
    "top_k_probs: the logits halved": W(A11, "test_top_k", {"top_k_def": [
        ("probs = softmax(logits)  # (V,)", "probs = softmax(logits / 2)  # (V,)")]},
        step="probabilities (softmax(logits)) are not right"),
    "top_p_probs: the logits doubled": W(A11, "test_top_p", {"top_p_def": [
        ("probs = softmax(logits)  # (V,)", "probs = softmax(2 * logits)  # (V,)")]},
        step="probabilities (softmax(logits)) are not right"),
    "tokenize: only words in capitals lower-cased": W(A06, "test_tokenize", {"tokenize_def": [
        ("tokens = sentence.lower().split()  # T words", "tokens = [w.lower() if w.isupper() else w for w in sentence.split()]")]},
        because="word 1 of 6, 'The', gets id 0, <unk>'s, where 1 is due: the id of 'the' in the vocabulary"),
    "tokenize: unknown words given id -1": W(A06, "test_tokenize", {"tokenize_def": [
        ("vocab.get(token, vocab[UNK])", "vocab.get(token, -1)")]},
        because="(the words the vocabulary does not know: 'Thames', 'burst' and 'its'); each gets -1, where <unk>'s id (0) is due"),
    "greedy: the logits of the sequence without its first id": W(A11, "test_greedy", {"greedy_def": [
        ("logits = next_logits(ids)  # (V,)", "logits = next_logits(ids[1:] or ids)  # (V,)")]},
        because="you pick"),
    "beam search: finished beams dropped": W(A11, "test_beam_search", {"beam_search_def": [
        ("candidates.append((ids, score))  # finished: carried over as it is", "pass  # finished: dropped")]},
        because="your sequence is one of the rules' 4 final beams, but not the best"),
    "decode_step: the heads side by side feature by feature": W(A11, "test_decode_step", {"decode_step_def": [
        ("heads = (weights @ V).reshape(D)", "heads = (weights @ V).transpose(2, 1, 0).reshape(D)")]},
        step="but not the heads side by side"),
}
WRONG.update(STEPPED)


SEEDS = (0, 1)


@pytest.fixture(scope="module")
def graded():
    """{name: [[score, points, finding, mistake, message] per seed]}, graded in a child process: an IPython
    shell in this one would take over sys.modules['__main__'] and the hooks of the pytest worker."""
    out = subprocess.run([sys.executable, "-m", "tests.test_diagnosis", "--json"], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).parent.parent)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", sorted(WRONG))
def test_an_uncatalogued_mistake_gets_a_cause_and_no_wrong_name(graded, name):
    for score, points, finding, mistake, message in graded[name]:
        assert score < points, f"{name}: full marks: {message}"
        assert finding in DIAGNOSED, f"{name}: no cause: {message}"


@pytest.mark.parametrize("name", sorted(n for n, w in WRONG.items() if w.step))
def test_the_first_wrong_step_is_said(graded, name):
    for score, points, finding, mistake, message in graded[name]:
        assert finding == "step" and WRONG[name].step in message, f"{name}: {message}"


@pytest.mark.parametrize("name", sorted(n for n, w in WRONG.items() if w.because))
def test_a_part_read_by_its_readings_says_what_it_read(graded, name):
    """A part whose steps no trace keeps (06's tokenize works on strings) is read by Probe.readings: the
    verdict says what the reading found, on every fresh draw (the book's cases come first)."""
    for score, points, finding, mistake, message in graded[name]:
        assert finding == "structural" and WRONG[name].because in message, f"{name}: {message}"


@pytest.mark.parametrize("name", sorted(n for n, w in WRONG.items() if w.looks_like))
def test_a_name_is_not_said_of_an_answer_that_reaches_its_results_by_another_path(graded, name):
    """Issue 26: a catalogued name only when its mistake reproduces the student's steps, not just the results.
    By the results alone the answer is that mistake (the child process grades it so too)."""
    assert graded["__by_results_alone__"][name] == WRONG[name].looks_like, graded["__by_results_alone__"][name]
    for score, points, finding, mistake, message in graded[name]:
        assert mistake != WRONG[name].looks_like and WRONG[name].looks_like not in message, message


def test_every_part_with_steps_has_a_mistake_told_its_first_wrong_step():
    stepped = {(a, g) for a, probes in PROBES.items() for g, p in probes.items() if p.steps}
    covered = {(w.assignment, w.part) for w in WRONG.values() if w.step}
    assert stepped <= covered, f"no first-wrong-step test for {sorted(stepped - covered)}"
    assert len(stepped) >= 20


def test_every_part_of_01_to_09_without_steps_has_a_mistake_told_what_its_reading_finds():
    """The parts read by readings or case traits instead of steps (test_steps lists them) have an uncatalogued
    mistake each whose verdict must say what was read (`because`); 09's trained model is told through
    train_step's part."""
    unstepped = {(a, g) for a, probes in PROBES.items() for g, p in probes.items()
                 if a[:2] <= "09" and not p.steps and not p.judge}
    covered = {(w.assignment, w.part) for w in WRONG.values() if w.because}
    assert unstepped and unstepped <= covered, f"no uncatalogued mistake read for {sorted(unstepped - covered)}"


def test_every_declared_step_is_one_the_answer_key_computes(graded):
    """A step no right answer shows would make "but not X" a false lead: the answer key's own arrays must
    show every step of every part, on every case (found, or computed from by a step that is found)."""
    for key, missing in graded["__answer_key__"].items():
        assert not missing, f"{key}: the answer key shows no {missing}"


def answer_key_steps(seed=0):
    """{assignment/grade_id/case: [steps the answer key's trace does not show]}."""
    from grader.engine import steps
    out = {}
    for assignment, probes in PROBES.items():
        if not any(p.steps for p in probes.values()):
            continue
        traces = {}
        grade_in_process(assignment, {}, seed, traces)
        for grade_id, runs in traces.items():
            for k, (case, trace) in enumerate(runs):
                if case.budget:
                    continue  # a case with a time budget is not traced (protocol's kernel side)
                declared = probes[grade_id].steps(case.inputs)
                if probes[grade_id].trace_call:
                    # The steps of one call of many (11's decode_step), then the probe's result, which the probe
                    # makes from every call outside the one traced, and reads itself.
                    declared = declared[:-1]
                out[f"{assignment}/{grade_id}/{k}"] = steps.missing(declared, trace, case.inputs)
    return out


if __name__ == "__main__":
    results = {}
    for name in sorted(WRONG):
        w = WRONG[name]
        results[name] = []
        for seed in SEEDS:
            v = grade_in_process(w.assignment, w.edits, seed, parts={w.part})[w.part]
            results[name].append([v.score, v.points, v.finding, v.mistake, v.message])
    results["__answer_key__"] = answer_key_steps()
    walks, protocol._walks = protocol._walks, lambda *args: True  # the name by the results alone
    results["__by_results_alone__"] = {name: grade_in_process(w.assignment, w.edits, SEEDS[0], parts={w.part})[w.part].mistake
                                       for name, w in WRONG.items() if w.looks_like}
    protocol._walks = walks
    if "--json" in sys.argv:
        print(json.dumps(results))
    else:
        for name, runs in results.items():
            if name.startswith("__"):
                print(name, {k: v for k, v in runs.items() if v})
                continue
            print(f"{name}\n    {runs[0][0]:g}/{runs[0][1]:g} [{runs[0][2]}] {runs[0][4]}")


def test_two_inputs_multiplied_with_star_where_their_matrix_product_is_due_are_said_so():
    """A (D, D) matrix times a (D, 1) column with `*` is a (D, D) array where `@` gives a column: the verdict
    names the two inputs (a list of columns as its items) and the bias added, and nothing when the numbers
    are not that product."""
    from grader.engine import diagnose
    rng = np.random.default_rng(0)
    omega, beta = rng.standard_normal((4, 4)), rng.standard_normal((4, 1))
    xs = [rng.standard_normal((4, 1)) for _ in range(3)]
    inputs = {"omega_q": omega, "beta_q": beta, "all_x": xs, "N": 3}
    want = np.stack([omega @ x + beta for x in xs])
    said = diagnose.other_shape(np.stack([omega * x + beta for x in xs]), want, inputs)
    assert said == ("shape (3, 4, 4), expected (3, 4, 1): it is `omega_q` times each item of `all_x` entry by entry "
                    "(`*`, which stretches one across the other), plus `beta_q`, where their matrix product (`@`) is due"), said
    assert "`@`" in diagnose.other_shape(omega * xs[0], omega @ xs[0], {"omega": omega, "x": xs[0]})
    assert "`*`" not in diagnose.other_shape(np.stack([omega * x + 1 for x in xs]), want, inputs)


def test_a_factor_that_is_a_count_of_ones_over_a_size_is_said_as_a_mean_over_the_wrong_number():
    """c = (the ones in a 0/1 input) / (a size), or the other way round, with no other such pair: a mean over the
    wrong number of items. A size said by its one place comes first, and two pairs that fit say nothing."""
    from grader.engine import diagnose
    rng = np.random.default_rng(12)
    for _ in range(20):
        B, T = int(rng.integers(2, 6)), int(rng.integers(7, 12))
        weights = (rng.random((B, T)) < 0.6).astype(float)
        weights[0, :2] = 1  # (at least two ones)
        S = int(weights.sum())
        inputs = {"logits": rng.normal(size=(B, T, 13)), "weights": weights}
        if S in (B, T, 13) or any(abs(S / B - v) < 1e-9 for v in (T, 13, T / 13, 13 / T)):
            continue  # (the count is also a size, or its ratio another one: not this test's question)
        words = diagnose._factor_words(S / B, inputs)
        assert f"{S / B:.4g} = {S}/{B}, where {B} is logits.shape[0]" in words \
            or f"{S / B:.4g} = {S}/{B}, where {B} is a size of this input" in words, words
        assert words.endswith(f"{S} is the sum of weights: divided by {B} where {S} is due?)"), words
        both = diagnose._factor_words(S / B, {**inputs, "mask": weights.copy()})  # two inputs with that count
        assert both.endswith(f"{S} is the sum of weights and the sum of mask: divided by {B} where {S} is due?)")
    inputs = {"X": np.zeros((3, 8)), "weights": np.array([1.0, 1.0, 0.0, 1.0, 1.0, 1.0])}  # 5 ones
    assert diagnose._factor_words(8.0, inputs) == diagnose._size_factor_words(8.0, inputs) != ""  # X.shape[1]
    assert diagnose._factor_words(5 / 3, inputs).startswith(" (1.667 = 5/3, where 3 is X.shape[0] and 5 is the sum")
    two = {"Y": np.zeros((2, 5)), "w": np.array([1.0] * 6 + [0.0]), "v": np.array([1.0] * 15 + [0.0])}
    assert diagnose._factor_words(3.0, two) == ""  # 6/2 and 15/5: two readings, neither said
