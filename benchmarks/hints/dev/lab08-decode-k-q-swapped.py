# patches: lab-08-kv-cache.py
"""decode_step unpacks the split as k, q, v."""


def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    head_size = C // n_heads
    k, q, v = qkv(x_new).split(C, dim=-1)
    q, k, v = (t.view(B, 1, n_heads, head_size).transpose(1, 2) for t in (q, k, v))
    cache = append_to_cache(cache, k, v)
    keys, values = cache
    scores = q @ keys.transpose(-2, -1) / math.sqrt(head_size)
    weights = torch.softmax(scores, dim=-1)
    return proj((weights @ values).transpose(1, 2).reshape(B, 1, C)), cache
