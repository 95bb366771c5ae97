"""A branch joined to the stream side by side where it is added, tried on a learner's code only.

`x = torch.cat((x, attn(ln1(x))), -1)`, the residual written as a skip connection that concatenates
(DenseNet's, U-Net's): `cat` puts the two side by side, so the stream grows to twice its width and
the next layer refuses it; a residual block ADDS its branch, `x + attn(ln1(x))`. The words say the
addition, not the residual: the same mend holds where positions are added to embeddings. The mend
(`cat_for_sum`) adds the two: tried at every `torch.cat`, `torch.concat` or `torch.concatenate` given a
tuple or list of exactly two tensors.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["JOINED_OPS", "joined_mends", "joined_words"]

JOINED_OPS = ("cat_for_sum",)
_JOINS = ("torch.cat", "torch.concat", "torch.concatenate")


def _two(node: ast.AST) -> list[ast.expr] | None:
    """The two tensors a join of two is given (`torch.cat((a, b), -1)`); None for any other node."""
    if not (isinstance(node, ast.Call) and ast.unparse(node.func) in _JOINS and node.args):
        return None
    parts = node.args[0]
    if not isinstance(parts, (ast.Tuple, ast.List)) or len(parts.elts) != 2 or any(isinstance(e, ast.Starred) for e in parts.elts):
        return None
    return list(parts.elts)


def joined_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `cat_for_sum` changes of `fdef` (the module's docstring); each change's arg is the sum, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or (two := _two(node)) is None:
            continue
        made = ast.unparse(ast.BinOp(two[0], ast.Add(), two[1]))
        found.append(Change(fdef.name, index[id(node)], "cat_for_sum", made, "call", f"`{made}` for `{quote(node)}`",
                            node.lineno))
    return found


def joined_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `cat_for_sum` change mends, in words."""
    if change.op != "cat_for_sum" or (two := _two(node)) is None:
        return None
    a, b = (quote(e) for e in two)
    return (f"`{ast.unparse(node.func)}` puts `{a}` and `{b}` side by side, so the axis grows to both lengths together; "
            f"adding them entry by entry (as a residual adds its branch, or a table its positions) is `{change.arg}`")
