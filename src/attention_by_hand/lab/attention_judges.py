"""Attention weights, judged the same way in lab 04 (one head) and lab 05 (several heads).

The weights are softmax(mask(q @ k^T / scale)) along each row. Each usual mistake is one wrong
choice of the scale, the mask or the softmax's axis, and mistakes come in combinations, so the
judge computes every combination, fewest mistakes first: a learner with the wrong scale AND no
mask is told both.
"""

from __future__ import annotations

import math
from itertools import product

import torch

from attention_by_hand.lab.judging import judge_tensor, mismatched_sizes

# Said alike (here and in lab 02's softmax) of a shift left out and of a shift by something else (a
# position, a constant): either way no row was shifted by its own maximum, and the check's scores in
# the thousands overflow.
NO_MAX_SHIFT = (
    "NaN for large scores: exp of a large score overflows to inf, and inf / inf is NaN; yours did not shift each "
    "row by its own maximum (no max-shift); subtract each row's maximum before exp"
)

# The same mistake gets the same words in the mask, the weights and the head's output.
MASK_HINTS = {
    "future": None,  # the right mask
    "none": "nothing is hidden: the causal mask is missing or hides nothing; a future token has weight (hide j > i with -inf "
    "before the softmax)",
    "past": "the mask is on the wrong side: it hides the past (j < i); hide the future, j > i (torch.triu(..., diagonal=1))",
    "diagonal": "the diagonal is hidden too: a token must be able to see itself (triu with diagonal=1, not 0)",
    "zero": "the hidden scores were set to 0, not -inf: exp(0) = 1, so hidden tokens still get weight; "
    "fill them with float('-inf')",
}


def hidden(kind: str, T: int) -> torch.Tensor:
    """The cells a mask hides. (T, T) bool, True = hidden."""
    ones = torch.ones(T, T, dtype=torch.bool)
    make = {
        "future": lambda: torch.triu(ones, diagonal=1),
        "zero": lambda: torch.triu(ones, diagonal=1),
        "past": lambda: torch.tril(ones, diagonal=-1),
        "diagonal": lambda: torch.triu(ones, diagonal=0),
        "none": lambda: torch.zeros(T, T, dtype=torch.bool),
    }
    return make[kind]()  # only the one asked for: the judges ask hundreds of times


def variants(q: torch.Tensor, k: torch.Tensor, d_model: int):
    """Weights computed with each usual mistake, fewest mistakes first.   q, k: (..., T, head_size)"""
    head_size, T = q.shape[-1], q.shape[-2]
    right = math.sqrt(head_size)
    scales = [
        (right, None),
        (1.0, f"the scores are not scaled: divide q @ k^T by sqrt(head_size) = sqrt({head_size})"),
        (
            math.sqrt(d_model),
            f"scaled by sqrt(d_model) = sqrt({d_model}); scale by sqrt(head_size) = sqrt({head_size}), "
            "the length of each query and key",
        ),
        (float(head_size), f"divided by head_size = {head_size}; divide by its square root, sqrt({head_size})"),
        (
            1 / right,
            f"multiplied by sqrt(head_size) = sqrt({head_size}); divide by it, so the scores stay near 1",
        ),
    ]
    axes = [(-1, None), (-2, "softmax over the wrong axis: columns sum to 1, rows must (softmax along dim=-1)")]
    raw = q.double() @ k.double().transpose(-2, -1)  # (..., T, T)
    candidates = []
    for (scale, scale_hint), (mask, mask_hint), (axis, axis_hint) in product(scales, MASK_HINTS.items(), axes):
        if scale_hint and math.isclose(scale, right):
            continue  # this "mistake" is the right scale for these sizes (e.g. d_model == head_size)
        hints = [h for h in (mask_hint, scale_hint, axis_hint) if h]
        if hints:
            candidates.append((len(hints), hints, scale, mask, axis))
    candidates.sort(key=lambda c: c[0])  # stable: one mistake before two, two before three
    for _, hints, scale, mask, axis in candidates:
        fill = 0.0 if mask == "zero" else float("-inf")
        scores = (raw / scale).masked_fill(hidden(mask, T), fill)
        yield "; ".join(hints), (lambda s=scores, a=axis: torch.softmax(s, dim=a))


def observe(w: torch.Tensor, expected: torch.Tensor) -> str | None:
    """What is wrong with weights w, in facts: a NaN, weight on a later token, a row that does not
    sum to 1. No cause is guessed: the variants name causes.   w, expected: (..., T, T)"""
    if w.dim() == 3:
        for h in range(w.shape[0]):
            seen = observe(w[h], expected[h])
            if seen:
                return f"head {h}: {seen}"
        return None
    T = w.shape[-1]
    w = w.double()
    if torch.isnan(w).any():
        i, j = (int(v) for v in torch.isnan(w).nonzero()[0])
        return f"NaN at row {i}, column {j} of the weights, where the reference has {expected[i, j].item():.4g}"
    later = w.masked_fill(~hidden("future", T), 0.0).abs()  # (T, T), only cells with j > i kept
    if later.max() > 1e-6:
        i, j = divmod(int(later.argmax()), T)
        return f"row {i} gives weight {w[i, j]:.3f} to token {j}, a later token (j > i), where the reference gives 0"
    rows = w.sum(dim=-1)  # (T,)
    if not torch.allclose(rows, torch.ones_like(rows), atol=1e-4):
        i = int((rows - 1).abs().argmax())
        return f"row {i} of the weights sums to {rows[i]:.4g}, not 1"
    return None


def judge_weights(got, expected, q, k, d_model: int, names: str, others=()):
    """Weights against the reference, with every explanation that fits.   q, k: (..., T, head_size)
    others: more (hint, weights maker) pairs that only the caller knows how to make."""

    def facts(got):
        seen = observe(got, expected)
        # A NaN on scores beyond what float32's exp can take (past 88) is worth saying as such,
        # where an exp taken unshifted leaves its NaNs in the very places of the learner's: a NaN
        # made otherwise (a mask of integers) is not blamed on the exp.
        scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
        overflowed = isinstance(got, torch.Tensor) and got.shape == expected.shape and _overflow_rows(got, scores)
        if seen and "NaN" in seen and scores.abs().max() > 80 and overflowed:
            seen += f"; the scores reach {scores.abs().max().item():.0f}, where float32's exp overflows"
        return seen

    more = [(f"{NO_MAX_SHIFT} (or use torch.softmax, which does)", lambda: _without_max_shift(q, k))]
    return judge_tensor(got, expected, names, [*variants(q, k, d_model), *more, *others], facts)


def right_weights(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Causal weights of q and k, scaled by sqrt(head_size), in float64.   q, k: (..., T, head_size)"""
    T = q.shape[-2]
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, T)
    return torch.softmax(scores.masked_fill(hidden("future", T), float("-inf")), dim=-1)


def _overflow_rows(got: torch.Tensor, scores: torch.Tensor) -> bool:
    """Whether the learner's NaNs are where an unshifted exp overflows: every row with a NaN holds a
    score past 88 (hidden or not: a mask applied after the exp, by a product, still meets inf), and
    every row where even the visible scores pass 88 has one.   scores: (..., T, T), scaled, unmasked"""
    T = scores.shape[-1]
    rows = got.isnan().any(dim=-1)  # (..., T)
    anywhere = (scores > 88).any(dim=-1)
    visible = (scores.masked_fill(hidden("future", T), float("-inf")) > 88).any(dim=-1)
    return bool(rows.any()) and bool((rows <= anywhere).all()) and bool((visible <= rows).all())


def _without_max_shift(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Softmax by hand without the max-shift, in float32 as a learner's code runs it."""
    T = q.shape[-2]
    scores = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(q.shape[-1])
    e = scores.masked_fill(hidden("future", T), float("-inf")).exp()
    return e / e.sum(dim=-1, keepdim=True)


def explain_size_error(message: str, T: int, d_model: int, others: tuple[int, ...] = ()) -> str | None:
    """torch's broadcasting error between a (T, T) tensor and one sized d_model: where T came from.

    others: the other sizes in play (the head size): when T equals one of them, the T in the
    message may be that size, and nothing is said (x + values of head_size 4 with T = 4 is no
    T taken from the wrong axis)."""
    sizes = mismatched_sizes(message)
    if sizes and T != d_model and T not in others and set(sizes) == {T, d_model}:
        return (
            f"a size of d_model = {d_model} met the number of tokens T = {T}: "
            "T is x.shape[-2] (x is (T, d_model); x.shape[-1] is d_model)"
        )
    return None
