"""A logarithm's second argument read as a divisor, tried on a learner's code only.

`math.log(base, d_model)`, meant as `math.log(base) / d_model`, the step of a sinusoidal table's
exponent: `math.log`'s second argument is the BASE of the logarithm, so the call gives
log(base) / log(d_model), another number altogether. The mend (`log_base`) writes the division out,
`math.log(a) / b`: tried at every `math.log` given two arguments.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["LOG_BASE_OPS", "log_base_mends", "log_base_words"]

LOG_BASE_OPS = ("log_base",)


def _based(node: ast.AST) -> bool:
    """`math.log(a, b)`: the logarithm to a base."""
    return (isinstance(node, ast.Call) and ast.unparse(node.func) == "math.log" and len(node.args) == 2 and not node.keywords
            and not any(isinstance(a, ast.Starred) for a in node.args))


def log_base_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `log_base` changes of `fdef` (the module's docstring); each change's arg is the division, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or not _based(node):
            continue
        made = ast.BinOp(ast.Call(node.func, [node.args[0]], []), ast.Div(), node.args[1])
        found.append(Change(fdef.name, index[id(node)], "log_base", ast.unparse(made), "function",
                            f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def log_base_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `log_base` change mends, in words."""
    if change.op != "log_base" or not _based(node):
        return None
    a, b = (quote(arg) for arg in node.args)
    return (f"`math.log({a}, {b})` is the logarithm of `{a}` to the BASE `{b}`, log({a}) / log({b}); the log "
            f"divided by `{b}` is `{change.arg}`")
