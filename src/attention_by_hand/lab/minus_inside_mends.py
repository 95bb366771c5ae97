"""A minus sign inside a log or a root where it belongs outside, tried on a learner's code only.

`loss = torch.log(-picked).mean()`, meant as the negative log-likelihood: the minus sign went into the
log's bracket, and a negative number has no real log (torch gives nan, and -inf for 0; `math.log` raises). The loss is `-log(p)`, the minus
outside. The mend (`minus_outside`) moves the sign out of the call: `-torch.log(p)` for `torch.log(-p)`,
tried at every `log`, `log2`, `log10` and `sqrt` whose one argument is negated (`-x`).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["MINUS_INSIDE_OPS", "minus_inside_mends", "minus_inside_words"]

MINUS_INSIDE_OPS = ("minus_outside",)
_CALLS = ("log", "log2", "log10", "sqrt")


def _negated_inside(node: ast.AST) -> bool:
    """`log(-x)`: one of _CALLS given one argument, and that argument negated."""
    return (isinstance(node, ast.Call) and call_name(node) in _CALLS and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.UnaryOp) and isinstance(node.args[0].op, ast.USub))


def minus_inside_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `minus_outside` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or not _negated_inside(node):
            continue
        made = ast.UnaryOp(ast.USub(), ast.Call(node.func, [node.args[0].operand], []))
        found.append(Change(fdef.name, index[id(node)], "minus_outside", ast.unparse(made), "sign",
                            f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def minus_inside_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `minus_outside` change mends, in words."""
    if change.op != "minus_outside" or not _negated_inside(node):
        return None
    name = call_name(node)
    return (f"the minus sign inside `{name}(...)`: a negative number has no real {name} (torch gives nan, `math` raises "
            f"a ValueError), so the sign belongs outside the call, `-{name}(x)`")
