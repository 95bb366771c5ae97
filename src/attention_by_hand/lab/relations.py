"""Plain relations between a learner's output and the reference's: transposed, negated, its log
or its exponential, its square or square root, its softmax, reversed along an axis, cut to whole
numbers, the same amount added to every number, -inf (a hidden score) filled with a number,
multiplied by a constant, each row by a factor of its own (row_factors.py: a wrong denominator,
or rows of length 1), shifted by one position, two rows (or heads) swapped, the
columns in another order (heads interleaved, or in another order), averaged or summed over one
of its axes, its blocks of columns added into one, or the same numbers in another shape.

Some mistakes are no small change of the reference's code (mutants.py) but one of these, and
saying it ("yours is the reference's transposed") tells the learner where to look. A relation
is said only when it holds on every input tried that came out wrong (diagnosis.py gives them
all); a constant is named when it is one the reference itself computed on every input (`Known`:
its local numbers, such as
head_size, and their square roots, or a ratio of the lengths of its tensors), e.g. "multiplied by
sqrt(head_size) = 2.83".

Left out: outputs that are not tensors (a pair is related part by part, by diagnosis.py). The
relations that change the shape live in shape_relations.py; relation() asks there first.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from attention_by_hand.lab.judging import close
from attention_by_hand.lab.places import moved, zeroed
from attention_by_hand.lab.row_factors import rows_scaled, weights_like
from attention_by_hand.lab.shape_relations import (COUNTS, REDUCTIONS, SINGULAR, SIZE_MEANS, Known, axis_name, folded, jacobian_shaped, part, reduced, reduced_kept, repeated, reshaped,
                                                   permuted, sizes_named, sliced, unit_axes, unreduced)

__all__ = ["DIVIDED", "MULTIPLIED", "Known", "relation", "known_factor", "scale_of"]

def _constants(known: Known, ones: bool = False) -> list[tuple[str, float]]:
    """Every constant a learner may have multiplied by, named: n, sqrt(n), 1/n, 1/sqrt(n), then the
    ratios of two lengths (len(p_next) / len(ids): a mean taken over the wrong count)."""
    found = []
    for name, value in known.items():
        if value > 0 and (value != 1 or ones):
            found += [(name, value), (f"sqrt({name})", math.sqrt(value))]
            found += [(f"1/{name}", 1 / value), (f"1/sqrt({name})", 1 / math.sqrt(value))]
    lengths = [(name, value) for name, value in known.items() if name.startswith("len(") and value > 0]
    found += [(f"{a} / {b}", u / v) for a, u in lengths for b, v in lengths if u != v]
    # a length less one: the number of neighbouring pairs (of tokens, of positions)
    found += [(f"1/({a} - 1)", 1 / (u - 1)) for a, u in lengths if u > 2]
    return found + [("2", 2.0), ("1/2", 0.5)]


def scale_of(got: torch.Tensor, expected: torch.Tensor, one: bool = False) -> float | None:
    """c when got == c * expected (c != 0, and c != 1 unless `one`), else None."""
    g, e = got.double().flatten(), expected.double().flatten()
    # a hidden score (-inf) stays what it is under a positive factor: the factor is read elsewhere
    finite = torch.isfinite(e)
    if not bool((g[~finite] == e[~finite]).all()):
        return None
    g, e = g[finite], e[finite]
    if not torch.isfinite(g).all() or float(e @ e) == 0.0:
        return None
    c = float(g @ e) / float(e @ e)
    if abs(c) < 1e-6 or (not one and math.isclose(c, 1.0, rel_tol=1e-3)) or not close(g, c * e):
        return None
    return c


def _swapped(got: torch.Tensor, expected: torch.Tensor) -> tuple[int, int, int] | None:
    """(axis, i, j) when got is expected with slices i and j along one axis exchanged."""
    for axis in range(got.dim()):
        n = got.shape[axis]
        if n < 2:
            continue
        differ = [i for i in range(n) if not close(got.select(axis, i), expected.select(axis, i))]
        if len(differ) == 2:
            i, j = differ
            if close(got.select(axis, i), expected.select(axis, j)) and close(got.select(axis, j), expected.select(axis, i)):
                return axis, i, j
    return None


def _shifted(got: torch.Tensor, expected: torch.Tensor) -> tuple[int, int] | None:
    """(axis, +1 or -1) when got's slices along an axis are expected's, one position later or earlier."""
    for axis in range(got.dim()):
        n = got.shape[axis]
        if n < 3:
            continue
        later = close(got.narrow(axis, 1, n - 1), expected.narrow(axis, 0, n - 1))
        if later:
            return axis, 1
        if close(got.narrow(axis, 0, n - 1), expected.narrow(axis, 1, n - 1)):
            return axis, -1
    return None


def _reordered(got: torch.Tensor, expected: torch.Tensor) -> list[int] | None:
    """order, when got's columns are expected's in another order, the same in every row: got[..., c]
    is expected[..., order[c]]."""
    if got.dim() < 1 or got.shape[-1] < 2:
        return None
    left = list(range(got.shape[-1]))
    order = []
    for c in range(got.shape[-1]):
        match = next((e for e in left if close(got[..., c], expected[..., e])), None)
        if match is None:
            return None
        order.append(match)
        left.remove(match)
    return order if order != sorted(order) else None


def _grid(order: list[int]) -> tuple[int, int] | None:
    """(blocks, width) when `order` reads `blocks` blocks of `width` columns across: one column of
    each block in turn (a transpose too many or missing before a reshape)."""
    n = len(order)
    for blocks in range(2, n):
        width = n // blocks
        if blocks * width == n and width > 1 and all(order[c] == (c % blocks) * width + c // blocks for c in range(n)):
            return blocks, width
    return None


def _blocks_moved(order: list[int]) -> tuple[int, list[int]] | None:
    """(width, the blocks' order) when `order` moves whole blocks of `width` neighbouring columns,
    each kept as it was inside (heads concatenated in another order)."""
    n = len(order)
    for width in range(n // 2, 0, -1):
        if n % width:
            continue
        starts = [order[b * width] for b in range(n // width)]
        if all(s % width == 0 for s in starts) and all(
            order[b * width + c] == starts[b] + c for b in range(n // width) for c in range(width)
        ):
            return width, [s // width for s in starts]
    return None


def _say_reordered(orders: list[list[int]]) -> str:
    moved = [_blocks_moved(order) for order in orders]
    if all(moved) and moved[0][0] > 1 and all(m[1] == [1, 0] for m in moved):
        return (f"yours holds the reference's columns with their two halves swapped ({moved[0][0]} columns each on the "
                "first input): your first half is its second (two halves, or two heads, concatenated in the other order)")
    if all(moved) and moved[0][0] > 1:  # blocks one column wide say nothing: any order is such
        width, blocks = moved[0]
        shown = ", ".join(str(b) for b in blocks[:8]) + (", ..." if len(blocks) > 8 else "")
        return (f"yours holds the reference's blocks of columns (side by side, {width} wide on the first input) in "
                f"another order: your blocks 0, 1, ... are its {shown} (heads concatenated in another order)")
    grids = [_grid(order) for order in orders]
    shown = ", ".join(str(c) for c in orders[0][:6]) + (", ..." if len(orders[0]) > 6 else "")
    if all(grids):
        blocks, width = grids[0]
        return (
            f"yours holds the reference's columns interleaved: its {blocks} blocks of {width} columns are read "
            f"across, one column of each block in turn, where the reference puts the blocks one after another "
            f"(your columns 0, 1, 2, ... are its {shown})"
        )
    return f"yours holds the reference's columns in another order, the same in every row (your columns 0, 1, 2, ... are its {shown})"


# name -> (does it hold on one input, what it says)
Test = Callable[[torch.Tensor, torch.Tensor, Known], "str | None"]


def _transposed(got, expected, known):
    if got.dim() >= 2 and got.shape[-1] == got.shape[-2] and close(got, expected.transpose(-2, -1)):
        return "yours is the reference's output transposed (its last two axes exchanged)"
    return None


def _negated(got, expected, known):
    return "yours is the reference's output negated (every sign flipped)" if close(got, -expected) else None


def _log(got, expected, known):
    # A weight of 0 has log -inf, and so has a log-softmax where a score was hidden. A weight too
    # small for float32 (exp(-100)) is stored as 0 or nearly: there the log only has to be far below.
    if not (expected >= 0).all():
        return None
    e, g = expected.double(), got.double()
    tiny = e < 1e-30
    if close(g[~tiny], e[~tiny].log()) and bool((g[tiny] < -60).all()):
        return "yours is the log of the reference's output (a log too many, or a final exp missing)"
    return None


def _exp(got, expected, known):
    if close(got, expected.double().exp()):
        return "yours is exp of the reference's output (an exp too many, or a log missing)"
    return None


def _squared(got, expected, known):
    if close(got, expected.double() ** 2):
        return "yours is the square of the reference's output (a square too many, or a square root missing)"
    return None


def _rooted(got, expected, known):
    if (expected >= 0).all() and close(got, expected.double().sqrt()):
        return "yours is the square root of the reference's output (a square root too many, or a square missing)"
    return None


def _reversed(got, expected, known):
    for axis in range(got.dim()):
        if got.shape[axis] > 1 and close(got, expected.flip(axis)):
            # the last two axes counted from the end, as dim=-1 is written: the same words on a batch
            shown = axis - got.dim() if axis >= got.dim() - 2 else axis
            return f"yours is the reference's output reversed along its {axis_name(axis, got.dim())} (axis {shown}): its order turned round"
    return None


def _sorted(got, expected, known):
    """Each row's numbers right, in sorted order (a sort for a stable sum or a top-k, never undone)."""
    if got.dim() < 1 or got.shape[-1] < 2 or got.is_complex() or expected.is_complex():
        return None
    for word, descending in (("ascending", False), ("descending", True)):
        if close(got, expected.sort(dim=-1, descending=descending).values):
            return (f"yours is the reference's output with each row sorted ({word}): the right numbers, each in "
                    "another place (a sort that was never undone: put each back in its own place)")
    return None


def _plus_transpose(got, expected, known):
    if got.dim() >= 2 and got.shape[-1] == got.shape[-2] and close(got, expected + expected.transpose(-2, -1)):
        return ("yours is the reference's output with its own transpose added: each pair counted both ways, (a, b) "
                "and (b, a), where only one order was meant")
    return None


def _truncated(got, expected, known):
    e = expected.double()
    for word, cut in (("cut to a whole number (toward 0)", torch.trunc), ("rounded down to a whole number", torch.floor),
                      ("rounded to the nearest whole number", torch.round)):
        # (every number between -1 and 1 cuts to 0: an output of zeros shows no cutting)
        if close(got, cut(e)) and bool((cut(e) != 0).any()):
            return (f"yours is the reference's output with every number {word}: an integer type on the way "
                    f"(.long(), .int(), //) drops the fractions")
    return None


def _plus_constant(got, expected, known):
    """The same amount added to every number (counts started from ones, a constant too many)."""
    g, e = got.double(), expected.double()
    if g.numel() < 2 or not (torch.isfinite(g).all() and torch.isfinite(e).all()):
        return None
    c = float((g - e).flatten()[0])
    if abs(c) < 1e-6 or not close(g, e + c):
        return None
    return (f"every number of yours is {abs(c):.4g} too {'high' if c > 0 else 'low'}: the reference's "
            f"{'plus' if c > 0 else 'minus'} {abs(c):.4g}, the same amount on each")


def _spread(got, expected, known):
    """One number in every place along an axis: the reference's average (or sum) over that axis,
    repeated (a mean over too many axes, or with no axis at all, broadcast back to the shape). Not
    where yours is all zeros: a gradient whose rows sum to zero (dk, over the keys) averages to
    zeros, and so would any output never written; "all zeros" is what is seen."""
    g, e = got.double(), expected.double()
    if g.numel() < 2 or not (torch.isfinite(g).all() and torch.isfinite(e).all()) or not g.any():
        return None
    for word, reduce in REDUCTIONS:
        if g.dim() == 1 and close(g, reduce(e).expand_as(e)):
            return (f"every number of yours is the same: the {'average' if word == 'averaged' else 'sum'} of all "
                    "the reference's numbers, one for all, where each of its places has its own")
        for axis in range(g.dim() if g.dim() > 1 else 0):
            if g.shape[axis] > 1 and close(g, reduce(e, dim=axis, keepdim=True).expand_as(e)):
                shown = axis - g.dim() if axis >= g.dim() - 2 else axis
                return (f"yours is the reference's output {word} over its {axis_name(axis, g.dim())} (axis {shown}), "
                        "the one number repeated in every place along it, where each place has its own")
    return None


def _hidden_filled(got, expected, known):
    """The reference's -inf (a hidden score) replaced by one finite number, the rest equal."""
    e, g = expected.double(), got.double()
    hidden = torch.isinf(e) & (e < 0)
    if not hidden.any() or hidden.all() or not close(g[~hidden], e[~hidden]):
        return None
    filled = g[hidden]
    if not torch.isfinite(filled).all() or not close(filled, filled.flatten()[:1].expand_as(filled)):
        return None
    value = f"{float(filled.flatten()[0]):.4g}"
    return (f"yours has {value} where the reference's has -inf (each -inf replaced by {value}), and equals it "
            f"elsewhere: a hidden score must stay -inf, so that its weight comes out exactly 0")


def _softmaxed(got, expected, known):
    """A softmax taken of what is already one (weights treated as scores)."""
    if expected.dim() >= 1 and torch.isfinite(expected).all() and close(got, torch.softmax(expected.double(), dim=-1)):
        said = "yours is the softmax of the reference's output along its last axis"
        # "once more" only where the reference's rows are weights already (they sum to 1)
        return said + (": a softmax once more, of numbers that are already weights" if weights_like(expected) else "")
    return None


_TESTS: tuple[Test, ...] = (_transposed, _negated, _log, _exp, _squared, _rooted, _reversed, _sorted, _truncated, _plus_transpose,
                            _softmaxed, _hidden_filled, _plus_constant, _spread)


def ends(pairs: list[tuple[torch.Tensor, torch.Tensor, Known]]) -> str | None:
    """The reference's output is the first or last entries of yours along one axis, or yours of
    its (shape_relations.part); or its first or last slice in every place; or yours all zeros, or
    zeros in some slices and right elsewhere; or each row moved along itself; on every input
    where they differ. These say where, not why: asked apart from relation(), after
    the relations that name a cause (the reference run on an input one element short)."""
    pairs = [(g, e, k) for g, e, k in pairs if isinstance(g, torch.Tensor) and isinstance(e, torch.Tensor)
             and not (g.shape == e.shape and close(g, e))]
    return (part(pairs) or _repeated(pairs) or _zeros(pairs) or zeroed(pairs) or moved(pairs)) if pairs else None


def _repeated(pairs) -> str | None:
    """One slice of the reference's in every place along an axis (shape_relations.repeated), in
    the same words on every input: it says where the values are, not why."""
    said = {repeated(g, e) for g, e, _ in pairs}
    return said.pop() if len(said) == 1 and None not in said else None


def _zeros(pairs) -> str | None:
    """Yours all zeros where the reference's is not, on every input it gets wrong: nothing that was
    computed reached it (said as observed: a write into a copy, a mask, a factor 0 all give it)."""
    if all(g.shape == e.shape and g.numel() > 0 and not bool((g != 0).any()) and bool((e != 0).any()) for g, e, _ in pairs):
        return "yours is all zeros on every input where it is wrong, and the reference's is not"
    return None


def _one_number(t: torch.Tensor) -> bool:
    """Several entries, all one number (a single number is no table: its relations still tell)."""
    return t.numel() > 1 and bool((t == t.flatten()[0]).all())


def relation(pairs: list[tuple[torch.Tensor, torch.Tensor, Known]]) -> str | None:
    """What relates got to expected on every (got, expected, known) given where they differ, in
    words; or None."""
    pairs = [(g, e, k) for g, e, k in pairs if isinstance(g, torch.Tensor) and isinstance(e, torch.Tensor)]
    # Only the inputs it gets wrong tell: an unbatched input may come out one axis too many where
    # a batched one is right.
    pairs = [(g, e, k) for g, e, k in pairs if not close(g, e)]
    # yours and the reference's each one number throughout, the same two on every input (tables of
    # zeros not yet filled), fit every relation that maps the one to the other (a log of ones is
    # zeros, and so are the blocks of zeros averaged): nothing but their sizes tells. Two inputs
    # with other numbers (2 for 1, then 4 for 2) still pin one relation down.
    if (pairs and all(_one_number(g) and _one_number(e) for g, e, _ in pairs)
            and len({(float(g.flatten()[0]), float(e.flatten()[0])) for g, e, _ in pairs}) == 1):
        return sizes_named(pairs) if any(g.shape != e.shape for g, e, _ in pairs) else None
    unit = unit_axes(pairs) or jacobian_shaped(pairs)
    if unit:
        return unit
    # an axis fewer or more is a reduction or a slice, or else the same numbers in another shape
    # (a (V * V,) vector of counts where (V, V) is expected), said below
    said = None
    if pairs and all(g.dim() == e.dim() - 1 for g, e, _ in pairs):
        said = reduced(pairs) or sliced(pairs)
    if pairs and all(g.dim() == e.dim() + 1 for g, e, _ in pairs):
        said = unreduced(pairs)
    if said or (pairs and all(abs(g.dim() - e.dim()) == 1 for g, e, _ in pairs) and any(g.numel() != e.numel() for g, e, _ in pairs)):
        return said
    if pairs and all(g.dim() == e.dim() >= 1 and g.shape[:-1] == e.shape[:-1] and g.shape[-1] < e.shape[-1] for g, e, _ in pairs):
        # a block one wide summed is a sum over the last axis, kept: said as that
        return (reduced_kept(pairs) if all(g.shape[-1] == 1 for g, _, _ in pairs) else None) or folded(pairs)
    if pairs and all(g.shape != e.shape and g.numel() == e.numel() for g, e, _ in pairs):
        return reshaped(pairs)
    if (pairs and all(g.dim() == e.dim() and g.numel() == e.numel() for g, e, _ in pairs)
            and any(g.shape != e.shape for g, e, _ in pairs)):
        # some inputs keep the shape (a (4, 4) transposed is (4, 4)), others show the axes moved:
        # one order of the axes on every input is said; nothing else holds across both kinds
        return permuted(pairs) or reduced_kept(pairs) or sizes_named(pairs)
    if not pairs or any(tuple(g.shape) != tuple(e.shape) for g, e, _ in pairs):
        return reduced_kept(pairs) or sizes_named(pairs)
    differing = pairs  # (each differs: the equal ones were left out above)
    for test in _TESTS:
        said = [test(g, e, k) for g, e, k in differing]
        if all(said) and len(set(said)) == 1:  # in the same words: the same amount on every input
            return said[0]
    scaled = _scaled(differing)
    if scaled:
        return scaled
    rows = rows_scaled(differing)
    if rows:
        return rows
    for find, say in ((_swapped, _say_swapped), (_shifted, _say_shifted)):
        found = [find(g, e) for g, e, _ in differing]
        if found[0] is not None and all(f == found[0] for f in found):
            return say(found[0], differing[0][0].dim())
    # The columns in another order: each input has its own width, so its own order.
    orders = [_reordered(g, e) for g, e, _ in differing]
    if all(orders):
        return _say_reordered(orders)
    return None


def known_factor(pairs: list[tuple[torch.Tensor, torch.Tensor, Known]]) -> str | None:
    """"1/sqrt(head_size) = 0.5" when got is expected times that constant on every pair given (a
    constant the reference computed on each input: see `Known`), else None."""
    # A factor of 1 on one input is fine where the constant is 1 there (head_size 1), not elsewhere.
    factors = [scale_of(g, e, one=True) if isinstance(g, torch.Tensor) and isinstance(e, torch.Tensor) and g.shape == e.shape else None
               for g, e, _ in pairs]
    if not pairs or any(c is None for c in factors) or all(math.isclose(c, 1.0, rel_tol=1e-3) for c in factors):
        return None
    for name, _ in _constants(pairs[0][2], ones=True):
        if all(
            any(n == name and math.isclose(c, v, rel_tol=1e-3) for n, v in _constants(k, ones=True))
            for c, (_, _, k) in zip(factors, pairs)
        ):
            if name in ("2", "1/2"):
                return name
            # its value only where every input has the same one (batch 2, then 4 and 1: the name alone)
            shown = [c for c in factors if not math.isclose(c, 1.0, rel_tol=1e-3)]
            same = all(math.isclose(c, shown[0], rel_tol=1e-3) for c in factors)
            return f"{name} = {shown[0]:.3g}" if same else name
    return None


# the openings of the relations of one scale for the whole output (engine.py says a factor taken out after them)
DIVIDED = "yours is the reference's output divided by"
MULTIPLIED = "yours is the reference's output multiplied by"


def _scaled(differing) -> str | None:
    named = known_factor(differing)
    if named and named.startswith("1/") and named not in ("1/2",):  # a factor 1/n is a division by n
        name, _, value = named.partition(" = ")
        divisor = name[2:]
        if divisor.startswith("(") and divisor.endswith(")"):
            divisor = divisor[1:-1]
        size = f" = {1 / float(value):.3g}" if value else ""
        return f"{DIVIDED} {divisor}{size}{_counts(divisor)}"
    if named:
        return f"{MULTIPLIED} {named}{_counts(named.split(' = ')[0])}"
    # a factor no size names needs two numbers to rest on: one number is a multiple of any other
    if sum(int((torch.isfinite(g) & torch.isfinite(e) & (e != 0)).sum()) for g, e, _ in differing) < 2:
        return None
    factors = [scale_of(g, e) for g, e, _ in differing]
    if any(c is None for c in factors):
        return None
    if all(math.isclose(c, factors[0], rel_tol=1e-3) for c in factors):
        # only the inputs where yours is wrong are here: where it is right, the factor is 1
        return f"{MULTIPLIED} {factors[0]:.4g} on every input where they differ"
    return None


def _counts(name: str) -> str:
    """What a size the labs name counts ("batch": the sequences in the batch), said after it."""
    means = SIZE_MEANS.get(name)
    return f" ({COUNTS[means]})" if means in COUNTS else ""


def _say_swapped(found, rank) -> str:
    axis, i, j = found
    what = axis_name(axis, rank)
    single = SINGULAR.get(what)
    if single:
        return f"yours is the reference's output with {what} {i} and {j} swapped ({single} {i} holds the reference's {single} {j})"
    return f"yours is the reference's output with {what}: {i} and {j} swapped"


def _say_shifted(found, rank) -> str:
    axis, direction = found
    what = axis_name(axis, rank)
    if direction > 0:
        return f"yours is the reference's output shifted by one position along the {what}: your index i holds the reference's i - 1"
    return f"yours is the reference's output shifted by one position along the {what}: your index i holds the reference's i + 1"
