"""Where a learner's function raised, and the lines that feed that line: the first place to look
for the change that mends it.

A wrong slice end (`min(j + block, T_k - 1)`) often shows nowhere near its line: an empty tile
makes `amax` raise five lines later. blame.py cannot say where the values part from the
reference's when there are none, so repair.py, which tries at most MAX_CHANGES changes in the
function's order, would reach that line late in a long function. The error's line is known, and
so are the names it reads: the lines that set them, and the lines that set theirs, are tried first.

Left out: names set through calls or attributes (`self.x`, `out[i] = ...`), and helpers' lines.
"""

from __future__ import annotations

import ast
import warnings

import torch

from attention_by_hand.lab.outcomes import CALL_SECONDS, _at_most, _TooLong, copy_input

__all__ = ["raised_at", "feeding_lines"]

DEPTH = 2  # the error's line, the lines setting what it reads, and those setting what they read


def raised_at(function, args: tuple, seconds: float = CALL_SECONDS) -> int | None:
    """The line of `function`'s own code where it raised on `args`, or None (it did not, or not
    in its own lines, or ran out of time)."""
    code = getattr(function, "__code__", None)  # a partial or a callable object has none of its own
    if code is None or seconds < 0.01:  # (a timer of 0 seconds is no timer at all)
        return None
    try:
        with warnings.catch_warnings(), torch.no_grad(), _at_most(seconds):
            warnings.simplefilter("ignore")
            function(*(copy_input(a) for a in args))
    except _TooLong:
        return None
    except (Exception, SystemExit) as error:  # noqa: BLE001 - any error of the learner's: its line is what is asked
        line, tb = None, error.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is code:
                line = tb.tb_lineno
            tb = tb.tb_next
        return line
    return None


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
