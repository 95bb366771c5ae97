"""Lab 07, positions: its reference, its checks, and the hints of what to write.

    lab-07-positions.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py             the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=7,
    slug="positions",
    title="positions",
    summary="sinusoidal, learned, RoPE and ALiBi positions; five models trained short, tested long",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "sinusoidal_table": "with p = torch.arange(n_positions) as a column and i the column pair: angle = "
        "p / base ** (2i / d_model); put sin(angle) in the even columns 2i, cos(angle) in the odd ones 2i + 1",
        "add_positions": "add the table's first T rows to x: x + table[:T], with T = x.shape[-2] "
        "(the number of tokens)",
        "rope": "with half = d // 2, theta = base ** (-2i / d) for i < half and angles = positions[:, None] "
        "* theta; split x into a = x[..., :half] and b = x[..., half:], and return "
        "cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
        "rope_attention": "rotate q and k (not v) with rope at positions torch.arange(T); then lab 04's "
        "head: scores q @ k^T / sqrt(head_size), the future (j > i) set to -inf, softmax each row, times v",
        "alibi_bias": "a (T, T) tensor whose [i, j] is -slope * (i - j) for j <= i: 0 on the diagonal, "
        "more negative farther back (above the diagonal the mask hides it: 0 will do)",
        "alibi_attention": "scores = q @ k^T / sqrt(head_size) + alibi_bias(T, slope); then set the "
        "future (j > i) to -inf, softmax each row, and multiply by v",
    },
    package=__name__,
)
