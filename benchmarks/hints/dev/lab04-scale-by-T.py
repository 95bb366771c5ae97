# patches: lab-04-attention.py
"""attention_weights scales by the square root of the number of tokens."""


def attention_weights(x, query, key):
    q = query(x)
    k = key(x)
    d = k.shape[0]
    scores = (q @ k.T) / math.sqrt(d)
    scores = scores.masked_fill(causal_mask(x.shape[-2]), float("-inf"))
    return scores.softmax(dim=-1)
