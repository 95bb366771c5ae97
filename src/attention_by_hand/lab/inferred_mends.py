"""The `-1` of a reshape at the wrong end, tried on a learner's code only.

`rows.reshape(-1, *tokens.shape)`, meant as the looked-up rows laid out as (..., T, d_model): `-1` stands
for the one size reshape works out, and it goes where it is written. Written first, the leftover size
(d_model) becomes the FIRST axis, and since reshape deals the entries out in memory's order (the last
axis fastest), each d_model-long row is cut across the new axes. The mend (`inferred_moved`) puts
the `-1` at the other end of the sizes: tried at every `reshape` or `view` (a tensor's method, or
`torch.reshape(x, (...))`) given two sizes or more, one of them `-1` at the first or the last place.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, is_method, signed_int
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["INFERRED_OPS", "inferred_mends", "inferred_words"]

INFERRED_OPS = ("inferred_moved",)
_RESHAPES = ("reshape", "view")


def _sizes(node: ast.AST) -> list[ast.expr] | None:
    """The sizes a `reshape` or `view` is given, two or more with one `-1` at an end; else None."""
    if not isinstance(node, ast.Call) or call_name(node) not in _RESHAPES or node.keywords:
        return None
    if is_method(node):
        sizes = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List)) else node.args
    else:
        sizes = node.args[1].elts if len(node.args) == 2 and isinstance(node.args[1], (ast.Tuple, ast.List)) else []
    minus = [i for i, s in enumerate(sizes) if signed_int(s) == -1]
    if len(sizes) < 2 or len(minus) != 1 or minus[0] not in (0, len(sizes) - 1):
        return None
    return list(sizes)


def _moved(node: ast.Call) -> ast.Call:
    """The call with its `-1` at the other end of its sizes."""
    sizes = _sizes(node)
    moved = sizes[1:] + sizes[:1] if signed_int(sizes[0]) == -1 else sizes[-1:] + sizes[:-1]
    if is_method(node):
        args = [ast.Tuple(moved, ast.Load())] if len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List)) else moved
    else:
        args = [node.args[0], ast.Tuple(moved, ast.Load())]
    return ast.Call(node.func, args, [])


def inferred_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `inferred_moved` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) in index and _sizes(node) is not None:
            made = ast.unparse(_moved(node))
            found.append(Change(fdef.name, index[id(node)], "inferred_moved", made, "arguments",
                                f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def inferred_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `inferred_moved` change mends, in words."""
    if change.op != "inferred_moved" or (sizes := _sizes(node)) is None:
        return None
    where = "first" if signed_int(sizes[0]) == -1 else "last"
    return (f"the `-1` at the wrong end: it stands for the size `{call_name(node)}` works out, and that axis goes where "
            f"the `-1` is written, here {where}; the entries are dealt out in memory's order, the last axis fastest, so "
            f"what was meant as one axis is cut across the others")
