"""Nine mends of what a loop, an unpacking, a product or a comparison is given, tried on a learner's code only.

- `items`: `for norm, branch in {ln1: attn, ln2: mlp}:`, a dict walked as if it gave pairs. Walking
  a dict gives its keys alone, so each key is unpacked into the loop's names (and raises, or splits
  a key that happens to be a pair). The mend walks `.items()`. Tried at every `for` whose target is
  a tuple and whose iterable is a dict written in the loop's header, or a name the function binds
  once, to a dict written there.
- `other_factor`: `torch.mm(cur, nxt.t())` where `torch.mm(cur.t(), nxt)` was meant, the transpose
  on the wrong factor of a matrix product. `a @ b.T` pairs the rows of `a` with the rows of `b`;
  `a.T @ b` pairs their columns. The mend moves the transpose, as it was written (`.t()`, `.T`,
  `.mT`, or a tensor's `.transpose(...)` of its last two axes or its first two), from one factor to
  the other. Tried at every `@`, `mm`, `bmm` and `matmul` with one factor transposed and the other
  not.
- `outer`: `torch.eq(ids, torch.arange(V))` taken to compare every id with every number, as a
  table; a comparison pairs entry i with entry i (and broadcasts only axes of size 1), so it raises
  or gives one row. The mend gives one side an axis of size 1 at the end, `ids.unsqueeze(-1)`,
  which makes the (n, V) table; the second side where it is the one meant down the rows
  (`kj > qi.unsqueeze(-1)`: each query position against every key position). Tried at every
  comparison of two sides, written with `==`, `!=`, `<`, `<=`, `>` or `>=` (not chained), or with
  `eq`, `ne`, `lt`, `le`, `gt` or `ge`, on each side. Where both sides count positions (`arange`),
  they may hold the same numbers (a diagonal block): `rows > cols.unsqueeze(-1)` is then the same table
  as `rows.unsqueeze(-1) < cols`, and the outputs cannot say which side the learner meant down the
  rows, so the words give both. Not on a side given an axis already (`rows = x.unsqueeze(0)`): it
  is no 1-D side, and another axis mends it, where it does, by another road.
- `walk_last`: `for s in scores:`, meant to take the scores one column at a time, as a running
  softmax reads them. A `for` over a tensor walks its FIRST axis: a matrix gives whole rows. The
  mend walks `scores.unbind(-1)`, the last axis. Tried at every `for` over a name, an attribute or
  an index (`for s in scores`, `for s in x.T`, `for s in x[0]`), whatever it holds: where it holds
  no tensor, the mended loop raises and is not kept.
- `unpack_axis`: `a, b = u`, meant to split another axis (the pair of each channel). Unpacking a
  tensor walks its first axis, as a `for` does: the names get the first axis's entries (and it
  raises where their count does not fit). The mend unpacks `u.unbind(-1)` or `u.unbind(-2)`.
  Tried at every assignment to a tuple or a list of names from a name, an attribute (not a
  `.shape`) or an index.
- `builtin_sum`: `e / sum(e)`, Python's own `sum` taken for a total along each row. The built-in
  walks a tensor's first axis as a `for` does and adds what it gets, so a matrix gives its column
  totals. The mend totals each row with torch's own, `e.sum(dim=-1, keepdim=True)` (or without
  `keepdim`). Tried at every call of the bare name `sum` with one argument that may be a tensor
  (a name, an attribute, an index or a call; not a list, a generator or a starred argument). With
  two arguments, `sum(x, branch)` read as `x + branch`: the second is where the built-in STARTS, and it
  adds x's slices along the first axis to it; the mend is `x + branch`.

- `row_side`: `torch.matmul(p, dp.unsqueeze(-1))`, meant as each row of `p` times its own row of
  `dp`, one number per row. Only one side was shaped: the (..., n, 1) columns meet the whole (..., n)
  rows of `p`, every row with every column. The mend gives the other side its axis too,
  `p.unsqueeze(-2)` (a (1, n) row each), or `.unsqueeze(-1)` on the right where the left has
  `.unsqueeze(-2)`. Tried at every `@`, `mm`, `bmm` and `matmul` with one side unsqueezed so and
  the other not unsqueezed at all.
- `vector_column`: `e / (e @ torch.ones(n))`, each row's sum taken as a product with a vector of
  ones, as NumPy's `e @ np.ones(n)` is. A matrix times a 1-D vector drops that axis: the sums have
  shape (rows,), and dividing lines them up with the COLUMNS. The mend makes the vector a column,
  `torch.ones(n, 1)`, so the product keeps it, (rows, 1). Tried at the right factor of every `@`,
  `mm`, `bmm` and `matmul` that is a call of `ones` or `zeros` given one size.
- `enumerate_pairs`: `for a, b in enumerate(ids[1:]):`, meant to walk each item with the next.
  `enumerate` hands each item's POSITION first, then the item: `a` counts 0, 1, ..., and `b` is the
  next item, so `counts[a, b]` counts positions, not items. The mend pairs the items,
  `zip(ids[:-1], ids[1:])`. Tried at every `for` over two names whose iterable is `enumerate` of one
  argument with one slice `[1:]` or `[:-1]` in it (the pairs are that argument cut both ways).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
Left out: a dict built by `dict(...)` or a comprehension, and a product of more than two factors
written as one call.
"""

from __future__ import annotations

import ast
import dataclasses

from attention_by_hand.lab.code_layout import bound_once, compared_sides, function_form, transposed_of
from attention_by_hand.lab.mend_edits import mend_edit
from attention_by_hand.lab.mutant_edits import Change, call_name, number_of, quote
from attention_by_hand.lab.product_edits import matrix_sides, moved_transpose, unsqueezed

__all__ = ["OPERAND_OPS", "operand_mends", "operand_words"]

OPERAND_OPS = ("items", "other_factor", "outer", "walk_last", "builtin_sum", "unpack_axis", "row_side", "vector_column",
               "enumerate_pairs")
_VECTOR_MAKERS = ("ones", "zeros")  # given one size, a 1-D vector
COMPARING = ("eq", "ne", "lt", "le", "gt", "ge")
_ORDERS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)  # entry by entry; `is` and `in` compare otherwise


_TURNED = {"Gt": "<", "GtE": "<=", "Lt": ">", "LtE": ">=", "Eq": "==", "NotEq": "!=",
           "gt": "<", "ge": "<=", "lt": ">", "le": ">=", "eq": "==", "ne": "!="}  # a comparison read from the other side


def _turned(node: ast.Compare | ast.Call, sides: list[ast.expr]) -> str:
    """`a.unsqueeze(-1) < b` for `a > b` (or `torch.gt(a, b)`): the first side down the rows, the comparison turned."""
    op = type(node.ops[0]).__name__ if isinstance(node, ast.Compare) else call_name(node)
    return f"{ast.unparse(unsqueezed(sides[0]))} {_TURNED[op]} {ast.unparse(sides[1])}"


def _counts(fdef: ast.FunctionDef) -> set[str]:
    """The names `fdef` binds once, each to an expression that calls `arange` (a count of positions)."""
    return {name for name, value in bound_once(fdef).items() if _counted(value, set())}


def _axes_given(node: ast.AST, bound: dict[str, ast.expr]) -> bool:
    """Whether a side is given an axis already, as written or where a name is bound once: `x.unsqueeze(0)`,
    `x[None]`, `x.view(1, -1)`. Such a side is no 1-D one lined up with the other's last axis, and an
    axis added to it mends, where it does, by another road than the slip."""
    node = bound.get(node.id, node) if isinstance(node, ast.Name) else node
    if isinstance(node, ast.Subscript):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(isinstance(p, ast.Constant) and p.value is None for p in parts)
    return isinstance(node, ast.Call) and (call_name(node) == "unsqueeze" or (
        call_name(node) in ("view", "reshape") and len(node.args) >= 2))


def _counted(node: ast.AST, counts: set[str]) -> bool:
    """Whether a side counts positions: it calls `arange`, or is a name bound once to what does."""
    if isinstance(node, ast.Name):
        return node.id in counts
    return any(isinstance(n, ast.Call) and call_name(n) == "arange" for n in ast.walk(node))


def _dicts(fdef: ast.FunctionDef) -> set[str]:
    """The names `fdef` binds once, each to a dict written out (`{a: b, ...}`)."""
    return {name for name, value in bound_once(fdef).items() if isinstance(value, ast.Dict)}


def _a_size(node: ast.AST) -> bool:
    """`x.shape` (or `x.shape[1:]`): a tuple of sizes, which is walked and unpacked as meant."""
    owner = node.value if isinstance(node, ast.Subscript) else node
    return isinstance(owner, ast.Attribute) and owner.attr == "shape"


def _unsqueezed_at(node: ast.AST, axis: int | None) -> bool:
    """`x.unsqueeze(axis)` (any axis, for None)."""
    return (isinstance(node, ast.Call) and call_name(node) == "unsqueeze" and isinstance(node.func, ast.Attribute)
            and len(node.args) == 1 and (axis is None or number_of(node.args[0]) == axis))


def _cut(node: ast.AST) -> str | None:
    """`1:` or `:-1`, the cut of a slice that drops one item from an end; None for another node."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None):
        return None
    lower, upper = node.slice.lower, node.slice.upper
    if upper is None and lower is not None and number_of(lower) == 1:
        return "1:"
    return ":-1" if lower is None and upper is not None and number_of(upper) == -1 else None


def _pairs_of(walked: ast.AST) -> str | None:
    """`zip(ids[:-1], ids[1:])` for `enumerate(ids[1:])` (`.tolist()` and the like kept), written out;
    None where the iterable is no `enumerate` of one argument holding one such cut."""
    if not (isinstance(walked, ast.Call) and isinstance(walked.func, ast.Name) and walked.func.id == "enumerate"
            and len(walked.args) == 1 and not walked.keywords):
        return None
    cuts = [n for n in ast.walk(walked.args[0]) if _cut(n) is not None]
    if len(cuts) != 1:
        return None
    whole, cut = quote(walked.args[0]), quote(cuts[0])
    bare = quote(cuts[0].value)
    sides = [whole.replace(cut, f"{bare}[{end}]", 1) for end in (":-1", "1:")]
    return f"zip({sides[0]}, {sides[1]})"


def operand_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The changes of `fdef` the module's docstring lists."""
    dicts, counts, bound, found = _dicts(fdef), _counts(fdef), bound_once(fdef), []
    for node in ast.walk(fdef):
        walked = node.iter if isinstance(node, ast.For) and isinstance(node.target, ast.Tuple) else None
        if isinstance(walked, ast.Dict) or (isinstance(walked, ast.Name) and walked.id in dicts):
            change = Change(fdef.name, index[id(walked)], "items", None, "call", "", node.lineno)
            found.append(dataclasses.replace(change, said=f"`{quote(walked)}.items()` for `{quote(walked)}`"))
        pairs = _pairs_of(walked) if walked is not None and len(node.target.elts) == 2 else None
        if pairs is not None:
            found.append(Change(fdef.name, index[id(walked)], "enumerate_pairs", pairs, "call",
                                f"`{pairs}` for `{quote(walked)}`", node.lineno))
        if isinstance(node, ast.For) and isinstance(node.iter, (ast.Name, ast.Attribute, ast.Subscript)) and not _a_size(node.iter):
            change = Change(fdef.name, index[id(node.iter)], "walk_last", None, "axis", "", node.lineno)
            found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(node.iter, change))}` for `{quote(node.iter)}`"))
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) \
                and isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)) and not _a_size(node.value):
            for axis in (-1, -2):
                change = Change(fdef.name, index[id(node.value)], "unpack_axis", axis, "axis", "", node.lineno)
                found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(node.value, change))}` for `{quote(node.value)}`"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum" and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            for keep in (True, False):
                change = Change(fdef.name, index[id(node)], "builtin_sum", keep, "axis", "", node.lineno)
                found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(node, change))}` for `{quote(node)}`"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum" and len(node.args) == 2 \
                and not node.keywords and not any(isinstance(a, (ast.Starred, ast.Constant, ast.UnaryOp)) for a in node.args):
            change = Change(fdef.name, index[id(node)], "builtin_sum", "start", "call", "", node.lineno)
            found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(node, change))}` for `{quote(node)}`"))
        compared = (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _ORDERS)) or (
            isinstance(node, ast.Call) and call_name(node) in COMPARING and not node.keywords
            and len(node.args) == (2 if function_form(node) else 1))
        # None: the first side; "positions": the second, where both count positions; 1: the second. Not a side
        # transposed (`i > i.T`): the learner turned it already, and layout_mends says what the transpose does
        sides = compared_sides(node) if compared else []
        second = "positions" if all(_counted(s, counts) for s in sides) else 1
        for side in [s for s, at in ((None, 0), (second, 1)) if sides and transposed_of(sides[at], "mT") is None
                     and not _axes_given(sides[at], bound)]:
            change = Change(fdef.name, index[id(node)], "outer", side, "axis", "", node.lineno)
            found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(node, change))}` for `{quote(node)}`"))
        sides = matrix_sides(node)
        for side, bare, given in (("left", 0, (1, -1)), ("right", 1, (0, -2))):
            if sides is not None and _unsqueezed_at(sides[given[0]], given[1]) and not _unsqueezed_at(sides[bare], None):
                change = Change(fdef.name, index[id(node)], "row_side", side, "axis", "", node.lineno)
                found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(node, change))}` for `{quote(node)}`"))
        vector = sides[1] if sides is not None else None
        if isinstance(vector, ast.Call) and call_name(vector) in _VECTOR_MAKERS and len(vector.args) == 1 \
                and not isinstance(vector.args[0], (ast.Tuple, ast.List, ast.Starred)):
            change = Change(fdef.name, index[id(vector)], "vector_column", None, "axis", "", node.lineno)
            found.append(dataclasses.replace(change, said=f"`{quote(mend_edit(vector, change))}` for `{quote(vector)}`"))
        moved = moved_transpose(node)
        if moved is not None:
            change = Change(fdef.name, index[id(node)], "other_factor", None, "transpose", "", node.lineno)
            found.append(dataclasses.replace(change, said=f"`{quote(moved)}` for `{quote(node)}`"))
    return found


def operand_words(node: ast.AST, change: Change) -> str | None:
    """The mistake one of the module's changes mends, in words."""
    if change.op == "items":
        return ("a dict walked as pairs: walking a dict gives its KEYS alone, each then unpacked into the loop's "
                "names; `.items()` gives the (key, value) pairs")
    if change.op == "enumerate_pairs":
        return ("`enumerate` hands each item's POSITION first, then the item: the loop's first name counts 0, 1, ..., "
                "not the item before; `zip` of the two cuts pairs each item with the next")
    if change.op == "outer":
        sides = compared_sides(node)
        said = ("compared entry by entry: a 1-D side lines up with the LAST axis of the other; "
                f"`{quote(sides[0 if change.arg is None else 1])}.unsqueeze(-1)` gives it an axis of size 1 at the end, so "
                "each of its entries meets a whole row of the other (a table of every pair, or one value per row)")
        if change.arg != "positions":
            return said
        # two position counts that hold the same numbers (a diagonal block) give one table either way round:
        # which side runs down the rows is the learner's to say
        return (f"{said}; where the two sides hold the same numbers, the same table is `{_turned(node, sides)}`: the first "
                "side down the rows and the comparison turned")
    if change.op == "row_side" and matrix_sides(node) is not None:
        a, b = (quote(side) for side in matrix_sides(node))
        bare, shaped = (a, "-2") if change.arg == "left" else (b, "-1")
        return (f"a row times a column, one pair per row, with only one side shaped: `{bare}` has no axis of size 1 "
                f"where `{bare}.unsqueeze({shaped})` puts it, so the product pairs every row of one side with every "
                f"column of the other (a table, or an error) instead of each row with its own column")
    if change.op == "vector_column":
        return ("a matrix times a 1-D vector drops that axis: the product has one value per row but no axis of size 1 "
                "to line up with the rows (it meets the COLUMNS); a column, size 1 last, keeps it")
    if change.op == "other_factor":
        return ("the transpose on the wrong factor: `a @ b.T` pairs each row of `a` with each row of `b`, "
                "`a.T @ b` each column of `a` with each column of `b`")
    if change.op == "walk_last":
        return ("the wrong axis walked: a `for` over a tensor walks its FIRST axis (a matrix gives whole rows); "
                "`.unbind(-1)` walks the last, one column at a time")
    if change.op == "unpack_axis":
        return (f"the wrong axis unpacked: unpacking a tensor walks its FIRST axis as a `for` does; "
                f"`{quote(node)}.unbind({change.arg})` splits it along axis {change.arg}")
    if change.op == "builtin_sum" and change.arg == "start":
        return ("Python's built-in `sum(a, b)` is no `a + b`: it walks `a`'s FIRST axis as a `for` does and adds each "
                "slice to `b`, where it starts, so `a` is summed over that axis instead of added")
    if change.op == "builtin_sum":
        return ("Python's built-in `sum` walks a tensor's FIRST axis as a `for` does and adds what it gets (a matrix "
                "gives its column totals); torch's `.sum(dim=-1)` totals each row")
    return None
