"""Changes tried on a learner's function only: the mends that are no inverse of a slip in the
reference's code.

mutants.py lists the changes a slip makes to the reference (a term dropped, another axis); made to
the learner's code, each mends the inverse slip (a term too many, the wrong axis). Some slips have
no change of the reference that makes them, since the reference never had the thing the learner
added or never lacked what the learner left out. Those are tried here, on the learner's code alone:

- a statement left out (`drop`): the learner took a step the reference does not (a rotation applied twice, a
  second normalisation, a conversion);
- an exp or a log put around the right side of a product, division or difference (`wrap`): a log-sum-exp
  divided by where the sum of exponentials was meant;
- one added to or taken from a count made of two names (`shift`): `T - period` where `T - period - 1` rows
  were summed; or from a size read from a tensor and handed to a maker (`torch.ones(ids.numel())`, one per
  entry, where one per neighbouring pair was meant); or from a divisor that is a count (`/ T` where T - 1
  rows were summed), or from one factor of it (`/ (B * T)`);
- two operations grouped the other way (`regroup`): `d // h ** 0.5`, which Python computes as
  `d // (h ** 0.5)`, where `(d // h) ** 0.5` was meant;
- a `return` that ends a loop's body moved after the loop (`outdent`): indented one level too deep, it
  returns after the loop's first pass;
- `continue` for `break`, or `break` for `continue` (`jump`): a loop that should skip one pass stops there,
  every pass after it left out (or the other way round);
- a number added to an entry where it belongs in its index (`into_index`): `ids[i] + 1`, the entry plus one,
  where `ids[i + 1]`, the next entry, was meant;
- a flag a call needed, left out (`add_kw`): `keepdim=True` on a reduction, so that it lines up with the
  rows it came from, or `is_causal=True` on the fused attention, so that it hides the future; or an axis
  left to its default (`dim`): `tensor_split`, `split`, `chunk`, `cat`, `stack` and `unbind` work along the
  first axis unless told, and `sum` or `mean` over every axis;
- a factor on the wrong term of a sum (`factor_moved`): `acc + r * (p @ v)` where `r * acc + p @ v` was
  meant, the rescale applied to the new term instead of the old one;
- einsum's subscripts written otherwise (`subscripts`, einsum_mends.py): the output's letters in another
  order or one of them another letter, two letters of an operand swapped, or of every operand alike, or
  an operand's letter where it shares another operand's; `...` stays as it is;
- a name the function binds put for a whole number of a size-taking call (`size_for`):
  `unfold(-1, head_size, 1)`, whose step of 1 makes windows that overlap, where `head_size` was meant; or a
  name bound from a size for a number subtracted: `total - 1`, one taken away, where one per sequence,
  `total - B` (B from `x.shape`), was meant;
- a power with a number for exponent taken out (`left`): `c ** 0.75` where `c` was meant;
- a name that a statement both sets and reads put for another at each of its places there (`rebind`):
  `q, v = rope(q), rope(v)` where `q, k = rope(q), rope(k)` was meant;
- a slice's name added to in place (`in_place`): `dq_i = dq_i + x`, where `dq_i = dq[..., rows, :]`, makes a
  new tensor and leaves `dq` as it was; `dq_i += x` writes into the slice;
- the first statement of an `if` moved before it, or its last after it (`hoist`, `sink`): a step indented
  one level too deep, done only when the branch is taken;
- a reduction over several axes at once made one over one of them (`const` of an axis):
  `x.mean(dim=(-2, -1))` where each row's own mean, `dim=-1`, was meant;
- a range's counter added where one was meant (`const`): `counts[a, b] += i` for `+= 1`;
- a power of a call taken for the call of a product (`power_inside`): `cos(theta) ** p`, where
  `cos(theta * p)`, a turn by p times the angle, was meant;
- a factor or a term put on a call's result where it belongs on the call's input (`factor_inside`):
  `softmax(s, dim=-1) / math.sqrt(hs)`, where `softmax(s / math.sqrt(hs), dim=-1)` was meant, or
  `pe(torch.arange(T)) + start` (the bracket closed early), where `pe(torch.arange(T) + start)` was;
- a division or product that belongs in a power's exponent (`into_exponent`): `p / base ** (2 * i) / d`,
  where `p / base ** (2 * i / d)` was meant;
- a loop over `range(n)` that starts at 1 (`from_one`): its pass for 0 was already made before the loop (a
  sum started at the first score's 1, then every score added);
- a tensor of indices that picks whole rows where one entry per row was meant (`each_row`): `hot[ids] = 1`
  sets every row whose number is in `ids` (`hot[:, ids] = 1` those columns of every row); `hot[torch.arange(len(ids)), ids] = 1` sets row i's entry at
  column ids[i];
- a sequence cut into windows that do not overlap where every window was meant (`overlap`):
  `ids.view(-1, 2)` gives the pairs (0, 1), (2, 3), ...; `ids.unfold(0, 2, 1)` gives each with the next;
- a number added to a shape where one more axis was meant (`one_tuple`): `x.shape[:-1] + 1` raises, a
  torch.Size being a tuple; `x.shape[:-1] + (1,)` appends the axis;
- a block's number taken for its first position (`scaled`): `ks = kb` in `for kb in range(n)`, where
  `kb * block` was meant;
- a running value's start moved before its loop, or made once, on the loop's first pass (`start_before`,
  `once`: loop_starts.py): `l = torch.zeros_like(s)` inside the loop starts the sum again at every pass; a
  running value's twin never carried on (`carry`): `m = m_new` missing at the end of the loop's body;
- forms a habit from elsewhere reads otherwise (habit_mends.py): `l *= r + p` unfolded, two slices joined
  where `+` added them, a factor taken out of a call, F.pad's pairs moved one axis back, a leading `:`
  dropped, a comma made a colon, enumerate's pair read (index, item), `~h` made every index but h, one
  number's pick moved to the second axis, a one-wide slice made an index, NumPy's `[:, None]` made
  `[..., None]`, a slice counted from 1 made one from 0, an index made a one-wide slice;
- a call or an assignment read otherwise than torch and Python define it (api_mends.py): a copy made where
  `a = b` named one tensor twice, roll's shift or a diagonal's offset negated, `numel()` (or `len`) made one
  axis's length, `transpose(0, 1)` made `transpose(-2, -1)`, two listed sizes, strides or axes exchanged, a
  flatten's span of axes moved, a squeeze of one side of a sum put on the whole, a `*_like` tensor given a
  float dtype, another field of finfo, a slice_scatter made an add;
- a floor division where the count rounds up (`ceil`): `range(T // block)` leaves a last, shorter block out;
  `-(-T // block)` counts it;
- a slice cut by another of the function's ranges (range_mends.py): `k[..., i0:i1, :]` where the keys' block
  `j0:j1` belonged; or whose stop was written as a length, `w[start:T]`; the first entries taken for the
  last; a loop's write without its offset; a slice of the first axis where the last was meant, `x[-1:]` for
  `x[..., -1:]`;
- what a loop, a product or a comparison is given (operand_mends.py): a dict walked without `.items()`, the
  transpose on the other factor, a comparison's side without its axis of size 1, a tensor walked along its
  first axis, a vector of ones where a column was meant; read by another convention (reading_mends.py): `//` and `%` exchanged, an angle in degrees, a
  norm for a sum of squares, a `:=` naming part of a sum, a sign for whether a value is 0, axes counted from 1, a shape's slice for a size; where an axis
  goes (layout_mends.py): an index's `None` in the wrong place, a reshape with no transpose before it, a
  cut after `...` meant for an earlier axis, two brackets for one, a matrix product's factor left untransposed; where a bracket closes
  (bracket_mends.py); an outside name where an unread argument belongs (argument_mends.py); a number where
  a torch function takes a tensor (number_mends.py). The last seven families are own_mends.py's.

Each is a `Change` that mutants.build makes like any other. Left out: which one mends (repair.py).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.api_mends import API_OPS, api_mends
from attention_by_hand.lab.code_layout import count_side, function_form, picked_ids
from attention_by_hand.lab.einsum_mends import einsum_spellings
from attention_by_hand.lab.habit_mends import HABIT_OPS, habit_mends
from attention_by_hand.lab.loop_starts import loop_carries, loop_starts
from attention_by_hand.lab.mutant_edits import TENSOR_MAKERS, Change, call_name, edit, moved_text, number_of, quote, quote_statement
from attention_by_hand.lab.own_mends import OWN_OPS, own_mends
from attention_by_hand.lab.returned_steps import RETURNED_STEP
from attention_by_hand.lab.size_locals import one_size, size_names

__all__ = ["AXIS_MENDS", "FLAGS", "FLOW_MENDS", "NAMING_MENDS", "loop_names", "mend_changes"]

# a call's name -> the flag it may have been meant to have (as `add_kw` adds it)
FLAGS = {**dict.fromkeys(("sum", "mean", "amax", "amin", "max", "min", "logsumexp", "var", "std", "norm", "prod", "argmax",
                          "kthvalue", "median", "nanmedian", "mode", "nansum", "nanmean", "argmin", "all", "any"),
                         ("keepdim", True)), "scaled_dot_product_attention": ("is_causal", True)}

# a call's name -> how many positional arguments come before its `dim`, called as torch.<name>(x, ...)
# (one fewer as a method, x.<name>(...)); without `dim` each works along its first axis, or all of them
# (vecdot along its last; its `dim` is a keyword, and its 3 counts `torch.linalg.vecdot(x, y)` read as a method's call;
# take_along_dim flat)
DIM_DEFAULTS = {"tensor_split": 2, "split": 2, "chunk": 2, "cat": 1, "concat": 1, "stack": 1, "unbind": 1, "sum": 1, "mean": 1,
                "roll": 2, "repeat_interleave": 2, "vecdot": 3, "take_along_dim": 2}
_DIM_KEYWORD = {"roll": "dims"}  # the keyword of a call's axis, where it is not `dim`
DIMS = (-1, 0, 1, -2, -3)  # the axes a learner most often meant (-3: the time axis of (..., T, d) read from (..., T, T, d))

# a loop's control or its running values, or which arm of a conditional: said alone, even where a change of the
# reference fits (verdict.py)
FLOW_MENDS = ("jump", "outdent", "once", "start_before", "carry", "accumulate", "add_into", "arms_swapped")
# mends said after a relation between outputs (verdict.py): each names a function, a flag, a number
# or an operator; another variable that happens to mend it (`m` of every score) is no such name
NAMING_MENDS = ("rename", "add_kw", "const", "wrap", "regroup", "compare", "binop", "drop_kw", "subscripts", "factor_moved",
                "unsub", "ceil", "into_exponent", "one_tuple", *HABIT_OPS, *API_OPS, *OWN_OPS, RETURNED_STEP)
AXIS_MENDS = ("first", "unwrap")  # an axis (or a call) taken away: said after "an extra axis of size 1" (verdict.py)

_WRAPS = ("exp", "log")


def _factors(node: ast.expr) -> list[ast.expr]:
    """The factors of a product, `B * T * H` -> [B, T, H]; a lone expression is its own."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _sized_plus_number(node: ast.BinOp) -> bool:
    """`x.shape[:-1] + 1` (or `1 + x.size()`): a whole number added to a shape, which is a tuple."""
    def a_shape(side: ast.AST) -> bool:  # `x.shape`, `x.shape[:-1]` (a slice of it is a tuple too), `x.size()`
        if isinstance(side, ast.Subscript) and isinstance(side.slice, ast.Slice):
            side = side.value
        return (isinstance(side, ast.Attribute) and side.attr == "shape") or (
            isinstance(side, ast.Call) and call_name(side) == "size" and not side.args and not side.keywords)

    sides = (node.left, node.right)
    return sum(isinstance(s, ast.Constant) and type(s.value) is int for s in sides) == 1 and sum(map(a_shape, sides)) == 1


def mend_changes(fdef: ast.FunctionDef) -> list[Change]:
    """The learner-only changes of `fdef`, in the order of its nodes."""
    nodes = list(ast.walk(fdef))
    index = {id(n): i for i, n in enumerate(nodes)}
    statement_of: dict[int, ast.stmt] = {}
    for node in nodes:  # outer statements come first in ast.walk: an inner one overwrites them
        if isinstance(node, ast.stmt) and node is not fdef:
            statement_of.update((id(inner), node) for inner in ast.walk(node))
    docstring = fdef.body[0] if ast.get_docstring(fdef, clean=False) is not None else None
    found: list[Change] = []
    name = fdef.name
    bound = sorted({a.arg for a in fdef.args.args} | {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)})
    loops = loop_names(fdef)
    # the names bound from a size (`B, H, T, _ = x.shape`, `n = len(ids)`): a number subtracted may be meant as one
    sized = sorted(size_names(fdef))
    views = _views(nodes)
    counters = {n.target.id for n in nodes if isinstance(n, ast.For) and isinstance(n.target, ast.Name)
                and isinstance(n.iter, ast.Call) and call_name(n.iter) == "range"}
    # the body's nodes only: an annotation (`x: Tensor | None`) or a default (`s=1 / 2`) is no step
    for node in (n for n in nodes if id(n) in statement_of):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and node is not docstring:
            found.append(Change(name, index[id(node)], "drop", None, "step", f"the line `{quote(node, 70)}` left out",
                                node.lineno))
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):  # `q, v = ...`: a few names, few changes
            found += _rebinds(name, node, bound, loops, index[id(node)])
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript)
                and picked_ids(node.targets[0]) is not None):  # `hot[ids] = 1.0`: whole rows (or columns), by a tensor of ids
            picked = edit(node.targets[0], Change(name, 0, "each_row", None, "index", ""))
            found.append(Change(name, index[id(node.targets[0])], "each_row", None, "index",
                                f"`{quote(picked)}` for `{quote(node.targets[0])}`", node.lineno))
        if isinstance(node, ast.Assign) and _running_start(fdef, node):  # `m = torch.zeros(...)`, then max(m, s)
            found.append(Change(name, index[id(node.value)], "wrap", "log", "constant",
                                f"`-inf` for `0` as the start of `{node.targets[0].id}` (`{quote(node.value)}`)", node.lineno))
        if isinstance(node, ast.Assign) and _adds_to_a_view(node, views):
            found.append(Change(name, index[id(node)], "in_place", None, "step",
                                f"`{quote(edit(node, Change(name, 0, 'in_place', None, 'step', '')))}` for `{quote(node)}`", node.lineno))
        if isinstance(node, ast.If) and len(node.body) > 1:
            for op, moved, where in (("hoist", node.body[0], "before"), ("sink", node.body[-1], "after")):
                found.append(Change(name, index[id(node)], op, None, "order",
                                    f"`{moved_text(moved)}` moved out of `{quote_statement(node)}`, {where} it", moved.lineno))
        if (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.value, ast.Name)
                and node.value.id in counters):  # `counts[a, b] += i`: the counter where each pass adds one
            found.append(Change(name, index[id(node.value)], "const", 1, "constant",
                                f"`1` for `{node.value.id}` in `{quote_statement(node)}`", node.lineno))
        if (isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and call_name(node.iter) == "range"
                and len(node.iter.args) == 1 and not node.iter.keywords):
            found.append(Change(name, index[id(node.iter)], "from_one", None, "offset",
                                f"`range(1, {quote(node.iter.args[0])})` for `{quote(node.iter)}`", node.lineno))
        if isinstance(node, (ast.For, ast.While)) and len(node.body) > 1 and isinstance(node.body[-1], ast.Return):
            found.append(Change(name, index[id(node)], "outdent", None, "order",
                                f"`{quote_statement(node.body[-1])}` moved out of `{quote_statement(node)}`, after it", node.body[-1].lineno))
        flag = FLAGS.get(call_name(node)) if isinstance(node, ast.Call) else None
        if flag and flag[0] not in {k.arg for k in node.keywords} and (node.args or node.keywords):
            found.append(Change(name, index[id(node)], "add_kw", flag, "arguments",
                                f"`{quote(edit(node, Change(name, 0, 'add_kw', flag, 'arguments', '')))}` for `{quote(node)}`",
                                statement_of[id(node)].lineno))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("view", "reshape")
                and len(node.args) == 2 and number_of(node.args[0]) == -1 and not node.keywords):  # `ids.view(-1, 2)`
            windows = edit(node, Change(name, 0, "overlap", None, "call", ""))
            found.append(Change(name, index[id(node)], "overlap", None, "call", f"`{quote(windows)}` for `{quote(node)}`",
                                statement_of[id(node)].lineno))
        if isinstance(node, ast.Call) and call_name(node) in SIZE_CALLS:
            found += _numbers_for_sizes(fdef, bound, node, index, statement_of[id(node)].lineno)
            found += _counts_off_by_one(name, node, index, statement_of[id(node)].lineno)
        if isinstance(node, ast.Call):
            found += _dims(name, node, index[id(node)], statement_of[id(node)].lineno)
            found += _one_axis(name, node, index, statement_of[id(node)].lineno)
            found += einsum_spellings(name, node, index, statement_of[id(node)].lineno)
        if (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(node.left, ast.Subscript)
                and isinstance(node.right, ast.Constant) and type(node.right.value) is int
                and not isinstance(node.left.slice, (ast.Slice, ast.Tuple))):
            moved = edit(node, Change(name, 0, "into_index", None, "offset", ""))
            found.append(Change(name, index[id(node)], "into_index", None, "offset", f"`{quote(moved)}` for `{quote(node)}`",
                                statement_of[id(node)].lineno))
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id in counters:
            found += _counts_as_starts(fdef, node, index)
        if isinstance(node, (ast.Break, ast.Continue)):
            mended = "continue" if isinstance(node, ast.Break) else "break"
            found.append(Change(name, index[id(node)], "jump", mended, "step",
                                f"`{mended}` for `{'break' if mended == 'continue' else 'continue'}`", node.lineno))
        if not isinstance(node, ast.BinOp):
            continue
        statement = statement_of[id(node)]
        where = f" in `{quote_statement(statement)}`"
        if (isinstance(node.op, ast.Pow) and not isinstance(node.right, ast.Constant) and isinstance(node.left, ast.Call)
                and len(node.left.args) == 1 and not node.left.keywords):  # `cos(theta) ** p` for `cos(theta * p)`
            inside = edit(node, Change(name, 0, "power_inside", None, "function", ""))
            found.append(Change(name, index[id(node)], "power_inside", None, "function",
                                f"`{quote(inside)}` for `{quote(node)}`", statement.lineno))
        if isinstance(node.op, ast.Sub) and isinstance(node.right, ast.Constant) and type(node.right.value) is int and node.right.value >= 1:
            found += [Change(name, index[id(node.right)], "size_for", other, "variable",  # `- 1` where one per sequence, `- B`
                             f"`{other}` for `{node.right.value}` in `{quote(node)}`", statement.lineno) for other in sized]
        if isinstance(node.op, ast.Add) and _sized_plus_number(node):  # `x.shape[:-1] + 1`, a Size and a number
            found.append(Change(name, index[id(node)], "one_tuple", None, "arguments",
                                f"`{quote(edit(node, Change(name, 0, 'one_tuple', None, 'arguments', '')))}` for `{quote(node)}`{where}",
                                statement.lineno))
        if isinstance(node.op, ast.FloorDiv) and not isinstance(node.right, ast.Constant):  # `T // block`, rounded down
            found.append(Change(name, index[id(node)], "ceil", None, "offset",
                                f"`-(-{quote(node)})` for `{quote(node)}`{where}", statement.lineno))
        if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant):  # a power taken out (`** 0.75`)
            found.append(Change(name, index[id(node)], "left", None, "factor",
                                f"`** {quote(node.right)}` removed from `{quote_statement(statement)}`", statement.lineno))
        if isinstance(node.op, (ast.Div, ast.Mult, ast.Sub)) and not isinstance(node.right, ast.Constant):
            for wrap in _WRAPS:
                found.append(Change(name, index[id(node.right)], "wrap", wrap, "function",
                                    f"`torch.{wrap}({quote(node.right)})` for `{quote(node.right)}`{where}", statement.lineno))
        if (isinstance(node.op, (ast.Div, ast.Mult, ast.Add, ast.Sub)) and isinstance(node.left, ast.Call) and node.left.args
                and not isinstance(node.right, ast.Constant) and function_form(node.left)):
            inside = edit(node, Change(name, 0, "factor_inside", None, "factor", ""))
            found.append(Change(name, index[id(node)], "factor_inside", None, "factor",
                                f"`{quote(inside)}` for `{quote(node)}`{where}", statement.lineno))
        if (isinstance(node.op, (ast.Div, ast.Mult)) and isinstance(node.left, ast.BinOp)
                and isinstance(node.left.right, ast.BinOp) and isinstance(node.left.right.op, ast.Pow)):
            moved = edit(node, Change(name, 0, "into_exponent", None, "order", ""))
            found.append(Change(name, index[id(node)], "into_exponent", None, "order",
                                f"`{quote(moved)}` for `{quote(node)}`{where}", statement.lineno))
        for side in ("right", "left"):
            inner = getattr(node, side)
            if isinstance(inner, ast.BinOp) and type(inner.op) is not type(node.op):
                regrouped = edit(node, Change(name, 0, "regroup", side, "order", ""))
                found.append(Change(name, index[id(node)], "regroup", side, "order",
                                    f"`{quote(regrouped)}` for `{quote(node)}`{where}", statement.lineno))
        if isinstance(node.op, (ast.Add, ast.Sub)):
            found += [Change(name, index[id(node)], "factor_moved", arg, "factor",
                             f"`{quote(edit(node, Change(name, 0, 'factor_moved', arg, 'factor', '')))}` for `{quote(node)}`{where}",
                             statement.lineno) for arg in _factor_moves(node)]
        if isinstance(node.op, (ast.Add, ast.Sub)) and count_side(node.left) and count_side(node.right):
            for delta in (1, -1):
                sign = "+" if delta > 0 else "-"
                found.append(Change(name, index[id(node)], "shift", delta, "offset",
                                    f"`{quote(node)} {sign} 1` for `{quote(node)}`{where}", statement.lineno))
        if isinstance(node.op, (ast.Div, ast.FloorDiv)):
            # a mean over a count one too many: `/ T` where T - 1 rows were summed, or one factor of
            # a count, `/ (B * T)` where B * (T - 1) cells were
            for count, delta in ((c, d) for c in _factors(node.right) if count_side(c) for d in (-1, 1)):
                sign = "+" if delta > 0 else "-"
                found.append(Change(name, index[id(count)], "shift", delta, "offset",
                                    f"`{quote(count)} {sign} 1` for `{quote(count)}`{where}", statement.lineno))
    # a loop's restarted state first: few changes, each a whole kind of mistake, tried before the budget runs out
    return (loop_starts(fdef, index) + loop_carries(fdef, index) + found + habit_mends(fdef, index) + api_mends(fdef, index)
            + own_mends(fdef, index))


_RUNNING = ("maximum", "fmax", "logaddexp", "max")  # a running maximum or log-sum, carried as its first argument


def _running_start(fdef: ast.FunctionDef, node: ast.Assign) -> bool:
    """`m = torch.zeros(...)` (or `zeros_like`, `new_zeros`), later `m = torch.maximum(m, ...)` or
    `torch.logaddexp(m, ...)`: a running maximum or log-sum, whose start (nothing seen yet) is -inf;
    log(0) = -inf makes that start from the learner's own zeros, in its shape and dtype."""
    if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
            and call_name(node.value) in ("zeros", "zeros_like", "new_zeros")):
        return False
    carried = node.targets[0].id
    return any(isinstance(n, ast.Call) and call_name(n) in _RUNNING and len(n.args) == 2
               and any(isinstance(a, ast.Name) and a.id == carried for a in n.args) for n in ast.walk(fdef))


def loop_names(fdef: ast.FunctionDef) -> set[str]:
    """The names a `for` of the function binds (their value after the loop is its last step)."""
    names = set()
    for node in ast.walk(fdef):
        if isinstance(node, (ast.For, ast.comprehension)):
            names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return names


# the calls whose result shares the memory of the tensor they are called on
_VIEW_CALLS = ("view", "narrow", "select", "unflatten", "diagonal")


def _views(nodes: list[ast.AST]) -> set[str]:
    """The names the function sets to a slice or a view of another tensor (`dq_i = dq[..., rows, :]`)."""
    return {n.targets[0].id for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
            and (isinstance(n.value, ast.Subscript) or (isinstance(n.value, ast.Call) and call_name(n.value) in _VIEW_CALLS))}


def _adds_to_a_view(node: ast.Assign, views: set[str]) -> bool:
    """`x = x + y` (or -, *, /) where x is a view: a new tensor, the viewed one left as it was."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) or node.targets[0].id not in views:
        return False
    value = node.value
    return (isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub, ast.Mult, ast.Div))
            and isinstance(value.left, ast.Name) and value.left.id == node.targets[0].id)


def _one_axis(name: str, node: ast.Call, index: dict[int, int], line: int) -> list[Change]:
    """A reduction over a tuple of axes (`dim=(-2, -1)`) made one over each of them alone."""
    if call_name(node) not in FLAGS:
        return []
    given = [(f"{k.arg}=", k.value) for k in node.keywords if k.arg in ("dim", "axis")] + [("", a) for a in node.args]
    found = []
    for prefix, axes in given:
        if not (isinstance(axes, ast.Tuple) and len(axes.elts) > 1
                and all(type(number_of(e)) is int for e in axes.elts)):
            continue
        found += [Change(name, index[id(axes)], "const", number_of(e), "axis",
                         f"`{prefix}{number_of(e)}` for `{prefix}{quote(axes)}` in `{call_name(node)}(...)`", line) for e in axes.elts]
    return found


def _rebinds(name: str, node: ast.Assign, bound: list[str], loops: set[str], at: int) -> list[Change]:
    """A name the statement both reads and sets, put for another name at each of its places there
    (`q, k = rope(q), rope(k)` for `q, v = rope(q), rope(v)`: the values rotated where the keys were
    meant). Loops' variables are left alone (after the loop they hold the last step's value)."""
    stored = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    read = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    found = []
    for old in sorted((stored & read) - loops):
        for new in (b for b in bound if b not in stored | loops):
            change = Change(name, at, "rebind", (old, new), "variable", "", node.lineno)
            found.append(Change(name, at, "rebind", (old, new), "variable",
                                f"`{quote(edit(node, change), 70)}` for `{quote(node, 70)}`", node.lineno))
    return found


# torch's calls whose whole numbers are sizes (a window, a step, a chunk, a shape): elsewhere a
# number (a range's bound, a helper's argument) is no size, and a name put for it mends only by
# chance (`alibi_slopes(hs)` for `alibi_slopes(1)`, where 2 ** (-8 / hs) happens to be the slope)
SIZE_CALLS = TENSOR_MAKERS | {"unfold", "view", "reshape", "split", "chunk", "tensor_split", "narrow", "unflatten",
                              "repeat", "expand"}


def _counts_as_starts(fdef: ast.FunctionDef, loop: ast.For, index: dict[int, int]) -> list[Change]:
    """A block's number taken for its first position (`scaled`): in `for kb in range(n_blocks)`,
    `ks = kb` or `x.narrow(-2, kb, n)` where `kb * block` was meant, for each name the function is
    given (a size such as `block`; which are whole numbers is known only when it runs)."""
    counter = loop.target.id
    given = [a.arg for a in fdef.args.args if a.arg != counter]
    places = []
    for node in (n for part in loop.body for n in ast.walk(part)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == counter:
            places.append((node.value, node.lineno))
        if isinstance(node, ast.Call) and call_name(node) == "narrow":  # x.narrow(dim, start, length), torch.narrow(x, ...)
            function_form = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
            at = 2 if function_form else 1
            start = next((k.value for k in node.keywords if k.arg == "start"), node.args[at] if len(node.args) > at else None)
            if isinstance(start, ast.Name) and start.id == counter:
                places.append((start, node.lineno))
    return [Change(fdef.name, index[id(place)], "scaled", other, "factor", f"`{counter} * {other}` for `{counter}`", line)
            for place, line in places for other in given]


def _numbers_for_sizes(fdef: ast.FunctionDef, names: list[str], node: ast.Call, index: dict[int, int],
                       line: int) -> list[Change]:
    """A whole number given to a call (`unfold(-1, head_size, 1)`'s step) replaced by each of
    `names`, those the function binds or is given: a fixed number where a size was meant. Which
    names hold whole numbers is known only when it runs (repair.py keeps those)."""
    numbers = [a for a in (*node.args, *(k.value for k in node.keywords if k.arg not in ("dim", "axis")))
               if isinstance(a, ast.Constant) and type(a.value) is int and a.value >= 1]
    return [Change(fdef.name, index[id(a)], "size_for", other, "variable", f"`{other}` for `{a.value}` in `{quote(node)}`", line)
            for a in numbers for other in names]


def _counts_off_by_one(name: str, node: ast.Call, index: dict[int, int], line: int) -> list[Change]:
    """A size read from a tensor and handed to a maker, one more or one less (`shift`)."""
    return [Change(name, index[id(a)], "shift", delta, "offset",
                   f"`{quote(a)} {'+' if delta > 0 else '-'} 1` for `{quote(a)}` in `{quote(node)}`", line)
            for a in node.args if one_size(a) for delta in (-1, 1)]


def _dims(name: str, node: ast.Call, at: int, line: int) -> list[Change]:
    """`dim=` added to a call that left its axis to the default, for each of DIMS."""
    before = DIM_DEFAULTS.get(call_name(node) or "")
    if before is None or {k.arg for k in node.keywords} & {"dim", "dims", "axis"}:
        return []
    if function_form(node):
        given = len(node.args)
    elif call_name(node) in ("cat", "concat", "stack"):
        return []  # no method of that name on a tensor: a list's or another object's
    else:
        given = len(node.args) + 1
    if given > before or any(isinstance(a, ast.Starred) for a in node.args):
        return []
    keyword = _DIM_KEYWORD.get(call_name(node) or "", "dim")
    return [Change(name, at, "add_kw", (keyword, d), "arguments",
                   f"`{quote(edit(node, Change(name, 0, 'add_kw', (keyword, d), 'arguments', '')))}` for `{quote(node)}`", line)
            for d in DIMS]


def _factor_moves(node: ast.BinOp) -> list[tuple[str, str]]:
    """(the side of the sum whose product loses a factor, which factor of it) for each factor of a
    product on one side of `a + f * b` that may belong on the other side (`f * a + b`)."""
    moves = []
    for side in ("left", "right"):
        term = getattr(node, side)
        if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult):
            moves += [(side, "left"), (side, "right")]
    return moves
