"""A conditional expression with its two arms the other way round, tried on a learner's code only.

`range(0 if causal else j0, T, block)`, meant as "from the key block's own query block on when causal,
from the first otherwise": `a if c else b` gives `a` where `c` holds and `b` where it does not, so the
arms written in the other order give each case what the other one needed. With causal attention
the slip can even hide (the extra tiles are all masked); the other case then shows it. The mend
(`arms_swapped`) writes `b if c else a`. Tried at every conditional expression whose two arms differ.

repair.py keeps a mend only where it gives the reference's output on every input the check tried, and
says the swap alone where a change inside the same conditional mends too (`inside_swapped`): its
condition taken as always (or never) true, or one arm made the other's (`n_k if causal else n_k`),
mends only where the two cases come out alike.

A condition taken as always (or never) true in a loop's `range(0, i0 if causal else T, block)` mends
too wherever the passes it adds find nothing to do (future tiles, all masked); beside a mend that moves
that range's end by one step, which keeps the learner's special case, it is no rival and not said.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["CONDITIONAL_OPS", "conditional_mends", "conditional_words", "inside_swapped"]

CONDITIONAL_OPS = ("arms_swapped",)


def _swappable(node: ast.AST) -> bool:
    """`a if c else b` with `a` and `b` written differently."""
    return isinstance(node, ast.IfExp) and ast.dump(node.body) != ast.dump(node.orelse)


def conditional_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `arms_swapped` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if not _swappable(node) or id(node) not in index:
            continue
        made = ast.unparse(ast.IfExp(node.test, node.orelse, node.body))
        found.append(Change(fdef.name, index[id(node)], "arms_swapped", made, "order",
                            f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def conditional_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `arms_swapped` change mends, in words."""
    if change.op != "arms_swapped" or not _swappable(node):
        return None
    test, body, orelse = quote(node.test), quote(node.body), quote(node.orelse)
    return (f"the two arms of a conditional the other way round: `{quote(node)}` gives `{body}` where `{test}` holds "
            f"and `{orelse}` where it does not, where each case needed the other's arm")


def inside_swapped(mends: list[Change], nodes: dict[str, list[ast.AST]]) -> list[Change]:
    """The mends but those inside a conditional whose arms swapped mend too, and a condition in a
    loop's range taken as always or never true beside that range's end moved by one (the module's
    docstring). nodes: per function, its nodes in ast.walk order (a change's index counts them)."""
    swaps = [c for c in mends if c.op == "arms_swapped"]
    inside = {id(n) for c in swaps for n in ast.walk(nodes[c.function][c.index])}
    kept = [c for c in mends if c.op == "arms_swapped" or id(nodes[c.function][c.index]) not in inside]
    return [c for c in kept if not (c.op == "cond" and _range_moved(c, kept, nodes[c.function]))]


def _range_moved(cond: Change, mends: list[Change], fnodes: list[ast.AST]) -> bool:
    """Whether `cond` takes the test of a conditional in a `range(...)`'s arguments, and another of the
    mends moves that conditional (or a part of it) by one (an offset)."""
    test = fnodes[cond.index]
    ranges = [n for n in fnodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range"]
    choice = next((n for r in ranges for a in r.args for n in ast.walk(a) if isinstance(n, ast.IfExp) and n.test is test), None)
    if choice is None:
        return False
    held = {id(n) for n in ast.walk(choice)}
    return any(c.kind == "offset" and c.function == cond.function and (
        id(fnodes[c.index]) in held or any(n is choice for n in ast.walk(fnodes[c.index]))) for c in mends)
