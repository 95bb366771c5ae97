"""Calling a learner's functions, one call at a time, and saying what happened as events.

The same loop serves the child process (child.py, which writes each event to its results file
as it happens) and the tests (which judge a fixture in their own process, where the child is
not what is under test). An event is a JSON-able dict:

    {"event": "start", "id": 3}                      a call begins (so a time-out can name it)
    {"event": "result", "id": 3, "value": <encoded>, "changed": [0]}   changed: the arguments
                                                     the call modified in place, by position;
                                                     "nan": [line, name, code, skips] where it first made a nan
                                                     "blame": {...} where it parts from the reference (blame.py),
                                                     with "body", the code of the span's lines between its
                                                     first and last (a last line that is a loop: its body),
                                                     and "sizes", those that end unlike the reference's
                                                     "shared": [[0, 1]] parts returned that are one tensor,
                                                     "warned": [[line, text]] torch's warnings (learner_notes.py)
                                                     "line_calls": not right, no span found: {call: words}
                                                     for its one `return` line (line_calls.py)
    {"event": "raised", "id": 3, "type": "IndexError", "message": "...", "line": 41, "function": "dot"}
                                                     "own_raise": a NotImplementedError of the file's own `raise`
                                                     "line_words": what the raising line's values show (a 1-D
                                                     tensor met by the wrong axis, a name that is None or a
                                                     number, a slice of an axis of length 1); "line_cause":
                                                     true where that slice is said (unit_slice.py)
                                                     "names", "known": the names its raising statement and its
                                                     function assign that the reference's assigns too
                                                     (raised_where.py)
                                                     "line_calls": {call: words} for the calls on the raising
                                                     line the reference never makes (line_calls.py)
                                                     "shapes": {name: shape} of the tensors it reads (read_shapes.py)
    {"event": "fatal", "reason": "exit" | "memory" | "missing", ...}   nothing more is called
    {"event": "done"}                                every call was made; what follows only adds to hints:
    {"event": "unused", "function": "dot", "arguments": [[1, -1]], "tried": [0, 1], "random": false}
                                                     arguments that never reach its output, or one part
                                                     of it; whether it draws random numbers (unused.py)
    {"event": "repair", "function": "dot", "line": 41, "text": "...", "words": "...", "other": null,
     "many": false, "own": true, "kept": [40],       a mend, and another naming another slip (repair.py);
     "fresh": true}                                  whether its line is the function's own (no helper's);
                                                     the reference's lines the learner wrote word for
                                                     word, and whether the mend's line is not one of
                                                     them (kept_lines.py)
    {"event": "pitfalls", "function": "dot", "found": [[41, "..."]]}   Python pitfalls of its code (pitfalls.py)

Left out: importing the learner's file and the limits on it (child.py); judging (verdict.py, judging.py).
"""

from __future__ import annotations

import dis
import inspect
import linecache
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from attention_by_hand.lab.broadcast_words import misaligned_vector
from attention_by_hand.lab.called_words import layer_applied
from attention_by_hand.lab.changed_where import change_made
from attention_by_hand.lab.code_layout import function_def
from attention_by_hand.lab.first_nan import first_nan, has_nan, skips_nan
from attention_by_hand.lab.given_helpers import as_given
from attention_by_hand.lab.learner_notes import recording, shared_parts
from attention_by_hand.lab.line_calls import line_calls, return_line, span_body
from attention_by_hand.lab.none_words import none_read
from attention_by_hand.lab.read_shapes import read_shapes
from attention_by_hand.lab.raised_where import (assigned_around, assigned_at, assigned_names, called_names, checked_line,
                                                 raised_in_loop, written_integers)
from attention_by_hand.lab.size_locals import sizes_apart
from attention_by_hand.lab.unit_slice import unit_slice
from attention_by_hand.lab.unchanged import same
from attention_by_hand.lab.wire import MAX_TEXT, decode, encode

__all__ = ["call_all", "missing_functions", "learner_frame", "describe", "is_out_of_memory"]

Emit = Callable[..., None]  # emit(event="result", id=3, ...)


def learner_frame(tb, learner: Path) -> tuple[int | None, str | None]:
    """(line, function) of the learner's file nearest to where an exception was raised."""
    line = function = None
    for frame in traceback.extract_tb(tb):
        if Path(frame.filename).resolve() == learner:
            line, function = frame.lineno, frame.name
    return line, function


def _shared_names(learner: Path, line: int | None, reference: ModuleType | None,
                  function: str) -> tuple[list[str], list[str]]:
    """(the names the learner's statement at `line` assigns, the names its function assigns), each
    kept only where the reference's `function` assigns it too (raised_where.py): the learner's own
    names say nothing of where the reference would raise. `line` is the checked function's own
    step that raised (raised_where.checked_line). Nothing on a file that cannot be read."""
    try:
        theirs = getattr(reference, function, None)
        fdef = function_def(theirs.__code__) if hasattr(theirs, "__code__") else None
        shared = assigned_names(fdef) if fdef is not None else frozenset()
        mine, known = assigned_at(str(learner), line), assigned_around(str(learner), line)
    except Exception:  # noqa: BLE001 - where the error was raised only narrows a diagnosis; it never breaks a check
        return [], []
    return sorted((mine or frozenset()) & shared), sorted((known or frozenset()) & shared)


def raised_by_a_raise(tb, learner: Path) -> bool:
    """Whether the learner's file raised the exception with a `raise` statement of its own (the
    NotImplementedError of a function not written yet), not torch from inside a call on that line
    (torch raises NotImplementedError too, for an operation a dtype does not have): the innermost
    frame is the learner's, stopped at a RAISE_VARARGS instruction."""
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if Path(code.co_filename).resolve() != learner:
        return False
    return 0 <= tb.tb_lasti < len(code.co_code) and code.co_code[tb.tb_lasti] == dis.opmap["RAISE_VARARGS"]


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:MAX_TEXT]


def is_out_of_memory(error: BaseException) -> bool:
    # torch reports a failed allocation as RuntimeError "... can't allocate memory ...".
    return isinstance(error, MemoryError) or (isinstance(error, RuntimeError) and "allocate" in str(error))


# A call is made again under the nan tracer only when it was quick: traced, it runs several
# times slower, and the check's time limit is for the whole file.
TRACE_SECONDS = 0.25


def _nan_made(module: ModuleType, call: dict, originals: list, value, learner: Path) -> tuple[int, str, str, bool] | None:
    """Where the learner's function first made a nan, when its output holds one its inputs did not
    (first_nan.py), and whether it skips nans somewhere: the call is made again on copies of the
    inputs, the same seed first."""
    import torch

    if not has_nan(value) or any(has_nan(a) for a in originals):
        return None
    args = [decode(a) for a in call["args"]]

    def again():
        torch.manual_seed(0)
        with torch.no_grad():
            getattr(module, call["function"])(*args)

    where = first_nan(again, learner)
    if where is None:
        return None
    try:  # whether the function skips a nan somewhere (first_nan.skips_nan): its typed nan may be meant so
        skips = skips_nan(inspect.getsource(getattr(module, call["function"])))
    except (OSError, TypeError):
        skips = False
    return (*where, skips)


# The blame search runs the learner's function several times more, traced: it has this many
# seconds in all per child, and a function it once could not blame is not searched again. A guard,
# far above what a file takes (0.35 s at most for all of a check's searches, in 62 checks of tuning
# sets G and H): the searches are bounded by their tries, so that a busy machine gives the same
# hint as a quiet one. It runs inside the learner's time limit, so it stays small.
BLAME_SECONDS = 4.0


class _Blamer:
    """Asks blame.py, for the calls whose output is not the reference's, within the budget.

    Returns RIGHT when the output is the reference's, None when it is not (or may not be) and no
    span was found, else the span as the event's "blame"."""

    RIGHT = "right"

    def __init__(self, module: ModuleType, reference: ModuleType | None):
        self.module, self.reference = module, reference
        self.spent, self.given_up, self.sized = 0.0, set(), set()  # given_up: searched, and no span found

    def __call__(self, call: dict, value, took: float, raised: bool = False):
        """raised: the call raised (value is then nothing)."""
        import torch

        from attention_by_hand.lab.blame import MAX_SECONDS, blame, output_close

        name = call["function"]
        reference = getattr(self.reference, name, None)
        if reference is None:
            return self.RIGHT  # nothing to compare with: the event carries no "blame"
        if took >= TRACE_SECONDS or name in self.given_up or self.spent >= BLAME_SECONDS:
            return None  # not searched: the function's span is not said (every wrong call needs one)
        started = time.perf_counter()

        def make_args():
            return tuple(decode(a) for a in call["args"])

        found = None
        try:
            torch.manual_seed(0)
            with torch.no_grad():
                expected = reference(*make_args())
        except (Exception, SystemExit):  # noqa: BLE001 - where the reference raises too, there is nothing to say
            self.spent += time.perf_counter() - started
            return self.RIGHT
        try:
            if not raised and output_close(value, expected):
                return self.RIGHT
            seconds = min(MAX_SECONDS, BLAME_SECONDS - self.spent - (time.perf_counter() - started))
            found = blame(getattr(self.module, name), make_args, reference, expected, seconds)
        except (Exception, SystemExit):  # noqa: BLE001 - the search only adds to a hint; it never breaks a check
            found = None
        finally:
            self.spent += time.perf_counter() - started
        if found is None:
            self.given_up.add(name)
            return None
        step = [[s.name, s.binding, s.line] for s in found.alike] or None
        file = getattr(self.module, name).__code__.co_filename
        code = [linecache.getline(file, line).split("#")[0].strip()[:MAX_TEXT] for line in (found.start, found.end)]
        body = [linecache.getline(file, line).split("#")[0].strip()[:MAX_TEXT] for line in span_body(file, found.start, found.end)]
        sizes = self.sizes(name, reference, make_args, expected)
        return {"start": found.start, "end": found.end, "name": found.name, "step": step, "code": code,
                "calls": [c for c in found.calls if not as_given(self.module, self.reference, c)], "got": encode(found.got), "raised": raised, **({"body": body} if body else {}),
                **({"sizes": sizes} if sizes else {})}

    def sizes(self, name: str, reference, make_args, expected) -> list:
        """size_locals.py: the sizes the learner's function took otherwise than the reference, once
        per function (on its first wrong call with a span) and within the search's budget."""
        import torch

        from attention_by_hand.lab.blame import output_close

        if name in self.sized or self.spent >= BLAME_SECONDS:
            return []
        self.sized.add(name)
        started = time.perf_counter()
        try:
            torch.manual_seed(0)
            with torch.no_grad():
                return sizes_apart(getattr(self.module, name), reference, make_args, lambda got: output_close(got, expected))
        except (Exception, SystemExit):  # noqa: BLE001 - sizes only add to a hint
            return []
        finally:
            self.spent += time.perf_counter() - started


# Mending (repair.py) starts only while the calls have taken less than this, counted from the
# first call and without the blame and unused searches' time (each bounded apart): it is extra work,
# and a slow file has little time to spare.
MEND_AFTER = 8.0


class _Mender:
    """Asks repair.py, once all calls are made, for each function that was wrong on some call or
    not searched there (repair.py decides which calls were wrong): one change of its code that
    makes it right on every call. A function with a call slower than TRACE_SECONDS is not mended
    (each change runs it again). Emits {"event": "repair", ...}."""

    def __init__(self, module: ModuleType, reference: ModuleType | None, calls: list[dict]):
        self.module, self.reference, self.calls = module, reference, calls
        self.begun = time.perf_counter()
        self.wrong: dict[str, None] = {}  # in the order they were first wrong
        self.first_wrong: dict[str, dict] = {}  # function -> its first call that was wrong
        self.slow: set[str] = set()
        self.spans: dict[str, set] = {}
        self.nans: dict[str, set[int]] = {}  # function -> the lines where its calls first made a nan

    def saw(self, call: dict, found, took: float, nan_line: int | None = None) -> None:
        """found: what _Blamer said of the call (RIGHT, a span, or None); took: its seconds; nan_line:
        where the call first made a nan (first_nan.py), which stands for a span where none was found."""
        name = call["function"]
        if nan_line is not None:
            self.nans.setdefault(name, set()).add(nan_line)
        if took >= TRACE_SECONDS:
            self.slow.add(name)
        if found == _Blamer.RIGHT:
            return
        self.wrong.setdefault(name)
        self.first_wrong.setdefault(name, call)
        self.spans.setdefault(name, set()).add((found["start"], found["end"]) if isinstance(found, dict) else None)

    def emit_repairs(self, emit: Emit, searched: float = 0.0) -> None:
        """searched: the seconds the blame and unused searches took, not counted against MEND_AFTER."""
        from attention_by_hand.lab.kept_lines import kept_event
        from attention_by_hand.lab.mutants import reachable
        from attention_by_hand.lab.repair import SECONDS, repair

        if self.reference is None or time.perf_counter() - self.begun - searched > MEND_AFTER:
            return
        deadline = time.perf_counter() + SECONDS
        checked = {call["function"] for call in self.calls}
        for name in self.wrong:
            if name in self.slow:
                continue
            try:
                # a function whose checked helper is wrong may be right itself: nothing to mend
                if set(reachable(self.module, name)) & (set(self.wrong) - {name}) & checked:
                    continue
                spans = self.spans[name]
                span = next(iter(spans)) if len(spans) == 1 else None
                inputs = [tuple(decode(a) for a in call["args"]) for call in self.calls if call["function"] == name]
                found = repair(self.module, self.reference, name, inputs, checked, span, deadline, self.nans.get(name, set()))
            except (Exception, SystemExit):  # noqa: BLE001 - a mend only adds to a hint; it never breaks a check
                found = None
            if found is not None:
                other = found.other and {"line": found.other.line, "text": found.other.text[:MAX_TEXT], "words": found.other.words}
                code = getattr(self.module, name).__code__  # own: the mended line is the function's, no helper's
                own = code.co_firstlineno <= found.line <= max((n for *_, n in code.co_lines() if n), default=0)
                emit(event="repair", function=name, line=found.line, text=found.text[:MAX_TEXT], words=found.words, op=found.op,
                     other=other, many=found.many, own=own, **kept_event(self.module, self.reference, name, found.line, list(found.texts)))


def missing_functions(module: ModuleType, names: list[str]) -> list[str]:
    """The names the checker calls that the learner's module does not define as functions."""
    return [name for name in names if not callable(getattr(module, name, None))]


def call_all(module: ModuleType, calls: list[dict], learner: Path, emit: Emit, on_out_of_memory=None,
             reference: ModuleType | None = None) -> bool:
    """Make every call of the request on `module`, emitting one event per step.

    Returns False when a call ended the run (sys.exit, out of memory), True when every call was
    made. `on_out_of_memory()` frees the caller's reserve first, so the report has room.
    reference: the lab's reference module, to say where a wrong output parts from it (blame.py).
    """
    import torch

    blamer = _Blamer(module, reference)
    mender = _Mender(module, reference, calls)
    for call in calls:
        emit(event="start", id=call["id"])
        args = [decode(a) for a in call["args"]]
        # A function that changes its input in place (x.mul_(0), x *= 2) can return the right
        # answer and still break its caller, who needs x afterwards: compare with a copy.
        originals = [decode(a) for a in call["args"]]
        started = time.perf_counter()
        warned: list = []
        try:
            torch.manual_seed(0)  # a function that draws random numbers draws the same ones each run
            with torch.no_grad(), recording(learner) as warned:
                value = getattr(module, call["function"])(*args)
            took = time.perf_counter() - started
            encoded = encode(value)
        except BaseException as error:  # noqa: BLE001 - reported per call, the next call still runs
            if is_out_of_memory(error):
                if on_out_of_memory:
                    on_out_of_memory()  # first of all: room to write the report
                line, _ = learner_frame(error.__traceback__, learner)
                del error, args, originals
                emit(event="fatal", reason="memory", id=call["id"], line=line)
                return False
            line, function = learner_frame(error.__traceback__, learner)
            if isinstance(error, SystemExit):
                emit(event="fatal", reason="exit", id=call["id"], line=line, message=describe(error))
                return False
            took = time.perf_counter() - started
            # torch's list of a call's forms runs long: kept whole, so that the form meant can be read (judging.py)
            whole = "invalid combination of arguments" in str(error)
            kind, message = type(error).__name__, str(error)[: 4 * MAX_TEXT if whole else MAX_TEXT]
            where = raised_in_loop(error.__traceback__, str(learner), resolve=True)
            step = checked_line(error.__traceback__, lambda frame: frame.f_code.co_name == call["function"]
                                and Path(frame.f_code.co_filename).resolve() == learner)
            names, known = _shared_names(learner, step, reference, call["function"])
            written = written_integers(str(learner), [step, line])
            called = called_names(str(learner), [step, line])
            own = raised_by_a_raise(error.__traceback__, learner) if kind == "NotImplementedError" else None
            cut = unit_slice(error.__traceback__, learner, message) if kind == "RuntimeError" else None
            shapes = read_shapes(error.__traceback__, learner) if kind == "RuntimeError" else {}
            seen = ((misaligned_vector(error.__traceback__, learner, message) or cut) if kind == "RuntimeError"
                    else (none_read(error.__traceback__, learner, message) or layer_applied(error.__traceback__, learner, message))
                    if kind == "TypeError" else None)
            calls_said = line_calls(learner, line, reference, call["function"])
            del error  # its traceback holds the call's frames
            found = blamer(call, None, took, raised=True)
            mender.saw(call, found, took)
            emit(
                event="raised",
                id=call["id"],
                type=kind,
                message=message,
                line=line,
                function=function,  # may be a helper the checked function called
                in_loop=where,  # raised_where.py: where a change of the reference must raise too
                **({"names": names, "known": known} if names else {}),  # by a statement that assigns one of these
                **({} if written is None else {"written": sorted(written)}),  # the integers its functions write
                **({} if called is None else {"called": sorted(called)}),  # and the calls they make
                **({} if own is None else {"own_raise": own}),  # a function not written yet, or torch
                **({"line_words": seen} if seen else {}),  # broadcast_words.py, none_words.py
                **({"line_cause": True} if seen and seen == cut else {}),  # unit_slice.py: the line's slice is the cause
                **({"line_calls": calls_said} if calls_said else {}),  # line_calls.py, of the raising line
                **({"shapes": shapes} if shapes else {}),  # read_shapes.py: the tensors the raising line reads
                **({} if found == _Blamer.RIGHT else {"blame": found}),
                **({"warned": warned} if warned else {}),
            )
            continue
        changed = [i for i, (before, after) in enumerate(zip(originals, args)) if not same(before, after)]
        where = _nan_made(module, call, originals, value, learner) if took < TRACE_SECONDS else None
        found = None if where or changed else blamer(call, value, took)
        mender.saw(call, found, took, where[0] if where else None)
        extra = {"nan": list(where)} if where else {} if found == _Blamer.RIGHT else {"blame": found}
        if changed and took < TRACE_SECONDS:  # the line that changed it (changed_where.py)
            at = change_made(getattr(module, call["function"]), lambda: [decode(a) for a in call["args"]], changed, same, learner)
            extra.update({"changed_at": list(at)} if at else {})
        # wrong (or not searched) and no span found: the calls of the line that returned it (line_calls.py)
        if found is None and not where and not changed:
            returned = return_line(getattr(module, call["function"]), parts=isinstance(value, (tuple, list)))
            calls_said = line_calls(learner, returned, reference, call["function"]) if returned else None
            extra.update({"line_calls": calls_said} if calls_said else {})
        try:
            shared = shared_parts(value)
        except Exception:  # noqa: BLE001 - a tensor subclass may refuse its storage: nothing to say then
            shared = []
        extra.update({"shared": shared} if shared else {}, **({"warned": warned} if warned else {}))
        emit(event="result", id=call["id"], value=encoded, changed=changed, **extra)
    # "done" first: the calls are over, and a mend that runs out of time costs nothing (the parent
    # stops the child a little after "done", runner.py).
    emit(event="done")
    started = time.perf_counter()
    _emit_pitfalls(module, mender, emit)
    _emit_unused(module, reference, mender, emit)
    _emit_helped(module, reference, mender, emit)
    mender.emit_repairs(emit, blamer.spent + time.perf_counter() - started)
    return True


def _emit_pitfalls(module: ModuleType, mender: _Mender, emit: Emit) -> None:
    """For each function that was wrong on some call, the Python pitfalls of its code
    (pitfalls.py): {"event": "pitfalls", "function": "f", "found": [[line, words]]}."""
    from attention_by_hand.lab.pitfalls import pitfalls

    for name in mender.wrong:
        try:
            found = pitfalls(getattr(module, name))
        except Exception:  # noqa: BLE001 - it only adds to a hint; it never breaks a check
            found = []
        if found:
            emit(event="pitfalls", function=name, found=found)


def _emit_helped(module: ModuleType, reference: ModuleType | None, mender: _Mender, emit: Emit) -> None:
    """For each wrong function that is right with the reference's versions of the wrong checked
    functions it calls (helped.py): {"event": "helped", "function": "f", "helpers": ["g"]}."""
    from attention_by_hand.lab.helped import SECONDS, right_with_reference_helpers

    if reference is None:
        return
    deadline = time.perf_counter() + SECONDS
    checked = {call["function"] for call in mender.calls}
    through: set[str] = set()  # wrong only through a helper: a caller names the helper first
    for name in mender.wrong:  # in the order first wrong: the lab checks helpers before callers
        if name in mender.slow:
            continue  # each input is run again: a slow function has no time for it
        inputs = [lambda call=call: tuple(decode(a) for a in call["args"]) for call in mender.calls if call["function"] == name]
        try:
            found = right_with_reference_helpers(module, reference, name, inputs, set(mender.wrong), checked, deadline,
                                                 frozenset(through))
        except (Exception, SystemExit):  # noqa: BLE001 - it only adds to a hint; it never breaks a check
            found = []
        if found:
            through.add(name)
            emit(event="helped", function=name, helpers=found)


# The unused-argument search (unused.py) calls each wrong function twice per argument: a guard on
# all of it, far above what it takes (a lab's function runs in milliseconds).
UNUSED_SECONDS = 1.0


def _emit_unused(module: ModuleType, reference: ModuleType | None, mender: _Mender, emit: Emit) -> None:
    """For each function that was wrong on some call, the arguments whose values never reach its
    output on the first such call (unused.py): {"event": "unused", ...}."""
    from attention_by_hand.lab.unused import draws_random, unused_arguments

    if reference is None:
        return
    deadline = time.perf_counter() + UNUSED_SECONDS
    # a slow function is searched too (its first call may be slow only because torch warms up):
    # each call is cut at unused.CALL_SECONDS, and the search at the deadline
    for name in mender.wrong:
        if time.perf_counter() > deadline or not hasattr(reference, name):
            continue
        first = mender.first_wrong[name]
        def make_args(first=first):
            return tuple(decode(a) for a in first["args"])

        try:
            found, tried = unused_arguments(module, reference, name, make_args, deadline)
        except (Exception, SystemExit):  # noqa: BLE001 - it only adds to a hint; it never breaks a check
            found, tried = [], []
        try:
            random = draws_random(module, reference, name, make_args, deadline)
        except (Exception, SystemExit):  # noqa: BLE001 - as above
            random = False
        if found or random:
            emit(event="unused", function=name, arguments=found, tried=tried, random=random)
