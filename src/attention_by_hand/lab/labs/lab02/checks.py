"""Lab 02's checks: an embedding lookup as a one-hot product, and softmax by hand."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from attention_by_hand.lab.attention_judges import NO_MAX_SHIFT
from attention_by_hand.lab.inputs import fixed, randn, seeded, toy_world
from attention_by_hand.lab.judging import Check, Probe, difference, judge_tensor, matmul_sizes, mismatched_sizes


def _judge_one_hot_lookup(got, expected, args):
    ids, weight = args
    one_hot = F.one_hot(ids, num_classes=weight.shape[0]).double()  # (n, n_vocabulary)
    variants = [("returned the one-hot rows themselves: multiply them by weight", one_hot)]
    return judge_tensor(got, expected, "(n, d_model)", variants)


def _explain_one_hot_error(type_name, message, args, shapes):
    ids, weight = args
    sizes = matmul_sizes(message)
    if sizes and sizes[1] == int(ids.max()) + 1 and sizes[2] == weight.shape[0]:
        return (
            f"the one-hot rows have {sizes[1]} columns (the largest id + 1), the table {sizes[2]} rows: "
            "F.one_hot needs num_classes=weight.shape[0]"
        )
    return None


def softmax_variants(scores: torch.Tensor):
    """Softmax computed with each usual mistake, by hand.   scores: (..., n)"""
    s = scores.double()
    row_max = s.max(dim=-1, keepdim=True).values
    shifted = (s - row_max).exp()
    yield NO_MAX_SHIFT, lambda: s.exp() / s.exp().sum(dim=-1, keepdim=True)
    if s.dim() >= 2:
        yield (
            "softmax over the wrong axis: columns sum to 1, rows must (work along dim=-1)",
            lambda: torch.softmax(s, dim=0),
        )
        yield (
            "softmax over the wrong axis: columns sum to 1, rows must (divide by the sum along dim=-1)",
            lambda: shifted / shifted.sum(dim=-2, keepdim=True),
        )
        yield (
            "subtract each ROW's maximum (max(dim=-1, keepdim=True)), not the maximum of the whole tensor",
            lambda: (s - s.max()).exp() / (s - s.max()).exp().sum(dim=-1, keepdim=True),
        )
        yield (
            "divided by the sum of the whole tensor: divide each ROW by its own sum (dim=-1, keepdim=True)",
            lambda: shifted / shifted.sum(),
        )
    # exp(s - max) / max(exp(s - max)) is exp(s - max) itself: dividing by the largest exp and not
    # dividing at all give the same output, so one hint names both.
    yield (
        "the exps were not divided by their row's sum (each row's largest weight is 1: left undivided, or "
        "divided by the row's largest exp); divide each row by its sum, so that it sums to 1",
        lambda: shifted,
    )
    yield "exp is missing: softmax divides exp(s) by the sum of exp(s)", lambda: s / s.sum(dim=-1, keepdim=True)
    yield (
        "the maximum is subtracted after exp: subtract it from the scores, then take exp",
        lambda: (s.exp() - row_max) / (s.exp() - row_max).sum(dim=-1, keepdim=True),
    )


def _explain_softmax_error(type_name, message, args, shapes):
    (scores,) = args
    sizes = mismatched_sizes(message)
    if scores.dim() < 2 or not sizes:
        return None
    rows, columns = scores.shape[-2], scores.shape[-1]
    # a row's max or sum that lost its axis is a (rows,) vector; another tensor the line reads whose last size is
    # the rows' (n - 1 columns of a running maximum, 2 of them for 2 rows) met the columns otherwise
    lost_axis = not any(shape and shape[-1] == rows and shape not in (list(scores.shape), [rows])
                        for shape in shapes.values())
    if rows != columns and sizes == (columns, rows) and lost_axis:
        return (
            f"a tensor of size {rows}, the number of rows, met the {columns} columns: a sum or max over "
            f"dim=-1 has shape ({rows},) and lines up with the columns; keepdim=True keeps it ({rows}, 1), "
            "one value per row"
        )
    return None


def _judge_softmax(got, expected, args):
    (scores,) = args

    def observe(got):
        # Facts only: a NaN where the reference has a number, and how large the scores there are.
        bad = ~torch.isfinite(got.double()) & torch.isfinite(expected.double())
        if bad.any():
            where = tuple(int(i) for i in bad.nonzero()[0])
            largest = scores.double()[where[:-1]].abs().max() if scores.dim() > 1 else scores.double().abs().max()
            return (
                f"{got.double()[where].item()} at {list(where)} where the reference has "
                f"{expected.double()[where].item():.4g}; the scores of that row reach {largest.item():g}"
            )
        if got.dim() >= 2:
            rows, columns = got.double().sum(dim=-1), got.double().sum(dim=-2)
            if not torch.allclose(rows, torch.ones_like(rows), atol=1e-4):
                if torch.allclose(columns, torch.ones_like(columns), atol=1e-4):
                    return "columns sum to 1, rows must (work along dim=-1)"
                i = int((rows - 1).abs().nan_to_num(float("inf")).argmax())
                return f"row {i} sums to {rows.flatten()[i]:.4g}, not 1; " + difference(got, expected)
        return None

    return judge_tensor(got, expected, "the shape of scores", softmax_variants(scores), observe)


def _one_hot_probes() -> tuple[Probe, ...]:
    """Inputs that tell causes apart (never judged; diagnosis.py uses them): a square table, where
    mixing up its number of rows and of columns changes nothing, and which the only-raising
    learner's function can then be compared on."""
    p = torch.Generator().manual_seed(22)  # their own generator: the checks' inputs stay as they were
    return (Probe("a square (4, 4) table", (torch.randint(0, 4, (5,), generator=p), randn(p, 4, 4))),)


def _softmax_probes() -> tuple[Probe, ...]:
    """Rows that tell apart the shifts a softmax may use (never judged; diagnosis.py uses them):
    one low score far below two high ones (shifting by the row's minimum overflows there, by its
    maximum or its mean does not), two low scores far below one high one (shifting by any score but
    the largest overflows there, the second smallest too: softmax ignores every finite shift, so only
    an overflow tells the largest apart), and every score far below zero (no shift at all gives 0 / 0)."""
    return (
        Probe("a row with one score far below the rest ([0, 100, 100])", (torch.tensor([[0.0, 100.0, 100.0]]),)),
        Probe("a row with one score far above the rest ([0, 0, 100])", (torch.tensor([[0.0, 0.0, 100.0]]),)),
        Probe("every score far below zero ([-1000, -1001, -1002])", (torch.tensor([[-1000.0, -1001.0, -1002.0]]),)),
    )


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)
    vocabulary, table = toy_world()
    ids = torch.tensor([vocabulary.index(w) for w in ("the", "river", "bank")])
    return [
        Check("one_hot_lookup", "'the river bank' in the toy world's table", ((ids, table),), _judge_one_hot_lookup),
        Check(
            "one_hot_lookup",
            "random ids into a random (6, 3) table (the last row never used)",
            ((torch.randint(0, 5, (7,), generator=g), randn(g, 6, 3)),),
            _judge_one_hot_lookup,
            _explain_one_hot_error,
            probes=_one_hot_probes(),
        ),
        Check("softmax", "a vector of 4 scores", ((torch.tensor([1.0, 2.0, 3.0, 0.5]),),), _judge_softmax),
        Check(
            "softmax",
            "a (3, 5) matrix, row by row",
            ((randn(f, 3, 5, scale=2.0),), (randn(g, 4, 2, scale=2.0),)),
            _judge_softmax,
            _explain_softmax_error,
        ),
        Check(
            "softmax",
            "large scores [[1000, 1001, 1002], [1, 2, 3]]",
            ((torch.tensor([[1000.0, 1001.0, 1002.0], [1.0, 2.0, 3.0]]),),),
            _judge_softmax,
            _explain_softmax_error,
        ),
        Check(
            "softmax",
            "masked scores with -inf entries",
            ((torch.tensor([[0.0, float("-inf"), 1.0], [2.0, 3.0, float("-inf")]]),),),
            _judge_softmax,
            _explain_softmax_error,
            probes=_softmax_probes(),
        ),
    ]
