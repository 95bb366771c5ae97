# patches: lab-07-positions.py
"""rope turns each pair the other way."""


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    half = d // 2
    freqs = base ** (-2 * torch.arange(half, dtype=torch.float32) / d)
    ang = positions.float()[:, None] * freqs[None, :]
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * ang.cos() + b * ang.sin(), b * ang.cos() - a * ang.sin()], dim=-1)
