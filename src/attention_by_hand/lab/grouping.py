"""Brackets left out of arithmetic: `c / var + eps ** 0.5` where `c / (var + eps) ** 0.5` was meant.

Python does `**` first, then `*`, `/`, `//`, `%` and `@`, then `+` and `-`; operators of one level
from left to right (`**` from right to left). An expression of those operators is read here as it
was written: its terms (names, calls, numbers, and any part the learner bracketed) and the operators
between them. Bracketing a run of two or more neighbouring terms (not all of them) gives another
expression wherever Python's order splits that run; `spans` lists those runs, `grouped` builds one,
`split_by` says which operator split it.

Left out: unary minus and comparisons (a term each, like a call), runs whose brackets change
nothing (`(a * b) + c`), runs that one exchange of two neighbouring operations gives (the `regroup`
mend of mend_changes.py says those), and expressions of more than MAX_TERMS terms.
"""

from __future__ import annotations

import ast
import copy

from attention_by_hand.lab.code_layout import BINDING, OPS, regrouped

__all__ = ["MAX_TERMS", "flat_terms", "grouped", "spans", "split_by"]

# beyond this many terms the runs to bracket grow past what the mend search should try
MAX_TERMS = 6


def _bare(child: ast.AST, parent: ast.BinOp, right: bool) -> bool:
    """Whether `child` was written without brackets of its own as a side of `parent`."""
    inner = BINDING.get(type(child.op)) if isinstance(child, ast.BinOp) else None
    outer = BINDING.get(type(parent.op))
    if inner is None or outer is None:
        return False
    if inner != outer:
        return inner > outer
    return right == isinstance(parent.op, ast.Pow)  # `a - b - c` is (a - b) - c; `a ** b ** c` is a ** (b ** c)


def _flat(node: ast.BinOp) -> tuple[list[ast.expr], list[type[ast.operator]], list[ast.BinOp]]:
    """The terms of `node` as written, left to right, the operators between them, and the
    operations written bare (the ones the terms are joined by)."""
    terms: list[ast.expr] = []
    ops: list[type[ast.operator]] = []
    joins: list[ast.BinOp] = []

    def walk(part: ast.expr, parent: ast.BinOp | None, right: bool) -> None:
        if isinstance(part, ast.BinOp) and type(part.op) in BINDING and (parent is None or _bare(part, parent, right)):
            joins.append(part)
            walk(part.left, part, False)
            ops.append(type(part.op))
            walk(part.right, part, True)
        else:
            terms.append(part)

    walk(node, None, False)
    return terms, ops, joins


def flat_terms(node: ast.BinOp) -> tuple[list[ast.expr], list[type[ast.operator]]]:
    """The terms of `node` as written, left to right, and the operators between them."""
    terms, ops, _ = _flat(node)
    return terms, ops


def _written(terms: list[ast.expr], ops: list[type[ast.operator]], span: tuple[int, int] | None = None) -> str:
    """The expression as text, every term in brackets of its own, the run `span` (first, last term) bracketed."""
    parts = []
    for i, term in enumerate(terms):
        text = f"({ast.unparse(term)})"
        if span and i == span[0]:
            text = "(" + text
        if span and i == span[1]:
            text += ")"
        parts.append(text if i == 0 else f"{OPS[ops[i - 1]]} {text}")
    return " ".join(parts)


def grouped(node: ast.BinOp, span: tuple[int, int]) -> ast.expr | None:
    """`node` with the run of terms `span` bracketed; None where that reads the same as written."""
    terms, ops = flat_terms(node)
    if not (0 <= span[0] < span[1] < len(terms)) or span == (0, len(terms) - 1):
        return None
    made = ast.parse(_written(terms, ops, span), mode="eval").body
    return None if ast.dump(made) == ast.dump(ast.parse(_written(terms, ops), mode="eval").body) else made


def _single_moves(node: ast.BinOp, joins: list[ast.BinOp]) -> set[str]:
    """The dumps of `node` with one `regroup` move made at one of its bare operations."""
    order = {id(n): k for k, n in enumerate(ast.walk(node))}
    found = set()
    for join in joins:
        for side in ("left", "right"):
            inner = getattr(join, side)
            if not isinstance(inner, ast.BinOp) or type(inner.op) is type(join.op):
                continue
            whole = copy.deepcopy(node)
            twin = list(ast.walk(whole))[order[id(join)]]
            moved = regrouped(twin, side)
            if twin is whole:
                found.add(ast.dump(moved))
                continue
            for parent in ast.walk(whole):
                for field in ("left", "right"):
                    if getattr(parent, field, None) is twin:
                        setattr(parent, field, moved)
            found.add(ast.dump(whole))
    return found


def spans(node: ast.BinOp) -> list[tuple[int, int]]:
    """The runs of `node`'s terms whose brackets change what it computes in more than one move."""
    terms, ops, joins = _flat(node)
    if not 3 <= len(terms) <= MAX_TERMS:
        return []
    same = ast.dump(ast.parse(_written(terms, ops), mode="eval").body)
    made = {}
    for i in range(len(terms)):
        for j in range(i + 1, len(terms)):
            if (i, j) != (0, len(terms) - 1):
                dump = ast.dump(ast.parse(_written(terms, ops, (i, j)), mode="eval").body)
                if dump != same:
                    made[(i, j)] = dump
    moves = _single_moves(node, joins) if made else set()
    return [span for span, dump in made.items() if dump not in moves]


def split_by(node: ast.BinOp, span: tuple[int, int]) -> str:
    """Why Python does not work the run `span` out first, in words: the operator next to it that
    binds tighter than one inside it, or the order in which one level is worked."""
    terms, ops = flat_terms(node)
    first, last = span
    inside = ops[first:last]
    beside = [ops[k] for k in (first - 1, last) if 0 <= k < len(ops)]
    loosest = min(inside, key=lambda op: BINDING[op])
    tightest = max(beside, key=lambda op: BINDING[op])
    if BINDING[tightest] > BINDING[loosest]:
        return f"Python does `{OPS[tightest]}` before `{OPS[loosest]}`"
    if tightest is ast.Pow:
        return "Python works `**` from right to left"
    pair = " and ".join(dict.fromkeys(f"`{OPS[op]}`" for op in (tightest, loosest)))
    return f"Python works {pair} from left to right"
