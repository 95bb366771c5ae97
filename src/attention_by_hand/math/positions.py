"""Three ways to tell attention where each word sits, as plain NumPy functions.

Attention on its own is order-blind: shuffle the words and each word's output stays the same
(S6 shows it). Three ways to get position in:

    sinusoidal positions   add a fixed vector per position to the embeddings   (Vaswani et al. 2017)
    rotary positions       turn each query and key by an angle set by its position   (RoPE, Su et al. 2021)
    ALiBi                  subtract a penalty proportional to distance from the scores   (Press et al. 2022)

A learned table of positions (GPT-2's) is not a function at all: it is one more embedding
table, looked up by position, so nothing here builds one.

Shapes: n_positions or n_words is the number of positions, d_model or d the width of the
vectors being given positions (the embeddings, or a head's queries and keys).

Left out on purpose: batches and heads as array axes, RoPE's frequency-scaling tricks for long
contexts (NTK, YaRN), ALiBi's slope recipe for a head count that is not a power of two, and
applying RoPE to only part of a head's channels (GPT-J and GPT-NeoX rotate a fraction).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "sinusoidal_positions",
    "rope_frequencies",
    "rotate_2d",
    "rope",
    "interleaved_to_halves",
    "alibi_bias",
    "alibi_slopes",
]

PAIRINGS = ("halves", "interleaved")


def _even_width(d: int, what: str) -> None:
    # Both schemes work on pairs of channels (a sine and a cosine, or the two ends of a rotation).
    if d <= 0 or d % 2:
        raise ValueError(f"{what} must be a positive even number (channels come in pairs), got {d}")


def sinusoidal_positions(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The Transformer's fixed position vectors, one row per position.

        PE[pos, 2i]   = sin(pos / base^(2i / d_model))
        PE[pos, 2i+1] = cos(pos / base^(2i / d_model))      i = 0 .. d_model/2 - 1

    -> PE: (n_positions, d_model). Pair i turns at its own speed: pair 0 once every 2*pi
    positions, the last pair almost base times slower, so together they tell far positions apart.
    """
    _even_width(d_model, "d_model")
    pos = np.arange(n_positions, dtype=np.float64)[:, None]  # (n_positions, 1)
    wavelength = base ** (np.arange(0, d_model, 2) / d_model)  # (d_model/2,): base^(2i/d_model)
    angles = pos / wavelength  # (n_positions, d_model/2)
    PE = np.empty((n_positions, d_model))  # (n_positions, d_model)
    PE[:, 0::2] = np.sin(angles)  # even channels
    PE[:, 1::2] = np.cos(angles)  # odd channels
    return PE


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """RoPE's angle per position for each pair of channels: theta_i = base^(-2i/d).   -> (d/2,)

    theta_0 = 1 radian per position whatever the base; with d = 2 that is the only pair.
    """
    _even_width(d, "the width d")
    return base ** (-np.arange(0, d, 2) / d)  # (d/2,)


def rotate_2d(v: np.ndarray, angle) -> np.ndarray:
    """Turn 2-d vectors anticlockwise by `angle` radians.   v: (..., 2) -> (..., 2)

        [x', y'] = [x cos a - y sin a,  x sin a + y cos a]
    """
    v = np.asarray(v, dtype=np.float64)
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([v[..., 0] * c - v[..., 1] * s, v[..., 0] * s + v[..., 1] * c], axis=-1)


def rope(x: np.ndarray, positions, base: float = 10000.0, pairing: str = "halves") -> np.ndarray:
    """Rotary positions: turn each pair of channels of x by position * theta_i.

    x: (..., d) queries or keys; positions: one per row of x, shape x.shape[:-1] (or anything
    that broadcasts to it) -> (..., d), the same shape.

    A query at position m and a key at position n then score

        rope(q, m) . rope(k, n) = q . R((n - m) theta) k

    which depends on the distance n - m only: that is the point of RoPE.

    pairing: which channels make a pair (two conventions for the same idea):
        "halves"       channel i with channel i + d/2   (GPT-NeoX, and Llama in Hugging Face's code)
        "interleaved"  channel 2i with channel 2i + 1   (the RoFormer paper, GPT-J, Meta's Llama code)
    """
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {', '.join(PAIRINGS)}, got {pairing!r}")
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    theta = rope_frequencies(d, base)  # (d/2,)
    angles = np.asarray(positions, dtype=np.float64)[..., None] * theta  # (..., d/2)
    cos, sin = np.cos(angles), np.sin(angles)  # (..., d/2) each
    if pairing == "halves":
        first, second = slice(0, d // 2), slice(d // 2, d)
    else:
        first, second = slice(0, d, 2), slice(1, d, 2)
    a, b = x[..., first], x[..., second]  # (..., d/2) each: the two ends of every pair
    out = np.empty(np.broadcast_shapes(x.shape, angles.shape[:-1] + (d,)))  # (..., d)
    out[..., first] = a * cos - b * sin  # each pair turned by its own angle, as rotate_2d does
    out[..., second] = a * sin + b * cos
    return out


def interleaved_to_halves(d: int) -> np.ndarray:
    """The channel order that turns the interleaved pairing into the halves one.   -> (d,)

    x[..., order] puts channels 0, 2, 4, ... first and 1, 3, 5, ... after them, so pair
    (2i, 2i+1) lands on (i, i + d/2):

        rope(x, m, pairing="interleaved") == rope(x[..., order], m, pairing="halves")[..., np.argsort(order)]
    """
    _even_width(d, "the width d")
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])  # (d,)


def alibi_bias(n_words: int, slope: float) -> np.ndarray:
    """ALiBi's penalty, added to the scaled scores: -slope * (i - j) for j <= i.

    -> bias: (n_words, n_words). A word's own position costs nothing, the word before it
    `slope`, the one before that 2 * slope, and so on: far words are quieter, near ones louder.
    Above the diagonal (j > i, a later word) the bias is 0: those cells are the causal mask's
    to hide, which stays a separate step (mechanism.causal_mask).
    """
    i = np.arange(n_words)[:, None]  # (n_words, 1): the word looking
    j = np.arange(n_words)[None, :]  # (1, n_words): the word looked at
    # slope * (j - i) is -slope * (i - j) written so the diagonal is +0.0, not -0.0 (prints "0.000").
    return np.where(j <= i, slope * (j - i), 0.0)  # (n_words, n_words)


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The slope of each head: 2^(-8k / n_heads) for k = 1 .. n_heads.   -> (n_heads,)

    A geometric sequence, so some heads look far (small slope) and some near (large slope);
    with 8 heads: 1/2, 1/4, ..., 1/256. The paper's recipe is for powers of two.
    """
    if n_heads <= 0:
        raise ValueError(f"n_heads must be positive, got {n_heads}")
    k = np.arange(1, n_heads + 1)  # (n_heads,)
    return 2.0 ** (-8.0 * k / n_heads)
