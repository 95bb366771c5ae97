"""A 1-D tensor that broadcasting lined up with the wrong axis, read off the line that raised.

`outs * keep`, with `outs` of shape (B, heads, T, d) and `keep` one number per head, (heads,):
broadcasting lines a tensor's axes up from the right, so `keep`'s one axis meets `outs`'s last,
d, and torch refuses ("the size of tensor a (4) must match the size of tensor b (3) at
non-singleton dimension 3"), or, where d happens to equal the heads, scales the channels instead.
torch's words give two sizes; this says which tensor of the line is the 1-D one, which axis of
the other it was meant for, and how to shape it for that axis. The child (calls.py) reads the
learner's line and its values where the error was raised, and the hint carries the words.

Said only when the line reads exactly one 1-D tensor of one of the two sizes in the error, and
one tensor of more axes whose last axis is not of that size but exactly one other axis is.
"""

from __future__ import annotations

import re
import traceback
from pathlib import Path

from attention_by_hand.lab.judging import mismatched_sizes

__all__ = ["misaligned_vector"]


def _learner_frame(tb, learner: Path):
    """The innermost frame of the learner's file in a traceback, with its line's text; or None."""
    found = None
    for frame, _ in traceback.walk_tb(tb):
        if Path(frame.f_code.co_filename).resolve() == learner:
            found = frame
    if found is None:
        return None
    summary = traceback.extract_stack(found, limit=1)[-1]
    return found, summary.line or ""


def misaligned_vector(tb, learner: Path, message: str) -> str | None:
    """Words for a broadcasting error raised on the learner's line by a 1-D tensor meant for an
    axis other than the last; None where the line does not show that for certain."""
    import torch

    sizes = mismatched_sizes(message)
    got = _learner_frame(tb, learner) if sizes else None
    if got is None:
        return None
    frame, line = got
    read = dict.fromkeys(re.findall(r"[A-Za-z_]\w*", line))
    tensors = {n: frame.f_locals[n] for n in read if isinstance(frame.f_locals.get(n), torch.Tensor)}
    vectors = [(n, t) for n, t in tensors.items() if t.dim() == 1 and t.shape[0] in sizes]
    if len(vectors) != 1:
        return None
    name, vector = vectors[0]
    size = vector.shape[0]
    wider = [(n, t) for n, t in tensors.items() if t.dim() >= 2 and t.shape[-1] != size
             and sum(s == size for s in t.shape) == 1]
    if len(wider) != 1:
        return None
    other, tensor = wider[0]
    axis = list(tensor.shape).index(size)
    nones = ", ".join(["None"] * (tensor.dim() - 1 - axis))
    return (f"`{name}` is 1-D, of size {size}, and broadcasting lines its one axis up with the last axis of "
            f"`{other}` {tuple(tensor.shape)}, not with axis {axis}, the one of size {size}; shaped for that axis, "
            f"`{name}[:, {nones}]`, it meets that axis")
