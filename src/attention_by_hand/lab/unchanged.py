"""Whether an argument is as it was before a call: a learner's function that writes into its inputs
(`x += ...` on the tensor it was given) changes what the caller holds, and the checker says so
(calls.py), and a function right only with the reference's helpers must leave its inputs as they
were too (helped.py).

Left out: objects other than tensors, modules, tuples, lists and plain values (compared with `==`).
"""

from __future__ import annotations

__all__ = ["same"]


def same(before, after) -> bool:
    """Whether an argument is as it was before the call: tensors, modules' weights, lists, values."""
    import torch
    import torch.nn as nn

    if isinstance(before, torch.Tensor):
        if not isinstance(after, torch.Tensor) or before.shape != after.shape or before.dtype != after.dtype:
            return False
        equal = before == after
        if before.is_floating_point():
            equal |= before.isnan() & after.isnan()  # NaN != NaN, yet an input's NaN left alone is unchanged
        return bool(equal.all())
    if isinstance(before, nn.Module):
        old, new = before.state_dict(), after.state_dict()
        return old.keys() == new.keys() and all(same(old[k], new[k]) for k in old)
    if isinstance(before, (tuple, list)):
        return len(before) == len(after) and all(same(b, a) for b, a in zip(before, after))
    return before == after
