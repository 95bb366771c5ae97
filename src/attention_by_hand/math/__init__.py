"""The math the pages quote, as plain NumPy (and plain PyTorch where the benchmarks need speed).

    mechanism.py     dot product, softmax, raw / wired / general attention, the causal mask
    positions.py     sinusoidal positions, RoPE (both pairings), ALiBi
    tiling.py        online softmax and tiled attention, and the bytes they hold
    kv_cache.py      the key/value cache, its bytes and the multiply-adds it saves
    gradients.py     the softmax's backward, one head's backward, the tiled backward from O and lse
    tiling_torch.py  the naive and the tiled head, forward and backward, in plain PyTorch, for the benchmarks

Every function names its shapes and sits next to its formula. This folder imports nothing of
the rest of the package: the run parts, the site and the labs build on it, never the reverse.
(Named `math`, not `attention`: `attention_by_hand.attention` is the general head, public API.)
"""
