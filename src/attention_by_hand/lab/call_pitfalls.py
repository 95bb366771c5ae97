"""Pitfalls of calls whose defaults read otherwise than they look, read off a learner's function
(pitfalls.py says them with the rest, when its check fails).

- `torch.tensordot(a, b)` with no `dims`: the default is 2, so it contracts the last two axes of
  `a` with the first two of `b`; two matrices give one number, not their product.
- `torch.take(x, ids)` (or `x.take(ids)`): `x` is read as one flat row, its rows end to end, so
  `ids` are positions in `x.flatten()`, not one column of each row.
- `torch.cat(x.split(1), dim=-1)` (or of `chunk`): each piece keeps the axis it was cut from, with
  size 1, so joined along another axis, the result keeps that axis too; `unbind` drops it.
  Said where split's axis is the first (its default, or 0) and cat's is written as another.

Each is said where the call is written so; whether it was the mistake, the failing check says.
"""

from __future__ import annotations

import ast

__all__ = ["call_pitfalls"]


def _called(node: ast.Call, name: str) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == name


def _torch_form(node: ast.Call) -> bool:
    return isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"


def _axis(node: ast.Call, position: int) -> object:
    """The axis a call is given (by keyword or at `position`), as written; 0 where it is left out."""
    for k in node.keywords:
        if k.arg == "dim":
            return ast.literal_eval(k.value) if isinstance(k.value, (ast.Constant, ast.UnaryOp)) else None
    if len(node.args) > position:
        given = node.args[position]
        return ast.literal_eval(given) if isinstance(given, (ast.Constant, ast.UnaryOp)) else None
    return 0


def _pieces_of_one(node: ast.expr) -> ast.Call | None:
    """`x.split(1)` or `x.chunk(n)` along the first axis (a method, so its axis is argument 1)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("split", "chunk")
            and not _torch_form(node) and node.args and _axis(node, 1) == 0):
        size = node.args[0]
        if node.func.attr == "chunk" or (isinstance(size, ast.Constant) and size.value == 1):
            return node
    return None


def call_pitfalls(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    found = []
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Call):
            continue
        code = ast.unparse(node)
        if _called(node, "tensordot") and _torch_form(node) and len(node.args) == 2 and not node.keywords:
            a, b = (ast.unparse(x) for x in node.args)
            found.append((node.lineno, f"`{code}` ({{0}}) is given no `dims`: the default, 2, contracts the last two "
                                       f"axes of `{a}` with the first two of `{b}`, so two matrices give one number; "
                                       f"a matrix product is `{a} @ {b}` (or `dims=1`)", [node.lineno]))
        if _called(node, "take") and ((_torch_form(node) and len(node.args) == 2) or (not _torch_form(node) and len(node.args) == 1)):
            x = ast.unparse(node.args[0] if _torch_form(node) else node.func.value)
            ids = ast.unparse(node.args[-1])
            found.append((node.lineno, f"`{code}` ({{0}}) reads `{x}` as one flat row, its rows end to end: `{ids}` are "
                                       f"positions in `{x}.flatten()`, not one column of each row; one entry per row "
                                       f"is `{x}.gather(-1, {ids}[..., None])`", [node.lineno]))
        pieces = _pieces_of_one(node.args[0]) if _called(node, "cat") and _torch_form(node) and node.args else None
        if pieces is not None and isinstance(_axis(node, 1), int) and _axis(node, 1) != 0:
            cut = ast.unparse(pieces)
            found.append((node.lineno, f"`{code}` ({{0}}) joins the pieces of `{cut}`, and each keeps the axis it was "
                                       f"cut from, with size 1: joined along another axis, the result keeps it too "
                                       f"(a leading axis of size 1); `{ast.unparse(pieces.func.value)}.unbind(0)` "
                                       f"gives pieces without it", [node.lineno]))
    return found
