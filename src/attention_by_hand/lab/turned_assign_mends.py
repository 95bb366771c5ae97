"""An assignment written the wrong way round, tried on a learner's code only.

`m_new = m` at the end of a running maximum's step, meant as `m = m_new`: the new maximum is overwritten
with the old one, and the old one is never carried on, so every step compares against the start. An
assignment reads right to left, and a learner thinking "m_new becomes m" writes the names in the order
they say them. The mend (`assign_turned`) writes the two names the other way round: tried at every
assignment of one name to another name.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change

__all__ = ["TURNED_ASSIGN_OPS", "turned_assign_mends", "turned_assign_words"]

TURNED_ASSIGN_OPS = ("assign_turned",)


def _names(node: ast.AST) -> tuple[str, str] | None:
    """(target, value) of `a = b`, both plain names and not the same; None for another node."""
    if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Name) and node.targets[0].id != node.value.id):
        return node.targets[0].id, node.value.id
    return None


def turned_assign_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `assign_turned` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or (names := _names(node)) is None:
            continue
        target, value = names
        found.append(Change(fdef.name, index[id(node)], "assign_turned", f"{value} = {target}", "order",
                            f"`{value} = {target}` for `{target} = {value}`", node.lineno))
    return found


def turned_assign_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `assign_turned` change mends, in words."""
    if change.op != "assign_turned" or (names := _names(node)) is None:
        return None
    target, value = names
    return (f"the assignment the wrong way round: `{target} = {value}` puts `{value}`'s value into `{target}` (an "
            f"assignment reads right to left); `{value} = {target}` carries `{target}` on")
