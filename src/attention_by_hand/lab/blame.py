"""The line of a learner's function where its values leave the reference's: found by running the
learner's own code, watched, beside the reference's on the same input.

A mistake nobody catalogued is still made on some line. The learner's function is run once with a
tracer on its own frame that records every tensor each local takes, after each line. A value is
*right* when the reference made the same numbers on its way (intermediates.steps), or it is an
argument; a value nobody else made is *vouched for* when a right value was computed from it (a
learner's own step, such as `e = exp(s - m)` before `w = e / e.sum(...)`). The first value that is
neither starts the span where the values part. Then the learner's function is run again with one
of its values replaced by one of the reference's: the first (line, local) whose replacement makes
the whole output right ends the span. Both facts are measured, not guessed: up to the span the
learner's tensors agree with the reference's, and with that one value right, everything is right.
A return line whose tensors are all right and whose value is wrong is the span itself.

calls.py asks `blame` after a quick call whose output is not the reference's; parting.py says it
in the hint only when every wrong call of the function ends its span at the same line and local,
replaced by the same reference local (the same claim on every input tried).

A loop is one statement: its values are read as it ends, never on its way, and the reference's
values made inside its own loops count only as each loop leaves them. A loop that leaves out
work (a key block, a first step) makes values on its way that each equal one the reference made
on its way: compared so, "every value before these lines agrees" would hold and point past the
mistake. So a span says "the loop at line N" and no line inside it.

Left out: a list, set or dict comprehension from Python 3.12 on, a loop run on one line in the
function's own frame (PEP 709): such a function is not searched. Also values made inside the
learner's helpers (their call's line is the one blamed), and outputs that are not tensors or
tuples of tensors.
"""

from __future__ import annotations

import ast
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch

from attention_by_hand.lab.code_layout import Layout, inlined, layout_of, reads_of
from attention_by_hand.lab.intermediates import Made, Step, steps
from attention_by_hand.lab.judging import ATOL, RTOL, close

__all__ = ["Blame", "RETURNED", "blame", "output_close"]

RETURNED = "return"  # the name of a Step that is (an item of) what the reference returns

# A call is replaced at most this many times: each try runs the learner's function once more,
# traced. The tries bound the search, so that its answer is the same on a fast machine and a busy
# one; the seconds are only a guard against a function that is slow traced (the slowest search in
# 62 checks of tuning sets G and H took 0.19 s on two cores; 0.6 s here once cut a search short on a
# busy CI machine, and its span went unsaid).
MAX_TRIES = 24
MAX_SECONDS = 3.0
CANDIDATES_PER_VALUE = 8


@dataclass(frozen=True)
class Blame:
    """The learner's values part from the reference's between lines start and end of its file.

    start: before it, every tensor the learner made is one the reference made too.
    end, name, occurrence, step: with local `name` (its `occurrence`-th value made at line end)
        given the reference's value `step`, the whole output is right.
    step None: line end returns the first wrong value, or raises, and nothing was put in its place.
    calls: the learner's own functions that line end calls.
    got: the learner's value at line end (what it returned, for a return; None if it raised).
    alike: step, then the reference's other values equal to it on this input."""

    start: int
    end: int
    name: str | None
    occurrence: int
    step: Step | None
    calls: tuple[str, ...]
    got: object
    alike: tuple[Step, ...] = ()


@dataclass
class _Event:
    line: int
    name: str | None  # None: the value returned
    occurrence: int
    value: object
    reads: dict[str, int] = field(default_factory=dict)  # local read by the line -> index of its event


def output_close(got, expected) -> bool:
    """Whether two outputs agree: tensors by judging.close, tuples and lists item by item."""
    if isinstance(expected, torch.Tensor):
        return (isinstance(got, torch.Tensor) and got.shape == expected.shape
                and got.is_floating_point() == expected.is_floating_point() and close(got, expected))
    if isinstance(expected, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(expected)
                and all(output_close(g, e) for g, e in zip(got, expected)))
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return isinstance(got, (int, float)) and abs(float(got) - float(expected)) <= ATOL + RTOL * abs(float(expected))
    return got == expected


def _mark(value) -> object:
    """What tells a local's value apart from its last (None: no data, such as a module): a tensor
    and its in-place version, a number itself, a container and its length."""
    if isinstance(value, torch.Tensor):
        return (id(value), value._version)
    if isinstance(value, (bool, int, float, str)):
        return (type(value), value)
    if isinstance(value, (list, tuple, dict, set)):
        return (id(value), len(value))
    return None


def _run(function, make_args: Callable[[], tuple], layout: Layout,
         replace: tuple[int, str, int, torch.Tensor] | None = None,
         skip: tuple[int, int, str, torch.Tensor, int] | None = None):
    """Run function(*make_args()) traced: (its events, its output, whether it returned, the
    (line, visit) that raised, if it raised).
    replace (line, name, occurrence, value): give that local that value right after it is made.
    skip (line, visit, name, value, next line): on that visit, the line is not run: the local is
    given the value, and the function goes on at the next line (a line that raised, mended)."""
    code = function.__code__
    events: list[_Event] = []
    marks: dict[str, object] = {}
    latest: dict[str, int] = {}  # local -> index of the event that made its current value
    count: dict[tuple[int, str | None], int] = {}
    state = {"line": None, "depth": 0, "raised": None, "broken": False}
    visits: dict[int, int] = {}

    statements = layout.statements

    def record(frame, line):
        reads = {n: latest[n] for n in reads_of(statements.get(line)) if n in latest}
        for name, value in list(frame.f_locals.items()):
            mark = _mark(value)
            if mark is None or marks.get(name) == mark:
                continue
            marks[name] = mark
            kept = value.detach().clone() if isinstance(value, torch.Tensor) else None  # a number: unjudged
            if line is None:  # an argument, as given
                latest[name] = len(events)
                events.append(_Event(code.co_firstlineno, name, -1, kept))
                continue
            k = count.get((line, name), 0)
            count[(line, name)] = k + 1
            if replace and (line, name, k) == replace[:3]:
                value = replace[3].clone()
                frame.f_locals[name] = value  # written back into the frame when the tracer returns
                marks[name], kept = _mark(value), value.clone()
            latest[name] = len(events)
            events.append(_Event(line, name, k, kept, reads))

    def local(frame, event, arg):
        if frame.f_code is not code or state["broken"]:
            return None
        try:
            return watch(frame, event, arg)
        except Exception:  # noqa: BLE001 - the watcher's own failure (a jump refused): the run says nothing
            state["broken"] = True
            return None

    def watch(frame, event, arg):
        if event == "line":
            line = layout.loop.get(frame.f_lineno, frame.f_lineno)
            if line == state["line"] and line in layout.loop:
                state["raised"] = None  # (as below: an exception the loop caught is no raise)
                return local  # still inside the loop: its values are read when it ends
            record(frame, state["line"])
            state["line"] = line
            visits[line] = visits.get(line, 0) + 1
            if skip and (line, visits[line] - 1) == skip[:2]:
                frame.f_locals[skip[2]] = skip[3].clone()  # written back when the tracer returns
                frame.f_lineno = skip[4]
            state["raised"] = None  # an exception caught inside the function is no raise of its own
        elif event == "exception":
            line = layout.loop.get(frame.f_lineno, frame.f_lineno)
            state["raised"] = (line, visits.get(line, 1) - 1)
        elif event == "return" and state["raised"] is None:  # (a frame left by an exception "returns" too)
            record(frame, state["line"])
            line = state["line"] or code.co_firstlineno
            reads = {n: latest[n] for n in reads_of(statements.get(line)) if n in latest}
            events.append(_Event(line, None, 0, arg, reads))
        return local

    def tracer(frame, event, arg):
        if frame.f_code is not code or state["depth"]:
            return None
        state["depth"] = 1  # only the outermost call of the function is watched
        return local

    previous = sys.gettrace()
    output, returned = None, False
    sys.settrace(tracer)
    try:
        torch.manual_seed(0)
        with torch.no_grad():
            output = function(*make_args())
        returned = True
    except (Exception, SystemExit):  # noqa: BLE001 - a replaced value may not fit; that try only fails
        pass
    finally:
        sys.settrace(previous)
    if state["broken"]:
        return [], None, False, None
    return events, output, returned, None if returned else state["raised"]


def _vouches(i: int, events: list[_Event], right: list[bool], layout: Layout) -> bool:
    """Whether right value i vouches for what its statement read. A loop reads all its body reads:
    it vouches only when every tensor it left is right (its right index alone vouches for nothing)."""
    line = events[i].line
    if line not in layout.loop:
        return True
    return all(right[j] for j, e in enumerate(events) if e.line == line and isinstance(e.value, torch.Tensor))


def _as_loops_end(reference: dict[Step, torch.Tensor], made: dict[Step, Made], top) -> dict[Step, torch.Tensor]:
    """The reference's values with those made inside a loop kept only as the loop leaves them: of
    its own locals made in one of its outermost loops, the last value of each; of the functions it
    calls in there, none (the last call's arguments are the loop's state one step early); of a
    loop inside a function it calls elsewhere, the last value of each local. A loop of the
    learner's that leaves out work (a key block, a first step) ends with a value the reference held
    on its way: compared with that, it would pass for right, and the span would point past the
    mistake. top: the reference's code object."""
    layouts: dict[object, Layout] = {}

    def loop_of(code, line: int) -> int | None:
        if code not in layouts:
            layouts[code] = layout_of(code)
        return layouts[code].loop.get(line)

    group: dict[Step, tuple | None] = {}
    for step in reference:
        where = made.get(step)
        if where is None:
            continue
        around = loop_of(top, where.line)
        if around is not None and where.code is not top:
            group[step] = None  # dropped
        elif around is not None:
            group[step] = (around, step.name)
        elif where.code is not top and loop_of(where.code, step.line) is not None:
            group[step] = (where.code, loop_of(where.code, step.line), step.name, step.line)
    last: dict[tuple, Step] = {}
    for step, key in group.items():
        if key is not None and (key not in last or step.binding > last[key].binding):
            last[key] = step
    return {s: v for s, v in reference.items() if s not in group or (group[s] is not None and last[group[s]] == s)}


def blame(function, make_args: Callable[[], tuple], reference_function, expected,
          seconds: float = MAX_SECONDS) -> Blame | None:
    """Where the learner's `function` parts from `reference_function` on make_args()'s inputs
    (whose reference output, `expected`, the learner's does not match); None when unsure, or
    when the search would take more than `seconds`."""
    code = getattr(function, "__code__", None)
    if code is None or getattr(reference_function, "__code__", None) is None:
        return None
    budget = _Budget(time.perf_counter() + seconds)
    layout = layout_of(code)
    statements, after = layout.statements, layout.after
    if inlined(statements):
        return None  # a loop on one line: its values cannot be read as it ends
    where: dict[Step, Made] = {}
    reference = steps(reference_function, make_args(), in_place=True, deep=True, made=where)
    if not reference or budget.over():
        return None
    reference = _as_loops_end(reference, where, reference_function.__code__)
    # what the reference returns stands in too: it may be made on the return line, never stored
    returned = expected if isinstance(expected, (tuple, list)) else (expected,)
    for i, value in enumerate(returned):
        if isinstance(value, torch.Tensor):
            reference[Step(RETURNED, i, 0)] = value
    events, output, returned, raised_at = _run(function, make_args, layout)
    if (returned and output_close(output, expected)) or (not returned and raised_at is None) or budget.over():
        return None
    made = [e.value for e in events if isinstance(e.value, torch.Tensor)]
    # the reference's values the learner never made come first: the one it should have made is one
    unmade = {step for step, v in reference.items() if not any(m.shape == v.shape and close(m, v) for m in made)}
    right = _judged(events, reference, unmade)
    # what a loop leaves behind that nothing after it reads (its index, its last row) cannot make
    # the output wrong: no span starts there
    read = {j for e in events for j in e.reads.values()}
    left = {i for i, e in enumerate(events) if e.line in layout.loop and e.name is not None and i not in read}
    for i in left:
        right[i] = True  # though it vouches for nothing
    for i in range(len(events) - 1, -1, -1):  # a value a right one was made from is vouched for
        if right[i] and i not in left and _vouches(i, events, right, layout):
            for j in events[i].reads.values():
                right[j] = True
    departed = next((i for i, ok in enumerate(right) if not ok), None)
    if departed is None and returned:
        return None
    found = _mended(function, make_args, expected, layout, events, right, departed, reference, unmade, budget)
    if found is not None or returned:
        return found
    # it raised, and no value of its own before that mends it: the line that raised, run as the reference would
    line, visit = raised_at
    statement = statements.get(line)
    start = min(line, events[departed].line) if departed is not None else line
    # without a value to put in its place, the span alone: it ends at the line that raised
    spanned = Blame(start, line, None, visit, None, _calls(function, statement), None)
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and line in after):
        return spanned
    name = statement.targets[0].id
    # the value the line should make is most likely the next one the reference made after the
    # last one the learner made too
    last = max((s.line for s in reference if s not in unmade and s.line), default=0)
    order = sorted(reference.items(), key=lambda sv: (sv[0] not in unmade, 0 < sv[0].line <= last, sv[0].line or 10**9))
    for step, value in order[:CANDIDATES_PER_VALUE]:
        if not budget.spend():
            return spanned
        _, fixed, ok, _ = _run(function, make_args, layout, skip=(line, visit, name, value, after[line]))
        if ok and output_close(fixed, expected):
            return Blame(start, line, name, visit, step, _calls(function, statement), None, _alike(step, value, reference))
    return spanned


class _Budget:
    """The tries left: MAX_TRIES runs, until `deadline` (time.perf_counter's)."""

    def __init__(self, deadline: float):
        self.deadline, self.tries = deadline, 0

    def over(self) -> bool:
        return time.perf_counter() > self.deadline

    def spend(self) -> bool:
        if self.tries >= MAX_TRIES or self.over():
            return False
        self.tries += 1
        return True


def _judged(events: list[_Event], reference: dict[Step, torch.Tensor], unmade: set[Step]) -> list[bool]:
    """Whether each value is right: an argument, or a tensor equal to a value of the reference's
    that no earlier value of the learner's stood for. A second value equal to one already matched
    is right only when no value of that shape is left unmade: `v = x @ wq`, equal to the
    reference's q, is wrong where the reference's v is still to be made. A number or a list is
    never judged right by itself (vouching may make it so)."""
    used: set[Step] = set()
    right = []
    for e in events:
        if not isinstance(e.value, torch.Tensor):
            right.append(e.occurrence < 0)
            continue
        matches = [s for s, v in reference.items() if v.shape == e.value.shape
                   and v.is_floating_point() == e.value.is_floating_point() and close(e.value, v)]
        fresh = [s for s in matches if s not in used]
        used.update(fresh[:1])
        shape_left = any(s in unmade and reference[s].shape == e.value.shape for s in reference)
        right.append(e.occurrence < 0 or (e.name is not None and (bool(fresh) or (bool(matches) and not shape_left))))
    return right


def _alike(step: Step, value: torch.Tensor, reference: dict[Step, torch.Tensor]) -> tuple[Step, ...]:
    """step, then the reference's other values equal to it on this input."""
    return (step, *(s for s, v in reference.items() if s != step and v.shape == value.shape and close(v, value)))


def _mended(function, make_args, expected, layout, events, right, departed, reference, unmade, budget) -> Blame | None:
    """The first wrong value, from `departed` on, that the reference's value mends (the whole
    output right), or the return line that makes the first wrong value; None when none does."""
    if departed is None:
        return None
    for i in range(departed, len(events)):
        event = events[i]
        if right[i]:
            continue
        start = min(events[departed].line, event.line)  # an `if` may run a later line first
        if event.name is None:  # the return line makes the first wrong value the reference also makes
            return Blame(start, event.line, None, 0, None, _calls(function, layout.statements.get(event.line)), event.value)
        for step, value in _candidates(event.value, reference, unmade):
            if not budget.spend():
                return None
            _, fixed, ok, _ = _run(function, make_args, layout, (event.line, event.name, event.occurrence, value))
            if ok and output_close(fixed, expected):
                return Blame(start, event.line, event.name, event.occurrence, step,
                             _calls(function, layout.statements.get(event.line)), event.value, _alike(step, value, reference))
    return None


def _candidates(value, reference: dict[Step, torch.Tensor], unmade: set[Step]) -> list[tuple[Step, torch.Tensor]]:
    """The reference's values that could stand in for `value`: the same shape first, nearest in
    numbers first (a wrong value is mostly near the right one: unmasked for masked, another scale),
    those the learner never made before those it did; then values with an axis of size 1 more or
    fewer; then values with the same number of axes."""
    if not isinstance(value, torch.Tensor):
        return []

    def distance(v: torch.Tensor) -> float:
        if not (value.is_floating_point() and v.is_floating_point()):
            return 0.0
        gap = torch.nan_to_num(value - v, nan=1e30, posinf=1e30, neginf=1e30).norm()
        return float(gap / (torch.nan_to_num(v, posinf=0.0, neginf=0.0).norm() + 1e-12))

    same = [(s, v) for s, v in reference.items() if v.shape == value.shape]
    same.sort(key=lambda sv: (sv[0] not in unmade, distance(sv[1])))
    # An axis of size 1 more or fewer (a mean without keepdim=True) is the nearest other shape.
    unit = [(s, v) for s, v in reference.items()
            if v.dim() != value.dim() and [n for n in v.shape if n != 1] == [n for n in value.shape if n != 1]]
    unit.sort(key=lambda sv: (sv[0] not in unmade, sv[0].line or 10**9))
    near = [(s, v) for s, v in reference.items() if v.shape != value.shape and v.dim() == value.dim()]
    near.sort(key=lambda sv: (sv[0] not in unmade, sv[0].line or 10**9))
    return (same + unit + near)[:CANDIDATES_PER_VALUE]


def _calls(function, statement: ast.stmt | None) -> tuple[str, ...]:
    """The learner's own functions (of its file) a statement calls."""
    if statement is None:
        return ()
    names = {n.func.id for n in ast.walk(statement) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    mine = Path(function.__code__.co_filename)
    found = []
    for name in sorted(names):
        other = function.__globals__.get(name)
        other_code = getattr(other, "__code__", None)
        if other_code is not None and Path(other_code.co_filename) == mine:
            found.append(name)
    return tuple(found)
