# patches: lab-05-multihead.py
"""multi_head_attention blends the values with each head's weights transposed."""


def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q = split_heads(query(x), n_heads)
    k = split_heads(key(x), n_heads)
    v = split_heads(value(x), n_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    heads = weights.transpose(-2, -1) @ v
    return proj(merge_heads(heads)), weights
