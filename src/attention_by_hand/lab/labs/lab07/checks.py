"""Lab 07's checks: the sinusoidal table, adding positions, RoPE and its attention, ALiBi and its
attention.

Position code goes wrong in two ways that are easy to confuse: a convention that is not this
lab's (RoPE's interleaved pairing, the table's sin-then-cos layout) and a formula that is wrong
(the base, 2i / d). The inputs tell them apart: d >= 6 (at d = 2 the two RoPE pairings are the
same pair), positions that are not 0, 1, 2, ... in rope (so that ignoring them shows), an even T
in rope_attention (rotating its (T, T) scores needs one), and slopes of 0.5 and 0.25 in ALiBi
(a slope of 1 would hide a missing one). Every mistake is recomputed in float64 from the inputs
(position_math.py), never from the reference's functions, so a mistake cannot agree with itself.

Left out: the models and the training (the lab's own self-check covers them).
"""

from __future__ import annotations

import dataclasses
import math
import re

import torch

from attention_by_hand.lab.labs.lab07 import position_math as own
from attention_by_hand.lab.attention_judges import MASK_HINTS
from attention_by_hand.lab.labs.lab07.position_math import BASE
from attention_by_hand.lab.inputs import fixed, randn, seeded
from attention_by_hand.lab.judging import Check, Probe, close, judge_tensor, mismatched_sizes

# One mistake, one hint: where a function and the attention built on it show the same mistake,
# both name it in these words.
ROPE_HINTS = {
    "interleaved": "channel 2i is paired with 2i + 1 (the interleaved convention of the RoFormer paper, GPT-J and "
    "Meta's original Llama code); this lab pairs the halves: channel i with i + d/2 (GPT-NeoX, Llama in Hugging "
    "Face): a = x[..., :d/2], b = x[..., d/2:]",
    "base": "the rotation's base is 1000: theta_i = base ** (-2i / d) with the `base` argument (10000 by default)",
    "exponent": "theta_i = base ** (-i / d): the exponent is 2i / d (pair i of d/2), so the slowest pair turns "
    "at base ** (-(d - 2) / d)",
    "direction": "rotated the wrong way (by -angle): a cos - b sin in the first half, a sin + b cos in the second",
    "swapped": "sin and cos are swapped: the first half is a * cos(angle) - b * sin(angle)",
    "none": "nothing is rotated: rope must turn each channel pair by position * theta_i, and rope_attention "
    "must apply it to q and k before the scores",
}
ALIBI_HINTS = {
    "sign": "the penalty has the wrong sign: a key farther back must score LOWER, bias[i, j] = -slope * (i - j) "
    "for query i (row) and key j <= i (column)",
    "no slope": "the distance is not multiplied by the slope: bias[i, j] = -slope * (i - j)",
    "divided": "the distance is divided by the slope: multiply, bias[i, j] = -slope * (i - j)",
    "none": "no penalty reaches the keys j <= i: the scores of query i need -slope * (i - j) added for every "
    "key j <= i (a penalty above the diagonal, on j > i, is hidden by the mask)",
    "transposed": "the bias is the reference's transposed: its penalty lies above the diagonal, on the keys j > i "
    "that the mask hides, and none on j <= i; the query i runs down the rows and the key j along the columns, "
    "bias[i, j] = -slope * (i - j) (a grid of positions built with its two axes the other way round transposes it)",
}


# --- sinusoidal_table ----------------------------------------------------------------------------


def _judge_sinusoidal_table(got, expected, args):
    n, d = args[:2]
    base = args[2] if len(args) > 2 else BASE

    def table(**kw) -> torch.Tensor:
        return own.interleave(*own.sin_cos_table(n, d, **{"base": base, **kw}))

    sin, cos = own.sin_cos_table(n, d, base)
    variants = [
        (
            "the base is 1000: angle = p / base ** (2i / d_model) with the `base` argument (the Transformer's "
            "10000 by default)",
            # Always computed, also where base is 1000 or the default: there the mistake changes
            # nothing, and a wrong table on that input rules it out (combining.combine).
            lambda: table(base=1000.0),
        ),
        (
            f"the `base` argument is ignored: this call passed base = {base:g}, and the table used 10000",
            lambda: table(base=BASE),
        ),
        (
            "the exponent is i / d_model: column pair i (columns 2i and 2i + 1) turns at p / base ** (2i / d_model)",
            lambda: table(exponent=1.0),
        ),
        (
            "each column got its own frequency, base ** (j / d_model) for column j; the two columns of a pair "
            "share one: p / base ** (2i / d_model) in both columns 2i and 2i + 1",
            lambda: own.per_column_table(n, d, base),
        ),
        (
            "the angle is p * base ** (2i / d_model): divide p by it (the fast pair first, the slow ones last)",
            lambda: table(exponent=-2.0),
        ),
        (
            "sin and cos are swapped: sin goes in the even columns 2i, cos in the odd ones",
            lambda: own.interleave(cos, sin),
        ),
        (
            "sin fills the first half of the columns and cos the second (a layout later code uses); the "
            "Transformer's table interleaves them: sin in column 2i, cos in column 2i + 1",
            lambda: torch.cat([sin, cos], dim=-1),
        ),
        ("the positions start at 1: row 0 is position 0 (sin 0 = 0, cos 0 = 1)", lambda: table(start=1)),
    ]

    def observe(got):
        outside = got.double().abs() > 1 + 1e-6
        if outside.any():
            p, c = (int(v) for v in outside.nonzero()[0])
            return f"table[{p}, {c}] = {got[p, c]:.4g}, outside [-1, 1], where every sine and cosine lies"
        return None

    return judge_tensor(got, expected, "(n_positions, d_model)", variants, observe)


# --- add_positions -------------------------------------------------------------------------------


def _judge_add_positions(got, expected, args):
    x, table = (a.double() for a in args)
    T = x.shape[-2]
    variants = [
        (
            "the positions are multiplied into x: add them, x + table[:T] (a product scales each number "
            "instead of moving the vector, and a 0 in the table would erase the token)",
            lambda: x * table[:T],
        ),
        ("the positions are missing: return x + table[:T]", lambda: x),
        ("used the LAST T rows: token t gets row t, the first T rows table[:T]", lambda: x + table[-T:]),
        (
            "concatenated: add the rows, so the width stays d_model",
            lambda: torch.cat([x, table[:T].expand(*x.shape[:-1], -1)], dim=-1),
        ),
    ]
    return judge_tensor(got, expected, "the shape of x", variants)


def _explain_add_positions_error(type_name, message, args, shapes):
    x, table = args
    sizes = mismatched_sizes(message)
    T, d, rows = x.shape[-2], x.shape[-1], table.shape[0]
    if not sizes or T not in sizes:
        return None
    other = (set(sizes) - {T}) or {T}
    axis = re.search(r"non-singleton dimension (\d+)", message)
    if axis and x.dim() - int(axis.group(1)) == 1 and d in sizes:  # the last axis, as x counts its axes
        width = next(iter(set(sizes) - {d}), d)
        return (f"what was added to x has {width} entries on its last axis, where x has d_model = {d}: a row of the "
                f"table is d_model wide, and token t gets row t, the first T rows being table[:T]")
    if rows in other and rows != d:
        return f"the whole table ({rows} rows) met T = {T} tokens: take the first T rows, table[:T]"
    if d in other:
        return f"{d} rows met T = {T} tokens: T is x.shape[-2] (x is (..., T, d_model); x.shape[-1] is d_model)"
    return None


# --- rope ------------------------------------------------------------------------------------------


def _judge_rope(got, expected, args):
    x, positions = args
    T = x.shape[-2]
    variants = [(ROPE_HINTS[name], lambda kw=kw: own.rope(x, positions, **kw)) for name, kw in own.ROPE_MISTAKES.items()]
    variants += [
        (
            "each row was rotated by its row number 0 .. T-1: rotate by the positions given, positions[t] for row t",
            lambda: own.rope(x, torch.arange(T)),
        ),
        (ROPE_HINTS["none"], lambda: x.double()),
    ]

    def observe(got):
        # A rotation keeps every row's length, whatever the pairing or the angle.
        lengths, kept = got.double().norm(dim=-1), x.double().norm(dim=-1)  # (..., T) each
        changed = (lengths - kept).abs() > 1e-4 * (1 + kept)
        if changed.any():
            where = tuple(int(v) for v in changed.nonzero()[0])
            row = ", ".join(map(str, where))
            return (
                f"out[{row}] has length {lengths[where]:.4g} where x[{row}] has {kept[where]:.4g}: "
                "a rotation keeps each row's length"
            )
        return None

    return judge_tensor(got, expected, "the shape of x", variants, observe)


# --- rope_attention --------------------------------------------------------------------------------


def _judge_rope_attention(got, expected, args):
    q, k, v = args
    T, head_size = q.shape[-2], q.shape[-1]
    p = torch.arange(T)
    rq, rk = own.rope(q, p), own.rope(k, p)
    variants = [
        (
            "the values are rotated too: rotate only q and k; position decides who looks at whom, "
            "the values pass on what a token is",
            lambda: own.attend(rq, rk, own.rope(v, p)),
        ),
        (
            "rotated the scores: the rotation acts on q and k BEFORE their dot product, "
            "rope(q) @ rope(k)^T; rotating after it (the (T, T) scores) mixes scores of different keys",
            lambda: _attend_rotated_scores(q, k, v),
        ),
        (
            "the output was rotated: rotate q and k before the scores, not what the head returns",
            lambda: own.rope(own.attend(q, k, v), p),
        ),
        (
            "k was rotated by -position: rotate q and k the same way, each by its own position, so that "
            "their dot product sees the difference m - n (yours sees m + n)",
            lambda: own.attend(rq, own.rope(k, p, direction=-1.0), v),
        ),
        ("only q is rotated: rotate k too, rope(k, positions)", lambda: own.attend(rq, k, v)),
        ("only k is rotated: rotate q too, rope(q, positions)", lambda: own.attend(q, rk, v)),
        # no rotation at all and both turned by one same angle give the same scores: say both
        (
            "the scores are those of no rotation at all: q and k are not rotated, or are both turned by one "
            "same angle, which cancels in each dot product; turn each by its own position, rope(q, positions) "
            "and rope(k, positions), so that a score sees the distance m - n",
            lambda: own.attend(q, k, v),
        ),
        (
            f"the scores are not scaled: divide by sqrt(head_size) = sqrt({head_size})",
            lambda: own.attend(rq, rk, v, scale=False),
        ),
        (MASK_HINTS["none"], lambda: own.attend(rq, rk, v, mask=False)),
    ]
    # rope's own mistakes show in the attention built on it, named in the same words.
    variants += [
        (ROPE_HINTS[name], lambda kw=kw: own.attend(own.rope(q, p, **kw), own.rope(k, p, **kw), v))
        for name, kw in own.ROPE_MISTAKES.items()
    ]
    return judge_tensor(got, expected, "(..., T, head_size)", variants)


def _attend_rotated_scores(q, k, v):
    """softmax(mask(rope(q k^T / sqrt(hs)))) @ v: each row of scores rotated as a vector of T numbers."""
    T = q.shape[-2]
    q, k, v = q.double(), k.double(), v.double()
    scores = own.rope(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), torch.arange(T))  # (..., T, T)
    return torch.softmax(scores.masked_fill(own.future_mask(T), float("-inf")), dim=-1) @ v


# --- alibi_bias ------------------------------------------------------------------------------------


def _below(t: torch.Tensor) -> torch.Tensor:
    """The cells the bias means, j <= i; the rest set to 0, since the mask hides them anyway."""
    return t.double().masked_fill(own.future_mask(t.shape[-1]), 0.0)


def _alibi_variants(T: int, slope: float) -> list:
    """(hint, (T, T) bias) of alibi_bias's mistakes, on and below the diagonal; 0 above it."""
    distance = own.distance(T).clamp(min=0)  # (T, T)
    return [
        (ALIBI_HINTS["sign"], slope * distance),
        (ALIBI_HINTS["no slope"], -distance),
        (ALIBI_HINTS["divided"], -distance / slope),
    ]


def _judge_alibi_bias(got, expected, args):
    T, slope = args
    distance = own.distance(T).clamp(min=0)
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != (T, T):
        return judge_tensor(got, expected, "(T, T)")
    variants = [*_alibi_variants(T, slope)]
    variants += [
        (
            "the diagonal is not 0: a token is 0 steps from itself, bias[i, i] = 0",
            -slope * (distance + 1).masked_fill(own.future_mask(T), 0.0),
        ),
        (ALIBI_HINTS["none"], torch.zeros(T, T, dtype=torch.float64)),
    ]
    miss = judge_tensor(_below(got), _below(expected), "(T, T)", variants)
    if not miss:
        return None
    tried = (*miss.tried, ALIBI_HINTS["transposed"])  # tried on every wrong bias: ruled out where it does not fit
    if not _below(got).any() and close(_below(got.transpose(-2, -1)), _below(expected)):
        # nothing below the diagonal, the reference's penalty above it: more than "no penalty"
        return dataclasses.replace(miss, explanations=(ALIBI_HINTS["transposed"],), tried=tried)
    return dataclasses.replace(miss, tried=tried)


# --- alibi_attention -------------------------------------------------------------------------------


def _judge_alibi_attention(got, expected, args):
    q, k, v, slope = args
    T, head_size = q.shape[-2], q.shape[-1]
    distance = own.distance(T)
    right = -slope * distance.clamp(min=0)  # (T, T), 0 above the diagonal
    # What a learner's penalty may hold above the diagonal, where the mask (if applied) hides it:
    # 0, the same line continued (a bonus for the future), or the distance either way.
    above = [right, -slope * distance, -slope * distance.abs()]
    after = (
        "the penalty was added after the softmax, to the weights: add it to the scores, before the mask "
        "and the softmax"
    )
    variants = [(hint, lambda b=b: own.attend(q, k, v, bias=b)) for hint, b in _alibi_variants(T, slope)]
    variants += [(after, lambda b=b: own.attend(q, k, v, after_softmax=b)) for b in above]
    variants += [
        (
            "the causal mask is missing: ALiBi's penalty lowers the past but hides nothing; still set the "
            "future (j > i) to -inf before the softmax",
            lambda b=b: own.attend(q, k, v, bias=b, mask=False),
        )
        for b in above
    ]
    variants += [
        (
            "the penalty was divided by sqrt(head_size) with the scores: add it AFTER scaling, "
            "q @ k^T / sqrt(head_size) + bias",
            lambda: own.attend(q, k, v, bias=right, bias_scaled=True),
        ),
        (ALIBI_HINTS["none"], lambda: own.attend(q, k, v)),
        (
            f"the scores are not scaled: divide q @ k^T by sqrt(head_size) = sqrt({head_size}), then add the penalty",
            lambda: own.attend(q, k, v, bias=right, scale=False),
        ),
    ]
    return judge_tensor(got, expected, "(..., T, head_size)", variants)


# --- the checks ----------------------------------------------------------------------------------------


def _rope_probes() -> tuple[Probe, ...]:
    """Inputs that tell causes apart (never judged; diagnosis.py says where the error shows)."""
    p = torch.Generator().manual_seed(22)  # their own generator: the checks' inputs stay as they were
    x = randn(p, 4, 8)
    return (
        Probe("every position 0 (no rotation at all)", (x, torch.zeros(4, dtype=torch.long))),
        Probe("positions 0, 1, 2, 3", (x, torch.arange(4))),
        Probe("the same positions shifted by 5", (x, torch.arange(4) + 5)),
        Probe("d = 2 (one pair only)", (randn(p, 4, 2), torch.arange(4))),
    )


def _add_positions_probes() -> tuple[Probe, ...]:
    """An x as wide as it is long: a slip of rows for columns runs there instead of raising, so an
    error matched by its words alone on the checks' inputs must also match what runs here."""
    p = torch.Generator().manual_seed(23)
    return (Probe("x of 4 tokens, d_model 4 (as wide as long), a table of 6 rows", (randn(p, 4, 4), randn(p, 6, 4))),)


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)

    def qkv(gen, *shape):
        return tuple(randn(gen, *shape) for _ in range(3))

    random_positions = torch.randint(0, 30, (5,), generator=g)
    return [
        Check("sinusoidal_table", "12 positions, d_model 8 (the default base)", ((12, 8),), _judge_sinusoidal_table),
        Check("sinusoidal_table", "7 positions, d_model 10, base 100", ((7, 10, 100.0),), _judge_sinusoidal_table),
        Check(
            "add_positions",
            "a fixed x of 5 tokens, d_model 8, and a table of 12 rows",
            ((randn(f, 5, 8), randn(f, 12, 8)),),
            _judge_add_positions,
            _explain_add_positions_error,
            probes=_add_positions_probes(),
        ),
        Check(
            "add_positions",
            "a random batch (2, 4, 6) and a table of 9 rows",
            ((randn(g, 2, 4, 6), randn(g, 9, 6)),),
            _judge_add_positions,
            _explain_add_positions_error,
            probes=_add_positions_probes(),
        ),
        Check(
            "rope",
            "a fixed x (6, 8) at positions 3, 0, 7, 1, 12, 5",
            ((randn(f, 6, 8), torch.tensor([3, 0, 7, 1, 12, 5])),),
            _judge_rope,
            probes=_rope_probes(),
        ),
        Check(
            "rope",
            "a random batch (2, 5, 6) at 5 random positions below 30",
            ((randn(g, 2, 5, 6), random_positions),),
            _judge_rope,
        ),
        Check("rope_attention", "fixed q, k, v (6, 8)", (qkv(f, 6, 8),), _judge_rope_attention),
        Check("rope_attention", "a random batch (2, 4, 6)", (qkv(g, 2, 4, 6),), _judge_rope_attention),
        Check("alibi_bias", "T = 6, slope 0.5; T = 1", ((6, 0.5), (1, 0.5)), _judge_alibi_bias),
        Check("alibi_bias", "T = 9, slope 0.25", ((9, 0.25),), _judge_alibi_bias),
        Check("alibi_attention", "fixed q, k, v (5, 8), slope 0.5", ((*qkv(f, 5, 8), 0.5),), _judge_alibi_attention),
        Check(
            "alibi_attention",
            "a random batch (2, 6, 4), slope 0.25",
            ((*qkv(g, 2, 6, 4), 0.25),),
            _judge_alibi_attention,
        ),
    ]
