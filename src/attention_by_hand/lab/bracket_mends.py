"""Mends of where a call's bracket closes, tried on a learner's code only.

- `close_later`: `tok(ids) + pos.weight.index_select(0, torch.arange(T)) + start`, meant as the
  rows of positions start .. start + T - 1. The bracket closed before `+ start`, so the lookup
  reads rows 0 .. T - 1 and the number `start` is added to every value it returns. The mend moves
  the term after a call inside the bracket of each call the expression ends with, in turn
  (`index_select(0, torch.arange(T) + start)`, then `torch.arange(T + start)`). Tried on every
  `+`, `-`, `*`, `/`, `//` and `**` whose left side ends with a call (`math.sqrt(d) // n_heads`,
  `s.div(q.size(1)) ** 0.5`: the root of the divided scores, where the root of the size was meant; a
  power never onto a number, `softmax(-1) ** 2`).
- `close_after_first`: `d * rsqrt(var) + eps * w` for `d * rsqrt(var + eps) * w`: the bracket closed one
  name too early, before a term that is the first factor of a product; as written, that term is
  multiplied and added to the whole left side. The mend moves the bracket past that factor alone.
  Tried on every `+` and `-` whose right side is a product or a quotient and whose left side's text
  ends with a call's bracket.
- `close_earlier`: `f(x + s)` for `f(x) + s`, the other way round: the term added inside the call
  where it belonged on what the call returns. Tried on every call whose last argument is such an
  operation.
- `method_later`: `relu(1 - (i - j)).abs()` for `relu(1 - (i - j).abs())`: a method written after a
  call's bracket where it belonged on a term at the end of its last argument (on the whole argument,
  mutants.py's `nest` tries it, two steps in the other order). Tried on every method called on the result of a call;
  on the whole last argument too where that call is an operation written as a method: `m.add(l).log()` for
  `m.add(l.log())`, the log of the sum where the sum of `m` and the log was meant.
- `group_terms`: `c / var + eps ** 0.5` for `c / (var + eps) ** 0.5`: brackets left out, so Python's
  order of operations split a run of terms meant to be done first (grouping.py). Tried on every run
  of neighbouring terms of an arithmetic expression whose brackets change what it computes.

The edits are bracket_edits.py's (grouping.py's for `group_terms`). repair.py keeps a mend only where it gives the reference's
output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.bracket_edits import BRACKET_OPS, BRACKET_TERMS, GROUP_OP, bracket_edit, closing_call, first_factor, method_spine
from attention_by_hand.lab.code_layout import BINDING, call_name, number_of, parents, statement_lines
from attention_by_hand.lab.grouping import flat_terms, grouped, spans, split_by
from attention_by_hand.lab.mutant_edits import OPS, Change, quote

__all__ = ["BRACKET_OPS", "bracket_mends", "bracket_words"]

_VERBS = {"+": "is added to", "-": "is subtracted from", "*": "multiplies", "/": "divides", "//": "floor-divides"}


def bracket_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `close_later` and `close_earlier` changes of `fdef` (the module's docstring)."""
    found, lines = [], statement_lines(fdef)

    def add(node: ast.AST, op: str, arg=None) -> None:
        made = bracket_edit(node, op, arg)
        if made is None or _idle_on_a_number(made):
            return
        if op == "method_later":
            said = f"`{quote(made)}` for `{quote(node)}`"
        elif op == "close_after_first":  # the call and the factor, before and after
            call, factor = first_factor(node)
            sign = OPS[type(node.op)]
            said = f"`{quote(call)[:-1]} {sign} {quote(factor)})` for `{quote(call)} {sign} {quote(factor)}`"
        elif op == "close_later":  # the call that takes the term in, before and after, not the whole sum
            sign = OPS[type(node.op)]
            call, moved = closing_call(node.left, type(node.op)), closing_call(made, type(node.op))
            said = f"`{quote(moved)}` for `{quote(call)} {sign} {quote(node.right)}`"
        else:
            said = f"`{quote(made)}` for `{quote(node)}`"
        found.append(Change(fdef.name, index[id(node)], op, arg, "order", said, lines[id(node)]))

    for node in (n for n in ast.walk(fdef) if id(n) in lines):
        termed = isinstance(node, ast.BinOp) and isinstance(node.op, BRACKET_TERMS)
        call = closing_call(node.left, type(node.op)) if termed else None
        # a power never goes onto a number (`softmax(-1) ** 2`: `(-1) ** 2` reads the same axis on a matrix, by chance)
        if call is not None and not (isinstance(node.op, ast.Pow) and number_of(call.args[-1]) is not None):
            add(node, "close_later")
        if first_factor(node) is not None:
            add(node, "close_after_first")
        if (isinstance(node, ast.Call) and node.args and isinstance(node.args[-1], ast.BinOp)
                and isinstance(node.args[-1].op, BRACKET_TERMS[:4])):  # not `//` nor `**`: `f(a // n)` is rarely `f(a) // n`
            add(node, "close_earlier")
        # on the whole last argument mutants.py's `nest` tries it, except after an operation written as a method
        # (`m.add(l).log()` for `m.add(l.log())`), whose argument is one term, no call of the reference's
        for depth in range(0 if _operation_method(node) else 1, len(method_spine(node))):
            add(node, "method_later", depth)
    above = parents(fdef)
    for node in (n for n in ast.walk(fdef) if id(n) in lines and isinstance(n, ast.BinOp)):
        outer = above.get(id(node))
        if _inside_terms(node, outer):
            continue  # a part of a longer expression: its runs are tried from the whole
        for span in spans(node):
            made = grouped(node, span)
            said = f"`{quote(made)}` for `{quote(node)}`"
            found.append(Change(fdef.name, index[id(node)], GROUP_OP, span, "order", said, lines[id(node)]))
    return found


_OPERATION_METHODS = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide")
_OPERATIONS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Pow: lambda a, b: a ** b}


def _idle_on_a_number(made: ast.AST) -> bool:
    """Whether the moved term lands on a number it leaves as it is (`unsqueeze(-1 // 2)`: -1 // 2 is -1): the
    mend then mends only by taking the term away, and its words of a bracket would name a slip not made."""
    for node in ast.walk(made):
        left, right = (number_of(node.left), number_of(node.right)) if isinstance(node, ast.BinOp) else (None, None)
        if left is None or right is None or type(node.op) not in _OPERATIONS:
            continue
        try:
            if _OPERATIONS[type(node.op)](left, right) == left:
                return True
        except (ZeroDivisionError, OverflowError):
            continue
    return False


def _operation_method(node: ast.AST) -> bool:
    """`a.add(b).f()`: a method called on an arithmetic operation written as a method with one argument."""
    inner = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
    return (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and len(inner.args) == 1
            and not inner.keywords and inner.func.attr in _OPERATION_METHODS)


def _inside_terms(node: ast.BinOp, outer: ast.AST | None) -> bool:
    """Whether `node` is written bare inside the arithmetic expression `outer` (not one of its terms)."""
    if not isinstance(outer, ast.BinOp) or type(outer.op) not in BINDING:
        return False  # under `|` or `&` (no level of arithmetic), an expression of its own
    terms, _ = flat_terms(outer)
    return not any(t is node for t in terms)


def _called(call: ast.Call) -> str:
    """`index_select(...)`, or the called expression itself where it has no name (`make(x)(y)`)."""
    name = call_name(call)
    return f"{name}(...)" if name else quote(call.func)


def bracket_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `close_later`, `close_earlier` or `group_terms` change mends, in words."""
    if change.op == GROUP_OP and isinstance(node, ast.BinOp):
        terms, ops = flat_terms(node)
        first, last = change.arg
        run = " ".join([quote(terms[first])] + [f"{OPS[ops[i - 1]]} {quote(terms[i])}" for i in range(first + 1, last + 1)])
        return (f"brackets left out: {split_by(node, change.arg)}, so in `{quote(node)}` the terms `{run}` are not "
                f"worked out together first")
    if change.op == "close_later" and isinstance(node, ast.BinOp):
        call, sign = closing_call(node.left, type(node.op)), OPS[type(node.op)]
        if call is None:
            return None
        term, inner, called = quote(node.right), quote(call.args[-1]), _called(call)
        acted = f"what `{called}` returns" if call is node.left or sign != "//" else f"`{quote(node.left)}`"
        done = f"{acted} is raised to `{term}`" if sign == "**" else f"`{term}` {_VERBS[sign]} {acted}"
        return (f"a bracket closed too early: `{sign} {term}` stands after the bracket of `{called}`, so {done}, where it "
                f"belongs inside, on `{inner}`")
    if change.op == "method_later" and len(method_spine(node)) > change.arg:
        called = _called(node.func.value)  # the method as written, its keywords too: `.sum(-1, keepdim=True)`
        method = ast.unparse(ast.Call(ast.Attribute(ast.Name("_"), node.func.attr), node.args, node.keywords))[1:]
        return (f"a bracket closed too early: `{method}` stands after the bracket of `{called}`, so it acts on what "
                f"`{called}` returns, where it belongs inside, on `{quote(method_spine(node)[change.arg])}`")
    if change.op == "close_after_first" and first_factor(node) is not None:
        call, factor = first_factor(node)
        called, product = _called(call), quote(node.right)
        return (f"a bracket closed too early: `{quote(factor)}` stands after the bracket of `{called}`, where it "
                f"belongs inside, on `{quote(call.args[-1])}`; as written, `{product}` is a term of its own")
    if change.op == "close_earlier" and isinstance(node, ast.Call) and isinstance(node.args[-1], ast.BinOp):
        inner, sign, called = node.args[-1], OPS[type(node.args[-1].op)], _called(node)
        return (f"a bracket closed too late: `{sign} {quote(inner.right)}` stands inside `{called}`, on "
                f"`{quote(inner.left)}`, where it belongs after the bracket, on what `{called}` returns")
    return None
