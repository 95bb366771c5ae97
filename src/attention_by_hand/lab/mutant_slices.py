"""How a slice of the reference is changed (mutant_edits.edit asks here for the slice ops).

- `slice_shift`: both ends moved by one, `x[i + 1 : j + 1]` for `x[i:j]`;
- `bound`: an open end given a number, `x[1:]` or `x[:-1]` for `x[:]`;
- `colon`: the colon on the other side of its one bound, `ids[:1]` for `ids[1:]`: the first
  entry alone where every entry after it was meant (or the other way round);
- `short`: a subscript that starts with `...` one `, :` short at its end, `k[..., j : j + block]`
  for `k[..., j : j + block, :]`: the slice then falls on the last axis, not the one before it;
- `unbound`: a bound typed as a number taken away, `x[i, i + 1:]` for `x[i, i + 1 : -1]` (MATLAB's
  `end` is the last entry; Python's `-1` as a slice's end stops before it);
- `parts`: two neighbouring parts of one subscript in each other's places, `p[:, :, i, j]` for
  `p[:, i, :, j]`: an index put on the axis beside its own.

Each returns the node that takes the slice's (or the subscript's) place, or None where the change
cannot be made there.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import whole_slice

__all__ = ["SLICE_OPS", "slice_edit", "colon_swapped", "one_short", "parts_swapped", "unbound"]

SLICE_OPS = ("slice_shift", "bound", "colon", "short", "unbound", "parts")


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


def unbound(node: ast.Slice, bound: str) -> ast.Slice:
    """The slice with its `bound` ("lower" or "upper") left open."""
    return ast.Slice(**{"lower": node.lower, "upper": node.upper, "step": node.step, bound: None})


def parts_swapped(node: ast.Subscript, at: int) -> ast.Subscript | None:
    """`p[:, :, i, j]` for `p[:, i, :, j]` (at = 1): the parts at `at` and `at + 1` exchanged; None
    where the subscript has no such two parts, or they read alike."""
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
    if not 0 <= at < len(parts) - 1 or ast.dump(parts[at]) == ast.dump(parts[at + 1]):
        return None
    swapped = list(parts)
    swapped[at], swapped[at + 1] = swapped[at + 1], swapped[at]
    return ast.Subscript(node.value, ast.Tuple(swapped, ast.Load()), node.ctx)


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
    if op == "unbound" and isinstance(node, ast.Slice):
        return unbound(node, arg)
    if op == "parts" and isinstance(node, ast.Subscript):
        return parts_swapped(node, arg)
    return None
