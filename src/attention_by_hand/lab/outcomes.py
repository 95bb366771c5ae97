"""What a call of a reference function returned, and when two outputs are the same.

The mutation engine (diagnosis.py) and the explanations that are no change of the reference's
code (related.py) call the reference, and changes of it, on the inputs the learner's function
got, and compare. Here: one input tried and what the learner's function returned there (`Tried`);
a call that cannot break the checker (`call`: copies of the inputs, no warnings, no gradient, a
time limit, an error returned as a `Raised`); when two outputs agree (`agree`: within the
checker's tolerance; two errors only with the same type and words) or are alike enough for one
explanation (`alike`: two errors of one family, an index past the end or a shape that does not
fit, in any words, or for a call put in, in that call's words); the reference's own numbers on
an input (`known_numbers`), and fresh random inputs of the same kind (`fresh`).

Left out: which changes there are (mutants.py) and which explain the learner (diagnosis.py).
"""

from __future__ import annotations

import math
import re
import signal
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType

import torch

from attention_by_hand.lab.axis_words import docstring_sizes
from attention_by_hand.lab.judging import ATOL, RTOL, close
from attention_by_hand.lab.raised_where import raised_in_loop, raising_names
from attention_by_hand.lab.relations import Known
from attention_by_hand.lab.wire import MAX_TEXT

__all__ = ["CALL_SECONDS", "all_zeros", "zeroed_where_wrong", "Tried", "Diagnosis", "Raised", "RAISED", "raised", "call", "agree", "alike", "apart_only_where", "apart_where_not_finite", "family",
           "flat", "near", "nothing_finite", "size_of", "locals_on", "known_numbers", "fresh", "copy_input"]


# A change of a loop's bound may make one call very long: past this, it counts as one that raised.
# The references' own calls take milliseconds; only a runaway change comes near it.
CALL_SECONDS = 2.0


@dataclass(frozen=True)
class Tried:
    """One input the learner's function was called on, and what it returned."""

    args: tuple
    got: object
    label: str = ""


@dataclass(frozen=True)
class Diagnosis:
    hint: str
    mistake: str  # the same words for the same mistake in every file (the room's summary counts them)
    relation: bool = False  # a relation between outputs (related.py), not a change of the reference's code
    compound: bool = False  # a change of the reference's code and a factor on the output as well (two steps)
    # the learner's outputs are wrong only where they hold nan, or are all zeros wherever they are
    # wrong: the change matches by its nan or its zeros, which many causes make alike (`float('inf')`
    # for `-inf` and a nan fill both make a masked row nan): a mend of the learner's own line, or a
    # nan typed where the first one was made, says more
    vacuous: bool = False
    pair: bool = False  # two different changes of the reference: a file's one mistake, more likely, by another road
    # the learner's function raised wherever it was wrong: the change matches by its error alone, and
    # what it changes after the raising line was never seen (`dq` and `dv` swapped, where only `dv` was)
    raised_only: bool = False
    # (with raised_only) the change raises on a later line than its own, with the wrong value it made:
    # no fit for a learner whose raising line read only values the reference made (parting.py)
    raised_later: bool = False
    # the change matches the learner's wrong values, and raises somewhere the learner's error with other numbers
    # in it (error_kinds.py: `T + 1` for `T` fits `ndim` where T = 1, and raises with other sizes elsewhere)
    partly_raised: bool = False
    changes: tuple = ()  # the Changes (mutant_edits.py) of the reference it names (diagnosis.py): their lines say where


@dataclass(frozen=True)
class Raised:
    """What a call that raised returned: its exception's type and message. Two calls that raised
    agree only when both raised the same error with the same message: "it raised too" is little
    evidence (a wrong change of the reference raises on many inputs), the same complaint about the
    same sizes is. A single change may raise the same type of error with other words (an index
    past the table's end, said by nn.Embedding or by indexing): `_matches` allows that for single
    changes, never for pairs, which have more ways to fit by chance, nor where the learner's function
    raised wherever it was wrong and one of its errors is of sizes (its sizes are all the evidence:
    diagnosis.py). RAISED: a call whose error is not known (it ran out of time)."""

    kind: str = ""
    message: str = ""
    # whether the raising line lies in a loop's body (raised_where.py); None: not told
    in_loop: bool | None = field(default=None, compare=False)
    # the names the raising statement assigns, and (a learner's) those its function assigns
    # (raised_where.py); None: not told
    names: frozenset[str] | None = field(default=None, compare=False)
    known: frozenset[str] | None = field(default=None, compare=False)
    # (a learner's) the integers its raising function writes (raised_where.written_integers); None: not told
    written: frozenset[int] | None = field(default=None, compare=False)
    # (a learner's) the names of the calls its raising function makes (raised_where.called_names); None: not told
    called: frozenset[str] | None = field(default=None, compare=False)


RAISED = Raised()


def raised(kind: str, message: str, in_loop: bool | None = None, names: frozenset[str] | None = None,
           known: frozenset[str] | None = None, written: frozenset[int] | None = None,
           called: frozenset[str] | None = None) -> Raised:
    """An error as the learner's child reports it: its message cut where the child cuts it."""
    return Raised(kind, message[:MAX_TEXT].strip(), in_loop, names or None, known or None, written, called)


def copy_input(value):
    """A copy of an input that a call may change in place: tensors and lists (modules are shared:
    no change of the reference's code writes into a layer's weights)."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(copy_input(v) for v in value)
    return value


class _TooLong(BaseException):
    """Not an Exception: a learner's `except Exception:` inside a loop a change made endless must
    not swallow the stop."""


def _stop(signum, frame):
    raise _TooLong


def _lost_stop_asked_again(previous):
    """An unraisable-exception hook for the length of one call. A stop that lands in code whose
    exceptions Python cannot raise (a garbage collector's callback, a weakref's callback, a
    `__del__`) is lost: Python hands it to this hook and goes on. The stop is then asked again a
    moment later, back in the call, and nobody is told of the lost one (pytest -W error would fail
    whatever test it landed in). Any other unraisable exception goes to the hook that was there."""

    def hook(unraisable):
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, _TooLong):
            while True:  # on a loaded machine the new timer may fire before the hook returns: arm it again
                try:
                    signal.setitimer(signal.ITIMER_REAL, 0.01)
                    return
                except _TooLong:
                    continue
        previous(unraisable)

    return hook


@contextmanager
def _at_most(seconds: float):
    """Stop a call after `seconds` (a changed loop bound may make a loop very long): on the main
    thread, where a timer signal can be had; elsewhere the call runs as long as it takes. A call
    inside another keeps the outer one's limit: the outer timer is armed again, with what it had
    left, when the inner call ends."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    previous, previous_hook = signal.signal(signal.SIGALRM, _stop), sys.unraisablehook
    sys.unraisablehook = _lost_stop_asked_again(previous_hook)
    started = time.perf_counter()
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    if 0 < outer < seconds:
        signal.setitimer(signal.ITIMER_REAL, outer)
    try:
        yield
    finally:
        # nested: a stop raised while this block runs (a timer that ran out at the call's very end)
        # must not leave the handler and the hook behind
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            signal.signal(signal.SIGALRM, previous)
            sys.unraisablehook = previous_hook
            if outer > 0:
                signal.setitimer(signal.ITIMER_REAL, max(outer - (time.perf_counter() - started), 0.001))


def call(function, args: tuple, seconds: float = CALL_SECONDS):
    """function(*copies of args), quietly; RAISED when it raises or runs past `seconds`. A mutant
    may change its inputs in place or warn: neither may reach the next call. An error says whether
    the function's file raised it inside a loop (raised_where.py)."""
    args = tuple(copy_input(a) for a in args)
    try:
        with warnings.catch_warnings(), torch.no_grad(), _at_most(seconds):
            warnings.simplefilter("ignore")
            torch.random.default_generator.manual_seed(0)  # the CPU's alone: torch.manual_seed costs 0.6 ms
            return function(*args)
    except _TooLong:
        return RAISED
    except (Exception, SystemExit) as error:  # noqa: BLE001 - a mutant that cannot run on this input does not match it
        code = getattr(function, "__code__", None)
        where = raised_in_loop(error.__traceback__, code.co_filename) if code else None
        names = raising_names(error.__traceback__, code) if code else None
        return raised(type(error).__name__, str(error), where, names)


def agree(mine, theirs) -> bool:
    """Whether two outputs are equal: tensors within the checker's tolerance, pairs part by part;
    a call that raised agrees with another that raised the same error, with the same message."""
    if isinstance(mine, Raised) or isinstance(theirs, Raised):
        return mine == theirs and mine is not RAISED and not _apart(mine, theirs)
    if isinstance(theirs, torch.Tensor) or isinstance(mine, torch.Tensor):
        if isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
            theirs = torch.tensor(float(theirs), dtype=torch.float64)
        if isinstance(mine, (int, float)) and not isinstance(mine, bool):
            mine = torch.tensor(float(mine), dtype=torch.float64)
        if not (isinstance(mine, torch.Tensor) and isinstance(theirs, torch.Tensor)):
            return False
        if mine.dtype == torch.bool or theirs.dtype == torch.bool:
            return mine.dtype == theirs.dtype and mine.shape == theirs.shape and bool((mine == theirs).all())
        return close(mine, theirs)
    if isinstance(theirs, (tuple, list)):
        return isinstance(mine, (tuple, list)) and len(mine) == len(theirs) and all(agree(a, b) for a, b in zip(mine, theirs))
    if isinstance(theirs, float) and isinstance(mine, (int, float)):
        return math.isclose(mine, theirs, rel_tol=1e-4, abs_tol=1e-5)
    try:
        return bool(mine == theirs)
    except Exception:  # noqa: BLE001
        return False


def flat(value) -> torch.Tensor | None:
    """Every number of an output in one float64 row (tensors and pairs of them)."""
    if isinstance(value, torch.Tensor):
        return value.detach().double().flatten()
    if isinstance(value, (tuple, list)):
        parts = [flat(v) for v in value]
        return None if any(p is None for p in parts) else torch.cat(parts) if parts else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return torch.tensor([float(value)], dtype=torch.float64)
    return None


def near(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return ((a - b).abs() <= 1e-5 + 1e-4 * b.abs()) | (a.isnan() & b.isnan()) | (a == b)


def nothing_finite(got) -> bool:
    numbers = flat(got)
    return numbers is not None and numbers.numel() > 0 and not bool(torch.isfinite(numbers).any())


def size_of(args: tuple) -> int:
    return sum(a.numel() for a in args if isinstance(a, torch.Tensor))


def locals_on(reference: ModuleType, function: str, args: tuple, functions: set[str]) -> dict[str, dict[str, object]]:
    """{function: {local: value}} as the reference's functions (those named) end, on these inputs."""
    codes = {}
    for name in functions:
        code = getattr(getattr(reference, name, None), "__code__", None)
        if code is not None:
            codes[code] = name
    found: dict[str, dict[str, object]] = {}

    def tracer(frame, event, arg):
        name = codes.get(frame.f_code)
        if name is None:
            return None
        if event == "return":
            for local, value in frame.f_locals.items():
                found.setdefault(name, {}).setdefault(local, value)
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call(getattr(reference, function), args)
    finally:
        sys.settrace(previous)
    return found


def known_numbers(reference: ModuleType, function: str, args: tuple) -> Known:
    """The reference's own numbers on these inputs, by name: its arguments and locals (ints and
    floats), the sizes its docstring names (axis_words.py), then the lengths of its tensors
    ("len(ids)": an average over the wrong count is off by a ratio of two of them), then the
    lengths of their rows ("scores.shape[-1]")."""
    values = locals_on(reference, function, args, {function}).get(function, {})
    known = Known({k: float(v) for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
    named, words = set(known.values()), set()  # the locals' numbers, before any word is added
    for k, v in docstring_sizes(getattr(reference, function), args).items():  # "batch", in the learner's words
        # a word for a number a local already names would make that number's name ambiguous
        # (two words equal on one input are told apart by the other inputs)
        if k not in known and v not in named:
            known[k] = v
            words.add(k)
    known.words = frozenset(words)
    for k, v in values.items():
        if isinstance(v, torch.Tensor) and v.dim() >= 1:
            known.setdefault(f"len({k})", float(v.shape[0]))
    for k, v in values.items():  # the length of a row (a head's width, a row of scores)
        if isinstance(v, torch.Tensor) and v.dim() >= 1:
            known.setdefault(f"{k}.shape[-1]", float(v.shape[-1]))
    return known


def alike(output, got, words: bool = False) -> bool:
    """agree, but for one explanation (a single change, a changed input): an error of the same
    family counts, in whatever words (an index past the end, said by nn.Embedding, F.one_hot or
    indexing: an IndexError or a RuntimeError). words: a shape that does not fit only in the same
    words but for its sizes (the call a change put in refused it, so the learner's must be that call)."""
    if isinstance(output, Raised) and isinstance(got, Raised) and RAISED not in (output, got):
        if words and family(output) == "shape" and _template(output) != _template(got):
            return False  # stack's words where the learner's cat raised: another call refused it
        return family(output) == family(got) and not _apart(output, got)
    return agree(output, got)


def _template(error: Raised) -> str:
    """An error's words with its numbers left out: the op that raised, whatever the sizes."""
    return re.sub(r"\d+", "#", error.message)


def _apart(a: Raised, b: Raised) -> bool:
    """Two errors raised at places of different kinds: one in a loop's body, the other not; or by
    statements that assign no name in common, where one side's function has a statement of the
    other's name that did not raise (raised_where.py)."""
    return (None not in (a.in_loop, b.in_loop) and a.in_loop != b.in_loop) or (
        None not in (a.names, b.names) and not a.names & b.names
        and bool((a.known or frozenset()) & b.names or (b.known or frozenset()) & a.names))


INDEX_WORDS = ("index", "out of range", "out of bounds", "num_classes")
SHAPE_WORDS = ("size", "shape", "dimension", "match")


def family(error: Raised) -> str:
    """What an error complains of: an index, a shape, or else its type."""
    message = error.message.lower()
    if error.kind == "IndexError" or any(w in message for w in INDEX_WORDS):
        return "index"
    if any(w in message for w in SHAPE_WORDS):
        return "shape"
    return error.kind




def fresh(value, generator: torch.Generator):
    """An input of the same shape and kind with new random numbers: floating tensors redrawn (their
    infinite entries kept), everything else (sizes, flags, integer tensors, modules) kept."""
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        new = torch.randn(value.shape, generator=generator, dtype=value.dtype)
        hidden = ~torch.isfinite(value)  # a -inf of a mask stays where it was: it is part of the input's kind
        return torch.where(hidden, value, new)
    if isinstance(value, (list, tuple)):
        return type(value)(fresh(v, generator) for v in value)
    return value


def apart_only_where(got, expected, mark) -> bool:
    """Whether got differs from expected somewhere, and `mark` (a test of each value, as
    `torch.isnan`) holds wherever it does (tensors, or tuples of them)."""
    pairs = list(zip(got, expected)) if isinstance(got, (tuple, list)) and isinstance(expected, (tuple, list)) else [(got, expected)]
    differs = False
    for g, e in pairs:
        if not (isinstance(g, torch.Tensor) and isinstance(e, torch.Tensor) and g.shape == e.shape
                and g.is_floating_point() and e.is_floating_point()):
            return False
        apart = ~torch.isclose(g, e, rtol=RTOL, atol=ATOL, equal_nan=True)
        if bool(apart.any()):
            if not bool(mark(g[apart]).all()):
                return False
            differs = True
    return differs


def apart_where_not_finite(got, expected) -> bool:
    """Whether got differs from expected somewhere, and holds an inf or a nan wherever it does
    (tensors, or tuples of them): an overflow, whatever made it."""
    return apart_only_where(got, expected, lambda values: ~torch.isfinite(values))


def zeroed_where_wrong(got, expected) -> bool:
    """Whether each part of a tuple output that is wrong is all zeros, and at least one part is right
    (an output wrong everywhere and zero is all_zeros' case, said as vacuous)."""
    if not (isinstance(got, (tuple, list)) and isinstance(expected, (tuple, list)) and len(got) == len(expected)):
        return False
    wrong = [g for g, e in zip(got, expected) if not agree(g, e)]
    return 0 < len(wrong) < len(got) and all(all_zeros(g) for g in wrong)


def all_zeros(got) -> bool:
    """Whether every number of got is 0 (tensors, or tuples of them): a change that zeroes the
    output (an overflow to inf divided by, a sum that never grew) fits any other that does."""
    numbers = flat(got)
    return numbers is not None and numbers.numel() > 0 and not bool((numbers != 0).any())
