"""A slice with bounds that lands on an axis of length 1, read off the line that raised.

`D[..., i0:i1]` where `D` kept a last axis of length 1 (`sum(dim=-1, keepdim=True)`): after `...` a
slice cuts the LAST axis, so it keeps that one entry (when i0 is 0) or none, and the rows, the
axis before it, are never cut; the sizes then fail to line up further on. torch's words give two
sizes; this says which slice of the line cut which axis. The child (calls.py) reads the learner's
line and its values where a size error was raised, and the hint carries the words.

Said only when the line's statement slices a tensor it reads, with a bound that is not a number,
on an axis of length 1 while another axis of that tensor has one of the error's sizes, and the
slice, its bounds read off the learner's values, would take more than one entry: `s[:, h:h + 1]`
with one head cuts its axis rightly. A subscript that holds a `*` or a tensor (whose axes it takes
cannot be read off the line) is left alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

from attention_by_hand.lab.broadcast_words import learner_frame_and_line, line_tree, quietly
from attention_by_hand.lab.judging import mismatched_sizes

__all__ = ["unit_slice"]


def _axes(parts: list[ast.AST], ndim: int) -> list[tuple[int, ast.Slice]]:
    """(axis, slice) for each slice among a subscript's parts: counted from the left before a
    `...`, from the right after it; None (a new axis) takes no axis of the tensor. [] where a part
    is starred (how many axes it takes is not written)."""
    if sum(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts) > 1 or any(isinstance(p, ast.Starred) for p in parts):
        return []
    cut = next((i for i, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is Ellipsis), len(parts))
    takes = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None)]
    found = []
    for side, start in ((parts[:cut], 0), (parts[cut + 1:], None)):
        real = [p for p in side if p in takes]
        first = start if start is not None else ndim - len(real)
        found += [(first + k, p) for k, p in enumerate(real) if isinstance(p, ast.Slice)]
    return found


def _bounded(piece: ast.Slice) -> bool:
    """A slice with a bound that is not a number (`i0:i1`, `j:j + block`)."""
    return any(b is not None and not isinstance(b, ast.Constant) for b in (piece.lower, piece.upper))


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)


def _number(node: ast.AST | None, values: dict, default: int) -> int | None:
    """A bound's whole number from the frame's values: names, numbers and + - * // of them only
    (no call is made); None where it cannot be read so."""
    if node is None:
        return default
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        value = values.get(node.id)
        return value if type(value) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand, values, default)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left, right = _number(node.left, values, default), _number(node.right, values, default)
        if left is None or right is None or (isinstance(node.op, ast.FloorDiv) and right == 0):
            return None
        if isinstance(node.op, ast.FloorDiv):
            return left // right
        return left + right if isinstance(node.op, ast.Add) else left - right if isinstance(node.op, ast.Sub) else left * right
    return None


def _takes_more_than_one(piece: ast.Slice, values: dict) -> bool:
    """Whether the slice's bounds, read off the frame's values, span more than one entry."""
    lower, upper = _number(piece.lower, values, 0), _number(piece.upper, values, 0)
    return piece.step is None and lower is not None and upper is not None and piece.upper is not None and upper - lower > 1


def unit_slice(tb, learner: Path, message: str) -> str | None:
    """Words for a size error raised on the learner's line that holds a slice with bounds on an
    axis of length 1; None where the line does not show one. Reads the learner's values in the
    child, so nothing it meets may stop the calls that follow."""
    return quietly(_unit_slice, tb, learner, message)


def _unit_slice(tb, learner: Path, message: str) -> str | None:
    import torch

    sizes = mismatched_sizes(message)
    got = learner_frame_and_line(tb, learner) if sizes else None
    tree = line_tree(got[1]) if got else None
    if tree is None:
        return None
    frame = got[0]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            continue
        tensor = frame.f_locals.get(node.value.id)
        if not isinstance(tensor, torch.Tensor) or not set(sizes) & set(tensor.shape):
            continue
        parts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(frame.f_locals.get(n.id), torch.Tensor) for p in parts for n in ast.walk(p) if isinstance(n, ast.Name)):
            continue  # a tensor as an index (a mask, a list of rows): which axes it takes is not on the line
        after = [i > next((k for k, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is Ellipsis), len(parts))
                 for i in range(len(parts))]
        for axis, piece in _axes(parts, tensor.dim()):
            if 0 <= axis < tensor.dim() and tensor.shape[axis] == 1 and _bounded(piece) and _takes_more_than_one(piece, frame.f_locals):
                place = "the last axis" if axis == tensor.dim() - 1 else f"axis {axis}"
                behind = after[next(i for i, p in enumerate(parts) if p is piece)]
                return (f"`{ast.unparse(node)}` cuts {place} of `{node.value.id}` {tuple(tensor.shape)}, which has length 1 "
                        f"(an axis kept by `keepdim=True`, say): the slice keeps that one entry or none, and the axis "
                        f"meant is another" + (" (after `...` a slice cuts the last axes)" if behind else ""))
    return None
