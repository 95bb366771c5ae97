"""An axis too many written into a shape, tried on a learner's code only.

- `none_dropped`: `table[:T, None]`, meant as the first T rows. `None` in an index adds an axis of
  size 1 just where it stands, so the rows come out (T, 1, d) and broadcast against (..., T, d) into
  a table of every pair. The mend takes that `None` out. Tried at every index that holds one `None`
  beside something that cuts or picks (an index of `None`, `:` and `...` alone places an axis on
  purpose: layout_mends.py moves it).
- `sizes_joined`: `t.reshape(T, n_heads, head_size)`, meant as the heads side by side,
  `(T, n_heads * head_size)`: a comma typed where `*` belongs, so each size becomes an axis of its
  own. The mend joins two neighbouring sizes into their product. Tried at every `reshape` and `view`
  given three or more sizes one by one.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, kept_part, none_part
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["EXTRA_AXIS_OPS", "extra_axis_mends", "extra_axis_words"]

EXTRA_AXIS_OPS = ("none_dropped", "sizes_joined")
_RESHAPES = ("reshape", "view")


def _one_none(node: ast.AST) -> list[ast.expr] | None:
    """The parts of an index holding one `None` beside a part that cuts or picks; else None."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return None
    parts = node.slice.elts
    if sum(map(none_part, parts)) != 1 or all(none_part(p) or kept_part(p) for p in parts):
        return None
    return parts


def _sizes(node: ast.AST) -> list[ast.expr] | None:
    """The sizes a method's `reshape` or `view` is given one by one, three or more; else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and call_name(node) in _RESHAPES):
        return None
    sizes = node.args
    if len(sizes) < 3 or node.keywords or any(isinstance(s, (ast.Starred, ast.Tuple, ast.List)) for s in sizes):
        return None
    return sizes


def extra_axis_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The changes of `fdef` the module's docstring lists."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index:
            continue
        if (parts := _one_none(node)) is not None:
            kept = [p for p in parts if not none_part(p)]
            made = ast.Subscript(node.value, ast.Tuple(kept, ast.Load()) if len(kept) > 1 else kept[0], node.ctx)
            found.append(Change(fdef.name, index[id(node)], "none_dropped", ast.unparse(made), "index",
                                f"`{quote(made)}` for `{quote(node)}`", node.lineno))
        for at in range(len(_sizes(node) or ()) - 1):
            sizes = list(node.args)
            sizes[at:at + 2] = [ast.BinOp(sizes[at], ast.Mult(), sizes[at + 1])]
            made = ast.Call(node.func, sizes, [])
            found.append(Change(fdef.name, index[id(node)], "sizes_joined", ast.unparse(made), "arguments",
                                f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def extra_axis_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a change of the module's docstring mends, in words."""
    if change.op == "none_dropped" and _one_none(node) is not None:
        return (f"`None` in an index adds an axis of size 1 just where it stands: `{quote(node)}` has one axis more than "
                "what it cuts or picks")
    if change.op == "sizes_joined" and _sizes(node) is not None:
        return (f"a comma where `*` belongs: each size given to `{call_name(node)}` makes an axis of its own, so two "
                "sizes meant as one axis's (their product) make two axes")
    return None
