"""Sixteen mends of an operator, a number or a call read by another convention, tried on a learner's code only.

- `div_mod`: `t[cols % hs, rows, cols // hs]`, a flat position split into (which block, where in
  it) with the two operators exchanged. `i // n` counts the whole blocks of n before i, `i % n` is
  what is left, the place inside the block. The mend exchanges every `//` and `%` of the smallest
  expression holding them all. Tried on every statement without a body that uses both (not a
  loop's or a branch's header).
- `radians`: `torch.sin(angles + 90.0)`, a quarter turn written in degrees, as a calculator or
  MATLAB's `sind` takes it; torch's and math's `sin`, `cos` and `tan` take radians. The mend puts
  the angle in radians (`torch.pi / 2` for `90`). Tried on the numbers 30, 45, 60, 90, 180, 270 and
  360 of a function that calls one of those three.
- `norm_squared`: `torch.linalg.vector_norm(c, dim=-1) / d`, a norm read as the sum of squares; a
  norm is the square root of that sum, the vector's length. The mend squares the call
  (`vector_norm(c, dim=-1) ** 2`). Tried on every `vector_norm`, `norm` and `linalg.norm` call given
  no order but 2 (`p=1` is another norm).
- `named_whole`: `x + (h := attn(ln1(x))) + mlp(ln2(h))`, the walrus read as naming the sum it
  stands in. `:=` names only what its own brackets hold: `h` is the attention branch alone, so the
  MLP reads it without `x`. The mend gives the name the whole sum, `(h := x + attn(ln1(x)))`.
  Tried on every `+`, `-`, `*`, `/` or `@` with a `:=` as one side.
- `log_inside`: `(m + l).log()`, a log-sum-exp's running maximum m and sum l joined as if the log
  spread over a sum, or the log put around the sum where it belonged on one term: log(m + l) is
  not m + log(l). The mend moves the log onto each term in turn, `m + l.log()` and `m.log() + l`.
  Tried on every `log` (a method, or `torch.log`) of a sum or a difference.
- `true_div`: `base ** (two_i // d_model)`, a ratio written with `//` as if it divided: `//` rounds
  down to a whole number, so every exponent between 0 and 1 is 0. The mend makes one `//` a `/`. Tried on every `//`.
- `bool_not`: `(ids.view(-1, 1) - torch.arange(V)).bool()`, the places where two things are equal read
  off a difference: `.bool()` is True wherever the value is not 0, where the two differ. The mend makes
  it `.logical_not()`. Tried on every `.bool()` of a difference.
- `nested_order`: `merge_heads(proj(x))`, two steps nested in the other order (the projection before
  the heads are merged). The mend nests them the other way, `proj(merge_heads(x))`. Tried on every
  call of one argument that is itself a call of one argument.
- `sign_abs`: `1 - (ids[:, None] - cols).sign()`, a sign read as whether a value is 0 at all. `sign`
  keeps the side, -1 below 0 and +1 above, so the one-hot row holds 2 past the id. The mend takes
  the size of the sign, `.sign().abs()` (1 on either side). Tried on every `sign` call.
- `axes_from_one`: `x.sum((1, 3))` for the batch and the rows, axes counted from 1 as MATLAB's
  `sum(x, [1 3])` and R count them; torch counts from 0, so the axes are the next ones along (or
  past the last). The mend takes 1 from each, `(0, 2)`. Tried on every tuple of two or more whole
  numbers, all at least 1, given where a call takes axes (a `dim=`, a `permute`'s order, the axis
  places of axis_arguments.py), not a shape, a pad or a shift.
- `unbind_kept`: `for s in scores.unbind(-1)`, each piece taken to be a column, (..., 1), as
  `split(1, dim=-1)` gives it; `unbind` removes the axis, so each piece is (...,) and broadcasts
  against a column into a square. The mend is `scores.split(1, dim=-1)`. Tried at every `unbind`
  of a statement or a `for` header, as a method or `torch.unbind` (not with a starred argument).
- `size_sliced`: `n = x.shape[-1:]`, the size of the last axis read with a slice, as a vector's last
  entry is often cut out; a slice of a shape is a torch.Size, a tuple of one size, and a tensor
  divided by it raises. The mend indexes, `x.shape[-1]`. Tried on every slice of `.shape` that
  holds one entry (`-1:`, `k:k + 1`, `:1`).
- `bound_as_axis`: `torch.min(d * -slope, 0)`, MATLAB's `min(A, 0)` (or NumPy's `np.minimum`) read into
  torch: the smaller of each entry and 0. torch's `min` and `max` read a number given after the tensor
  as an AXIS and return each column's (values, indices). The mend bounds each entry,
  `torch.clamp(d * -slope, max=0)` (`min=` for `max`). Tried on every `torch.min` and `torch.max` given a
  tensor and a number by position, and nothing else.
- `nan_as_missing`: `x.index_fill(1, idx, float("nan")).sum(1)`, a NaN filled in as pandas reads it, a
  missing value its sums skip; torch's `sum` skips nothing, and one NaN makes the whole sum NaN. The mend
  fills 0.0, which leaves a sum alone. Tried at every NaN written out (`float("nan")`, `math.nan`,
  `torch.nan`, `np.nan`) as the fill of chosen entries (a fill call, or an assignment into entries:
  first_nan.written_nan's test); not as a tensor's start, `torch.full(..., nan)`, whose neutral value
  is what reads it (0 for a sum, -inf for a running maximum).
- `axes_counted`: `T = tokens.ndim`, the count of a tensor's axes read as the length of one (R's
  `dim(x)` gives a matrix's sizes themselves; NumPy's and torch's `ndim` and `dim()` count the axes). The mend
  reads a size, `tokens.shape[-1]` or `tokens.shape[0]`. Tried at every `.ndim`, `.dim()` and `.ndimension()`.
- `one_based_range`: `for i in range(1, T + 1)`, R's and MATLAB's `1:T`, positions counted from 1; Python's and
  torch's count from 0, so every position is one too far on. The mend is `range(T)` (`torch.arange(T)`).
  Tried at every `range` and `torch.arange` from 1 to a number plus 1.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
Left out: `//` and `%` exchanged across two statements (`head = i % hs` on one line, `place = i // hs`
on the next), and angles in degrees that are not one of the numbers above.
"""

from __future__ import annotations

import ast
import dataclasses

from attention_by_hand.lab.axis_arguments import axis_argument
from attention_by_hand.lab.code_layout import call_name, function_form, log_of_sum, number_of
from attention_by_hand.lab.first_nan import nan_literal, written_nan
from attention_by_hand.lab.mend_edits import RADIANS, mend_edit
from attention_by_hand.lab.mutant_edits import Change, cut, quote

__all__ = ["READING_OPS", "reading_mends", "reading_words"]

READING_OPS = ("div_mod", "radians", "norm_squared", "named_whole", "log_inside", "true_div", "bool_not", "nested_order",
               "sign_abs", "axes_from_one", "unbind_kept", "size_sliced", "bound_as_axis",
               "nan_as_missing", "axes_counted", "one_based_range")
_TURNS = ("sin", "cos", "tan")
_NORMS = ("vector_norm", "norm")
_WHOLE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult)


def _splits(node: ast.AST) -> list[ast.BinOp]:
    return [n for n in ast.walk(node) if isinstance(n, ast.BinOp) and type(n.op) in (ast.FloorDiv, ast.Mod)]


def _smallest_holding_both(statement: ast.stmt) -> ast.expr | None:
    """The expression of `statement` with the fewest nodes that holds every `//` and `%` of it,
    where it has at least one of each."""
    splits = _splits(statement)
    if {type(n.op) for n in splits} != {ast.FloorDiv, ast.Mod}:
        return None
    # not an index's tuple of slices (`:, i % n`), which reads as no code alone: its subscript
    holding = [n for n in ast.walk(statement) if isinstance(n, ast.expr)
               and not (isinstance(n, ast.Tuple) and any(isinstance(e, ast.Slice) for e in n.elts))
               and all(any(s is m for m in ast.walk(n)) for s in splits)]
    return min(holding, key=lambda n: sum(1 for _ in ast.walk(n)), default=None)


def _degrees(node: ast.AST) -> bool:
    value = node.value if isinstance(node, ast.Constant) else None
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value in RADIANS


def _two_norm(call: ast.Call) -> bool:
    """A norm call given no order but 2, by keyword (`p=`, `ord=`) or by place: `torch.norm(x, 1)`,
    `x.norm(1)` and `vector_norm(x, 1)` are other norms, whose square is no sum of squares."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    # `torch.norm(x, p)`, `torch.linalg.vector_norm(x, ord)`, `norm(x, p)`: the order comes second
    function = owner is None or (isinstance(owner, ast.Name) and owner.id in ("torch", "linalg", "np")) or (
        isinstance(owner, ast.Attribute) and owner.attr == "linalg")
    given = [k.value for k in call.keywords if k.arg in ("p", "ord")] + (call.args[1:2] if function else call.args[:1])
    return all(isinstance(g, ast.Constant) and g.value in (2, 2.0, "fro") for g in given)


def _walrus_quoted(node: ast.AST) -> str:
    """`node` quoted with each `:=`'s value bare, as a learner writes it: `(h := x + y)`, where
    ast.unparse brackets the value, `(h := (x + y))`."""
    text = ast.unparse(node)
    for named in (n for n in ast.walk(node) if isinstance(n, ast.NamedExpr)):
        value = ast.unparse(named.value)
        text = text.replace(f"{ast.unparse(named.target)} := ({value})", f"{ast.unparse(named.target)} := {value}")
    return cut(text)


def _named_whole(node: ast.BinOp) -> str:
    """`(h := a + b)` for `a + (h := b)`, quoted as a learner writes it."""
    return _walrus_quoted(mend_edit(node, Change("", 0, "named_whole", None, "order", "")))


def _one_argument(node: ast.AST) -> bool:
    """A call given one positional argument and nothing else: `proj(x)`, `self.norm(h)`."""
    return isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred)


def _a_step(func: ast.expr) -> bool:
    """A function or a layer by name (`proj`, `torch.exp`, `F.gelu`, `self.ln1`), not a method of a value (`x.view`)."""
    if isinstance(func, ast.Name):
        return True
    owner = func.value if isinstance(func, ast.Attribute) else None
    while isinstance(owner, ast.Attribute):
        owner = owner.value
    return isinstance(owner, ast.Name) and owner.id in ("torch", "F", "nn", "self")


def nested(node: ast.AST) -> bool:
    """`f(g(x))`: a call of one argument whose argument is a call of one argument, both functions or layers by name."""
    return _one_argument(node) and _one_argument(node.args[0]) and all(_a_step(c.func) for c in (node, node.args[0]))


def _counted_from_one(node: ast.AST) -> bool:
    """`(1, 3)`: a tuple of two or more whole numbers, each at least 1."""
    return (isinstance(node, ast.Tuple) and len(node.elts) > 1 and all(
        isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 1 for e in node.elts))


def _axes_given(call: ast.Call) -> list[ast.expr]:
    """The arguments of `call` that name axes: a `dim`, `dims` or `axis` keyword, a `permute`'s order,
    or an axis place of a call whose places say so (axis_arguments.py), not a shape, a pad or a shift."""
    given = [k.value for k in call.keywords if k.arg in ("dim", "dims", "axis")]
    return given + [a for a in call.args if call_name(call) == "permute" or axis_argument(call, a)]


def _bool_of_difference(node: ast.AST) -> bool:
    """`(a - b).bool()`."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bool"
            and not node.args and isinstance(node.func.value, ast.BinOp) and isinstance(node.func.value.op, ast.Sub))


def _axes_count_of(node: ast.AST) -> ast.expr | None:
    """x of `x.ndim`, `x.dim()` or `x.ndimension()`: the count of x's axes; None for another node."""
    if isinstance(node, ast.Attribute) and node.attr == "ndim":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("dim", "ndimension") \
            and not node.args and not node.keywords:
        return node.func.value
    return None


def _one_based(node: ast.AST) -> str | None:
    """`range(T)` for `range(1, T + 1)` (`torch.arange` alike), written out; None for another node."""
    if not (isinstance(node, ast.Call) and call_name(node) in ("range", "arange") and len(node.args) == 2 and not node.keywords):
        return None
    start, end = node.args
    if not (number_of(start) == 1 and isinstance(end, ast.BinOp) and isinstance(end.op, ast.Add) and number_of(end.right) == 1):
        return None
    return f"{quote(node.func)}({quote(end.left)})"


def _bound_as_axis(node: ast.AST) -> str | None:
    """`torch.clamp(x, max=0)` for `torch.min(x, 0)` (`min=` for `max`), written out; None for another node."""
    if not (isinstance(node, ast.Call) and call_name(node) in ("min", "max") and function_form(node, ("torch",))
            and len(node.args) == 2 and not node.keywords and number_of(node.args[1]) is not None):
        return None
    side = "max" if call_name(node) == "min" else "min"
    return f"torch.clamp({quote(node.args[0])}, {side}={quote(node.args[1])})"


def _size_sliced(node: ast.AST) -> str | None:
    """`x.shape[k]` for `x.shape[-1:]`, `x.shape[k:k + 1]` or `x.shape[:1]`: a slice of a shape that
    holds one size; None for anything else."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
            and isinstance(node.slice, ast.Slice) and node.slice.step is None):
        return None
    lower, upper = node.slice.lower, node.slice.upper
    if lower is None:
        one = 0 if number_of(upper) == 1 else None
    elif upper is None:
        one = -1 if number_of(lower) == -1 else None
    else:
        low, high = number_of(lower), number_of(upper)
        one = low if type(low) is int and type(high) is int and high == low + 1 else None
    return None if one is None else f"{quote(node.value)}[{one}]"


def _split_for(node: ast.AST) -> str | None:
    """`x.split(1, dim=d)` for `x.unbind(d)` or `torch.unbind(x, d)` (d 0 where not given), written out whole;
    None where an argument is starred or unpacked, or the method is called through its class."""
    if not (isinstance(node, ast.Call) and call_name(node) == "unbind" and isinstance(node.func, ast.Attribute)):
        return None
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords) \
            or ast.unparse(node.func.value) == "torch.Tensor":
        return None
    torch_form = function_form(node)
    given = node.args[1:] if torch_form else node.args
    dims = [*given, *(k.value for k in node.keywords if k.arg == "dim")] or [ast.Constant(0)]
    owner = node.args[0] if torch_form and node.args else node.func.value
    return None if torch_form and not node.args else f"({ast.unparse(owner)}).split(1, dim={ast.unparse(dims[0])})"


def reading_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The changes of `fdef` the module's docstring lists."""
    found = []

    def add(node: ast.AST, op: str, kind: str, line: int, arg=None) -> None:
        change = Change(fdef.name, index[id(node)], op, arg, kind, "", line)
        made, was = (_named_whole(node), _walrus_quoted(node)) if op == "named_whole" else (quote(mend_edit(node, change)), quote(node))
        if op == "sign_abs":  # the difference it takes can be long: the call alone is the slip
            was = f"{quote(node.func)}(...)" if function_form(node, ("torch", "np", "numpy")) else ".sign()"
            made = f"{was}.abs()"
        found.append(dataclasses.replace(change, said=f"`{made}` for `{was}`"))

    turns = any(isinstance(n, ast.Call) and call_name(n) in _TURNS for n in ast.walk(fdef))
    for statement in (n for n in ast.walk(fdef) if isinstance(n, ast.stmt) and not hasattr(n, "body")):
        both = _smallest_holding_both(statement)
        if both is not None:
            add(both, "div_mod", "sign", statement.lineno)
        for node in ast.walk(statement):
            if turns and _degrees(node):
                add(node, "radians", "constant", statement.lineno)
            if isinstance(node, ast.Call) and call_name(node) in _NORMS and _two_norm(node):
                add(node, "norm_squared", "function", statement.lineno)
            if isinstance(node, ast.BinOp) and any(isinstance(side, ast.NamedExpr) for side in (node.left, node.right)) \
                    and isinstance(node.op, _WHOLE):
                add(node, "named_whole", "order", statement.lineno)
            if log_of_sum(node) is not None:
                for side in (1, 0):
                    add(node, "log_inside", "function", statement.lineno, side)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
                add(node, "true_div", "sign", statement.lineno)
            if _bool_of_difference(node):
                add(node, "bool_not", "comparison", statement.lineno)
            if nested(node):
                add(node, "nested_order", "order", statement.lineno)
            if isinstance(node, ast.Call):
                for axes in (a for a in _axes_given(node) if _counted_from_one(a)):
                    add(axes, "axes_from_one", "axis", statement.lineno)
            if (kept := _split_for(node)) is not None:
                add(node, "unbind_kept", "axis", statement.lineno, kept)
            if (owner := _axes_count_of(node)) is not None:
                for axis in (-1, 0):
                    add(node, "axes_counted", "axis", statement.lineno, f"{quote(owner)}.shape[{axis}]")
            if (counted := _one_based(node)) is not None:
                add(node, "one_based_range", "offset", statement.lineno, counted)
            if isinstance(node, (ast.Call, ast.Attribute)) and nan_literal(ast.unparse(node)) and written_nan(ast.unparse(statement)):
                add(node, "nan_as_missing", "constant", statement.lineno, "0.0")
            if (bound := _bound_as_axis(node)) is not None:
                add(node, "bound_as_axis", "function", statement.lineno, bound)
            if (size := _size_sliced(node)) is not None:
                add(node, "size_sliced", "slice", statement.lineno, size)
            if isinstance(node, ast.Call) and call_name(node) == "sign" and (node.args or isinstance(node.func, ast.Attribute)):
                add(node, "sign_abs", "sign", statement.lineno)
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For)):  # a loop's header: what it walks
        for node in ast.walk(loop.iter):
            if (kept := _split_for(node)) is not None:
                add(node, "unbind_kept", "axis", loop.lineno, kept)
    return found


def reading_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a change of the module's docstring mends, in words."""
    if change.op == "unbind_kept" and (kept := _split_for(node)):
        axis = kept.rsplit("dim=", 1)[1][:-1]
        last = ", so a row's entries come out as (...,), not as (..., 1) columns" if axis == "-1" else ""
        return (f"`unbind` removes the axis it cuts along, {axis}: each piece has one axis fewer{last}; "
                f"`split(1, dim={axis})` keeps that axis, of size 1")
    if change.op == "one_based_range" and isinstance(node, ast.Call):
        return (f"`{quote(node)}` counts from 1, as R's and MATLAB's `1:n` do; Python's and torch's positions count from 0, "
                "so each is one too far on")
    if change.op == "axes_counted":
        return f"`{quote(node)}` counts the tensor's AXES, not the length of one (R's `dim(x)` gives a matrix's sizes)"
    if change.op == "nan_as_missing":
        return ("a NaN filled in as a missing value, as pandas' sums skip it: torch's `sum` (and `mean`, `@`) skips "
                "nothing, so one NaN makes the whole sum NaN (`nansum` skips them); 0.0 leaves a sum alone")
    if change.op == "bound_as_axis" and isinstance(node, ast.Call):
        name, number = call_name(node), quote(node.args[1])
        return (f"`{name}` given a number after the tensor reads it as an AXIS and returns each slice's (values, indices), "
                f"not the {'smaller' if name == 'min' else 'larger'} of each entry and {number}, as MATLAB's `{name}(A, {number})` is")
    if change.op == "size_sliced":
        return (f"`{quote(node)}` is a slice of the shape, a torch.Size: a tuple holding one size, not the number; "
                f"`{change.arg}` is the size itself")
    if change.op == "true_div" and isinstance(node, ast.BinOp):
        return (f"`//` is floor division: `{quote(node)}` rounds `{quote(node.left)} / {quote(node.right)}` down to a whole "
                f"number (0 wherever 0 <= `{quote(node.left)}` < `{quote(node.right)}`); `/` divides")
    if change.op == "bool_not" and _bool_of_difference(node):
        return (f"`.bool()` is True wherever the value is not 0: of the difference `{quote(node.func.value)}`, where the "
                "two differ (for finite values); where they are equal is `.logical_not()` (or `== 0`)")
    if change.op == "axes_from_one" and _counted_from_one(node):
        return (f"axes counted from 1, as MATLAB and R count them: torch counts from 0, so `{quote(node)}` names the "
                f"axes after the ones meant; they are `{quote(mend_edit(node, change))}`")
    if change.op == "sign_abs":
        return ("`sign` keeps the side, -1 below 0 and +1 above; whether a value is 0 at all is the size of its sign, "
                "`.abs()` of it (1 on either side)")
    if change.op == "nested_order" and nested(node):
        inner = node.args[0]
        return (f"two steps in the other order: `{quote(node)}` does `{quote(inner.func)}` first, then "
                f"`{quote(node.func)}`; the other order is `{quote(mend_edit(node, change))}`")
    if change.op == "log_inside" and (total := log_of_sum(node)) is not None:
        term = quote(total.right if change.arg else total.left)
        return (f"the log taken of the whole `{quote(total)}`, where it belongs on `{term}` alone: the log of a sum "
                "(or a difference) is not the sum with one term's log")
    if change.op == "div_mod":
        return ("`//` and `%` exchanged: `i // n` counts the whole blocks of n before i (which block), "
                "`i % n` is what is left (the place inside the block)")
    if change.op == "radians":
        return (f"an angle in degrees (`{quote(node)}`): `sin`, `cos` and `tan` take radians, "
                f"and {quote(node)} degrees is `{RADIANS[node.value]}`")
    if change.op == "norm_squared":
        return ("a norm taken for a sum of squares: a norm is the square root of the sum of squares (the "
                "vector's length); `** 2` gives the sum itself")
    if change.op == "named_whole":
        named = node.right if isinstance(node.right, ast.NamedExpr) else node.left
        return (f"`:=` names only what its own brackets hold: `{quote(named.target)}` is `{_walrus_quoted(named.value)}` alone, "
                f"not the whole expression around it")
    return None
