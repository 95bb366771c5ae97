"""Relations between a learner's output and the reference's that change its shape: the same
numbers in another shape (an axis of size 1 more or fewer, the axes in another order), an axis
sized by another of the reference's numbers, one axis averaged or summed away (or kept where the
reference sums it), one slice of it (the last head's only), blocks of columns added into one.
relations.py asks here first when the shapes differ; each is said only when it holds on every
input given (the inputs the learner's function got wrong). `part` (the reference's output as the
first or last entries of yours along an axis, or yours of its: a tensor padded and never cut back)
names no cause: relations.ends asks it apart, for an observation.

Left out: relations between numbers of the same shape (relations.py).
"""

from __future__ import annotations

import itertools

import torch

from attention_by_hand.lab.judging import close

__all__ = ["Known", "COUNTS", "SIZE_MEANS", "SINGULAR", "axis_name", "folded", "jacobian_shaped", "part", "permuted", "reduced", "reduced_kept", "repeated", "reshaped", "sizes_named", "sliced", "unit_axes",
           "unreduced"]

class Known(dict):
    """The reference's own numbers on one input, by name: {"head_size": 4.0, ...}. `words`: the
    names that are only its docstring's words for sizes (axis_words.py): they name a factor, but
    an axis's size is named by the reference's code alone (a docstring word there would say a
    size was "taken from the wrong number" where an axis was read wrong)."""

    words: frozenset[str] = frozenset()


# One of what axis_name (and _many) call an axis's entries.
SINGULAR = {"entries": "entry", "sequences": "sequence", "heads": "head", "rows": "row", "columns": "column"}


def axis_name(axis: int, rank: int) -> str:
    """What the labs keep along an axis: (heads, T, T) weights, (B, heads, T, T) in a batch."""
    if rank == 4 and axis < 2:
        return ("sequences", "heads")[axis]
    if rank == 3 and axis == 0:
        return "heads"
    return {rank - 1: "columns", rank - 2: "rows"}.get(axis, f"slices along axis {axis}")


REDUCTIONS = (("averaged", torch.mean), ("summed", torch.sum))


def permuted(pairs) -> str | None:
    """The reference's output with its axes in another order (a transpose too many, or one that
    moved the wrong axes), the same order on every input."""
    rank = pairs[0][1].dim()
    if rank > 5 or any(g.dim() != rank or e.dim() != rank for g, e, _ in pairs):
        return None
    for order in itertools.permutations(range(rank)):
        if list(order) != list(range(rank)) and all(
            tuple(g.shape) == tuple(e.permute(order).shape) and close(g, e.permute(order)) for g, e, _ in pairs
        ):
            g, e = pairs[0][0], pairs[0][1]
            # the first input's shapes, where they show it (a square (4, 4) transposed keeps its shape)
            shapes = f": shape {tuple(g.shape)} where it has {tuple(e.shape)}" if g.shape != e.shape else ""
            return (f"yours is the reference's output with its axes in another order{shapes} (your axes are its "
                    f"{', '.join(str(a) for a in order)}: the axes moved, by a transpose or permute too many or of the wrong "
                    f"axes, or a stack or join along another axis)")
    return None


def reshaped(pairs) -> str | None:
    """The reference's numbers, in its order, in another shape (an axis added or lost, a view)."""
    permuted_ = permuted(pairs)
    if permuted_:
        return permuted_
    if not all(close(g.flatten(), e.flatten()) for g, e, _ in pairs):
        return None
    g, e = pairs[0][0], pairs[0][1]
    extra = ""
    if [n for n in g.shape if n != 1] == [n for n in e.shape if n != 1]:
        extra = ": an axis of size 1 added or lost" if g.dim() != e.dim() else ""
    return (f"yours holds the reference's numbers in the same order, in shape {tuple(g.shape)} where it has "
            f"{tuple(e.shape)}{extra}")


# What an axis holds, told by the name of the reference's number that is its size.
SIZE_MEANS = {"B": "the batch", "batch": "the batch", "n_heads": "the heads", "nh": "the heads", "H": "the heads", "heads": "the heads"}
COUNTS = {"the batch": "the number of sequences in the batch", "the heads": "the number of heads"}  # what a size counts


def reduced_kept(pairs) -> str | None:
    """An axis of size 1 where the reference's has several entries, holding their mean (or sum), on
    every input: a reduction over an axis that must stay (keepdim=True kept its place), such as one
    pattern of weights averaged over the whole batch."""
    if not pairs or any(g.dim() != e.dim() or g.dim() == 0 or not e.is_floating_point() or e.numel() == 0
                        for g, e, _ in pairs):
        return None
    rank = pairs[0][1].dim()
    for axis in range(rank):
        if not all(g.shape[axis] == 1 < e.shape[axis] and g.shape[:axis] == e.shape[:axis]
                   and g.shape[axis + 1:] == e.shape[axis + 1:] for g, e, _ in pairs):
            continue
        for word, reduce in REDUCTIONS:
            if all(close(g, reduce(e.double(), dim=axis, keepdim=True)) for g, e, _ in pairs):
                names = set.intersection(*(_named(e.shape[axis], k) for _, e, k in pairs))
                e = pairs[0][1]
                name = names.pop() if len(names) == 1 else None
                over = f"{SIZE_MEANS[name]} (axis {axis}, `{name}` = {e.shape[axis]})" if name in SIZE_MEANS else (
                    f"its axis {axis} (`{name}`, {e.shape[axis]} entries)" if name else f"its axis {axis} ({e.shape[axis]} entries)")
                return (f"yours is the reference's output {word} over {over}, kept as an axis of size 1: one value "
                        f"where the reference has one for each entry")
    return None


def _named(size: int, known: Known) -> set[str]:
    """The reference's numbers equal to `size`: its own names first, the lengths of its tensors
    (len(q)) only where none is."""
    words = getattr(known, "words", frozenset())
    found = {n for n, v in known.items() if v == size and n not in words}
    return {n for n in found if not n.startswith("len(") and ".shape" not in n} or found


def sizes_named(pairs) -> str | None:
    """Each axis of another size than the reference's, named by the one number of the reference's
    that equals its size on every input (`head_size` where `n_heads` belongs): a size taken from
    the wrong variable."""
    if not pairs or any(g.dim() != e.dim() or g.dim() == 0 for g, e, _ in pairs):
        return None
    axes = {a for g, e, _ in pairs for a in range(g.dim()) if g.shape[a] != e.shape[a]}
    said = []
    for a in sorted(axes):
        yours = set.intersection(*(_named(g.shape[a], k) for g, _, k in pairs))
        theirs = set.intersection(*(_named(e.shape[a], k) for _, e, k in pairs))
        if len(yours) != 1 or len(theirs) != 1 or yours == theirs:
            return None
        g, e = pairs[0][0], pairs[0][1]
        said.append(f"axis {a} has `{yours.pop()}` ({g.shape[a]}) entries instead of `{theirs.pop()}` ({e.shape[a]})")
    if not said:
        return None
    if _same_sizes(pairs):
        # every size is one the reference's shape has, in other counts ((T, n_heads, n_heads) for
        # (n_heads, T, T)): nothing was sized by a wrong number; how the axes came to stand there
        # (a transpose left out, an axis added in another place) the shapes alone cannot tell
        return f"yours: {'; '.join(said)}: each of your sizes is one of the reference's own, on another axis"
    return f"yours: {'; '.join(said)}: a size taken from the wrong number"


def _same_sizes(pairs) -> bool:
    """The learner's axes and the reference's are sized by the same set of the reference's numbers,
    each axis by one of them on every input ((T, n_heads, n_heads) for (n_heads, T, T))."""
    def names(which: int) -> set[str] | None:
        found = set()
        for a in range(pairs[0][which].dim()):
            named = set.intersection(*(_named(p[which].shape[a], p[2]) for p in pairs))
            if len(named) != 1:
                return None
            found |= named
        return found
    yours, theirs = names(0), names(1)
    return yours is not None and yours == theirs


def unit_axes(pairs) -> str | None:
    """The reference's numbers with an axis of size 1 more or fewer, the same way on every input:
    an unsqueeze or a None index too many, a batch axis the input did not have, or a mean or sum
    that dropped its axis (no keepdim=True)."""
    if not pairs:
        return None
    for g, e, _ in pairs:
        if g.dim() == e.dim() or [n for n in g.shape if n != 1] != [n for n in e.shape if n != 1]:
            return None
        if not close(g.reshape(e.shape), e):
            return None
    more = {g.dim() > e.dim() for g, e, _ in pairs}
    if len(more) != 1:
        return None
    g, e = pairs[0][0], pairs[0][1]
    count = abs(g.dim() - e.dim())
    axes = "an axis of size 1" if count == 1 else f"{count} axes of size 1"
    if more.pop():
        leading = "leading " if tuple(g.shape[count:]) == tuple(e.shape) else ""
        extra = f"an extra {leading}axis of size 1" if count == 1 else f"{count} extra {leading}axes of size 1"
        why = (f"{extra} (an unsqueeze, a None index, a one-wide slice such as `:1` where an index drops the axis, "
               "keepdim=True or a mean or sum that left out an axis of size 1, a reshape never undone, or a batch axis the input did not have)")
    else:
        why = f"{axes} missing (a mean or sum without keepdim=True, a squeeze, or an index that drops it)"
    return f"yours holds the reference's numbers, in shape {tuple(g.shape)} where it has {tuple(e.shape)}: {why}"


def jacobian_shaped(pairs) -> str | None:
    """Yours shaped (output's shape) + the expected shape, on every input, the output's shape sharing
    the expected one's axes but for the last (attention's output by its input: the batch, the heads
    and the tokens alike): one number for each pair of an output entry and an input entry, a full
    Jacobian where its product with the upstream gradient, shaped like the input, was meant (a
    broadcast of two tensors seldom doubles the axes so)."""
    shapes = [(tuple(g.shape), tuple(e.shape)) for g, e, _ in pairs]
    # the output's axes lead: they share the input's own but for the last (the tokens, the batch), none is all ones
    if not shapes or not all(len(e) >= 2 and len(g) == 2 * len(e) and g[len(e):] == e and g[:len(e) - 1] == e[:-1]
                             and any(n != 1 for n in g[:len(e)]) for g, e in shapes):
        return None
    g, e = shapes[0]
    return (f"yours has shape {g}: {g[:len(g) - len(e)]} followed by the expected {e}, one number for each pair "
            "of an output entry and an input entry; that is a full Jacobian (torch.func.jacrev, "
            "torch.autograd.functional.jacobian), where the gradient, its product with the upstream gradient, "
            "has the input's shape alone")


def reduced(pairs) -> str | None:
    """One axis too few: yours is the reference's output averaged (or summed) over that axis, on
    every input (the weights of every head averaged into one table)."""
    rank = pairs[0][1].dim()
    for axis in range(rank):
        for word, reduce in REDUCTIONS:
            if all(
                e.dim() == rank and e.is_floating_point() and close(g, reduce(e.double(), dim=axis)) for g, e, _ in pairs
            ):
                return f"yours is the reference's output {word} over its {axis_name(axis, rank)} (axis {axis}), which it keeps"
    return None


def unreduced(pairs) -> str | None:
    """One axis too many: the learner's output summed (or averaged) over one of its axes is the
    reference's, on every input (the heads' writes returned one by one, never added up)."""
    rank = pairs[0][0].dim()
    for axis in range(rank):
        for word, reduce in (("sum", torch.sum), ("mean", torch.mean)):
            if all(g.dim() == rank and g.is_floating_point() and close(reduce(g.double(), dim=axis), e) for g, e, _ in pairs):
                sizes = {g.shape[axis] for g, _, _ in pairs}
                size = f", of size {sizes.pop()}" if len(sizes) == 1 else ""
                done = "summed" if word == "sum" else "averaged"
                return (f"yours has an axis the reference's output does not, your axis {axis}{size}, and is not {done} "
                        f"over it: with that {word} taken, yours equals the reference's output")
    return None


def sliced(pairs) -> str | None:
    """One axis too few: yours is one slice of the reference's output, its first or its last
    along one axis, on every input (the last head's weights where every head's belong)."""
    rank = pairs[0][1].dim()
    for axis in range(rank):
        for index, word in ((0, "first"), (-1, "last")):
            if all(e.dim() == rank and e.shape[axis] > 1 and g.shape == e.select(axis, index).shape
                   and close(g, e.select(axis, index)) for g, e, _ in pairs):
                one = _one(axis, rank)
                where = "" if one.endswith(f"axis {axis}") else f" (axis {axis})"
                return f"yours is only the reference's {word} {one}{where}, where it keeps them all"
    return None


def part(pairs) -> str | None:
    """One axis of another size, the rest equal: the reference's output is the first (or last)
    entries of yours along it, or yours the first (or last) of the reference's, on every input (a
    tensor padded and never cut back, a slice one end short)."""
    axes = {a for g, e, _ in pairs if g.dim() == e.dim() for a in range(g.dim()) if g.shape[a] != e.shape[a]}
    if len(axes) != 1 or any(g.dim() != e.dim() for g, e, _ in pairs):
        return None
    axis = axes.pop()
    if any(min(g.shape[axis], e.shape[axis]) == 0 for g, e, _ in pairs):
        return None  # an empty side is the first and the last entries of anything: it says nothing
    longer = {g.shape[axis] > e.shape[axis] for g, e, _ in pairs}
    if len(longer) != 1:
        return None
    more = longer.pop()
    for end in ("first", "last"):
        def cut(long, n):
            return long.narrow(axis, 0 if end == "first" else long.shape[axis] - n, n)
        if all(close(cut(g, e.shape[axis]), e) if more else close(g, cut(e, g.shape[axis])) for g, e, _ in pairs):
            name = _many(axis, pairs[0][0].dim())
            # the sizes are said only where every input has the same: the hint speaks for them all
            sizes = {(g.shape[axis], e.shape[axis]) for g, e, _ in pairs}
            counted = f" ({'{} where it has {}'.format(*sizes.pop())})" if len(sizes) == 1 else ""
            if more:
                rests = [g.narrow(axis, e.shape[axis], g.shape[axis] - e.shape[axis]) if end == "first"
                         else g.narrow(axis, 0, g.shape[axis] - e.shape[axis]) for g, e, _ in pairs]
                empty = "all False" if pairs[0][0].dtype == torch.bool else "all zeros"
                zeros = f" ({empty})" if all(r.numel() and not r.any() for r in rests) else ""
                after = "after" if end == "first" else "before"
                return (f"yours has more {name} than the reference's{counted}: your {end} ones are the reference's, "
                        f"and the extra {name} {after} them are too many{zeros}")
            return (f"yours has fewer {name} than the reference's{counted}: they are its {end} ones, "
                    f"and the rest are missing")
    return None


def _many(axis: int, rank: int) -> str:
    """axis_name's words, but a vector's only axis holds entries (axis_name calls it columns)."""
    return "entries" if rank == 1 else axis_name(axis, rank)


def _one(axis: int, rank: int) -> str:
    """One of _many's: an entry, a head, a row, a column, a slice along axis 2."""
    name = _many(axis, rank)
    return SINGULAR.get(name, name.replace("slices", "slice"))


def repeated(got: torch.Tensor, expected: torch.Tensor, known=None) -> str | None:
    """Every slice of yours along one axis is the reference's first (or last) slice there: one
    tensor kept in every place (a buffer appended n times, a loop's last value used for all)."""
    for axis in range(got.dim()):
        if got.shape != expected.shape or got.shape[axis] < 2:
            continue
        for index, word in ((0, "first"), (-1, "last")):
            if close(got, expected.select(axis, index).unsqueeze(axis).expand_as(expected)):
                one, many = _one(axis, got.dim()), _many(axis, got.dim())
                # the last two axes counted from the end: the same words with a batch axis or without
                back = {got.dim() - 1: "its last axis", got.dim() - 2: "axis -2"}.get(axis, f"axis {axis}")
                where = "" if one.endswith(f"axis {axis}") else f" ({back})"
                return f"each of your {many}{where} holds the reference's {word} {one}: the same values in every place"
    return None


def folded(pairs) -> str | None:
    """A last axis k times too short: yours is the reference's output cut into k blocks of columns,
    the blocks summed (or averaged) into one, on every input (heads added where they belong side
    by side)."""
    # a max over the heads too (a max-pool), said as such
    largest = ("reduced to one by their largest entry, place by place", lambda b, dim: b.max(dim=dim).values)
    for word, reduce in (*REDUCTIONS, largest):
        for g, e, _ in pairs:
            width = g.shape[-1]
            if width == 0 or e.shape[-1] % width or not e.is_floating_point():
                return None
            blocks = e.double().reshape(*e.shape[:-1], e.shape[-1] // width, width)
            if not close(g, reduce(blocks, dim=-2)):
                break
        else:
            joined = word if word == largest[0] else f"{word} into one"
            return (f"yours is the reference's output cut along its last axis into blocks as wide as yours, and the "
                    f"blocks {joined}: they belong side by side (concatenated), not {word.split(' ')[0]}")
    return None
