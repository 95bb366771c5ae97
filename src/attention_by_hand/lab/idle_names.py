"""A change that mends a learner's function only by making one of its names do nothing.

repair.py says a change of the learner's code that makes its function right on every input. Some
changes do that by chance: they leave the mistake where it is and make the name that carries it
do nothing, a factor made 1 (`pattern` for `tril(pattern)`, whose rows then sum to 1, divided
by), a part of a mask made empty (`==` for `>=` in `extra = i - j >= 2`, then `future | extra`).
Said, each would name a slip that was not made; the removal of the factor or the part names the
one that was. `made_idle` tells them: it runs the changed function on the same inputs and reads
its locals as it returns (outcomes.locals_on, the tracer the reference's are read with).

Left out: names set in a loop (at the return they hold the last step's value only), and names
read in more than one role.
"""

from __future__ import annotations

import ast
from types import ModuleType, SimpleNamespace

import torch

from attention_by_hand.lab.code_layout import a_factor, parents as parents_in
from attention_by_hand.lab.mutants import Change, build, definition
from attention_by_hand.lab.outcomes import locals_on

__all__ = ["made_idle"]


def made_idle(change: Change, module: ModuleType, function: str, inputs: list[tuple],
              seens: list[dict[str, dict[str, object]]], said: tuple[str, ...], only: set[str] | None = None) -> bool:
    """A change that makes a name do nothing on every input where it did something: a name that
    only multiplies or divides made 1 (`-(-T // T)` for `-(-T // block)`, or `block` for `T`, then
    `dq / n_blocks`; `pattern` for `tril(pattern, -1)` whose rows then sum to 1, then `/ past`), a
    name that is only a part of `a | b` made all False (`==` for `>=` in `extra = i - j >= 2`,
    then `future | extra`), of `a & b` all True. It takes the name's work away by chance, and says
    a slip that was not made (the factor's or the part's removal says it). said: the ops never
    counted so (a removal names the learner's own element); only: the names to look at (None:
    all); a tensor of ones counts as 1 only for these, beside their removal (alone, another axis
    or name that makes a sum of weights each row's total may be the reference's own division)."""
    if change.op in said or change.function != function:
        return False
    fdef = definition(module, function)
    parents = parents_in(fdef)
    reads: dict[str, list[ast.Name]] = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            reads.setdefault(n.id, []).append(n)
    stored = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    # a name set in a loop holds its last step's value at the return, which says nothing of the others
    looped = {n.id for loop in ast.walk(fdef) if isinstance(loop, (ast.For, ast.While))
              for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    idle = {}  # name -> the test of its value (and of the other side's, for `|` and `&`) that makes it do nothing
    for name in (stored - looped) & (stored if only is None else only):
        unit = _ones if only is not None else _one
        for role, test in ((lambda n: a_factor(n, parents), unit), (lambda n: _a_part(n, parents, ast.BitOr), _none),
                           (lambda n: _a_part(n, parents, ast.BitAnd), _every)):
            if reads.get(name) and all(role(n) for n in reads[name]):
                idle[name] = (test, _other_side(reads[name], parents) if test not in (_one, _ones) else None)
    built = build(module, function, (change,))
    if not idle or built is None:
        return False
    # the changed function's locals as it returns, by the same tracer the reference's are read with
    made = [locals_on(SimpleNamespace(**{function: built}), function, args, {function}).get(function, {}) for args in inputs]
    before = [s.get(function, {}) for s in seens]
    return any(all(test(m.get(name), m.get(other)) for m in made) and not all(test(b.get(name), b.get(other)) for b in before)
               for name, (test, other) in idle.items())


def _a_part(name: ast.Name, parents: dict, op: type) -> bool:
    """Whether this read of a name is one side of a `|` (or `&`)."""
    parent = parents.get(id(name))
    return isinstance(parent, ast.BinOp) and isinstance(parent.op, op)


def _other_side(reads: list[ast.Name], parents: dict) -> str | None:
    """The name on the other side of the one `|` (or `&`) that reads a name, if a name is there."""
    if len(reads) != 1:
        return None
    operation = parents[id(reads[0])]
    other = operation.right if operation.left is reads[0] else operation.left
    return other.id if isinstance(other, ast.Name) else None


def _one(value, _=None) -> bool:
    """The number 1."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 1


def _ones(value, _=None) -> bool:
    """1, or a float tensor of ones (a row's sums of weights: 1 within rounding)."""
    if isinstance(value, torch.Tensor):
        return (value.dtype.is_floating_point and value.numel() > 0
                and torch.allclose(value, torch.ones_like(value), rtol=0.0, atol=1e-5))
    return _one(value)


def _none(value, other=None) -> bool:
    """A part of `other | value` that adds nothing: False, a boolean tensor with no True in it, or
    none that `other` (a boolean tensor of the same shape) has not."""
    if isinstance(value, torch.Tensor) and value.dtype == torch.bool:
        if isinstance(other, torch.Tensor) and other.dtype == torch.bool and other.shape == value.shape:
            return not bool((value & ~other).any())
        return not bool(value.any())
    return value is False


def _every(value, other=None) -> bool:
    """A part of `other & value` that takes nothing away: True, a boolean tensor with no False in
    it, or none where `other` (a boolean tensor of the same shape) is True."""
    if isinstance(value, torch.Tensor) and value.dtype == torch.bool:
        if isinstance(other, torch.Tensor) and other.dtype == torch.bool and other.shape == value.shape:
            return not bool((other & ~value).any())
        return bool(value.all())
    return value is True
