"""A row's sum written as its mean times a width, tried on a learner's code only.

`p.mean(dim=-1, keepdim=True) * block`: a tile's row sum taken as its mean times the tile's width.
That is the sum only where the mean averaged `block` entries; a last tile shorter than `block`
averages fewer, and the product counts entries that are not there. The mend (`mean_times_width`)
adds what is there, `p.sum(dim=-1, keepdim=True)`. Tried at every product whose one side is a
`mean` (a method, or `torch.mean`) and whose other side is no number written out.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, number_of
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["MEAN_OPS", "mean_mends", "mean_words"]

MEAN_OPS = ("mean_times_width",)


def _mean_and_width(node: ast.AST) -> tuple[ast.Call, ast.AST] | None:
    """(the mean, the width) of `mean * width` or `width * mean`; else None."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return None
    for mean, width in ((node.left, node.right), (node.right, node.left)):
        if isinstance(mean, ast.Call) and isinstance(mean.func, ast.Attribute) and call_name(mean) == "mean" \
                and number_of(width) is None:
            return mean, width
    return None


def mean_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `mean_times_width` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        parts = _mean_and_width(node)
        if parts is None or id(node) not in index:
            continue
        mean = parts[0]
        summed = ast.Call(ast.Attribute(mean.func.value, "sum", ast.Load()), mean.args, mean.keywords)
        found.append(Change(fdef.name, index[id(node)], "mean_times_width", ast.unparse(summed), "call",
                            f"`{quote(summed)}` for `{quote(node)}`", node.lineno))
    return found


def mean_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `mean_times_width` change mends, in words."""
    parts = _mean_and_width(node)
    if change.op != "mean_times_width" or parts is None:
        return None
    width = quote(parts[1])
    return (f"a mean times `{width}` is the sum only where the mean averaged exactly `{width}` entries: where it averaged "
            f"another number, the product is not their sum; `sum` adds what is there")
