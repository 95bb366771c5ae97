"""Lab 05, several heads: its reference, its checks, and the hints of what to write.

    lab-05-multihead.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py             the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=5,
    slug="multihead",
    title="several heads",
    summary="heads in parallel, merged, projected; equal to nn.MultiheadAttention",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "split_heads": "view t as (T, n_heads, head_size), then transpose(0, 1) to get (n_heads, T, head_size)",
        "merge_heads": "transpose back to (T, n_heads, head_size), then reshape to (T, n_heads * head_size)",
        "multi_head_attention": "split query(x), key(x), value(x) into heads; in every head at once "
        "softmax(causal_mask(q k^T / sqrt(head_size))) @ v; merge the heads and apply proj; "
        "return (out, weights)",
    },
    package=__name__,
)
