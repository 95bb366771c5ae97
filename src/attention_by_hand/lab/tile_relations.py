"""A tiled function whose last tile was never visited: its outputs are the reference's on the
inputs cut to the tiles it did visit.

Labs 09 and 10 walk the queries and the keys a block at a time. A loop that counts its tiles one
short (`range(T // block)`, `round(T / block)`, starts and ends paired by `zip` where the ends stop
before T) leaves the last tile out: its keys are never seen, its queries (or its rows of dk and dv)
never computed. The outputs are then the reference's on the first n rows of every input, n being
where the tiles it visited end, and where the learner's outputs are longer than that, the rows
after n hold the zeros they started as. That is tried here, with one rule for n on every input
tried, and said only when it holds on each of them.

Left out: a first tile left out (a loop that starts at `block`), and tiles visited twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

__all__ = ["last_tile_left_out"]

# How many rows a loop visits that counts its tiles one short: each rule on T rows in tiles of
# `block` (the whole T where it counts them all).
_RULES: tuple[Callable[[int, int], int], ...] = (
    lambda T, block: T // block * block,  # `range(T // block)`: the last, shorter tile left out
    lambda T, block: min(round(T / block) * block, T),  # `round(T / block)`: left out when short by less than half
    lambda T, block: (math.ceil(T / block) - 1) * block,  # ends paired with starts by `zip`: the last tile always left out
)
_KEYS = {"k", "v", "key", "keys", "value", "values"}  # the arguments whose rows are keys, not queries
_SIDES = ("both", "queries", "keys")


def _time_axis(value, rank: int) -> int | None:
    """The axis of a tensor argument that runs over positions: -2 for one of the first tensor's
    rank (q, k, v, out), -1 for one of one axis fewer (lse); None for anything else."""
    if not isinstance(value, torch.Tensor):
        return None
    return -2 if value.dim() == rank and rank >= 2 else -1 if value.dim() == rank - 1 and rank >= 2 else None


def _cut(names: list[str], args: tuple, rule, side: str) -> tuple[tuple, list[str], tuple[int, int]] | None:
    """args with every tensor on the cut side cut to its first n rows, the names of those cut, and
    the (T, n, block) of the first; None when the rule cuts nothing here, or the arguments hold no `block`."""
    block = args[names.index("block")] if "block" in names and names.index("block") < len(args) else None
    first = next((a for a in args if isinstance(a, torch.Tensor)), None)
    if not isinstance(block, int) or isinstance(block, bool) or block < 1 or first is None:
        return None
    rank, cut, named, seen = first.dim(), list(args), [], None
    for position, value in enumerate(args):
        axis = _time_axis(value, rank)
        name = names[position] if position < len(names) else ""
        if axis is None or (side == "queries" and name in _KEYS) or (side == "keys" and name not in _KEYS):
            continue
        T = value.shape[axis]
        n = rule(T, block)
        if n < T:
            cut[position] = value.narrow(axis, 0, n)
            named.append(name)
            seen = seen or (T, n, block)
    return (tuple(cut), named, seen) if named else None


def _padded(got, expected):
    """expected made as long as got with zeros, along the one axis where got is longer; else as it is."""
    if not (isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor)) or got.dim() != expected.dim():
        return expected
    longer = [a for a in range(got.dim()) if got.shape[a] != expected.shape[a]]
    if len(longer) != 1 or got.shape[longer[0]] < expected.shape[longer[0]]:
        return expected
    axis = longer[0]
    extra = list(expected.shape)
    extra[axis] = got.shape[axis] - expected.shape[axis]
    return torch.cat([expected, expected.new_zeros(extra)], dim=axis)


def _fits(got, expected, agree) -> bool:
    if isinstance(got, (tuple, list)) and isinstance(expected, (tuple, list)):
        return len(got) == len(expected) and all(agree(g, _padded(g, e)) for g, e in zip(got, expected))
    return agree(got, _padded(got, expected))


def last_tile_left_out(call: Callable[[tuple], object], names: list[str], inputs: list[tuple], gots: list,
                       expected: list, agree: Callable[[object, object], bool]) -> str | None:
    """"yours is the reference's output on the first n rows ..." where one rule of a loop that
    counts its tiles one short, on one side, gives each got: the reference's (`expected`) where it
    cuts nothing, else the reference's on the cut inputs (`call`), padded with zeros to the
    learner's length. None where no rule does, or where no input was cut."""
    if "block" not in names or not inputs:
        return None
    for rule in _RULES:
        for side in _SIDES:
            cuts = [_cut(names, args, rule, side) for args in inputs]
            if all(c is None for c in cuts):
                continue
            outputs = _fitted(cuts, gots, expected, call, agree)
            if outputs is not None:
                made = [(c, got, o) for c, got, o in zip(cuts, gots, outputs) if c is not None]
                longer = any(_longer(got, o) for _, got, o in made)
                return _words(made[0][0][1], made[0][0][2], longer)  # one input's cut, said as an example
    return None


def _fitted(cuts: list, gots: list, expected: list, call, agree) -> list | None:
    """The reference's output on each input as cut (its own where nothing is cut), each made once,
    when every got fits it; None at the first that does not (the rest are never called)."""
    outputs = []
    for c, got, e in zip(cuts, gots, expected):
        output = e if c is None else call(c[0])
        if not (agree(got, output) if c is None else _fits(got, output, agree)):
            return None
        outputs.append(output)
    return outputs


def _longer(got, expected) -> bool:
    """Whether some part of got is longer than the reference's on the cut inputs (zeros after)."""
    pairs = zip(got, expected) if isinstance(got, (tuple, list)) and isinstance(expected, (tuple, list)) else [(got, expected)]
    return any(isinstance(g, torch.Tensor) and isinstance(e, torch.Tensor) and g.shape != e.shape for g, e in pairs)


def _words(cut: list[str], example: tuple[int, int, int], longer: bool) -> str:
    names = [f"`{n}`" for n in cut]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    T, n, block = example
    return (f"yours is the reference's output on its inputs cut to the tiles before the last (on one input, {listed} "
            f"cut from {T} rows to the first {n}, in tiles of {block}){', the rows after them left at zero' if longer else ''}: "
            f"the last tile was never visited. A loop over the tiles takes ceil(T / block) of them, the last one "
            f"shorter where block does not divide T, as `range(0, T, block)` does")
