"""Lab 06, a tiny transformer: its reference, its checks, and the hints of what to write.

    lab-06-transformer.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py               the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=6,
    slug="transformer",
    title="a tiny transformer",
    summary="embeddings, attention, MLP, residuals, layer norm; trained to copy",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "embed": "look up token_embedding(tokens) and add position_embedding(torch.arange(T)), "
        "with T = tokens.shape[-1]",
        "layer_norm": "over the last axis: (x - mean) / sqrt(var + eps) * weight + bias, "
        "with the biased variance (unbiased=False)",
        "block_forward": "two residual branches, each normalised first: x = x + attn(ln1(x)), "
        "then return x + mlp(ln2(x))",
    },
    package=__name__,
)
