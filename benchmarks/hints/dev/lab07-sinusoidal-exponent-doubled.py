# patches: lab-07-positions.py
"""sinusoidal_table doubles the exponent: 2 * i where i already steps by two."""


def sinusoidal_table(n_positions, d_model, base=10000.0):
    pos = torch.arange(n_positions, dtype=torch.float32).unsqueeze(1)
    i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angle = pos / base ** (2 * i / d_model)
    out = torch.zeros(n_positions, d_model)
    out[:, 0::2] = torch.sin(angle)
    out[:, 1::2] = torch.cos(angle)
    return out
