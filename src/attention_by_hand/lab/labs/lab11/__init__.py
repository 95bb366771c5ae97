"""Lab 11, induction heads: its reference, its checks, and the hints of what to write.

    lab-11-induction-heads.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py                   the inputs its functions are called on, and the judges that name mistakes

The reference runs the learner's functions on the heads part's shipped models (Module 7); the
checks need no model: they judge the functions on patterns and scores they make up.
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=11,
    slug="induction-heads",
    title="induction heads",
    summary="detectors for previous-token, induction and first-token heads, and ablation, on a model trained here",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "previous_token_score": "one number per head: the mean of pattern[b, h, i, i - 1] over the batch b and "
        "the rows i = 1 .. T-1 (row 0 has no previous position); keep the heads axis (1)",
        "first_token_score": "one number per head: the mean of pattern[b, h, i, 0] (column 0, the start token) over "
        "the batch and the rows i = 1 .. T-1 (row 0's weight on itself is always 1)",
        "induction_score": "one number per head: the mean of pattern[b, h, i, i - period + 1] over the batch and the "
        "rows i = period + 1 .. T-1 (the token after the current token's earlier occurrence, at i - period)",
        "ablate_head": "each head's output is softmax(scores_h) @ values_h, shape (batch, heads, T, d_model); "
        "return the sum over the heads of all outputs but head `head`'s, shape (batch, T, d_model); "
        "leave scores and values as they are",
    },
    package=__name__,
)
