"""Where a call's bracket closes, as the syntax tree has it: a term written after a call moved inside
it, or a term inside a call moved out of it (bracket_mends.py says when each is tried, and in what words).

`a + b.f(0, g(t)) + s` ends with the call `b.f(0, g(t))`: a learner who closed its bracket one
term too early wrote `+ s` after it where it belonged on the call's last argument,
`b.f(0, g(t) + s)`. The other way round, `f(x + s)` for `f(x) + s`: the bracket closed one term
too late.

`d * rsqrt(var) + eps * w` is the bracket closed one NAME too early, before a product: `rsqrt(var + eps) * w`
was meant (`close_after_first`: the bracket moved past the first factor of the term after it, in the text as
written, whatever the call's place in the left side).

`relu(1 - (i - j)).abs()` is the same slip with a method: `.abs()` written after `relu`'s bracket where it
belonged on a term inside, `relu(1 - (i - j).abs())` (`method_later`: the method moved onto the last argument,
or onto a term at the end of it, `arg` steps down its right side).

Left out: a call with keyword arguments or a starred argument (no one place is "just before the
bracket"), calls inside the last argument (`g(t + s)`: the term would then act on what `g`
returns, not on what the expression ends with), and terms written before the call (`s + f(x)`).
"""

from __future__ import annotations

import ast
import copy

from attention_by_hand.lab.code_layout import OPS
from attention_by_hand.lab.grouping import grouped

__all__ = ["BRACKET_OPS", "BRACKET_TERMS", "GROUP_OP", "bracket_edit", "closing_call", "first_factor", "method_spine"]

GROUP_OP = "group_terms"  # brackets around a run of terms (grouping.py)
BRACKET_OPS = ("close_later", "close_earlier", GROUP_OP, "method_later", "close_after_first")
# the operators whose right side may belong inside or outside a bracket
# `//` and `**` last: close_later's alone (`x.div(d) ** 0.5` for `x.div(d ** 0.5)`)
BRACKET_TERMS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)
# a term written after a sum acts on its last term as on the whole (`a + f(x) - s` is `a + (f(x) - s)`),
# and a factor after a product on its last factor; not after a difference or a quotient (`a - f(x) + s`
# is `a - (f(x) - s)`), nor across operators (`(a + f(x)) * s`)
_THROUGH = {ast.Add: ast.Add, ast.Sub: ast.Add, ast.Mult: ast.Mult, ast.Div: ast.Mult,
            # `a / f(d) // n` floors the quotient, not f's value: the same reach, other words (bracket_mends.py)
            ast.FloorDiv: (ast.Mult, ast.Div)}


def _simple(call: ast.AST) -> bool:
    """A call whose bracket closes just after its last positional argument."""
    return (isinstance(call, ast.Call) and bool(call.args) and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args))


def closing_call(node: ast.expr, after: type[ast.operator]) -> ast.Call | None:
    """The call whose bracket closes at the end of `node` as written, where a term written after
    `node` with the operator `after` acts on what the call returns (`b.f(0, g(t))` in
    `a + b.f(0, g(t))`, for `+`); None where there is none."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, _THROUGH.get(after, ())):
        node = node.right
    return node if _simple(node) else None


def method_spine(node: ast.AST) -> list[ast.expr]:
    """For `f(..., last).m(...)`: `last` and the terms at its end, down its right side (`1 - (i - j)`,
    `(i - j)`, `j`), each a place the method may have been meant for; [] for another node."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _simple(node.func.value)):
        return []
    spine, term = [], node.func.value.args[-1]
    while isinstance(term, (ast.BinOp, ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        spine.append(term)
        term = term.right if isinstance(term, ast.BinOp) else None
    return spine


def first_factor(node: ast.AST) -> tuple[ast.Call, ast.expr] | None:
    """(the call, the factor) of `... f(a) + b * c` (`-` for `+`, `/` for `*`): a call whose bracket
    closes at the end of the left side's text, before a product whose first factor `b` may belong
    inside it; None for another node."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(node.right, ast.BinOp)
            and isinstance(node.right.op, (ast.Mult, ast.Div))):
        return None
    spine = node.left
    while isinstance(spine, ast.BinOp):
        spine = spine.right
    left = ast.unparse(node.left)  # the text as written: the call's bracket closes at its end, and the product follows
    if not (_simple(spine) and left.endswith(ast.unparse(spine)) and ast.unparse(node).startswith(left)):
        return None
    return spine, node.right.left


def _after_first(node: ast.BinOp) -> ast.expr | None:
    """`... f(a + b) * c` for `... f(a) + b * c`, the bracket moved past `b` in the text as written."""
    left, right, first = (ast.unparse(n) for n in (node.left, node.right, node.right.left))
    sign = f" {OPS[type(node.op)]} "
    if not right.startswith(first):
        return None
    try:
        return ast.parse(f"{left[:-1]}{sign}{first}){right[len(first):]}", mode="eval").body
    except SyntaxError:
        return None


def bracket_edit(node: ast.AST, op: str, arg=None) -> ast.expr | None:
    """close_later: `left <op> right` made `left` with `<op> right` inside the bracket of the call it
    ends with; close_earlier: `f(..., a <op> b)` made `f(..., a) <op> b`; group_terms: the run of
    terms `arg` (first, last) bracketed."""
    if op == GROUP_OP and isinstance(node, ast.BinOp):
        return grouped(node, arg)
    if op == "close_after_first" and first_factor(node) is not None:
        return _after_first(node)
    if op == "close_later" and isinstance(node, ast.BinOp):
        left = copy.deepcopy(node.left)
        call = closing_call(left, type(node.op))
        if call is None:
            return None
        call.args[-1] = ast.BinOp(call.args[-1], node.op, node.right)
        return left
    if op == "method_later" and len(method_spine(node)) > arg:
        call = copy.deepcopy(node.func.value)
        spine = method_spine(ast.Call(ast.Attribute(call, node.func.attr), [], []))  # the copy's own terms
        method = ast.Call(ast.Attribute(copy.deepcopy(spine[arg]), node.func.attr, ast.Load()), node.args, node.keywords)
        if arg == 0:
            call.args[-1] = method
        else:
            spine[arg - 1].right = method
        return call
    if op == "close_earlier" and _simple(node) and isinstance(node.args[-1], ast.BinOp):
        inner = node.args[-1]
        return ast.BinOp(ast.Call(node.func, [*node.args[:-1], inner.left], []), inner.op, inner.right)
    return None
