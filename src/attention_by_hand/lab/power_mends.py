"""A power typed as a product, or with `^`, tried on a learner's code only.

`q @ k.T / d * 0.5`, meant as the scores divided by the root of d: `*` typed where `**` belongs (one
key apart). `* 0.5` halves; the root is `** 0.5`, and `** -0.5` its inverse. `**` binds tighter than
`/` and `*`, so the meant line reads `q @ k.T / d ** 0.5`. The mend (`power_typed`) makes the `*` a
`**` on the number's left neighbour: on the whole left side (`d * 0.5` made `d ** 0.5`) and, where
that side is itself a product or a quotient, on its last factor alone (`a / d * 0.5` made
`a / d ** 0.5`). Tried at every product whose right side is 0.5 or -0.5 written out, and 2: `(x - mu) * 2`
for the square `(x - mu) ** 2`.

`scale = q.size(-1) ^ -0.5`, the power written as R and MATLAB write it: in Python `^` is the bitwise
exclusive or, which an int and a float do not have (a TypeError), and on integers a number unlike the
power. The mend (`power_caret`) makes the `^` a `**` as above: tried at every `^`.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import number_of
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["POWER_OPS", "power_mends", "power_words"]

POWER_OPS = ("power_typed", "power_caret")
_ROOTS = (0.5, -0.5)  # the exponents a root is written with
_SQUARE = 2  # and a square's: `(x - mu) * 2` for `(x - mu) ** 2`


def _root_typed(node: ast.AST) -> bool:
    """`x * 0.5`, `x * -0.5` or `x * 2`: a product by a root's or a square's exponent written out."""
    number = number_of(node.right) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) else None
    return (type(number) is float and number in _ROOTS) or (type(number) is int and number == _SQUARE)


def _caret(node: ast.AST) -> bool:
    """`a ^ b`: R's and MATLAB's power, Python's bitwise exclusive or."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitXor)


def power_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `power_typed` and `power_caret` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if not (_root_typed(node) or _caret(node)) or id(node) not in index:
            continue
        op, left, exponent = "power_caret" if _caret(node) else "power_typed", node.left, node.right
        made = [ast.BinOp(left, ast.Pow(), exponent)]
        if isinstance(left, ast.BinOp) and isinstance(left.op, (ast.Div, ast.Mult)):
            made.append(ast.BinOp(left.left, left.op, ast.BinOp(left.right, ast.Pow(), exponent)))
        for new in made:
            found.append(Change(fdef.name, index[id(node)], op, ast.unparse(new), "factor",
                                f"`{quote(new)}` for `{quote(node)}`", node.lineno))
    return found


def power_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `power_typed` or `power_caret` change mends, in words."""
    if change.op == "power_caret" and _caret(node):
        return ("`^` is the power in R and MATLAB, but in Python the bitwise exclusive or, which floats do not have "
                "(on whole numbers it gives another number: `3 ^ 2` is 1); a power is `**`, which binds tighter than "
                "`/` and `*`")
    if change.op != "power_typed" or not _root_typed(node):
        return None
    power = "a square is a POWER, `** 2`" if number_of(node.right) == _SQUARE else "a root is a POWER, `** 0.5` (its inverse `** -0.5`)"
    return (f"`* {ast.unparse(node.right)}` multiplies by {ast.unparse(node.right)}; {power}, and `**` binds tighter "
            f"than `/` and `*`: `{change.arg}`")
