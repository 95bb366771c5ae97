"""A 1-D tensor that broadcasting lined up with the wrong axis, read off the line that raised.

`outs * keep`, with `outs` of shape (B, heads, T, d) and `keep` one number per head, (heads,):
broadcasting lines a tensor's axes up from the right, so `keep`'s one axis meets `outs`'s last,
d, and torch refuses ("the size of tensor a (4) must match the size of tensor b (3) at
non-singleton dimension 3"), or, where d happens to equal the heads, scales the channels instead.
torch's words give two sizes; this says which tensor of the line is the 1-D one, which axis of
the other it was meant for, and how to shape it for that axis. The child (calls.py) reads the
learner's line and its values where the error was raised, and the hint carries the words.

Said only when the two sizes in the error are those of a 1-D tensor the line's statement reads and
of the last axis of one other tensor it reads, which has exactly one other axis of the vector's
size, the two names being the two sides of one operation there (`w[tokens] + w[pos]` met what they
index, not the names: a range one short raises alike); either mistake may have been made (the
vector's shape, or the other tensor's order of axes), so both are said.
"""

from __future__ import annotations

import ast
import traceback
from pathlib import Path

from attention_by_hand.lab.judging import mismatched_sizes

__all__ = ["learner_frame_and_line", "line_tree", "misaligned_vector", "names_read", "quietly"]


def learner_frame_and_line(tb, learner: Path):
    """The innermost frame of the learner's file in a traceback, with its line's text; or None."""
    found = None
    for frame, _ in traceback.walk_tb(tb):
        if Path(frame.f_code.co_filename).resolve() == learner:
            found = frame
    if found is None:
        return None
    summary = traceback.extract_stack(found, limit=1)[-1]
    return found, summary.line or ""


def line_tree(line: str) -> ast.AST | None:
    """The line's statement parsed (a loop's or a branch's header, a `return`'s value alike); None
    when the line is no whole statement."""
    text = line.strip().rstrip(":")
    for source in (text, text.removeprefix("return ")):
        try:
            return ast.parse(source)
        except SyntaxError:
            continue
    return None


def names_read(line: str) -> list[str]:
    """The names the line's statement reads (not attributes, not words in a comment); [] when the
    line is no whole statement."""
    tree = line_tree(line)
    if tree is None:
        return []
    return list(dict.fromkeys(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)))


def _met(line: str, a: str, b: str) -> bool:
    """Whether the names `a` and `b` are the two sides of one operation of the line (`outs * keep`,
    `x += g`), so that broadcasting met the two tensors themselves."""
    tree = line_tree(line)
    pairs = [(n.left, n.right) for n in ast.walk(tree) if isinstance(n, ast.BinOp)] if tree is not None else []
    pairs += [(n.target, n.value) for n in ast.walk(tree) if isinstance(n, ast.AugAssign)] if tree is not None else []
    return any({getattr(x, "id", None), getattr(y, "id", None)} == {a, b} for x, y in pairs)


def misaligned_vector(tb, learner: Path, message: str) -> str | None:
    """Words for a broadcasting error raised on the learner's line by a 1-D tensor that met the last
    axis of another where one other axis has its size; None where the line does not show that for
    certain (the two sizes in the error must be the vector's and that last axis's). It reads the
    learner's values in the child, so nothing it meets may stop the calls that follow."""
    return quietly(_misaligned_vector, tb, learner, message)


def quietly(read, tb, learner: Path, message: str) -> str | None:
    """`read(tb, learner, message)`, or None where it raises: a reader of the learner's values in
    the child meets the learner's objects, and one that misbehaves when asked its shape or an
    attribute may not stop the calls that follow."""
    try:
        return read(tb, learner, message)
    except Exception:  # noqa: BLE001 - nothing said of a value that cannot be read
        return None


def _misaligned_vector(tb, learner: Path, message: str) -> str | None:
    import torch

    sizes = mismatched_sizes(message)
    got = learner_frame_and_line(tb, learner) if sizes else None
    if got is None:
        return None
    frame, line = got
    tensors = {n: frame.f_locals[n] for n in names_read(line) if isinstance(frame.f_locals.get(n), torch.Tensor)}
    vectors = [(n, t) for n, t in tensors.items() if t.dim() == 1 and t.shape[0] in sizes]
    if len(vectors) != 1:
        return None
    name, vector = vectors[0]
    size = vector.shape[0]
    wider = [(n, t) for n, t in tensors.items() if t.dim() >= 2 and {size, t.shape[-1]} == set(sizes)
             and t.shape[-1] != size and sum(s == size for s in t.shape) == 1]
    if len(wider) != 1:
        return None
    other, tensor = wider[0]
    if not _met(line, name, other):
        return None  # `w[tokens] + w[pos]`: the names are no operands of one operation, what they index met
    axis = list(tensor.shape).index(size)
    placed = [size if a == axis else 1 for a in range(axis, tensor.dim())]
    try:
        torch.broadcast_shapes(tuple(vector.shape), tuple(tensor.shape))
        return None  # they broadcast: the error came from another pair on the line
    except RuntimeError:
        pass
    try:
        torch.broadcast_shapes(tuple(placed), tuple(tensor.shape))
    except RuntimeError:
        return None
    nones = ", ".join(["None"] * (tensor.dim() - 1 - axis))
    return (f"`{name}` is 1-D, of size {size}, and broadcasting lines its one axis up with the last axis of "
            f"`{other}` {tuple(tensor.shape)}; to meet axis {axis}, the one of size {size}, it needs that axis's place, "
            f"`{name}[:, {nones}]`; if it is meant for the last axis, `{other}`'s axes are not in the order meant")
