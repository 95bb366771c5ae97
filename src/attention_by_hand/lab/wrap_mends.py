"""Numbers wrapped round with `%` where they should run on, tried on a learner's code only.

`position_embedding(torch.arange(start, start + T) % T)`, positions kept inside a range the way a ring
buffer keeps its slots (a rolling cache's `position % window`): `% T` starts every number from T on
again at 0, so position T reads row 0. The mend (`wrap_dropped`) takes the `% n` away: tried at every
`%` whose right side is no number written out (`% 2`, a parity, is meant where it is written) and
whose left side is no string (`%` formats a string).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import number_of
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["WRAP_OPS", "wrap_mends", "wrap_words"]

WRAP_OPS = ("wrap_dropped",)


def _wrapped(node: ast.AST) -> bool:
    """`a % n`, n no number written out and a no string."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and number_of(node.right) is None
            and not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str))
            and not isinstance(node.left, ast.JoinedStr))


def wrap_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `wrap_dropped` changes of `fdef` (the module's docstring); each change's arg is the left side, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or not _wrapped(node):
            continue
        found.append(Change(fdef.name, index[id(node)], "wrap_dropped", ast.unparse(node.left), "call",
                            f"`{quote(node.left)}` for `{quote(node)}`", node.lineno))
    return found


def wrap_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `wrap_dropped` change mends, in words."""
    if change.op != "wrap_dropped" or not _wrapped(node):
        return None
    n = quote(node.right)
    return (f"`% {n}` wraps the numbers round into 0 .. `{n}` - 1, as a ring buffer's slots do: from `{n}` on they "
            f"start again at 0, and negative ones count back from `{n}`; without it they run on")
