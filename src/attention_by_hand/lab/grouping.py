"""Brackets left out of arithmetic: `c / var + eps ** 0.5` where `c / (var + eps) ** 0.5` was meant.

Python does `**` first, then `*`, `/`, `//`, `%` and `@`, then `+` and `-`, each level from left to
right (`**` from right to left). An expression of those operators is read here as it was written:
its terms (names, calls, numbers, and any part the learner bracketed) and the operators between
them. Bracketing a run of two or more neighbouring terms (not all of them) gives another expression
wherever the order of operations splits that run; `grouped` builds it.

Left out: unary minus and comparisons (a term each, like a call), runs whose brackets change
nothing (`(a * b) + c`), and runs that one exchange of two neighbouring operations gives (the
`regroup` mend of mend_changes.py says those, `single_moves` finds them).
"""

from __future__ import annotations

import ast
import copy

__all__ = ["MAX_TERMS", "flat_terms", "grouped", "single_moves", "spans", "written"]

# the levels of the binary operators, the tightest highest
_LEVEL = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2, ast.Mod: 2, ast.MatMult: 2, ast.Pow: 4}
_SIGN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
         ast.MatMult: "@", ast.Pow: "**"}
# beyond this many terms the runs to bracket grow past what the mend search should try
MAX_TERMS = 6


def _level(node: ast.AST) -> int | None:
    return _LEVEL.get(type(node.op)) if isinstance(node, ast.BinOp) else None


def _bare(child: ast.AST, parent: ast.BinOp, right: bool) -> bool:
    """Whether `child` was written without brackets of its own as a side of `parent`."""
    inner, outer = _level(child), _level(parent)
    if inner is None or outer is None:
        return False
    if inner != outer:
        return inner > outer
    return right == isinstance(parent.op, ast.Pow)  # `a - b - c` is (a - b) - c; `a ** b ** c` is a ** (b ** c)


def flat_terms(node: ast.BinOp) -> tuple[list[ast.expr], list[type[ast.operator]]]:
    """The terms of `node` as written, left to right, and the operators between them."""
    terms: list[ast.expr] = []
    ops: list[type[ast.operator]] = []

    def walk(part: ast.expr, parent: ast.BinOp | None, right: bool) -> None:
        if isinstance(part, ast.BinOp) and _level(part) and (parent is None or _bare(part, parent, right)):
            walk(part.left, part, False)
            ops.append(type(part.op))
            walk(part.right, part, True)
        else:
            terms.append(part)

    walk(node, None, False)
    return terms, ops


def written(terms: list[ast.expr], ops: list[type[ast.operator]], span: tuple[int, int] | None = None) -> str:
    """The expression as text, every term in brackets of its own, the run `span` (first, last term) bracketed."""
    parts = []
    for i, term in enumerate(terms):
        text = f"({ast.unparse(term)})"
        if span and i == span[0]:
            text = "(" + text
        if span and i == span[1]:
            text += ")"
        parts.append(text if i == 0 else f"{_SIGN[ops[i - 1]]} {text}")
    return " ".join(parts)


def grouped(node: ast.BinOp, span: tuple[int, int]) -> ast.expr | None:
    """`node` with the run of terms `span` bracketed; None where that reads the same as written."""
    terms, ops = flat_terms(node)
    if not (0 <= span[0] < span[1] < len(terms)) or span == (0, len(terms) - 1):
        return None
    made = ast.parse(written(terms, ops, span), mode="eval").body
    same = ast.parse(written(terms, ops), mode="eval").body
    return None if ast.dump(made) == ast.dump(same) else made


def spans(node: ast.BinOp) -> list[tuple[int, int]]:
    """The runs of `node`'s terms whose brackets change what it computes (none past MAX_TERMS terms)."""
    terms, _ = flat_terms(node)
    if len(terms) > MAX_TERMS:
        return []
    runs = [(i, j) for i in range(len(terms)) for j in range(i + 1, len(terms))]
    moves = single_moves(node)
    return [run for run in runs if (made := grouped(node, run)) is not None and ast.dump(made) not in moves]


def _moved(node: ast.BinOp, side: str) -> ast.BinOp | None:
    """`a o (b p c)` made `(a o b) p c` (side "right"), or `(a o b) p c` made `a o (b p c)` ("left"),
    as the `regroup` mend does, where the inner operation differs from the outer."""
    inner = getattr(node, side)
    if not isinstance(inner, ast.BinOp) or type(inner.op) is type(node.op):
        return None
    if side == "right":
        return ast.BinOp(ast.BinOp(node.left, node.op, inner.left), inner.op, inner.right)
    return ast.BinOp(inner.left, inner.op, ast.BinOp(inner.right, node.op, node.right))


def single_moves(node: ast.BinOp) -> set[str]:
    """The dumps of `node` with one `regroup` move made at one of its operations written bare."""
    terms, _ = flat_terms(node)
    term_ids = {id(t) for t in terms}
    bare = [n for n in ast.walk(node) if isinstance(n, ast.BinOp) and id(n) not in term_ids
            and not any(id(t) in term_ids and n in ast.walk(t) for t in terms)]
    order = list(ast.walk(node))
    found = set()
    for n in bare:
        for side in ("left", "right"):
            whole = copy.deepcopy(node)
            twin = list(ast.walk(whole))[order.index(n)]
            moved = _moved(twin, side)
            if moved is None:
                continue
            if twin is whole:
                found.add(ast.dump(moved))
                continue
            for parent in ast.walk(whole):
                for field in ("left", "right"):
                    if getattr(parent, field, None) is twin:
                        setattr(parent, field, moved)
            found.add(ast.dump(whole))
    return found
