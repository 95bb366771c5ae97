"""Lab 09, FlashAttention by hand: its reference, its checks, and the hints of what to write.

    lab-09-flash-attention.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py                   the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=9,
    slug="flash-attention",
    title="FlashAttention by hand",
    summary="online softmax, then attention a tile at a time: a running max and sum, never the whole score matrix",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "online_softmax": "go along the last axis keeping m (the largest score so far, from -inf) and l "
        "(the sum so far of exp(s - m), from 0): m_new = max(m, s), l = l * exp(m - m_new) + "
        "exp(s - m_new); then return exp(scores - m) / l",
        "tiled_attention": "per query block m = -inf, l = 0, acc = 0; per key block (causal: up to the "
        "diagonal one, masked j > i): s = q_b @ k_b^T / sqrt(head_size), m_new = max(m, row max of s), "
        "p = exp(s - m_new), r = exp(m - m_new), l = r * l + row sum of p, acc = r * acc + p @ v_b; "
        "then out = acc / l, lse = m + log(l)",
    },
    package=__name__,
)
