"""A slice's step one off, tried on a learner's code only.

`pattern.flatten(-2)[..., T::T]`, meant as the cells just left of the diagonal of a (T, T) table laid
flat: in the flat row, cell [i, j] sits at i * T + j, so a step of T stays in one column, a step of
T + 1 moves one row down and one column right (a diagonal), and T - 1 one row down and one column
left. The mend (`step_shift`) writes the step plus or minus one: tried at every slice whose step is
written as one term that is no plain number (`T`, `x.size(-1)`: a step counted from a size). A step
already plus or minus a number (`T + 1`) is left to mend_changes.py, which takes that term away.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["STEP_OPS", "step_mends", "step_words"]

STEP_OPS = ("step_shift",)


def _counted_step(node: ast.AST) -> bool:
    """A slice whose step is written as one term that is no plain number: a name, a size (`T`, `x.size(-1)`);
    a step already plus or minus a number (`T + 1`) is mended by taking that term away (mend_changes.py)."""
    step = node.step if isinstance(node, ast.Slice) else None
    return isinstance(step, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))


def _shifted(step: ast.expr, by: int) -> ast.expr:
    """`step + 1` or `step - 1`."""
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
    step = quote(node.step) if isinstance(node.step, ast.Name) else f"({quote(node.step)})"
    return (f"the slice's step one too {'small' if larger else 'large'}: `::{quote(node.step)}` takes every "
            f"{step}-th entry, where every ({change.arg})-th was meant")
