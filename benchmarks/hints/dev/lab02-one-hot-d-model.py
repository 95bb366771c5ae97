# patches: lab-02-embeddings-softmax.py
"""one_hot_lookup sizes the one-hot rows by the embedding width."""


def one_hot_lookup(ids, weight):
    rows = F.one_hot(ids, num_classes=weight.shape[1]).float()
    return rows @ weight
