"""A slice's step one off, tried on a learner's code only.

`pattern.flatten(-2)[..., T::T]`, meant as the cells just left of the diagonal of a (T, T) table laid
flat: in the flat row, cell [i, j] sits at i * T + j, so a step of T stays in one column, a step of
T + 1 moves one row down and one column right (a diagonal), and T - 1 one row down and one column
left. The mend (`step_shift`) writes the step plus or minus one: tried at every slice whose step is
written and is no plain number (`T`, `T + 1`, `n - 1`: a step counted from a size).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["STEP_OPS", "step_mends", "step_words"]

STEP_OPS = ("step_shift",)


def _counted_step(node: ast.AST) -> bool:
    """A slice whose step is written and is no plain number."""
    return isinstance(node, ast.Slice) and node.step is not None and not isinstance(node.step, ast.Constant) and not (
        isinstance(node.step, ast.UnaryOp) and isinstance(node.step.operand, ast.Constant))


def _shifted(step: ast.expr, by: int) -> ast.expr:
    """`step + 1` or `step - 1`, folded where the step already ends in a number (`T + 1` - 1 -> `T`)."""
    if isinstance(step, ast.BinOp) and isinstance(step.op, (ast.Add, ast.Sub)) and isinstance(step.right, ast.Constant) \
            and type(step.right.value) is int:
        value = step.right.value * (1 if isinstance(step.op, ast.Add) else -1) + by
        if value == 0:
            return step.left
        return ast.BinOp(step.left, ast.Add() if value > 0 else ast.Sub(), ast.Constant(abs(value)))
    return ast.BinOp(step, ast.Add() if by > 0 else ast.Sub(), ast.Constant(1))


def step_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `step_shift` changes of `fdef` (the module's docstring); each change's arg is the new step, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or not _counted_step(node):
            continue
        for by in (1, -1):
            step = ast.unparse(_shifted(node.step, by))
            made = ast.unparse(ast.Slice(node.lower, node.upper, _shifted(node.step, by)))
            found.append(Change(fdef.name, index[id(node)], "step_shift", step, "step",
                                f"`{made}` for `{ast.unparse(node)}`", node.lineno))
    return found


def step_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `step_shift` change mends, in words."""
    if change.op != "step_shift" or not _counted_step(node):
        return None
    larger = change.arg == ast.unparse(_shifted(node.step, 1))
    step, meant = (s if isinstance(n, ast.Name) else f"({s})" for s, n in ((quote(node.step), node.step), (change.arg, ast.parse(change.arg, mode="eval").body)))
    return (f"the slice's step one too {'small' if larger else 'large'}: `::{quote(node.step)}` takes every "
            f"{step}-th entry, where every {meant}-th was meant (of a square table laid flat, a "
            f"step of its side stays in one column, one more moves along a diagonal)")
