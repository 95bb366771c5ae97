"""The changes of one arithmetic operation in a reference function: a factor removed, inverted,
doubled or put under a square root; a term dropped; another operator (`*` for `+`, `-` for `+`, a
shift taken for a scale: `/` for `-`, the remainder for the quotient: `%` for `//`); a matrix
product's side transposed; the two sides of a non-commutative operation swapped.

mutants.py asks `arithmetic(finder, node)` for every node of a reference function; `edit` (in
mutant_edits.py) makes each change.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import COMMUTATIVE, OPS, call_name, quote

__all__ = ["arithmetic"]


def arithmetic(finder, node: ast.AST) -> None:  # noqa: C901 - one branch per operator, flat
    """Adds to `finder` each change of `node`'s operation, when it is one (a BinOp)."""
    if not isinstance(node, ast.BinOp):
        return
    sign = OPS.get(type(node.op), "?")
    if isinstance(node.op, (ast.Mult, ast.Div, ast.FloorDiv)):
        finder.add(node, "left", None, "factor", f"`{sign} {quote(node.right)}` removed")
        if isinstance(node.op, ast.Mult):
            finder.add(node, "right", None, "factor", f"`{quote(node.left)} *` removed")
        other = ast.Mult if not isinstance(node.op, ast.Mult) else ast.Div
        inverted = ": the factor inverted" if {type(node.op), other} == {ast.Mult, ast.Div} else ""
        finder.add(node, "binop", other.__name__, "factor", f"`{OPS[other]}` for `{sign}` (`{quote(node)}`){inverted}")
        finder.add(node.right, "times2", None, "factor", f"`{quote(node.right)}` doubled")
    # the quotient and the remainder of a whole-number division, one key apart (`%` for `//` in a
    # head's size gives 0 where the heads divide the width)
    if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
        other = ast.Mod if isinstance(node.op, ast.FloorDiv) else ast.FloorDiv
        finder.add(node, "binop", other.__name__, "factor", f"`{OPS[other]}` for `{sign}` (`{quote(node)}`)")
    if isinstance(node.op, (ast.Add, ast.Sub)):
        finder.add(node, "left", None, "term", f"the term `{quote(node.right)}` dropped")
        finder.add(node, "right", None, "term", f"the term `{quote(node.left)}` dropped")
        other = ast.Sub if isinstance(node.op, ast.Add) else ast.Add
        finder.add(node, "binop", other.__name__, "sign", f"`{OPS[other]}` for `{sign}` (`{quote(node)}`)")
    if isinstance(node.op, ast.Add):
        finder.add(node, "binop", "Mult", "factor", f"`*` for `+` (`{quote(node)}`): multiplied, not added")
    if isinstance(node.op, ast.Mult):  # a shift taken for a scale: `arange(T) * start` where `+ start` was meant
        finder.add(node, "binop", "Add", "factor", f"`+` for `*` (`{quote(node)}`): added, not multiplied")
    if isinstance(node.op, ast.Add) and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Mult):
        # a factor of one term bracketed around the added term too (a rescale of what was gathered
        # applied to the new tile as well): each operand of the product may be the factor
        for side in ("left", "right"):
            factor, kept = (node.left.left, node.left.right) if side == "left" else (node.left.right, node.left.left)
            inner = ast.BinOp(kept, ast.Add(), node.right)
            new = ast.BinOp(factor, ast.Mult(), inner) if side == "left" else ast.BinOp(inner, ast.Mult(), factor)
            finder.add(node, "widen", side, "factor", f"`{quote(new)}` for `{quote(node)}`: `{quote(factor)}` multiplies the added term too")
    # a shift taken for a scale and back: `s / m` where `s - m` (the max-shift of a softmax)
    if isinstance(node.op, ast.Sub):
        finder.add(node, "binop", "Div", "factor", f"`/` for `-` (`{quote(node)}`): divided instead of subtracted")
    if isinstance(node.op, ast.Div):
        finder.add(node, "binop", "Sub", "factor", f"`-` for `/` (`{quote(node)}`): subtracted instead of divided")
    if isinstance(node.op, ast.Pow):
        finder.add(node.right, "times2", None, "factor", f"the exponent doubled, `{quote(node.right)}`")
        finder.add(node, "binop", "Mult", "factor", f"`*` for `**` (`{quote(node)}`)")
    if isinstance(node.op, ast.MatMult):
        for side in ("left", "right"):
            operand = getattr(node, side)
            finder.add(operand, "transpose", None, "transpose", f"`{quote(operand)}` transposed")
    if not isinstance(node.op, COMMUTATIVE):
        finder.add(node, "swap", None, "arguments", f"the two sides of `{quote(node)}` swapped")
    if isinstance(node.op, ast.Div) or isinstance(node.op, ast.Mult):
        if not (isinstance(node.right, ast.Call) and call_name(node.right) == "sqrt"):
            finder.add(node.right, "sqrt", None, "sqrt", f"`sqrt({quote(node.right)})` for `{quote(node.right)}`")
