# patches: lab-07-positions.py
"""alibi_bias rewards distance instead of penalising it."""


def alibi_bias(T, slope):
    rows = torch.arange(T).unsqueeze(1)
    cols = torch.arange(T).unsqueeze(0)
    distance = (rows - cols).clamp(min=0).float()
    return slope * distance
