"""Explanations of a learner's outputs that are no change of the reference's code: a relation
between the outputs (relations.py), the reference's output on a changed input
(input_relations.py), one of the reference's intermediate values (intermediates.py), or an exp
that overflows only where the numbers are large. Each is said only when it holds on every input
tried. diagnosis.py asks here when no change of the reference reproduces the learner's outputs.

Left out: the changes of the reference's code (mutants.py, diagnosis.py).
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import torch

from attention_by_hand.lab.input_relations import added_input, changed_input, formula_of_inputs
from attention_by_hand.lab.intermediates import intermediate
from attention_by_hand.lab.outcomes import Diagnosis, Raised, Tried, agree, alike, call, copy_input, fresh, known_numbers
from attention_by_hand.lab.relations import ends, relation
from attention_by_hand.lab.running_relations import running_rows
from attention_by_hand.lab.tile_relations import last_tile_left_out

__all__ = ["ends_of", "related", "worded_for", "LARGE"]


def related(reference, function, tried: list[Tried], expected: list) -> Diagnosis | None:
    """A relation between the outputs, on every input: the whole output, or one part of a pair;
    failing that, the reference's output on a changed input (input_relations.py); failing that,
    one of the reference's intermediate values (intermediates.py), or an exp that overflowed.
    Each is marked a relation: what the outputs show, which a mend of the learner's code may add to."""
    found = _related(reference, function, tried, expected)
    return dataclasses.replace(found, relation=True) if found else None


def worded_for(reference, function, tried: list[Tried], found: Diagnosis) -> dict[str, str]:
    """found's hint as said under each check, by label: a relation between outputs holds on every
    input tried, but what it shows of one input (each row's factor, the shapes, how many blocks of
    columns) is read off that check's own inputs, since the hint stands under its label. The
    relation is found again with each check's inputs first; anything else is said as it was."""
    labels = list(dict.fromkeys(t.label for t in tried))
    if not found.relation or len(labels) < 2:
        return dict.fromkeys(labels, found.hint)
    expected = {id(t): call(getattr(reference, function), t.args) for t in tried}  # made once for every check
    before = _related_outputs(reference, function, tried, [expected[id(t)] for t in tried])
    if before is None or not found.hint.endswith(before.hint):
        return dict.fromkeys(labels, found.hint)  # a changed input or an intermediate value: no one input's numbers
    said = {}
    for label in labels:
        first = [t for t in tried if t.label == label] + [t for t in tried if t.label != label]
        after = _related_outputs(reference, function, first, [expected[id(t)] for t in first])
        said[label] = found.hint[: len(found.hint) - len(before.hint)] + after.hint if after else found.hint
    return said


def _related(reference, function, tried: list[Tried], expected: list) -> Diagnosis | None:
    related = _related_outputs(reference, function, tried, expected)
    if related is not None:
        return related
    parameters = inspect.signature(getattr(reference, function)).parameters
    names = list(parameters)
    defaults = {n: p.default for n, p in parameters.items() if p.default is not inspect.Parameter.empty}
    generator = torch.Generator().manual_seed(0)
    said = changed_input(lambda args: call(getattr(reference, function), args), names, [t.args for t in tried],
                         [t.got for t in tried], alike, lambda args: tuple(fresh(a, generator) for a in args), defaults)
    said = said or last_tile_left_out(lambda args: call(getattr(reference, function), args), names,
                                      [t.args for t in tried], [t.got for t in tried], expected, alike)
    said = said or running_rows(lambda args: call(getattr(reference, function), args), [t.args for t in tried],
                                [t.got for t in tried], expected, agree)
    said = said or added_input(names, [t.args for t in tried], [t.got for t in tried], expected)
    said = said or formula_of_inputs(names, [t.args for t in tried], [t.got for t in tried], expected)
    if said:
        return Diagnosis(said, f"{function}: {said}")
    return _intermediate(reference, function, tried, expected) or _overflow(reference, function, tried, expected)


def ends_of(reference, function, tried: list[Tried]) -> str | None:
    """The reference's output as the first or last entries of the learner's along one axis, or the
    learner's of the reference's (relations.ends), on every input tried: what was observed, said
    where no mistake is named (it says where the extra or missing entries are, not why)."""
    expected = [call(getattr(reference, function), t.args) for t in tried]
    if not tried or any(isinstance(e, Raised) for e in expected) or any(isinstance(t.got, Raised) for t in tried):
        return None
    said = _related_outputs(reference, function, tried, expected, ends)
    return said.hint if said else None


LARGE = 80.0  # exp(88.7) is float32's largest; a score past 80 is where an unshifted exp gives out


def _largest(args: tuple) -> float:
    found = [a.detach().double().abs() for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()]
    finite = [f[torch.isfinite(f)] for f in found]
    return max((float(f.max()) for f in finite if f.numel()), default=0.0)


def _broken(got) -> str | None:
    """What an overflowed exp leaves in an output: nan, inf, or a row of zeros."""
    if not isinstance(got, torch.Tensor) or not got.is_floating_point():
        return None
    if bool(got.isnan().any()):
        return "nan"
    if bool(got.isinf().any()):
        return "inf"
    if got.dim() >= 1 and bool((got == 0).all(dim=-1).any()):
        return "a row of zeros"
    return None


def _overflow(reference, function: str, tried: list[Tried], expected: list) -> Diagnosis | None:
    """Right on every input whose numbers stay small, broken (nan, inf, zeros) on each input with
    numbers past LARGE: an exp taken of the raw scores, which float32 cannot hold there."""
    source = inspect.getsource(getattr(reference, function))
    if "exp" not in source and "softmax" not in source:
        return None
    small = [t for t in tried if _largest(t.args) <= LARGE]
    large = [(t, e) for t, e in zip(tried, expected) if _largest(t.args) > LARGE]
    if not small or not large or not all(agree(t.got, e) for t, e in zip(tried, expected) if _largest(t.args) <= LARGE):
        return None
    wrong = [(t, e) for t, e in large if not agree(t.got, e)]
    if not wrong or any(_broken(t.got) is None or _broken(e) is not None for t, e in wrong):
        return None
    seen = _broken(wrong[0][0].got)
    said = (f"right on every input whose numbers stay small, wrong on inputs with numbers past {LARGE:g} (up to "
            f"{max(_largest(t.args) for t, _ in wrong):g}), where yours gives {seen}: exp of a number past 88 "
            f"overflows float32 to inf (and below -103 it is 0): whatever exp is given must already have its row's "
            f"maximum subtracted, so that none of it is above 0")
    return Diagnosis(said, f"{function}: exp overflows on large numbers")


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
    inputs = [tuple(copy_input(a) for a in t.args) for t in tried]  # the reference may change an input in place
    said = intermediate(getattr(reference, function), inputs, gots, lines)
    if said and part is not None:
        said = f"part {part + 1} of what you return: {said}"
    return Diagnosis(said, f"{function}: {said}") if said else None


def _paths(value) -> list[tuple[int, ...]] | None:
    """The places of a tuple's entries, one level of tuples inside it opened ((out, (keys, values))
    gives (0,), (1, 0), (1, 1)); None where a deeper tuple leaves the shape unclear."""
    if not isinstance(value, (tuple, list)):
        return None
    found = []
    for i, entry in enumerate(value):
        if isinstance(entry, (tuple, list)):
            if any(isinstance(e, (tuple, list)) for e in entry):
                return None
            found += [(i, j) for j in range(len(entry))]
        else:
            found.append((i,))
    return found


def _at(value, path: tuple[int, ...]):
    """The entry of a (nested) tuple at `path`."""
    for i in path:
        value = value[i]
    return value


def _given(reference, function, tried: list[Tried], path: tuple[int, ...]) -> str | None:
    """A part of the learner's output that is an argument (or an entry of a tuple argument) exactly
    as it was given, on every input: a cache returned as it came, nothing added to it."""
    names = list(inspect.signature(getattr(reference, function)).parameters)
    for i, name in enumerate(names):
        for entry in (None, 0, 1, 2, 3):  # the argument itself, or one entry of a tuple of them
            if all(_same(_at(t.got, path), _entry(t.args[i] if i < len(t.args) else None, entry)) for t in tried):
                return f"yours is `{name}{'' if entry is None else f'[{entry}]'}` as it was given, unchanged"
    return None


def _entry(arg, entry: int | None):
    if entry is None:
        return arg
    return arg[entry] if isinstance(arg, (tuple, list)) and entry < len(arg) else None


def _same(a, b) -> bool:
    """The very numbers, shape and dtype (no tolerance: an argument passed through untouched)."""
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype
            and bool(torch.equal(a, b)))


def _part_words(path: tuple[int, ...]) -> str:
    """part 2, or entry 1 of part 2: counted from 1, as the learner reads a returned tuple."""
    return f"part {path[0] + 1}" if len(path) == 1 else f"entry {path[1] + 1} of part {path[0] + 1}"


def _related_outputs(reference, function, tried: list[Tried], expected: list, test=relation) -> Diagnosis | None:
    """test(pairs) (relation, or ends) of the whole output, or of the first part of a pair it says something of."""
    known = [known_numbers(reference, function, t.args) for t in tried]
    gots = [t.got for t in tried]
    if all(isinstance(g, torch.Tensor) for g in gots):
        said = test(list(zip(gots, expected, known)))
        return Diagnosis(said, f"{function}: {said}") if said else None
    if all(isinstance(g, (tuple, list)) for g in gots) and all(isinstance(e, tuple) for e in expected):
        paths = _paths(expected[0])
        if paths is None or any(_paths(g) != paths or _paths(e) != paths for g, e in zip(gots, expected)):
            return None
        saying = []  # (part, what the test says of it) for each part that differs
        for path in paths:
            pairs = [(_at(g, path), _at(e, path), k) for g, e, k in zip(gots, expected, known)]
            if not all(agree(g, e) for g, e, _ in pairs):
                saying.append((path, _given(reference, function, tried, path) or test(pairs)))
        said = next((s for _, s in saying if s), None)
        if said is None:
            return None
        # (a part with no relation may follow from this one: the weights, then the output)
        paths = [p for p, s in saying if s == said]
        if len(paths) > 1 and len(paths) == len(saying):  # the same of every part that differs: one thing done to all
            single = all(len(p) == 1 for p in paths)  # "parts 1, 2 and 3", else "part 1 and entry 1 of part 2"
            parts = [str(p[0] + 1) if single else _part_words(p) for p in paths]
            said = f"{'parts ' if single else ''}{', '.join(parts[:-1])} and {parts[-1]} of what you return, each: {said}"
        else:
            said = f"{_part_words(next(p for p, s in saying if s))} of what you return: {said}"
        return Diagnosis(said, f"{function}: {said}")
    return None
