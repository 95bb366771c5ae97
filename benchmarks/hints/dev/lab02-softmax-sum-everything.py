# patches: lab-02-embeddings-softmax.py
"""softmax divides by the sum over the whole tensor, not each row's."""


def softmax(scores):
    biggest = scores.max(dim=-1, keepdim=True).values
    e = torch.exp(scores - biggest)
    return e / e.sum()
