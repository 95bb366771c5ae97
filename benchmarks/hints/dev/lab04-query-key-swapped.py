# patches: lab-04-attention.py
"""self_attention passes key and query to attention_weights in the wrong order."""


def self_attention(x, query, key, value):
    w = attention_weights(x, key, query)
    return w @ value(x), w
