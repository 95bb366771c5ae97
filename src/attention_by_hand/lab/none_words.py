"""A None on the line that raised, read off the learner's values: which name or attribute it is.

`merged @ proj.weight + proj.bias` raises "unsupported operand type(s) for +: 'Tensor' and
'NoneType'" when `proj` was made with `bias=False`: torch's words say that something on the line
is None, not which. The child (calls.py) evaluates the names and attribute chains the raising
line reads, in the learner's frame, and says the one that is None; where it is a layer's `bias`,
that the layer has none. Said only where exactly one of them is None.

Left out: a None made by a call on the line (`f(x) + 1`, where f returns nothing): calls are not
made again here, since that would run the learner's code a second time.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from attention_by_hand.lab.broadcast_words import learner_frame_and_line, line_tree

__all__ = ["none_read"]


def _chains(line: str) -> list[ast.expr]:
    """The names and the attribute chains of names (`proj.bias`, `self.proj.bias`) the line reads."""
    tree = line_tree(line)
    found = []
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name):
                found.append(node)
    return found


_MISSING = object()


def _value(node: ast.expr, frame):
    """The value of a name or an attribute chain in the frame, or _MISSING (no call is made but
    the attribute lookups themselves)."""
    if isinstance(node, ast.Name):
        for space in (frame.f_locals, frame.f_globals, vars(builtins)):
            if node.id in space:
                return space[node.id]
        return _MISSING
    owner = _value(node.value, frame)
    if owner is _MISSING or owner is None:
        return _MISSING
    return getattr(owner, node.attr, _MISSING)


def none_read(tb, learner: Path, message: str) -> str | None:
    """Words for the one name or attribute that is None on the learner's line that raised a
    TypeError about a NoneType; None where the line does not show exactly one. Nothing a
    learner's object does when asked an attribute may stop the calls that follow."""
    try:
        return _none_read(tb, learner, message)
    except Exception:  # noqa: BLE001 - a property of the learner's that raises: nothing said
        return None


def _none_read(tb, learner: Path, message: str) -> str | None:
    if "NoneType" not in message:
        return None
    got = learner_frame_and_line(tb, learner)
    if got is None:
        return None
    frame, line = got
    nones = {ast.unparse(n): n for n in _chains(line) if _value(n, frame) is None}
    if len(nones) != 1:
        return None
    text, node = next(iter(nones.items()))
    import torch

    owner = _value(node.value, frame) if isinstance(node, ast.Attribute) else None
    if isinstance(node, ast.Attribute) and node.attr == "bias" and isinstance(owner, torch.nn.Module):
        layer = ast.unparse(node.value)
        return (f"`{text}` is None: `{layer}` was made with bias=False and has no bias to add; "
                f"`{layer}(x)` applies the layer, weight and bias (where it has one) alike")
    return f"`{text}` is None on this line"
