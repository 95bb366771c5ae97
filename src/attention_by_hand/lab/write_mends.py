"""A slice of a running total written with `=` where `+=` belongs, tried on a learner's code only.

`dv[..., j0:j1, :] = p.T @ d_out_i` inside a loop over the query blocks: each pass writes its share
over the one before, so only the last block's share is kept, where every block adds to the key
block's gradient. The mend (`add_into`) adds, `dv[..., j0:j1, :] += p.T @ d_out_i`. Tried at every
assignment of one subscript (a slice or an entry of a tensor) inside a `for` loop whose variables the
subscript never reads: there the same slice is written again on every pass (`out[..., t, :] = ...` in
a loop over t writes each row once, and `=` overwrites no pass's share).

An `index_add` whose source already holds the rows it adds into (`added_twice`): `dk.index_add(-2, cols,
dk.index_select(-2, cols) + share)`, written as if it wrote the sum in place; it ADDS its source, so the old rows
count twice. The mend gives it the share alone, `dk.index_add(-2, cols, share)`. Tried at every `index_add`
(method or function, in place or not) whose source is a sum with the same tensor's `index_select` of the same
rows as one term.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, tensor_and_args
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["SAYS_WHY", "WRITE_OPS", "write_mends", "write_words"]

WRITE_OPS = ("add_into", "added_twice")
SAYS_WHY = ("added_twice",)  # said in place of taking the term out, the same edit at the same node


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
    return found + _added_twice(fdef, index)


def _added_twice(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `added_twice` changes of `fdef`: an `index_add` given the old rows plus the share."""
    found = []
    for node in ast.walk(fdef):
        parts = _index_add(node)
        if parts is None or id(node) not in index:
            continue
        target, dim, rows, source = parts
        for kept, other in ((source.right, source.left), (source.left, source.right)):
            if _old_rows(other, target, dim, rows) and id(source) in index:
                # at the source, where taking the term out is the same edit: this says why (repair.SAYS_WHY)
                found.append(Change(fdef.name, index[id(source)], "added_twice", ast.unparse(kept), "term",
                                    f"`{quote(kept)}` for `{quote(source)}`", node.lineno))
    return found


def _index_add(node: ast.AST) -> tuple[ast.AST, ast.AST, ast.AST, ast.BinOp] | None:
    """(target, dim, rows, source) of `t.index_add(dim, rows, a + b)`, `t.index_add_(...)` or
    `torch.index_add(t, dim, rows, a + b)`, all by position; else None."""
    if not (isinstance(node, ast.Call) and call_name(node) in ("index_add", "index_add_") and not node.keywords):
        return None
    target, args = tensor_and_args(node)
    if target is None or len(args) != 3 or not (isinstance(args[2], ast.BinOp) and isinstance(args[2].op, ast.Add)):
        return None
    return target, args[0], args[1], args[2]


def _old_rows(term: ast.AST, target: ast.AST, dim: ast.AST, rows: ast.AST) -> bool:
    """Whether `term` is `target.index_select(dim, rows)` (or torch's function form): the rows added into, as they were."""
    if not (_selected(term) and not term.keywords):
        return False
    selected, args = tensor_and_args(term)
    return selected is not None and len(args) == 2 and all(
        ast.dump(a) == ast.dump(b) for a, b in ((selected, target), (args[0], dim), (args[1], rows)))


def _selected(node: ast.AST) -> bool:
    """Whether `node` is an `index_select` call: the old rows, in an `added_twice` source."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "index_select"


def _read(target: ast.Subscript) -> set[str]:
    """The names a subscript's place reads (`j0` of `dv[..., j0:j0 + block, :]`)."""
    return {n.id for n in ast.walk(target.slice) if isinstance(n, ast.Name)}


def write_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `add_into` change mends, in words."""
    old = [side for side in (node.left, node.right) if _selected(side)] if isinstance(node, ast.BinOp) else []
    if change.op == "added_twice" and old:
        return (f"`index_add` ADDS its source to the rows it names, and yours already holds those rows as they were "
                f"(`{quote(old[0])}`), so each old value counts twice: the source is the new share alone")
    if change.op != "add_into" or not isinstance(node, ast.Assign):
        return None
    return (f"`=` writes each pass's share over the one before, so `{quote(node.targets[0])}` keeps the last pass's "
            f"alone; `+=` adds every pass's share to it")
