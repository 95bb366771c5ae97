"""Of several mends of one node of a line, the ones that leave the function's state as the reference's.

Some functions give the same output for many values of a step inside them: a softmax is the same
for any finite shift of its scores, so a running maximum written as the minimum is mended by any
change of its line that keeps the shift finite. `(m + s - (m - s).abs()) / 2` is mended by the
real fix, `+` for `-`, which makes it the maximum, and also by the term `(m - s).abs()` dropped,
which makes it `(m + s) / 2`, the average of the two. The outputs cannot tell those apart; the
values the function holds as it returns can: with the real fix its `m` is the reference's running
maximum, with the other it is nothing the reference computes.

So where several changes of one line mend the function, each is scored by how many of the
reference's locals (tensors, as it returns, on one input) some local of the mended function equals;
a change that scores less than another, of the very node that one changes or of a node inside it
(the `-` made `+`, or its right side dropped; a name inside it made another), mends only because
the output forgives it, and is not said. Changes of other nodes of the line are two readings of it,
and stay.
"""

from __future__ import annotations

import ast
from types import ModuleType, SimpleNamespace

import torch

from attention_by_hand.lab.mutants import Change, build, definition
from attention_by_hand.lab.outcomes import locals_on


def _tensors(found: dict[str, dict[str, object]], function: str) -> list[torch.Tensor]:
    return [v for v in found.get(function, {}).values() if isinstance(v, torch.Tensor)]


def _equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    # floats equal within rounding: a mend may order the operations otherwise than the reference
    return torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True) if a.dtype.is_floating_point else torch.equal(a, b)


def _agreement(module: ModuleType, function: str, change: Change, args: tuple, theirs: list[torch.Tensor]) -> int:
    """How many of the reference's tensors some tensor of the mended function equals."""
    built = build(module, function, (change,))
    if built is None:
        return -1
    mine = _tensors(locals_on(SimpleNamespace(**{function: built}), function, args, {function}), function)
    return sum(any(_equal(t, m) for m in mine) for t in theirs)


def agreeing(module: ModuleType, reference: ModuleType, function: str, mends: list[Change], args: tuple) -> list[Change]:
    """`mends` without those that change the very node another mend of the same line changes, or a
    node inside it, and leave the function further from the reference's state, on `args` (an input
    the learner's function got wrong). Mends of other nodes of the line stay: `ones_like(tokens[0])`
    inside `ones_like(tokens).cumsum(dim=0)` may match the reference's shapes better than `dim=-1`
    does, and still not be the slip."""
    lines: dict[int, list[Change]] = {}
    for change in mends:
        if change.function == function:
            lines.setdefault(change.line, []).append(change)
    crowded = [group for group in lines.values() if len(group) > 1]
    if not crowded:
        return mends
    nodes = list(ast.walk(definition(module, function)))
    theirs = _tensors(locals_on(reference, function, args, {function}), function)
    dropped = set()
    for group in crowded:
        scores = {c: _agreement(module, function, c, args, theirs) for c in group}
        best = max(scores.values())
        tops = [nodes[c.index] for c in group if scores[c] == best]
        dropped |= {c for c in group if scores[c] < best and any(any(n is nodes[c.index] for n in ast.walk(t)) for t in tops)}
    return [c for c in mends if c not in dropped]
