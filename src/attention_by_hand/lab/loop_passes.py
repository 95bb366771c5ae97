"""How many passes a function's own loops make on an input, and the mends that cut them to one.

A mend of a learner's tiled loop can give the reference's numbers by making the loop run once:
`T_k = block` or `T_k = k.shape[0]` for `T_k = k.shape[-2]` leaves one tile of keys, and one tile
cannot be cut wrong. Such a mend takes the loop's work away instead of mending it, so repair.py
drops it: a loop of the learner's that made two passes or more, on an input where the mend holds
and the reference's own loops make several passes too, makes at most one after the mend. Where the
reference loops once (one tile is all there is), a mend that makes the learner's loop run once is
the very fix (a size read off the wrong axis).

The count is of the `line` events on a loop's first line, in the function's own frames (a helper it
calls is not counted): a `for` or a `while` line is met once per pass and once more at the end, and
an inner loop's count starts again at each pass of the outer one.

Left out: which mends are tried (mend_changes.py) and kept (repair.py).
"""

from __future__ import annotations

import ast
import sys

from attention_by_hand.lab.outcomes import call

__all__ = ["loop_lines", "passes", "several", "cuts_to_one"]


def loop_lines(fdef: ast.FunctionDef) -> dict[int, tuple[int, int]]:
    """{first line: (the header's last line, the loop's last line)} of the `for` and `while` loops
    of `fdef` (those of a nested def too: their frames are not the function's, so they count
    nothing). A header may run over several lines: `for t, cols in enumerate(\\n pieces):`."""
    found = {}
    for n in ast.walk(fdef):
        if isinstance(n, (ast.For, ast.While)):
            parts = [n.target, n.iter] if isinstance(n, ast.For) else [n.test]
            found[n.lineno] = (max(p.end_lineno or n.lineno for p in parts), n.end_lineno or n.lineno)
    return found


def passes(function, args: tuple, lines: dict[int, tuple[int, int]], seconds: float | None = None) -> dict[int, int]:
    """{loop line: the most times it was met in one entry of the loop} as `function` runs on `args`
    (call() hands it copies; `seconds` bounds the call). An entry starts where the line is met from
    outside the loop's body: an inner loop starts again at each pass of the outer one."""
    code, most, now = getattr(function, "__code__", None), dict.fromkeys(lines, 0), dict.fromkeys(lines, 0)
    last: dict[int, int] = {}  # frame id -> its last line

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None
        if event == "line":
            line, before = frame.f_lineno, last.get(id(frame), 0)
            if line in lines:
                header_end, end = lines[line]
                now[line] = now[line] + 1 if header_end < before <= end else 1
                most[line] = max(most[line], now[line])
            last[id(frame)] = line
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call(function, args) if seconds is None else call(function, args, seconds)
    finally:
        sys.settrace(previous)
    return most


def several(counts: dict[int, int]) -> bool:
    """Whether some loop made two passes or more in one entry (its line met three times or more)."""
    return any(n >= 3 for n in counts.values())


def cuts_to_one(mended, inputs: list[tuple], lines: dict[int, tuple[int, int]], before: list[dict[int, int]],
                looping: list[bool], seconds: float | None = None) -> bool:
    """Whether, on some input where the reference's own loops make several passes (`looping`), a
    loop that made several in one entry before the mend (`before`, the counts per input) makes one
    or none in every entry after it."""
    for args, counts, loops in zip(inputs, before, looping):
        if not (loops and several(counts)):
            continue
        after = passes(mended, args, lines, seconds)
        if any(counts[line] >= 3 and after[line] <= 2 for line in lines):
            return True
    return False
