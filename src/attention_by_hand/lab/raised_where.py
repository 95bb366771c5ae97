"""Whether an error was raised inside a loop's body: a place two raising functions must share.

Two functions that raise the same error with the same words on every input may still raise it at
different places: in lab 09, an online softmax that keeps its running maximum per score fails
inside its loop, where the reference with `l` for `l[..., None]` in its return fails at the return,
with the same sizes in the message. Such a change of the reference names a slip the learner did
not make. So a raised error carries, where it can be told, whether the line that raised it (or a
line that called it, of the same file) lies in the body of a loop (`for`, `while`, a
comprehension); the error of a change of the reference and the learner's agree only where both
sides say the same (diagnosis.py, through outcomes.agree).

Left out: a function with no loop (a learner's loop where the reference has none raises "in a
loop" at a place the reference's code cannot show: nothing is said), and a file whose source
cannot be read or parsed (a notebook's cell).
"""

from __future__ import annotations

import ast
import linecache
from functools import lru_cache
from pathlib import Path
from types import TracebackType

__all__ = ["in_loop", "raised_in_loop"]


_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@lru_cache(maxsize=64)
def _functions(path: str) -> tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...] | None:
    """Each function of the file: its first and last line, and the line ranges of its loops'
    bodies (a loop's header and its `else` left out; a comprehension's whole expression); None
    when the file cannot be read or parsed."""
    source = "".join(linecache.getlines(path))
    if not source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nodes = list(ast.walk(function))
            bodies = [(n.body[0].lineno, n.body[-1].end_lineno) for n in nodes if isinstance(n, _LOOPS) and n.body]
            bodies += [(n.lineno, n.end_lineno) for n in nodes if isinstance(n, _COMPREHENSIONS)]
            found.append((function.lineno, function.end_lineno, tuple(bodies)))
    return tuple(found)


def in_loop(path: str, line: int | None) -> bool | None:
    """Whether `line` of the file at `path` lies in a loop's body. None when it cannot be told, or
    when the function around it has no loop: a learner's loop and a reference written without one
    (or the other way round) compute the same things at places that cannot be compared."""
    functions = _functions(path) if line else None
    around = [f for f in functions or () if f[0] <= line <= f[1]]
    if not around:
        return None
    bodies = max(around, key=lambda f: f[0])[2]  # the innermost function
    return any(first <= line <= last for first, last in bodies) if bodies else None


def raised_in_loop(tb: TracebackType | None, path: str, resolve: bool = False) -> bool | None:
    """Whether any frame of the traceback that runs code of the file at `path` stands in a loop's
    body (a helper called from a loop raises in the loop); None when none can be told. resolve:
    compare the frames' files by their resolved paths (a learner's file, imported by another name
    of it), not by name alone (a change of the reference, compiled under its path: thousands)."""
    told = set()
    while tb is not None:
        file = tb.tb_frame.f_code.co_filename
        if file == path or (resolve and Path(file).resolve() == Path(path)):
            told.add(in_loop(path, tb.tb_lineno))
        tb = tb.tb_next
    return True if True in told else False if False in told else None
