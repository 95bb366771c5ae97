"""Whether an error was raised inside a loop's body: a place two raising functions must share.

Two functions that raise the same error with the same words on every input may still raise it at
different places: in lab 09, an online softmax that keeps its running maximum per score fails
inside its loop, where the reference with `l` for `l[..., None]` in its return fails at the return,
with the same sizes in the message. Such a change of the reference names a slip the learner did
not make. So a raised error carries, where it can be told, whether the line that raised it lies in
the body of a `for` or `while` loop of its file; the error of a change of the reference and the
learner's agree only where both sides say the same (diagnosis.py, through outcomes.agree).

Left out: a file whose source cannot be read or parsed (a notebook's cell): nothing is said.
"""

from __future__ import annotations

import ast
import linecache
from functools import lru_cache
from types import TracebackType

__all__ = ["in_loop", "raised_in_loop"]


@lru_cache(maxsize=64)
def _loop_bodies(path: str) -> tuple[tuple[int, int], ...] | None:
    """The line ranges of every loop body in the file (the header excluded), or None."""
    source = "".join(linecache.getlines(path))
    if not source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return tuple((node.body[0].lineno, node.end_lineno) for node in ast.walk(tree)
                 if isinstance(node, (ast.For, ast.While, ast.AsyncFor)) and node.body)


def in_loop(path: str, line: int | None) -> bool | None:
    """Whether `line` of the file at `path` lies in a loop's body; None when it cannot be told."""
    bodies = _loop_bodies(path) if line else None
    return None if bodies is None else any(first <= line <= last for first, last in bodies)


def raised_in_loop(tb: TracebackType | None, path: str) -> bool | None:
    """in_loop for the innermost frame of the traceback that runs code of the file at `path`."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return in_loop(path, line)
