"""Every entry from a place on read where the one entry at that place was meant, tried on a learner's
code only.

`s = scores[..., j:]` in a loop over the columns j, meant as column j: the colon makes the index a
slice, every column from j to the END, (rows, n - j), which then fails to fit (or, where the lengths
happen to agree, broadcasts into wrong numbers). The mend (`tail_read`) takes the colon away,
`scores[..., j]`: tried at every part of a subscript read (not written) that is a slice with a start
and nothing else, a start that is no number written out (`1:` is meant as it is; `half:` may be
too, and is said only where taking the colon away gives the reference's output on every input).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
The other way round, one cell written where a run was meant, is tail_slice_mends.py's.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import number_of, subscript_of, subscript_parts
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["TAIL_READ_OPS", "tail_read_mends", "tail_read_words"]

TAIL_READ_OPS = ("tail_read",)


def _tails(node: ast.AST) -> list[int]:
    """The places of the parts `j:` (a start that is no plain number, no stop, no step) of a subscript read."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
        return []
    return [k for k, p in enumerate(subscript_parts(node)) if isinstance(p, ast.Slice) and p.lower is not None
            and p.upper is None and p.step is None and number_of(p.lower) is None]


def _one(node: ast.Subscript, place: int) -> ast.Subscript:
    parts = subscript_parts(node)
    parts[place] = parts[place].lower
    return subscript_of(node, parts)


def tail_read_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `tail_read` changes of `fdef` (the module's docstring); each change's arg is the new subscript, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index:
            continue
        for place in _tails(node):
            made = ast.unparse(_one(node, place))
            found.append(Change(fdef.name, index[id(node)], "tail_read", made, "index",
                                f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def tail_read_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `tail_read` change mends, in words."""
    if change.op != "tail_read":
        return None
    for place in _tails(node):
        if ast.unparse(_one(node, place)) == change.arg:
            start = quote(subscript_parts(node)[place].lower)
            return (f"a colon too many: `{start}:` is every entry from `{start}` to the END of its axis; the one entry "
                    f"at `{start}` is `{start}`, without the colon")
    return None
