# patches: lab-08-kv-cache.py
"""append_to_cache appends the new key to the values too."""


def append_to_cache(cache, k_new, v_new):
    old_k, old_v = cache
    return torch.cat((old_k, k_new), dim=2), torch.cat((old_v, k_new), dim=2)
