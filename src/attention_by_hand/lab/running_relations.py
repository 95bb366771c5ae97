"""A row reduced as a running total: the learner's output at entry j of the last axis is the
reference's on the input cut to its first j + 1 entries there, at entry j.

`exp(s - torch.logcumsumexp(s, dim=-1))` divides each exponential by the sum of those up to it,
not of the whole row (`cumsum` for `sum` does the same, as does a `range(j + 1)` in a loop that
meant the row): the first weight of every row is 1, and only the last is right. That is no small
change of the reference's code, and no relation between the two outputs alone; it is one between
the learner's output and the reference's on inputs cut short, tried here entry by entry.

Said only where it holds at every entry of the last axis of every wrong input tried, each of
those inputs has more than one entry there, and the learner's output is not the reference's.

Left out: a running total along another axis, and outputs whose last axis is not the inputs'.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

__all__ = ["running_rows"]


def _cut(args: tuple, n: int, length: int) -> tuple:
    """args with every tensor whose last axis has `length` entries cut to its first n there."""
    return tuple(a[..., :n] if isinstance(a, torch.Tensor) and a.dim() >= 1 and a.shape[-1] == length else a
                 for a in args)


def _running(call: Callable[[tuple], object], args: tuple, got, agree) -> bool:
    if not isinstance(got, torch.Tensor) or got.dim() < 1 or got.shape[-1] < 2:
        return False
    length = got.shape[-1]
    if not any(isinstance(a, torch.Tensor) and a.dim() >= 1 and a.shape[-1] == length for a in args):
        return False
    for n in range(1, length + 1):
        output = call(_cut(args, n, length))
        if not (isinstance(output, torch.Tensor) and output.shape[:-1] == got.shape[:-1] and output.shape[-1] == n):
            return False
        if not agree(got[..., n - 1], output[..., n - 1]):
            return False
    return True


def running_rows(call: Callable[[tuple], object], inputs: list[tuple], gots: list, expected: list,
                 agree: Callable[[object, object], bool]) -> str | None:
    """"yours at entry j equals the reference's on the first j + 1 entries ..." where that holds on
    every input whose output is wrong; None otherwise."""
    wrong = [(args, got) for args, got, e in zip(inputs, gots, expected) if not agree(got, e)]
    if not wrong or not all(_running(call, args, got, agree) for args, got in wrong):
        return None
    return ("yours, at each entry j of the last axis, equals the reference's on the first j + 1 entries alone "
            "(the entries up to j): a running total, where the whole row's was meant; only the last entry of "
            "each row is right")
