"""Mends that reach the reference's numbers through a tensor of zeros or ones by chance, which repair.py drops.

`m = -math.inf * torch.zeros(rows)`, meant as a running maximum that starts at -inf: in floating point
0 * inf is nan, so every entry is nan (first_nan.py says so). Ones were meant, `torch.ones` (or
`torch.full(rows, -math.inf)`), and `ones(...)` for `zeros(...)` mends it (neighbours.py's words). Two
other changes mend it by chance, and said beside that one they name what the learner never meant:
- the product made another operation (`binop`: `/` or `+`, the two tried for a `*`), one side a tensor of
  zeros: -inf / 0 and -inf + 0 are -inf, but nobody divides by zeros, or adds them, to make an infinity: the
  zeros then only carry a shape;
- an exp put around a tensor of zeros, or a log around one of ones (`wrap`): exp(0) = 1 and log(1) = 0 are the
  other maker's tensor reached by a function of a constant, no step anyone takes. Not a log of zeros: -inf is
  the start a running maximum or log-sum needs, and mend_words.py says it so ("started at 0 where it starts
  at -inf").
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, call_name

__all__ = ["by_constant_tensor"]

_ZEROS = ("zeros", "zeros_like", "new_zeros")
_ONES = ("ones", "ones_like", "new_ones")


def _made(node: ast.AST, makers: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and call_name(node) in makers


def by_constant_tensor(change: Change, nodes: list[ast.AST]) -> bool:
    """Whether `change` (at its node of `nodes`, ast.walk order) is one of the module's chance mends."""
    node = nodes[change.index]
    if change.op == "binop":
        return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
                and any(_made(side, _ZEROS) for side in (node.left, node.right)))
    return change.op == "wrap" and ((change.arg == "exp" and _made(node, _ZEROS)) or (change.arg == "log" and _made(node, _ONES)))
