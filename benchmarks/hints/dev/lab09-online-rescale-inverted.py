# patches: lab-09-flash-attention.py
"""online_softmax rescales the running sum by exp(m_new - m), upside down."""


def online_softmax(scores):
    m = torch.full(scores.shape[:-1], float("-inf"), dtype=scores.dtype)
    total = torch.zeros(scores.shape[:-1], dtype=scores.dtype)
    for j in range(scores.shape[-1]):
        s = scores[..., j]
        new_max = torch.maximum(m, s)
        factor = torch.exp(new_max - m)
        factor = torch.where(torch.isfinite(factor), factor, torch.zeros_like(factor))
        total = total * factor + torch.exp(s - new_max)
        m = new_max
    return torch.exp(scores - m[..., None]) / total[..., None]
