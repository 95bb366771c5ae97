"""Where a learner's function raised, and the lines that feed that line: the first place to look
for the change that mends it.

A wrong slice end (`min(j + block, T_k - 1)`) often shows nowhere near its line: an empty tile
makes `amax` raise five lines later. blame.py cannot say where the values part from the
reference's when there are none, so repair.py, which tries at most MAX_CHANGES changes in the
function's order, would reach that line late in a long function. The error's line is known, and
so are the names it reads: the lines that set them, and the lines that set theirs, are tried first.

The lines that feed it are read by fed_lines.py.
"""

from __future__ import annotations

import warnings

import torch

from attention_by_hand.lab.fed_lines import feeding_lines
from attention_by_hand.lab.outcomes import CALL_SECONDS, _at_most, _TooLong, copy_input

__all__ = ["raised_at", "feeding_lines"]


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
