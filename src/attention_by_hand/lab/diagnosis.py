"""Naming a mistake nobody catalogued: the change of the reference that reproduces the learner's
outputs on every input tried.

When the hand-written judges name nothing (verdict.py), the learner's function and the reference
have both been called on the same inputs: the check's cases, its other checks' cases and its
probes. Here every small change of the reference (mutants.py) is run on those inputs, single
changes first, then pairs: of the changes that came closest, of a change and those on its line or
the next, of the same slip made on two neighbouring statements, of a layer left out and applied
elsewhere. A change is named only when its outputs equal the learner's on EVERY input, so no
single input's coincidence names it (where the learner's function raised, a single change must
raise an error of the same family, a pair the very same words; where only errors tell, an axis the
change asks for must be one the learner's code writes), and only when it is the one
mistake that does: when two changes both reproduce every output, they are run on fresh random
inputs of the same shapes; if they still agree, they are one mistake written two ways (`dim=0`
and `dim=-2` of a matrix) and the first is named; if they part, neither is. Outputs that are nan
everywhere name nothing: any change that breaks the arithmetic fits them.

Failing a change, the explanations that are no change of the code are tried (related.py), then a
change whose output is the learner's times a constant the reference knows (a factor moved to the
end). Failing all, the caller says what it observed, and `localise` says on which probe inputs
(one tile covering every key, q = 0, ...) the learner's function is right and on which wrong.

Costs are bounded by counts, so the same file gets the same hint on any machine: at most
`MAX_SINGLES` single changes are tried, and pairs only among the `PAIR_POOL` best. The one bound by
time, `CALL_SECONDS` per call (outcomes.py), stops only a change that made a loop run away.

Left out: the hand-written hints (judging.py and each lab's checks.py), which come first.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from itertools import combinations
from types import ModuleType

import torch

from attention_by_hand.lab.code_layout import call_name, parents
from attention_by_hand.lab.error_kinds import other_numbers
from attention_by_hand.lab.input_relations import returned_unchanged
from attention_by_hand.lab.mutants import Change, build, changes, definition
from attention_by_hand.lab.pair_changes import moved_layers, next_lines, twins
from attention_by_hand.lab.raised_halves import raised_half
from attention_by_hand.lab.raised_lines import raised_at
from attention_by_hand.lab.outcomes import (RAISED, Diagnosis, Raised, Tried, agree, alike, all_zeros, apart_only_where, call,
                                            family, flat, fresh, known_numbers, locals_on, near, nothing_finite, size_of,
                                            zeroed_where_wrong)
from attention_by_hand.lab.related import related
from attention_by_hand.lab.relations import known_factor, scale_of
from attention_by_hand.lab.triangle_words import diagonal_words

__all__ = ["all_zeros", "diagnose", "localise", "MAX_SINGLES", "PAIR_POOL"]

MAX_SINGLES = 4000
PAIR_POOL = 16  # pairs are tried among this many single changes, the ones nearest the learner's outputs
NEIGHBOUR_POOL = 4  # and the best this many are paired with every change on their own line or the next


def _gain(output, got, expected) -> int:
    """How many numbers of the learner's output this mutant gets right that the reference does not."""
    m, g, e = flat(output), flat(got), flat(expected)
    if m is None or g is None or e is None or not (m.shape == g.shape == e.shape):
        return 0
    return int((near(m, g) & ~near(e, g)).sum())


def _sort(value) -> object:
    """What a value is, for "another variable of the same shape": a tensor's shape, a layer's class
    and weight shape, else its type."""
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape))
    if isinstance(value, torch.nn.Module):
        # a table for another of the same width (token_embedding for position_embedding), as a
        # layer for another of the same input width: its other size may differ
        weight = getattr(value, "weight", None)
        return ("module", type(value).__name__, tuple(weight.shape[-1:]) if isinstance(weight, torch.Tensor) else None)
    return type(value).__name__


def _plausible(change: Change, values: dict[str, dict[str, object]]) -> bool:
    """A variable is replaced only by another of the same sort (shape, class) on the first input,
    a tensor whose size is read (`q.shape[-1]`) by another of as many axes, a size only by an
    integer; only a tensor of two axes or more is replaced by its first slice."""
    seen = values.get(change.function, {})
    if change.op == "first":
        value = seen.get(change.arg)
        return isinstance(value, torch.Tensor) and value.dim() >= 2
    if change.op == "size_for":
        value = seen.get(change.arg)  # a size is replaced only by another whole number
        return isinstance(value, int) and not isinstance(value, bool)
    if change.op == "slice_name":  # a slice's bound made from another whole number
        return all(isinstance(seen.get(n), int) and not isinstance(seen.get(n), bool) for n in change.arg)
    if change.op == "layer_on":  # only a layer (a module handed in) is applied elsewhere
        return isinstance(seen.get(change.arg), torch.nn.Module)
    if change.op == "by_hand":  # only an nn.Linear is written out by hand
        return isinstance(seen.get(change.arg[0]), torch.nn.Linear)
    if change.op == "arg_shift":  # only whole numbers (positions, ids) are off by one
        value = seen.get(change.arg[0])
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, torch.Tensor) and not value.is_floating_point() and value.dtype != torch.bool)
    if change.op == "sibling":  # the same slice of another tensor: only one of the same shape
        whole, other = (seen.get(n) for n in change.arg[:2])
        return isinstance(whole, torch.Tensor) and isinstance(other, torch.Tensor) and whole.shape == other.shape
    if change.op not in ("name", "exchange", "shape_of"):
        return True
    old, new = change.arg
    if old not in seen or new not in seen:
        return False
    if change.op == "shape_of":  # a size read off another tensor of as many axes (v's width for q's)
        return all(isinstance(seen[n], torch.Tensor) for n in (old, new)) and seen[old].dim() == seen[new].dim()
    if change.op == "exchange" and all(isinstance(seen[n], torch.Tensor) for n in (old, new)):
        # two tensors exchanged in one statement need only as many axes (positions and theta of
        # an outer product: the product comes out transposed)
        return seen[old].dim() == seen[new].dim()
    return _sort(seen[old]) == _sort(seen[new])


def _matches(function, tried: list[Tried], order: list[int], single: bool = True, words: bool = False) -> tuple[bool, object]:
    """(whether `function` reproduces the learner on every input, its output on the first in `order`);
    words: a shape error only in the same words (outcomes.alike)."""
    first = None
    for n, i in enumerate(order):
        output = call(function, tried[i].args)
        if n == 0:
            first = output
        if not (alike(output, tried[i].got, words) if single else agree(output, tried[i].got)):
            return False, first
    return True, first


def _mistake(chosen: tuple[Change, ...]) -> str:
    """The same words for the same change, whichever function's check found it (the room counts them)."""
    return "; ".join(f"{c.function}: {c.text}" for c in chosen)


def _say(chosen: tuple[Change, ...], function: str, reference: ModuleType) -> str:
    if len(chosen) == 2 and {c.op for c in chosen} == {"unlayer", "layer_on"}:
        left_out, applied = sorted(chosen, key=lambda c: c.op != "unlayer")
        where = re.match(r"`(.*?)` for `.*` \(the layer `.*?` left out\)(.*)$", left_out.text)
        belongs = f", not to `{where.group(1)}`{where.group(2)}" if where else ""
        return (f"yours applies the layer {applied.arg} at the wrong place: the reference with {applied.text}{belongs}")
    parts = []
    for change in chosen:
        # the learner's function may not call that helper: its own code does what the change does
        said = [f"in {change.function}(), which the reference's {function}() calls"] if change.function != function else []
        said += [words] if (words := diagonal_words(definition(reference, change.function), change)) else []
        parts.append(change.text + (f" ({'; '.join(said)})" if said else ""))
    if len(parts) == 2 and parts[0] == parts[1]:
        return f"yours equals the reference with {parts[0]}, both times it is done there"
    return "yours equals the reference with " + ", and ".join(parts)


def diagnose(reference: ModuleType, function: str, tried: list[Tried], prefer: frozenset[str] = frozenset(),
             sound: frozenset[str] = frozenset()) -> Diagnosis | None:
    """The change of the reference, or the relation, that gives the learner's outputs on every
    input in `tried`; None when none does (or the learner's function raised on every one).

    sound: the functions the learner's passed every check of. A change inside one of them (the
    mask's dtype, for weights that turned a right mask into floats) says what the learner's code
    did as if that function were wrong, and sends the learner to code that is right: none is tried."""
    # Hundreds of tiny calls: one thread is faster (no waking of a pool for a 4 x 4 product).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # the reference's outputs, made once: both steps compare the learner's with them
        expected = [call(getattr(reference, function), t.args) for t in tried]
        found = _unchanged(reference, function, tried, expected, _diagnose(reference, function, tried, prefer, expected, sound))
        # outputs wrong only where they hold nan (the rows of a mask whose every score became nan), all
        # zeros, or no entry at all (an empty range of positions), fit any change of the reference that makes
        # nan, zeros or nothing there, whatever made the learner's
        wrong = [(t.got, e) for t, e in zip(tried, expected) if not isinstance(t.got, Raised) and not agree(t.got, e)]
        if found and wrong and all(apart_only_where(g, e, torch.isnan) or all_zeros(g) or _emptied(g, e) for g, e in wrong):
            found = dataclasses.replace(found, vacuous=True)
        # a change of the reference that zeroes the one part the learner got wrong (`out` of (out, lse))
        # fits whatever zeroed the learner's: a result thrown away as well as a sum that never grew
        if found and found.changes and wrong and all(zeroed_where_wrong(g, e) for g, e in wrong):
            found = None
        if found and wrong and not found.relation and other_numbers(reference, function, found.changes, tried):
            found = dataclasses.replace(found, partly_raised=True)
        if found and not wrong and not found.relation:
            later = _raises_later(reference, function, found.changes, [t.args for t in tried if isinstance(t.got, Raised)])
            found = dataclasses.replace(found, raised_only=True, raised_later=later)
        return found
    finally:
        torch.set_num_threads(threads)


def _unchanged(reference: ModuleType, function: str, tried: list[Tried], expected: list,
               found: Diagnosis | None) -> Diagnosis | None:
    """The diagnosis with "yours returns `x` unchanged" before it, where that holds: what the
    learner sees, before the changes of the reference that give it."""
    ran = [(t, e) for t, e in zip(tried, expected) if not isinstance(t.got, Raised)]
    names = list(inspect.signature(getattr(reference, function)).parameters)
    said = returned_unchanged(names, [t.args for t, _ in ran], [t.got for t, _ in ran], [e for _, e in ran], agree)
    if not said:
        return found
    return dataclasses.replace(found, hint=f"{said}; {found.hint}") if found else Diagnosis(said, f"{function}: {said}")


def _emptied(got, expected) -> bool:
    """Whether `got` holds no number where `expected` holds some (`arange(5, 5)`: an empty range)."""
    mine, theirs = flat(got), flat(expected)
    return mine is not None and theirs is not None and mine.numel() == 0 < theirs.numel()


def _parts(got) -> int:
    return len(got) if isinstance(got, (tuple, list)) else 0


def _lost(got, expected, k: int) -> bool:
    """Whether part k of `got` holds no finite number where that of `expected` holds some."""
    if not (isinstance(got, (tuple, list)) and isinstance(expected, (tuple, list)) and k < min(len(got), len(expected))):
        return False
    return nothing_finite(got[k]) and not nothing_finite(expected[k])


def _raises_later(reference: ModuleType, function: str, chosen: tuple[Change, ...], inputs: list[tuple]) -> bool:
    """Whether the reference with the one change `chosen`, in `function` itself, raises on the first of
    `inputs` on a line past the changed statement (a value made wrong there, which raises later)."""
    if len(chosen) != 1 or not inputs or chosen[0].function != function:
        return False
    change = chosen[0]
    mutant = build(reference, function, chosen)
    fdef = definition(reference, function)
    statement = next((n for n in ast.walk(fdef) if isinstance(n, ast.stmt) and n is not fdef and n.lineno == change.line), None)
    line = raised_at(mutant, inputs[0]) if mutant is not None and statement is not None else None
    return line is not None and not statement.lineno <= line <= (statement.end_lineno or statement.lineno)


def _diagnose(reference: ModuleType, function: str, tried: list[Tried], prefer: frozenset[str],
              expected: list, sound: frozenset[str] = frozenset()) -> Diagnosis | None:
    if not tried:
        return None
    if all(isinstance(t.got, Raised) for t in tried):
        return _raised_alike(reference, function, tried, sound)
    if any(isinstance(e, Raised) for e in expected):
        return None
    # Where the learner's function raised, the hint says so (verdict.py); a change must raise there
    # too. Wrong outputs come first (they rule out the most changes), then the inputs where it
    # raised: a function that raised on every case and ran on a probe (a square table, where rows
    # and columns are not told apart) is still diagnosed, by the change that raises where it did.
    differ = [i for i, (t, e) in enumerate(zip(tried, expected)) if not agree(t.got, e)]
    wrong = [i for i in differ if not isinstance(tried[i].got, Raised)]
    raised = [i for i in differ if isinstance(tried[i].got, Raised)]
    if not differ:
        return None
    # Outputs with no finite number on any input (all nan) fit every change that breaks the
    # arithmetic somewhere: no evidence of which. The hint says what was observed.
    if all(nothing_finite(t.got) or isinstance(t.got, Raised) for t in tried):
        return None
    # So does one part of a pair (dq of (dq, dk, dv)) that is all nan on every wrong input where
    # the reference's is not (an accumulator made with torch.empty, which the child fills with nan)
    if wrong and any(all(_lost(tried[i].got, expected[i], k) for i in wrong) for k in range(_parts(tried[wrong[0]].got))):
        return None
    # The smallest failing input first: most changes fail there, at the lowest cost.
    wrong.sort(key=lambda i: size_of(tried[i].args))
    order = wrong + raised + [i for i in range(len(tried)) if i not in differ]
    first_got, first_expected = tried[order[0]].got, expected[order[0]]

    singles = _singles(reference, function, tried[order[0]].args, sound)
    near: list[tuple[int, int, Change]] = []
    found: list[tuple[Change, ...]] = []
    scaled: list[Change] = []  # changes whose output is the learner's but for a constant factor
    for n, change in enumerate(singles):
        mutant = build(reference, function, (change,))
        if mutant is None:
            continue
        # a call put for another (stack for cat) that raises says that call's words: the learner's must be them
        matched, first = _matches(mutant, tried, order, words=change.kind == "function")
        if matched:
            found.append((change,))
            continue
        gain = _gain(first, first_got, first_expected)
        if gain > 0:
            near.append((-gain, n, change))
        if len(scaled) < MAX_SCALED and _proportional(first_got, first):
            scaled.append(change)
    if not wrong:  # only errors to go by: the change must raise them at the learner's step (of an exchange, the half they show)
        found = [c for c in found if _same_step(reference, c, tried, raised)]
        found = [h for h in ((raised_half(reference, function, c[0], tried, raised),) for c in found) if h[0] is not None]
    # those that raise the learner's very words, where it raised, before those that raise alike;
    # where it only raised, a size error in other words is another error (its sizes are the evidence)
    exact = [c for c in found if _matches(build(reference, function, c), tried, order, single=False)[0]]
    if found and (exact or wrong or all(family(tried[i].got) == "index" for i in raised)):
        return _one_mistake(reference, function, exact or found, tried, prefer) or related(reference, function, tried, expected)
    found = []
    near.sort(key=lambda item: item[:2])
    pool = [change for _, _, change in near[:PAIR_POOL]]
    pairs = sorted(combinations(pool, 2), key=lambda p: p[0].rank + p[1].rank)
    # A change that alone goes half way (a mask moved after the softmax) often needs a second one
    # beside it (its -inf made 0): the best few, with every change on their line or the next.
    following = next_lines(singles)
    for a in pool[:NEIGHBOUR_POOL]:
        last = following[(a.function, a.line)]
        pairs += [(a, b) for b in singles if b.function == a.function and a.line <= b.line <= last and b not in pool]
    pairs += twins(singles, following)
    pairs += moved_layers(singles)
    for a, b in pairs:
        mutant = build(reference, function, (a, b))
        if mutant is not None and _matches(mutant, tried, order, single=False)[0]:
            found.append((a, b))
    if not wrong:
        found = [c for c in found if _same_step(reference, c, tried, raised)]
    return ((_one_mistake(reference, function, found, tried, prefer) if found else None)
            or related(reference, function, tried, expected) or _moved_factor(reference, function, tried, scaled))


def _singles(reference: ModuleType, function: str, args: tuple, sound: frozenset[str] = frozenset()) -> list[Change]:
    """The single changes worth trying, in rank order: at most MAX_SINGLES, each plausible for the
    values the reference's functions hold on `args`; none inside a function in `sound` but this one."""
    every = [c for c in changes(reference, function) if c.function == function or c.function not in sound]
    values = locals_on(reference, function, args, {c.function for c in every})
    return sorted((c for c in every[:MAX_SINGLES] if _plausible(c, values)), key=lambda c: c.rank)


def _raised_alike(reference: ModuleType, function: str, tried: list[Tried],
                  sound: frozenset[str] = frozenset()) -> Diagnosis | None:
    """A function that raised on every input: named only by the one single change that raises the
    very same error, in the same words (its sizes), on each of them, and asks for no axis the
    learner never wrote (_same_step); two such changes, and the errors cannot tell them apart (they
    would agree on any input)."""
    if any(t.got is RAISED for t in tried):
        return None
    found = []
    for change in _singles(reference, function, tried[0].args, sound):
        mutant = build(reference, function, (change,))
        if (mutant is not None and _matches(mutant, tried, list(range(len(tried))), single=False)[0]
                and _same_step(reference, (change,), tried, list(range(len(tried))))):
            half = raised_half(reference, function, change, tried, list(range(len(tried))))
            found += [half] if half is not None and half not in found else []
            if len(found) > 1:
                return None
    return Diagnosis(_say((found[0],), function, reference), _mistake((found[0],)), changes=(found[0],)) if found else None


def _same_step(reference: ModuleType, chosen: tuple[Change, ...], tried: list[Tried], raised: list[int]) -> bool:
    """Whether changes that raise where the learner's function raised could be its mistake: an axis
    they ask for (op "const" of kind "axis") is a number the learner's code writes, wherever that is
    told (outcomes.Raised.written). The same words raised where the learner asked for no such axis
    (its batched product refused 2-D inputs with "got 2") are a coincidence. Where the error's words
    hold no number, the change must be in a call that made the raising line's values
    (outcomes.Raised.called). Where the two raised is compared by outcomes.alike and agree (the
    names their statements assign)."""
    asked = {c.arg for c in chosen if c.op == "const" and c.kind == "axis" and type(c.arg) is int}
    told = [tried[i].got.written for i in raised if isinstance(tried[i].got, Raised) and tried[i].got.written is not None]
    if not all(asked <= written for written in told):
        return False
    # Words with no number in them ("index out of range in self") tell no sizes: many a wrong value
    # raises them. Then the change must be in a call that made the raising line's values, on that
    # line or a line feeding it (a shifted `arange` is no mistake of positions made without one).
    errors = [tried[i].got for i in raised if isinstance(tried[i].got, Raised)]
    if not errors or any(re.search(r"\d", e.message) for e in errors):
        return True
    made = [e.called for e in errors if e.called is not None]  # the calls that made the raising line's values
    for change in chosen:
        call = _changed_call(reference, change)
        if call is not None and not all(call in names for names in made):
            return False
    return True


def _changed_call(reference: ModuleType, change: Change) -> str | None:
    """The name of the innermost call of the reference that holds the node `change` changes (the
    node itself, where it is a call); None where no call holds it."""
    fdef = definition(reference, change.function)
    nodes, above = list(ast.walk(fdef)), parents(fdef)
    node = nodes[change.index] if 0 <= change.index < len(nodes) else None
    while node is not None and not isinstance(node, ast.Call):
        node = above.get(id(node))
    return call_name(node) if node is not None else None


MAX_SCALED = 8


def _proportional(got, output) -> bool:
    """Whether got is output times a constant (not 1, not 0), as far as one input tells."""
    return (isinstance(got, torch.Tensor) and isinstance(output, torch.Tensor) and got.shape == output.shape
            and scale_of(got, output, one=True) is not None)


def _last_step(reference, function: str) -> str | None:
    """The call the reference's function returns (`softmax` for `return torch.softmax(...)`)."""
    returns = [n for n in ast.walk(definition(reference, function)) if isinstance(n, ast.Return) and isinstance(n.value, ast.Call)]
    if len(returns) != 1:
        return None
    call = returns[0].value.func
    return call.attr if isinstance(call, ast.Attribute) else call.id if isinstance(call, ast.Name) else None


def _moved_factor(reference, function: str, tried: list[Tried], scaled: list[Change]) -> Diagnosis | None:
    """A factor applied at the end instead of where the reference applies it: the learner's output
    is a change's output (the factor left out) times a constant the reference knows, on every input."""
    said = []
    for change in scaled:
        mutant = build(reference, function, (change,))
        outputs = [call(mutant, t.args) for t in tried]
        pairs = [(t.got, o, known_numbers(reference, function, t.args)) for t, o in zip(tried, outputs)]
        named = known_factor(pairs)
        if named:
            said.append((change, named, outputs))
    # two changes with the same outputs on every input (`- sqrt(d)` for `/ sqrt(d)` before a
    # softmax, which a shift leaves alone, and the factor removed) are one: the first is said
    said = [s for k, s in enumerate(said) if not any(
        all(agree(a, b) for a, b in zip(s[2], earlier[2])) for earlier in said[:k])]
    if len(said) != 1:  # none, or two that could be told apart only by guessing
        return None
    change, named, _ = said[0]
    name, _, value = named.partition(" = ")
    inverse = name.startswith("1/") and name != "1/2"
    size = f" = {1 / float(value):.3g}" if value else ""  # none where the inputs' sizes differ
    how = f"divided by {name[2:]}{size}" if inverse else f"multiplied by {named}"
    last = _last_step(reference, function)
    text = (f"{_say((change,), function, reference)}, and your output then {how}: the factor applied at the end"
            f"{f' (after the {last})' if last else ''}, not where the reference applies it")
    return Diagnosis(text, f"{function}: {change.text}; output multiplied by {named.split(' =')[0]}", compound=True,
                     changes=(change,))


FRESH_INPUTS = 3  # fresh random inputs per input tried, to tell two matching changes apart


def _one_mistake(reference: ModuleType, function: str, found: list[tuple[Change, ...]], tried: list[Tried],
                 prefer: frozenset[str] = frozenset()) -> Diagnosis | None:
    """The diagnosis when every matching change (or pair) is the same mistake: they agree with
    each other on fresh random inputs too. None when two of them part there: the inputs tried
    cannot tell which mistake was made, and naming either could name the wrong one.

    prefer: mistakes already named for this file (a function it calls): one of the same mistake's
    ways is said in the same words (q and k exchanged in the weights, not the calls' arguments)."""
    # the first in rank order, the plainest way to say it (one name for another before two
    # exchanged), unless another check said it otherwise
    found = sorted(found, key=lambda chosen: (len(chosen), sum(c.op == "exchange" for c in chosen)))
    first = next((chosen for chosen in found if _mistake(chosen) in prefer), found[0])
    if len(found) > 1:
        generator = torch.Generator().manual_seed(0)
        others = [tuple(fresh(a, generator) for a in t.args) for t in tried for _ in range(FRESH_INPUTS)]
        mutants = [build(reference, function, chosen) for chosen in found]
        outputs = [[call(m, args) for args in others] for m in mutants if m is not None]
        if any(not all(agree(a, b) for a, b in zip(outputs[0], other)) for other in outputs[1:]):
            return None
        # changes that zero the output (or leave no finite number) agree on any input: that is no
        # evidence that they are one mistake written two ways
        ran = [out for out in outputs[0] if not isinstance(out, Raised)] if outputs else []
        if ran and all(all_zeros(out) or nothing_finite(out) for out in ran):
            return None
    # two different changes, not one slip made twice (`stack` for `cat`, both times it is done there)
    return Diagnosis(_say(first, function, reference) + _equal_axes(first, found), _mistake(first), pair=len({c.text for c in first}) > 1,
                     changes=first)


def _equal_axes(first: tuple[Change, ...], found: list[tuple[Change, ...]]) -> str:
    """Other axes in the same statement that give the same numbers everywhere (`transpose(0, 2)`
    and `transpose(1, 0)` where axis 2 has size 1): which the learner took, no input tells, so each
    is said. (Other twins are left unsaid: `/ sqrt(d)` removed, or made `- sqrt(d)`, which the
    softmax ignores, are one mistake said one way.)"""
    if len(first) != 1 or first[0].kind != "axis":
        return ""
    codes = []
    for chosen in found:
        change = chosen[0]
        if len(chosen) == 1 and chosen != first and change.line == first[0].line and change.kind == first[0].kind:
            code = re.match(r"(`.*?` for `.*?`)", change.text)
            if code and code.group(1) not in first[0].text and code.group(1) not in codes:
                codes.append(code.group(1))
    return f" (or, with the same numbers on every input, {' or '.join(codes[:2])})" if codes else ""


def localise(reference: ModuleType, function: str, probes: list[Tried]) -> str | None:
    """On which probe inputs the learner's function is right and on which wrong, in words."""
    if not probes:
        return None
    right, wrong = [], []
    for probe in probes:
        expected = call(getattr(reference, function), probe.args)
        (right if agree(probe.got, expected) else wrong).append(probe.label)
    if not right:
        return f"wrong on every probe too ({'; '.join(wrong)})"
    if not wrong:
        return f"right on every probe ({'; '.join(right)}): the error shows only on the check's own inputs"
    return f"right with {'; '.join(right)}, wrong with {'; '.join(wrong)}"
