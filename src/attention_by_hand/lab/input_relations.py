"""A learner's output that is the reference's output on a changed input: one element short (a loop
that stops a step early), every id off by one, a matrix transposed, an axis reversed, two
arguments of the same shape exchanged, numbers rescaled to 0..1 or standardised along the last
axis, a number or a flag it was given left unused (fixed at its default, 0 or 1, True or False). And
two that need no call of the reference on a changed input: an input added to the reference's
output (`dq + 0.01 * q`, a residual), and an output that is a plain formula of the inputs alone
(`p - dp`).

The reference is called on each changed input; a change is said only when it gives the learner's
output on EVERY input tried, and only when exactly one change does (two that both do could be two
different mistakes). diagnosis.py asks here once no mutant and no relation of the outputs
(relations.py) explains them.

Left out: other changes of arguments that are not tensors (a size made another size, a layer).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import torch

from attention_by_hand.lab.judging import equals

__all__ = ["changed_input", "added_input", "formula_of_inputs", "returned_unchanged"]


def _trim(value, axis: int, end: str):
    """value without its first or last slice along `axis` (None: not a tensor that has two)."""
    if not isinstance(value, torch.Tensor) or value.dim() == 0 or value.shape[axis] < 2:
        return None
    n = value.shape[axis]
    return value.narrow(axis, 1, n - 1) if end == "first" else value.narrow(axis, 0, n - 1)


def _short(name: str, axis: int, end: str) -> str:
    cut = f"{name}[:-1]" if end == "last" else f"{name}[1:]"
    if axis != 0:
        cut = f"{name}[..., :-1]" if end == "last" else f"{name}[..., 1:]"
    late = "stopped one step early" if end == "last" else "started one step late"
    return (f"yours is the reference's output on `{cut}`: {name} without its {end} element "
            f"(along axis {axis}), as if a loop or a range {late} (off by one)")


def _changes(name: str, value) -> list[tuple[str, Callable]]:
    """(what the change is, in words; how to make it on another input's value of this argument)."""
    if not isinstance(value, torch.Tensor) or value.dim() == 0:
        return []
    found = []
    for axis in sorted({0, value.dim() - 1}):
        for end in ("last", "first"):
            found.append((_short(name, axis, end), lambda v, axis=axis, end=end: _trim(v, axis, end)))
    if not value.is_floating_point() and value.dtype != torch.bool:
        for delta in (1, -1):
            found.append((f"yours is the reference's output on `{name} {'+' if delta > 0 else '-'} 1`: every id off by one",
                          lambda v, delta=delta: v + delta if isinstance(v, torch.Tensor) else None))
    if value.dim() >= 2:
        found.append((f"yours is the reference's output on `{name}` transposed (its last two axes exchanged)",
                      lambda v: v.transpose(-2, -1) if isinstance(v, torch.Tensor) and v.dim() >= 2 else None))
    for axis in sorted({0, value.dim() - 1}):
        found.append((f"yours is the reference's output on `{name}` reversed along axis {axis} (its order turned round)",
                      lambda v, axis=axis: v.flip(axis) if isinstance(v, torch.Tensor) and v.dim() > axis else None))
    if value.is_floating_point() and value.shape[-1] >= 2:
        # numbers squashed or standardised along the last axis first, as some libraries do to inputs
        found.append((f"yours is the reference's output on `{name}` rescaled to 0..1 along its last axis ((x - min) / "
                      f"(max - min) of each row): each row's spread was changed before the reference's steps", _to_unit))
        found.append((f"yours is the reference's output on `{name}` standardised along its last axis ((x - mean) / std "
                      f"of each row): each row's spread was changed before the reference's steps", _standardised))
    return found


def _to_unit(v):
    if not isinstance(v, torch.Tensor) or not v.is_floating_point() or v.dim() == 0:
        return None
    low, high = v.amin(dim=-1, keepdim=True), v.amax(dim=-1, keepdim=True)
    return (v - low) / (high - low)


def _standardised(v):
    if not isinstance(v, torch.Tensor) or not v.is_floating_point() or v.dim() == 0:
        return None
    return (v - v.mean(dim=-1, keepdim=True)) / v.std(dim=-1, keepdim=True)


def _settings(name: str, values: list, default) -> list[tuple[str, Callable]]:
    """A number or a flag the learner's function did not use: the reference's output with it fixed
    at its default, at 0 or 1 (a number), or at True or False (a flag), on every input. Only values
    some input was NOT given count: otherwise the change shows nothing."""
    first = values[0]
    if isinstance(first, bool):
        candidates = [(True, f"`{name}` = True on every input"), (False, f"`{name}` = False on every input")]
    elif isinstance(first, (int, float)):
        candidates = [(default, f"`{name}` = {default!r} (its default)")] if isinstance(default, (int, float)) and not isinstance(default, bool) else []
        candidates += [(type(first)(v), f"`{name}` = {type(first)(v)!r}") for v in (0, 1) if v != default]
    else:
        return []
    found = []
    for value, said in candidates:
        if all(v == value for v in values):
            continue
        found.append((f"yours is the reference's output with {said}: the `{name}` you were given is not used",
                      lambda v, value=value: value))
    return found


def _exchanges(names: list[str], first_args: tuple) -> list[tuple[str, Callable]]:
    """Two tensor arguments of the same shape, given in each other's place."""
    found = []
    tensors = [i for i, a in enumerate(first_args) if isinstance(a, torch.Tensor)]
    for n, i in enumerate(tensors):
        for j in tensors[n + 1:]:
            if first_args[i].shape == first_args[j].shape:
                a, b = (names[k] if k < len(names) else f"argument {k + 1}" for k in (i, j))

                def swap(args, i=i, j=j):
                    args = list(args)
                    args[i], args[j] = args[j], args[i]
                    return tuple(args)

                found.append((f"yours is the reference's output with `{a}` and `{b}` given in each other's place", swap))
    return found


def changed_input(call: Callable[[tuple], object], names: list[str], inputs: list[tuple], gots: list,
                  agree: Callable[[object, object], bool], fresh: Callable[[tuple], tuple] | None = None,
                  defaults: dict | None = None) -> str | None:
    """The one change of the input that makes call(changed input) equal each got, in words; or None.

    call(args) -> the reference's output (or a marker that it raised); agree(got, output) -> equal;
    fresh(args) -> new random inputs of the same shapes, to tell apart two changes that both fit."""
    if not inputs:
        return None
    candidates: list[tuple[str, Callable]] = []
    for position, value in enumerate(inputs[0]):
        name = names[position] if position < len(names) else f"argument {position + 1}"
        for said, change in _changes(name, value):
            candidates.append((said, lambda args, p=position, change=change: _at(args, p, change)))
    candidates += _exchanges(names, inputs[0])
    for position, name in enumerate(names):
        given = [args[position] for args in inputs if position < len(args)]
        if len(given) == len(inputs):
            for said, change in _settings(name, given, (defaults or {}).get(name)):
                candidates.append((said, lambda args, p=position, change=change: _at(args, p, change)))
    # the plainest words first: an id off by one before "a tensor one element short"
    candidates.sort(key=lambda c: "one element" in c[0] or "without its" in c[0])
    found = []
    for said, change in candidates:
        for args, got in zip(inputs, gots):
            changed = change(args)
            if changed is None or not agree(got, call(changed)):
                break
        else:
            found.append((said, change))
    if len(found) > 1 and fresh is not None:
        # weight[1:] on ids and weight on ids + 1 are one mistake said two ways: they agree on
        # fresh inputs too, and the first (the plainer) is said; if they part, neither is.
        others = [fresh(args) for args in inputs]
        outputs = [[call(c) if c is not None else None for c in (change(a) for a in others)] for _, change in found]
        if all(all(x is not None and y is not None and agree(x, y) for x, y in zip(outputs[0], o)) for o in outputs[1:]):
            return found[0][0]
        return None
    return found[0][0] if len(found) == 1 else None


def _at(args: tuple, position: int, change: Callable) -> tuple | None:
    if position >= len(args):
        return None
    new = change(args[position])
    return None if new is None else args[:position] + (new,) + args[position + 1:]


def returned_unchanged(names: list[str], inputs: list[tuple], gots: list, expected: list,
                       agree: Callable[[object, object], bool]) -> str | None:
    """"yours returns `x` unchanged" when, on every input where the learner's output is wrong, it
    is one argument (the same one each time) as it was given, and the reference's is not."""
    import torch

    said = None
    for args, got, output in zip(inputs, gots, expected):
        if agree(got, output):
            continue
        same = [p for p, a in enumerate(args) if isinstance(a, torch.Tensor) and isinstance(got, torch.Tensor)
                and a.shape == got.shape and agree(got, a)]
        if len(same) != 1 or said not in (None, same[0]):
            return None
        said = same[0]
    if said is None:
        return None
    name = names[said] if said < len(names) else f"argument {said + 1}"
    return f"yours returns its input unchanged (`{name}`, as it was given): nothing it computes reaches what it returns"


def _multiple_of(difference, value) -> float | None:
    """c where difference = c * value (a float tensor of its shape) and c is not 0; else None."""
    if not (isinstance(value, torch.Tensor) and value.is_floating_point() and value.shape == difference.shape):
        return None
    d, v = difference.double(), value.double()
    if v.numel() < 2 or bool((v == v.flatten()[0]).all()):
        return None  # one number, or one number everywhere: any difference is a multiple of it
    square = float((v * v).sum())
    if square == 0.0 or not bool(torch.isfinite(d).all()):
        return None
    c = float((d * v).sum()) / square
    fits = torch.allclose(d, c * v, rtol=1e-4, atol=1e-5 * max(1.0, float(v.abs().max())))
    return c if fits and abs(c) > 1e-6 else None


def added_input(names: list[str], inputs: list[tuple], gots: list, expected: list) -> str | None:
    """"yours is the reference's plus 0.01 times `q`": on every input, each wrong part of the
    learner's output is the reference's plus one number times one argument as it was given (a
    residual added, a weight decay applied to a gradient), the same number and argument each time."""
    found: dict[int, tuple[int, float]] = {}  # part -> (argument, its factor)
    for args, got, output in zip(inputs, gots, expected):
        parts = list(zip(got, output)) if isinstance(got, (tuple, list)) and isinstance(output, (tuple, list)) else [(got, output)]
        if isinstance(got, (tuple, list)) and len(got) != len(output):
            return None
        for k, (g, e) in enumerate(parts):
            if not (isinstance(g, torch.Tensor) and isinstance(e, torch.Tensor) and g.shape == e.shape):
                return None
            difference = g.double() - e.double()
            if bool((difference.abs() <= 1e-6 * (1 + e.double().abs())).all()):
                continue  # this part is right
            fitting = [(p, c) for p, a in enumerate(args) if (c := _multiple_of(difference, a)) is not None]
            if len(fitting) != 1:
                return None
            p, c = fitting[0]
            if k in found and (found[k][0] != p or abs(found[k][1] - c) > 1e-4 * abs(c)):
                return None
            found[k] = (p, c)
    if not found or len({round(c, 6) for _, c in found.values()}) != 1:
        return None

    def term(p: int, c: float) -> str:
        name = names[p] if p < len(names) else f"argument {p + 1}"
        sign = "plus" if c > 0 else "minus"
        return f"{sign} `{name}`" if abs(abs(c) - 1) < 1e-6 else f"{sign} {abs(c):.3g} times `{name}`"

    # added: a term the reference does not have; taken away: the reference's has more of that input
    tail = ("a term the reference does not add" if all(c > 0 for _, c in found.values())
            else "the reference's output has that much more of the input (a term left out, or one subtracted)")
    if len(found) == 1 and not isinstance(gots[0], (tuple, list)):
        (p, c), = found.values()
        return f"yours is the reference's output {term(p, c)}, an input as it was given: {tail}"
    listed = ", ".join(f"part {k + 1} {term(p, c)}" for k, (p, c) in sorted(found.items()))
    return f"yours is the reference's output and an input, as it was given ({listed}): {tail}"


def _formulas(names: list[str], args: tuple, shape) -> list[tuple[str, Callable]]:
    """Plain formulas of the float arguments of the output's shape: `p - dp`, `p * dp`, `dp - its
    row mean` (what a learner computes straight from the inputs, skipping the step between)."""
    floats = [p for p, a in enumerate(args) if isinstance(a, torch.Tensor) and a.is_floating_point() and a.shape == shape]
    name = {p: names[p] if p < len(names) else f"argument {p + 1}" for p in floats}
    found: list[tuple[str, Callable]] = []
    for p in floats:
        found.append((f"{name[p]} - {name[p]}.mean(dim=-1, keepdim=True)", lambda a, p=p: a[p] - a[p].mean(dim=-1, keepdim=True)))
    for p, q in itertools.permutations(floats, 2):
        found.append((f"{name[p]} - {name[q]}", lambda a, p=p, q=q: a[p] - a[q]))
        if p < q:
            found.append((f"{name[p]} + {name[q]}", lambda a, p=p, q=q: a[p] + a[q]))
            found.append((f"{name[p]} * {name[q]}", lambda a, p=p, q=q: a[p] * a[q]))
    return found


def formula_of_inputs(names: list[str], inputs: list[tuple], gots: list, expected: list) -> str | None:
    """"yours is `p - dp`": on every input, the learner's output is one plain formula of its
    arguments (_formulas), the same one each time, and the reference's is not."""
    if not inputs or not gots or not isinstance(gots[0], torch.Tensor) or not gots[0].is_floating_point():
        return None
    if not all(isinstance(g, torch.Tensor) and isinstance(o, torch.Tensor) and g.shape == o.shape for g, o in zip(gots, expected)):
        return None

    def made(formula, args):
        try:  # an input of other shapes, or of whole numbers, may not take the formula
            return formula(args) if len(args) == len(inputs[0]) else None
        except (RuntimeError, TypeError, ValueError, IndexError):
            return None

    for said, formula in _formulas(names, inputs[0], gots[0].shape):
        outputs = [made(formula, args) for args in inputs]
        if not all(m is not None and equals(m, g) for m, g in zip(outputs, gots)):
            continue
        # a formula equal to one input as it was given (`param - m` where m is 0) says no more than that
        if any(all(equals(a, m) for a, m in zip((args[p] for args in inputs), outputs)) for p in range(len(inputs[0]))):
            continue
        if not all(equals(m, e) for m, e in zip(outputs, expected)):
            return f"yours is `{said}` on every input, a formula of the inputs alone; the reference's is not"
    return None
