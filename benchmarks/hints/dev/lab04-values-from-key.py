# patches: lab-04-attention.py
"""self_attention blends the keys instead of the values."""


def self_attention(x, query, key, value):
    w = attention_weights(x, query, key)
    values = key(x)
    return w @ values, w
