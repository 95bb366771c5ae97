"""Slips that are no edit of one token: a reduction over the whole tensor, the average for a
maximum, a size read from the wrong variable, and a value used after it was updated where the one
given was meant.

- `x.mean()` for `x.mean(dim=-1, keepdim=True)`: the axis forgotten, so one number for the whole
  tensor (a layer norm over everything, not over each token).
- `x.mean(dim=-1, keepdim=True)` for `x.max(dim=-1, keepdim=True).values`: the row's average
  where its maximum was meant (a softmax shifted by the mean).
- `block` for `q.shape[-1]`: a size taken from another integer in scope (a scale by the tile's
  width, not the head's).
- `heads` for `proj(heads)`: a layer handed in as an argument and never applied.
- `x` as it was given, where the reference reads `x` after `x = x + attn(...)`: the update
  skipped (a residual added to the block's input, not to the attention's output).
- `ln1(attn(x))` for `attn(ln1(x))`: two layers applied in the other order (a branch normalised
  on the way out, not on the way in).
- `proj(value(x))` where the reference applies `proj` elsewhere: a layer applied to another
  value (diagnosis.py pairs it with the same layer left out where it belongs).
- `probs[rows][:, columns]` for `probs[rows, columns]`: a grid of every row with every column,
  where one element per pair was meant.
- `k.T` for `k.transpose(-2, -1)`: every axis reversed, where only the last two were meant.
- `log(p.mean())` for `log(p).mean()`: a step done inside another where it belongs after it.
- `x @ query.weight` for `query(x)`: an nn.Linear by hand, its weight not transposed or its bias
  left out; `torch.arange(T).flip(0)`: positions counted from the end.
- `if causal and i == j:` taken as always (or never) true, or with one part of the `and` left out.
- `v[..., i : i + block]` for `v[..., j : j + block]`: a slice made from another variable (the
  queries' tile where the keys' was meant).
- `ids[:1]` for `ids[1:]`: the colon typed on the other side of its bound; `k[..., j : j + block]`
  for `k[..., j : j + block, :]`: one `, :` short, so the slice falls on the last axis;
  `ids[:]` for `ids[:-1]`: a bound written as a number left out (made to a learner's code, the
  mend of MATLAB's `end` typed as `-1`, which stops one before the last); `p[:, i, :, j]` for
  `p[:, :, i, j]`: two parts of a subscript in each other's places (mutant_slices.py makes all four).
- `cat([pad, e])` for `cat([e, pad])`: the pieces joined in the other order (zeros padded on the
  wrong side).
- `~m` for a triangle `m = ones(T, T, dtype=torch.bool).triu(1)`: the cells to keep marked where
  the hidden ones were meant, or back (a mask read the other way, as Hugging Face's
  `attention_mask` marks with 1 the cells to attend).

mutants.py asks `slips(finder, node)` for every node of a reference function; `edit` (in
mutant_edits.py) makes each change.
"""

from __future__ import annotations

import ast
import copy
from functools import lru_cache

from attention_by_hand.lab.mutant_edits import AXIS_KEYWORDS, Rename, call_name, quote
from attention_by_hand.lab.code_layout import number_of
from attention_by_hand.lab.mutant_slices import colon_swapped, one_short, parts_swapped, unbound
from attention_by_hand.lab.size_locals import is_size

__all__ = ["WHOLE_CALLS", "slips", "called_names"]

# Reductions whose result keeps its type when the axis is left out (max/min would lose `.values`).
WHOLE_CALLS = {"mean", "var", "std", "sum", "amax", "amin", "logsumexp", "norm"}


def _updated_before(finder, name: str, statement: ast.stmt) -> ast.stmt | None:
    """The last statement of the function's own body before `statement` that assigns `name`."""
    body = finder.fdef.body
    at = next((i for i, s in enumerate(body) if s is statement), None)
    if at is None:
        return None
    for earlier in reversed(body[:at]):
        targets = earlier.targets if isinstance(earlier, ast.Assign) else [earlier.target] if isinstance(earlier, ast.AugAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return earlier
    return None


@lru_cache(maxsize=256)
def called_names(fdef: ast.FunctionDef, scope: tuple[str, ...]) -> list[str]:
    """The names in scope that the function calls: the layers it was handed (proj, ln1, attn).
    Once per definition (asked at every layer call; the definitions are cached, never changed)."""
    found = []
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in scope and node.func.id not in found:
            found.append(node.func.id)
    return found


def _is_layer_call(node: ast.AST, scope: list[str]) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in scope
            and len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred))


def _layer_slips(finder, node: ast.AST) -> None:
    """Two layers in the other order, and a layer applied to another value."""
    if not _is_layer_call(node, finder.scope):
        return
    inner = node.args[0]
    if _is_layer_call(inner, finder.scope) and inner.func.id != node.func.id:
        finder.add(node, "layers_swapped", None, "order",
                   f"`{inner.func.id}({node.func.id}({quote(inner.args[0])}))` for `{quote(node)}`: "
                   f"the two layers applied in the other order")
    for layer in called_names(finder.fdef, tuple(finder.scope)):
        if layer != node.func.id:
            finder.add(node, "layer_on", layer, "call", f"`{layer}` applied to `{quote(node)}`")


def _grid_slip(finder, node: ast.AST) -> None:
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Tuple):
        parts = node.slice.elts
        if len(parts) == 2 and not any(isinstance(p, (ast.Slice, ast.Starred)) for p in parts):
            rows, columns = (quote(p) for p in parts)
            base = quote(node.value)
            finder.add(node, "grid", None, "index",
                       f"`{base}[{rows}][:, {columns}]` for `{quote(node)}`: every row paired with every column "
                       f"(a grid), not one element per pair")


@lru_cache(maxsize=256)
def _loop_names(fdef: ast.FunctionDef) -> list[str]:
    """The names the function's for-loops step through (i over the query tiles, j over the keys');
    once per definition (asked at every slice)."""
    found = []
    for node in ast.walk(fdef):
        if isinstance(node, ast.For):
            found += [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name) and n.id not in found]
    return found


def _slice_slips(finder, node: ast.AST) -> None:
    """A slice made from another loop's index: the one tile's rows where the other's were meant."""
    if not isinstance(node, ast.Slice):
        return
    loops = _loop_names(finder.fdef)
    names = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in loops and n.id not in names:
            names.append(n.id)
    holder = node
    while not isinstance(holder, ast.Subscript) and id(holder) in finder.parent:
        holder = finder.parent[id(holder)]
    for name in names:
        for other in loops:
            if other not in names:
                said = f"the slice made from `{other}`, not `{name}`"
                if isinstance(holder, ast.Subscript):
                    renamed = ast.unparse(Rename(name, other).visit(copy.deepcopy(holder)))
                    said = f"`{renamed}` for `{ast.unparse(holder)}` ({said})"
                finder.add(node, "slice_name", (name, other), "variable", said)


@lru_cache(maxsize=256)
def _sliced_names(fdef: ast.FunctionDef) -> dict[str, ast.Subscript]:
    """The names bound once, to a slice of a name (`d_out_i = d_out[..., i:i + block, :]`, alone or
    unpacked from a tuple of such slices); once per definition (asked at every name read)."""
    bound: dict[str, list] = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = (zip(target.elts, value.elts) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
                     and len(target.elts) == len(value.elts) else [(target, value)])
            for t, v in pairs:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(v)
        elif isinstance(node, (ast.AugAssign, ast.For)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).extend([None, None])  # bound otherwise: not a plain slice
    return {name: values[0] for name, values in bound.items() if len(values) == 1 and isinstance(values[0], ast.Subscript)
            and isinstance(values[0].value, ast.Name)}


def _sibling_slice(finder, node: ast.AST) -> None:
    """The same slice of another input, where a name bound to a slice of an input is read
    (`out[..., i:i + b, :]` for `d_out_i`, from `d_out[..., i:i + b, :]`): the tile of the wrong
    input, at one use."""
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
        return
    sliced = _sliced_names(finder.fdef).get(node.id)
    if sliced is None:
        return
    whole = sliced.value.id
    # inputs only: a slice of a tensor the function fills (`dq`, zeros until written) fits any
    # output that stays zeros, by chance
    given = [a.arg for a in finder.fdef.args.posonlyargs + finder.fdef.args.args + finder.fdef.args.kwonlyargs]
    if whole not in given:
        return
    for other in given:
        if other != whole:
            code = ast.unparse(Rename(whole, other).visit(copy.deepcopy(sliced)))
            finder.add(node, "sibling", (whole, other, code), "variable",
                       f"`{code}` for `{node.id}` (the same slice of `{other}` as `{node.id}` takes of `{whole}`)")


def _dot_t(finder, node: ast.AST) -> None:
    """`k.T` for `k.transpose(-2, -1)`: on a batch, .T turns EVERY axis round, not the last two."""
    if isinstance(node, ast.Call) and call_name(node) == "transpose" and isinstance(node.func, ast.Attribute):
        axes = {ast.unparse(a) for a in node.args}
        if axes == {"-2", "-1"}:
            base = quote(node.func.value)
            finder.add(node, "dot_t", None, "axis",
                       f"`{base}.T` for `{quote(node)}` (.T reverses every axis of a batched tensor; "
                       f"transpose(-2, -1) swaps the last two)")


def _conditions(finder, node: ast.AST) -> None:
    """A condition taken as always true or never true (`if causal and i == j:` with the causal
    case forgotten), and one part of an `and` / `or` left out."""
    if isinstance(node, (ast.If, ast.IfExp)) and not isinstance(node.test, ast.Constant):
        for value, word in ((True, "always"), (False, "never")):
            finder.add(node.test, "cond", value, "comparison", f"the condition `{quote(node.test)}` taken as {word} true")
        if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):  # `if not causal:` the other way round
            finder.add(node.test, "unneg", None, "comparison",
                       f"`{quote(node.test.operand)}` for `{quote(node.test)}` (the condition the other way round)")
    # `a and b`, or a tensor mask's `a | b` and `a & b` (one side a comparison, or a name the
    # function made of one: an integer's bits are no condition)
    masks = isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.BitAnd)) and any(
        _a_mask(side, _assigned(finder.fdef)) for side in (node.left, node.right))
    if masks:  # the other of the two: cells where either holds for cells where both do, and back
        other = "BitAnd" if isinstance(node.op, ast.BitOr) else "BitOr"
        mine, theirs = ("|", "&") if other == "BitAnd" else ("&", "|")
        finder.add(node, "binop", other, "comparison", f"`{theirs}` for `{mine}` (`{quote(node)}`)")
    parts = node.values if isinstance(node, ast.BoolOp) else ([node.left, node.right] if masks else [])
    if len(parts) == 2:
        for kept, dropped in ((0, 1), (1, 0)):
            finder.add(node, "keep_part", kept, "comparison",
                       f"`{quote(parts[kept])}` for `{quote(node)}` (the part `{quote(parts[dropped])}` left out)")


def _a_mask(node: ast.AST, assigned: dict[str, ast.AST], depth: int = 3) -> bool:
    """Whether `node` is a comparison, `~`, `|` or `&` of one, or a name the function set to one
    once (`off_stride = (i - j >= 2) & ...`, then `future | off_stride`)."""
    if isinstance(node, ast.Compare):
        return True
    if depth == 0:
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _a_mask(node.operand, assigned, depth - 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.BitAnd)):
        return any(_a_mask(side, assigned, depth - 1) for side in (node.left, node.right))
    return isinstance(node, ast.Name) and node.id in assigned and _a_mask(assigned[node.id], assigned, depth - 1)


@lru_cache(maxsize=256)
def _assigned(fdef: ast.FunctionDef) -> dict[str, ast.AST]:
    """{name: its value} for the names the function binds exactly once, by a plain `name = ...`."""
    stores: dict[str, int] = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    return {a.targets[0].id: a.value for a in ast.walk(fdef) if isinstance(a, ast.Assign) and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name) and stores[a.targets[0].id] == 1}


def _inner_first(finder, node: ast.AST) -> None:
    """`log(p.mean())` for `log(p).mean()`: the outer step done first (the log of the average, not
    the average of the logs)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call):
        inner = node.func.value
        if len(inner.args) == 1 and not inner.keywords and not isinstance(inner.args[0], ast.Starred):
            step, outer = node.func.attr, call_name(inner)
            # built as a tree so that unparsing brackets a sum: `(var + eps).sqrt(...)`, never `var + eps.sqrt(...)`
            stepped = ast.Call(ast.Attribute(inner.args[0], step, ast.Load()), [ast.Name("...", ast.Load())], [])
            finder.add(node, "inner_first", None, "order",
                       f"the {outer} of the {step}, not the {step} of the {outer}: `{quote(ast.Call(inner.func, [stepped], []))}` "
                       f"for `{quote(node)}`")


def _linear_by_hand(finder, node: ast.AST) -> None:
    """`x @ query.weight` for `query(x)`: an nn.Linear written by hand, its weight not transposed
    (nn.Linear keeps it as (out, in)), or transposed but its bias left out."""
    if _is_layer_call(node, finder.scope):
        layer, arg = node.func.id, quote(node.args[0])
        finder.add(node, "by_hand", (layer, False), "call",
                   f"`{arg} @ {layer}.weight` for `{quote(node)}` (nn.Linear keeps its weight as (out, in): "
                   f"it computes {arg} @ weight.T + bias)")
        finder.add(node, "by_hand", (layer, True), "call", f"`{arg} @ {layer}.weight.T` for `{quote(node)}` (its bias left out)")


def _argument_off_by_one(finder, node: ast.AST) -> None:
    """`rope(k, positions + 1)` for `rope(k, positions)`: positions off by one in one call only."""
    if isinstance(node, ast.Call) and not _is_layer_call(node, finder.scope):
        for arg in node.args:
            if isinstance(arg, ast.Name) and arg.id in finder.scope:
                for delta in (1, -1):
                    finder.add(arg, "arg_shift", (arg.id, delta), "offset",
                               f"`{arg.id} {'+' if delta > 0 else '-'} 1` for `{arg.id}` in `{quote(node)}`: off by one there")


def _counted_back(finder, node: ast.AST) -> None:
    """`torch.arange(T).flip(0)` for `torch.arange(T)`: positions counted from the end."""
    if isinstance(node, ast.Call) and call_name(node) == "arange":
        finder.add(node, "flip", None, "offset", f"`{quote(node)}` counted from the end (`.flip(0)`), not from the start")


def _new_axis_left_out(finder, node: ast.AST) -> None:
    """`lse[..., rows]` for `lse[..., rows, None]`: the axis of size 1 that lines a row's number up
    with that row's entries left out, so it broadcasts along the other axis instead."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
        parts = node.slice.elts
        # not a leading None (broadcasting adds leading axes anyway), and not `x[..., None]`,
        # which "the indexing left out" already is
        for i, part in enumerate(parts):
            if isinstance(part, ast.Constant) and part.value is None and i > 0 and len(parts) > 2:
                kept = ast.Subscript(node.value, ast.Tuple(parts[:i] + parts[i + 1:], ast.Load()), ast.Load())
                finder.add(node, "no_new_axis", i, "index",
                           f"`{quote(kept)}` for `{quote(node)}` (the new axis, `None`, left out, or put first, where "
                           f"broadcasting adds one anyway: what it lines up broadcasts along another axis)")


def _typed_slices(finder, node: ast.AST) -> None:
    """The colon on the other side (`ids[:1]` for `ids[1:]`) and a subscript one `, :` short."""
    parent = finder.parent.get(id(node))
    # the slice alone (`ids[1:]`) or one part of several (`x[..., half:]`)
    whole = finder.parent.get(id(parent)) if isinstance(parent, ast.Tuple) else parent
    swapped = colon_swapped(node) if isinstance(node, ast.Slice) else None
    if swapped is not None and isinstance(whole, ast.Subscript) and whole.slice in (node, parent):
        index = swapped if whole.slice is node else ast.Tuple([swapped if p is node else p for p in parent.elts], ast.Load())
        typed = ast.Subscript(whole.value, index, ast.Load())
        finder.add(node, "colon", None, "index",
                   f"`{quote(typed)}` for `{quote(whole)}` (the colon on the other side of `{quote(node.lower or node.upper)}`)")
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        short = one_short(node)
        if short is not None:
            finder.add(node, "short", None, "index",
                       f"`{quote(short)}` for `{quote(node)}` (one `, :` short: the slice falls on the last axis)")


def _in_subscript(finder, node: ast.Slice, new: ast.expr) -> tuple[ast.AST, ast.AST] | None:
    """(the subscript holding `node`, the same subscript with `new` in its place), or None."""
    parent = finder.parent.get(id(node))
    whole = finder.parent.get(id(parent)) if isinstance(parent, ast.Tuple) else parent
    if not isinstance(whole, ast.Subscript) or whole.slice not in (node, parent):
        return None
    index = new if whole.slice is node else ast.Tuple([new if p is node else p for p in parent.elts], ast.Load())
    return whole, ast.Subscript(whole.value, index, whole.ctx)


def _typed_bounds(finder, node: ast.AST) -> None:
    """A slice's bound typed as a number where the slice runs to its end (or from its start):
    `-1` as MATLAB's `end`, which in Python stops one before the last entry."""
    if not isinstance(node, ast.Slice) or node.step is not None:
        return
    for bound in ("lower", "upper"):
        value = number_of(getattr(node, bound)) if getattr(node, bound) is not None else None
        if value is None or (bound == "lower" and value == 0):
            continue
        held = _in_subscript(finder, node, unbound(node, bound))
        if held is None:
            continue
        why = ("a slice stops BEFORE its end, so `-1` leaves out the last entry" if value == -1 and bound == "upper"
               else f"the slice's {'end' if bound == 'upper' else 'start'} `{value}` left out")
        finder.add(node, "unbound", bound, "index", f"`{quote(held[1])}` for `{quote(held[0])}` ({why})")


def _parts(finder, node: ast.AST) -> None:
    """Two neighbouring parts of one subscript in each other's places (`i` on the heads' axis)."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return
    statement = finder.statement_of(node)
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) or (
            isinstance(statement, ast.AnnAssign) and any(n is node for n in ast.walk(statement.annotation))):
        return  # a type in a signature or an annotation (`dict[str, bool]`): no index, nothing runs
    for at in range(len(node.slice.elts) - 1):
        pair = node.slice.elts[at : at + 2]
        # `...` stands for several axes and `None` makes a new one: neither indexes an axis of its own
        if any(isinstance(p, ast.Constant) and (p.value is Ellipsis or p.value is None) for p in pair):
            continue
        swapped = parts_swapped(node, at)
        if swapped is not None:
            finder.add(node, "parts", at, "index",
                       f"`{quote(swapped)}` for `{quote(node)}` (`{quote(pair[0])}` and `{quote(pair[1])}` "
                       "in each other's places: each on the other's axis)")


JOINS = {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "column_stack"}


def _pieces(finder, node: ast.AST) -> None:
    """The pieces of a `cat` in the other order: zeros padded before the values, not after."""
    if not (isinstance(node, ast.Call) and call_name(node) in JOINS and node.args
            and isinstance(node.args[0], (ast.List, ast.Tuple)) and len(node.args[0].elts) >= 2):
        return
    pieces = node.args[0]
    for i in range(len(pieces.elts) - 1):
        a, b = pieces.elts[i], pieces.elts[i + 1]
        if ast.dump(a) != ast.dump(b) and not any(isinstance(p, ast.Starred) for p in (a, b)):
            # a mend's words say the order already (mend_words.py); a change of the reference's says it here
            said = f"`{quote(b)}` first, then `{quote(a)}`" + (" (joined in the other order)" if finder.glossed else "")
            finder.add(pieces, "elts", (i, i + 1), "order", said)


def _triangle_inverted(finder, node: ast.AST) -> None:
    """A triangle of booleans read the other way: the cells to keep where the hidden ones were meant."""
    if not (isinstance(node, ast.Call) and call_name(node) in ("tril", "triu")):
        return
    parent = finder.parent.get(id(node))
    while isinstance(parent, ast.Attribute) and parent.attr in ("bool", "to"):  # `tril(ones(T, T)).bool()`: inverted whole
        node = finder.parent[id(parent)]
        parent = finder.parent.get(id(node))
    # a masked_fill's mask is inverted already (mutants.py): the same change twice would be tried twice
    filled = isinstance(parent, ast.Call) and call_name(parent) in ("masked_fill", "masked_fill_") and node in parent.args
    if not filled and not (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, (ast.Invert, ast.Not))):
        finder.add(node, "invert", None, "comparison",
                   "the mask inverted: it marks the cells to keep where it should mark the ones to hide, or the other way")


def slips(finder, node: ast.AST) -> None:
    """Add to `finder` (mutants._Finder) the slips this node allows."""
    _typed_slices(finder, node)
    _typed_bounds(finder, node)
    _parts(finder, node)
    _pieces(finder, node)
    _triangle_inverted(finder, node)
    _new_axis_left_out(finder, node)
    _linear_by_hand(finder, node)
    _counted_back(finder, node)
    _argument_off_by_one(finder, node)
    _inner_first(finder, node)
    _dot_t(finder, node)
    _conditions(finder, node)
    _layer_slips(finder, node)
    _grid_slip(finder, node)
    _slice_slips(finder, node)
    _sibling_slice(finder, node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and call_name(node) in WHOLE_CALLS:
        axes = node.args or any(k.arg in AXIS_KEYWORDS for k in node.keywords)
        if axes and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "F")):
            # only the arguments that choose the axis are quoted: the others stay as they were
            chosen = [ast.unparse(a) for a in node.args] + [ast.unparse(k) for k in node.keywords if k.arg in AXIS_KEYWORDS]
            finder.add(node, "whole", None, "axis",
                       f"`{quote(node.func)}(...)` over the whole tensor, not along one axis (`{', '.join(chosen)}` left out)")
    if isinstance(node, ast.Attribute) and node.attr == "values" and isinstance(node.value, ast.Call):
        if call_name(node.value) in ("max", "min") and isinstance(node.value.func, ast.Attribute):
            # the same axis either way: the hint names the function, not the arguments
            base, name = quote(node.value.func.value), call_name(node.value)
            finder.add(node, "mean_for", None, "function",
                       f"`{base}.mean(...)` for `{base}.{name}(...).values`: the average, not the {name}imum")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in finder.scope:
        if len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred):
            # a layer handed in as an argument (proj, attn, ln1) and not applied
            finder.add(node, "unlayer", node.func.id, "call",
                       f"`{quote(node.args[0])}` for `{quote(node)}` (the layer `{node.func.id}` left out)")
    if is_size(node) and isinstance(node, ast.expr):
        for other in finder.scope:
            finder.add(node, "size_for", other, "variable", f"`{other}` for `{quote(node)}` (a wrong size: another number in scope)")
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        parameters = {a.arg for a in finder.fdef.args.args}
        if node.id in parameters:
            statement = finder.statement_of(node)
            update = _updated_before(finder, node.id, statement)
            if update is not None:
                finder.add(node, "given", node.id, "variable",
                           f"the original {node.id} (as the function was given it), not the {node.id} that "
                           f"`{quote(update)}` made: that step's result is lost")
