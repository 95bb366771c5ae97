"""A shape spread into `arange`, tried on a learner's code only.

`torch.arange(*tokens.shape)`, meant as the positions 0 .. T - 1 of a (B, T) batch, as
`torch.zeros(*tokens.shape)` makes a tensor of that shape: `arange` reads its numbers as a start, an
end and a step, so the spread shape is `arange(B, T)`, the numbers B .. T - 1. The mend
(`shape_spread`) gives `arange` one size of that shape, the last, the one before it or the first:
tried at every `arange` or `range` given a spread shape (`*x.shape`, `*x.size()`).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["SPREAD_OPS", "spread_mends", "spread_words"]

SPREAD_OPS = ("shape_spread",)
_COUNTING = ("arange", "range")  # calls that read their numbers as start, end and step


def _spread_shape(node: ast.AST) -> ast.expr | None:
    """The shape spread into `arange(*x.shape)` or `range(*x.size())`, as its only argument; else None."""
    if not isinstance(node, ast.Call) or call_name(node) not in _COUNTING or len(node.args) != 1:
        return None
    spread = node.args[0]
    if not isinstance(spread, ast.Starred):
        return None
    shape = spread.value
    is_shape = (isinstance(shape, ast.Attribute) and shape.attr == "shape") or (
        isinstance(shape, ast.Call) and isinstance(shape.func, ast.Attribute) and shape.func.attr == "size" and not shape.args)
    return shape if is_shape else None


def spread_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `shape_spread` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or (shape := _spread_shape(node)) is None:
            continue
        for axis in (-1, -2, 0):
            number = ast.UnaryOp(ast.USub(), ast.Constant(-axis)) if axis < 0 else ast.Constant(axis)
            # `x.size()` asked for one axis is `x.size(-1)`; a shape is indexed, `x.shape[-1]`
            size = ast.Call(shape.func, [number], []) if isinstance(shape, ast.Call) else ast.Subscript(shape, number, ast.Load())
            made = ast.Call(node.func, [size], node.keywords)
            found.append(Change(fdef.name, index[id(node)], "shape_spread", ast.unparse(made), "arguments",
                                f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def spread_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `shape_spread` change mends, in words."""
    if change.op != "shape_spread" or (shape := _spread_shape(node)) is None:
        return None
    name = call_name(node)
    return (f"a shape spread into `{name}`: `{name}` reads the sizes it is given as a start, an end and a step "
            f"(two sizes: from the first up to the second), not as a shape to fill (as `zeros(*{quote(shape)})` "
            f"does); it takes the count of numbers wanted")
