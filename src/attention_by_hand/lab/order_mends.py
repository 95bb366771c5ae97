"""`!=` where an order was meant, tried on a learner's code only.

`cols != rows`, meant as the cells of a causal mask (a key later than its query): `!=` holds wherever
the two sides differ, on both sides of the diagonal, the past as well as the future, where an order
(`>`) holds on one side only. The mend (`order_for_unequal`) writes each of the four orders for the
`!=`: tried at every comparison with one `!=` (`a != b`, `torch.ne(a, b)`, `a.ne(b)`).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, compared_sides
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["ORDER_OPS", "order_mends", "order_words"]

ORDER_OPS = ("order_for_unequal",)
# each order: as an operator, and as torch's call
_ORDERS = ((ast.Gt, "gt"), (ast.Lt, "lt"), (ast.GtE, "ge"), (ast.LtE, "le"))
_SAID = {ast.Gt: ">", ast.Lt: "<", ast.GtE: ">=", ast.LtE: "<="}


def _unequal(node: ast.AST) -> bool:
    """`a != b`, `torch.ne(a, b)` or `a.ne(b)`: one comparison of inequality between two sides."""
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1 and isinstance(node.ops[0], ast.NotEq)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and call_name(node) in ("ne", "not_equal")
            and not node.keywords and len(compared_sides(node)) == 2)  # `torch.ne`, `a.ne`: a bare `ne` has no owner to keep


def _ordered(node: ast.Compare | ast.Call, order: type, called: str) -> ast.expr:
    """The comparison with the order in place of `!=`."""
    if isinstance(node, ast.Compare):
        return ast.Compare(node.left, [order()], node.comparators)
    return ast.Call(ast.Attribute(node.func.value, called, ast.Load()), node.args, [])


def order_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `order_for_unequal` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or not _unequal(node):
            continue
        for order, called in _ORDERS:
            made = _ordered(node, order, called)
            found.append(Change(fdef.name, index[id(node)], "order_for_unequal", ast.unparse(made), "comparison",
                                f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def order_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `order_for_unequal` change mends, in words."""
    if change.op != "order_for_unequal" or not _unequal(node):
        return None
    made = ast.parse(change.arg, mode="eval").body
    order = _SAID[type(made.ops[0])] if isinstance(made, ast.Compare) else ast.unparse(made.func)
    unequal = "!=" if isinstance(node, ast.Compare) else ast.unparse(node.func)
    return (f"inequality where an order was meant: `{unequal}` is true wherever the two sides differ, the left one "
            f"smaller or larger alike, and `{order}` on one side only (a mask of positions made with `{unequal}` "
            f"hides the past as well as the future)")
