"""When a mended function's output counts as the reference's: repair.py keeps a mend only where it does on
every input the check tried. Its numbers within the checker's tolerance, its shapes, and its dtype, or a
float of more digits than the reference's, which the judges accept too (judging.py): `sinusoidal_table`
built from float64 angles returns float64 where the reference makes float32, and a mend of its bracket
makes every check pass, so it is said.
"""

from __future__ import annotations

import torch

from attention_by_hand.lab.blame import output_close
from attention_by_hand.lab.outcomes import Raised

__all__ = ["mend_right"]


def mend_right(got, expected) -> bool:
    """The reference's output: its numbers within the checker's tolerance, its shapes and dtypes (a float of more
    digits than the reference's too, which the judges accept: float64 where float32 is made)."""
    if isinstance(got, Raised):
        return False
    if isinstance(expected, torch.Tensor):
        return isinstance(got, torch.Tensor) and _dtype_right(got.dtype, expected.dtype) and output_close(got, expected)
    if isinstance(expected, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(expected)
                and all(mend_right(g, e) for g, e in zip(got, expected)))
    try:
        return output_close(got, expected)
    except (RuntimeError, TypeError, ValueError):  # a tensor against a plain bool: no truth value, not the same
        return False


def _dtype_right(got: torch.dtype, expected: torch.dtype) -> bool:
    return got == expected or (got.is_floating_point and expected.is_floating_point
                               and torch.finfo(got).eps < torch.finfo(expected).eps)
