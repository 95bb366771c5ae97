"""The number of a tensor's axes read as the length of one, tried on a learner's code only.

`table.narrow(0, 0, x.dim())`, meant as the first T rows of a table for x's T tokens: `dim()` (like
`ndim` and `len(x.shape)`) is how many AXES x has, 2 or 3, not how long one of them is, which is
`x.size(d)`. The mend (`dim_for_size`) puts the length of one axis, `x.size(d)` for d = 0, 1, -2
and -1, for every `x.dim()`, `x.ndimension()`, `x.ndim` and `len(x.shape)`.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["DIM_COUNT_OPS", "dim_count_mends", "dim_count_words"]

DIM_COUNT_OPS = ("dim_for_size",)
_AXES = (0, 1, -2, -1)


def _counted(node: ast.AST) -> ast.expr | None:
    """The tensor whose axes `node` counts (`x` of `x.dim()`, `x.ndimension()`, `x.ndim`, `len(x.shape)`); else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("dim", "ndimension"):
        return node.func.value if not node.args and not node.keywords else None
    if isinstance(node, ast.Attribute) and node.attr == "ndim" and isinstance(node.ctx, ast.Load):
        return node.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1
            and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "shape"):
        return node.args[0].value
    return None


def _sized(tensor: ast.expr, axis: int) -> ast.Call:
    return ast.Call(ast.Attribute(tensor, "size", ast.Load()), [ast.Constant(axis)], [])


def dim_count_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `dim_for_size` changes of `fdef` (the module's docstring); each change's arg is the size read, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or (tensor := _counted(node)) is None:
            continue
        for axis in _AXES:
            made = ast.unparse(_sized(tensor, axis))
            found.append(Change(fdef.name, index[id(node)], "dim_for_size", made, "function",
                                f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def dim_count_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `dim_for_size` change mends, in words."""
    if change.op != "dim_for_size" or (tensor := _counted(node)) is None:
        return None
    return (f"`{quote(node)}` is how many AXES `{quote(tensor)}` has, not how long one of them is; the length of an "
            f"axis is `{change.arg}`")
