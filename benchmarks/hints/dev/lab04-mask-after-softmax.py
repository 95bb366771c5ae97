# patches: lab-04-attention.py
"""attention_weights takes the softmax first and zeroes the future afterwards."""


def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    return weights.masked_fill(causal_mask(x.shape[-2]), 0.0)
