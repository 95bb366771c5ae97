"""Pitfalls of calls whose results read otherwise than they look, read off a learner's function
(pitfalls.py says them with the rest, when its check fails).

- `torch.cat(x.split(1), dim=-1)`: each piece keeps the axis it was cut from, with size 1, so
  joined along another axis, the result keeps that axis too; `unbind` drops it. Said where split
  cuts pieces of 1 along the first axis (its default, or 0), cat joins them along another axis
  written as a number, and the joined tensor is used as it is (not indexed, squeezed, viewed or
  reshaped after, which may take the axis away).

What `take` and `tensordot` do is said where the values part at their line (call_words.py), since
either may be called rightly; tensordot's own error is glossed (judging.py).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import parents as parents_in

__all__ = ["call_pitfalls"]


def _called(node: ast.Call, name: str) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == name


def _torch_form(node: ast.Call) -> bool:
    return isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"


def _axis(node: ast.Call, position: int) -> int | None:
    """The axis a call is given (by keyword or at `position`) when written as a whole number; 0
    where it is left out; None otherwise (a name, `-d`)."""
    given = next((k.value for k in node.keywords if k.arg == "dim"), node.args[position] if len(node.args) > position else None)
    if given is None:
        return 0
    try:
        value = ast.literal_eval(given)
    except ValueError:
        return None
    return value if type(value) is int else None


def _bracketed(node: ast.expr) -> str:
    """The code of `node`, bracketed where an attribute put after it would bind to its last part."""
    code = ast.unparse(node)
    return code if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else f"({code})"


def _pieces_of_one(node: ast.expr) -> ast.Call | None:
    """`x.split(1)` along the first axis (a method, so its axis is argument 1)."""
    if (isinstance(node, ast.Call) and _called(node, "split") and not _torch_form(node) and node.args
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == 1 and _axis(node, 1) == 0):
        return node
    return None


def call_pitfalls(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    found = []
    parent_of = parents_in(fdef)
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Call) and _called(node, "cat") and _torch_form(node) and node.args):
            continue
        pieces = _pieces_of_one(node.args[0])
        axis = _axis(node, 1)
        parent = parent_of.get(id(node))
        # `torch.cat(...)[0]`, `.squeeze(0)`, `.view(...)`: the axis may be taken away after
        used_after = isinstance(parent, ast.Subscript) or (isinstance(parent, ast.Attribute) and parent.value is node)
        if pieces is None or axis is None or axis == 0 or used_after:
            continue
        whole = _bracketed(pieces.func.value)
        found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) joins the pieces of `{ast.unparse(pieces)}`, and each "
                                   f"keeps the axis it was cut from, with size 1: joined along another axis, the result "
                                   f"keeps it too (a leading axis of size 1); `{whole}.unbind(0)` gives pieces without it",
                      [node.lineno]))
    return found
