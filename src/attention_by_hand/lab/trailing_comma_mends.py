"""A trailing comma that makes a tuple of one, tried on a learner's code only.

`return (x + mlp(ln2(x)),)`, or `out = attn(x),`: a comma after the last value makes a TUPLE of one item,
with or without brackets (brackets alone group, `(x)` is x). The caller gets a tuple where a tensor was
meant. The mend (`one_item_tuple`) takes the tuple away, keeping its item: tried at every tuple of one
item that a `return` or an assignment gives.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["TRAILING_COMMA_OPS", "trailing_comma_mends", "trailing_comma_words"]

TRAILING_COMMA_OPS = ("one_item_tuple",)


def _one_item(node: ast.AST, given: set[int]) -> bool:
    """A tuple of one item that a `return` or an assignment gives; not `*x,`, a deliberate tuple of x's items."""
    return (isinstance(node, ast.Tuple) and len(node.elts) == 1 and not isinstance(node.elts[0], ast.Starred)
            and id(node) in given)


def trailing_comma_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `one_item_tuple` changes of `fdef` (the module's docstring)."""
    given = {id(n.value) for n in ast.walk(fdef) if isinstance(n, (ast.Return, ast.Assign)) and n.value is not None}
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or not _one_item(node, given):
            continue
        item = node.elts[0]
        found.append(Change(fdef.name, index[id(node)], "one_item_tuple", ast.unparse(item), "returned",
                            f"`{quote(item)}` for `{quote(node)}`", node.lineno))
    return found


def trailing_comma_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `one_item_tuple` change mends, in words."""
    if change.op != "one_item_tuple" or not (isinstance(node, ast.Tuple) and len(node.elts) == 1
                                             and not isinstance(node.elts[0], ast.Starred)):
        return None
    return (f"a trailing comma: `{quote(node)}` is a TUPLE of one item (the comma makes it, not the brackets), "
            f"where the item itself, `{change.arg}`, was meant")
