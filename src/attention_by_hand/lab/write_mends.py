"""A slice of a running total written with `=` where `+=` belongs, tried on a learner's code only.

`dv[..., j0:j1, :] = p.T @ d_out_i` inside a loop over the query blocks: each pass writes its share
over the one before, so only the last block's share is kept, where every block adds to the key
block's gradient. The mend (`add_into`) adds, `dv[..., j0:j1, :] += p.T @ d_out_i`. Tried at every
assignment of one subscript (a slice or an entry of a tensor) inside a `for` loop whose variables the
subscript never reads: there the same slice is written again on every pass (`out[..., t, :] = ...` in
a loop over t writes each row once, and `=` overwrites no pass's share).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["WRITE_OPS", "write_mends", "write_words"]

WRITE_OPS = ("add_into",)


def write_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `add_into` changes of `fdef` (the module's docstring)."""
    found = []
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For)):
        passes = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for node in (n for part in loop.body for n in ast.walk(part)):
            if (isinstance(node, ast.Assign) and id(node) in index and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Subscript) and not passes & _read(node.targets[0])
                    and all(c.index != index[id(node)] for c in found)):
                made = ast.unparse(ast.AugAssign(node.targets[0], ast.Add(), node.value))
                found.append(Change(fdef.name, index[id(node)], "add_into", made, "step",
                                    f"`{quote(node.targets[0])} += ...` for `{quote(node.targets[0])} = ...`", node.lineno))
    return found


def _read(target: ast.Subscript) -> set[str]:
    """The names a subscript's place reads (`j0` of `dv[..., j0:j0 + block, :]`)."""
    return {n.id for n in ast.walk(target.slice) if isinstance(n, ast.Name)}


def write_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `add_into` change mends, in words."""
    if change.op != "add_into" or not isinstance(node, ast.Assign):
        return None
    return (f"`=` writes each pass's share over the one before, so `{quote(node.targets[0])}` keeps the last pass's "
            f"alone; `+=` adds every pass's share to it")
