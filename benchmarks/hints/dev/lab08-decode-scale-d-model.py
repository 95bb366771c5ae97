# patches: lab-08-kv-cache.py
"""decode_step scales the scores by sqrt(d_model) instead of sqrt(head_size)."""


def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = qkv(x_new).split(C, dim=-1)
    q = q.view(B, 1, n_heads, hs).transpose(1, 2)
    k = k.view(B, 1, n_heads, hs).transpose(1, 2)
    v = v.view(B, 1, n_heads, hs).transpose(1, 2)
    cache = append_to_cache(cache, k, v)
    keys, values = cache
    att = torch.softmax(q @ keys.transpose(-2, -1) / math.sqrt(C), dim=-1)
    out = (att @ values).transpose(1, 2).reshape(B, 1, C)
    return proj(out), cache
