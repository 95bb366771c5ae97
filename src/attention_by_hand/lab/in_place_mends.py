"""An in-place method used for its value on a tensor made on the spot, tried on a learner's code only.

`r.view(T, 1).lt_(r.view(1, T))`, meant as the table of which position comes before which: a method
whose name ends in `_` works in place, writing its answer into the tensor it is called on. That
tensor keeps its own shape and dtype, so the (T, 1) column has no room for the (T, T) table (an
error), and a comparison's answers are stored as its numbers (int64 0 and 1, not bools). The mend
(`in_place_value`) calls the twin without `_`, which returns a new tensor: tried at every method
named with one trailing `_` whose value is used (not a call alone on its line, meant in place), on
a tensor that is no plain name, or of a comparison (`lt_`, `eq_`, ...) on a name too. Another
method on a name changes what every later read of that name sees, which is another slip: for the
methods made_pitfalls lists, api_mends' `out_of_place` mends it; the others are left.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["IN_PLACE_OPS", "in_place_mends", "in_place_words"]

IN_PLACE_OPS = ("in_place_value",)
_COMPARED = ("lt_", "le_", "gt_", "ge_", "eq_", "ne_", "logical_and_", "logical_or_", "logical_not_", "logical_xor_")


def _in_place(node: ast.AST) -> bool:
    """`t.f_(...)` with one trailing `_`: the receiver no plain name unless `f_` compares (the module's docstring)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    name = node.func.attr
    if not name.endswith("_") or name.endswith("__") or len(name) < 2:
        return False
    return name in _COMPARED or not isinstance(node.func.value, ast.Name)


def in_place_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `in_place_value` changes of `fdef` (the module's docstring)."""
    bare = {id(s.value) for s in ast.walk(fdef) if isinstance(s, ast.Expr)}  # a call alone on its line: meant in place
    found = []
    for node in ast.walk(fdef):
        if id(node) in index and id(node) not in bare and _in_place(node):
            made = ast.Call(ast.Attribute(node.func.value, node.func.attr[:-1], ast.Load()), node.args, node.keywords)
            found.append(Change(fdef.name, index[id(node)], "in_place_value", ast.unparse(made), "call",
                                f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def in_place_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `in_place_value` change mends, in words."""
    if change.op != "in_place_value" or not _in_place(node):
        return None
    name, owner = node.func.attr, quote(node.func.value)
    kept = ("its answers are stored as that tensor's numbers, not as bools, and it has no room for a larger table"
            if name in _COMPARED else "it has no room for a larger result")
    later = f", and `{owner}` itself is changed for every later read" if isinstance(node.func.value, ast.Name) else ""
    return (f"`{name}` works in place: it writes its answer into the tensor it is called on, `{owner}`, which keeps "
            f"its own shape and dtype ({kept}){later}; `{name[:-1]}` returns a new tensor")
