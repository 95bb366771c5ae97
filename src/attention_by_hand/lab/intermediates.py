"""A learner's output that is one of the reference's own intermediate values: the scores before the
softmax, the heads before the projection, the input unchanged.

A function that stops early, or returns the wrong variable, gives a value the reference also
computed on its way. The reference is run once per input with a tracer that records every value
each of its locals takes (a name rebound by `scores = scores.masked_fill(...)` has two); a value
is named when it equals the learner's output on EVERY input tried, and only when exactly one
(name, binding) does, so that the hint can quote the line that made it.

Left out: values inside the functions the reference calls, and outputs that are not tensors.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import torch

from attention_by_hand.lab.judging import close

__all__ = ["Made", "Step", "steps", "intermediate"]


MAX_STEPS = 2000  # a loop that fills a table one cell at a time makes one value per cell


@dataclass(frozen=True)
class Step:
    """The `binding`-th value (0: as given, for an argument) of local `name`, made at `line`."""

    name: str
    binding: int
    line: int


@dataclass(frozen=True)
class Made:
    """Where a Step was made: `code`, the function that made it, while `function` itself ran `line`
    (for a value of `function`'s own, its line; for one of a function it calls, the calling line)."""

    code: object
    line: int


def steps(function, args: tuple, in_place: bool = False, deep: bool = False,
          made: dict[Step, Made] | None = None) -> dict[Step, torch.Tensor]:
    """Every tensor value the locals of `function` took while it ran on `args`, by Step.

    in_place: a tensor changed in place (`counts[a, b] += 1`) takes a new value too.
    deep: the functions of the same file that it calls are watched too (their lines tell them apart).
    made: filled with where each step was made, when given."""
    code = function.__code__
    seen: dict[tuple, object] = {}  # (code, name) -> what tells its current value apart
    count: dict[tuple, int] = {}
    found: dict[Step, torch.Tensor] = {}
    last_line: dict[int, int] = {}  # frame -> the line it ran last
    outer = {"line": code.co_firstlineno}  # the line `function` itself is on (it may be in a call)

    def record(frame):
        key = id(frame)
        for name, value in frame.f_locals.items():
            mark = (id(value), value._version if in_place else 0) if isinstance(value, torch.Tensor) else None
            if mark is not None and seen.get((key, name)) != mark and len(found) < MAX_STEPS:
                seen[(key, name)] = mark
                n = count.get((frame.f_code, name), -1) + 1
                count[(frame.f_code, name)] = n
                step = Step(name, n, last_line.get(key, frame.f_code.co_firstlineno))
                found[step] = value.detach().clone()
                if made is not None:
                    made[step] = Made(frame.f_code, step.line if frame.f_code is code else outer["line"])

    def tracer(frame, event, arg):
        if frame.f_code is not code and not (deep and frame.f_code.co_filename == code.co_filename):
            return None
        if len(found) >= MAX_STEPS:
            return None  # full: the values are cut off, and the search is given up below
        if event == "call":  # a frame's id may be a finished one's: nothing of that one carries over
            last_line.pop(id(frame), None)
            for key in [k for k in seen if k[0] == id(frame)]:
                del seen[key]
        if event in ("line", "return"):
            record(frame)
            last_line[id(frame)] = frame.f_lineno
            if frame.f_code is code and event == "line":
                outer["line"] = frame.f_lineno
        if event == "return" and frame.f_code is not code and isinstance(arg, torch.Tensor) and len(found) < MAX_STEPS:
            # what a function it calls returns, though its caller may never store it
            n = count.get((frame.f_code, None), -1) + 1
            count[(frame.f_code, None)] = n
            step = Step(f"{frame.f_code.co_name}()", n, frame.f_lineno)
            found[step] = arg.detach().clone()
            if made is not None:
                made[step] = Made(frame.f_code, outer["line"])
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with torch.no_grad():
            torch.random.default_generator.manual_seed(0)  # as diagnosis.py calls every function
            function(*args)
    except Exception:  # noqa: BLE001 - the reference runs on every input a check uses; a probe may be odd
        return {}
    finally:
        sys.settrace(previous)
    return found if len(found) < MAX_STEPS else {}


def intermediate(function, inputs: list[tuple], gots: list, lines: list[str]) -> str | None:
    """The one intermediate value of `function` equal to each got on its input, in words; or None.

    lines: the reference file's lines, to quote the statement that made the value."""
    candidates: set[Step] | None = None
    for args, got in zip(inputs, gots):
        if not isinstance(got, torch.Tensor):
            return None
        matching = {
            step for step, value in steps(function, args).items()
            if value.shape == got.shape and value.is_floating_point() == got.is_floating_point() and close(got, value)
        }
        candidates = matching if candidates is None else candidates & matching
        if not candidates:
            return None
    if not candidates or len({(s.name, s.binding) for s in candidates}) != 1:
        return None
    step = min(candidates, key=lambda s: s.line)
    if step.binding == 0 and step.line == function.__code__.co_firstlineno:
        return f"yours returns the argument `{step.name}` unchanged: none of the reference's steps was applied to it"
    made = lines[step.line - 1].split("#")[0].strip() if 0 < step.line <= len(lines) else ""
    where = f" as `{made}` leaves it" if made else ""
    return (f"yours is the reference's intermediate value `{step.name}`{where}, not its output: "
            "the steps after it are missing or leave it as it was, or another variable is returned")
