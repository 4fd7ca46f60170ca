"""The reference values printed in notebooks, computed here and written into cells by the build.

A notebook cell whose metadata says {"course": {"generated": KEY}} is rewritten by
`python -m grader build` to define the names VALUES[KEY]() returns: true values on
the book's case, and the values of the catalogued mistakes on the same case, so a
visible check can name a mistake with nothing but the notebook.
"""
from pathlib import Path

import numpy as np

from . import cases, mistakes, notebook_checks, reference as ref

HEADER = "# Written by `python -m grader build` from the course's reference code: do not edit.\n"


def _qkv_book():
    i = cases.book_12_1()
    queries, keys, values = (np.hstack(vs) for vs in mistakes.QKV_BIAS_LEFT_OUT.compute(i))
    V, Q, K = ref.queries_keys_values(i["X"], *(i[n] for n in cases.PARAMETERS))
    return {"queries_true": Q, "keys_true": K, "values_true": V,
            "BIAS_LEFT_OUT": _said(mistakes.BIAS_LEFT_OUT),
            "queries_without_bias": queries, "keys_without_bias": keys, "values_without_bias": values}


def _softmax_example():
    items = np.array([-1.0, 0.0, 2.5, 1.0])
    return {"softmax_example": items, "softmax_example_true": ref.softmax(items),
            "NOT_NORMALISED": _said(mistakes.SOFTMAX_NOT_NORMALISED),
            "softmax_not_normalised": mistakes.SOFTMAX_NOT_NORMALISED.compute({"items_in": items})}


def _self_attention_book():
    i = cases.book_12_1()
    out = {"X_prime_true": ref.self_attention(i["X"], *(i[n] for n in cases.PARAMETERS))}
    out["self_attention_mistakes"] = {_said(m): m.compute(i) for m in mistakes.SELF_ATTENTION}
    return out


def _said(mistake):
    return f"{mistake.name}: {mistake.message}"


VALUES = {
    "qkv_book": _qkv_book,
    "softmax_example": _softmax_example,
    "self_attention_book": _self_attention_book,
}


def _literal(value, prefix=""):
    """Python source for a value, arrays to 10 significant digits, aligned after `prefix`."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        body = "".join(f"    {_literal(k)}:\n        {_literal(v).replace(chr(10), chr(10) + '        ')},\n"
                       for k, v in value.items())
        return "{\n" + body + "}"
    text = np.array2string(np.asarray(value), separator=", ", max_line_width=88, threshold=10**6,
                           prefix=prefix + "np.array(",
                           formatter={"float_kind": lambda x: f"{x:.10g}"})
    return f"np.array({text})"


def render(key):
    """The whole source of a generated cell."""
    if key == "checks":
        return HEADER + Path(notebook_checks.__file__).read_text()
    if key not in VALUES:
        raise KeyError(f"no generated cell called '{key}' in grader/notebook_values.py")
    return HEADER + "".join(f"{name} = {_literal(v, f'{name} = ')}\n" for name, v in VALUES[key]().items())
