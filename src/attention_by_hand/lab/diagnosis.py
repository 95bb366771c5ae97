"""Naming a mistake nobody catalogued: the mutant, or the relation, that reproduces the learner's
outputs on every input tried.

When the hand-written judges name nothing (verdict.py), the learner's function and the reference
have both been called on the same inputs: the check's cases, its other checks' cases and its
probes. Here every small change of the reference (mutants.py) is run on those inputs, single
changes first, then pairs of the changes that came closest; a change is named only when its
outputs equal the learner's on EVERY input, so no single input's coincidence names it, and only
when it is the one mistake that does: when two changes both reproduce every output, they are
run on fresh random inputs of the same shapes; if they still agree, they are one mistake written
two ways (`dim=0` and `dim=-2` of a matrix, a scale dropped where it is made or where it is
used) and the first is named; if they part, the inputs tried cannot tell which mistake was made,
and neither is named. Failing
that, a plain relation between the outputs (relations.py) is tried on every input. Failing both,
nothing is named: the caller says what it observed, and `localise` says on which probe inputs
(one tile covering every key, q = 0, ...) the learner's function is right and on which wrong.

Costs are bounded by counts, so the same file gets the same hint on any machine: at most
`MAX_SINGLES` single changes are tried, and pairs only among the `PAIR_POOL` best. The one bound by
time, `CALL_SECONDS` per call, stops only a change that made a loop run away.

Left out: the hand-written hints (judging.py and each lab's checks.py), which come first.
"""

from __future__ import annotations

import inspect
import math
import signal
import sys
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from types import ModuleType

import torch

from attention_by_hand.lab.input_relations import changed_input
from attention_by_hand.lab.intermediates import intermediate
from attention_by_hand.lab.judging import close
from attention_by_hand.lab.mutants import Change, build, changes
from attention_by_hand.lab.relations import Known, relation

__all__ = ["Tried", "Diagnosis", "diagnose", "localise", "MAX_SINGLES", "PAIR_POOL"]

MAX_SINGLES = 4000
PAIR_POOL = 16  # pairs are tried among this many single changes, the ones nearest the learner's outputs
# A change of a loop's bound may make one call very long: past this, it counts as one that raised.
# The references' own calls take milliseconds; only a runaway change comes near it.
CALL_SECONDS = 2.0
NEIGHBOUR_POOL = 4  # and the best this many are paired with every change on their own line or the next


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


class _Raised:
    """What a call that raised returned: equal to nothing."""


RAISED = _Raised()


def _copy(value):
    """A copy of an input that a call may change in place: tensors and lists (modules are shared:
    no change of the reference's code writes into a layer's weights)."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_copy(v) for v in value)
    return value


class _TooLong(Exception):
    pass


def _stop(signum, frame):
    raise _TooLong


@contextmanager
def _at_most(seconds: float):
    """Stop a call after `seconds` (a changed loop bound may make a loop very long): on the main
    thread, where a timer signal can be had; elsewhere the call runs as long as it takes."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call(function, args: tuple):
    """function(*copies of args), quietly; RAISED when it raises. A mutant may change its inputs
    in place or warn: neither may reach the next call."""
    args = tuple(_copy(a) for a in args)
    try:
        with warnings.catch_warnings(), torch.no_grad(), _at_most(CALL_SECONDS):
            warnings.simplefilter("ignore")
            torch.random.default_generator.manual_seed(0)  # the CPU's alone: torch.manual_seed costs 0.6 ms
            return function(*args)
    except Exception:  # noqa: BLE001 - a mutant that cannot run on this input does not match it
        return RAISED


def agree(mine, theirs) -> bool:
    """Whether two outputs are equal: tensors within the checker's tolerance, pairs part by part;
    a call that raised agrees with another that raised."""
    if isinstance(mine, _Raised) or isinstance(theirs, _Raised):
        return isinstance(mine, _Raised) and isinstance(theirs, _Raised)
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


def _flat(value) -> torch.Tensor | None:
    """Every number of an output in one float64 row (tensors and pairs of them)."""
    if isinstance(value, torch.Tensor):
        return value.detach().double().flatten()
    if isinstance(value, (tuple, list)):
        parts = [_flat(v) for v in value]
        return None if any(p is None for p in parts) else torch.cat(parts) if parts else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return torch.tensor([float(value)], dtype=torch.float64)
    return None


def _near(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return ((a - b).abs() <= 1e-5 + 1e-4 * b.abs()) | (a.isnan() & b.isnan()) | (a == b)


def _gain(output, got, expected) -> int:
    """How many numbers of the learner's output this mutant gets right that the reference does not."""
    m, g, e = _flat(output), _flat(got), _flat(expected)
    if m is None or g is None or e is None or not (m.shape == g.shape == e.shape):
        return 0
    return int((_near(m, g) & ~_near(e, g)).sum())


def _size(args: tuple) -> int:
    return sum(a.numel() for a in args if isinstance(a, torch.Tensor))


def _locals(reference: ModuleType, function: str, args: tuple, functions: set[str]) -> dict[str, dict[str, object]]:
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
        _call(getattr(reference, function), args)
    finally:
        sys.settrace(previous)
    return found


def _known(reference: ModuleType, function: str, args: tuple) -> Known:
    """The reference's own numbers on these inputs, by name: its arguments and locals (ints and
    floats), then the lengths of its tensors ("len(ids)": an average over the wrong count is off by
    a ratio of two of them)."""
    values = _locals(reference, function, args, {function}).get(function, {})
    known = {k: float(v) for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for k, v in values.items():
        if isinstance(v, torch.Tensor) and v.dim() >= 1:
            known.setdefault(f"len({k})", float(v.shape[0]))
    return known


def _sort(value) -> object:
    """What a value is, for "another variable of the same shape": a tensor's shape, a layer's class
    and weight shape, else its type."""
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape))
    if isinstance(value, torch.nn.Module):
        weight = getattr(value, "weight", None)
        return ("module", type(value).__name__, tuple(weight.shape) if isinstance(weight, torch.Tensor) else None)
    return type(value).__name__


def _plausible(change: Change, values: dict[str, dict[str, object]]) -> bool:
    """A variable is replaced only by another of the same sort (shape, class) on the first input,
    a size only by an integer; only a tensor of two axes or more is replaced by its first slice."""
    seen = values.get(change.function, {})
    if change.op == "first":
        value = seen.get(change.arg)
        return isinstance(value, torch.Tensor) and value.dim() >= 2
    if change.op == "size_for":
        value = seen.get(change.arg)  # a size is replaced only by another whole number
        return isinstance(value, int) and not isinstance(value, bool)
    if change.op not in ("name", "exchange"):
        return True
    old, new = change.arg
    return old in seen and new in seen and _sort(seen[old]) == _sort(seen[new])


def _matches(function, tried: list[Tried], order: list[int]) -> tuple[bool, object]:
    """(whether `function` reproduces the learner on every input, its output on the first in `order`)."""
    first = None
    for n, i in enumerate(order):
        output = _call(function, tried[i].args)
        if n == 0:
            first = output
        if not agree(output, tried[i].got):
            return False, first
    return True, first


def _mistake(chosen: tuple[Change, ...]) -> str:
    """The same words for the same change, whichever function's check found it (the room counts them)."""
    return "; ".join(f"{c.function}: {c.text}" for c in chosen)


def _say(chosen: tuple[Change, ...], function: str) -> str:
    parts = []
    for change in chosen:
        where = f" (in {change.function}(), which {function}() calls)" if change.function != function else ""
        parts.append(change.text + where)
    return "yours equals the reference with " + ", and ".join(parts)


def diagnose(reference: ModuleType, function: str, tried: list[Tried], prefer: frozenset[str] = frozenset()) -> Diagnosis | None:
    """The change of the reference, or the relation, that gives the learner's outputs on every
    input in `tried`; None when none does (or the learner's function raised on every one)."""
    # Hundreds of tiny calls: one thread is faster (no waking of a pool for a 4 x 4 product).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _diagnose(reference, function, tried, prefer)
    finally:
        torch.set_num_threads(threads)


def _diagnose(reference: ModuleType, function: str, tried: list[Tried], prefer: frozenset[str]) -> Diagnosis | None:
    if not tried or all(isinstance(t.got, _Raised) for t in tried):
        return None
    reference_function = getattr(reference, function)
    expected = [_call(reference_function, t.args) for t in tried]
    if any(isinstance(e, _Raised) for e in expected):
        return None
    # Where the learner's function raised, the hint says so (verdict.py); a change must raise there
    # too. Wrong outputs come first (they rule out the most changes), then the inputs where it
    # raised: a function that raised on every case and ran on a probe (a square table, where rows
    # and columns are not told apart) is still diagnosed, by the change that raises where it did.
    differ = [i for i, (t, e) in enumerate(zip(tried, expected)) if not agree(t.got, e)]
    wrong = [i for i in differ if not isinstance(tried[i].got, _Raised)]
    raised = [i for i in differ if isinstance(tried[i].got, _Raised)]
    if not differ:
        return None
    # The smallest failing input first: most changes fail there, at the lowest cost.
    wrong.sort(key=lambda i: _size(tried[i].args))
    order = wrong + raised + [i for i in range(len(tried)) if i not in differ]
    first_got, first_expected = tried[order[0]].got, expected[order[0]]

    every = changes(reference, function)
    values = _locals(reference, function, tried[order[0]].args, {c.function for c in every})
    singles = sorted((c for c in every[:MAX_SINGLES] if _plausible(c, values)), key=lambda c: c.rank)
    near: list[tuple[int, int, Change]] = []
    found: list[tuple[Change, ...]] = []
    for n, change in enumerate(singles):
        mutant = build(reference, function, (change,))
        if mutant is None:
            continue
        matched, first = _matches(mutant, tried, order)
        if matched:
            found.append((change,))
            continue
        gain = _gain(first, first_got, first_expected)
        if gain > 0:
            near.append((-gain, n, change))
    if found:
        return _one_mistake(reference, function, found, tried, prefer) or _related(reference, function, tried, expected)
    near.sort(key=lambda item: item[:2])
    pool = [change for _, _, change in near[:PAIR_POOL]]
    pairs = sorted(combinations(pool, 2), key=lambda p: p[0].rank + p[1].rank)
    # A change that alone goes half way (a mask moved after the softmax) often needs a second one
    # beside it (its -inf made 0): the best few, with every change on their line or the next.
    following = _next_lines(singles)
    for a in pool[:NEIGHBOUR_POOL]:
        last = following[(a.function, a.line)]
        pairs += [(a, b) for b in singles if b.function == a.function and a.line <= b.line <= last and b not in pool]
    pairs += _twins(singles, following)
    for a, b in pairs:
        mutant = build(reference, function, (a, b))
        if mutant is not None and _matches(mutant, tried, order)[0]:
            found.append((a, b))
    return (_one_mistake(reference, function, found, tried, prefer) if found else None) or _related(reference, function, tried, expected)


MAX_TWINS = 200


def _twins(singles: list[Change], following: dict[tuple[str, int], int]) -> list[tuple[Change, Change]]:
    """The same slip made twice, on a statement and the next (both statistics of a layer norm
    taken over the whole tensor): each alone may come no nearer the learner's outputs, so these
    pairs are tried whether or not their halves did."""
    groups: dict[tuple, list[Change]] = {}
    for c in singles:
        groups.setdefault((c.function, c.op, repr(c.arg), c.kind), []).append(c)
    found = []
    for group in groups.values():
        for a, b in combinations(group, 2):
            if a.line < b.line <= following[(a.function, a.line)]:
                found.append((a, b))
    return found[:MAX_TWINS]


def _next_lines(singles: list[Change]) -> dict[tuple[str, int], int]:
    """{(function, line): the line of the next statement with a change in that function} (a
    comment between two steps is no step), its own line for the last; made once per diagnosis."""
    lines: dict[str, list[int]] = {}
    for c in singles:
        lines.setdefault(c.function, []).append(c.line)
    following = {}
    for function, found in lines.items():
        ordered = sorted(set(found))
        following.update({(function, a): b for a, b in zip(ordered, ordered[1:] + ordered[-1:])})
    return following


FRESH_INPUTS = 3  # fresh random inputs per input tried, to tell two matching changes apart


def _fresh(value, generator: torch.Generator):
    """An input of the same shape and kind with new random numbers: floating tensors redrawn (their
    infinite entries kept), everything else (sizes, flags, integer tensors, modules) kept."""
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        new = torch.randn(value.shape, generator=generator, dtype=value.dtype)
        hidden = ~torch.isfinite(value)  # a -inf of a mask stays where it was: it is part of the input's kind
        return torch.where(hidden, value, new)
    if isinstance(value, (list, tuple)):
        return type(value)(_fresh(v, generator) for v in value)
    return value


def _one_mistake(reference: ModuleType, function: str, found: list[tuple[Change, ...]], tried: list[Tried],
                 prefer: frozenset[str] = frozenset()) -> Diagnosis | None:
    """The diagnosis when every matching change (or pair) is the same mistake: they agree with
    each other on fresh random inputs too. None when two of them part there: the inputs tried
    cannot tell which mistake was made, and naming either could name the wrong one.

    prefer: mistakes already named for this file (a function it calls): one of the same mistake's
    ways is said in the same words (q and k exchanged in the weights, not the calls' arguments)."""
    # the first in rank order, the plainest way to say it, unless another check said it otherwise
    first = next((chosen for chosen in found if _mistake(chosen) in prefer), found[0])
    if len(found) > 1:
        generator = torch.Generator().manual_seed(0)
        fresh = [tuple(_fresh(a, generator) for a in t.args) for t in tried for _ in range(FRESH_INPUTS)]
        mutants = [build(reference, function, chosen) for chosen in found]
        outputs = [[_call(m, args) for args in fresh] for m in mutants if m is not None]
        if any(not all(agree(a, b) for a, b in zip(outputs[0], other)) for other in outputs[1:]):
            return None
    return Diagnosis(_say(first, function), _mistake(first))


def _related(reference, function, tried: list[Tried], expected: list) -> Diagnosis | None:
    """A relation between the outputs, on every input: the whole output, or one part of a pair;
    failing that, the reference's output on a changed input (input_relations.py); failing that,
    one of the reference's intermediate values (intermediates.py)."""
    related = _related_outputs(reference, function, tried, expected)
    if related is not None:
        return related
    names = list(inspect.signature(getattr(reference, function)).parameters)
    generator = torch.Generator().manual_seed(0)
    said = changed_input(lambda args: _call(getattr(reference, function), args), names, [t.args for t in tried],
                         [t.got for t in tried], agree, lambda args: tuple(_fresh(a, generator) for a in args))
    if said:
        return Diagnosis(said, f"{function}: {said}")
    return _intermediate(reference, function, tried, expected)


def _intermediate(reference, function: str, tried: list[Tried], expected: list) -> Diagnosis | None:
    """The learner's output (or the one part of a pair that differs) is a value the reference
    computed on its way (intermediates.py)."""
    gots = [t.got for t in tried]
    part = None
    if all(isinstance(g, (tuple, list)) for g in gots) and all(isinstance(e, tuple) and len(e) == len(g) for g, e in zip(gots, expected)):
        differing = {i for g, e in zip(gots, expected) for i in range(len(e)) if not agree(g[i], e[i])}
        if len(differing) != 1:
            return None
        part = differing.pop()
        gots = [g[part] for g in gots]
    lines = Path(reference.__file__).read_text(encoding="utf-8").splitlines()
    inputs = [tuple(_copy(a) for a in t.args) for t in tried]  # the reference may change an input in place
    said = intermediate(getattr(reference, function), inputs, gots, lines)
    if said and part is not None:
        said = f"part {part + 1} of what you return: {said}"
    return Diagnosis(said, f"{function}: {said}") if said else None


def _related_outputs(reference, function, tried: list[Tried], expected: list) -> Diagnosis | None:
    known = [_known(reference, function, t.args) for t in tried]
    gots = [t.got for t in tried]
    if all(isinstance(g, torch.Tensor) for g in gots):
        said = relation(list(zip(gots, expected, known)))
        return Diagnosis(said, f"{function}: {said}") if said else None
    if all(isinstance(g, (tuple, list)) for g in gots) and all(isinstance(e, tuple) for e in expected):
        sizes = {len(g) for g in gots} | {len(e) for e in expected}
        if len(sizes) != 1:
            return None
        for part in range(sizes.pop()):
            pairs = [(g[part], e[part], k) for g, e, k in zip(gots, expected, known)]
            if all(agree(g, e) for g, e, _ in pairs):
                continue
            said = relation(pairs)
            if said:
                said = f"part {part + 1} of what you return: {said}"
                return Diagnosis(said, f"{function}: {said}")
            return None
    return None


def localise(reference: ModuleType, function: str, probes: list[Tried]) -> str | None:
    """On which probe inputs the learner's function is right and on which wrong, in words."""
    if not probes:
        return None
    right, wrong = [], []
    for probe in probes:
        expected = _call(getattr(reference, function), probe.args)
        (right if agree(probe.got, expected) else wrong).append(probe.label)
    if not right:
        return f"wrong on every probe too ({'; '.join(wrong)})"
    if not wrong:
        return f"right on every probe ({'; '.join(right)}): the error shows only on the check's own inputs"
    return f"right with {'; '.join(right)}, wrong with {'; '.join(wrong)}"
