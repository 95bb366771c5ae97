"""Lab 08, the KV cache: its reference, its checks, and the hints of what to write.

    lab-08-kv-cache.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py            the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=8,
    slug="kv-cache",
    title="the KV cache",
    summary="generate one word at a time from cached keys and values; every step equals the uncached model",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "embed_at": "look up token_embedding(tokens) and add position_embedding at the positions start, "
        "start + 1, ..., start + T - 1: torch.arange(start, start + T), with T = tokens.shape[-1]",
        "append_to_cache": "concatenate the cached keys and then k_new along the time axis, dim=2 of "
        "(B, heads, T, head_size); the same for the values; return (keys, values)",
        "decode_step": "split qkv(x_new) into q, k, v of (B, n_heads, 1, head_size); append k and v to the "
        "cache first; scores = q @ keys^T / sqrt(head_size), masked by row `position` of the causal mask "
        "(key j > position hidden); softmax, times the values, heads merged to (B, 1, d_model), proj; "
        "return (out, cache)",
    },
    package=__name__,
)
