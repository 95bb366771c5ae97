# patches: lab-07-positions.py
"""alibi_attention forgets to divide the scores by sqrt(head_size)."""


def alibi_attention(q, k, v, slope):
    T = q.shape[-2]
    scores = q @ k.transpose(-2, -1) + alibi_bias(T, slope)
    scores = scores.masked_fill(hidden_future(T), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
