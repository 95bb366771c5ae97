"""Lab 02, embeddings and softmax: its reference, its checks, and the hints of what to write.

    lab-02-embeddings-softmax.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py                      the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=2,
    slug="embeddings-softmax",
    title="embeddings and softmax",
    summary="nn.Embedding is a lookup table; softmax by hand, safe on huge scores",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "one_hot_lookup": "make one-hot rows with F.one_hot(ids, num_classes=weight.shape[0]), "
        "turn them into floats like weight, then multiply: one_hot @ weight",
        "softmax": "subtract each row's maximum (max over dim=-1, keepdim=True), take exp, "
        "then divide by each row's sum",
    },
    package=__name__,
)
