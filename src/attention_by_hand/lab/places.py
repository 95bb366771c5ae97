"""Places: a learner's output right in some places and not others, said by where.

- Each row holding the reference's row's numbers, moved along the row (`moved`). A row padded
  on the wrong side (F.pad's first number pads on the LEFT), a shift by the row's own index, a
  rotation: each row holds the right numbers in other places, and by how much each moved tells
  where the learner's indexing went. `rows_moved` says it when every row (along the last axis)
  is the reference's row rotated by an amount of its own and some rows moved.
- Some slices along one axis all zeros, every other slice right (`zeroed`): places that nothing
  reached (a loop that stopped a block short, a count rounded down).

Both say where, not why: relations.ends asks here, and its words stand beside a mend of the
learner's code rather than instead of it.

Left out: rows whose numbers were permuted in other ways (sorted is relations._sorted), and
moves along another axis than the last.
"""

from __future__ import annotations

import torch

from attention_by_hand.lab.judging import close
from attention_by_hand.lab.shape_relations import SINGULAR, axis_name

__all__ = ["rows_moved", "moved", "zeroed"]

ALL_ZEROS = "all zeros"  # a marker: nothing reached any place, which fits slices left unfilled
MAX_ROWS = 256  # rows compared one by one: the labs' outputs have far fewer


def _rotation(g: torch.Tensor, e: torch.Tensor) -> int | None:
    """The k in 0 .. n-1 with g == roll(e, k), the smallest; None when none."""
    for k in range(g.shape[-1]):
        if close(g, torch.roll(e, k, dims=-1)):
            return k
    return None


def rows_moved(got: torch.Tensor, expected: torch.Tensor) -> str | None:
    """Words when each row of got is expected's row rotated along the row, not all by 0 and not all
    by one amount (one amount for every row is a shift of the whole, said elsewhere)."""
    # a row of two turned round is as much a swap as a move: three places at least
    if got.dim() < 2 or got.shape != expected.shape or got.shape[-1] < 3 or got.is_complex():
        return None
    g, e = got.reshape(-1, got.shape[-1]), expected.reshape(-1, expected.shape[-1])
    if len(g) > MAX_ROWS:
        return None
    moves = [_rotation(a, b) for a, b in zip(g, e)]
    if any(m is None for m in moves) or len(set(moves)) < 2:
        return None
    n = got.shape[-1]
    shown = ", ".join(f"row {i}: by {m}" for i, m in enumerate(moves[:4])) + (", ..." if len(moves) > 4 else "")
    return (f"each row of yours holds the reference's row's numbers moved along the row, each by an amount of its "
            f"own, the numbers pushed off one end coming back at the other ({shown}, of {n} places, on one input): "
            f"the right numbers in the wrong places")


def _zero_slices(got, expected):
    """(axis from the end, the slices, how many) where some slices along one axis are all zeros where the
    reference's are not and every other slice equals its: places never filled (a loop that
    stopped a block short); ALL_ZEROS where every place is zero; else None."""
    if got.dim() == 0 or not got.is_floating_point():
        return None
    if not bool((got != 0).any()) and bool((expected != 0).any()):
        return ALL_ZEROS  # fits (every slice short), and shows no place
    for axis in range(got.dim()):
        g, e = got.movedim(axis, 0).reshape(got.shape[axis], -1), expected.movedim(axis, 0).reshape(got.shape[axis], -1)
        zero = [bool((g[i] == 0).all()) and bool((e[i] != 0).any()) for i in range(len(g))]
        rest = [i for i, z in enumerate(zero) if not z]
        if any(zero) and rest and close(g[rest], e[rest]):
            return axis - got.dim(), [i for i, z in enumerate(zero) if z], len(g)  # from the end: ranks differ
    return None


def _say_zero_slices(found: list, rank: int) -> str | None:
    """Words for _zero_slices on every input: the same axis each time, its places on one input
    (and "its last" when on every input they are the last ones)."""
    shown = [f for f in found if f is not ALL_ZEROS]
    if not all(found) or not shown or len({axis for axis, _, _ in shown}) != 1:
        return None
    axis, listed, n = shown[0]
    what = axis_name(rank + axis, rank) if rank + axis >= 0 else f"slices along axis {axis}"
    one = SINGULAR.get(what, what) if len(listed) == 1 else what
    last = all(places == list(range(size - len(places), size)) for _, places, size in shown)
    span = (f"{listed[0]} to {listed[-1]}" if listed == list(range(listed[0], listed[-1] + 1)) and len(listed) > 2
            else ", ".join(map(str, listed[:6])) + (", ..." if len(listed) > 6 else ""))
    return (f"yours equals the reference's output but for {'its last' if last else 'some'} {what}, all zeros where the "
            f"reference's are not ({one} {span} of {n} on one input): nothing reached them")


def zeroed(pairs) -> str | None:
    """Some slices of yours all zeros, the rest the reference's (_zero_slices), on every input."""
    if any(g.shape != e.shape for g, e, _ in pairs):
        return None
    return _say_zero_slices([_zero_slices(g, e) for g, e, _ in pairs], pairs[0][0].dim())


def moved(pairs) -> str | None:
    """Each row of yours the reference's moved along the row (row_moves.py), on every input: the
    first input's moves are said (each input has its own)."""
    moved = [rows_moved(g, e) for g, e, _ in pairs]
    return moved[0] if all(moved) else None
