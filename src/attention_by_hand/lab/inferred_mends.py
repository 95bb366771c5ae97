"""The `-1` of a reshape at the wrong end, tried on a learner's code only.

`rows.reshape(-1, *tokens.shape)`, meant as the looked-up rows laid out as (..., T, d_model): `-1` stands
for the one size reshape works out, and it goes where it is written. Written first, the leftover size
(d_model) becomes the FIRST axis, and since reshape deals the entries out in memory's order (the last
axis fastest), each d_model-long row is cut across the new axes. The mend (`inferred_moved`) puts
the `-1` at the other end of the sizes: tried at every `reshape` or `view` (a tensor's method, or
`torch.reshape(x, (...))`) given two sizes or more, one of them `-1` at the first or the last place.

`t.reshape(T, n_heads, n_heads)`, meant as each head's share of d_model on the last axis: a size typed
for another (the count of heads for the head's size). Where no size is `-1`, the mend (`inferred_for`)
writes `-1` for one of them, which reshape then works out from the others: tried at each size of a
`reshape` or `view` given two sizes or more.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, is_method, signed_int
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["INFERRED_OPS", "inferred_mends", "inferred_words"]

INFERRED_OPS = ("inferred_moved", "inferred_for")
_RESHAPES = ("reshape", "view")


def _one_tuple(node: ast.Call) -> bool:
    """Whether a tensor's `reshape` or `view` is given its sizes as one tuple or list (`x.view((a, b))`)."""
    return len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List))


def _given(node: ast.AST) -> list[ast.expr]:
    """The sizes a `reshape` or `view` is given, as written (a spread shape, `*x.shape`, as one); none where it
    is no such call, or takes a keyword."""
    if not isinstance(node, ast.Call) or call_name(node) not in _RESHAPES or node.keywords:
        return []
    if is_method(node):
        return list(node.args[0].elts if _one_tuple(node) else node.args)
    return list(node.args[1].elts) if len(node.args) == 2 and isinstance(node.args[1], (ast.Tuple, ast.List)) else []


def _sizes(node: ast.AST) -> list[ast.expr] | None:
    """The sizes a `reshape` or `view` is given, two or more with one `-1` at an end; else None."""
    sizes = _given(node)
    minus = [i for i, s in enumerate(sizes) if signed_int(s) == -1]
    if len(sizes) < 2 or len(minus) != 1 or minus[0] not in (0, len(sizes) - 1):
        return None
    return list(sizes)


def _typed(node: ast.AST) -> list[int]:
    """The places of the sizes `inferred_for` writes `-1` for: each, of two sizes or more, none `-1` and none
    spread (`*x.shape` may hold a size reshape works out already)."""
    sizes = _given(node)
    if len(sizes) < 2 or any(signed_int(s) == -1 or isinstance(s, ast.Starred) for s in sizes):
        return []
    return list(range(len(sizes)))


def _with_sizes(node: ast.Call, sizes: list[ast.expr]) -> ast.Call:
    """The call given `sizes`, written as it wrote its own (spread, or one tuple)."""
    if is_method(node):
        args = [ast.Tuple(sizes, ast.Load())] if _one_tuple(node) else sizes
    else:
        args = [node.args[0], ast.Tuple(sizes, ast.Load())]
    return ast.Call(node.func, args, [])


def _moved(node: ast.Call) -> ast.Call:
    """The call with its `-1` at the other end of its sizes."""
    sizes = _sizes(node)
    return _with_sizes(node, sizes[1:] + sizes[:1] if signed_int(sizes[0]) == -1 else sizes[-1:] + sizes[:-1])


def inferred_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `inferred_moved` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) in index and _sizes(node) is not None:
            made = ast.unparse(_moved(node))
            found.append(Change(fdef.name, index[id(node)], "inferred_moved", made, "arguments",
                                f"`{made}` for `{quote(node)}`", node.lineno))
        sizes = _given(node)
        for i in _typed(node) if id(node) in index else ():
            made = ast.unparse(_with_sizes(node, sizes[:i] + [ast.Constant(-1)] + sizes[i + 1:]))
            found.append(Change(fdef.name, index[id(node)], "inferred_for", made, "arguments",
                                f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def inferred_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `inferred_moved` or `inferred_for` change mends, in words."""
    if change.op == "inferred_for" and _typed(node):
        return _for_words(node, change)
    if change.op != "inferred_moved" or (sizes := _sizes(node)) is None:
        return None
    where = "first" if signed_int(sizes[0]) == -1 else "last"
    if len(sizes) == 2 and 1 in (signed_int(s) for s in sizes):  # `view(1, -1)` for `view(-1, 1)`: one axis of entries
        made, meant = ("a row", "a column") if where == "last" else ("a column", "a row")
        return (f"{made} where {meant} was meant: the `-1` holds the entries and the `1` is an axis of size 1, so "
                f"`{quote(node)}` makes {made} (`-1` {where}); the other end makes {meant}")
    return (f"the `-1` at the wrong end: it stands for the size `{call_name(node)}` works out, and that axis goes where "
            f"the `-1` is written, here {where}; the entries are dealt out in memory's order, the last axis fastest, so "
            f"what was meant as one axis is cut across the others")


def _for_words(node: ast.Call, change: Change) -> str | None:
    """`inferred_for`'s words: which size was typed for another, and how often it is written."""
    given = [ast.unparse(s) for s in _given(node)]
    made = [ast.unparse(s) for s in _given(ast.parse(change.arg, mode="eval").body)]
    place = next((i for i, (a, b) in enumerate(zip(given, made)) if a != b), None)
    if place is None:
        return None
    typed = given[place]
    twice = f", written {given.count(typed)} times in the sizes," if given.count(typed) > 1 else ""
    return (f"a size typed for another: `{typed}`{twice} is not the size of axis {place} here; that axis holds what "
            f"is left of the entries once the other sizes are taken (`-1` lets `{call_name(node)}` work it out)")
