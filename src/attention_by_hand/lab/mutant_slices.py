"""How a slice of the reference is changed (mutant_edits.edit asks here for the slice ops).

- `slice_shift`: both ends moved by one, `x[i + 1 : j + 1]` for `x[i:j]`;
- `bound`: an open end given a number, `x[1:]` or `x[:-1]` for `x[:]`;
- `colon`: the colon on the other side of its one bound, `ids[:1]` for `ids[1:]`: the first
  entry alone where every entry after it was meant (or the other way round);
- `short`: a subscript that starts with `...` one `, :` short at its end, `k[..., j : j + block]`
  for `k[..., j : j + block, :]`: the slice then falls on the last axis, not the one before it.

Each returns the node that takes the slice's (or the subscript's) place, or None where the change
cannot be made there.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import whole_slice

__all__ = ["SLICE_OPS", "slice_edit", "colon_swapped", "one_short"]

SLICE_OPS = ("slice_shift", "bound", "colon", "short")


def _plus(node: ast.expr, delta: int) -> ast.expr:
    return ast.BinOp(node, ast.Add() if delta > 0 else ast.Sub(), ast.Constant(1))


def colon_swapped(node: ast.Slice) -> ast.Slice | None:
    """`:1` for `1:` and `1:` for `:1`; None for a slice with both ends, none, or a step."""
    if node.step is not None or (node.lower is None) == (node.upper is None):
        return None
    return ast.Slice(node.upper, node.lower, None)


def one_short(node: ast.Subscript) -> ast.Subscript | None:
    """`x[..., a:b]` for `x[..., a:b, :]`; None unless the subscript starts with `...`, ends with a
    whole `:` and cuts something before it."""
    if not isinstance(node.slice, ast.Tuple) or len(node.slice.elts) < 3:
        return None
    parts = node.slice.elts
    first = parts[0]
    if not (isinstance(first, ast.Constant) and first.value is Ellipsis) or not whole_slice(parts[-1]):
        return None
    if not any(isinstance(p, ast.Slice) and not whole_slice(p) for p in parts[1:-1]):
        return None
    return ast.Subscript(node.value, ast.Tuple(parts[:-1], ast.Load()), node.ctx)


def slice_edit(node: ast.AST, op: str, arg) -> ast.AST | None:
    """The edit of one of SLICE_OPS at `node`."""
    if op == "slice_shift":
        lower = node.lower if node.lower is not None else ast.Constant(0)
        moved = [_plus(b, arg) if b is not None else None for b in (lower, node.upper)]
        return ast.Slice(moved[0], moved[1], node.step)
    if op == "bound":
        bound, value = arg
        return ast.Slice(**{"lower": node.lower, "upper": node.upper, "step": node.step, bound: ast.Constant(value)})
    if op == "colon" and isinstance(node, ast.Slice):
        return colon_swapped(node)
    if op == "short" and isinstance(node, ast.Subscript):
        return one_short(node)
    return None
