"""Which plain integer arguments of a call are axes: the numbers a mutant changes as an axis
(mutants.py tries -1, -2, 0, 1 and 2 for each), not as a count or a size.

Most calls take their axis after the tensor, wherever it comes: `x.sum(1)`, `torch.cat(ts, 1)`,
`x.transpose(0, 1)`: every plain integer they are given is an axis (`AXIS_CALLS`), except a count,
a size, a shift or an order (`x.split(2)`, `torch.roll(x, 1, 0)`, `x.norm(2, -1)`). The indexing
calls take their axis first and then numbers that are no axis: `x.index_fill(1, ids, 0)` fills
with 0, `x.narrow(0, start, n)`. Only their first argument (their second, written as
`torch.index_fill(x, 1, ...)`) is an axis (`AXIS_FIRST`): `outs.index_fill(-1, [h], 0)`, typed -1
where the heads' axis 1 was meant, is then one change away from its mend.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name

__all__ = ["AXIS_CALLS", "AXIS_FIRST", "axis_argument"]

# methods and functions whose plain integer arguments are axes
AXIS_CALLS = {
    "softmax", "log_softmax", "sum", "mean", "max", "min", "amax", "amin", "argmax", "var", "std",
    "cat", "stack", "split", "chunk", "transpose", "cumsum", "logsumexp", "norm", "unsqueeze", "squeeze",
    "flip", "roll", "size", "swapaxes", "swapdims", "movedim", "moveaxis", "unbind", "cumprod", "logcumsumexp",
    "cummax", "cummin",
}
# whose first argument alone is an axis (an in-place `_` variant alike)
AXIS_FIRST = {"index_fill", "index_select", "index_add", "index_copy", "gather", "scatter", "scatter_add", "narrow"}


def axis_argument(call: ast.Call, node: ast.AST) -> bool:
    """Whether `node`, one of `call`'s positional arguments, is an axis."""
    name = call_name(call)
    # `torch.f(x, ...)` gives the tensor first: its arguments come one place later than a method's
    functional = isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "torch"
    if name in AXIS_CALLS:
        # a piece's size, a count of pieces, a shift, a norm's order
        return not (name in ("split", "chunk", "roll", "norm") and call.args.index(node) == int(functional))
    if (name or "").rstrip("_") in AXIS_FIRST:
        return call.args.index(node) == int(functional)
    return False
