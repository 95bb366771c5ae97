"""How a tensor of ids picks: by itself, not by its count; as two indices, not one. Tried on a learner's code only.

`hot = torch.eye(V)[: ids.shape[0]]`, meant as the one-hot rows of the ids: a slice `[:n]` takes the
first n rows whatever the ids hold, so row i of the result is row i of the table, and the ids reach
the output only through their count. Indexing by the tensor, `[ids]`, takes the row each entry
names. The mend (`count_for_ids`) puts the tensor whose count stops the slice in the slice's place:
tried at every `[:n]` (or `[..., :n]`, or `[:, :n]`) whose stop is a count of one name (`len(ids)`,
`ids.shape[0]`, `ids.size(0)`, `ids.numel()`, `ids.shape[-1]`).

`counts[pairs] = seen`, with `pairs` a (2, K) tensor of (row, column) pairs: one index tensor picks along
the FIRST axis only, so it names whole rows (each id of either row of `pairs` a row of `counts`), never
cells. Its two rows given as two indices, `counts[tuple(pairs)]`, pick the cells (NumPy reads an index
the same way). The mend (`pairs_split`) writes that: tried at every subscript indexed by one name.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import kept_part
from attention_by_hand.lab.mutant_edits import Change, quote
from attention_by_hand.lab.size_locals import one_size

__all__ = ["PICKED_OPS", "picked_mends", "picked_words"]

PICKED_OPS = ("count_for_ids", "pairs_split")


def _counted(stop: ast.AST | None) -> ast.Name | None:
    """The name whose count `stop` is (size_locals.one_size: `len(n)`, `n.numel()`, `n.shape[k]`, `n.size(k)`); else None."""
    if stop is None or not one_size(stop):
        return None
    if isinstance(stop, ast.Subscript):
        owner = stop.value.value
    else:
        owner = (stop.args[0] if stop.args else None) if isinstance(stop.func, ast.Name) else stop.func.value
    return owner if isinstance(owner, ast.Name) else None


def _cut(node: ast.AST) -> tuple[int, ast.Name] | None:
    """(the place of the slice, the counted name) of `x[:n]`, `x[..., :n]` or `x[:, :n]`; else None."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
        return None
    parts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    cuts = [i for i, p in enumerate(parts) if isinstance(p, ast.Slice) and p.lower is None and p.step is None
            and _counted(p.upper) is not None]
    if len(cuts) != 1 or not all(kept_part(p) for i, p in enumerate(parts) if i != cuts[0]):
        return None
    return cuts[0], _counted(parts[cuts[0]].upper)


def picked_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `count_for_ids` and `pairs_split` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) in index and _by_one_name(node):
            made = f"{quote(node.value)}[tuple({node.slice.id})]"
            found.append(Change(fdef.name, index[id(node)], "pairs_split", None, "index", f"`{made}` for `{quote(node)}`",
                                node.lineno))
        if id(node) not in index or (cut := _cut(node)) is None:
            continue
        at, name = cut
        parts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        parts[at] = ast.Name(name.id, ast.Load())
        made = ast.unparse(ast.Subscript(node.value, ast.Tuple(parts, ast.Load()) if len(parts) > 1 else parts[0], ast.Load()))
        found.append(Change(fdef.name, index[id(node)], "count_for_ids", made, "index",
                            f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def _by_one_name(node: ast.AST) -> bool:
    """`x[pairs]`: a subscript indexed by one name."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name)


def picked_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `count_for_ids` or `pairs_split` change mends, in words."""
    if change.op == "pairs_split" and _by_one_name(node):
        index = node.slice.id
        return (f"one index tensor picks along the first axis only: `{quote(node)}` takes whole rows, one per entry of "
                f"`{index}`, where its two rows were meant as (row, column) pairs; as two indices, "
                f"`{quote(node.value)}[tuple({index})]` (or `[{index}[0], {index}[1]]`) picks the cells")
    if change.op != "count_for_ids" or (cut := _cut(node)) is None:
        return None
    name = cut[1].id
    return (f"a slice as long as `{name}` where `{name}` itself picks: `{quote(node)}` takes the first entries whatever "
            f"`{name}` holds, so only its count reaches the result; indexing by `{name}` takes the entry each of its "
            f"numbers names")
