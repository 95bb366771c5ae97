"""One small change of the learner's own code that makes its function right on every input the
check tried: a mistake named by its mend, where no change of the reference reproduces it.

diagnosis.py asks which change of the *reference* gives the learner's outputs. Many mistakes are no small
change of the reference's code (the learner wrote the function another way) and still a small change of
the learner's: a loop that starts at 1, a slice end less one, `split(hs)` for `split(d)`, a `v` never
transposed. So the same changes (mutants.py) are made to the learner's function, with a few that only a
learner's code needs (mend_changes.py: a line left out, an exp put in, a count one more), in the child
(the learner's code runs nowhere else), and each is run on every input the check called that function on.
A change is said only when, with it, the function returns the reference's output on EVERY input (its
dtype too, or a float of more digits, which the judges accept: mend_right.py): the hint is then a fact the
learner can test, "with `range(0, T)` for `range(1, T)` (line 56) yours gives the reference's values".

Which changes: those of the function's own lines, and of the learner's helpers the checker does not check (a
checked helper has its own checks; a change there would name the wrong function). Where blame.py found one
span on every wrong call, the span's lines are changed first, then the learner-only changes, then the rest
(where it found none and the function raised, the raising line and the lines feeding it come first:
raised_lines.py). A function that calls a checked function that was wrong is not mended (its own code may be
right). When several changes mend it, the one said first reads most like a mistake (`PREFERRED`), and where
another names a different slip (`head:` for `head + 1:`, or the term `- x[head]` dropped) it is said beside
it: the outputs cannot tell them apart (mend_overlaps.py: one number changed two ways is one slip, and so is a
change inside what another takes out, `exp(s.mean(...))` for the term `s.mean(...)` dropped); where one change
takes out what the best one only tweaks (`** 0.75` removed, or `* 0.75` for it), the removal is said, but not
where the best one mends the very operation that raised (`+ (1,)` for `+ 1` added to a shape): taking the call
around it away mends only by another route. Never said: a change that mends only by making a factor 1 on every
input (`-(-T // T)` for `-(-T // block)`, then `/ n_blocks`); beside the removal of a name, one that makes
that very name do nothing (idle_names.py); one that takes away a name the function's run found undefined
and puts no name in its place (`0.0` for `math.nan`, where math was never imported): it mends the NameError, not
what its words name; of several changes of one node of a line (or of nodes inside it),
one that leaves the function's state further from the reference's (`(m - s).abs()` dropped, an average, where
`+` for `-` makes the running maximum); one of a line written as the reference's, where one of a line written
otherwise mends too (kept_lines.py). A variable put for another of another shape (or kind) is tried after
every other change, unless the shapes differ just where yours is wrong (`zeros_like(v)` for `zeros_like(q)`)
or it is on the line that raised; one that can mend only by chance is never tried (`_by_chance`: a name
holding 0 or 1 on every input; a slice read from a tensor of another shape, as `[heads[:-1], values]` for
`[values[:-1], heads]`, right only because the slice came out empty). A loop's variable (of the function or
its helpers) put for another name or size is never said (right only because the loop left it at its last
value), but inside that loop, in an index, where it holds its step's value. Nothing is tried where the
function or a helper is not the file's `def` (rebound).

Costs are bounded by counts (`MAX_CHANGES` per function) and by time: `SECONDS` for all the mends of one
child, `CALL_SECONDS` per call (a change that made a loop endless); a safety net far above what the labs
take (400 changes of a lab 04 function: 0.24 s), that on a very slow machine may leave a mend unsaid,
never say one that would not be.

Pairs of changes are tried only as one change made at every place that repeats what it changes
(`_repeated_mend`, the groups from repeated_mends.py): a slip copied from the query's line to the key's,
a layer wrapped around each branch's output; one call put for another at each of its places, `zeros_like`
for `empty_like` thrice on one line; the same bound of both slices of a line (`:i + 1` for `:i` in
`w[i, :i] @ v[:i]`); every place of a name in one subscript (`j0` for `i0` in
`k[..., i0:i0 + (j1 - j0)]`: the query block's rows for the key block's), where a loop's variable may
stand for another inside it. Left out: other pairs of changes, and changes of classes' methods.
"""

from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass
from types import ModuleType

import torch

from attention_by_hand.lab.agreeing_mends import agreeing
from attention_by_hand.lab.call_words import reference_makes
from attention_by_hand.lab.conditional_mends import inside_swapped
from attention_by_hand.lab.einsum_mends import spelled_first
from attention_by_hand.lab.api_mends import ANOTHER_ROUTE, API_OPS
from attention_by_hand.lab.habit_mends import HABIT_OPS, one_size_throughout
from attention_by_hand.lab.write_mends import SAYS_WHY
from attention_by_hand.lab.constant_tensors import by_constant_tensor
from attention_by_hand.lab.mend_changes import loop_names, mend_changes
from attention_by_hand.lab.idle_names import made_idle
from attention_by_hand.lab.kept_lines import fresh_mends, texts_kept
from attention_by_hand.lab.loop_passes import cuts_to_one, loop_lines, passes, several
from attention_by_hand.lab.mend_right import mend_right
from attention_by_hand.lab.mend_overlaps import (REMOVALS, SIDE_REMOVALS, UNIT_SAID, alone_if_catch_all, inside_removed, names_removed,
                                                one_slip, shape_emptied, size_read_first, undoes)
from attention_by_hand.lab.mend_words import mistake_words
from attention_by_hand.lab.mutant_edits import call_name
from attention_by_hand.lab.mutants import Change, build, changes, definition, reachable
from attention_by_hand.lab.number_mends import evading, numbers_refused
from attention_by_hand.lab.outcomes import RAISED, Raised, call, locals_on
from attention_by_hand.lab.raised_lines import feeding_lines, raised_at
from attention_by_hand.lab.repeated_mends import innermost_subscripts, subscript_of, twin_groups
from attention_by_hand.lab.returned_steps import RETURNED_STEP, returned_step
from attention_by_hand.lab.truth_mends import plain_truth

__all__ = ["Repair", "repair", "MAX_CHANGES", "SECONDS", "PREFERRED"]

MAX_CHANGES = 500  # the learner-only kinds go first: room after them for a long function's own (a tiled backward's name came 400th)
SECONDS = 5.0  # a guard: a check's mends took 0.63 s at most in 51 checks of tuning sets G and H
CALL_SECONDS = 0.5

# The kinds of change in the order they are said when several mend the function: those that read
# as a slip first (a term left in, another constant, another axis), a whole line left out before
# the parts of it (its factor, its call), a reordering or another name last.
PREFERRED = ("term", "comparison", "constant", "axis", "transpose", "arguments", "step", "factor", "sqrt", "sign",
             "function", "returned", "unpacked", "index", "call", "offset", "order", "variable")


@dataclass(frozen=True)
class Repair:
    """A change of the learner's function that gives the reference's output on every input tried.

    line: the learner's line it changes; text: the change in the learner's code; words: the mistake it mends,
    in words (mend_words.py), or None; many: made at several places at once (_repeated_mend)."""

    line: int
    text: str
    words: str | None = None
    op: str | None = None  # the change's op: a loop's control (`jump`, `outdent`) is said alone (verdict.py)
    other: Repair | None = None  # another change that mends it too, whose words name another slip
    many: bool = False
    texts: tuple[str, ...] = ()  # the learner's operations and calls the change leaves as they are (kept_lines.texts_kept)


_PRODUCTS = {"matmul", "mm", "bmm", "einsum", "linear", "tensordot"}  # the calls that make a matrix product


def _in_its_loops(change: Change, names: set[str], scopes: dict[str, tuple[dict, dict]]) -> bool:
    """Whether the change puts a name for another in an index inside the body of a `for` that binds
    each of these names (there the name holds its step's value; after the loop, only the last
    step's). Elsewhere a loop's variable put for a size mends by chance (`t + 2 < t`, never true).
    scopes: per function, _loop_scopes of its nodes."""
    inner, bound = scopes[change.function]
    return change.op == "name" and change.index in inner and names <= bound.get(change.index, set())


def _loop_scopes(fnodes: list[ast.AST]) -> tuple[dict[int, ast.Subscript], dict[int, set[str]]]:
    """({node's place: the innermost subscript whose index holds it}, {node's place: the names the
    `for` loops whose bodies hold it bind}), places counted in ast.walk order."""
    place = {id(n): i for i, n in enumerate(fnodes)}
    inner = {place[k]: v for k, v in innermost_subscripts(fnodes).items()}
    bound: dict[int, set[str]] = {}
    for loop in (n for n in fnodes if isinstance(n, ast.For)):
        targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for part in loop.body:
            for x in ast.walk(part):
                bound.setdefault(place[id(x)], set()).update(targets)
    return inner, bound


def _is_the_def(module: ModuleType, name: str) -> bool:
    """Whether `name` in the module is the function the file's `def` of it makes (a name rebound to
    another function, a lambda or a wrapper, runs code that is not the code changed)."""
    fdef = definition(module, name)
    code = getattr(getattr(module, name, None), "__code__", None)
    return getattr(code, "co_firstlineno", None) in {fdef.lineno, *(d.lineno for d in fdef.decorator_list)}


def _names_in(arg) -> set[str]:
    if isinstance(arg, str):
        return {arg}
    return set().union(*(_names_in(a) for a in arg)) if isinstance(arg, (tuple, list)) else set()


def _alike(a, b) -> bool:
    """Whether one value could stand for the other: tensors of one shape but for axes of size 1
    (they broadcast alike), layers of one class, else values of one type."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return [n for n in a.shape if n != 1] == [n for n in b.shape if n != 1]
    if isinstance(a, torch.nn.Module) or isinstance(b, torch.nn.Module):
        return type(a) is type(b)
    return type(a) is type(b) or {type(a), type(b)} <= {int, float}


def _names_of(change: Change) -> tuple[str, str] | None:
    """(the name replaced, the name put in) of a change that puts one variable for another."""
    if change.op == "size_for" and isinstance(change.arg, str):
        return None, change.arg
    if change.op in ("name", "exchange", "argument_for") and isinstance(change.arg, tuple) and len(change.arg) == 2:
        return change.arg
    return None


def _by_chance(change: Change, seens: list[dict[str, dict[str, object]]], nodes: dict[str, list[ast.AST]]) -> bool:
    """A variable put for another that can mend a line only by chance, never tried:
    - `x[0]` for `x` unless `x` holds a tensor of two axes or more as the function returns on the
      first input (a 1-D tensor's first entry fits only by broadcasting: `ones(ids[0].numel())`);
    - a size for a fixed count where that size is one number on every input (habit_mends.py);
    - an argument for a typed number unless it holds a float on every input, not 0 or 1 on all (a flag, a unit scale);
    - a whole number that is 0 or 1 on every input (`/ _` for `/ t_gen`, where `_` from `B, _, C = x.shape` is 1);
    - a size replaced by what is not a whole number;
    - two variables exchanged where one is sliced and the two differ in shape: the slice then reads other entries,
      or none (`[heads[:, :, :-1], values]` is right only because the slice of the one-row `heads` is empty);
    - `~flag` for `not flag`, where the flag holds no tensor (truth_mends.plain_truth)."""
    values = [seen.get(change.function, {}) for seen in seens]
    if change.op == "truth_entrywise":
        return plain_truth(nodes[change.function][change.index], values)
    if change.op == "fixed_count":
        return one_size_throughout(change.arg, values)
    if change.op == "typed_number":
        return not all(type(v.get(change.arg)) is float for v in values) or all(v[change.arg] in (0.0, 1.0) for v in values)
    if change.op == "first":  # `ids[0]` of a 1-D `ids` is one number, not a slice: it fits only by broadcasting
        return not (values and isinstance(values[0].get(change.arg), torch.Tensor) and values[0][change.arg].dim() >= 2)
    names = _names_of(change)
    if names is None:
        return False
    old, new = names
    if values and all(type(v.get(new)) is int and v.get(new) in (0, 1) for v in values):
        return True
    first = values[0] if values else {}
    if change.op == "size_for":
        return new in first and type(first[new]) is not int
    if change.op != "exchange" or old not in first or new not in first or _alike(first[old], first[new]):
        return False
    sliced = {n.value.id for n in ast.walk(nodes[change.function][change.index]) if isinstance(n, ast.Subscript)
              and isinstance(n.value, ast.Name) and any(isinstance(k, ast.Slice) for k in ast.walk(n.slice))}
    return bool(sliced & {old, new})


def _unlike(change: Change, seen: dict[str, dict[str, object]]) -> bool:
    """A variable put for another of another shape or kind on one input (`_candidates` tries most
    of those after the others: they can mend, as `torch.relu(h)` for `torch.relu(x)` does, but
    seldom)."""
    names = _names_of(change)
    values = seen.get(change.function, {})
    if names is None or names[0] is None or names[0] not in values or names[1] not in values:
        return False
    return not _alike(values[names[0]], values[names[1]])


def _candidates(module: ModuleType, function: str, checked: set[str], span: tuple[int, int] | None,
                inputs: list[tuple] = (), near: set[int] = frozenset(), wrong: int = 0, raising: set[int] = frozenset()) -> list[Change]:
    """The changes to try, at most MAX_CHANGES: the learner-only changes on the span's lines first (few, and each a
    whole kind of mistake), then the span's other changes, then the learner-only changes elsewhere, then the
    rest, then brackets moved (many, and most of them give the same numbers); another axis anywhere comes right
    after the span's learner-only changes (`_axes_early`). A span can be the whole function
    (a loop's values part at its end): its own changes alone can then fill the budget. Without a span, the lines
    `near` (where the function raised and the lines feeding it, raised_lines.py, or where its calls first
    made a nan) take its place. In that order,
    a variable put for another of another shape comes after all the rest (not on the line that raised), and one
    that can mend only by chance is never tried. inputs: the inputs yours is wrong on first, `wrong` of them,
    then the others. raising: the line where the function raised, whose LATE changes come first among the near
    lines'."""
    own = [name for name in reachable(module, function) if name == function or name not in checked]
    if not all(_is_the_def(module, name) for name in own):
        return []
    loops = set().union(*(loop_names(definition(module, name)) for name in own))
    extra = [c for name in own for c in mend_changes(definition(module, name))]
    seens = [locals_on(module, function, args, set(own)) for args in inputs]  # each function's locals as it returns
    nodes = {name: list(ast.walk(definition(module, name))) for name in own}
    scopes = {name: _loop_scopes(fnodes) for name, fnodes in nodes.items()}
    allowed = [c for c in (*changes(module, function, glossed=False), *extra) if c.function in own
               and not _by_chance(c, seens, nodes)
               and not (c.op in ("name", "shape_of", "size_for", "exchange") and _names_in(c.arg) & loops
                        and not _in_its_loops(c, _names_in(c.arg) & loops, scopes))]
    kept = set(allowed)
    extra = [c for c in extra if c in kept]  # the learner-only changes pass the same filters
    inside = [c for c in allowed if c.function == function
              and (span[0] <= c.line <= span[1] if span is not None else c.line in near)]
    first = set(inside) | set(extra)
    rest = [c for c in allowed if c not in first]
    # LATE: on the raising line; one range for another also where the span is the whole function (it localises
    # nothing) or where no span was found and the lines feeding the raising one stand for it (a tiled loop's)
    fdef = definition(module, function)
    unplaced = span is None or (span[0] <= _first_line(fdef) and span[1] >= fdef.end_lineno)
    ours = [c for c in inside if c in set(extra) and ((unplaced and c.op == "range_for") or c.op not in LATE or c.line in raising)]
    inside = ours + [c for c in inside if c not in set(ours)]
    regrouped = [c for c in extra if c.op in ("regroup", "group_terms") and c not in inside]
    extra = [c for c in extra if c.op not in ("regroup", "group_terms") and c not in inside]
    ordered = _axes_early(inside + extra + rest + regrouped, len(ours))
    # unlike on the first input, where yours is wrong, unless alike on every input where yours is right:
    # a name of another shape just where yours goes wrong (`zeros_like(v)` for `zeros_like(q)`, where
    # d_v is not head_size) may be the very slip; so may one on the line that raised (`dp` for `d_out`)
    right = seens[wrong:] if wrong else []
    unlike = [c for c in ordered if c.line not in raising and seens and _unlike(c, seens[0]) and not (right and not any(_unlike(c, s) for s in right))]
    return [c for c in ordered if c not in set(unlike)] + unlike  # repair() tries the first MAX_CHANGES


def _first_line(fdef: ast.FunctionDef) -> int:
    """The line of the function's first statement after its docstring."""
    first = fdef.body[0]
    docstring = len(fdef.body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    return fdef.body[1 if docstring else 0].lineno


def _axes_early(ordered: list[Change], first: int) -> list[Change]:
    """Another axis tried right after the `first` changes (the learner-only ones on the span's or the
    raising line's): few of them (22 in a tiled backward of 3,335 changes), and a common slip, that a
    long function's name swaps (2,152 of 2,867 in another) would push past MAX_CHANGES. Which
    changes mend does not hang on the order, only which fit in the budget."""
    later = ordered[first:]
    return ordered[:first] + [c for c in later if c.kind == "axis"] + [c for c in later if c.kind != "axis"]


def _makes_product(reference: ModuleType, function: str) -> bool:
    """Whether the reference's `function` (or what it calls) makes a matrix product: `@`, `matmul`, ..."""
    return any((isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult)) for f in reachable(reference, function)
               for n in ast.walk(definition(reference, f))) or bool(reference_makes(reference, function) & _PRODUCTS)


def _foreign_unwraps(module: ModuleType, reference: ModuleType, function: str, mends: list[Change]) -> list[Change]:
    """The mends that take away a call the reference (its `function` and what that calls) never
    makes (`w` for `torch.round(w, decimals=4)`, where `decimals=5` mends the line too)."""
    theirs = reference_makes(reference, function)
    found = []
    for change in (c for c in mends if c.op == "unwrap"):
        node = list(ast.walk(definition(module, change.function)))[change.index]
        if isinstance(node, ast.Call) and call_name(node) not in theirs:
            found.append(change)
    return found


def repair(module: ModuleType, reference: ModuleType, function: str, inputs: list[tuple], checked: set[str],
           span: tuple[int, int] | None = None, deadline: float | None = None, nans: set[int] = frozenset()) -> Repair | None:
    """The change of the learner's `function` (in `module`) that mends it on every one of `inputs`,
    or None. checked: the functions the checker calls (their changes are not tried). nans: the lines
    where its calls first made a nan, tried first where no span was found."""
    expected = [call(getattr(reference, function), args) for args in inputs]
    if any(isinstance(e, Raised) for e in expected):
        return None  # where the reference raises, "right" means nothing
    got, took = [], []
    for args in inputs:  # each call's time: a change is tried first on the quickest input that is wrong
        started = time.perf_counter()
        got.append(call(getattr(module, function), args, CALL_SECONDS))
        took.append(time.perf_counter() - started)
    if any(g is RAISED for g in got) or (deadline is not None and time.perf_counter() > deadline):
        return None  # a call that ran out of time says nothing of what it returns
    wrong = [i for i, g in enumerate(got) if not mend_right(g, expected[i])]
    if not wrong:
        return None
    order = wrong + [i for i in range(len(inputs)) if i not in wrong]  # a change fails fastest where yours does
    # the quickest of those first: which changes mend is the same in any order, only found sooner
    quick = sorted(wrong, key=lambda i: took[i]) + order[len(wrong):]
    mends: list[Change] = []
    near = set()
    if span is None and _is_the_def(module, function) and any(isinstance(g, Raised) for g in got):
        # where it raised, and what feeds that line; within what is left of the time
        left = CALL_SECONDS if deadline is None else min(CALL_SECONDS, max(0.0, deadline - time.perf_counter()))
        line = raised_at(getattr(module, function), inputs[next(i for i, g in enumerate(got) if isinstance(g, Raised))], left)
        near = feeding_lines(definition(module, function), line) if line is not None else set()
    raising = {line} if near else set()
    if span is None and not near and nans and _is_the_def(module, function):
        near = set(nans)  # the lines alone (what feeds a late one can push the slip past the budget)
    allowed = _candidates(module, function, checked, span, [inputs[i] for i in order], near, len(wrong), raising)
    if not numbers_refused(got):  # a number made a tensor mends only a call that refused the number: not tried
        allowed = [c for c in allowed if c.op != "number_tensor"]
    if not _makes_product(reference, function):  # `matmul` for `mul` where the lab has the product written by hand
        allowed = [c for c in allowed if not (c.op == "rename" and c.arg == "matmul")]
    candidates = allowed[:MAX_CHANGES]
    for change in candidates:
        if deadline is not None and time.perf_counter() > deadline:
            break
        if _mends(module, function, [change], inputs, expected, quick):
            mends.append(change)
    # a change that takes away a name the learner's run found undefined (`0.0` for `math.nan`, no
    # `import math`) mends the NameError, not what its words name; one that puts a name for it says it
    undefined = {m.group(1) for g in got if isinstance(g, Raised) and g.kind == "NameError"
                 for m in [_UNDEFINED.match(g.message)] if m}
    if undefined:
        nodes = list(ast.walk(definition(module, function)))
        mends = [c for c in mends if c.kind == "variable" or c.function != function
                 or not any(isinstance(n, ast.Name) and n.id in undefined for n in ast.walk(nodes[c.index]))]
    walked = {name: list(ast.walk(definition(module, name))) for name in {c.function for c in mends}}
    mends = [c for c in mends if not by_constant_tensor(c, walked[c.function])]
    seens = None
    if any(c.op not in UNIT_SAID for c in mends):  # a change that makes a factor 1 mends by chance
        seens = [locals_on(module, function, inputs[i], {function}) for i in order]
        mends = [c for c in mends if not made_idle(c, module, function, [inputs[i] for i in order], seens, UNIT_SAID)]
    # where a side of an operation taken out mends it too, a call taken away or another number
    # that makes a name do nothing (`pattern` for `tril(pattern)`, then `/ past`) is chance; not
    # another axis, which makes a sum of weights each row's total, a normalisation the reference
    # may make (`p.sum(dim=-1)` for `p.sum(dim=0)`): that is said beside the removal
    removed = names_removed(module, function, mends)
    if removed and any(c.op not in (*SIDE_REMOVALS, "drop") for c in mends):
        seens = seens or [locals_on(module, function, inputs[i], {function}) for i in order]
        mends = [c for c in mends if c.kind == "axis" or not made_idle(
            c, module, function, [inputs[i] for i in order], seens, (*SIDE_REMOVALS, "drop"), removed)]
    # a mend that leaves one pass of a loop that made several (one tile of keys), where the reference's
    # loops make several, takes the loop's work away
    lines = loop_lines(definition(module, function))
    if lines and any(c.function == function and c.line not in lines for c in mends) and _is_the_def(reference, function):
        tried = [inputs[i] for i in order]
        before = [passes(getattr(module, function), args, lines, CALL_SECONDS) for args in tried]
        theirs = loop_lines(definition(reference, function))
        looping = [several(passes(getattr(reference, function), args, theirs, CALL_SECONDS)) for args in tried]
        mends = [c for c in mends if c.function != function or c.line in lines
                 or not cuts_to_one(build(module, function, (c,)), tried, lines, before, looping, CALL_SECONDS)]
    mends = fresh_mends(module, reference, function, agreeing(module, reference, function, mends, inputs[order[0]]), span)
    if any(c.op == "number_tensor" for c in mends):  # another function called only evades the number's type
        evaders = evading(mends, {name: list(ast.walk(definition(module, name))) for name in {c.function for c in mends}})
        mends = [c for c in mends if c not in evaders]
    if not mends:
        return _repeated_mend(module, function, inputs, expected, order, candidates, deadline, allowed)
    # another constant in a call the reference never makes reads as a slip of the constant, where
    # taking the call away mends the line too: the call is said, not the constant
    unwrapped = {c.line for c in _foreign_unwraps(module, reference, function, mends)}
    nodes = {name: list(ast.walk(definition(module, name))) for name in {c.function for c in mends}}
    mends = alone_if_catch_all(inside_swapped(mends, nodes))
    mends = [c for c in mends if not shape_emptied(c, nodes[c.function])]  # a shape made () broadcasts: chance
    if not mends:
        return None
    # a count rounded up that mends is that very slip; a range made longer some other way (`// block`
    # removed, `+ 1`) mends it too, but only because the passes it adds find nothing to do
    best = min(mends, key=lambda c: (span is not None and not span[0] <= c.line <= span[1],
                                     c.kind in ("constant", "axis") and c.line in unwrapped,
                                     c.op != "ceil", _rank(c)))
    # a habit's mend of the very node another mend changes says why (`enumerate`'s pair read the other way round), but not api_mends.ANOTHER_ROUTE's
    habits = [c for c in mends if c.op in (*HABIT_OPS, *API_OPS, *SAYS_WHY) and c.op not in ANOTHER_ROUTE and (c.function, c.index) == (best.function, best.index)]
    best = best if best.op in (*HABIT_OPS, *API_OPS, *SAYS_WHY) or not habits else min(habits, key=_rank)
    best, mends = spelled_first(best, mends, nodes)
    # A change that takes out the very thing the best one tweaks (the power whose operation it
    # swaps, the transpose whose axes it makes one) names the learner's own element: said instead.
    # A number made the one that does nothing (`// 1`, `** 1`) already says which, in its words.
    # Not where the best one mends the very operation that raised (a shape plus a number): what
    # takes it out, with its call, only mends by another route, and is not said beside it either.
    around = [c for c in mends if c.op in REMOVALS and c.function == best.function
              and any(n is nodes[best.function][best.index] for n in ast.walk(nodes[c.function][c.index]))]
    taken = [c for c in around if best.op not in (*REMOVALS, *SAYS_WHY) and best.kind not in ("constant", "offset")] if best.op != "one_tuple" else []
    best, around = (min(taken, key=_rank), []) if taken else (best, around if best.op == "one_tuple" else [])
    best = size_read_first(best, mends, nodes, reference_makes(reference, function))  # an axis read in a line left out
    words = {c: mistake_words(definition(module, c.function), c) for c in mends}
    # Two changes that each mend it and name different slips (`head:` for `head + 1:`, or the term
    # `- writes[:, head]` dropped): the outputs cannot tell which was made, so both are said.
    # a change inside what another mend takes away (an axis that makes a transpose do nothing) says that removal
    rivals = [c for c in mends if words[best] and words[c] and words[c] != words[best] and not one_slip(c, best, nodes) and c not in around
              and not (c.kind in ("constant", "axis") and c.line in unwrapped)  # the call is said, as above
              and not any(inside_removed(r, c, nodes[c.function]) or undoes(c, r, nodes[c.function])
                          for r in mends if r.function == c.function)]
    other = min(rivals, key=_rank) if rivals else None
    step = returned_step(definition(module, best.function), best)  # a name returned one step early: said as that
    return Repair(best.line, _said(best), step or words[best], RETURNED_STEP if step else best.op,
                  other and Repair(other.line, _said(other), words[other], other.op), texts=tuple(texts_kept(module, function, best)))


# the name in a NameError's message (`name 'math' is not defined`)
_UNDEFINED = re.compile(r"name '(\w+)' is not defined")

# learner-only changes not tried first on the span's lines (after the reference's changes there), except on
# the line that raised (and one range for another where the span is the whole function, a tiled loop's):
# many in a function with many operations or slices, and each a reading seldom made (brackets moved, one
# range for another, `*` for `@`); a stop written as a length is one per slice, early; a number made a
# tensor mends only where it raised, and `...` made whole axes or a factor transposed (one per factor of
# every product call) seldom where nothing raised
LATE = ("regroup", "group_terms", "range_for", "matmul", "number_tensor", "ellipsis_as_axes", "factor_transposed",
        "product_turned")


def _rank(change: Change) -> int:
    return PREFERRED.index(change.kind) if change.kind in PREFERRED else len(PREFERRED)


def _said(change: Change) -> str:
    """The change in the learner's code; an inverted mask plainly (mutants' words explain the reference's slip)."""
    return "the mask inverted" if change.op == "invert" else change.text


def _repeated_mend(module: ModuleType, function: str, inputs: list[tuple], expected: list, order: list[int],
                   candidates: list[Change], deadline: float | None, allowed: list[Change] = ()) -> Repair | None:
    """One change made at every place that repeats what it changes, where no single change mends
    (the groups of repeated_mends.py): a learner who slipped once in a line copied to the next (the
    query's and the key's) slipped twice."""
    nodes = {name: list(ast.walk(definition(module, name))) for name in {c.function for c in (*candidates, *allowed)}}
    tries = twin_groups(candidates, allowed, nodes, REMOVALS)
    for twins in tries:
        if deadline is not None and time.perf_counter() > deadline:
            return None
        if _mends(module, function, twins, inputs, expected, order):
            twins = _needed(module, function, twins, inputs, expected, order)
            # in reading order: on one line, by column (ast.walk's order is by depth)
            first, *rest = sorted(twins, key=lambda c: (c.line, getattr(nodes[c.function][c.index], "col_offset", 0), c.index))
            if not rest:
                return Repair(first.line, _said(first), mistake_words(definition(module, first.function), first), first.op)
            lines = " and ".join(str(c.line) for c in rest)
            more = "once more" if len(rest) == 1 else f"{len(rest)} more times"
            text = f"{_said(first)}, and the same {more} (line{'s' if len(rest) > 1 else ''} {lines})"
            if {c.line for c in rest} == {first.line}:
                text = f"{_said(first)}, and the same {more} on that line"
            if {c.line for c in rest} == {first.line} and first.op == "name":  # in one subscript
                where = ast.unparse(subscript_of(first, nodes))
                text = f"`{first.arg[1]}` for `{first.arg[0]}` in each of its {len(twins)} places in `{where}`"
            if first.op == "unlayer":  # each in its own words (`ln2` left out where `ln1` was)
                text = f"{_said(first)}, and " + ", and ".join(f"{_said(c)} (line {c.line})" for c in rest)
            return Repair(first.line, text, mistake_words(definition(module, first.function), first), first.op, many=True)
    return None


def _mends(module: ModuleType, function: str, twins: list[Change], inputs: list[tuple], expected: list, order: list[int]) -> bool:
    """Whether the changes made together give the reference's output on every input."""
    built = build(module, function, tuple(twins))
    return built is not None and all(mend_right(call(built, inputs[i], CALL_SECONDS), expected[i]) for i in order)


def _needed(module: ModuleType, function: str, twins: list[Change], inputs: list[tuple], expected: list,
            order: list[int]) -> list[Change]:
    """The changes of a group that mends which it needs: one whose removal leaves the rest still
    mending changed nothing there (`transpose(0, 1)` of a matrix is its `transpose(-2, -1)`), and
    is not said as a place of the slip."""
    kept = list(twins)
    for change in twins:
        rest = [c for c in kept if c is not change]
        if rest and _mends(module, function, rest, inputs, expected, order):
            kept = rest
    return kept
