# patches: lab-03-bigram.py
"""average_nll forgets the minus sign."""


def average_nll(probs, ids):
    picked = probs[ids[:-1], ids[1:]]
    return torch.log(picked).mean()
