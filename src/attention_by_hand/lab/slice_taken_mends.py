"""A slice the reference does not take, where it keeps the last entries alone: tried on a learner's code only.

`torch.cat([keys, k_new], dim=-2)[..., -keys.shape[-2]:, :]`, a cache that drops its oldest keys as a
sliding window (Mistral's, or a ring buffer) does: `-n:` keeps the LAST n entries of its axis and
the rest are lost, where this cache must grow. The mend (`slice_taken`) takes the subscript away,
keeping what it slices whole: tried at every subscript made of slices alone (and `...`), one of them
`-n:` with a bound that is no plain number or is a negative one, nothing else bounded.

A catch-all (mend_overlaps.CATCH_ALLS): a bound one off mends alike where the slice keeps all but one
entry, and says more, so this is said only where no other change mends. repair.py keeps a mend only
where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import number_of, subscript_parts
from attention_by_hand.lab.mutant_edits import Change, cut, quote

__all__ = ["SLICE_TAKEN_OPS", "slice_taken_mends", "slice_taken_words"]

SLICE_TAKEN_OPS = ("slice_taken",)


def _last_kept(node: ast.AST) -> ast.expr | None:
    """The bound `n` of `x[..., -n:, :]`, a subscript of slices alone that keeps the last n entries of one axis
    and all of every other (the module's docstring); None for another node."""
    if not isinstance(node, ast.Subscript) or isinstance(node.ctx, ast.Store):
        return None
    parts = subscript_parts(node)
    whole = [p for p in parts if isinstance(p, ast.Constant) and p.value is Ellipsis]
    slices = [p for p in parts if isinstance(p, ast.Slice)]
    if len(whole) + len(slices) != len(parts):
        return None
    bounded = [s for s in slices if s.lower is not None or s.upper is not None or s.step is not None]
    if len(bounded) != 1 or bounded[0].upper is not None or bounded[0].step is not None:
        return None
    lower = bounded[0].lower
    number = number_of(lower)
    if number is not None:
        return lower if number < 0 else None
    return lower.operand if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) else None


def slice_taken_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `slice_taken` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or _last_kept(node) is None:
            continue
        found.append(Change(fdef.name, index[id(node)], "slice_taken", ast.unparse(node.value), "index",
                            f"`{quote(node.value)}` for `{quote(node)}`", node.lineno))
    return found


def slice_taken_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `slice_taken` change mends, in words."""
    if change.op != "slice_taken" or (kept := _last_kept(node)) is None:
        return None
    number = number_of(kept)
    last = "the LAST entry" if number in (1, -1) else f"the LAST {abs(number)} entries" if number is not None else (
        f"the LAST `{quote(kept)}` entries")
    subscript = ast.unparse(node)[len(ast.unparse(node.value)):]  # `[..., -n:, :]`, as written
    return (f"a slice the reference does not take: `{cut(subscript)}` keeps only {last} of its axis, and the ones "
            "before them are lost")
