"""One cell written where every cell from there on was meant, tried on a learner's code only.

`hide[i, i + 1] = True`, meant as the row's cells right of the diagonal: without the colon the
subscript names ONE cell, (i, i + 1), which for the last row lies past the end (an index error);
`hide[i, i + 1:]` is every cell from i + 1 on. The mend (`tail_slice`) puts the colon after one index of
a subscript written to: tried at every index that is no plain number (`i + 1`, `j`) of a subscript on
the left of an assignment.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import number_of, subscript_parts
from attention_by_hand.lab.mend_edits import tailed
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["TAIL_SLICE_OPS", "tail_slice_mends", "tail_slice_words"]

TAIL_SLICE_OPS = ("tail_slice",)


def _indices(node: ast.AST) -> list[int]:
    """The places of the indices of a subscript written to that are no slice, no `...` and no plain number."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)):
        return []
    return [k for k, p in enumerate(subscript_parts(node)) if not isinstance(p, (ast.Slice, ast.Starred))
            and not (isinstance(p, ast.Constant) and p.value is Ellipsis) and number_of(p) is None]


def tail_slice_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `tail_slice` changes of `fdef` (the module's docstring); each change's arg is the index's place."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index:
            continue
        for place in _indices(node):
            found.append(Change(fdef.name, index[id(node)], "tail_slice", place, "index",
                                f"`{quote(tailed(node, place))}` for `{quote(node)}`", node.lineno))
    return found


def tail_slice_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `tail_slice` change mends, in words."""
    if change.op != "tail_slice" or change.arg not in _indices(node):
        return None
    index = quote(subscript_parts(node)[change.arg])
    return (f"one cell where a run of cells was meant: `{quote(node)}` writes the ONE entry at `{index}`; every entry "
            f"from `{index}` on is `{index}:`, a slice (the colon)")
