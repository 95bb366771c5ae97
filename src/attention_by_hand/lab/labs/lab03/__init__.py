"""Lab 03, a bigram model: its reference, its checks, and the hints of what to write.

    lab-03-bigram.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py          the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=3,
    slug="bigram",
    title="a bigram model",
    summary="count character pairs, then train nn.Embedding to the same table; sample",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "bigram_counts": "start from a (vocab_size, vocab_size) tensor of zeros and add 1 at "
        "[ids[i], ids[i + 1]] for each of the N - 1 pairs, repeats included",
        "counts_to_probs": "add the smoothing to every count, then divide each ROW by its own sum "
        "(dim=1, keepdim=True)",
        "average_nll": "pick probs[ids[i], ids[i + 1]] for every pair, take the natural log, average, "
        "and flip the sign",
    },
    package=__name__,
)
