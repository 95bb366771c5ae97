# patches: lab-02-embeddings-softmax.py
"""softmax shifts by each row's minimum, not its maximum."""


def softmax(scores):
    low = scores.min(dim=-1, keepdim=True).values
    e = (scores - low).exp()
    return e / e.sum(dim=-1, keepdim=True)
