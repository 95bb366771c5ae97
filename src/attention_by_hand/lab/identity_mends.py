"""Python's identity test read as a comparison of entries, tried on a learner's code only.

`keep = (heads is not head).view(1, -1, 1)`, meant as every head but one: `is` and `is not` ask
whether two names hold the same OBJECT and give one Python bool, never a tensor; `==` and `!=`
compare entry by entry (and broadcast). So what follows raises (a bool has no `view`) or a whole
mask collapses to one True. The mend (`identity_compared`) puts `!=` for `is not` and `==` for
`is`. Tried at every comparison written with one `is` or `is not` whose sides are neither `None`
nor a constant (`x is None` is the identity test meant).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["IDENTITY_OPS", "identity_mends", "identity_words"]

IDENTITY_OPS = ("identity_compared",)
_ENTRYWISE = {ast.Is: ast.Eq, ast.IsNot: ast.NotEq}  # the comparison of entries each identity test reads as
_SAID = {ast.Is: "is", ast.IsNot: "is not", ast.Eq: "==", ast.NotEq: "!="}


def _identity(node: ast.AST) -> bool:
    """`a is b` or `a is not b` between two values that are no constant (`None`, `True`, a number)."""
    return (isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _ENTRYWISE
            and not any(isinstance(side, ast.Constant) for side in (node.left, *node.comparators)))


def identity_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `identity_compared` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if not _identity(node) or id(node) not in index:
            continue
        made = ast.unparse(ast.Compare(node.left, [_ENTRYWISE[type(node.ops[0])]()], node.comparators))
        found.append(Change(fdef.name, index[id(node)], "identity_compared", made, "comparison",
                            f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def identity_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `identity_compared` change mends, in words."""
    if change.op != "identity_compared" or not _identity(node):
        return None
    written = type(node.ops[0])
    return (f"`{_SAID[written]}` asks whether two names hold the same OBJECT and gives one Python bool, not a tensor; "
            f"`{_SAID[_ENTRYWISE[written]]}` compares entry by entry")
