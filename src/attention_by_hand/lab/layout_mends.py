"""Ten mends of where an axis goes, tried on a learner's code only.

- `axis_place`: `torch.arange(T)[None] - torch.arange(T)`, meant as the query numbers down a column
  minus the key numbers along a row. `None` in an index adds an axis of size 1 just where it stands,
  so `[None]` adds it in front, a (1, T) row, and the difference is a row of zeros; `[:, None]`
  adds it after the first axis, a (T, 1) column. The mend moves the one `None` of an index made
  only of `None`, slices and `...` to each other place in it, and turns `[None]` into `[:, None]`:
  `lse[..., None, a:b]` is a (1, b - a) row where `lse[..., a:b, None]`, a column, was meant.
- `transpose_first`: `t.reshape(n_heads, d // n_heads, T)` on a (T, d) tensor, meant as its columns
  cut into heads with the tokens last. `reshape` reads the entries in row-major order (the last
  axis fastest) and regroups them: it never moves an axis, so each piece mixes several tokens. The
  mend moves the last two axes first, `t.transpose(-2, -1).reshape(...)`. Tried on every
  `reshape`, as a tensor's method or as `torch.reshape(t, ...)`. Not on a `view`: one that raises
  on a transposed tensor is mended by `reshape` alone, and a transpose put before it then mends
  only where what follows forgives the order (a mean over the regrouped axis).
- `ellipsis_for`: `pattern[:, 1:, :1]` on a (batch, heads, T, T) tensor, meant as the rows from 1
  and the first column. `:` in an index stands for ONE axis, so the cuts after it fall on the axes
  counted from the front: `1:` cuts the heads. `...` stands for every axis before the cuts that
  follow it, which then count from the end. The mend puts `...` in place of the `:`s an index
  starts with, tried on every index of two or more slices that starts with `:` (an int, a `None`
  or a tensor in it is left out: it picks, adds or gathers where the words speak of slices).
- `ellipsis_as_axes`: `new_keys[..., :T] = keys` on a (B, heads, time, head_size) cache, meant as
  the first T places of the time axis. `...` stands for every axis before the cuts that follow it,
  so `:T` falls on the LAST axis, head_size. The mend puts one, two or three `:` in place of an
  index's leading `...` (the cuts then fall on the axes counted from the front), read or written,
  where only cuts follow the `...` (not a whole `:`, which places them from the end on purpose).
- `one_bracket`: `p[:, :, r][:, :, :, r - 1]`, meant as row r[i] with column r[i] - 1, the way
  two index tensors pair up in one bracket. Apart, each bracket picks along its own axis, so the
  second takes every column r - 1 of every row r picked: a block, not its pairs. The mend joins
  them, `p[:, :, r, r - 1]`, where the second bracket keeps the first's places whole (`:`) and adds
  one index after them, and the first holds no `...` (a varying count of axes) and no whole number
  (which drops its axis): then each place of the second is the same axis as in the first.
- `factor_transposed`: `torch.addmm(bias, q, k)`, taken to transpose its second matrix as `F.linear`
  does its weight, or `torch.matmul(q, k)` for the scores. A matrix product multiplies its factors as given, each
  row of the first with each COLUMN of the second; pairing each query with each key (row with row)
  needs `k.transpose(-2, -1)`. The mend transposes one factor (its last two axes), tried on each
  factor of a call of `matmul`, `mm`, `bmm`, `addmm`, `baddbmm` or `addbmm` that is no transpose
  already (an `@`'s sides are tried as the reference's changes are).
- `product_turned`: `proj.weight @ x + proj.bias`, a layer's weight applied as the textbook's
  y = W x + b, to x as a column. Here each token is a ROW of x, (T, d_in), and a layer's weight is
  (d_out, d_in): `nn.Linear` computes x @ W^T + b. `W @ x` raises, or, where T equals d_in, mixes the
  tokens instead of the channels. The mend turns the product, `x @ proj.weight.T`, tried at every
  matrix product (`@`, `matmul`, `mm`, `bmm`) whose left factor is a `.weight` or a name that starts
  with a capital W; and where the product's layer's own `.bias` is added to it, the mend applies the
  layer, `proj(x)`, which adds a bias only where the layer has one.
- `squeezed`: `lses.append(m + torch.log(l))` where `m` and `l` keep a last axis of size 1 (made with
  `keepdim=True`): the pieces are joined later along their LAST axis, that axis of size 1, not the rows'.
  The mend drops it before the piece is kept, `(m + torch.log(l)).squeeze(-1)`, tried at every
  `.append(...)` of one argument.
- `colon_dropped`: `pattern[:, :, 1, 0]` for `pattern[:, :, 1:, 0]`, a colon left out: a whole number
  in an index picks the one entry there and DROPS that axis, so the rows from 1 on become row 1 alone and
  every axis after it moves down one. The mend puts the colon back, `1:`. Tried at every whole number
  from 1 up written in an index that is read (not of a `.shape`).
- `vector_transposed`: `i > i.T` for a vector `i = torch.arange(T)`, meant as the positions down a column against
  the same along a row, as MATLAB's `i'` turns a row into a column. `.T` reverses a tensor's axes, and a vector
  has one: it comes back as it was (NumPy's `.T` alike; torch warns). The mend makes the column, `i[:, None]`.
  Tried at every `.T` and `.t()` but of `atleast_1d(...)` (its rename, neighbours.py, says that one's `.T`).
- `transpose_dropped`: `scores + alibi_bias(T, slope).T`, a table transposed that already had its rows and
  columns where they are used (rows the queries, as the scores'), so each entry meets the other's. The mend
  takes the transpose away. Tried at every `.T` and `.mT`.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
Left out: an index with two `None`, and `unsqueeze` (another axis number, mutants.py, mends that).
"""

from __future__ import annotations

import ast
import dataclasses

from attention_by_hand.lab.call_meanings import CALLS
from attention_by_hand.lab.call_words import LAYOUT_CALLS
from attention_by_hand.lab.code_layout import call_name, function_form, kept_part, none_part, statement_lines, transposed_of, whole_slice
from attention_by_hand.lab.mend_edits import mend_edit
from attention_by_hand.lab.mutant_edits import TRANSPOSES, Change, quote
from attention_by_hand.lab.product_edits import matrix_sides

__all__ = ["LAYOUT_OPS", "layout_mends", "layout_words", "leading_wholes"]

LAYOUT_OPS = ("axis_place", "transpose_first", "ellipsis_for", "ellipsis_as_axes", "one_bracket", "factor_transposed",
              "product_turned", "squeezed", "colon_dropped", "vector_transposed",
              "transpose_dropped")
_REGROUPS = ("reshape",)
_PRODUCTS = {"matmul": 0, "mm": 0, "bmm": 0, "addmm": 1, "baddbmm": 1, "addbmm": 1}  # -> where the two factors start
_TRANSPOSES = (*TRANSPOSES, "mT", "T", "mH", "H", "adjoint", "swapaxes", "swapdims")  # calls, then attributes


def _placings(index: ast.expr) -> list[str]:
    """The same index with its one `None` moved to each other place (`[None]` also made `[:, None]`),
    as source; none where the index holds anything but one `None`, slices (`:`, `a:b`) and `...`: a
    whole number or a tensor in it drops or gathers an axis, and the places no longer count alike."""
    parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    if sum(none_part(p) for p in parts) != 1 or not all(none_part(p) or kept_part(p) or isinstance(p, ast.Slice) for p in parts):
        return []
    kept = [ast.unparse(p) if not whole_slice(p) else ":" for p in parts if not none_part(p)]
    at = next(i for i, p in enumerate(parts) if none_part(p))
    placings = [kept[:i] + ["None"] + kept[i:] for i in range(len(kept) + 1) if i != at]
    if not kept:  # `[None]`: the axis after the first one
        placings.append([":", "None"])
    return [", ".join(p) for p in placings]


def leading_wholes(index: ast.expr) -> int:
    """How many `:` an index of two or more places, all of them slices, starts with (else 0)."""
    parts = index.elts if isinstance(index, ast.Tuple) else []
    if len(parts) < 2 or not all(isinstance(p, ast.Slice) for p in parts):
        return 0
    count = next((i for i, p in enumerate(parts) if not kept_part(p)), len(parts))
    return count if count < len(parts) else 0


def _index_text(node: ast.Subscript) -> str:
    """The index of `node` as written, brackets and all: `[:, None]` (whatever its owner unparses to)."""
    return ast.unparse(ast.Subscript(ast.Name("_", ast.Load()), node.slice, ast.Load()))[1:]


def _regrouped(node: ast.AST) -> ast.expr | None:
    """What a `reshape` regroups: a method's owner, or `torch.reshape`'s first argument."""
    if not (isinstance(node, ast.Call) and call_name(node) in _REGROUPS and isinstance(node.func, ast.Attribute)):
        return None
    owner = node.func.value
    if isinstance(owner, ast.Name) and owner.id == "torch":
        return node.args[0] if node.args else None
    return owner


def _factors(node: ast.AST) -> list:
    """Where the factors of a matrix product's call are among its arguments, leaving out a factor
    that is a transpose already; [] for another node (an `@`'s sides are transposed as the
    reference's changes are, mutant_arithmetic.py)."""
    if isinstance(node, ast.Call) and call_name(node) in _PRODUCTS:
        first = _PRODUCTS[call_name(node)] - (not function_form(node))  # a method's owner is its first factor (or its added input)
        places = {i: node.args[i] for i in range(max(first, 0), first + 2) if i < len(node.args)}
    else:
        return []
    return [place for place, factor in places.items() if not (
        isinstance(factor, ast.Call) and call_name(factor) in _TRANSPOSES) and not (
        isinstance(factor, ast.Attribute) and factor.attr in _TRANSPOSES) and not isinstance(factor, ast.Starred)]


def _weight_first(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """(W, x) of `W @ x` (or a call of matmul, mm or bmm), where W is a `.weight` or a name that starts
    with a capital W, and x no starred argument; None for another node."""
    sides = matrix_sides(node)
    if sides is None or isinstance(sides[1], ast.Starred):
        return None
    weight = sides[0]
    named = (isinstance(weight, ast.Attribute) and weight.attr == "weight") or (
        isinstance(weight, ast.Name) and weight.id.startswith("W"))
    return sides if named else None


def turned(node: ast.AST) -> str | None:
    """The product turned: `x @ W.T` for `W @ x`, and `layer(x)` for `layer.weight @ x + layer.bias`
    (the layer applied, bias and all, where it may have none); None for another node."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and (sides := _weight_first(node.left)):
        weight, x = sides
        bias = node.right
        if (isinstance(weight, ast.Attribute) and isinstance(bias, ast.Attribute) and bias.attr == "bias"
                and ast.dump(bias.value) == ast.dump(weight.value)):
            return f"{ast.unparse(weight.value)}({ast.unparse(x)})"  # whole: mend_edits parses it
        return None
    sides = _weight_first(node)
    turn = "mT" if isinstance(node, ast.Call) and call_name(node) == "bmm" else "T"  # `.T` of a batch reverses every axis
    return f"({ast.unparse(sides[1])}) @ ({ast.unparse(sides[0])}).{turn}" if sides else None


def joined(node: ast.AST) -> str | None:
    """The index of `x[a][b]` as one bracket, where `b` keeps every place of `a` whole and adds one
    index after them (`[:, :, r][:, :, :, c]` -> `:, :, r, c`), and `a` holds a tensor's index (not
    slices alone, which keep their axes and pair nothing); else None."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)):
        return None
    first, second = (s.elts if isinstance(s, ast.Tuple) else [s] for s in (node.value.slice, node.slice))
    if len(second) != len(first) + 1 or not all(kept_part(e) and not isinstance(e, ast.Constant) for e in second[:-1]):
        return None
    if isinstance(second[-1], ast.Slice) or all(isinstance(e, ast.Slice) for e in first):
        return None
    if any(isinstance(e, ast.Constant) for e in first):  # `...` spans a varying count of axes, an int drops one
        return None
    return ", ".join(ast.unparse(e) for e in (*first, second[-1]))


def _after_ellipsis(index: ast.expr) -> bool:
    """An index that starts with `...` followed by cuts alone (no `:`, no `None`, int or tensor, which
    add, pick or gather where the words speak of cuts): `[..., :T]`."""
    return (isinstance(index, ast.Tuple) and len(index.elts) > 1 and isinstance(index.elts[0], ast.Constant)
            and index.elts[0].value is Ellipsis and all(isinstance(e, ast.Slice) and not kept_part(e) for e in index.elts[1:]))  # cuts only; `[..., i:j, :]` counts from the end on purpose


def _colons(index: ast.expr) -> list[str]:
    """The index written once with each whole number from 1 up in it made a slice from it (`1, 0` ->
    `1:, 0`): a colon left out."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    made = []
    for i, part in enumerate(parts):
        if isinstance(part, ast.Constant) and type(part.value) is int and part.value >= 1:
            made.append(", ".join(f"{p.value}:" if j == i else ast.unparse(p) for j, p in enumerate(parts)))
    return made


def layout_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The changes of `fdef` the module's docstring lists."""
    found, lines = [], statement_lines(fdef)

    def add(node: ast.AST, op: str, arg, kind: str) -> None:
        change = Change(fdef.name, index[id(node)], op, arg, kind, "", lines[id(node)])
        found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(node, change))}` for `{quote(node)}`"))

    for node in ast.walk(fdef):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            for placing in _placings(node.slice):
                add(node, "axis_place", placing, "index")
        read = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
        sizes = read and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"  # a size, not entries
        for colon in _colons(node.slice) if read and not sizes else ():
            add(node, "colon_dropped", colon, "slice")
        if _regrouped(node) is not None:
            add(node, "transpose_first", None, "transpose")
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and leading_wholes(node.slice):
            add(node, "ellipsis_for", None, "index")
        one = joined(node) if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) else None
        if one:
            change = Change(fdef.name, index[id(node)], "one_bracket", one, "index", "", lines[id(node)])
            found.append(dataclasses.replace(change, said=f"`{quote(node.value.value)}[{one}]` for `{quote(node)}`"))
        for wholes in range(1, 4) if isinstance(node, ast.Subscript) and _after_ellipsis(node.slice) else ():
            index_text = ", ".join([":"] * wholes + [ast.unparse(e) for e in node.slice.elts[1:]])
            add(node, "ellipsis_as_axes", index_text, "index")
        if (product := turned(node)) is not None:
            add(node, "product_turned", product, "transpose")
        if (isinstance(node, ast.Call) and call_name(node) == "append" and len(node.args) == 1 and not node.keywords
                and not isinstance(node.args[0], ast.Starred)):
            piece = node.args[0]
            add(piece, "squeezed", f"({ast.unparse(piece)}).squeeze(-1)", "index")
        # not of `atleast_1d(...)`: its rename to `atleast_2d` (neighbours.py) says that call's `.T` with it
        if (owner := transposed_of(node)) is not None and not (isinstance(owner, ast.Call) and call_name(owner).startswith("atleast_")):
            add(node, "vector_transposed", f"{ast.unparse(owner)}[:, None]", "transpose")
        if isinstance(node, ast.Attribute) and (owner := transposed_of(node, "mT")) is not None:
            add(node, "transpose_dropped", ast.unparse(owner), "transpose")
        for place in _factors(node):
            change = Change(fdef.name, index[id(node)], "factor_transposed", place, "transpose", "", lines[id(node)])
            factor = quote(node.args[place])
            found.append(dataclasses.replace(change, said=f"`{factor}.transpose(-2, -1)` for `{factor}`"))
    return found


def layout_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a change of the module's docstring mends, in words."""
    if change.op == "transpose_dropped" and isinstance(node, ast.Attribute) and (owner := transposed_of(node, "mT")) is not None:
        return (f"a transpose too many: `{quote(owner)}` already has its rows and columns where they are used, and "
                f"`.{node.attr}` swaps them, so what was meant for [i, j] lands at [j, i]")
    if change.op == "vector_transposed" and transposed_of(node) is not None:
        return (f"`{quote(node)}` of a vector is the vector as it was: a transpose reverses the axes, and a 1-D tensor has "
                f"one (NumPy's `.T` alike; MATLAB's `'` is what turns a row into a column); a column is "
                f"`{quote(transposed_of(node))}[:, None]`")
    if change.op == "ellipsis_for" and isinstance(node, ast.Subscript):
        return (f"`:` in an index stands for ONE axis, so in `{_index_text(node)}` the slices after it fall on the axes "
                f"counted from the front; after `...`, which stands for every axis before them, they fall on the last "
                f"axes: `{_index_text(mend_edit(node, change))}`")
    if change.op == "axis_place" and isinstance(node, ast.Subscript):
        return (f"the new axis in the wrong place: `None` in an index adds an axis of size 1 just where it stands "
                f"(for a vector: `v[None]` is a (1, n) row, `v[:, None]` an (n, 1) column): `[{change.arg}]` for "
                f"`{_index_text(node)}`")
    if change.op == "one_bracket" and joined(node):
        return ("two brackets index apart: the second picks along its own axis from everything the first picked, "
                "so every index of one meets every index of the other (a block); in ONE bracket, index tensors pair "
                "up entry by entry")
    if change.op == "ellipsis_as_axes" and isinstance(node, ast.Subscript):
        return (f"`...` in `{_index_text(node)}` stands for every axis before the cuts after it, so they fall on the LAST "
                f"axes, counted from the end; `[{change.arg}]` puts them after whole axes counted from the front")
    if change.op == "factor_transposed" and change.arg in _factors(node):
        factor = node.args[change.arg]
        # a layout call the factor ends with, taken for a transpose (`k.conj()`, MATLAB's `k'`): what it does
        last = call_name(factor) if isinstance(factor, ast.Call) and call_name(factor) in LAYOUT_CALLS else None
        return (f"`{quote(factor)}` goes into the matrix product `{call_name(node)}` as it is: a matrix product "
                "multiplies each row of its first matrix with each COLUMN of its second and transposes neither (`@`, "
                "`matmul`, `mm` and `addmm` alike, unlike `F.linear` with its weight)"
                + (f"; `{last}` {CALLS[last]}" if last else ""))
    if change.op == "product_turned" and turned(node):
        weight = quote((_weight_first(node) or _weight_first(node.left))[0])
        return (f"`{weight}` applied as the textbook's W x, to a column: here each token is a ROW, and a layer's weight "
                "is (out, in), so `nn.Linear` computes x @ W^T + b" + (" (and adds its bias only where it has one)"
                                                                          if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) else ""))
    if change.op == "colon_dropped" and isinstance(node, ast.Subscript):
        return (f"a colon left out of `{_index_text(node)}`: a whole number in an index picks that one entry and DROPS "
                f"its axis, so each axis after it moves down one; `[{change.arg}]` keeps the entries from it on")
    if change.op == "squeezed":
        return (f"`{quote(node)}` keeps a last axis of size 1, so the pieces are joined along THAT axis, not the one "
                f"meant; `.squeeze(-1)` drops it before the piece is kept")
    if change.op == "transpose_first":
        return f"no transpose before `reshape`: `reshape` {CALLS['reshape']}, so the last two axes must be swapped first"
    return None
