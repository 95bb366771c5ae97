"""The shapes of the tensors a raising line reads, off the learner's values where it raised.

torch's size error names two sizes, not the tensors that have them; a lab's words for the error
(each lab's `explain_error`) may read a cause into the sizes alone. Lab 02's softmax reads a size
equal to the number of rows as a row's maximum or sum that lost its axis (`keepdim=True` left out):
true where the line reads the scores and such a (rows,) vector, false where it reads a tensor of
another shape whose size there happens to be the rows' (`cummax(...)[0][..., 1:]` keeps n - 1
columns, and with 2 rows and 3 columns n - 1 is 2). The child (calls.py) reads the shapes, the
check's words weigh them: {name: shape} of each tensor the raising line's statement reads by name.
"""

from __future__ import annotations

from pathlib import Path

from attention_by_hand.lab.broadcast_words import learner_frame_and_line, names_read

__all__ = ["read_shapes"]


def read_shapes(tb, learner: Path) -> dict[str, list[int]]:
    """{name: shape} of the tensors the statement of the learner's raising line reads; {} where the line
    cannot be read or a value misbehaves when asked its shape."""
    import torch

    try:
        got = learner_frame_and_line(tb, learner)
        if got is None:
            return {}
        frame, line = got
        values = {n: frame.f_locals.get(n, frame.f_globals.get(n)) for n in names_read(line)}
        return {n: list(v.shape) for n, v in values.items() if isinstance(v, torch.Tensor)}
    except Exception:  # noqa: BLE001 - nothing said of a value that cannot be read
        return {}
