"""Mends of a call or an assignment read otherwise than torch and Python define it.

Each is tried on a learner's code only (mend_changes.py), made by mend_edits.py and said only where
repair.py finds that it gives the reference's output on every input:

- `alias_copy`: `m_new = m`, then `m_new[rises] = s[rises]`: an assignment names the same tensor
  twice and copies nothing, so the write changes `m` too. The mend is `m_new = m.clone()`. Tried
  where either name is written into in place after the assignment (a subscript, `+=`, a method
  ending in `_`).
- `roll_back`: `roll(start, 0)`, meant to bring entry `start` to the front; a positive shift moves
  every entry towards the end. The mend negates the shift.
- `diagonal_sign`: `triu_indices(T, T, offset=-1)`, meant as the diagonal just above the main one;
  the offset counts upwards, so -1 is the diagonal below. The mend negates the offset (`i0 - j0`
  for a difference `j0 - i0`, and `i0 - j0 + 1` for `j0 - i0 + 1`: the difference alone turned).
- `numel_axis`: `counts.numel()` for the length of a row; numel counts every entry. The mend is
  `counts.shape[d]`, for d = -1 and 0. Also `len(x)` for the number of tokens, as for a list of
  them; len of a tensor is its FIRST axis's length (the batch's, where there is one). The mend is
  `x.shape[d]`, for d = -2 and -1.
- `last_two`: `k.transpose(0, 1)` (or `k.t()`, `torch.t(k)`) on a batch, meant as the matrix's transpose; the
  first two axes are the batch's. The mend is `transpose(-2, -1)`; on several lines it is one slip
  (repeated_mends.py groups them).
- `count_first`: `q, k, v = fused.view(3, B, T, d)`, the three taken as lying one after another in
  memory; a fused layer's output holds each row's q, k and v side by side on its last axis. The
  mend moves the count among the other sizes and unpacks along it, `fused.view(B, T, 3, d).unbind(-2)`
  (or `view(B, T, 3, heads, head_size).unbind(2)`, wherever it gives the reference's output).
- `swap_entries`: two sizes, strides or axes exchanged in `as_strided`, `view`, `reshape` or
  `permute` (`as_strided(size, (head_size, 1, d_model))`, the strides in memory's order, not the
  sizes'), or two of the 2-4 entries of a list a tensor is made of (`s.new_tensor([-inf, inf])`,
  a lookup table in the wrong order). The mend exchanges them back, each pair in turn.
- `flatten_span`: `t.transpose(0, 1).flatten(0, 1)`, meant as "join the heads and their channels";
  flatten joins the axes from its start through its end, both included, whatever they hold. The
  mend moves the span one axis either way, or to the last two axes (`flatten(-2, -1)`); a bare
  `flatten()` is the span from 0 through -1.
- `squeeze_whole`: `m.squeeze(-1) + l.log()`, one side of a sum squeezed where the result was to
  be: with both sides (..., n, 1), the (..., n) side broadcasts against the other into an
  (..., n, n) grid. The mend squeezes the whole, `(m + l.log()).squeeze(-1)`, tried wherever one
  side of a sum, difference, product or quotient is squeezed along one axis; its words say only
  that squeezing first can change which axes meet (the shapes are not read).
- `elementwise`: `d_out @ out.transpose(-2, -1)`, a matrix product with a transposed partner
  where each row was to meet its own row alone: `@` makes every row's dot product with every row of
  the other, a grid. The mend is the entrywise product, `d_out * out`. Tried where the right side
  of `@` is transposed (`.transpose(-2, -1)`, `.mT`, `.T`, `.t()`).
- `entrywise`: `torch.matmul(p, dp - D)`, MATLAB's `p .* (dp - D)` written as a matrix product
  (`@`, `matmul`, `mm`, `bmm`), which sums products along the inner axis. The mend is the entrywise
  product, `p * (dp - D)`. Tried where the right side is not transposed (that is `elementwise`).
- `out_of_place`: `var = c.pow_(2).mean(-1)`, an in-place method used for its value, read as "the
  square of c"; it squares `c` itself, which the next line reads. The mend is its twin, `c.pow(2)`.
  Tried where the call's value is used (a call alone on its line is meant in place).
- `matmul`: `weights * v`, MATLAB's `*` (the matrix product) where torch's `*` multiplies entry by
  entry. The mend is `weights @ v`. Tried where neither side is a number written in the code.
- `bool_mask`: `F.scaled_dot_product_attention(q, k, v, attn_mask=keep)` with `keep` a float mask of
  ones and zeros, read as "1 = may attend"; a float `attn_mask` is added to the scores, so nothing is
  hidden (and one of whole numbers raises). The mend is `attn_mask=keep.bool()`. Tried on every
  `attn_mask=` given by keyword that is not a constant.
- `no_half`: `p.half() @ v.half()`, a product cast to half precision, as a GPU kernel feeds its
  tensor cores; float16 keeps about three significant digits, so the result is off in the third
  (and a mask cast to it is no longer bool). The mend takes every `.half()` and `.bfloat16()` of
  the statement off at once (one choice of precision, made for each tensor it meets); its words
  say what such a cast does to numbers and to masks, as the one that mends may be either. Not where
  the statement's whole value is the cast: the result's dtype says that, and a call taken off mends.
- `like_dtype`: `torch.ones_like(codes)` read as "ones of the same size"; a `*_like` call copies the
  tensor's dtype too, so the ones of an integer tensor are integers (a float table's `index_put_`
  or `scatter_add_` refuses them, and `//` floors). The mend is `torch.ones_like(codes, dtype=torch.float32)`. Tried
  where no `dtype=` is given.
- `finfo_field`: `torch.finfo(s.dtype).tiny` read as the most negative number; `tiny` is the
  smallest POSITIVE normal one, next to 0 (and `eps` the gap after 1), so adding it hides nothing.
  The mend is another of finfo's fields, `.min` (the most negative) or `.max`.
- `scatter_add`: `dq = dq.slice_scatter(share, dim=-2, start=a, end=b)` in a loop that gathers a
  block's share from several tiles, read as "add into the slice"; slice_scatter puts `share` IN
  PLACE of the slice, so each block keeps its last tile's share. The mend adds it,
  `dq.index_add(-2, torch.arange(a, b), share)`. Tried where the result is bound to the name the
  call was made on (a running value) and the slice's end is given.
- `all_axes`: `for column in scores.T`, NumPy's `a.T` of a matrix read as the transpose of any
  tensor; torch's `.T` reverses EVERY axis (it warns on any tensor but a matrix), so the pieces of a batch
  come out with their axes reversed. The mends are `.mT` (the last two axes exchanged, each matrix
  transposed) and `.movedim(-1, 0)` (the last axis brought to the front, as walking the columns
  meant); tried on every `.T` read (not one written to), as on a matrix both are the same as it.
- `chain_swap`: `e.reciprocal().sum(-1)`, two methods chained in the wrong order (the sum of the
  reciprocals, where the reciprocal of the sum was meant): a chain runs from left to right. The mend
  exchanges the two calls, `e.sum(-1).reciprocal()`. Tried on every chain of two methods of a tensor.

Left out: a shift or an offset that is a longer expression than a name, a number or a minus sign
before one; an offset of `diagonal` or `diag_embed` given its axes (`dim1=-1, dim2=-2` reads the
matrix transposed, and the offset's side with it: the axes, not the sign, may be the slip).
"""

from __future__ import annotations

import ast
from itertools import combinations

from attention_by_hand.lab.code_layout import is_method
from attention_by_hand.lab.made_pitfalls import in_place_call
from attention_by_hand.lab.mend_edits import (edit_count_first, edit_squeeze_whole, entries_of, is_half_cast, matrix_sides,
                                              measured_by, mend_edit, negated, scatter_parts, signed, transposed_tensor)
from attention_by_hand.lab.mutant_edits import Change, call_name, number_of, quote, quote_statement

__all__ = ["ANOTHER_ROUTE", "API_OPS", "CAUSE_OPS", "FLATTENING", "half_casts", "api_mends", "api_words", "transposed_partner"]

API_OPS = ("alias_copy", "roll_back", "diagonal_sign", "numel_axis", "last_two", "swap_entries", "count_first",
           "flatten_span", "squeeze_whole", "elementwise", "entrywise", "matmul", "chain_swap", "bool_mask", "no_half",
           "out_of_place", "like_dtype", "finfo_field", "scatter_add", "all_axes")
# those that name a cause no change of the reference says (verdict.py says them after one, or after
# a catalogued mistake's effect); the reference has its own sizes and axes to swap
CAUSE_OPS = ("alias_copy", "roll_back", "diagonal_sign", "numel_axis", "last_two", "count_first", "flatten_span",
             "squeeze_whole", "elementwise", "entrywise", "matmul", "chain_swap", "bool_mask", "no_half", "out_of_place",
             "like_dtype", "finfo_field", "scatter_add", "all_axes")

# mends that may reach the reference's values by another route than the learner meant: `a * b` for an
# outer product `a[:, None] @ b[None, :]` broadcasts to it, where the operands the other way round were meant
ANOTHER_ROUTE = ("entrywise",)
# a call's name -> the place of its diagonal's offset among the arguments of torch.<name>(...)
_OFFSET_CALLS = {"tril": 1, "triu": 1, "tril_indices": 2, "triu_indices": 2, "diagonal": 1, "diag": 1, "diag_embed": 1}
_OFFSET_WORDS = ("offset", "diagonal")
_MADE = ("tensor", "new_tensor", "as_tensor")  # a tensor made of a list's entries, in its order
_ORDERED = ("as_strided", "view", "reshape", "permute", *_MADE)
_NUMEL_AXES = (-1, 0)
# finfo's fields, in words: a mend tries the two ends of the range for any of them
_FINFO = {"min": "the most negative finite number", "max": "the largest finite number",
          "tiny": "the smallest POSITIVE normal number, next to 0 (about 1e-38 in float32)",
          "eps": "the gap between 1 and the next number, small and positive (about 1e-7 in float32)"}
_LIKE = ("ones_like", "zeros_like", "full_like", "empty_like")  # a tensor made of another's size, dtype and device
# `.T`'s two mends: the last two axes exchanged (`.mT`), or the last axis brought to the front (`.movedim(-1, 0)`)
_WAYS = ("mT", "movedim")
_LEN_AXES = (-2, -1)  # len gives axis 0: the axes a length of tokens or of channels is read from
# without their axis, these work on the tensor flattened to one row (mend_changes.py adds the axis)
FLATTENING = ("roll", "repeat_interleave")


def _written_in_place(fdef: ast.FunctionDef, names: tuple[str, ...], after: int) -> tuple[int, str] | None:
    """The first line after `after` that writes into the tensor one of `names` holds without
    rebinding the name (`name[...] = `, `name += `, `name.add_(...)`), with that name; None if none does."""
    found = []
    for n in ast.walk(fdef):
        line = getattr(n, "lineno", 0)
        if line <= after:
            continue
        target = n.targets[0] if isinstance(n, ast.Assign) and len(n.targets) == 1 else n.target if isinstance(n, ast.AugAssign) else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in names:
            found.append((line, target.value.id))
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in names:
            found.append((line, n.target.id))
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_")
                and not n.func.attr.startswith("_") and isinstance(n.func.value, ast.Name) and n.func.value.id in names):
            found.append((line, n.func.value.id))
    return min(found, default=None)


def _shift(node: ast.Call) -> ast.expr | None:
    """roll's shift: its first argument as a method, its second as torch.roll, or `shifts=`."""
    given = {k.arg: k.value for k in node.keywords}
    if "shifts" in given:
        return given["shifts"]
    at = 0 if is_method(node) else 1
    return node.args[at] if len(node.args) > at else None


def _offset(node: ast.Call) -> ast.expr | None:
    """The diagonal's offset given to tril, triu, their indices or diagonal: by keyword or in place."""
    given = {k.arg: k.value for k in node.keywords if k.arg in _OFFSET_WORDS}
    if given:
        return next(iter(given.values()))
    at = _OFFSET_CALLS[call_name(node)] - (1 if is_method(node) else 0)  # a method's tensor is no argument
    return node.args[at] if len(node.args) > at else None


def _plain(node: ast.expr | None) -> bool:
    """A name, a number, or either after a minus sign."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Name) or (isinstance(node, ast.Constant) and type(node.value) is int and node.value != 0)


def _difference(node: ast.expr | None) -> bool:
    """`j0 - i0`, two plain terms (a name or a number) one minus the other: its other way is `i0 - j0`."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _plain(node.left) and _plain(node.right)


def _shifted_difference(node: ast.expr | None) -> bool:
    """`j0 - i0 + 1` (or `- 1`): a difference of two plain terms, then a whole number added or taken away."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and _difference(node.left)
            and isinstance(node.right, ast.Constant) and type(node.right.value) is int)


def _entries(node: ast.Call) -> ast.expr | None:
    """The sizes (as_strided: the strides) a call lists in order: a tuple argument, or the call itself
    where they are its positional arguments (`x.view(3, B, d)`)."""
    name = call_name(node)
    if name == "as_strided":
        at = 1 if is_method(node) else 2
        return node.args[at] if len(node.args) > at and isinstance(node.args[at], (ast.Tuple, ast.List)) else None
    if name in _MADE:  # the data is the first argument, method or not; a long list's pairs are too many
        listed = node.args[0] if node.args else None
        return listed if isinstance(listed, (ast.Tuple, ast.List)) and 2 <= len(listed.elts) <= 4 else None
    args = entries_of(node)
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        return args[0]
    return node if len(args) >= 2 and not any(isinstance(a, ast.Starred) for a in args) else None


def api_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The mends of `fdef` listed in the module's docstring, in the order of its nodes."""
    found, name = [], fdef.name
    bare = {id(s.value) for s in ast.walk(fdef) if isinstance(s, ast.Expr)}  # `x.add_(1)` alone: meant in place
    for node in ast.walk(fdef):
        at, line = index.get(id(node)), getattr(node, "lineno", None)
        if at is None:
            continue
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Name) and node.value.id != node.targets[0].id
                and _written_in_place(fdef, (node.targets[0].id, node.value.id), node.lineno) is not None):
            b = node.value.id
            found.append(Change(name, index[id(node.value)], "alias_copy", node.targets[0].id, "call",
                                f"`{b}.clone()` for `{b}` in `{quote(node)}`", line))
        if _count_first(node):  # the count's place: after the batch's sizes, among those that cut the last axis
            found += [Change(name, index[id(node.value)], "count_first", place, "order",
                             f"`{quote(edit_count_first(node.value, place))}` for `{quote(node.value)}`", line)
                      # never last (the parts are not interleaved), never before a batch's size where there is
                      # one (a block per batch item is no row's parts); the latest place first
                      for place in (range(len(node.value.args) - 2, 1, -1) if len(node.value.args) >= 4 else (1,))]
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
                and not any(isinstance(side, (ast.Constant, ast.UnaryOp)) for side in (node.left, node.right))):
            found.append(Change(name, at, "matmul", None, "function",
                                f"`{quote(mend_edit(node, Change(name, at, 'matmul', None, 'function', '')))}` for `{quote(node)}`",
                                line))
        if id(node) not in bare and in_place_call(node) is not None:
            found.append(Change(name, at, "out_of_place", None, "call",
                                f"`{quote(mend_edit(node, Change(name, at, 'out_of_place', None, 'call', '')))}` for `{quote(node)}`",
                                line))
        if matrix_sides(node) is not None and transposed_partner(node) is None:
            found.append(Change(name, at, "entrywise", None, "function",
                                f"`{quote(mend_edit(node, Change(name, at, 'entrywise', None, 'function', '')))}` for `{quote(node)}`",
                                line))
        partner = transposed_partner(node)
        if partner is not None:
            found.append(Change(name, at, "elementwise", None, "function",
                                f"`{quote(mend_edit(node, Change(name, at, 'elementwise', None, 'function', '')))}` for `{quote(node)}`",
                                line))
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Return)) and half_casts(node):
            each = " and ".join(f"`{quote(c.func.value)}` for `{quote(c)}`" for c in half_casts(node))
            found.append(Change(name, at, "no_half", None, "call", f"{each} in `{quote_statement(node)}`", line))
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and (parts := scatter_parts(node.value)) is not None and isinstance(parts[0], ast.Name)
                and parts[0].id == node.targets[0].id and index.get(id(node.value)) is not None):
            change = Change(name, index[id(node.value)], "scatter_add", None, "call", "", line)
            found.append(Change(name, index[id(node.value)], "scatter_add", None, "call",
                                f"`{quote(mend_edit(node.value, change))}` for `{quote(node.value)}`", line))
        if (isinstance(node, ast.Attribute) and node.attr in _FINFO and isinstance(node.value, ast.Call)
                and call_name(node.value) == "finfo"):  # iinfo's ends are whole numbers: other words
            found += [Change(name, at, "finfo_field", other, "call", f"`{quote(node.value)}.{other}` for `{quote(node)}`", line)
                      for other in _FINFO if other != node.attr and other not in ("tiny", "eps")]
        if isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            # a matrix's transpose, or a walk along the last axis
            found += [Change(name, at, "all_axes", way, "call",
                             f"`{quote(mend_edit(node, Change(name, at, 'all_axes', way, 'call', '')))}` for `{quote(node)}`",
                             line) for way in _WAYS]
        if _chained(node):
            found.append(Change(name, at, "chain_swap", None, "order",
                                f"`{quote(mend_edit(node, Change(name, at, 'chain_swap', None, 'order', '')))}` for `{quote(node)}`",
                                line))
        side = _squeezed_side(node)
        if side is not None:
            found.append(Change(name, at, "squeeze_whole", side, "order",
                                f"`{quote(edit_squeeze_whole(node, side))}` for `{quote(node)}`", line))
        if not isinstance(node, ast.Call):
            continue
        called = call_name(node)
        mask = next((k.value for k in node.keywords if k.arg == "attn_mask"), None)
        if (called == "scaled_dot_product_attention" and mask is not None and not isinstance(mask, ast.Constant)
                and index.get(id(mask)) is not None):
            found.append(Change(name, index[id(mask)], "bool_mask", None, "call",
                                f"`attn_mask={quote(mend_edit(mask, Change(name, 0, 'bool_mask', None, 'call', '')))}` for "
                                f"`attn_mask={quote(mask)}`", line))
        if called == "roll" and _plain(shift := _shift(node)):
            found.append(Change(name, index[id(shift)], "roll_back", None, "sign",
                                f"`{quote(negated(shift))}` for `{quote(shift)}` in `{quote(node)}`", line))
        # with its axes named (dim1=-1, dim2=-2 read the matrix transposed) a side may be the other: not tried
        axes_named = {k.arg for k in node.keywords} & {"dim1", "dim2"} or (called == "diagonal" and len(node.args) > 2 - is_method(node))
        if called in _OFFSET_CALLS and not axes_named and (_plain(offset := _offset(node)) or _difference(offset)):
            found.append(Change(name, index[id(offset)], "diagonal_sign", None, "sign",
                                f"`{quote(negated(offset))}` for `{quote(offset)}` in `{quote(node)}`", line))
        elif called in _OFFSET_CALLS and not axes_named and _shifted_difference(offset):  # `j0 - i0 + 1`: the difference the other way
            turned = ast.BinOp(negated(offset.left), offset.op, offset.right)
            found.append(Change(name, index[id(offset.left)], "diagonal_sign", None, "sign",
                                f"`{quote(turned)}` for `{quote(offset)}` in `{quote(node)}`", line))
        if called in _LIKE and not any(k.arg == "dtype" for k in node.keywords):
            found.append(Change(name, at, "like_dtype", None, "call",
                                f"`{quote(mend_edit(node, Change(name, at, 'like_dtype', None, 'call', '')))}` for `{quote(node)}`",
                                line))
        measured = measured_by(node) if called in ("numel", "len") else None
        if measured is not None and not (called == "len" and is_method(node)):
            tensor = quote(measured)
            found += [Change(name, at, "numel_axis", d, "call", f"`{tensor}.shape[{d}]` for `{quote(node)}`", line)
                      for d in (_NUMEL_AXES if called == "numel" else _LEN_AXES)]
        owner = transposed_tensor(node)
        if owner is not None:
            found.append(Change(name, at, "last_two", None, "transpose",
                                f"`{quote(mend_edit(node, Change(name, at, 'last_two', None, 'transpose', '')))}` for `{quote(node)}`",
                                line))
        span = _span(node) if called == "flatten" else None
        if span is not None:
            start, end = span
            moved = {(start + 1, end + 1), (start - 1, end - 1), (-2, -1)} - {(start, end)}
            # never across zero: a span from -1 to 0 is no span; the nearest first
            found += [Change(name, at, "flatten_span", (s, e), "axis",
                             f"`{quote(ast.Call(node.func, [*node.args[:0 if is_method(node) else 1], signed(s), signed(e)], []))}` "
                             f"for `{quote(node)}`", line)
                      for s, e in sorted(moved, key=lambda p: (abs(p[0] - start), p)) if (s < 0) == (e < 0) and s < e]
        listed = _entries(node) if called in _ORDERED else None
        if listed is not None:
            elts = entries_of(listed)
            for i, j in combinations(range(len(elts)), 2):
                if ast.dump(elts[i]) != ast.dump(elts[j]):
                    found.append(Change(name, index[id(listed)], "swap_entries", (i, j), "order",
                                        f"`{quote(elts[j])}` and `{quote(elts[i])}` exchanged in `{quote(node)}`", line))
    return found


def transposed_partner(node: ast.AST) -> ast.expr | None:
    """X in `a @ X.transpose(-2, -1)` (or `.transpose(-1, -2)`, `.mT`, `.T`, `.t()`); None for another node."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)):
        return None
    right = node.right
    if isinstance(right, ast.Attribute) and right.attr in ("mT", "T"):
        return right.value
    if isinstance(right, ast.Call) and is_method(right) and not right.keywords:
        axes = [number_of(a) for a in right.args]
        if (call_name(right) == "t" and not axes) or (call_name(right) == "transpose" and axes in ([-2, -1], [-1, -2])):
            return right.func.value
    return None


def half_casts(node: ast.AST) -> list[ast.Call]:
    """The `x.half()` and `x.bfloat16()` calls inside the statement `node`, in reading order, where
    one is met by more of the statement than the cast itself (`p.half() @ v`, `(...).half().to(d)`);
    a statement whose whole value is one cast keeps its half-width result, which the check's words
    for a dtype already say (and a call taken off mends)."""
    whole = getattr(node, "value", None)
    found = [n for n in ast.walk(node) if is_half_cast(n)]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset)) if found and found != [whole] else []


def _chained(node: ast.AST) -> bool:
    """`a.f(...).g(...)`: a method called on what another method of a tensor returned, two different
    calls; not where `a` is a module, an object's attribute or a number (`self.proj(x).transpose(...)`,
    `torch.nn.functional.softmax(x).sum()`), whose `g` would be asked of the wrong owner."""
    if not (isinstance(node, ast.Call) and is_method(node) and isinstance(node.func.value, ast.Call)
            and is_method(node.func.value) and call_name(node) != call_name(node.func.value)):
        return False
    receiver = node.func.value.func.value
    return not isinstance(receiver, (ast.Attribute, ast.Constant)) and not (isinstance(receiver, ast.Name) and receiver.id == "self")


def _squeezed_side(node: ast.AST) -> int | None:
    """0 or 1: the side of `a.squeeze(d) + b` (or `-`, `*`, `/`) that is squeezed, given one axis, where
    the other is not; None for anything else."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div))):
        return None
    squeezed = [isinstance(s, ast.Call) and is_method(s) and call_name(s) == "squeeze" and len(s.args) == 1 and not s.keywords
                for s in (node.left, node.right)]
    return squeezed.index(True) if squeezed.count(True) == 1 else None


def _span(node: ast.Call) -> tuple[int, int] | None:
    """(start, end) of `x.flatten(a, b)` or `torch.flatten(x, a, b)`, written as numbers; a start
    left out is 0, an end left out -1 (`x.flatten()` joins every axis)."""
    axes = [number_of(a) for a in node.args[(0 if is_method(node) else 1):]]
    if node.keywords or len(axes) > 2 or not all(type(a) is int for a in axes):
        return None
    return (*axes, 0, -1)[:2] if not axes else (axes[0], axes[1] if len(axes) == 2 else -1)


def _count_first(node: ast.AST) -> bool:
    """`a, b, c = x.view(3, ...)`: as many names as the view's first size, a number, of three sizes or more."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)):
        return False
    call = node.value
    if not (isinstance(call, ast.Call) and is_method(call) and call_name(call) in ("view", "reshape") and not call.keywords):
        return False
    sizes = entries_of(call)
    return len(sizes) >= 3 and number_of(sizes[0]) == len(node.targets[0].elts) and not any(isinstance(a, ast.Starred) for a in sizes)


def api_words(node: ast.AST, change: Change, fdef: ast.FunctionDef, parents: dict[int, ast.AST]) -> str | None:
    """The mistake one of these mends mends, in words; None for another change."""
    op = change.op
    if op == "alias_copy" and isinstance(node, ast.Name):
        line, written = _written_in_place(fdef, (str(change.arg), node.id), change.line or 0) or (None, str(change.arg))
        other = node.id if written == change.arg else change.arg
        return (f"`{change.arg} = {node.id}` copies nothing: both names are one tensor, so writing into `{written}` "
                f"in place (line {line}) changes `{other}` too; `{node.id}.clone()` is a copy")
    if op == "roll_back":
        back = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
        return (f"roll moves every entry by its shift (entry r goes to r + shift), towards the end when the shift is "
                f"positive: `{quote(node)}` moves them towards the {'FRONT' if back else 'END'}, `{quote(negated(node))}` "
                "the other way")
    offset = parents.get(id(node))
    if op == "diagonal_sign" and _shifted_difference(offset) and offset.left is node:  # `j0 - i0 + 1`: the difference turned
        turned = ast.BinOp(negated(node), offset.op, offset.right)
        return (f"the difference in the diagonal's offset taken the wrong way round: the offset counts from the main "
                f"diagonal upwards, so `{quote(offset)}` and `{quote(turned)}` lie on opposite sides of diagonal "
                f"{quote(offset.right) if isinstance(offset.op, ast.Add) else '-' + quote(offset.right)} "
                f"(wherever `{quote(node.left)}` and `{quote(node.right)}` differ)")
    if op == "diagonal_sign":
        value = number_of(node)
        if isinstance(value, (int, float)):  # a side only for a number: `-k` may be either, as k's sign is
            side = "below" if value < 0 else "above"
            return (f"the diagonal's offset counts from the main diagonal upwards: `{quote(node)}` is the diagonal {side} it, "
                    "and the negated offset the one on the other side")
        return (f"the diagonal's offset counts from the main diagonal upwards: `{quote(node)}` and "
                f"`{quote(negated(node))}` lie on opposite sides of it (wherever they are not 0)")
    if op == "scatter_add" and scatter_parts(node) is not None:
        tensor, src = (quote(p) for p in scatter_parts(node)[:2])
        return (f"`{quote(node)}` puts `{src}` IN PLACE of the slice: what `{tensor}` held there is gone, nothing is "
                f"added, so only the last share written to it is kept; adding it is `index_add` (or `+=` into the slice)")
    if op == "finfo_field" and isinstance(node, ast.Attribute) and node.attr in _FINFO:
        return (f"`{quote(node)}` is {_FINFO[node.attr]}, and `{quote(node.value)}.{change.arg}` is "
                f"{_FINFO[change.arg]}")
    if op == "all_axes" and isinstance(node, ast.Attribute):
        meant = ("each matrix's transpose, the last two axes exchanged" if change.arg == "mT" else
                 "the last axis brought to the front, the others kept in their order")
        return (f"`{quote(node)}` reverses the order of EVERY axis of `{quote(node.value)}` (NumPy's `.T` of a matrix "
                f"is its transpose; torch warns of `.T` on any tensor but a matrix), so a batch's axes come out "
                f"reversed; `{quote(mend_edit(node, change))}` is {meant}")
    if op == "like_dtype" and isinstance(node, ast.Call):
        copied = quote(node.args[0]) if node.args and not is_method(node) else "its tensor"
        return (f"`{quote(node)}` copies the dtype of `{copied}` as well as its size, so it is made of that type's numbers "
                "(whole numbers, where that tensor holds indices); `dtype=torch.float32` makes a float tensor")
    if op == "numel_axis" and isinstance(node, ast.Call) and call_name(node) == "len":
        return (f"`{quote(node)}` is the length of `{quote(measured_by(node))}`'s FIRST axis only (a batch's size, where "
                "it has one), as for a list; the length of another axis is `.shape[d]`")
    if op == "numel_axis" and isinstance(node, ast.Call):
        return (f"`{quote(node)}` counts every entry of `{quote(measured_by(node))}`, all its axes' lengths multiplied, not "
                "the length of one axis")
    if op == "last_two" and isinstance(node, ast.Call) and call_name(node) == "t":
        return (f"`{quote(node)}` is a matrix's transpose and refuses more than two axes; with a batch or heads in "
                "front, (..., T, d), the matrix's two axes are the last two, `transpose(-2, -1)`")
    if op == "last_two" and isinstance(node, ast.Call):
        return (f"`{quote(node)}` exchanges the FIRST two axes; with a batch or heads in front, (..., T, d), a matrix's "
                "two axes are the last two, `transpose(-2, -1)`")
    if op == "count_first" and isinstance(node, ast.Call):
        count = quote(node.args[0])
        return (f"`{quote(node)}` puts the {count} first, as if the {count} parts lay one after another in memory; a "
                f"fused output holds each row's parts side by side on its last axis, so the {count} belongs among "
                "the sizes that cut that axis, then unpacked along it")
    if op == "matmul" and isinstance(node, ast.BinOp):
        return (f"`{quote(node)}` multiplies entry by entry, lining the two tensors up by broadcasting (MATLAB's `.*`); "
                "the matrix product is `@`")
    if op == "out_of_place" and in_place_call(node) is not None:
        owner, method = quote(node.func.value), node.func.attr
        return (f"`{quote(node)}` changes `{owner}` itself (`{method}` works in place): its result keeps `{owner}`'s dtype (an "
                f"integer tensor cannot take a float result), and a read of `{owner}` after it finds the new values; "
                f"`{quote(mend_edit(node, change))}` makes a new tensor and leaves `{owner}` as it was")
    if op == "entrywise" and matrix_sides(node) is not None:
        a, b = matrix_sides(node)
        entrywise = quote(ast.BinOp(a, ast.Mult(), b))
        return (f"`{quote(node)}` is a matrix product (MATLAB's `*`): each entry sums products along the inner axis; "
                f"entry by entry, MATLAB's `.*`, is `{entrywise}`")
    if op == "elementwise" and isinstance(node, ast.BinOp) and transposed_partner(node) is not None:
        a, b = (quote(side) for side in (node.left, transposed_partner(node)))
        entrywise = quote(ast.BinOp(node.left, ast.Mult(), transposed_partner(node)))  # bracketed where a side needs it
        return (f"`{quote(node)}` takes the dot product of every row of `{a}` with every row of `{b}`, a grid of them; "
                f"`{entrywise}` multiplies each entry by its own partner, row with row, so that a sum along the last axis "
                "gives each row's dot product with its own row alone")
    if op == "no_half":
        casts = half_casts(node)
        return (f"{', '.join(f'`{quote(c)}`' for c in casts)} cast{'s' if len(casts) == 1 else ''} to a float of half "
                "the width: numbers keep about three significant digits (casting back does not bring the others back), "
                "and a mask or an index is no longer bool or whole numbers")
    if op == "bool_mask":
        return (f"`attn_mask` hides cells only as a bool mask (True = may attend), as `{quote(node)}.bool()` is: a float "
                "one is ADDED to the scores (ones to keep and zeros to hide then hide nothing), and one of whole "
                "numbers is refused")
    if op == "chain_swap" and _chained(node):
        first, then = call_name(node.func.value), call_name(node)
        return (f"`{quote(node)}` runs `{first}` first and `{then}` on its result: a chain runs from left to right, "
                f"and `{then}` after `{first}` is not `{first}` after `{then}`")
    if op == "squeeze_whole" and isinstance(node, ast.BinOp):
        squeezed = (node.left, node.right)[change.arg]
        return (f"`{quote(squeezed)}` squeezes one side of `{quote(node)}` before the two meet, not their result: "
                "broadcasting lines the sides up from their last axes, so squeezing first can change which axes meet "
                "(a (n,) against an (n, 1) makes an (n, n) grid)")
    if op == "flatten_span" and isinstance(node, ast.Call):
        start, end = _span(node)
        given = len(node.args) - (0 if is_method(node) else 1)
        joined = (", given no axes, joins EVERY axis into one, as NumPy's ravel does" if not given else
                  f"joins the axes from {start} through {end}, both included, whatever they hold at that point")
        return f"`{quote(node)}`{joined if not given else ' ' + joined}; the axes to join there are {change.arg[0]} through {change.arg[1]}"
    if op == "swap_entries":
        call = node if isinstance(node, ast.Call) else parents.get(id(node))
        called = call_name(call) if isinstance(call, ast.Call) else None
        if called == "as_strided":
            return "as_strided pairs each size with the stride in the same place: the strides are listed in another order than the sizes"
        if called == "permute":
            return "two axes exchanged in `permute(...)`: its k-th entry names the axis that goes to place k"
        if called in _MADE:
            return f"two entries exchanged in the list `{called}(...)` is made of: entry k of the list is what index k picks"
        return (f"two sizes exchanged in `{called}(...)`: it reads the numbers in memory's order and only cuts them "
                "anew, so the sizes must follow that order (`transpose` or `permute` moves numbers)")
    return None
