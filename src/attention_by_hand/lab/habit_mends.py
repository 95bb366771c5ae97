"""Mends of forms a habit from elsewhere reads otherwise than Python and torch do.

Each is tried on a learner's code only (mend_changes.py), made by mend_edits.py and said only where
repair.py finds that it gives the reference's output on every input:

- `unfold_aug`: `l *= r + p`, meant as "rescale l, then add p"; an augmented assignment applies its
  operator to the whole right side, `l = l * (r + p)`. The mend is `l = l * r + p`. Tried for `*=`,
  `/=` and `-=` with a sum or a difference on the right, where the two readings differ.
- `join`: `a[:, :h] + a[:, h + 1:]`, meant as the slices one after the other, as `+` joins two
  Python lists; on tensors it adds them entry by entry. The mend is `torch.cat((left, right),
  dim=d)`, for each axis d a learner most often means. Tried where both sides are slices.
- `factor_outside`: `math.log(base / d_model)`, a division moved inside a function call, where the
  call's result was to be divided, `math.log(base) / d_model`. Tried for a function (not a method)
  given one argument, a product or a division.
- `pad_before`: `F.pad(x, (0, n))`, meant for the time axis; F.pad's pairs start at the LAST axis
  and go backwards, so `(0, n)` widens the last axis. The mend moves every pair one axis back,
  `(0, 0, 0, n)` (two pairs exchanged where four numbers were given).
- `pad_sides`: `F.pad(old, (0, 0, n, 0))`, each pair read (after, before), as the new room at the
  end; a pair gives the entries added BEFORE an axis's first entry, then those after its last. The
  mend exchanges the two of every pair. Tried where some pair's two differ.
- `lead_colon`: `table[:, :T]`, a slice written for a tensor with a batch axis in front (TensorFlow's
  `(1, n, d)` tables); on a table without one, the leading `:` takes the rows whole and `:T` cuts
  the columns. The mend drops the leading `:`, `table[:T]`.
- `comma_colon`: `w[start, start + T]`, a comma typed where a colon was meant: the comma puts the
  two on separate axes and picks one entry. The mend makes them one slice, `w[start : start + T]`.
- `enumerate_order`: `for x, i in enumerate(xs)`, the pair read item first as some languages' loops
  give it; Python's enumerate gives (index, item). The mend exchanges the two names.
- `all_but`: `x[:, ~head]` with an int `head`, NumPy's `~` of a bool mask read as "every index but
  this one"; on an int, `~` is Python's bitwise not, `-head - 1`, one index from the end. The mend
  lists every other index of that axis, `[i for i in range(x.shape[1]) if i != head]`.
- `next_axis`: `means[0]`, meant as entry 0 of every row, as a column is picked in a spreadsheet;
  one index picks along the FIRST axis. The mend is `means[:, 0]`. Tried where a call's result or
  a name is indexed by one number, or by one of the function's arguments (`outs[head]`).
- `one_slice`: `outs[:, h : h + 1]` (or `p[..., :1]`), a slice of one entry where the entry was meant:
  the slice keeps its axis, and what it meets then broadcasts against it. The mend is `outs[:, h]`.
- `right_aligned`: `keep[:, None]`, a vector given one axis to line up with the heads of (B, heads, T, d),
  as R recycles a vector from the left; torch broadcasts from the RIGHT, so (heads, 1) meets (T, d). The
  mend adds an axis of size 1 for each axis after the one meant, `keep[:, None, None]`. Tried where a
  subscript is `:` followed by `None`s alone.
- `r_drop`: `pattern[:, :, -1, 0]`, R's `x[-1]`, every entry but the first; in Python `-1` picks the LAST
  entry alone and drops the axis. The mend is the slice `1:`. Tried on every `-1` in a subscript of two
  or more places (R's `x[-k]` drops the k-th entry alone: no slice says that).
- `axis_last`: `e.sum(-1)[:, None]`, NumPy's way of turning row sums back into a column: the new
  axis goes after the first, right for a matrix's sums only (a vector's has no axis to keep, a
  batch's gets it in the middle). The mend puts it last, `e.sum(-1)[..., None]`. Tried where every
  part before the `None` is a whole `:`.
- `count_colon`: `weight[T]`, the colon of `weight[:T]` left out, as a count reads like "the first T"
  in words; an index picks the one entry T along its axis and drops the axis. The mend is the
  slice `weight[:T]`. Tried where the index is a name the function binds from a size (`T =
  x.shape[-1]`, `n = len(ids)`).
- `step_axis`: `table[0::2]`, every other column meant (as a slice with a step is written for a
  vector); one slice cuts the FIRST axis, the rows. The mend moves it to the second axis,
  `table[:, 0::2]`, or to the last, `table[..., 0::2]`. Tried where a name is cut by one slice with a step.
- `close_late`: `torch.exp(s - m / l)` or `(s - m.div(l)).exp()`, a bracket closed after the
  division where it belonged before it: the division falls on the last term inside the call, not
  on the call's result. The mend closes the call first, `torch.exp(s - m) / l` (the method's
  `.div(l)` kept as a method). Tried for a call of one argument (a function's, or a method's
  without arguments) on a sum or a difference whose right term is divided or multiplied.
- `one_based`: `table[:, 1::2]`, MATLAB's `1:2:end` (R's `seq(1, n, 2)`), every other entry counted
  from 1; Python counts from 0, so the slice starts one entry later than meant (and its twin
  `2::2` is one entry short). The mend starts it one earlier, `table[:, 0::2]`. Tried for a slice
  with a step that starts at a number of 1 or more; on several lines it is one slip (repeated_mends.py).
- `keep_axis`: `scores[..., j]`, a column picked by an index and read as the column it came from,
  as MATLAB's `A(:, j)` keeps it; an index DROPS its axis, so what it gives no
  longer lines up with the rows it came from (a `cat` along the last axis then joins the rows).
  The mend is the one-wide slice `scores[..., j:j + 1]`; on several lines it is one slip
  (repeated_mends.py). Tried where a name or a whole number picks the last place of a subscript
  that starts with `...` or `:`.
- `one_index`: `log_p[ids[:-1]][ids[1:]]`, two indexings in a row, as `a[i][j]` reaches one entry of
  a nested list or a C array; on a tensor the second picks along the first axis of what the first
  returned, and a write through it (`hot[rows][ids] = 1`) lands in a copy where the first index is
  a tensor. The mend gives both in one index, `log_p[ids[:-1], ids[1:]]`.
- `as_positions`: `caps[causal_mask(T)]`, a bool mask read as the positions 0 and 1 of a small table
  (R and spreadsheets count False and True as numbers); a bool tensor as an index selects the
  entries where it is True. The mend is `caps[causal_mask(T).long()]`. Tried where the index is a
  call's result or a comparison.
- `fixed_count`: `counts.sum(1) + 2 * smoothing`, a count fixed at a number where it was to be a
  size of the input: a rule learnt for two outcomes (Laplace's (n + 1) / (n + 2)) counts two where
  there are as many as the input has columns. The mend puts a size of one of the function's
  arguments, its first or last axis, for the number. Tried for a whole number of 2 or more that
  multiplies something that is not a number.
- `typed_number`: `(var + 1e-3).sqrt()`, a number written into the code (a library's default, as
  Keras's epsilon) where the function is handed that number as an argument, `eps`: whatever the
  caller passes, the function uses its own. The mend puts for the number each argument the code
  never reads (repair.py tries only one that holds a float, not 0 or 1 throughout). Tried for
  every number written with a decimal point or an exponent, in the body (never in a default).

Left out: a join along an axis other than -1, 0, 1 and -2 (2 where the tensors have four axes is -2), and a layer's or a table's row of a
sum taken for the sum of its rows (`pe(a) + pe(b)` for `pe(a + b)`): the learner's code seldom
reads that way in one expression.
"""

from __future__ import annotations

import ast

import torch

from attention_by_hand.lab.code_layout import subscript_parts, whole_slice
from attention_by_hand.lab.mend_edits import mend_edit, other_index
from attention_by_hand.lab.mutant_edits import Change, call_name, quote
from attention_by_hand.lab.size_locals import size_names

__all__ = ["HABIT_OPS", "habit_mends", "habit_words", "late_inside", "one_size_throughout"]

HABIT_OPS = ("unfold_aug", "join", "factor_outside", "pad_before", "lead_colon", "comma_colon", "enumerate_order", "all_but",
             "next_axis", "one_slice", "axis_last", "pad_sides", "count_colon", "step_axis", "close_late", "fixed_count",
             "one_index", "as_positions", "one_based", "keep_axis", "typed_number", "right_aligned", "r_drop")

_JOIN_AXES = (-1, 0, 1, -2)
_AUG_OPS = {ast.Mult: "*", ast.Div: "/", ast.Sub: "-"}
_SUMS = {ast.Add: "+", ast.Sub: "-"}
_PADS = ("pad",)


def _slice(node: ast.expr) -> bool:
    """A subscript with a slice in it (`outs[:, :head]`)."""
    if not isinstance(node, ast.Subscript):
        return False
    parts = subscript_parts(node)
    return any(isinstance(p, ast.Slice) for p in parts)


def late_inside(node: ast.AST) -> tuple[ast.BinOp, ast.expr, ast.expr, str] | None:
    """(the sum inside, the divided term, the divisor, "/" "*" "div" or "mul") of `f(a - b / c)` or
    `(a - b.div(c)).f()`; None for another node."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    if _function_form(node) and len(node.args) == 1:
        inner = node.args[0]
    elif isinstance(node.func, ast.Attribute) and not node.args:
        inner = node.func.value
    else:
        return None
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, (ast.Add, ast.Sub))):
        return None
    term = inner.right
    if isinstance(term, ast.BinOp) and isinstance(term.op, (ast.Div, ast.Mult)):
        return inner, term.left, term.right, "/" if isinstance(term.op, ast.Div) else "*"
    if (isinstance(term, ast.Call) and isinstance(term.func, ast.Attribute) and term.func.attr in ("div", "mul")
            and len(term.args) == 1 and not term.keywords):
        return inner, term.func.value, term.args[0], term.func.attr
    return None


def _function_form(call: ast.Call) -> bool:
    """`math.log(x)`, `torch.exp(x)`, `f(x)`: a function of its one argument, not a tensor's method."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    return isinstance(call.func, ast.Name) or (isinstance(owner, ast.Name) and owner.id in ("math", "torch", "np", "numpy"))


def habit_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The habit mends of `fdef`, in the order of its nodes."""
    found, name = [], fdef.name
    # the names bound from a size (`T = x.shape[-1]`): an index by one of them may be a count meant as a slice
    counts = size_names(fdef)
    body = {id(n) for statement in fdef.body for n in ast.walk(statement)}  # not the defaults of the arguments
    read = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    unread = [a.arg for a in fdef.args.args if a.arg not in read and a.arg != "self"]  # a number may stand for one
    arguments = {a.arg for a in fdef.args.args}  # `outs[head]`, an argument that picks (next_axis)
    for node in ast.walk(fdef):
        at = index.get(id(node))
        if at is None:
            continue
        line = getattr(node, "lineno", None)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            found += [Change(name, at, "count_colon", k, "slice",
                             f"`{quote(mend_edit(node, Change(name, at, 'count_colon', k, 'slice', '')))}` for `{quote(node)}`", line)
                      for k, p in enumerate(subscript_parts(node)) if isinstance(p, ast.Name) and p.id in counts]
        if (isinstance(node, ast.AugAssign) and type(node.op) in _AUG_OPS and isinstance(node.value, ast.BinOp)
                and type(node.value.op) in _SUMS):
            target, sign = quote(node.target), _AUG_OPS[type(node.op)]
            unfolded = f"{target} = {target} {sign} {quote(node.value)}"
            found.append(Change(name, at, "unfold_aug", None, "order", f"`{unfolded}` for `{quote(node)}`", line))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _slice(node.left) and _slice(node.right):
            found += [Change(name, at, "join", axis, "call",
                             f"`torch.cat(({quote(node.left)}, {quote(node.right)}), dim={axis})` for `{quote(node)}`", line)
                      for axis in _JOIN_AXES]
        if (isinstance(node, ast.Call) and _function_form(node) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.BinOp) and isinstance(node.args[0].op, (ast.Div, ast.Mult))):
            inner, called = node.args[0], quote(node.func)
            sign = "/" if isinstance(inner.op, ast.Div) else "*"
            outside = f"{called}({quote(inner.left)}) {sign} {quote(inner.right)}"
            found.append(Change(name, at, "factor_outside", None, "factor", f"`{outside}` for `{quote(node)}`", line))
        if late_inside(node) is not None:  # `exp(s - m / l)`: the division meant outside the call
            closed = mend_edit(node, Change(name, at, "close_late", None, "order", ""))
            found.append(Change(name, at, "close_late", None, "order", f"`{quote(closed)}` for `{quote(node)}`", line))
        if (isinstance(node, ast.Call) and call_name(node) in _PADS and len(node.args) >= 2
                and isinstance(node.args[1], (ast.Tuple, ast.List)) and len(node.args[1].elts) in (2, 4)):
            pairs = [quote(e) for e in node.args[1].elts]
            left, right = "()" if isinstance(node.args[1], ast.Tuple) else "[]"  # as the learner wrote them
            moved = ["0", "0", *pairs] if len(pairs) == 2 else [*pairs[2:], *pairs[:2]]
            found.append(Change(name, at, "pad_before", None, "arguments",
                                f"`{left}{', '.join(moved)}{right}` for `{quote(node.args[1])}` in `{quote(node)}`", line))
            if any(pairs[i] != pairs[i + 1] for i in range(0, len(pairs), 2)):
                sides = [pairs[i + 1 - i % 2 * 2] for i in range(len(pairs))]  # each pair's two exchanged
                found.append(Change(name, at, "pad_sides", None, "arguments",
                                    f"`{left}{', '.join(sides)}{right}` for `{quote(node.args[1])}` in `{quote(node)}`", line))
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
                and sum(_fixed(side) for side in (node.left, node.right)) == 1
                and not any(isinstance(side, ast.Constant) for side in (node.left, node.right) if not _fixed(side))):
            number = node.left if _fixed(node.left) else node.right
            found += [Change(name, index[id(number)], "fixed_count", (given, axis), "constant",
                             f"`{given}.shape[{axis}]` for `{number.value}` in `{quote(node)}`", line)
                      for given in (a.arg for a in fdef.args.args if a.arg != "self") for axis in (-1, 0)]
        if isinstance(node, ast.Constant) and type(node.value) is float and id(node) in body:  # `1e-3` for `eps`
            found += [Change(name, at, "typed_number", given, "constant", f"`{given}` for the number {node.value:g}", line)
                      for given in unread]
        if isinstance(node, ast.Subscript) and _lead_colon(node):
            rest = node.slice.elts[1:]
            shorter = f"{quote(node.value)}[{', '.join(quote(e) for e in rest)}]"
            found.append(Change(name, at, "lead_colon", None, "slice", f"`{shorter}` for `{quote(node)}`", line))
        if isinstance(node, ast.Subscript):
            found += _subscript_habits(node, name, at, line)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _new_axis_placed(node):
            found.append(Change(name, at, "axis_last", None, "index",
                                f"`{quote(node.value)}[..., None]` for `{quote(node)}`", line))
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice)
                and node.slice.step is not None):  # `table[0::2]`, read or written
            found += [Change(name, at, "step_axis", lead, "index", f"`{quote(node.value)}[{lead}, {quote(node.slice)}]` "
                             f"for `{quote(node)}`", line) for lead in (":", "...")]
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _made_index(node.slice):
            found.append(Change(name, at, "as_positions", None, "index",
                                f"`{quote(mend_edit(node, Change(name, at, 'as_positions', None, 'index', '')))}` for `{quote(node)}`",
                                line))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _last_picked(node):
            found.append(Change(name, at, "keep_axis", None, "slice",
                                f"`{quote(mend_edit(node, Change(name, at, 'keep_axis', None, 'slice', '')))}` for `{quote(node)}`",
                                line))
        if _indexed_twice(node):  # `x[a][b]`, read or written: C's and nested lists' way to one entry
            found.append(Change(name, at, "one_index", None, "index",
                                f"`{quote(mend_edit(node, Change(name, at, 'one_index', None, 'index', '')))}` for `{quote(node)}`", line))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _one_number(node, arguments):
            found.append(Change(name, at, "next_axis", None, "index",
                                f"`{quote(node.value)}[:, {quote(node.slice)}]` for `{quote(node)}`", line))
        if (isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and call_name(node.iter) == "enumerate"
                and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2):
            first, second = (quote(e) for e in node.target.elts)  # the change is the pair's: its node is the target
            found.append(Change(name, index[id(node.target)], "enumerate_order", None, "order",
                                f"`for {second}, {first} in ...` for `for {first}, {second} in {quote(node.iter)}`", line))
    return found


def _subscript_habits(node: ast.Subscript, name: str, at: int, line: int | None) -> list[Change]:
    """`comma_colon` for each two neighbouring entries of a subscript that are no slices, and
    `all_but` for each `~name` in it (see the module's docstring)."""
    parts = subscript_parts(node)
    found = []
    for k in range(len(parts) - 1):
        a, b = parts[k], parts[k + 1]
        if not any(isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value in (None, Ellipsis)) for p in (a, b)):
            found.append(Change(name, at, "comma_colon", k, "slice",
                                f"`{quote(a)} : {quote(b)}` for `{quote(a)}, {quote(b)}` in `{quote(node)}`", line))
    for k, p in enumerate(parts):
        if isinstance(p, ast.Slice) and p.step is not None and _counted_from_one(p.lower):
            found.append(Change(name, at, "one_based", k, "slice",
                                f"`{quote(mend_edit(node, Change(name, at, 'one_based', k, 'slice', '')))}` for `{quote(node)}`", line))
        if _one_wide(p) and not (isinstance(node.value, ast.Attribute) and node.value.attr == "shape"):  # a tensor's, no size's
            found.append(Change(name, at, "one_slice", k, "slice",
                                f"`{quote(p.lower or ast.Constant(0))}` for `{quote(p)}` in `{quote(node)}`", line))
    for k, p in enumerate(parts if len(parts) >= 2 else ()):  # R's `x[-1]`, all but the first (r_drop)
        # `-1` alone: R's `x[-k]` drops the k-th entry alone, which no slice from k says
        if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub) and isinstance(p.operand, ast.Constant) \
                and type(p.operand.value) is int and p.operand.value == 1:
            made = ", ".join(f"{p.operand.value}:" if i == k else ast.unparse(q) for i, q in enumerate(parts))
            found.append(Change(name, at, "r_drop", f"{ast.unparse(node.value)}[{made}]", "slice",
                                f"`{quote(node.value)}[{made}]` for `{quote(node)}`", line))
    bare = isinstance(parts[0], ast.Slice) and parts[0].lower is parts[0].upper is parts[0].step is None
    if len(parts) >= 2 and bare and all(isinstance(p, ast.Constant) and p.value is None for p in parts[1:]):
        for more in (1, 2):  # `keep[:, None]` lined up from the left (right_aligned)
            made = ", ".join([":"] + ["None"] * (len(parts) - 1 + more))
            found.append(Change(name, at, "right_aligned", made, "slice", f"`{quote(node.value)}[{made}]` for `{quote(node)}`", line))
    if not any(isinstance(p, ast.Constant) and p.value in (None, Ellipsis) for p in parts):  # axis k is the k-th part
        for k, p in enumerate(parts):
            if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Invert) and isinstance(p.operand, ast.Name):
                n = other_index(p.operand.id)
                others = f"[{n} for {n} in range({quote(node.value)}.shape[{k}]) if {n} != {p.operand.id}]"
                found.append(Change(name, at, "all_but", k, "slice", f"`{others}` for `{quote(p)}` in `{quote(node)}`", line))
    return found


def _last_picked(node: ast.Subscript) -> bool:
    """`x[..., j]` or `x[:, 0]`: a name's last place picked by a name or a whole number, after `...` or `:`."""
    parts = subscript_parts(node)
    last = parts[-1]
    picked = isinstance(last, ast.Name) or (isinstance(last, ast.Constant) and type(last.value) is int)
    return (isinstance(node.value, ast.Name) and len(parts) >= 2 and picked
            and all(whole_slice(p) or (isinstance(p, ast.Constant) and p.value is Ellipsis) for p in parts[:-1]))


def _counted_from_one(start: ast.expr | None) -> bool:
    """A slice's start that is a whole number of 1 or more written in the code."""
    return isinstance(start, ast.Constant) and type(start.value) is int and start.value >= 1


def _made_index(part: ast.expr) -> bool:
    """An index made where it is used: a call's result, a comparison or its `~` (never a name or a
    number, which are mostly ints)."""
    if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Invert):
        part = part.operand
    return isinstance(part, ast.Compare) or (isinstance(part, ast.Call) and call_name(part) not in ("long", "int", "item"))


def _indexed_twice(node: ast.AST) -> bool:
    """`x[a][b]`: one index on what another index returned, neither a slice, a tuple, `None` or `...`."""
    def single(part: ast.expr) -> bool:
        return not (isinstance(part, (ast.Slice, ast.Tuple)) or (isinstance(part, ast.Constant) and part.value in (None, Ellipsis)))
    return (isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Load, ast.Store)) and isinstance(node.value, ast.Subscript)
            and single(node.slice) and single(node.value.slice))


def _one_number(node: ast.Subscript, arguments: set[str] = frozenset()) -> bool:
    """`f(x)[0]`, `outs[1]`, `outs[head]`: one number (or an argument of the function's) picks from a
    call's result or a name (never `.shape`'s)."""
    number = node.slice
    if isinstance(number, ast.UnaryOp) and isinstance(number.op, ast.USub):
        number = number.operand
    plain = (isinstance(number, ast.Constant) and type(number.value) is int) or (isinstance(number, ast.Name) and number.id in arguments)
    return plain and (isinstance(node.value, ast.Name) or (isinstance(node.value, ast.Call) and call_name(node.value) not in ("size", "max", "min")))


def _new_axis_placed(node: ast.Subscript) -> bool:
    """`x[:, None]`, `x[:, :, None]`: whole `:`s, then one `None` last (a new axis after them)."""
    parts = subscript_parts(node)
    whole = [whole_slice(p) for p in parts[:-1]]
    last = parts[-1] if parts else None
    return len(parts) >= 2 and all(whole) and isinstance(last, ast.Constant) and last.value is None


def _one_wide(part: ast.expr) -> bool:
    """`h : h + 1`, or `:1` (`0:1`): a slice of the one entry at its lower bound."""
    if isinstance(part, ast.Slice) and part.step is None and isinstance(part.upper, ast.Constant) and type(part.upper.value) is int:
        return part.upper.value == 1 and (part.lower is None or (isinstance(part.lower, ast.Constant) and part.lower.value == 0))
    if not (isinstance(part, ast.Slice) and part.lower is not None and part.step is None and isinstance(part.upper, ast.BinOp)):
        return False
    upper = part.upper
    return (isinstance(upper.op, ast.Add) and isinstance(upper.right, ast.Constant) and upper.right.value == 1
            and ast.dump(upper.left) == ast.dump(part.lower))


def _cuts(part: ast.expr) -> bool:
    """A part of a subscript that cuts its axis: a slice with a bound or a step, or an index (not a
    `None`, which adds an axis, nor `...`)."""
    if isinstance(part, ast.Slice):
        return not whole_slice(part)
    return not (isinstance(part, ast.Constant) and part.value in (None, Ellipsis))


def _lead_colon(node: ast.Subscript) -> bool:
    """`x[:, a:b]`: a whole `:` first, then a cut of its own, and no `None` or `...` (which move the axes)."""
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
    first = parts[0] if parts else None
    whole = first is not None and whole_slice(first)
    plain = not any(isinstance(p, ast.Constant) and p.value in (None, Ellipsis) for p in parts)
    return whole and plain and any(_cuts(p) for p in parts[1:])


def one_size_throughout(arg: tuple[str, int], values: list[dict[str, object]]) -> bool:
    """Whether fixed_count's size, `given.shape[axis]`, is one number on every input (or is not
    there): put for the fixed count, it would be only another constant, mending by chance (`x * 3`
    for `x * 2`, where x has two rows on every input). values: the function's locals on each input."""
    given, axis = arg
    sizes = {v[given].shape[axis] if isinstance(v.get(given), torch.Tensor) and -v[given].dim() <= axis < v[given].dim()
             else None for v in values}
    return len(sizes) < 2 or None in sizes


def _fixed(node: ast.AST) -> bool:
    """A whole number of 2 or more written in the code."""
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 2


def habit_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a habit mend mends, in words; None for another change."""
    op = change.op
    if op == "unfold_aug" and isinstance(node, ast.AugAssign):
        target, sign = quote(node.target), _AUG_OPS[type(node.op)]
        return (f"`{quote(node)}` applies `{sign}` to the whole right side, `{target} = {target} {sign} "
                f"({quote(node.value)})`: an augmented assignment is no 'first {sign}, then the rest'")
    if op == "join" and isinstance(node, ast.BinOp):
        return (f"`{quote(node)}` adds the two slices entry by entry; `+` puts Python lists one after the other, "
                f"but tensors it adds: joined is `torch.cat(...)` along axis {change.arg}")
    if op == "factor_outside" and isinstance(node, ast.Call):
        inner = node.args[0]
        done = "divided" if isinstance(inner.op, ast.Div) else "multiplied"
        return (f"`{quote(node)}`: the argument {done} inside `{quote(node.func)}(...)`, where its result is to be "
                f"{done} by `{quote(inner.right)}`")
    if op == "pad_before" and isinstance(node, ast.Call):
        return ("F.pad's pairs start at the LAST axis and go backwards: the first pair pads the last axis, the next "
                "pair the axis before it")
    if op == "close_late" and late_inside(node) is not None:
        _, term, divisor, how = late_inside(node)
        done = "divides" if how in ("/", "div") else "multiplies"
        return (f"`{quote(node)}` {done} `{quote(term)}` alone by `{quote(divisor)}`, inside the call; with the call's "
                f"bracket closed before the {'division' if done == 'divides' else 'product'}, its result is what is "
                f"{'divided' if done == 'divides' else 'multiplied'}")
    if op == "pad_sides" and isinstance(node, ast.Call):
        return (f"`{quote(node.args[1])}` in F.pad: each axis's pair is (before, after), the entries added in front of "
                "its first entry, then those after its last; yours puts them on the other side")
    if op == "comma_colon" and isinstance(node, ast.Subscript):
        return (f"`{quote(node)}`: a comma puts its two sides on two axes, an index on each; a colon makes one "
                "slice of the two, from the first up to the second")
    if op == "enumerate_order" and isinstance(node, ast.Tuple):
        first, second = (quote(e) for e in node.elts)
        return (f"`for {first}, {second} in enumerate(...)`: enumerate gives (index, item), so `{first}` is the index "
                f"and `{second}` the item")
    if op == "all_but" and isinstance(node, ast.Subscript):
        return ("on an int, `~` is Python's bitwise not, `~h == -h - 1`: one index counted from the end, not every "
                "index but h (`~` inverts a bool mask)")
    if op == "next_axis" and isinstance(node, ast.Subscript):
        picked = (f"index `{node.slice.id}` along the second axis" if isinstance(node.slice, ast.Name)
                  else f"entry {quote(node.slice)} of every row")
        return (f"`{quote(node)}` picks along the FIRST axis, one whole slice of it; {picked} "
                f"is `{quote(node.value)}[:, {quote(node.slice)}]`")
    if op == "step_axis" and isinstance(node, ast.Subscript):
        where = "the second axis" if change.arg == ":" else "the last axis"
        return (f"`{quote(node)}` cuts the FIRST axis, the rows: one slice always does; for {where} the slice goes "
                f"after the axes before it, `{quote(node.value)}[{change.arg}, {quote(node.slice)}]`")
    if op == "typed_number" and isinstance(node, ast.Constant):
        return (f"the number {node.value:g} is fixed in your code where the argument `{change.arg}` belongs, which your "
                f"code never reads: yours uses {node.value:g} whatever `{change.arg}` the caller hands it")
    if op == "fixed_count" and isinstance(node, ast.Constant):
        given, axis = change.arg
        return (f"`{node.value}` is a fixed number where the input's own count belongs, `{given}.shape[{axis}]`, which is "
                f"not the same on every input tried: a rule written for {node.value} outcomes counts {node.value} whatever "
                "the input holds")
    if op == "count_colon" and isinstance(node, ast.Subscript):
        count = quote(subscript_parts(node)[change.arg])
        return (f"`{quote(node)}` picks the one entry {count} along that axis (an index drops its axis); the first "
                f"{count} entries are the slice `:{count}`")
    if op == "one_slice" and isinstance(node, ast.Subscript):
        part = subscript_parts(node)[change.arg]
        return (f"`{quote(part)}` is a slice: it keeps its axis, with one entry on it, and the axis then broadcasts "
                f"against what it meets; `[{quote(part.lower or ast.Constant(0))}]` picks the entry and drops the axis")
    if op == "r_drop" and isinstance(node, ast.Subscript):
        return ("a negative index read as R's: in R `x[-1]` drops the first entry, in Python it picks the LAST entry alone "
                "and drops its axis; every entry but the first is the slice `1:`")
    if op == "right_aligned" and isinstance(node, ast.Subscript):
        return (f"broadcasting lines axes up from the RIGHT, the last with the last (not from the left, as R recycles "
                f"a vector): `{quote(node)}` meets the LAST axes of the other side; to line up with an earlier axis it "
                f"needs one axis of size 1 for every axis after that one, `{quote(node.value)}[{change.arg}]`")
    if op == "axis_last" and isinstance(node, ast.Subscript):
        place = len(subscript_parts(node)) - 1
        after = "the first axis" if place == 1 else f"the first {place} axes"
        return (f"`{quote(node)}` puts the new axis at place {place}, after {after}, not last: NumPy's way of turning "
                "a matrix's row sums into a column, wrong for a vector (its sum has no axis left) or a batch; "
                "`[..., None]` (or `keepdim=True`) puts it last")
    if op == "as_positions" and isinstance(node, ast.Subscript):
        index, whole = quote(node.slice), quote(mend_edit(node, change).slice)
        return (f"`{quote(node)}` indexes by the tensor `{index}` as it is: a bool tensor SELECTS, keeping the entries where "
                f"it is True (it must fit the indexed tensor's own shape), and a float one is refused; positions are "
                f"whole numbers, `{whole}` (False and True as 0 and 1)")
    if op == "one_index" and _indexed_twice(node):
        inner, both, a, b = quote(node.value), quote(mend_edit(node, change)), quote(node.value.slice), quote(node.slice)
        if isinstance(node.ctx, ast.Store):
            return (f"a write to `{quote(node)}` lands in what `{inner}` returned, which is a copy wherever that index is a "
                    f"list or a tensor with an axis (numbers and slices give a view), so `{quote(node.value.value)}` itself "
                    f"never changes; a write to `{both}` lands in it")
        return (f"`{quote(node)}` indexes twice: `[{b}]` picks along the first axis of what `{inner}` returned, not along "
                f"the next axis; `{both}` takes both in one index, pairing `{a}` with `{b}` position by position, as "
                "`a[i][j]` does in a nested list")
    if op == "one_based" and isinstance(node, ast.Subscript):
        part, mended = (subscript_parts(n)[change.arg] for n in (node, mend_edit(node, change)))
        start, step = part.lower.value, quote(part.step)
        return (f"`{quote(part)}` starts at index {start}, and Python counts from 0: MATLAB's `{start}:{step}:end` counts "
                f"from 1, so the same numbers here start one entry later than there; one entry earlier is "
                f"`{quote(mended)}`")
    if op == "keep_axis" and isinstance(node, ast.Subscript):
        parts = subscript_parts(node)
        ellipsis = any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts)
        axis = "its last axis" if ellipsis else f"axis {len(parts) - 1}"
        return (f"`{quote(node)}` drops {axis} (an index takes its axis away, as in NumPy, where MATLAB's "
                f"`A(:, j)` keeps a column), so it no longer lines up with the tensor it came from; the slice "
                f"`{quote(mend_edit(node, change))}` keeps it, one entry wide")
    if op == "lead_colon" and isinstance(node, ast.Subscript):
        return (f"`{quote(node)}`: the leading `:` takes axis 0 whole, so the next cut falls on axis 1; a leading `:` "
                "belongs to a tensor with a batch axis in front, (1, n, d)")
    return None
