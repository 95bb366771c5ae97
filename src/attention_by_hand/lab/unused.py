"""Which arguments' values never reach a learner's output: asked, in the child, of a function
whose output was wrong.

A learner who builds a fresh layer instead of using the one given, takes autograd's gradient of a
sum instead of passing `d_out`, or adds a fixed table where the learned positions belong, gets an
output that does not move when that argument moves. Each argument is changed in turn (a tensor of
floats gets noise added, ids get other ids (once each one moved, once all one id: code that
renumbers ids reads only which of them repeat), a mask other entries, a layer gets noise added to
every weight), twice and differently, on the first input where the learner's output was
wrong, and the learner's function and the reference's are called again. An argument is said when,
both times, the learner's output stays exactly as it was (the same bits: its values never reach
the output, at least on this input) while the reference's moves by more than the checker's
tolerance. That is a fact about the learner's code, not a guess at the mistake: the hint says it
as observed.

Each call is stopped after CALL_SECONDS or at the search's deadline (calls.UNUSED_SECONDS), the
earlier, and none starts with less than MIN_CALL_SECONDS left for it and the reference's.
Nothing is said of a function whose output has another shape than the reference's (or is None):
that is what its hint says already.

The same first input is also run with torch's generator seeded otherwise (draws_random): an
output that moves with the seed, where the reference's does not, draws random numbers.

Left out: arguments that are not tensors or layers (a size, a flag, a number: there is no small
change of them that keeps the call meaningful).
"""

from __future__ import annotations

import ast
import copy
import functools
import time
from pathlib import Path
from types import ModuleType

import torch

from attention_by_hand.lab.outcomes import Raised, call

__all__ = ["unused_arguments", "changed", "unused_words", "draws_random"]

CALL_SECONDS = 0.5
# No call is given less: a timer that short fires inside calls that are not slow, at whatever
# Python runs then (a garbage collector's callback, which cannot be stopped and only warns).
MIN_CALL_SECONDS = 0.1


def changed(value, trial: int = 0):
    """`value` changed so that a function that reads it should give another output (trial 0, 1:
    two different changes); None for a value that is not changed (not a tensor or a layer; an
    empty tensor; integers with a negative one, or none above 0)."""
    g = torch.Generator().manual_seed(trial)
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            return value + torch.randn(value.shape, generator=g, dtype=value.dtype)
        if value.numel() == 0:
            return None
        # the values change, not only their order: code that counts ids or sorts them reads them
        # all the same. A mask stays a mask, ids stay ids in range (0 .. their largest).
        if value.dtype == torch.bool:
            every_other = (torch.arange(value.numel()) % 2 == trial).view_as(value)
            return value ^ every_other if trial else ~value
        if bool((value < 0).any()):
            return None
        top = int(value.max()) + 1
        if top < 2:
            return None
        if not trial:
            return (value + 1) % top
        # one id everywhere: which ids repeat changes too (code that renumbers the ids by first
        # appearance reads the repeats, not the values, and any change that keeps them misses it)
        return torch.full_like(value, (int(value.flatten()[0]) + 1) % top)
    if isinstance(value, torch.nn.Module):
        other = copy.deepcopy(value)
        with torch.no_grad():
            for tensor in [*other.parameters(), *other.buffers()]:
                if tensor.is_floating_point():
                    tensor.add_(torch.randn(tensor.shape, generator=g, dtype=tensor.dtype))
        return other
    return None


def _shaped_alike(mine, theirs) -> bool:
    """A tensor of the reference's shape, or a tuple of as many such parts."""
    if isinstance(mine, torch.Tensor) and isinstance(theirs, torch.Tensor):
        return mine.shape == theirs.shape
    if isinstance(mine, (tuple, list)) and isinstance(theirs, (tuple, list)):
        return len(mine) == len(theirs) and all(_shaped_alike(a, b) for a, b in zip(mine, theirs))
    return False


def _identical(a, b) -> bool:
    """The same output bit for bit: tensors (or tuples of them) of one shape, dtype and value."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b) or (
            a.is_floating_point() and ((a == b) | (a.isnan() & b.isnan())).all()))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    if isinstance(a, Raised) or isinstance(b, Raised):
        return False
    return type(a) is type(b) and a == b


def _all_finite(value) -> bool:
    """Whether no tensor in the output (a tensor, or a tuple or list of them) holds a nan or an inf."""
    import torch

    if isinstance(value, torch.Tensor):
        return not value.is_floating_point() or bool(torch.isfinite(value).all())
    if isinstance(value, (tuple, list)):
        return all(_all_finite(v) for v in value)
    return True


def _thresholded(value, expected) -> bool:
    """Whether some part of `value` is bool or integer where the reference's is float (a tensor,
    or tuples of them): a comparison or a rounding gives the same output for many inputs."""
    if isinstance(value, torch.Tensor) and isinstance(expected, torch.Tensor):
        return not value.is_floating_point() and expected.is_floating_point()
    if isinstance(value, (tuple, list)) and isinstance(expected, (tuple, list)):
        return any(_thresholded(v, e) for v, e in zip(value, expected))
    return False


def unused_arguments(module: ModuleType, reference: ModuleType, function: str, make_args,
                     deadline: float | None = None) -> tuple[list[list[int]], list[int]]:
    """([argument's position, part] for each argument whose change leaves the learner's output
    exactly as it was and moves the reference's, the positions of the arguments that can be
    changed): part -1 for the whole output, else the one part of a tuple returned (the attention
    weights may use `query` where the blended output does not); make_args() -> a fresh copy of
    the input (layers too); past `deadline` (time.perf_counter()) no further argument is tried."""
    from attention_by_hand.lab.blame import output_close

    mine, theirs = getattr(module, function), getattr(reference, function)

    def seconds() -> float:  # a call ends by its own limit or by the search's deadline, the earlier
        return CALL_SECONDS if deadline is None else max(MIN_CALL_SECONDS, min(CALL_SECONDS, deadline - time.perf_counter()))

    def late() -> bool:  # no time left for two calls of MIN_CALL_SECONDS
        return deadline is not None and deadline - time.perf_counter() < 2 * MIN_CALL_SECONDS

    # two different changes of each argument: one alone may fall where a rounding or an argmax of
    # the learner's does not move by chance
    others = [[changed(value, trial) for trial in (0, 1)] for value in make_args()]
    tried = [i for i, two in enumerate(others) if two[0] is not None]
    if late():
        return [], tried
    before, expected = call(mine, make_args(), seconds()), call(theirs, make_args(), seconds())
    if isinstance(before, Raised) or isinstance(expected, Raised) or not _shaped_alike(before, expected):
        return [], tried  # a None returned, or another shape: that is the hint's news, not what it reads
    if not _all_finite(before):
        return [], tried  # a nan stays nan whatever goes in: an input unseen there may still be read
    if _thresholded(before, expected):
        return [], tried  # True/False where numbers belong: a comparison stays put as what it compares moves
    found = []
    for i in tried:
        parts = None
        for trial in (0, 1):
            if late():
                return found, tried
            args = list(make_args())
            args[i] = others[i][trial]  # (call() hands each call copies of the tensors)
            after, moved = call(mine, tuple(args), seconds()), call(theirs, tuple(args), seconds())
            if isinstance(after, Raised) or isinstance(moved, Raised):
                parts = set()
                break
            try:
                unmoved = set(_parts_unmoved(before, after, expected, moved, output_close))
            except (RuntimeError, TypeError, ValueError):  # outputs that cannot be compared say nothing
                unmoved = set()
            parts = unmoved if parts is None else parts & unmoved
        found += [[i, part] for part in sorted(parts or ())]
    return found, tried


def draws_random(module: ModuleType, reference: ModuleType, function: str, make_args,
                 deadline: float | None = None) -> bool:
    """Whether the learner's function gives another output when torch's generator is seeded
    otherwise, on the same input, the same output again when seeded as before, and the
    reference's does not move: it draws random numbers (a dropout, a random choice of rows) where
    the result is meant to be fixed. A function that keeps state between calls (a counter, a
    cache) moves on every call, seeded alike or not: it is not said to draw. No call starts past
    `deadline` (time.perf_counter())."""
    def reseeded(function, seed):
        def run(*args):
            torch.random.default_generator.manual_seed(seed)  # call() seeds 0 first; this call sees `seed`
            return function(*args)
        return run

    mine, theirs = getattr(module, function), getattr(reference, function)
    outputs = []
    for f in (mine, reseeded(mine, 1), mine, theirs, reseeded(theirs, 1)):
        left = CALL_SECONDS if deadline is None else deadline - time.perf_counter()
        if left < MIN_CALL_SECONDS:
            return False
        outputs.append(call(f, make_args(), min(CALL_SECONDS, left)))
    if any(isinstance(o, Raised) for o in outputs):
        return False
    first, other, again, reference_first, reference_other = outputs
    return (_identical(first, again) and not _identical(first, other)
            and _identical(reference_first, reference_other))


def _parts_unmoved(before, after, expected, moved, close) -> list[int]:
    """[-1] when the learner's whole output stayed and the reference's moved; else the parts of a
    tuple for which that holds, part by part."""
    if _identical(before, after):
        return [] if close(moved, expected) else [-1]
    tuples = all(isinstance(v, (tuple, list)) for v in (before, after, expected, moved))
    if not tuples or len({len(before), len(after), len(expected), len(moved)}) != 1:
        return []
    return [k for k in range(len(before)) if _identical(before[k], after[k]) and not close(moved[k], expected[k])]


def well_formed(names: list[str], found) -> bool:
    """Whether the child's "unused" entries are [[argument index, part], ...] for these names (the
    event comes from the learner's process)."""
    return isinstance(found, list) and all(isinstance(f, list) and len(f) == 2 and type(f[0]) is int
                                           and 0 <= f[0] < len(names) and type(f[1]) is int for f in found)


def unused_words(names: list[str], found, tried, random: bool = False) -> str | None:
    """The child's "unused" event (found: [[argument index, part], ...]; tried: the arguments it
    changed) in words, by the reference's names for the arguments (`names`); None when there is
    nothing to say or the event is not well formed (it comes from the learner's process)."""
    drawn = ("yours gives another output when torch's random generator is seeded otherwise, on the same input, "
             "and the reference's does not: your function draws random numbers") if random is True else None
    if not isinstance(tried, list) or not well_formed(names, found):
        return drawn
    by_part: dict[int, list[str]] = {}
    for i, part in found:
        by_part.setdefault(part, []).append(f"`{names[i]}`")
    said = []
    for part, listed in sorted(by_part.items()):
        what = "your output" if part < 0 else f"part {part + 1} of what you return"
        # a constant: said so, not as a list of every input, when every input was changed
        if len(listed) > 1 and len(listed) == len(tried) == len(names):
            said.append(f"{what} stays the same whatever any of its inputs holds, and the reference's does not")
            continue
        which = "it" if len(listed) == 1 else "any one of them"
        listed_text = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
        said.append(f"{listed_text} never {'reaches' if len(listed) == 1 else 'reach'} {what}: with other "
                    f"values in {which}, yours stays the same, and the reference's does not")
    return "; ".join([*said, *([drawn] if drawn else [])]) or None


@functools.lru_cache(maxsize=16)
def _source(path: str) -> str:
    """A reference file's text, read once (each failed check's hint may quote from it)."""
    return Path(path).read_text(encoding="utf-8")


_HEADERS = {ast.For: ("target", "iter"), ast.While: ("test",), ast.If: ("test",), ast.With: ("items",)}


def _reads(nodes, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for node in nodes for n in ast.walk(node))


def first_read(reference: ModuleType, function: str, name: str) -> str | None:
    """The reference's first statement in `function` that reads argument `name`, as its file has it
    on one line of at most 60 characters (`D = (d_out * out).sum(dim=-1)`, or a loop's header
    `for i in range(0, T_q, block):`); None where that statement is longer or spans lines."""
    from attention_by_hand.lab.mutants import definition  # (mutants reads the reference's source: only here)

    try:
        fdef = definition(reference, function)
        source = _source(reference.__file__)
    except Exception:  # noqa: BLE001 - a reference the checker cannot read has nothing to quote
        return None
    for statement in sorted((n for n in ast.walk(fdef) if isinstance(n, ast.stmt) and n is not fdef),
                            key=lambda n: (n.lineno, n.col_offset)):
        header = _HEADERS.get(type(statement))
        if header is not None:
            parts = [p for field in header for p in (lambda v: v if isinstance(v, list) else [v])(getattr(statement, field))]
            if not _reads(parts, name):
                continue
            text = source.splitlines()[statement.lineno - 1].strip()
            text = text.split("#")[0].rstrip()  # the header's line, without a comment after it
        elif hasattr(statement, "body") or not _reads([statement], name):
            continue
        else:
            text = ast.get_source_segment(source, statement) or ""
        return text if text and "\n" not in text and len(text) <= 60 else None
    return None
