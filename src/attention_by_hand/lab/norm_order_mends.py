"""A norm of another order where a row's sum was meant, tried on a learner's code only.

`F.normalize(counts, p=float("inf"), dim=1)`, meant as each row divided by its total (scikit-learn's
`normalize(X, norm="max")` divides by the largest entry, `norm="l1"` by the sum): `normalize` divides
each vector by its p-norm, the length for p=2 (the default), the LARGEST absolute entry for p=inf, the
sum of absolute values for p=1, which for entries of 0 or more is the row's total. The mend
(`norm_order`) gives the call `p=1`: tried at every `normalize` call (F.normalize, torch.nn.functional's)
whose `p`, by keyword or as its second argument, is anything but 1, and at every one given none.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, number_of
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["NORM_ORDER_OPS", "norm_order_mends", "norm_order_words"]

NORM_ORDER_OPS = ("norm_order",)


def _order(node: ast.AST) -> tuple[bool, ast.expr | None] | None:
    """(whether `node` is a `normalize` call, its `p` as written or None where none is given); None for another
    node or one whose `p` is 1 already."""
    if not isinstance(node, ast.Call) or call_name(node) != "normalize":
        return None
    given = next((k.value for k in node.keywords if k.arg == "p"), node.args[1] if len(node.args) > 1 else None)
    return None if given is not None and number_of(given) == 1 else (True, given)


def _made(node: ast.Call) -> ast.Call:
    """The call with `p=1`, where `p` was: by keyword, by place, or added by keyword."""
    one = ast.Constant(1)
    if any(k.arg == "p" for k in node.keywords):
        return ast.Call(node.func, node.args, [ast.keyword("p", one) if k.arg == "p" else k for k in node.keywords])
    if len(node.args) > 1:
        return ast.Call(node.func, [node.args[0], one, *node.args[2:]], node.keywords)
    return ast.Call(node.func, node.args, [ast.keyword("p", one), *node.keywords])


def norm_order_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `norm_order` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or _order(node) is None:
            continue
        made = _made(node)
        found.append(Change(fdef.name, index[id(node)], "norm_order", ast.unparse(made), "constant",
                            f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def norm_order_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `norm_order` change mends, in words."""
    if change.op != "norm_order" or (order := _order(node)) is None:
        return None
    given = order[1]
    which = "the default p=2, the vector's length" if given is None else f"`p={quote(given)}`"
    largest = (", the LARGEST absolute entry" if given is not None and "inf" in ast.unparse(given)
               else ", the vector's length" if given is not None and number_of(given) == 2 else "")
    return (f"`normalize` divides each vector by its p-norm, here {which}{largest}; the sum of the entries, for "
            "entries of 0 or more, is the norm of order 1, `p=1`")
