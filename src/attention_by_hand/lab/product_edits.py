"""How a matrix product's factors are read and changed, for the mends of a learner's code (mend_edits.py,
operand_mends.py, layout_mends.py, api_mends.py): the two sides of `a @ b`, `torch.matmul(a, b)` or
`a.matmul(b)`; a factor's transpose (`x.t()`, `x.T`, `x.transpose(-2, -1)`) found, moved to the other
factor, or added; a row times a column made of two vectors.

Left out: which changes are tried, and their words (the *_mends.py modules, mend_words.py).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, is_method, number_of

__all__ = ["last_two_swapped", "matrix_sides", "moved_transpose", "row_times_column", "transposed_tensor", "unsqueezed"]


def transposed_tensor(node: ast.AST) -> ast.expr | None:
    """x of `x.t()`, `x.transpose(0, 1)`, `torch.t(x)` or `torch.transpose(x, 0, 1)`: the FIRST two
    axes exchanged, a matrix's transpose only where x has two; None for another node."""
    if not (isinstance(node, ast.Call) and call_name(node) in ("t", "transpose") and not node.keywords):
        return None
    torch_form = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
    if not (is_method(node) or (torch_form and node.args)):
        return None
    owner, axes = (node.func.value, node.args) if is_method(node) else (node.args[0], node.args[1:])
    axes = [number_of(a) for a in axes]
    return owner if (call_name(node) == "t" and not axes) or (call_name(node) == "transpose" and axes in ([0, 1], [1, 0])) else None


_MATRIX_PRODUCTS = ("matmul", "mm", "bmm")


def matrix_sides(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """(a, b) of `a @ b`, `torch.matmul(a, b)` (or `mm`, `bmm`) or `a.matmul(b)`; None for another node."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return node.left, node.right
    if not (isinstance(node, ast.Call) and call_name(node) in _MATRIX_PRODUCTS and not node.keywords):
        return None
    if is_method(node):
        return (node.func.value, node.args[0]) if len(node.args) == 1 else None
    return (node.args[0], node.args[1]) if len(node.args) == 2 else None


def row_times_column(node: ast.AST, side: str) -> ast.expr | None:
    """`a @ b.unsqueeze(-1)` made `a.unsqueeze(-2) @ b.unsqueeze(-1)` (side "left"), or
    `a.unsqueeze(-2) @ b` made `a.unsqueeze(-2) @ b.unsqueeze(-1)` (side "right"): operand_mends.py."""
    a, b = matrix_sides(node)
    a, b = (unsqueezed(a, -2), b) if side == "left" else (a, unsqueezed(b))
    if isinstance(node, ast.BinOp):
        return ast.BinOp(a, node.op, b)
    return ast.Call(ast.Attribute(a, node.func.attr, ast.Load()), [b], []) if is_method(node) else ast.Call(node.func, [a, b], [])


def unsqueezed(node: ast.expr, axis: int = -1) -> ast.Call:
    """`node.unsqueeze(-1)`: an axis of size 1 after its last (or at `axis`)."""
    return ast.Call(ast.Attribute(node, "unsqueeze", ast.Load()), [ast.Constant(axis)], [])


def _transposed(node: ast.expr) -> ast.expr | None:
    """The matrix a transpose is taken of (`x` of `x.t()`, `x.T`, `x.mT`, `x.transpose(-2, -1)` or of
    its first two axes), else None: a tensor's method, not NumPy's `np.transpose(x, ...)`."""
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        return node.value
    if not (isinstance(node, ast.Call) and is_method(node) and not node.keywords):
        return None
    axes = sorted(number_of(a) for a in node.args) if all(number_of(a) is not None for a in node.args) else None
    if (node.func.attr == "t" and not node.args) or (node.func.attr == "transpose" and axes in ([-2, -1], [0, 1])):
        return node.func.value
    return None


def moved_transpose(node: ast.AST) -> ast.AST | None:
    """A matrix product with its one transposed factor's transpose moved, as written, to the other
    factor (`mm(a.t(), b)` for `mm(a, b.t())`, operand_mends.py); None where not one factor is transposed."""
    sides = matrix_sides(node)
    if sides is None or (_transposed(sides[0]) is None) == (_transposed(sides[1]) is None):
        return None
    at = 0 if _transposed(sides[0]) is not None else 1
    wrapper, other = sides[at], sides[1 - at]
    moved = (ast.Attribute(other, wrapper.attr, ast.Load()) if isinstance(wrapper, ast.Attribute)
             else ast.Call(ast.Attribute(other, wrapper.func.attr, ast.Load()), list(wrapper.args), []))
    new = [moved, moved]
    new[at] = _transposed(wrapper)
    if isinstance(node, ast.BinOp):
        return ast.BinOp(new[0], ast.MatMult(), new[1])
    if is_method(node):
        return ast.Call(ast.Attribute(new[0], node.func.attr, ast.Load()), [new[1]], [])
    return ast.Call(node.func, new, [])


def last_two_swapped(node: ast.expr) -> ast.Call:
    """`node.transpose(-2, -1)`: its last two axes exchanged."""
    return ast.Call(ast.Attribute(node, "transpose", ast.Load()), [ast.Constant(-2), ast.Constant(-1)], [])
