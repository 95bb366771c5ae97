"""Lab 11's checks: the three detectors and the ablation, on patterns and scores made up here.

The right answers are written out below from their definitions (math/detectors.py holds the
run's own); no model is needed. Which inputs tell which mistake apart:
- a batch, a number of heads and a length that all differ, so that a mean over the wrong axes
  gives an answer of another shape, named as such;
- patterns whose rows are random, each with one cell made heavy (one back, after the earlier
  occurrence, or at the start token) in its own head: every cell a mistake reads instead holds
  another number, so an off-by-one on the diagonal or a row counted that should not be is seen;
- for the ablation, scores with the future at -inf: zeroing a head's scores before the softmax
  (uniform attention) gives another output than removing its term, and a batch axis of another
  size than the heads axis tells "the wrong axis" apart.

Left out: the lab's own comparisons on the shipped model (the lab prints them).
"""

from __future__ import annotations

import torch

from attention_by_hand.lab.inputs import fixed, randn, seeded
from attention_by_hand.lab.judging import Check, Probe, judge_tensor

# One mistake, one hint.
WRONG_AXES = (
    "averaged over the wrong axes: a score is one number per head, the mean over the batch (axis 0) and "
    "the rows; keep the heads (axis 1): .mean(dim=(0, 2)) of the (batch, heads, rows) cells"
)
SUMMED = "summed the cells instead of averaging them: a score is a mean weight, between 0 and 1"
ON_ITSELF = (
    "measured the weight on the current position itself (the diagonal): the previous position is one "
    "column to the left, pattern[..., i, i - 1]"
)
ON_NEXT = (
    "measured the weight on the next position (above the diagonal), which the causal mask makes 0: the "
    "previous position is one column to the left, pattern[..., i, i - 1]"
)
ROW_0_COUNTED = (
    "row 0 was counted: position 0 has no previous position, so the mean is over the T - 1 rows 1 .. T-1, "
    "not over T rows with 0 for the first"
)
START_ROW_COUNTED = (
    "the start token's own row was counted: row 0 can only look at itself, its weight on position 0 is "
    "always 1; average rows 1 .. T-1"
)
FIRST_ROW = (
    "read row 0 (what the start token looks at) instead of column 0 (what each position gives the start "
    "token): pattern[..., i, 0]"
)
ON_OCCURRENCE = (
    "off by one on the induction diagonal: i - period is the current token's earlier occurrence itself; an "
    "induction head looks at the token AFTER it, i - period + 1"
)
BEFORE_OCCURRENCE = (
    "off by one on the induction diagonal: i - period - 1 is the token before the earlier occurrence; an "
    "induction head looks at the token after it, i - period + 1"
)
FIRST_TIME_COUNTED = (
    "rows before the repeat were counted: the start token is position 0, so the first time through is "
    "positions 1 .. period and only rows period + 1 .. T-1 have an earlier occurrence to look after"
)
NOT_REMOVED = "the head was not removed: leave head `head`'s softmax(scores) @ values out of the sum"
ONLY_KEPT = "kept only head `head` and removed the others: ablation removes that one head's output and keeps the rest"
SCORES_ZEROED = (
    "the head's scores were set to 0 (its pattern, before the softmax): equal scores make uniform "
    "attention, so the head still writes the mean of its values; remove its output, softmax(scores) @ values"
)
BATCH_REMOVED = (
    "removed batch item `head` instead of head `head`: the heads are axis 1 of scores and values, "
    "(batch, heads, T, ...)"
)
SCORES_HIDDEN = (
    "the head's scores were all set to -inf: a row with no finite score has no softmax (0 / 0 = NaN); "
    "remove the head's output, softmax(scores) @ values, instead"
)
AVERAGED_HEADS = "averaged the heads' outputs: a layer adds the SUM of its heads' outputs to the stream"
SOFTMAX_COLUMNS = "softmax over the wrong axis: each query's row of scores (the last axis) must sum to 1"
NO_SOFTMAX = "the scores were used as weights without a softmax: softmax(scores) turns them into weights that sum to 1"


# --- the detectors ----------------------------------------------------------------------------


def _cells(pattern: torch.Tensor, rows: range, column) -> torch.Tensor:
    """pattern[:, :, i, column(i)] for i in rows.   -> (batch, heads, len(rows))"""
    i = torch.tensor(list(rows))
    return pattern[:, :, i, column(i)].double()


def _averages(cells: torch.Tensor, rows_total: int | None = None) -> list:
    """The right mean of (batch, heads, rows) cells and the usual wrong ways to take it: (hint, output)."""
    batch, _, rows = cells.shape
    wrong = [
        (WRONG_AXES, cells.mean(dim=(0, 1))),  # (rows,)
        (WRONG_AXES, cells.mean(dim=(1, 2))),  # (batch,)
        (WRONG_AXES, cells.mean(dim=2)),  # (batch, heads)
        (WRONG_AXES, cells.mean()),  # ()
        (SUMMED, cells.sum(dim=(0, 2))),
    ]
    if rows_total is not None:  # the cells' sum over more rows than there are cells: a row counted as 0
        wrong.append((ROW_0_COUNTED, cells.sum(dim=(0, 2)) / (batch * rows_total)))
    return wrong


def _judge_previous(got, expected, args):
    (pattern,) = args
    T = pattern.shape[-1]
    right = _cells(pattern, range(1, T), lambda i: i - 1).mean(dim=(0, 2))
    variants = [
        (ON_ITSELF, _cells(pattern, range(1, T), lambda i: i).mean(dim=(0, 2))),
        (ON_ITSELF, _cells(pattern, range(T), lambda i: i).mean(dim=(0, 2))),
        (ON_NEXT, _cells(pattern, range(T - 1), lambda i: i + 1).mean(dim=(0, 2))),
        *_averages(_cells(pattern, range(1, T), lambda i: i - 1), rows_total=T),
    ]
    return judge_tensor(got, right, "(heads,)", variants)


def _judge_first(got, expected, args):
    (pattern,) = args
    T = pattern.shape[-1]
    right = _cells(pattern, range(1, T), lambda i: 0 * i).mean(dim=(0, 2))
    row_0 = pattern[:, :, 0, :].double()  # (batch, heads, T): [1, 0, 0, ...]
    variants = [
        (START_ROW_COUNTED, _cells(pattern, range(T), lambda i: 0 * i).mean(dim=(0, 2))),
        (FIRST_ROW, row_0.mean(dim=(0, 2))),
        (FIRST_ROW, row_0[..., 1:].mean(dim=(0, 2))),
        *_averages(_cells(pattern, range(1, T), lambda i: 0 * i)),
    ]
    return judge_tensor(got, right, "(heads,)", variants)


def _judge_induction(got, expected, args):
    pattern, period = args
    T = pattern.shape[-1]
    repeat = range(period + 1, T)
    right = _cells(pattern, repeat, lambda i: i - period + 1).mean(dim=(0, 2))
    variants = [
        (ON_OCCURRENCE, _cells(pattern, repeat, lambda i: i - period).mean(dim=(0, 2))),
        (ON_OCCURRENCE, _cells(pattern, range(period, T), lambda i: i - period).mean(dim=(0, 2))),
        (BEFORE_OCCURRENCE, _cells(pattern, repeat, lambda i: i - period - 1).mean(dim=(0, 2))),
        # The diagonal from its start: rows period - 1 (on the start token) and period (the first time through).
        (FIRST_TIME_COUNTED, _cells(pattern, range(period - 1, T), lambda i: i - period + 1).mean(dim=(0, 2))),
        (FIRST_TIME_COUNTED, _cells(pattern, range(period, T), lambda i: i - period + 1).mean(dim=(0, 2))),
        *_averages(_cells(pattern, repeat, lambda i: i - period + 1)),
    ]
    return judge_tensor(got, right, "(heads,)", variants)


# --- the ablation -----------------------------------------------------------------------------


def _judge_ablate(got, expected, args):
    scores, values, head = (a.double() if isinstance(a, torch.Tensor) else a for a in args)
    heads = scores.shape[1]
    writes = torch.softmax(scores, dim=-1) @ values  # (batch, heads, T, d)
    others = [h for h in range(heads) if h != head]
    right = writes[:, others].sum(dim=1)

    def uniform(visible_only: bool) -> torch.Tensor:
        zeroed = scores.clone()
        zeroed[:, head] = torch.where(torch.isinf(scores[:, head]), scores[:, head], 0.0) if visible_only else 0.0
        return (torch.softmax(zeroed, dim=-1) @ values).sum(dim=1)

    variants = [
        (NOT_REMOVED, writes.sum(dim=1)),
        (ONLY_KEPT, writes[:, head]),
        (SCORES_ZEROED, lambda: uniform(visible_only=True)),
        (SCORES_ZEROED, lambda: uniform(visible_only=False)),
        (SCORES_HIDDEN, lambda: (torch.softmax(torch.where(head == torch.arange(heads)[:, None, None], float("-inf"), scores), dim=-1) @ values).sum(dim=1)),
        (BATCH_REMOVED, lambda: writes[others].sum(dim=1)),  # the head numbers used on the batch axis
        (BATCH_REMOVED, lambda: torch.cat([writes[:head], torch.zeros_like(writes[head : head + 1]), writes[head + 1 :]]).sum(dim=1)),
        (AVERAGED_HEADS, right / heads),
        (AVERAGED_HEADS, right / max(heads - 1, 1)),
        (SOFTMAX_COLUMNS, (torch.softmax(scores, dim=-2) @ values)[:, others].sum(dim=1)),
        (NO_SOFTMAX, (scores @ values)[:, others].sum(dim=1)),
    ]
    return judge_tensor(got, right, "(batch, T, d_model)", variants)


# --- inputs -----------------------------------------------------------------------------------


def _pattern(g: torch.Generator, batch: int, heads: int, T: int, period: int) -> torch.Tensor:
    """A causal pattern (batch, heads, T, T) of random rows, head h leaning on one cell per row:
    one back (h % 3 == 0), after the earlier occurrence (1), or the start token (2)."""
    scores = randn(g, batch, heads, T, T)  # (batch, heads, T, T)
    i = torch.arange(T)
    for h in range(heads):
        kind = h % 3
        j = (i - 1).clamp(min=0) if kind == 0 else (i - period + 1).clamp(min=0) if kind == 1 else torch.zeros_like(i)
        scores[:, h, i, j] += 3.0
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)


def _layer(g: torch.Generator, batch: int, heads: int, T: int, d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal scores (batch, heads, T, T) and values (batch, heads, T, d) of unit size."""
    scores = randn(g, batch, heads, T, T).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    return scores, randn(g, batch, heads, T, d)


def _ablate_probes() -> tuple[Probe, ...]:
    """A head in the middle removed (never judged): the checks remove the first, the second of
    three and the last, where dropping every head after the removed one, or the last head, gives
    the same sums; here the heads on both sides of it count."""
    p = torch.Generator().manual_seed(11)  # their own generator: the checks' inputs stay as they were
    return (Probe("(1, 5, 4, 4), head 2 of 5 removed: heads kept on both sides of it", (*_layer(p, 1, 5, 4, 3), 2)),)


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)
    # Shapes chosen so that no two of batch, heads and the rows kept are the same size.
    shown = _pattern(f, 2, 3, 9, period=3)  # (2, 3, 9, 9)
    small, wide = _pattern(g, 4, 2, 7, period=2), _pattern(g, 1, 5, 10, period=4)
    layer = _layer(f, 2, 3, 6, 4)
    return [
        Check("previous_token_score", "a fixed (2, 3, 9, 9): head 0 leans one back", ((shown,),), _judge_previous),
        Check("previous_token_score", "random (4, 2, 7, 7) and (1, 5, 10, 10)", ((small,), (wide,)), _judge_previous),
        Check("first_token_score", "a fixed (2, 3, 9, 9): head 2 leans on the start token", ((shown,),), _judge_first),
        Check("first_token_score", "random (4, 2, 7, 7) and (1, 5, 10, 10)", ((small,), (wide,)), _judge_first),
        Check("induction_score", "a fixed (2, 3, 9, 9), period 3: head 1 leans after the earlier occurrence", ((shown, 3),), _judge_induction),
        Check("induction_score", "random (4, 2, 7, 7) period 2, (1, 5, 10, 10) period 4", ((small, 2), (wide, 4)), _judge_induction),
        Check("ablate_head", "fixed scores (2, 3, 6, 6) and values (2, 3, 6, 4): head 1 removed", ((*layer, 1),), _judge_ablate),
        Check(
            "ablate_head",
            "random (3, 2, 5, 5), head 0; (1, 4, 7, 7), head 3",
            ((*_layer(g, 3, 2, 5, 3), 0), (*_layer(g, 1, 4, 7, 2), 3)),
            _judge_ablate,
            probes=_ablate_probes(),
        ),
    ]
