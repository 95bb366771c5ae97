# patches: lab-05-multihead.py
"""merge_heads puts the head axis last, so each token's channels interleave head by head."""


def merge_heads(t):
    n_heads, T, head_size = t.shape
    return t.permute(1, 2, 0).reshape(T, n_heads * head_size)
