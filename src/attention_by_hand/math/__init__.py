"""The math the pages quote, as plain NumPy (and plain PyTorch where the benchmarks need speed,
and for the model that is trained).

    mechanism.py     dot product, softmax, raw / wired / general attention, the causal mask
    positions.py     sinusoidal positions, RoPE (both pairings), ALiBi
    tiling.py        online softmax and tiled attention, and the bytes they hold
    kv_cache.py      the key/value cache, its bytes and the multiply-adds it saves
    gradients.py     the softmax's backward, one head's backward, the tiled backward from O and lse
    tiling_torch.py  the naive and the tiled head, forward and backward, in plain PyTorch, for the benchmarks
    attention_only.py  a transformer of attention heads only (Module 7's model), in plain PyTorch
    repeats.py       its data: random segments repeated after a start token; the probe
    training.py      training it, the same bytes every time on one machine
    adamw.py         its optimizer: torch.optim's AdamW written out, op for op (without torch._dynamo's import)
    detectors.py     previous-token, induction and first-token scores; zero-ablation

Every function names its shapes and sits next to its formula. This folder imports nothing of
the rest of the package: the run parts, the site and the labs build on it, never the reverse.
(Named `math`, not `attention`: `attention_by_hand.attention` is the general head, public API.)
"""
