"""The book's numbering, in one table: every reference the notebooks make to it must be here.

Understanding Deep Learning (Simon J.D. Prince, MIT Press, 2023), chapter 12,
"Transformers". Equation, figure and notebook numbers are the ones the book's own
notebooks use (udlbook/udlbook, Notebooks/Chap12: 12.1 cites section 12.2 and
equations 12.2-12.9, 12.2 cites figure 12.6, 12.3 cites figure 12.8; 12.4 is
"Decoding strategies", Notebooks/Chap12/12_4_Decoding_Strategies.ipynb); section
numbers are the chapter's table of contents. Equations of multi-head attention and
of the transformer layer, and problem numbers, are not cited: nothing here fixes
them, so the notebooks name the section instead.

tests/test_course_text.py reads every notebook's text and checks each "section",
"equation", "figure" and "notebook" number against these tables.
"""

TITLE = "Understanding Deep Learning"
AUTHOR = "Simon J.D. Prince"

SECTIONS = {
    "12.1": "Processing text data",
    "12.2": "Dot-product self-attention",
    "12.3": "Extensions to dot-product self-attention",
    "12.3.1": "Positional encoding",
    "12.3.2": "Scaled dot product self-attention",
    "12.3.3": "Multiple heads",
    "12.4": "Transformer layers",
    "12.5": "Transformers for natural language processing",
    "12.5.1": "Tokenization",
    "12.5.2": "Embeddings",
}

EQUATIONS = {
    "12.2": "the values, v = beta_v + Omega_v x",
    "12.3": "the output as a weighted sum of the values",
    "12.4": "the queries and keys",
    "12.5": "the attention weights: a softmax of the dot products of keys and queries",
    "12.6": "values, queries and keys in matrix form",
    "12.7": "self-attention in matrix form",
    "12.8": "self-attention in matrix form, written out",
    "12.9": "scaled dot-product self-attention: divided by sqrt(D_q)",
}

FIGURES = {
    "12.6": "multi-head self-attention",
    "12.8": "tokenization (byte pair encoding)",
}

NOTEBOOKS = {
    "12.1": "Self Attention",
    "12.2": "Multihead Self-Attention",
    "12.3": "Tokenization",
    "12.4": "Decoding Strategies",
}

TABLES = {"section": SECTIONS, "equation": EQUATIONS, "figure": FIGURES, "notebook": NOTEBOOKS}
