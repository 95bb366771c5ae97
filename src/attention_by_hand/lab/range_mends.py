"""Seven slips of where a slice or an index falls. A slice cut by one of a function's ranges where
another of its ranges belonged: the mend that puts the other range's two bounds in its place. A
stop written as a length (`stop_length`, below), the first entries taken for the last
(`other_end`), a loop's step written from place 0 where it belonged after others (`offset_by`),
and a slice of the first axis where the last was meant (`to_last`).

A tiled loop keeps two ranges at once, the queries' block `i0:i1` and the keys' block `j0:j1`, and
cuts every tensor by one of them. A learner who types `k[..., i0:i1, :]` in the line for dq takes
the keys of the query block: right on the diagonal tiles, where the two ranges are one, wrong or
raising elsewhere. A change of one bound (`j0:i1`) makes no sense of it; the mend puts both bounds
of the range the function uses elsewhere, `k[..., j0:j1, :]`. It is tried (as `range_for`) at every
slice with both bounds written, once for each other range that some slice of the same function is
cut by, and repair.py keeps it only where it gives the reference's output on every input tried.

A second slip of a slice's bounds is tried here too (as `stop_length`): `w[start:T]`, the stop
written as the number of entries to take, where a slice's stop is a position counted from 0 like
its start. From 0 the two agree; from any later start the slice is short (or empty). The mend
is `w[start:start + T]`, tried at every slice whose start is not a number and whose stop is a
name, an attribute, a subscript, a `len(...)` or a `.size(d)` that does not already hold the start.
The same slip in `torch.arange(start, T)` or `torch.linspace(start, T - 1, T)` (whose end is a
position too) is mended the same way, `start + T`, where neither bound is a number written out
and the end does not already hold the start; and in Python's `slice(start, n)`, whose stop may hold
the start inside a count (`slice(a, min(block, T - a))`, the block's length), so only a stop that
adds the start itself (`a + n`) is left alone.

A third, `other_end`: `eye[:, :T_new]`, the first n entries taken where the last n were meant (the
new rows' places at the end of a grown cache), or `-n:` where `:n` was. The mend takes the other
end, tried at every slice with only a stop that is no negative number (`:-1` is all but the last),
and at every one with only a start after a minus sign.

A fourth, `offset_by`: `out[:, :, t] = new[:, :, t]` in a loop over `t`, writing the new words
into a grown tensor from place 0, over the T entries it was given, where `out[:, :, T + t]` was
meant. The mend adds a size the function read from a shape (`T = keys.shape[2]`) to the loop's
name, tried where that name is one whole part of the subscript a statement of the loop's own
body assigns to. It is tried on a learner's code only: made to the reference, the same words
would describe an offset the learner added, not one left out.

A fifth, `to_last`: `e.cumsum(dim=-1)[-1:]`, read as the last entry of each row. A slice alone in
the brackets cuts the FIRST axis, so it takes the last row; the mend puts `...` before it,
`[..., -1:]`, to cut the last axis. Tried at every subscript whose brackets hold one slice.

A sixth, `next_start`: `y[..., :C], y[..., C:2 * C], y[..., C:]`, a tensor cut into pieces side by
side, the last one started where the one before it starts. Pieces cut one after another start where
the one before stops, so the mend puts the stop of another piece of the same tensor, along the same
axis, in place of a piece's start: `y[..., 2 * C:]`. Tried at every slice with a start written, for
each stop written in another slice of that tensor at that place of the index (at most
`MAX_PIECES` pieces).

A seventh, `pair_side`: `F.one_hot(ids[:-1], V)` where the targets were meant. Neighbouring pairs
are `ids[:-1]` (each pair's first, every entry but the last) with `ids[1:]` (each pair's second,
every entry but the first); the two have the same length, so one taken for the other raises
nothing. The mend puts the other side, tried at every `:-1` and every `1:`.

An eighth, `count_from`: `torch.arange(j1 - j0)` where the positions `torch.arange(j0, j1)` were meant, a
block's keys numbered from 0 inside the block where their places in the sequence were meant (the queries'
`torch.arange(i0, i1)` beside it). The two have as many entries; only where the block starts at 0 do they
agree. The mend makes the count's two terms the range's bounds, tried at every `arange(b - a)` and
`range(b - a)` of one argument.

A ninth, `step_stop`: `weight[start::T]`, a colon doubled, where the T entries from start were meant:
the second colon makes T the slice's STEP, every T-th entry from start. The mend makes T a stop
counted from the start, `weight[start:start + T]`, tried at every slice with no stop and a step that
may be a count, its start no number, or none or 0 (`weight[::T]` made `weight[:T]`, the first T).

A tenth, `tile_start`: `torch.arange(nq)` inside a loop over the tiles' starts `i0`, the tile's rows
numbered from 0 where their places in the sequence were meant (to compare with the keys' places).
The mend starts them at the tile's start, `torch.arange(i0, i0 + nq)`, tried at every `torch.arange` of
one argument that is no number, once for each loop around it over one name.

Left out: a range with a step (but `start::T`, the ninth), and (for `range_for`) ranges written once
in the function, which have nothing to take another range from.
"""

from __future__ import annotations

import ast
import dataclasses

from attention_by_hand.lab.code_layout import count_side, number_of
from attention_by_hand.lab.mend_edits import mend_edit
from attention_by_hand.lab.mutant_edits import Change, call_name, cut as cut_text, quote
from attention_by_hand.lab.size_locals import size_names

__all__ = ["RANGE_OPS", "range_mends", "range_words"]

RANGE_OPS = ("range_for", "stop_length", "other_end", "offset_by", "to_last", "next_start", "pair_side", "count_from", "step_stop",
             "tile_start")
MAX_RANGES = 6  # the distinct ranges a function's slices are cut by, most of them: a tiled loop has two or three
MAX_PIECES = 4  # the slices of one tensor at one place of its index, most of them: q, k and v cut from one are three


def _ranges(fdef: ast.FunctionDef) -> list[ast.Slice]:
    """The slices of `fdef` with both bounds written and no step, in the order of the code."""
    found = [n for n in ast.walk(fdef) if isinstance(n, ast.Slice) and n.lower is not None and n.upper is not None
             and n.step is None]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _a_count(node: ast.expr) -> bool:
    """A stop that may be a count of entries: a count's side (code_layout.count_side) or `x.size(d)`."""
    return count_side(node) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                                and node.func.attr == "size")


def _stops_as_lengths(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `stop_length` changes of `fdef`: `a:n` made `a:a + n` where n may be a count."""
    found = []
    for cut in _ranges(fdef):
        start = ast.dump(cut.lower)
        if (isinstance(cut.lower, ast.Constant) or not _a_count(cut.upper)
                or any(ast.dump(n) == start for n in ast.walk(cut.upper))):
            continue
        change = Change(fdef.name, index[id(cut)], "stop_length", None, "offset", "", cut.lineno)
        made = mend_edit(cut, change)
        found.append(dataclasses.replace(change, said=f"`{quote(made)}` for `{quote(cut)}`"))
    for call in (n for n in ast.walk(fdef) if _ended(n)):  # `torch.linspace(start, T - 1, T)`, `torch.arange(start, T)`, `slice(a, n)`
        start, end = call.args[0], call.args[1]
        held = [end.left, end.right] if _a_slice(call) and isinstance(end, ast.BinOp) and isinstance(end.op, ast.Add) else (
            [] if _a_slice(call) else list(ast.walk(end)))
        if number_of(start) is not None or number_of(end) is not None or any(ast.dump(n) == ast.dump(start) for n in held):
            continue
        change = Change(fdef.name, index[id(call)], "stop_length", None, "offset", "", call.lineno)
        made = quote(mend_edit(call, change).args[1])
        found.append(dataclasses.replace(change, said=f"`{made}` for `{quote(end)}` in `{quote(call)}`"))
    return found


def _ended(node: ast.AST) -> bool:
    """`torch.arange(a, b, ...)`, `torch.linspace(a, b, n)` or `slice(a, b, ...)`: a call given a start and an end."""
    torchs = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("arange", "linspace")
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")
    return ((torchs or _a_slice(node)) and len(node.args) >= 2
            and not any(isinstance(a, ast.Starred) for a in node.args))


def _a_slice(node: ast.AST) -> bool:
    """A call of Python's `slice`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "slice"


def range_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The changes of `fdef` listed in the module's docstring: each slice's bounds made those of
    another range of it, a stop written as a length made one counted from the start, and the
    first entries of a slice made the last (or back), a loop's index written after the entries before it."""
    pieces = _pieces(fdef)
    return (_stops_as_lengths(fdef, index) + _other_ranges(fdef, index) + _other_ends(fdef, index) + _offsets(fdef, index)
            + _to_last(fdef, index) + _next_starts(fdef, index, pieces) + _pair_sides(fdef, index, pieces)
            + _counts_from(fdef, index) + _steps_as_stops(fdef, index) + _tile_starts(fdef, index))


def _tile_starts(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `tile_start` changes of `fdef`: `torch.arange(n)` inside a loop over `i0` made
    `torch.arange(i0, i0 + n)`, once for each loop around it whose variable is one name."""
    found = []
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)):
        start = loop.target.id
        for call in (n for part in loop.body for n in ast.walk(part)):
            if not (_arange(call) and len(call.args) == 1 and number_of(call.args[0]) is None and not call.keywords):
                continue
            made = f"torch.arange({start}, {start} + {quote(call.args[0])})"
            found.append(Change(fdef.name, index[id(call)], "tile_start", made, "offset", f"`{made}` for `{quote(call)}`",
                                call.lineno))
    return found


def _arange(node: ast.AST) -> bool:
    """A call of torch's `arange`, `torch.arange(...)`."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "arange"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")


def _steps_as_stops(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `step_stop` changes of `fdef`: `w[start::T]`, a colon doubled, made `w[start:start + T]` (the
    subscript written out whole), where the step may be a count and the start is no number; `w[::T]`
    and `w[0::T]` made `w[:T]` and `w[0:T]`."""
    found = []
    for sub in (n for n in ast.walk(fdef) if isinstance(n, ast.Subscript)):
        parts = list(sub.slice.elts) if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        for k, cut in enumerate(parts):
            if not _doubled_count(cut):
                continue
            # written out whole (ast.unparse, never cut short): mend_edits.py parses it
            start, step = ("" if cut.lower is None else ast.unparse(cut.lower)), ast.unparse(cut.step)
            stop = step if number_of(cut.lower) == 0 or cut.lower is None else f"{start} + {step}"
            made = f"{ast.unparse(sub.value)}[{', '.join(f'{start}:{stop}' if i == k else ast.unparse(p) for i, p in enumerate(parts))}]"
            found.append(Change(fdef.name, index[id(sub)], "step_stop", made, "offset",
                                f"`{cut_text(made)}` for `{quote(sub)}`", sub.lineno))
    return found


def _doubled_count(cut: ast.AST) -> bool:
    """`start::n`: a cut with a step that may be a count and no stop, its start no number, or none or 0."""
    return (isinstance(cut, ast.Slice) and cut.upper is None and cut.step is not None and _a_count(cut.step)
            and (cut.lower is None or number_of(cut.lower) in (None, 0)))


def _doubled(node: ast.AST, made: str) -> ast.Slice | None:
    """The cut of a subscript `node` that a `step_stop` change's `made` (the subscript as source) writes
    otherwise; else None."""
    if not isinstance(node, ast.Subscript):
        return None
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    mended = ast.parse(made, mode="eval").body
    new = mended.slice.elts if isinstance(mended.slice, ast.Tuple) else [mended.slice]
    return next((p for p, q in zip(parts, new) if _doubled_count(p) and ast.dump(p) != ast.dump(q)), None)


def _counts_from(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `count_from` changes of `fdef`: `arange(b - a)` (or `range(b - a)`) made `arange(a, b)`."""
    found = []
    for call in (n for n in ast.walk(fdef) if isinstance(n, ast.Call) and id(n) in index):
        if (call_name(call) in ("arange", "range") and len(call.args) == 1 and isinstance(call.args[0], ast.BinOp)
                and isinstance(call.args[0].op, ast.Sub) and number_of(call.args[0].right) is None):
            count = call.args[0]
            made = ast.Call(call.func, [count.right, count.left], call.keywords)
            found.append(Change(fdef.name, index[id(call)], "count_from", ast.unparse(made), "offset",
                                f"`{quote(made)}` for `{quote(call)}`", call.lineno))
    return found


def pair_side(cut: ast.Slice) -> int | None:
    """0 for `:-1` (each neighbouring pair's first), 1 for `1:` (its second), else None."""
    if cut.step is not None:
        return None
    if cut.lower is None and cut.upper is not None and number_of(cut.upper) == -1:
        return 0
    return 1 if cut.upper is None and cut.lower is not None and number_of(cut.lower) == 1 else None


def _pair_sides(fdef: ast.FunctionDef, index: dict[int, int], pieces: dict[tuple, list]) -> list[Change]:
    """The `pair_side` changes of `fdef`: `:-1` made `1:`, `1:` made `:-1`. pieces: `_pieces(fdef)`."""
    found = []
    for whole, cut in (p for same in pieces.values() for p in same):
        if id(cut) in index and pair_side(cut) is not None:
            change = Change(fdef.name, index[id(cut)], "pair_side", None, "slice", "", cut.lineno)
            found.append(dataclasses.replace(change, said=f"`{_with(whole, cut, mend_edit(cut, change))}` for {_which(fdef, whole)}`{quote(whole)}`"))
    return found


def _with(whole: ast.Subscript, cut: ast.Slice, made: ast.AST) -> str:
    """`whole` quoted with `made` in the place of its slice `cut`: `k[..., j0:j1, :]`, not the bare slice."""
    parts = ast.Tuple([made if p is cut else p for p in whole.slice.elts], ast.Load()) if isinstance(whole.slice, ast.Tuple) else made
    return quote(ast.Subscript(whole.value, parts, ast.Load()))


def _which(fdef: ast.FunctionDef, whole: ast.Subscript) -> str:
    """"the second " where a line holds the same subscript more than once (`ids[:-1], ids[:-1]`), else ""."""
    same = sorted((n.col_offset, id(n)) for n in ast.walk(fdef) if isinstance(n, ast.Subscript)
                  and n.lineno == whole.lineno and ast.dump(n) == ast.dump(whole))
    if len(same) < 2:
        return ""
    place = [i for _, i in same].index(id(whole))
    return ("the first ", "the second ", "the third ", "the fourth ", "the fifth ", "")[min(place, 5)]


def _pieces(fdef: ast.FunctionDef) -> dict[tuple, list[tuple[ast.Subscript, ast.Slice]]]:
    """{(the tensor cut, as bound then, and the place in its index): [(each subscript, its slice there)]},
    slices with no step. A name bound again is another tensor (`x = x[..., d:]`); the place is read with
    what stands before it (`...`, `None`, an index), which moves the axis it means."""
    bound = sorted((n.lineno, t.id) for n in ast.walk(fdef) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                   for target in (n.targets if isinstance(n, ast.Assign) else [n.target]) for t in ast.walk(target)
                   if isinstance(t, ast.Name))
    found: dict[tuple, list[tuple[ast.Subscript, ast.Slice]]] = {}
    for node in (n for n in ast.walk(fdef) if isinstance(n, ast.Subscript)):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        tensor = ast.unparse(node.value)
        binding = sum(1 for line, name in bound if name == tensor and line < node.lineno)
        for place, part in enumerate(parts):
            if isinstance(part, ast.Slice) and part.step is None:
                before = tuple("..." if isinstance(p, ast.Constant) and p.value is Ellipsis else "None" if isinstance(
                    p, ast.Constant) and p.value is None else "" for p in parts[:place])
                found.setdefault((tensor, binding, before), []).append((node, part))
    return found


def _next_starts(fdef: ast.FunctionDef, index: dict[int, int], cuts: dict[tuple, list]) -> list[Change]:
    """The `next_start` changes of `fdef`: a piece's start made the stop of another piece of its tensor.
    cuts: `_pieces(fdef)`."""
    found = []
    for pieces in (p for p in cuts.values() if 2 <= len(p) <= MAX_PIECES):
        for whole, cut in pieces:
            if cut.lower is None or id(cut) not in index:
                continue
            tried = {ast.unparse(cut.lower)}
            for other, stop in ((o, c.upper) for o, c in pieces if c is not cut and c.upper is not None):
                if ast.unparse(stop) in tried:
                    continue
                tried.add(ast.unparse(stop))
                change = Change(fdef.name, index[id(cut)], "next_start", (ast.unparse(stop), quote(other)), "slice", "", cut.lineno)
                found.append(dataclasses.replace(change, said=f"`{_with(whole, cut, mend_edit(cut, change))}` for {_which(fdef, whole)}`{quote(whole)}`"))
    return found


def _to_last(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `to_last` changes of `fdef`: `x[a:b]` made `x[..., a:b]`."""
    found = []
    for cut in (n for n in ast.walk(fdef) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) and id(n) in index):
        change = Change(fdef.name, index[id(cut)], "to_last", None, "axis", "", cut.lineno)
        found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(cut, change))}` for `{quote(cut)}`"))
    return found


def _offsets(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `offset_by` changes of `fdef`: `t` made `T + t` in a subscript its loop's body writes to."""
    sizes, found = size_names(fdef), []
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)):
        step = loop.target.id
        for statement in (s for s in loop.body if isinstance(s, (ast.Assign, ast.AugAssign))):
            for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target]):
                if not isinstance(target, ast.Subscript):
                    continue
                parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
                for part in (p for p in parts if isinstance(p, ast.Name) and p.id == step and id(p) in index):
                    found += [Change(fdef.name, index[id(part)], "offset_by", size, "index",
                                     f"`{size} + {step}` for `{step}` in `{quote(target)}`", statement.lineno)
                              for size in sorted(sizes - {step})]
    return found


def _negative(node: ast.expr) -> bool:
    """`-n`, or a negative number written in."""
    return ((isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub))
            or (isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and node.value < 0))


def _other_ends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `other_end` changes of `fdef`: `:n` made `-n:`, `-n:` made `:n`."""
    found = []
    for cut in (n for n in ast.walk(fdef) if isinstance(n, ast.Slice) and n.step is None and id(n) in index):
        # `:-1` is all but the last, no count of first entries
        first = cut.lower is None and cut.upper is not None and not _negative(cut.upper)
        last = (cut.upper is None and isinstance(cut.lower, ast.UnaryOp) and isinstance(cut.lower.op, ast.USub))
        if first or last:
            change = Change(fdef.name, index[id(cut)], "other_end", None, "slice", "", cut.lineno)
            found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(cut, change))}` for `{quote(cut)}`"))
    return found


def _other_ranges(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `range_for` changes of `fdef`: each slice's bounds made those of another range of it."""
    slices = _ranges(fdef)
    kinds: list[tuple[str, str]] = []
    for cut in slices:
        bounds = (ast.unparse(cut.lower), ast.unparse(cut.upper))
        if bounds not in kinds:
            kinds.append(bounds)
    if not 2 <= len(kinds) <= MAX_RANGES:
        return []
    # the tensor each slice cuts, to quote: `k[..., i0:i1, :]`, not the whole line that may cut two alike
    cutting = {id(part): n for n in ast.walk(fdef) if isinstance(n, ast.Subscript)
               for part in (n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice])}
    found = []
    for cut in slices:
        mine = (ast.unparse(cut.lower), ast.unparse(cut.upper))
        whole = cutting.get(id(cut))
        if whole is None:
            continue
        for other in (k for k in kinds if k != mine):
            change = Change(fdef.name, index[id(cut)], "range_for", other, "variable", "", cut.lineno)
            # the slice as repair makes it, quoted in its subscript
            found.append(dataclasses.replace(change, said=f"`{_with(whole, cut, mend_edit(cut, change))}` for {_which(fdef, whole)}`{quote(whole)}`"))
    return found


def range_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `range_for`, `stop_length`, `step_stop`, `other_end`, `offset_by`, `to_last`, `next_start` or `pair_side`
    change mends, in words."""
    if change.op == "pair_side" and isinstance(node, ast.Slice) and (side := pair_side(node)) is not None:
        taken, meant = ("first", "second") if side == 0 else ("second", "first")
        return (f"the slice `{quote(node)}` takes each neighbouring pair's {taken} entry (every entry but the {('last', 'first')[side]}); "
                f"the {meant} is `{quote(mend_edit(node, change))}`")
    if change.op == "count_from" and isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.BinOp):
        start, stop = quote(node.args[0].right), quote(node.args[0].left)
        return (f"`{quote(node)}` counts 0, 1, ... from 0: as many numbers as the range from `{start}` to `{stop}`, "
                f"but not its numbers; places in the sequence start at `{start}`, `{quote(node.func)}({start}, {stop})`")
    if change.op == "next_start" and isinstance(node, ast.Slice) and node.lower is not None:
        stop, other = change.arg
        return (f"a piece that starts at `{quote(node.lower)}` where `{stop}` belongs: pieces of one tensor cut side by side "
                f"start where the one before stops, and `{other}` stops at `{stop}`")
    if change.op == "to_last" and isinstance(node, ast.Subscript):
        return (f"a slice alone in the brackets cuts the FIRST axis: `{quote(node)}` takes whole rows (entries of "
                f"axis 0), where `{quote(mend_edit(node, change))}` cuts the last axis")
    if change.op == "offset_by" and isinstance(node, ast.Name):
        return (f"the offset `{change.arg}` left out: step `{node.id}` is written at place `{node.id}`, from 0, over "
                f"the first `{change.arg}` entries, where it belongs after them, at `{change.arg} + {node.id}`")
    if change.op == "other_end" and isinstance(node, ast.Slice):
        n = quote(node.upper) if node.upper is not None else quote(node.lower.operand)
        taken, meant = ("FIRST", "last") if node.upper is not None else ("LAST", "first")
        entries = "entry" if n == "1" else f"{n} entries"
        return (f"`{quote(node)}` takes the {taken} {entries} of that axis; the {meant} {entries} "
                f"{'is' if n == '1' else 'are'} `{quote(mend_edit(node, change))}`")
    if change.op == "tile_start" and isinstance(node, ast.Call):
        return (f"`{quote(node)}` numbers a tile's entries from 0, where their places in the sequence were meant: they start "
                f"at the tile's start, `{change.arg}`")
    if change.op == "step_stop" and (cut := _doubled(node, change.arg)) is not None:
        step = quote(cut.step)
        if cut.lower is None or number_of(cut.lower) == 0:
            return (f"a colon doubled: in `{quote(cut)}`, `{step}` is the STEP, every `{step}`-th entry from the first, not "
                    f"the first `{step}` entries, which stop before `{step}`")
        return ("a colon doubled: `start::n` is every n-th entry from start (n is the STEP), not the n entries from start, "
                "which end at `start + n`")
    if change.op == "stop_length" and _ended(node):
        name, start, end = call_name(node).split(".")[-1], quote(node.args[0]), quote(node.args[1])
        more = ", ..." if len(node.args) > 2 or node.keywords else ""
        return (f"`{name}`'s end is a position, like its start, not how far to go from it: `{name}({start}, {end}{more})` "
                f"ends at `{end}` wherever `{start}` is not 0; `{quote(mend_edit(node, change).args[1])}` is the end "
                f"`{end}` places on")
    if not (isinstance(node, ast.Slice) and node.lower is not None and node.upper is not None):
        return None
    if change.op == "stop_length":
        start, stop = quote(node.lower), quote(node.upper)
        return (f"a slice's stop is a position, counted from 0 like its start, not a number of entries: `{start}:{stop}` "
                f"ends at position `{stop}`, so it is short (or empty) wherever `{start}` is not 0; "
                f"`{start}:{start} + {stop}` takes `{stop}` entries from `{start}`")
    mine, other = f"{quote(node.lower)}:{quote(node.upper)}", f"{change.arg[0]}:{change.arg[1]}"
    return (f"the range `{mine}` where the range `{other}` belongs: your function cuts by both, and this place needs "
            "the other one (the two agree only where they cover the same positions)")
