"""Lab 01, tensors: its reference, its checks, and the hints of what to write.

    lab-01-tensors.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py           the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=1,
    slug="tensors",
    title="tensors",
    summary="the toy world as torch tensors; a matrix product is many dot products",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "sentence_matrix": "find each word's row number with vocabulary.index(word), "
        "then take those rows of the table: table[rows]",
        "dot": "multiply a and b element by element, then add up the products "
        "(no torch.dot: that is what you are writing)",
        "matmul_by_loops": "start from an (n, m) tensor of zeros, then in two loops set "
        "out[i, j] = dot(row i of a, column j of b)",
    },
    package=__name__,
)
