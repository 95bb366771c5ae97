"""How a change that only a learner's code needs is made to the syntax tree (mend_changes.py lists them).

mutant_edits.edit makes the changes of the reference's code, which made to a learner's code mend the
inverse slip; the changes here have no such inverse (the reference never had what they take out, or never
lacked what they put in), and each is made in a learner's function alone: `ids[i] + 1` made `ids[i + 1]`,
a flag added, `-(-a // b)` for `a // b`, `x += y` for `x = x + y`, and the forms a habit from elsewhere
gets wrong (habit_mends.py): an augmented assignment unfolded, two slices joined where `+` added them, a
factor taken out of a call, F.pad's pairs moved to the axis before, a leading `:` dropped, a comma made a
colon, enumerate's pair exchanged, `~h` made every index but h, one index moved to the second axis, a
one-wide slice made its index; and the calls and assignments read otherwise (api_mends.py): a copy made,
a shift or an offset negated, `numel()` made one axis's length, `transpose(0, 1)` made
`transpose(-2, -1)`, two listed entries exchanged, a count put first in a view moved next to the last
size; and what a loop or a product is given (operand_mends.py): a dict's `.items()` walked, a transpose
moved to the other factor, a comparison's first side given an axis (`unsqueeze(-1)`), a tensor's last
axis walked or unpacked, a built-in `sum` made torch's; and a slice moved to the last axis with `...`
before it (range_mends.py); and `//` and `%` exchanged, an angle put in radians, a norm squared, a `:=`
given the whole sum (reading_mends.py); and an index's `None` moved, a transpose put before a reshape, a
leading `...` made whole axes, two brackets made one, a product's factor transposed or the product turned
(layout_mends.py); a vector of ones made a column (operand_mends.py); a sign's size taken, axes counted from
0 (reading_mends.py); and a number made a tensor (number_mends.py).
Each takes the node the change names and returns the node that takes its place.

Left out: which changes are tried (mend_changes.py, habit_mends.py) and their words (mend_words.py).
"""

from __future__ import annotations

import ast
import copy

from attention_by_hand.lab.bracket_edits import BRACKET_OPS, bracket_edit
from attention_by_hand.lab.code_layout import compared_sides, function_form, is_method, log_of_sum, picked_ids, subscript_of, subscript_parts, whole_slice
from attention_by_hand.lab.product_edits import last_two_swapped, matrix_sides, moved_transpose, row_times_column, transposed_tensor, unsqueezed

# matrix_sides and transposed_tensor are product_edits.py's, named here too for api_mends.py
__all__ = ["HALVES", "RADIANS", "is_half_cast", "edit_count_first", "entries_of", "matrix_sides", "measured_by", "mend_edit",
           "negated", "other_index", "tailed", "transposed_tensor"]

HALVES = ("half", "bfloat16")  # the casts to a float of half the width
# an angle in degrees -> the same angle in radians, as a learner would write it (reading_mends.py)
RADIANS = {30: "torch.pi / 6", 45: "torch.pi / 4", 60: "torch.pi / 3", 90: "torch.pi / 2", 180: "torch.pi",
           270: "3 * torch.pi / 2", 360: "2 * torch.pi"}


class _DivMod(ast.NodeTransformer):
    """Every `//` made `%` and every `%` made `//`."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.BinOp:
        self.generic_visit(node)
        node.op = {ast.FloorDiv: ast.Mod, ast.Mod: ast.FloorDiv}.get(type(node.op), type(node.op))()
        return node


def is_half_cast(node: ast.AST) -> bool:
    """`x.half()` or `x.bfloat16()`, a method given nothing."""
    return (isinstance(node, ast.Call) and is_method(node) and node.func.attr in HALVES
            and not node.args and not node.keywords)


class _Uncast(ast.NodeTransformer):
    """Takes every cast of is_half_cast off, leaving what it cast."""

    def visit_Call(self, call: ast.Call) -> ast.AST:
        self.generic_visit(call)
        return call.func.value if is_half_cast(call) else call


def tailed(node: ast.Subscript, place: int) -> ast.Subscript:
    """`node` with its index at `place` made a slice from there to the end (tail_slice_mends.py)."""
    parts = subscript_parts(node)
    parts[place] = ast.Slice(parts[place], None, None)
    return subscript_of(node, parts)


def other_index(name: str) -> str:
    """A name for a comprehension's counter that is not `name` (`i`, else `j`)."""
    return "j" if name == "i" else "i"


def measured_by(node: ast.Call) -> ast.expr | None:
    """The tensor `x.numel()` or `torch.numel(x)` counts; None for another form of the call."""
    if is_method(node):
        return node.func.value if not node.args else None
    return node.args[0] if len(node.args) == 1 else None


def scatter_parts(node: ast.AST) -> tuple[ast.expr, ast.expr, ast.expr, ast.expr, ast.expr] | None:
    """(tensor, src, dim, start, end) of `x.slice_scatter(src, dim=d, start=a, end=b)` or of
    `torch.slice_scatter(x, src, ...)`, by position or by keyword; None for another call, one
    given a step, or one whose dim, start or end is left to its default (a missing end runs to
    the tensor's end, which raises unless the source is as long: that error is its own slip)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "slice_scatter"):
        return None
    given = ([node.func.value] if is_method(node) else []) + list(node.args)
    named = {k.arg: k.value for k in node.keywords}
    if any(isinstance(a, ast.Starred) for a in given) or None in named or "step" in named or len(given) > 5:
        return None
    places = dict(zip(("input", "src", "dim", "start", "end"), given))
    for key in ("input", "src", "dim", "start", "end"):
        places.setdefault(key, named.get(key if key != "input" else "self", named.get(key)))
    if any(places[k] is None for k in ("input", "src", "dim", "start", "end")):
        return None
    return places["input"], places["src"], places["dim"], places["start"], places["end"]


def entries_of(node: ast.AST) -> list[ast.expr]:
    """The sizes, strides or axes a call lists in order (api_mends.py's `swap_entries`): a tuple's
    entries, or the call's own positional arguments after its tensor."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return list(node.elts)
    return list(node.args if is_method(node) else node.args[1:])


def negated(node: ast.expr) -> ast.expr:
    """`-x` for `x`, `x` for `-x`, `b - a` for `a - b`: a shift or an offset the other way (api_mends.py)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return node.operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        return ast.copy_location(ast.BinOp(node.right, ast.Sub(), node.left), node)
    return ast.copy_location(ast.UnaryOp(ast.USub(), node), node)


def edit_squeeze_whole(node: ast.BinOp, side: int) -> ast.Call:
    """`a.squeeze(d) + b` made `(a + b).squeeze(d)` (side 0; side 1 the right one squeezed: api_mends.py)."""
    squeezed = (node.left, node.right)[side]
    sides = [node.left, node.right]
    sides[side] = squeezed.func.value
    return ast.Call(ast.Attribute(ast.BinOp(sides[0], node.op, sides[1]), "squeeze", ast.Load()), squeezed.args, [])


def signed(value: int) -> ast.expr:
    """An int as code: `-2` is written as a minus sign before 2, as a learner writes it."""
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def edit_count_first(call: ast.Call, at: int) -> ast.Call:
    """`x.view(3, B, T, d)` made `x.view(B, T, 3, d).unbind(-2)` (at = 2): the count moved among the
    other sizes, to place `at`, and unpacked along it (api_mends.py)."""
    count, *rest = call.args
    moved = ast.Call(call.func, [*rest[:at], count, *rest[at:]], [])
    return ast.Call(ast.Attribute(moved, "unbind", ast.Load()), [ast.Constant(at - len(rest) - 1)], [])


def _torch(attribute: str) -> ast.expr:
    """`torch.<attribute>`, torch found by import: the learner may have named it otherwise."""
    module = ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant("torch")], [])
    return ast.Attribute(module, attribute, ast.Load())


def _read(target: ast.expr) -> ast.expr:
    """An assignment's target as an expression that reads it (`acc[i]` stored, then loaded)."""
    read = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(read, target)


def mend_edit(node: ast.AST, change) -> ast.AST | None:  # noqa: C901 - one branch per op
    """The node that takes `node`'s place for one of the learner-only changes."""
    op, arg = change.op, change.arg
    if op == "div_mod":  # every `//` of the expression made `%` and every `%` made `//` (reading_mends.py)
        return _DivMod().visit(copy.deepcopy(node))
    if op == "radians":  # an angle in degrees made the same in radians, `90` made `torch.pi / 2` (reading_mends.py)
        return ast.parse(RADIANS[node.value], mode="eval").body
    if op == "norm_squared":  # a norm's call made its square (reading_mends.py)
        return ast.BinOp(node, ast.Pow(), ast.Constant(2))
    if op == "walk_last":  # `for s in x` made `for s in x.unbind(-1)`: the last axis walked (operand_mends.py)
        return ast.Call(ast.Attribute(node, "unbind", ast.Load()), [ast.Constant(-1)], [])
    if op == "unpack_axis":  # `a, b = u` made `a, b = u.unbind(-1)` (or -2): another axis unpacked (operand_mends.py)
        return ast.Call(ast.Attribute(node, "unbind", ast.Load()), [ast.UnaryOp(ast.USub(), ast.Constant(-arg))], [])
    if op == "builtin_sum" and arg == "start":  # `sum(a, b)` made `a + b`, b where the built-in starts (operand_mends.py)
        return ast.BinOp(node.args[0], ast.Add(), node.args[1])
    if op == "builtin_sum":  # `sum(t)` made `t.sum(dim=-1, keepdim=True)`, or without keepdim (operand_mends.py)
        kept = [ast.keyword("keepdim", ast.Constant(True))] if arg else []
        return ast.Call(ast.Attribute(node.args[0], "sum", ast.Load()), [], [ast.keyword("dim", ast.UnaryOp(ast.USub(), ast.Constant(1))), *kept])
    if op == "named_whole":  # `a + (h := b)` made `(h := a + b)`: the name given the whole sum (reading_mends.py)
        named = node.right if isinstance(node.right, ast.NamedExpr) else node.left
        sides = (node.left, named.value) if named is node.right else (named.value, node.right)
        return ast.NamedExpr(named.target, ast.BinOp(sides[0], node.op, sides[1]))
    if op in ("axis_place", "ellipsis_as_axes", "right_aligned", "colon_dropped"):  # `x[None]` made `x[:, None]`, `x[..., :T]` made `x[:, :, :T]` (layout_mends.py)
        return ast.Subscript(node.value, ast.parse(f"_[{arg}]", mode="eval").body.slice, node.ctx)
    if op == "pairs_split":  # `c[pairs]` made `c[tuple(pairs)]`, written to as read (picked_mends.py)
        return ast.Subscript(node.value, ast.Call(ast.Name("tuple", ast.Load()), [node.slice], []), node.ctx)
    if op == "one_item_tuple":  # `(x,)` made `x` (trailing_comma_mends.py)
        return node.elts[0]
    if op == "tail_slice":  # `x[i, i + 1] = v` made `x[i, i + 1:] = v` (tail_slice_mends.py)
        return tailed(node, arg)
    if op == "assign_turned":  # `m_new = m` made `m = m_new` (turned_assign_mends.py)
        return ast.Assign([ast.Name(node.value.id, ast.Store())], ast.Name(node.targets[0].id, ast.Load()), lineno=node.lineno)
    if op == "step_shift":  # `x[T::T]` made `x[T::T + 1]`: the step one off (step_mends.py)
        return ast.Slice(node.lower, node.upper, ast.parse(arg, mode="eval").body)
    if op == "one_bracket":  # `x[:, r][:, :, c]` made `x[:, r, c]` (layout_mends.py)
        return ast.Subscript(node.value.value, ast.parse(f"_[{arg}]", mode="eval").body.slice, node.ctx)
    if op == "transpose_first":  # `t.reshape(...)` made `t.transpose(-2, -1).reshape(...)` (layout_mends.py)
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id == "torch":  # torch.reshape(t, ...)
            return ast.Call(node.func, [last_two_swapped(node.args[0]), *node.args[1:]], node.keywords)
        return ast.Call(ast.Attribute(last_two_swapped(owner), "reshape", ast.Load()), node.args, node.keywords)
    if op in ("product_turned", "pre_norm", "unbind_kept", "count_from", "squeezed", "pair_values", "add_into", "r_drop", "size_sliced", "bound_as_axis", "step_stop", "tile_start", "shifted_twin",
              "nan_as_missing", "axes_counted", "stream_read", "one_based_range", "enumerate_pairs", "values_of_tensor",
              "pair_axis", "added_twice", "mean_times_width",
              "vector_transposed", "transpose_dropped", "running_max", "power_typed", "layer_applied", "mask_bool",
              "identity_compared", "none_dropped", "sizes_joined", "arms_swapped",
              "count_for_ids", "inferred_moved", "inferred_for", "order_for_unequal", "shape_spread",
              "in_place_value", "clamp_side", "slice_sign", "truth_entrywise", "power_caret", "slice_taken",
              "norm_order", "minus_outside", "log_base", "dim_for_size", "wrap_dropped", "tail_read", "cat_for_sum",
              "cartesian_self", "squeeze_written", "called"):  # whole
        return ast.copy_location(ast.AugAssign(node.targets[0], ast.Add(), node.value), node) if op == "add_into" else ast.parse(arg, mode="eval").body
    if op == "factor_transposed":  # `q @ k` made `q @ k.transpose(-2, -1)`: one factor transposed (layout_mends.py)
        return ast.Call(node.func, [last_two_swapped(a) if i == arg else a for i, a in enumerate(node.args)], node.keywords)
    if op == "axes_from_one":  # `(1, 3)` made `(0, 2)`: axes counted from 0 (reading_mends.py)
        return ast.Tuple([ast.Constant(e.value - 1) for e in node.elts], ast.Load())
    if op == "sign_abs":  # `d.sign()` made `d.sign().abs()` (reading_mends.py)
        return ast.Call(ast.Attribute(node, "abs", ast.Load()), [], [])
    if op == "vector_column":  # `e @ torch.ones(n)` made `e @ torch.ones(n, 1)`, a column (operand_mends.py)
        return ast.Call(node.func, [*node.args, ast.Constant(1)], node.keywords)
    if op == "matmul":  # `a * b` made `a @ b` (api_mends.py)
        return ast.BinOp(node.left, ast.MatMult(), node.right)
    if op == "out_of_place":  # `c.pow_(2)` made `c.pow(2)` (api_mends.py)
        return ast.Call(ast.Attribute(node.func.value, node.func.attr[:-1], ast.Load()), node.args, node.keywords)
    if op == "entrywise":  # `a @ b`, `torch.matmul(a, b)` or `a.matmul(b)` made `a * b` (api_mends.py)
        a, b = matrix_sides(node)
        return ast.BinOp(a, ast.Mult(), b)
    if op == "elementwise":  # `a @ b.transpose(-2, -1)` made `a * b` (api_mends.py)
        right = node.right
        return ast.BinOp(node.left, ast.Mult(), right.value if isinstance(right, ast.Attribute) else right.func.value)
    if op == "no_half":  # every `x.half()` of a statement made `x` (api_mends.py)
        return _Uncast().visit(copy.deepcopy(node))
    if op == "bool_mask":  # a float 0/1 `attn_mask` made a bool one (api_mends.py)
        return ast.Call(ast.Attribute(node, "bool", ast.Load()), [], [])
    if op == "chain_swap":  # `a.f(x).g(y)` made `a.g(y).f(x)`: two chained calls in the other order (api_mends.py)
        inner = node.func.value
        swapped = ast.Call(ast.Attribute(inner.func.value, node.func.attr, ast.Load()), node.args, node.keywords)
        return ast.Call(ast.Attribute(swapped, inner.func.attr, ast.Load()), inner.args, inner.keywords)
    if op == "range_for":  # a slice's two bounds made another slice's of the function (range_mends.py)
        lower, upper = (ast.parse(bound, mode="eval").body for bound in arg)
        return ast.Slice(lower, upper, node.step)
    if op == "stop_length" and isinstance(node, ast.Call):  # `arange(a, n)` made `arange(a, a + n)` (range_mends.py)
        return ast.Call(node.func, [node.args[0], ast.BinOp(node.args[0], ast.Add(), node.args[1]), *node.args[2:]], node.keywords)
    if op == "stop_length":  # `a:n` made `a:a + n`, the stop counted from the start (range_mends.py)
        return ast.Slice(node.lower, ast.BinOp(node.lower, ast.Add(), node.upper), node.step)
    if op == "ellipsis_for":  # `x[:, a]` made `x[..., a]`: the leading `:`s one `...` (layout_mends.py)
        parts = node.slice.elts
        lead = next(i for i, p in enumerate(parts) if not whole_slice(p))
        return ast.Subscript(node.value, ast.Tuple([ast.Constant(Ellipsis), *parts[lead:]], ast.Load()), node.ctx)
    if op == "true_div":  # `a // b` made `a / b` (reading_mends.py)
        return ast.BinOp(node.left, ast.Div(), node.right)
    if op == "bool_not":  # `(a - b).bool()` made `(a - b).logical_not()` (reading_mends.py)
        return ast.Call(ast.Attribute(node.func.value, "logical_not", ast.Load()), [], [])
    if op == "nested_order":  # `f(g(x))` made `g(f(x))` (reading_mends.py)
        inner = node.args[0]
        return ast.Call(inner.func, [ast.Call(node.func, inner.args, [])], [])
    if op == "log_inside":  # `(a + b).log()` made `a + b.log()` (arg 1) or `a.log() + b` (arg 0) (reading_mends.py)
        total = log_of_sum(node)
        sides = [total.left, total.right]
        sides[arg] = ast.Call(node.func, [sides[arg]], []) if total is not node.func.value else ast.Call(
            ast.Attribute(sides[arg], "log", ast.Load()), [], [])
        return ast.BinOp(sides[0], total.op, sides[1])
    if op == "pair_side":  # `:-1` made `1:`, `1:` made `:-1`: the other side of each neighbouring pair (range_mends.py)
        return ast.Slice(ast.Constant(1), None, None) if node.upper is not None else ast.Slice(None, ast.UnaryOp(ast.USub(), ast.Constant(1)), None)
    if op == "next_start":  # a piece's start made the stop of another piece of the tensor (range_mends.py)
        return ast.Slice(ast.parse(arg[0], mode="eval").body, node.upper, node.step)
    if op == "to_last":  # `x[a:b]` made `x[..., a:b]`, the slice moved to the last axis (range_mends.py)
        return ast.Subscript(node.value, ast.Tuple([ast.Constant(Ellipsis), node.slice], ast.Load()), node.ctx)
    if op == "outer":  # `a == b` made `a.unsqueeze(-1) == b` (arg None) or `a == b.unsqueeze(-1)` (any other), `torch.eq(a, b)` alike (operand_mends.py)
        sides, at = compared_sides(node), 0 if arg is None else 1
        sides[at] = unsqueezed(sides[at])
        if isinstance(node, ast.Compare):
            return ast.Compare(sides[0], node.ops, sides[1:])
        if function_form(node):
            return ast.Call(node.func, sides, node.keywords)
        return ast.Call(ast.Attribute(sides[0], node.func.attr, ast.Load()), sides[1:], node.keywords)
    if op == "items":  # a dict walked as pairs, made its `.items()` (operand_mends.py)
        return ast.Call(ast.Attribute(node, "items", ast.Load()), [], [])
    if op == "other_factor":  # the transpose moved to the other factor of a product (operand_mends.py)
        return moved_transpose(node)
    if op == "offset_by":  # `t` made `T + t`, a write placed after the T entries before it (range_mends.py)
        return ast.BinOp(ast.Name(arg, ast.Load()), ast.Add(), node)
    if op == "other_end":  # `:n` made `-n:`, and `-n:` made `:n` (range_mends.py)
        if node.upper is not None:
            return ast.Slice(ast.UnaryOp(ast.USub(), node.upper), None, None)
        return ast.Slice(None, node.lower.operand, None)
    if op == "into_index":  # `ids[i] + 1` made `ids[i + 1]` (mend_changes.py)
        return ast.Subscript(node.left.value, ast.BinOp(node.left.slice, node.op, node.right), ast.Load())
    if op == "subscripts":  # einsum's subscripts spelled otherwise (mend_changes.py)
        return ast.Constant(arg)
    if op == "add_kw":  # a flag a learner's call left out (mend_changes.py)
        return ast.Call(node.func, node.args, node.keywords + [ast.keyword(arg[0], ast.Constant(arg[1]))])
    if op == "power_inside":  # f(a) ** p made f(a * p) (mend_changes.py)
        call = node.left
        return ast.Call(call.func, [ast.BinOp(call.args[0], ast.Mult(), node.right)], [])
    if op == "factor_inside":  # `f(a, ...) / c` made `f(a / c, ...)` (mend_changes.py)
        call = node.left
        return ast.Call(call.func, [ast.BinOp(call.args[0], node.op, node.right), *call.args[1:]], call.keywords)
    if op == "into_exponent":  # `a / b ** e / d` made `a / b ** (e / d)` (mend_changes.py)
        power = node.left.right
        return ast.BinOp(node.left.left, node.left.op, ast.BinOp(power.left, ast.Pow(), ast.BinOp(power.right, node.op, node.right)))
    if op == "each_row":  # `x[ids]` (or `x[:, ids]`) made `x[torch.arange(len(ids)), ids]`: one entry per row (mend_changes.py)
        ids = picked_ids(node)
        rows = ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), "arange", ast.Load()), [ast.Call(ast.Name("len", ast.Load()), [ids], [])], [])
        return ast.Subscript(node.value, ast.Tuple([rows, ids], ast.Load()), node.ctx)
    if op == "overlap":  # `x.view(-1, k)` made `x.unfold(0, k, 1)`: every window of k, each with the next (mend_changes.py)
        return ast.Call(ast.Attribute(node.func.value, "unfold", ast.Load()), [ast.Constant(0), node.args[1], ast.Constant(1)], [])
    if op == "from_one":  # `range(n)` made `range(1, n)` (mend_changes.py)
        return ast.Call(node.func, [ast.Constant(1), node.args[0]], [])
    if op == "one_tuple":  # `x.shape[:-1] + 1` made `x.shape[:-1] + (1,)` (mend_changes.py)
        number_left = isinstance(node.left, ast.Constant)
        one = ast.Tuple([node.left if number_left else node.right], ast.Load())
        return ast.BinOp(one, ast.Add(), node.right) if number_left else ast.BinOp(node.left, ast.Add(), one)
    if op == "ceil":  # `a // b` made `-(-a // b)`, the count rounded up (mend_changes.py)
        return ast.UnaryOp(ast.USub(), ast.BinOp(ast.UnaryOp(ast.USub(), node.left), ast.FloorDiv(), node.right))
    if op == "in_place":  # `x = x + y` made `x += y`, which writes into the tensor x views (mend_changes.py)
        return ast.AugAssign(ast.Name(node.targets[0].id, ast.Store()), node.value.op, node.value.right)
    if op == "jump":  # a learner's `break` made `continue`, or back (mend_changes.py)
        return ast.Continue() if arg == "continue" else ast.Break()

    if op == "unfold_aug":  # `x *= a + b` made `x = x * a + b`: the operator on x alone (habit_mends.py)
        first = ast.BinOp(_read(node.target), node.op, node.value.left)
        return ast.Assign([node.target], ast.BinOp(first, node.value.op, node.value.right))
    if op == "join":  # `a + b` of two slices made `torch.cat((a, b), dim=arg)` (habit_mends.py)
        return ast.Call(_torch("cat"), [ast.Tuple([node.left, node.right], ast.Load())], [ast.keyword("dim", ast.Constant(arg))])
    if op == "factor_outside":  # `f(a / b)` made `f(a) / b` (habit_mends.py)
        inner = node.args[0]
        return ast.BinOp(ast.Call(node.func, [inner.left], []), inner.op, inner.right)
    if op == "pad_before":  # F.pad's pairs moved one axis back: `(0, n)` made `(0, 0, 0, n)` (habit_mends.py)
        pairs = node.args[1]
        moved = [ast.Constant(0), ast.Constant(0), *pairs.elts] if len(pairs.elts) == 2 else [*pairs.elts[2:], *pairs.elts[:2]]
        return ast.Call(node.func, [node.args[0], type(pairs)(moved, ast.Load()), *node.args[2:]], node.keywords)
    if op == "pad_sides":  # F.pad's pairs each read the other way: `(0, 0, n, 0)` made `(0, 0, 0, n)` (habit_mends.py)
        elts = node.args[1].elts
        sides = [elts[i + 1 - i % 2 * 2] for i in range(len(elts))]
        return ast.Call(node.func, [node.args[0], type(node.args[1])(sides, ast.Load()), *node.args[2:]], node.keywords)
    if op == "lead_colon":  # `x[:, :T]` made `x[:T]` (habit_mends.py)
        return subscript_of(node, subscript_parts(node)[1:])
    if op == "comma_colon":  # `w[a, b]` made `w[a : b]`: entries arg and arg + 1 one slice (habit_mends.py)
        parts = subscript_parts(node)
        parts[arg:arg + 2] = [ast.Slice(parts[arg], parts[arg + 1], None)]
        return subscript_of(node, parts)
    if op == "enumerate_order":  # `for x, i in enumerate(...)` made `for i, x in ...`: the target's pair (habit_mends.py)
        return ast.Tuple(node.elts[::-1], ast.Store())
    if op == "all_but":  # `x[:, ~h]` made `x[:, [i for i in range(x.shape[1]) if i != h]]` (habit_mends.py)
        parts = subscript_parts(node)
        head, n = parts[arg].operand.id, other_index(parts[arg].operand.id)
        others = ast.parse(f"[{n} for {n} in range(({ast.unparse(node.value)}).shape[{arg}]) if {n} != {head}]", mode="eval").body
        for made in ast.walk(others):  # the new nodes take the line of what they replace
            ast.copy_location(made, parts[arg])
        parts[arg] = others
        return subscript_of(node, parts)
    if op == "as_positions":  # `x[mask]` made `x[mask.long()]` (habit_mends.py)
        return ast.Subscript(node.value, ast.Call(ast.Attribute(node.slice, "long", ast.Load()), [], []), node.ctx)
    if op == "one_index":  # `x[a][b]` made `x[a, b]` (habit_mends.py)
        return ast.Subscript(node.value.value, ast.Tuple([node.value.slice, node.slice], ast.Load()), node.ctx)
    if op == "next_axis":  # `x[0]` made `x[:, 0]` (habit_mends.py)
        return ast.Subscript(node.value, ast.Tuple([ast.Slice(), node.slice], ast.Load()), node.ctx)
    if op == "axis_last":  # `x[:, None]` made `x[..., None]` (habit_mends.py)
        return subscript_of(node, [ast.Constant(Ellipsis), ast.Constant(None)])
    if op == "close_late":  # `f(a - b / c)` made `f(a - b) / c`, `(a - b.div(c)).f()` made `(a - b).f().div(c)` (habit_mends.py)
        inner = node.args[0] if node.args else node.func.value
        term = inner.right
        closed = ast.BinOp(inner.left, inner.op, term.left if isinstance(term, ast.BinOp) else term.func.value)
        called = ast.Call(node.func, [closed], []) if node.args else ast.Call(ast.Attribute(closed, node.func.attr, ast.Load()), [], [])
        if isinstance(term, ast.BinOp):
            return ast.BinOp(called, term.op, term.right)
        return ast.Call(ast.Attribute(called, term.func.attr, ast.Load()), term.args, [])
    if op == "step_axis":  # `x[0::2]` made `x[:, 0::2]` or `x[..., 0::2]` (habit_mends.py)
        lead = ast.Slice(None, None, None) if arg == ":" else ast.Constant(Ellipsis)
        return subscript_of(node, [lead, node.slice])
    if op == "fixed_count":  # `2` made `x.shape[-1]` (habit_mends.py)
        return ast.Subscript(ast.Attribute(ast.Name(arg[0], ast.Load()), "shape", ast.Load()), ast.Constant(arg[1]), ast.Load())
    if op == "count_colon":  # `x[T]` made `x[:T]` (habit_mends.py)
        parts = subscript_parts(node)
        parts[arg] = ast.Slice(None, parts[arg], None)
        return subscript_of(node, parts)
    if op == "one_based":  # `x[:, 1::2]` made `x[:, 0::2]`: the start counted from 0 (habit_mends.py)
        parts = subscript_parts(node)
        parts[arg] = ast.Slice(ast.Constant(parts[arg].lower.value - 1), parts[arg].upper, parts[arg].step)
        return subscript_of(node, parts)
    if op == "accumulate":  # `total = x` in a loop made `total = total + x` (loop_starts.py)
        return ast.BinOp(ast.Name(arg, ast.Load()), ast.Add(), node)
    if op == "typed_number":  # `1e-3` made the argument's name (habit_mends.py)
        return ast.Name(arg, ast.Load())
    if op == "keep_axis":  # `x[..., j]` made `x[..., j:j + 1]` (habit_mends.py)
        parts = subscript_parts(node)
        last = parts[-1]
        after = (ast.Constant(last.value + 1) if isinstance(last, ast.Constant)
                 else ast.BinOp(last, ast.Add(), ast.Constant(1)))
        parts[-1] = ast.Slice(last, after, None)
        return subscript_of(node, parts)
    if op == "one_slice":  # `x[:, h : h + 1]` made `x[:, h]` (habit_mends.py)
        parts = subscript_parts(node)
        parts[arg] = parts[arg].lower or ast.Constant(0)  # `:1` picks entry 0
        return subscript_of(node, parts)
    if op == "comma_for_colon":  # `[a:b]` made `[a, b]`: the slice's bounds a pair (colon_mends.py)
        return ast.Tuple([node.lower, node.upper], ast.Load())
    return _api_edit(node, change)


def _api_edit(node: ast.AST, change) -> ast.AST:
    """The edits of api_mends.py's mends."""
    op, arg = change.op, change.arg
    if op == "alias_copy":  # `a = b` made `a = b.clone()`
        return ast.Call(ast.Attribute(node, "clone", ast.Load()), [], [])
    if op in ("roll_back", "diagonal_sign"):  # a shift or an offset negated
        return negated(node)
    if op == "scatter_add":  # `x.slice_scatter(src, dim=d, start=a, end=b)` made `x.index_add(d, torch.arange(a, b), src)`
        tensor, src, dim, start, end = scatter_parts(node)
        rows = ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), "arange", ast.Load()), [start, end], [])
        return ast.Call(ast.Attribute(tensor, "index_add", ast.Load()), [dim, rows, src], [])
    if op == "all_axes":  # `x.T` made `x.mT` or `x.movedim(-1, 0)` (api_mends.py)
        if arg == "mT":
            return ast.Attribute(node.value, "mT", ast.Load())
        return ast.Call(ast.Attribute(node.value, "movedim", ast.Load()), [ast.Constant(-1), ast.Constant(0)], [])
    if op == "finfo_field":  # `torch.finfo(d).tiny` made `torch.finfo(d).min` (api_mends.py)
        return ast.Attribute(node.value, arg, ast.Load())
    if op == "like_dtype":  # `torch.ones_like(x)` made `torch.ones_like(x, dtype=torch.float32)`
        float32 = ast.Attribute(ast.Name("torch", ast.Load()), "float32", ast.Load())
        return ast.Call(node.func, node.args, [*node.keywords, ast.keyword("dtype", float32)])
    if op == "numel_axis":  # `x.numel()` made `x.shape[arg]`
        return ast.Subscript(ast.Attribute(measured_by(node), "shape", ast.Load()), ast.Constant(arg), ast.Load())
    if op == "last_two":  # `x.transpose(0, 1)`, `x.t()` or `torch.t(x)` made `x.transpose(-2, -1)`
        return ast.Call(ast.Attribute(transposed_tensor(node), "transpose", ast.Load()), [ast.Constant(-2), ast.Constant(-1)], [])
    if op == "count_first":  # `x.view(3, B, T, d)` made `x.view(B, T, 3, d).unbind(-2)`
        return edit_count_first(node, arg)
    if op == "flatten_span":  # `x.flatten(0, 1)` made `x.flatten(1, 2)`: the span moved
        lead = node.args[:0 if is_method(node) else 1]  # torch.flatten(x, ...)'s tensor stays first
        return ast.Call(node.func, [*lead, *(signed(a) for a in arg)], [])  # as api_mends.py quotes it
    if op == "squeeze_whole":  # `a.squeeze(d) + b` made `(a + b).squeeze(d)`
        return edit_squeeze_whole(node, arg)
    if op == "swap_entries":  # two listed sizes, strides or axes exchanged back
        i, j = arg
        entries = entries_of(node)
        entries[i], entries[j] = entries[j], entries[i]
        if isinstance(node, (ast.Tuple, ast.List)):
            return type(node)(entries, ast.Load())
        lead = node.args[:len(node.args) - len(entries)]  # torch.view(x, ...)'s tensor stays first
        return ast.Call(node.func, [*lead, *entries], node.keywords)
    if op == "row_side":  # the other side of a product of a column given its row axis (operand_mends.py)
        return row_times_column(node, arg)
    if op == "argument_for":  # an outside name made the unread argument (argument_mends.py)
        return ast.Name(arg[1], ast.Load())
    if op == "number_tensor":  # a number made `torch.tensor(...)` of it (number_mends.py)
        return ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), "tensor", ast.Load()), [node], [])
    if op in BRACKET_OPS:  # a term moved inside a call's bracket, or out of it (bracket_mends.py)
        return bracket_edit(node, op, arg)
    raise ValueError(op)
