"""Lab 04, one head of self-attention: its reference, its checks, and the hints of what to write.

    lab-04-attention.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py             the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=4,
    slug="attention",
    title="one head of self-attention",
    summary="q, k, v by nn.Linear; scale, causal mask, softmax, weighted sum",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "causal_mask": "return a (T, T) bool tensor that is True above the diagonal (j > i): "
        "torch.triu of ones with diagonal=1",
        "attention_weights": "compute scores = q @ k^T / sqrt(head_size) with q = query(x), k = key(x); "
        "hide the future with causal_mask (-inf), then softmax each row",
        "self_attention": "get the weights from attention_weights, then blend the values: "
        "out = weights @ value(x); return (out, weights)",
    },
    package=__name__,
)
