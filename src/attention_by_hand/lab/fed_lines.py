"""The lines that feed a line of a learner's function: its statement, the statements that set the
names it reads, and those that set theirs (`DEPTH` steps back), read off the code alone.

repair.py tries the changes on the lines feeding the line where a function raised first
(raised_lines.py); diagnosis.py asks which calls made a raising line's values (`feeding_calls`,
through raised_where.py), where an error's words tell no sizes.

Left out: names set through calls or attributes (`self.x`, `out[i] = ...`), and helpers' lines.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name

__all__ = ["DEPTH", "feeding_calls", "feeding_lines"]

DEPTH = 2  # the error's line, the lines setting what it reads, and those setting what they read


def feeding_lines(fdef: ast.FunctionDef, line: int, depth: int = DEPTH) -> set[int]:
    """`line`, and the lines of the statements that set the names it reads, `depth` steps back."""
    simple = [s for s in ast.walk(fdef) if isinstance(s, ast.stmt) and s is not fdef]
    at = [s for s in simple if s.lineno <= line <= (s.end_lineno or s.lineno)]
    if not at:
        return set()
    found, reading = {line}, _reads(min(at, key=lambda s: (s.end_lineno or s.lineno) - s.lineno))
    for _ in range(depth):
        setters = [s for s in simple if _sets(s) & reading]
        found |= {s.lineno for s in setters}
        reading = set().union(*(_reads(s) for s in setters)) if setters else set()
    return found


def feeding_calls(fdef: ast.FunctionDef, line: int) -> set[str]:
    """The names of the calls made by the statement at `line` and by those that feed it
    (feeding_lines): `arange` for `positions = torch.arange(T)` read by the raising line."""
    statements = [s for s in ast.walk(fdef) if isinstance(s, ast.stmt) and s is not fdef]
    at = [s for s in statements if s.lineno <= line <= (s.end_lineno or s.lineno)]
    if not at:
        return set()
    fed = feeding_lines(fdef, line) - {line}
    chosen = [min(at, key=lambda s: (s.end_lineno or s.lineno) - s.lineno)] + [s for s in statements if s.lineno in fed]
    return {call_name(n) for s in chosen for part in _head(s) for n in ast.walk(part) if isinstance(n, ast.Call)} - {None}


def _head(statement: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that are its own: a loop's header, not its body."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [statement.target, statement.iter]
    if isinstance(statement, (ast.If, ast.While)):
        return [statement.test]
    if isinstance(statement, (ast.With, ast.Try, ast.FunctionDef, ast.ClassDef)):
        return []
    return [statement]


def _reads(statement: ast.stmt) -> set[str]:
    return {n.id for part in _head(statement) for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _sets(statement: ast.stmt) -> set[str]:
    return {n.id for part in _head(statement) for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
