"""Lab 04's checks: the causal mask, the weights of one head, and the head's output."""

from __future__ import annotations

import torch

from attention_by_hand.lab.attention_judges import MASK_HINTS, explain_size_error, hidden, judge_weights
from attention_by_hand.lab.inputs import fixed, linear, randn, seeded
from attention_by_hand.lab.judging import Check, Miss, Probe, close, judge_pair, judge_tensor, reversed_of


ADDITIVE = ("yours is an additive mask, -inf on the hidden cells and 0 elsewhere (the float mask nn.Transformer's "
            "generate_square_subsequent_mask makes, to be added to the scores): this lab's masks are bool, True "
            "where j > i is HIDDEN; `mask == float('-inf')` gives it")


def _judge_causal_mask(got, expected, args):
    (T,) = args
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype != torch.bool:
        if close(got, torch.tril(torch.ones(T, T))) and T > 1:
            return "this marks what is VISIBLE (torch.tril of ones); return a bool tensor, True where j > i is HIDDEN"
        observed = f"return a bool tensor (True = hidden), got {str(got.dtype).removeprefix('torch.')}"
        # every input must agree (combining.py): T = 1 alone, a single 0, would fit any float mask of zeros
        additive = got.is_floating_point() and bool(((got == float("-inf")) == expected).all()) and bool((got[~expected] == 0).all())
        return Miss(observed, (ADDITIVE,) if additive else (), tried=(ADDITIVE,))
    variants = [
        ("True must mark what is HIDDEN (j > i); yours marks what is visible", lambda: ~expected),
        (MASK_HINTS["past"], lambda: hidden("past", T)),
        (MASK_HINTS["diagonal"], lambda: hidden("diagonal", T)),
        (MASK_HINTS["none"], lambda: hidden("none", T)),
    ]
    return judge_tensor(got, expected, "(T, T)", variants)


def _judge_attention_weights(got, expected, args):
    x, query, key = args[:3]
    return judge_weights(got, expected, query(x), key(x), x.shape[-1], "(T, T)")


def _explain_error(type_name, message, args, shapes):
    x, query = args[0], args[1]
    return explain_size_error(message, x.shape[-2], x.shape[-1], others=(query.out_features,))


def _judge_self_attention(got, expected, args):
    x, query, key, value = args
    out_expected, weights_expected = expected

    problem = judge_pair(got, "(out, weights)", reversed_of(out_expected, weights_expected))
    if problem:
        return problem
    out, weights = got
    miss = _judge_attention_weights(weights, weights_expected, (x, query, key))
    if miss:
        return miss.under("weights: ")
    v = value(x)  # (T, head_size)
    variants = [
        ("blend the values v = value(x), not x", lambda: weights_expected @ x),
        (
            "each output row must mix the values with its OWN row of weights: weights @ v, not weights.T @ v",
            lambda: weights_expected.T @ v,
        ),
        ("the values are not blended: out = weights @ v, not v itself", lambda: v),
    ]
    miss = judge_tensor(out, out_expected, "(T, head_size)", variants)
    return miss.under("out: ") if miss else None


def _head_cases(g: torch.Generator, sizes) -> tuple[tuple, ...]:
    """(x, query, key, value) per (T, d_model, head_size), from `g`."""
    return tuple((randn(g, T, d), linear(g, d, hs), linear(g, d, hs), linear(g, d, hs)) for T, d, hs in sizes)


def _probes() -> tuple[Probe, ...]:
    """Inputs that tell causes apart (never judged; diagnosis.py says where the error shows)."""
    p = torch.Generator().manual_seed(22)  # their own generator: the checks' inputs stay as they were
    x, query, key, _ = _head_cases(p, [(5, 8, 4)])[0]
    silent = linear(p, 8, 4)
    with torch.no_grad():
        silent.weight.zero_()  # q = 0: every score 0, every visible weight 1 / (i + 1), whatever the scale
    one = _head_cases(p, [(5, 8, 1)])[0]
    sixteen = _head_cases(p, [(5, 16, 16)])[0]
    return (
        Probe("q = 0, so every visible weight is uniform", (x, silent, key)),
        Probe("head size 1", one[:3]),
        Probe("head size 16", sixteen[:3]),
    )


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)
    fixed_head = _head_cases(f, [(4, 8, 4)])
    # x * 10 makes the scores 100 times larger (q and k both grow tenfold): from -333 to 276 here,
    # where float32's exp overflows (past 88) or gives 0 for a whole row, so a softmax by hand
    # without the max-shift gives NaN. The rows are then nearly one-hot, far from any tie, so
    # float32 rounding in the scores moves no weight past the tolerance.
    x, query, key, _ = _head_cases(f, [(5, 8, 4)])[0]
    large_scores = ((x * 10, query, key),)
    random_heads = _head_cases(g, [(6, 12, 3), (9, 6, 2), (1, 4, 4)])
    weights_of = _judge_attention_weights
    return [
        Check("causal_mask", "T = 1, 4 and 7", ((1,), (4,), (7,)), _judge_causal_mask),
        Check(
            "attention_weights",
            "a fixed input (T=4, d_model=8, head_size=4)",
            tuple(c[:3] for c in fixed_head),
            weights_of,
            _explain_error,
            probes=_probes(),
        ),
        Check(
            "attention_weights",
            "3 random inputs (T = 6, 9, 1)",
            tuple(c[:3] for c in random_heads),
            weights_of,
            _explain_error,
        ),
        Check(
            "attention_weights",
            "large scores, in the hundreds (a fixed x times 10, T=5)",
            large_scores,
            weights_of,
            _explain_error,
        ),
        Check(
            "self_attention",
            "a fixed input (T=4, d_model=8, head_size=4)",
            fixed_head,
            _judge_self_attention,
            _explain_error,
        ),
        Check("self_attention", "3 random inputs (T = 6, 9, 1)", random_heads, _judge_self_attention, _explain_error),
    ]
