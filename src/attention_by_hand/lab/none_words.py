"""A None on the line that raised, read off the learner's values: which name or attribute it is.

`merged @ proj.weight + proj.bias` raises "unsupported operand type(s) for +: 'Tensor' and
'NoneType'" when `proj` was made with `bias=False`: torch's words say that something on the line
is None, not which. The child (calls.py) evaluates, in the learner's frame, the names and
attribute chains of the raising line that torch's words point at (the operands of the operator
it names, on the side it names; what was indexed, called or asked an attribute of) and says the
one that is None; where it is a layer's `bias`, that the layer has none. Said only where exactly
one of them is None; a None given to a call as an argument (which the call may allow) is never
suspected.

A plain number indexed is the same slip in another guise: `dq = dk = dv = 0`, then `dq[..., rows, :]
+= ...`, raises "'int' object is not subscriptable"; the one name indexed on the line that holds a
number is said, with what can be indexed and added into.

Left out: a None made by a call on the line (`f(x) + 1`, where f returns nothing): calls are not
made again here, since that would run the learner's code a second time.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from attention_by_hand.lab.broadcast_words import learner_frame_and_line, line_tree, quietly
from attention_by_hand.lab.mutant_edits import OPS

__all__ = ["none_read", "value_of"]


_OPERANDS = re.compile(r"unsupported operand type\(s\) for ([^:]+): '(\w+)' and '(\w+)'")
_SYMBOLS = {**OPS, ast.Mod: "%", ast.BitXor: "^"}  # as Python's error names each operator


def _chain(node: ast.expr) -> bool:
    """A name, or an attribute chain of a name (`proj.bias`, `self.proj.bias`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _suspects(line: str, message: str) -> list[ast.expr]:
    """The names and attribute chains on the line that the error's own words say may be None: the
    operands of the operator it names, on the side it names; what was indexed, called or asked an
    attribute of. Nothing for other words (a None given as an argument may be allowed there)."""
    tree = line_tree(line)
    if tree is None:
        return []
    nodes = list(ast.walk(tree))
    operands = _OPERANDS.search(message)
    if operands:
        symbol, left, right = operands.group(1).strip(), operands.group(2), operands.group(3)
        found = []
        for n in nodes:
            if isinstance(n, ast.BinOp) and _SYMBOLS.get(type(n.op)) == symbol:
                found += [side for side, kind in ((n.left, left), (n.right, right)) if kind == "NoneType"]
            if isinstance(n, ast.AugAssign) and _SYMBOLS.get(type(n.op)) == symbol.rstrip("="):
                found += [side for side, kind in ((n.target, left), (n.value, right)) if kind == "NoneType"]
        return [n for n in found if _chain(n)]
    if re.search(r"'(NoneType|int|float)' object is not subscriptable", message):
        return [n.value for n in nodes if isinstance(n, ast.Subscript) and _chain(n.value)]
    if "'NoneType' object is not callable" in message:
        return [n.func for n in nodes if isinstance(n, ast.Call) and _chain(n.func)]
    attribute = re.search(r"'NoneType' object has no attribute '(\w+)'", message)
    if attribute:
        return [n.value for n in nodes if isinstance(n, ast.Attribute) and n.attr == attribute.group(1) and _chain(n.value)]
    return []


_MISSING = object()


def value_of(node: ast.expr, frame):
    """The value of a name or an attribute chain in the frame, or _MISSING (no call is made but
    the attribute lookups themselves; any other expression is not read)."""
    if not _chain(node):
        return _MISSING
    if isinstance(node, ast.Name):
        for space in (frame.f_locals, frame.f_globals, vars(builtins)):
            if node.id in space:
                return space[node.id]
        return _MISSING
    owner = value_of(node.value, frame)
    if owner is _MISSING or owner is None:
        return _MISSING
    return getattr(owner, node.attr, _MISSING)


def none_read(tb, learner: Path, message: str) -> str | None:
    """Words for the one name or attribute that is None on the learner's line that raised a
    TypeError about a NoneType; None where the line does not show exactly one. Nothing a
    learner's object does when asked an attribute may stop the calls that follow."""
    return quietly(_none_read, tb, learner, message)


def _none_read(tb, learner: Path, message: str) -> str | None:
    number = re.search(r"'(int|float)' object is not subscriptable", message)
    if "NoneType" not in message and not number:
        return None
    got = learner_frame_and_line(tb, learner)
    if got is None:
        return None
    frame, line = got
    if number:  # the one name indexed on the line that holds a plain number (not a bool)
        kind = int if number.group(1) == "int" else float
        numbers = {ast.unparse(n): v for n in _suspects(line, message) if type(v := value_of(n, frame)) is kind}
        if len(numbers) != 1:
            return None
        (text, value), = numbers.items()
        said = f"`{text}` is the number {value!r} here, not a tensor, and a number has no entries to index"
        # a 0 is where a sum starts: a tensor of zeros is what it was meant to be (a size indexed, `T[0]`, is not)
        return said + (" or add into: a tensor of zeros (`torch.zeros(...)`, `torch.zeros_like(...)`) has" if value == 0 else "")
    nones = {ast.unparse(n): n for n in _suspects(line, message) if value_of(n, frame) is None}
    if len(nones) != 1:
        return None
    text, node = next(iter(nones.items()))
    import torch

    owner = value_of(node.value, frame) if isinstance(node, ast.Attribute) else None
    if isinstance(node, ast.Attribute) and node.attr == "bias" and isinstance(owner, torch.nn.Module):
        layer = ast.unparse(node.value)
        return (f"`{text}` is None: `{layer}` was made without a bias (`bias=False`) and has none to add; "
                f"`{layer}(x)` applies the layer, weight and bias (where it has one) alike")
    return f"`{text}` is None on this line"
