"""Each row of the learner's output the reference's row times a factor of its own: the proportions
within each row right, its size wrong. Where the reference's rows are weights (each sums to 1),
the factor is a wrong denominator, and rows of length 1 are a norm taken where a sum belongs;
elsewhere (keys, an output) rows of length 1 are rows normalised where none was asked for.
"""

from __future__ import annotations

import torch

from attention_by_hand.lab.judging import close

__all__ = ["ROWS_SCALED", "ROWS_SCALED_RIGHT", "rows_scaled", "unravel", "weights_like"]


def rows_scaled(differing: list[tuple[torch.Tensor, torch.Tensor, object]]) -> str | None:
    """Each row of yours the reference's times a factor of its own, on every input where they differ,
    in words (with the first input's numbers where it shows them); or None."""
    rows = [_rows_scaled(g, e) for g, e, _ in differing]
    shown = [r for r in rows if r is not NO_EVIDENCE]
    if not (all(rows) and shown):  # it must fit every input, and some input must show a factor of its own
        return None
    if all(r == UNIT_ROWS for r in shown):
        return UNIT_ROWS
    shown = [r for r in shown if r != UNIT_ROWS] or shown
    # said with the numbers of the first input, where that one shows them; else without numbers
    if rows[0] not in (NO_EVIDENCE, UNIT_ROWS) or shown[0] == LENGTH_ONE:
        return shown[0]
    finite = [e[torch.isfinite(g).all(dim=-1)] if e.dim() > 1 else e for g, e, _ in differing]
    return ROWS_SCALED.format(shown="") + (SUM_ADVICE if all(weights_like(e) for e in finite if e.numel()) else SIZE_WRONG)


def _rows_scaled(got: torch.Tensor, expected: torch.Tensor) -> str | None:
    """Each row (along the last axis) the reference's row times a factor of its own: proportions
    right, the divisor wrong (normalised by a norm, or a sum of other numbers than the ones divided)."""
    if got.dim() < 1 or got.shape[-1] < 2:
        return None
    g, e = got.double().reshape(-1, got.shape[-1]), expected.double().reshape(-1, expected.shape[-1])
    # A row divided by 0 is +inf all along (a factor of infinity): set aside, every other row must fit.
    infinite = (g == float("inf")).all(dim=-1)
    g, e = g[~infinite], e[~infinite]
    if len(g) == 0:
        return NO_EVIDENCE
    if not (torch.isfinite(g).all() and torch.isfinite(e).all()):
        return None
    square = (e * e).sum(dim=-1)
    if bool((square == 0).any()):
        return None
    factors = (g * e).sum(dim=-1) / square  # (rows,)
    if not close(g, factors[:, None] * e):
        return None
    live = factors.abs() > 1e-6
    # a row of zeros fits any row (a factor of 0): only a row with a factor other than 0 and 1 shows it
    if not bool(live.any()):
        return NO_EVIDENCE
    if bool(torch.isclose(factors[live], torch.ones_like(factors[live]), rtol=1e-3).all()):
        # right but for the rows set aside: they are where this input is wrong, so it shows nothing
        return NO_EVIDENCE if bool(infinite.any()) else None
    if bool(torch.isclose(factors[live], factors[live][0], rtol=1e-3).all()):
        return NO_EVIDENCE  # one factor for every row: a constant, which shows no row's own
    # the rows whose factor is not 1 show it (a list of "x1" says nothing), by their place in
    # yours: the rows of +inf set aside above still count, as wrong ones
    places = (~infinite).nonzero().flatten().tolist()
    off = [j for j in range(len(g)) if not close(g[j], e[j])]

    def where(r: int) -> str:
        if got.dim() <= 2:
            return "the row" if got.dim() == 1 else f"row {r}"
        return f"row {unravel(r, tuple(got.shape[:-1]))}"

    shown = ", ".join(f"{where(places[j])}: x{float(factors[j]):.3g}" for j in off[:3]) + (", ..." if len(off) > 3 else "")
    if len(off) < len(g):
        shown += f"; {len(g) - len(off)} of {len(infinite)} rows right on this input"
    lengths = g.norm(dim=-1)
    if bool(torch.isclose(lengths[live], torch.ones_like(lengths[live]), atol=1e-4).all()) and weights_like(e):
        return LENGTH_ONE  # its advice (rows that SUM to 1) is for weights alone
    # rows of another kind (keys, an output) brought to length 1: every row that differs has it
    # (each factor positive: a row turned round as well is no row normalised; a row of +inf set aside differs too)
    if (off and not weights_like(e) and not bool(infinite.any()) and bool((factors[off] > 0).all())
            and bool(torch.isclose(lengths[off], torch.ones(len(off), dtype=lengths.dtype), atol=1e-4).all())):
        return UNIT_ROWS
    return ROWS_SCALED.format(shown=f" ({shown})") + _advice(e)


def unravel(flat: int, shape: tuple[int, ...]) -> list[int]:
    """The index of entry `flat` of a tensor of `shape` laid out row by row: torch.unravel_index's
    answer, in plain Python (torch's first call imports its symbolic shapes, most of a second)."""
    index = []
    for size in reversed(shape):
        flat, at = divmod(flat, size)
        index.append(at)
    return index[::-1]


def weights_like(expected: torch.Tensor) -> bool:
    """Whether each row of the reference's sums to 1 (weights): only there is a row's size its denominator."""
    sums = expected.double().sum(dim=-1)
    return bool(torch.isclose(sums, torch.ones_like(sums), atol=1e-4).all())


def _advice(expected: torch.Tensor) -> str:
    """The advice fits weights, whose rows sum to 1; another row (attention's output) has another divisor."""
    return SUM_ADVICE if weights_like(expected) else SIZE_WRONG


NO_EVIDENCE = "no row's own factor shows here"  # it fits this input, and shows nothing
LENGTH_ONE = ("each row of yours is the reference's row divided by its length: each row has length 1 (its squares "
              "sum to 1), as F.normalize makes it, where each row must SUM to 1 (divide by the row's sum)")
ROWS_SCALED_RIGHT = ": the proportions within each row are right"  # true only of the reference's rows
ROWS_SCALED = "each row of yours is the reference's row times a factor of its own{shown}" + ROWS_SCALED_RIGHT
# said only where the reference's rows sum to 1 (weights): a row of another kind has no denominator to blame
UNIT_ROWS = ("each row of yours that differs is the reference's row divided by its length: it has length 1 (its "
             "squares sum to 1), as F.normalize makes it, where the reference's rows keep their own lengths")
SUM_ADVICE = ", its denominator is not (divide by the sum of the very numbers on top)"
SIZE_WRONG = ", its size is not"
