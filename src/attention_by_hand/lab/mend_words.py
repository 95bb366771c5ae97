"""What a mend says about the learner's mistake, in words: the inverse of the change that mends it.

A change made to the learner's code (repair.py) is described the way mutants.py describes a change of the
reference: "the term `1` dropped", "`v` transposed". Made to the learner's code, it says what the learner
should do; the mistake is its inverse: a term too many, a transpose missing. Here each kind of change is
turned round into the mistake it mends, and a change at the bounds of a `range` or a slice says which end
("the loop starts one step late"). The learner-only mends of own_mends.py's families are said in their
modules' own words.

Left out: the change itself in code (mutants.py quotes it), and which change mends (repair.py).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.api_mends import API_OPS, FLATTENING, api_words
from attention_by_hand.lab.code_layout import BINDING, a_factor, new_axes_only, parents as parents_in, picked_ids, whole_slice
from attention_by_hand.lab.einsum_words import subscripts_words
from attention_by_hand.lab.habit_mends import HABIT_OPS, habit_words
from attention_by_hand.lab.loop_starts import carry_words, start_words
from attention_by_hand.lab.mutant_edits import CMP, OPS, TENSOR_MAKERS, Change, call_name, factor_parts, moved_text, number_of, quote_statement
from attention_by_hand.lab.own_mends import OWN_OPS, own_words

__all__ = ["WRONG_AXIS", "mistake_words", "mend_said"]

WRONG_AXIS = "the wrong axis"  # the words of a number mended that names an axis

# A comparison in words: a learner reads `>=` as "greater than or equal".
_COMPARED = {">": "greater than", ">=": "greater than or equal", "<": "less than", "<=": "less than or equal",
             "==": "equal", "!=": "not equal"}
_OP_NAMES = {kind.__name__: sign for kind, sign in OPS.items()}
# An operation in words: `slope ** dist` is a power where a product was meant.
_OP_WORDS = {"+": "a sum", "-": "a difference", "*": "a product", "/": "a division", "//": "a whole-number division",
             "%": "a remainder (what a whole-number division leaves over)",
             "**": "a power", "@": "a matrix product", "|": "an either-or of two masks", "&": "a both-and of two masks"}


def _bound(node: ast.AST, parents: dict[int, ast.AST]) -> tuple[str | None, int]:
    """('start' or 'stop', sign) when the node is (a term of) a bound of a `range` a `for` walks,
    ('slice start' or 'slice end', sign) for a slice's, else (None, 0). sign: +1 when the bound
    grows as the node grows, -1 when it shrinks (the node is subtracted: `n - k`)."""
    sign = 1
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub)):
            sign *= -1 if isinstance(parent.op, ast.Sub) and node is parent.right else 1
            node = parent
            continue
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "range" and node in parent.args:
            loop = parents.get(id(parent))
            if not (isinstance(loop, ast.For) and loop.iter is parent):
                return None, 0  # a range that no `for` walks has no first or last step
            if len(parent.args) == 1 or parent.args.index(node) == 1:
                return "stop", sign
            return ("start", sign) if parent.args.index(node) == 0 else (None, 0)
        if isinstance(parent, ast.Slice):
            return ("slice start" if node is parent.lower else "slice end" if node is parent.upper else None), sign
        return None, 0


def _shape_index(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """An index into a `.shape` (`x.shape[2]`): a change of it is another axis, not a count."""
    parent = parents.get(id(node))
    return (isinstance(parent, ast.Subscript) and parent.slice is node and isinstance(parent.value, ast.Attribute)
            and parent.value.attr == "shape")


def _exponent(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """The number a power raises to (the 2 of `d ** 2`)."""
    parent = parents.get(id(node))
    return isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow) and parent.right is node


_POWERS = {(2, 1): "squared where the value itself is needed", (1, 2): "the square missing",  # (the learner's exponent, the mend's)
           (0.5, 1): "a square root too many", (1, 0.5): "a square root missing"}


def _factor(node: ast.AST, change: Change, parents: dict[int, ast.AST]) -> str | None:
    """A number that multiplies or divides, mended to another: so many times what it should be,
    whatever the two numbers (2 for 1 is a factor of two, not a count off by one)."""
    parent = parents.get(id(node))
    mine, theirs = getattr(node, "value", None), change.arg
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div, ast.FloorDiv)) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0 for v in (mine, theirs))):
        return None
    if isinstance(parent.op, ast.FloorDiv):  # `d // 2` where `d // 1`: a divisor, and what it leaves is whole
        if parent.right is not node:
            return None
        return f"the wrong divisor: `// {mine}` where `// {theirs}` is needed"
    ratio = mine / theirs if isinstance(parent.op, ast.Mult) or parent.left is node else theirs / mine
    said = f"`* {mine}` where `* {theirs}`" if isinstance(parent.op, ast.Mult) else (
        f"`/ {mine}` where `/ {theirs}`" if parent.right is node else f"`{mine} / ...` where `{theirs} / ...`")
    return f"the wrong factor: {said} is needed (there, {ratio:.3g} times what it should be)"


def _one_apart(old: ast.AST, new: object) -> bool:
    value = getattr(old, "value", None)
    whole = [isinstance(v, int) and not isinstance(v, bool) for v in (value, new)]
    return all(whole) and abs(value - new) == 1


# (bound, the mend moves it up) -> the learner's mistake
_AT_BOUND = {
    ("start", False): "off by one: the loop starts one step late, so its first step is never made",
    ("start", True): "off by one: the loop starts one step early, a step before the first",
    ("stop", True): "off by one: the loop stops one step early, so its last step is never made",
    ("stop", False): "off by one: the loop runs one step too many",
    ("slice start", False): "off by one: the slice starts one place late, its first entry left out",
    ("slice start", True): "off by one: the slice starts one place early, an entry too many",
    ("slice end", True): "off by one: the slice ends one place early, its last entry left out",
    ("slice end", False): "off by one: the slice ends one place late, an entry too many",
}


def _delta(node: ast.AST, change: Change) -> int | None:
    """How far the mend moves the number: +1 when the mended value is one more than the learner's."""
    if change.op == "const" and _one_apart(node, change.arg):
        return change.arg - node.value
    if change.kind == "term" and isinstance(node, ast.BinOp):
        sign = {ast.Sub: 1, ast.Add: -1}.get(type(node.op))
        return sign if change.op == "left" else None
    if change.op == "shift" and change.arg in (1, -1):
        return change.arg
    return None


def _one_axis_cut(index: ast.AST) -> tuple[ast.Slice | None, str]:
    """The one slice of an index that cuts a single axis (`[1:]`, `[..., :-1]`, `[:, 2:]`), with
    that axis in words ("its first axis", "its last axis", "axis 1"); (None, "") otherwise."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    cuts = [p for p in parts if isinstance(p, ast.Slice) and not whole_slice(p)]
    rest = [p for p in parts if p not in cuts]
    dots = [i for i, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is Ellipsis]
    if len(cuts) != 1 or len(dots) > 1 or not all(isinstance(p, ast.Slice) or i in dots for i, p in enumerate(parts) if p in rest):
        return None, ""
    at = parts.index(cuts[0])
    if dots and dots[0] < at:  # counted from the end
        back = len(parts) - 1 - at
        return cuts[0], "its last axis" if back == 0 else f"axis {-1 - back}"
    return cuts[0], "its first axis" if at == 0 else f"axis {at}"


def mistake_words(fdef: ast.FunctionDef, change: Change) -> str | None:  # noqa: C901 - one branch per kind, flat
    """The learner's mistake that `change` of its function `fdef` mends, in words, or None."""
    nodes = list(ast.walk(fdef))
    if not 0 <= change.index < len(nodes):
        return None
    node, parents = nodes[change.index], parents_in(fdef)
    op, kind = change.op, change.kind
    if op == "once":
        return start_words([node], parents.get(id(node)), movable=False)
    if op in ("carry", "accumulate"):
        return carry_words(node, change)
    if op == "start_before" and isinstance(node, (ast.For, ast.While)) and all(0 <= i < len(node.body) for i in change.arg):
        return start_words([node.body[i] for i in change.arg], node)
    if op in HABIT_OPS:
        return habit_words(node, change)
    if op in OWN_OPS:
        return own_words(node, change)
    if op in API_OPS:
        return api_words(node, change, fdef, parents)
    if op == "const" and _exponent(node, parents):  # `** 2` for `** 1` is a power, not a count off by one
        return _POWERS.get((node.value, change.arg), f"the wrong power: `** {node.value}` where `** {change.arg}` is needed")
    if op == "const" and kind == "axis" and isinstance(node, ast.Tuple):
        return f"the reduction over {len(node.elts)} axes at once (`{_short(node)}`), where it works along axis {change.arg} alone"
    if op == "factor_inside" and isinstance(node, ast.BinOp) and isinstance(node.left, ast.Call):
        # `- (b - c)` keeps its brackets: a right side that binds no tighter than the operation is one term
        right = node.right
        loose = isinstance(right, ast.BinOp) and BINDING.get(type(right.op), 0) <= BINDING.get(type(node.op), 0)
        term = f"({_short(right)})" if loose else _short(right)
        return f"`{OPS[type(node.op)]} {term}` applied to what `{call_name(node.left)}` returns, where it belongs on its input"
    if op == "into_exponent" and isinstance(node, ast.BinOp):
        return (f"brackets: `{OPS[type(node.op)]} {_short(node.right)}` stands outside the power `{_short(node.left.right)}`, "
                "where it belongs in its exponent")
    if op == "each_row" and isinstance(node, ast.Subscript) and (picked := picked_ids(node)) is not None:
        table, ids = _short(node.value), _short(picked)
        whole = f"whole rows of `{table}`, those" if picked is node.slice else f"in EVERY row of `{table}` the columns"
        return f"`{_short(node)}` picks {whole} whose numbers are in `{ids}`, where one entry per row is meant: row i's at column {ids}[i]"
    if op == "overlap" and isinstance(node, ast.Call):
        k = _short(node.args[1])
        return (f"`{_short(node)}` cuts the sequence into windows of {k} that do not overlap (the first {k}, then the next {k}, ...), "
                f"where every window is meant, each starting one place after the last")
    if op == "from_one":
        return "off by one: the loop starts at 0, one step early, so its pass for 0 is one too many"
    if op == "one_tuple":
        return "a shape is a tuple (torch.Size): `+` joins it to another tuple, so one more axis is `+ (1,)`, and a number raises"
    if op == "ceil" and isinstance(node, ast.BinOp):
        return f"`{_short(node)}` rounds down, so a last, shorter part is left out; `-(-{_short(node)})` rounds up and counts it"
    if op == "into_index" and isinstance(node, ast.BinOp):
        added = isinstance(node.op, ast.Add)
        n, to = node.right.value, "added to" if added else "taken from"
        return (f"{n} {to} the entry, not {to} its index: `{_short(node)}` is a value "
                f"{'plus' if added else 'minus'} {n}, not another entry")
    if op == "factor_moved" and isinstance(node, ast.BinOp):
        factor, rest, other = factor_parts(node, change.arg)
        return (f"the factor `{_short(factor)}` on the wrong term: it multiplies `{_short(rest)}`, where it belongs "
                f"on `{_short(other)}`")
    if op == "subscripts" and isinstance(node, ast.Constant):
        return subscripts_words(str(node.value), str(change.arg))
    if op == "add_kw" and change.arg[0] in ("dim", "dims") and isinstance(node, ast.Call):
        called = call_name(node)
        works = "along its default axis, the " + ("last (dim -1)" if called == "vecdot" else "first (dim 0)")
        if called in ("sum", "mean"):
            works = "along every axis at once, to one number"
        elif called == "take_along_dim":  # NumPy's take_along_axis asks for its axis; torch's reads flat without one
            works = ("on the tensor flattened to one row: each index counts from the first entry of the whole tensor, "
                     "and it returns one flat row")
        elif called in FLATTENING:  # roll shifts across rows; repeat_interleave returns the one row
            works = "on the tensor flattened to one row" + (", so entries cross from one row into the next" if called == "roll"
                                                            else ", and returns that row")
        return f"`{change.arg[0]}={change.arg[1]}` left out: `{called}` then works {works}"
    if op == "add_kw":
        flag = f"`{change.arg[0]}={change.arg[1]}`"
        return (f"{flag} left out: the fused attention then lets every token see the later ones" if change.arg[0] == "is_causal"
                else f"{flag} left out: the reduced axis is dropped, so the result no longer lines up with the rows it came from")
    parent = parents.get(id(node))
    if (op == "const" and change.arg == 0 and isinstance(node, ast.Constant) and node.value == 1
            and isinstance(parent, ast.Call) and call_name(parent) in TENSOR_MAKERS and node in parent.args):
        # a size of 1 made 0: the tensor made holds one slot too many (a pad, a sink), no count off by one
        return f"an extra slot: `{_short(parent)}` makes one entry along an axis where none is meant"
    if op == "left" and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):  # the power taken out
        exponent = node.right.value if isinstance(node.right, ast.Constant) else None
        return _POWERS.get((exponent, 1), f"a power too many (`** {_short(node.right)}`)")
    if op == "rebind":
        return f"`{change.arg[0]}` where `{change.arg[1]}` belongs, at each of its places on that line"
    if op == "flip":  # a count run from its end: no bound one off, the whole order turned round
        return "the order reversed: counted from the end, where it counts from the start"
    made_one = _made_one(fdef, node, change, parents)
    if made_one:
        return made_one
    scaled = _factor(node, change, parents) if op == "const" else None
    if scaled:
        return scaled
    dropped = _dropped(node, op) if kind == "term" else None
    off_by_one = kind != "axis" and (
        (kind == "offset")
        or (isinstance(dropped, ast.Constant) and type(dropped.value) is int and dropped.value == 1)
        or (op == "const" and _one_apart(node, change.arg) and not _shape_index(node, parents)
            and not _counting_keyword(node, parents))
    )
    if off_by_one:
        (bound, sign), delta = _bound(node, parents), _delta(node, change)
        return _AT_BOUND[bound, delta * sign > 0] if bound and delta else "off by one"
    if kind == "term":
        if dropped is None:
            return None
        if _added_already(node, dropped, parents):
            return f"`{ast.unparse(dropped)}` added twice"
        return f"a term too many (`{ast.unparse(dropped)}`)"
    if kind == "axis" or (op == "const" and _shape_index(node, parents)):
        return WRONG_AXIS
    if kind == "comparison" and op == "compare" and isinstance(node, ast.Compare):
        mine, theirs = CMP.get(type(node.ops[0])), CMP.get(getattr(ast, str(change.arg), type(None)))
        if mine and theirs:
            return (f"the wrong comparison: `{mine}` ({_COMPARED[mine]}) where `{theirs}` ({_COMPARED[theirs]})"
                    " is needed")
    if op == "cond":  # the mend keeps one branch of the learner's `if`: the other is a special case
        return "a special case the reference does not make"
    if op == "keep_part":
        return "a part of the condition too many"
    if op == "binop" and kind == "comparison" and isinstance(node, ast.BinOp):  # `|` for `&` in a mask
        mine, theirs = _OP_NAMES.get(type(node.op).__name__), _OP_NAMES.get(str(change.arg))
        return f"the wrong operation: {_OP_WORDS[mine]} (`{mine}`) where {_OP_WORDS[theirs]} (`{theirs}`) is needed" if (
            mine in ("|", "&") and theirs in ("|", "&")) else None
    if kind == "comparison":  # an inverted mask: what it marks to keep it should mark to hide, or back
        return "a mask read the other way round" if op == "invert" else "a condition the other way round"
    if kind == "transpose" and op == "transpose":
        return f"`{_short(node)}` needs a transpose" if isinstance(node, ast.expr) else "a transpose missing"
    if kind == "transpose":
        inner = getattr(node, "value", None) if op == "attr" else getattr(getattr(node, "func", None), "value", None)
        return f"`{_short(inner)}` transposed once too often" if isinstance(inner, ast.expr) else "a transpose too many"
    if kind == "sqrt":
        return "a square root missing" if op == "sqrt" else "a square root too many"
    if kind == "factor" and op in ("left", "right"):
        return "a factor too many"
    if kind == "factor" and op == "times2" and _exponent(node, parents) and type(_number(node)) in (int, float):
        return _POWERS.get((_number(node), 2 * _number(node)), "the wrong power")
    if kind == "factor" and op == "times2":
        parent = parents.get(id(node))
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div) and node is parent.right:
            return f"twice what it should be: the divisor `{_short(node)}` is half what it should be"
        return "half what it should be (a factor 2 missing)"
    if kind in ("factor", "sign") and op == "binop" and isinstance(node, ast.BinOp):
        mine, theirs = _OP_NAMES.get(type(node.op).__name__), _OP_NAMES.get(str(change.arg))
        if not (mine and theirs):
            return None
        if mine == "*" and theirs == "/" and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Div):
            # `a / b * c` for `a / b / c`: one mend, and as often meant as `a / (b * c)` without brackets
            b, c = (f"({_short(n)})" if isinstance(n, ast.BinOp) and BINDING.get(type(n.op), 0) < 4 else _short(n)
                    for n in (node.left.right, node.right))  # `T - 1` and `B * 1` keep their brackets
            return (f"`/ {b} * {c}` is computed left to right: divided by {b}, then multiplied by {c}; "
                    f"to divide by both, bracket them, `/ ({b} * {c})`")
        return f"the wrong operation: {_OP_WORDS[mine]} (`{mine}`) where {_OP_WORDS[theirs]} (`{theirs}`) is needed"
    if kind == "sign":
        return "the sign the other way round"
    if op == "drop_kw":
        return "an argument too many"
    if op == "swap" and isinstance(node, ast.BinOp):  # `i - j` is no call: its sides, not arguments
        return f"`{_short(node)}` the other way round"
    if kind == "arguments":
        return "two arguments swapped"
    if kind in ("returned", "unpacked"):
        return "two values swapped"
    if op == "jump":
        return ("`break` where `continue` is needed: the loop stops at that pass, and every pass after it is left out"
                if change.arg == "continue" else
                "`continue` where `break` is needed: the loop goes on after the pass that should end it")
    if op == "power_inside" and isinstance(node, ast.BinOp) and isinstance(node.left, ast.Call):
        called = call_name(node.left)
        return (f"`{_short(node)}`, a power of the {called}, where the {called} of the product is meant: "
                f"`{called}(a) ** p` is not `{called}(a * p)`")
    if op == "in_place" and isinstance(node, ast.Assign):
        target = node.targets[0].id
        return (f"`{target} = {target} {OPS[type(node.value.op)]} ...` makes a new tensor, and the one `{target}` was taken from "
                f"(a slice or a view of it) keeps its old values; `{OPS[type(node.value.op)]}=` writes into it")
    if op in ("hoist", "sink") and isinstance(node, ast.If):
        moved = node.body[0] if op == "hoist" else node.body[-1]
        return (f"`{moved_text(moved)}` inside `{quote_statement(node)}` (one indent too deep): it is done only when "
                f"that branch is taken, where it is needed every time")
    if op == "const" and isinstance(node, ast.Name) and isinstance(parents.get(id(node)), ast.AugAssign):
        return f"the loop's counter `{node.id}` added on each pass, where each pass adds {change.arg}"
    if op == "outdent":
        return "the `return` inside the loop (one indent too deep): your function returns after the loop's first pass"
    if op == "regroup" and isinstance(node, ast.BinOp):
        return _brackets(node, change.arg)
    if kind == "order":
        return "the pieces joined in the other order" if op == "elts" else "two steps in the wrong order"
    if op == "unsub" and isinstance(node, ast.Subscript):  # the mend takes the whole of what was indexed
        whole, index = _short(node.value), _number(node.slice)
        if new_axes_only(node.slice):
            added = sum(isinstance(p, ast.Constant) and p.value is None for p in getattr(node.slice, "elts", [node.slice]))
            axes = "an axis of size 1" if added == 1 else f"{added} axes of size 1"
            return f"{axes} added, `{_short(node)}`, where `{whole}` is needed as it is: each `None` in an index adds one"
        if type(index) is int:
            which = {0: "the first entry", -1: "the last entry"}.get(index, "one entry")
            return f"only {which} along the first axis, `{_short(node)}`, where all of `{whole}` is needed"
        cut, axis = _one_axis_cut(node.slice)
        last = cut is not None and cut.lower is None and number_of(cut.upper) == -1
        first = cut is not None and number_of(cut.lower) == 1 and cut.upper is None
        if (last or first) and cut.step is None:
            end = "last" if last else "first"
            return f"`{whole}` without the {end} entry along {axis}, `{_short(node)}`, where all of it is needed"
        if cut is not None:
            return f"only a part, `{_short(node)}`, where all of `{whole}` is needed"
        return None  # an index of None, a list or a tensor: more, fewer or other entries, not "a part"
    if op == "first" and isinstance(node, ast.Name):
        return f"all of `{node.id}` where one slice of it, `{node.id}[0]`, is meant"
    if op == "scaled" and isinstance(node, ast.Name):
        return f"a block's number, `{node.id}`, where its first position, `{node.id} * {change.arg}`, is meant: the blocks start one apart"
    if op == "size_for" and isinstance(node, ast.Constant):
        return f"a fixed number, `{node.value}`, where the size `{change.arg}` is meant"
    if op == "size_for":
        return "the wrong size"
    if op == "exchange":
        return "two variables swapped"
    if kind == "variable":
        return "the wrong variable"
    if op == "wrap" and kind == "constant":  # log(0) = -inf: the start of a running maximum or log-sum
        carried = parents.get(id(node))
        carried = carried.targets[0].id if isinstance(carried, ast.Assign) and isinstance(carried.targets[0], ast.Name) else ""
        log_sum = any(isinstance(n, ast.Call) and call_name(n) == "logaddexp" and any(
            isinstance(a, ast.Name) and a.id == carried for a in n.args) for n in ast.walk(fdef))
        return ("a running log-sum started at 0 where it starts at -inf: exp(0) = 1 is counted in every sum" if log_sum else
                "a running maximum started at 0 where it starts at -inf: it never goes below 0, whatever the scores")
    if op == "wrap":
        return f"{'an' if str(change.arg)[0] in 'aeiou' else 'a'} {change.arg} missing"
    if op == "drop":
        return "a step the reference does not take"
    if kind == "function":
        return "the wrong function"
    if kind == "call":
        return "a call too many"
    if kind == "constant":
        return "the wrong constant"
    return None


# How tightly Python binds each operator: the higher, the sooner it is computed without brackets.


def _brackets(node: ast.BinOp, side: str) -> str:
    """Words for a mend that groups `node` the other way: why the learner's inner part, `side`
    of it, is computed first (Python's binding, left to right, or the learner's own brackets)."""
    inner = getattr(node, side)
    outer_rank, inner_rank = BINDING.get(type(node.op)), BINDING.get(type(inner.op))
    if outer_rank is None or inner_rank is None:
        return "brackets in another place"
    ops = f"`{OPS[type(inner.op)]}` before `{OPS[type(node.op)]}`"
    # without brackets, Python groups a o (b p c) only where p binds tighter (or is a right-handed **),
    # and (a o b) p c where o binds at least as tightly (same rank: left to right)
    if side == "right" and (inner_rank > outer_rank or (inner_rank == outer_rank == 4)):
        return f"brackets: Python computes `{_short(inner)}` first ({ops})"
    if side == "left" and inner_rank > outer_rank:
        return f"brackets: Python computes `{_short(inner)}` first ({ops})"
    if side == "left" and inner_rank == outer_rank != 4:
        return f"brackets: Python computes `{_short(inner)}` first (left to right)"
    return f"brackets: yours make Python compute `{_short(inner)}` first"


def _added_already(node: ast.AST, dropped: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether the dropped term is added anyway: `x += x + f(x)` adds x by its `+=` (the term one
    of the sum the `+=` adds, not inside a call: `y += tanh(x + y)` adds y once)."""
    statement = parents.get(id(node))
    while isinstance(statement, ast.BinOp) and isinstance(statement.op, ast.Add):
        statement = parents.get(id(statement))
    return (isinstance(node.op, ast.Add) and isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add)
            and ast.unparse(statement.target) == ast.unparse(dropped))


def _number(node: ast.AST) -> object:
    """The number a literal writes (`-1` is a minus applied to 1), else None."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _factors(node: ast.AST) -> list[str]:
    """The factors of a product, as code: `x * n / m` -> ["x * n / m"]; `x * n` -> ["x", "n", ...]."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [ast.unparse(node)]


def _made_one(fdef: ast.FunctionDef, node: ast.AST, change: Change, parents: dict) -> str | None:
    """A factor the reference does not have, which the mend turns into 1: `n / (n - 1)` made
    `n / n`, or a divisor `1 - p0` made `1`. That is no count off by one, nor a term too many."""
    from attention_by_hand.lab.mutant_edits import _tree_copy, edit

    if change.op not in ("left", "right", "const", "unsub") or not isinstance(node, ast.expr):
        return None
    try:
        new = edit(_tree_copy(node), change)
    except (ValueError, AttributeError, IndexError, TypeError):
        return None
    if new is None:
        return None
    text, parent = ast.unparse(new), parents.get(id(node))
    mine = _short(node)
    # the number of a call that the mend makes 1 (`math.sqrt(1)` for `math.sqrt(2)`): the call is the factor
    if (isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords and isinstance(new, ast.Constant)
            and _UNIT_AT.get(call_name(parent)) == new.value):
        node, mine, text, parent = parent, _short(parent), "1", parents.get(id(parent))
    mine = f"({mine})" if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) else mine
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div) and parent.right is node \
            and text in _factors(parent.left):
        return f"a factor too many: `{text} / {mine}`, which the mend makes 1"
    if text not in ("1", "1.0"):
        return None
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div)):
        return f"a factor too many: `{mine}`, which the mend makes 1"
    # `left = 1 - p0`, then `x / left`: the name is a factor or a divisor wherever it is read
    names = {t.id for t in getattr(parent, "targets", []) if isinstance(t, ast.Name)}
    reads = [n for n in ast.walk(fdef) if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)]
    if isinstance(parent, ast.Assign) and reads and all(a_factor(n, parents) for n in reads):
        return f"a factor too many: `{mine}`, which the mend makes 1"
    return None


# calls of one number, and the number that makes each 1
_UNIT_AT = {"sqrt": 1, "exp": 0, "abs": 1, "float": 1, "rsqrt": 1}


# keywords whose number is a place, a shift or a count: one more or less there is off by one
_OFFSET_KEYWORDS = {"diagonal", "offset", "shifts", "start", "end", "stop", "index", "length", "k", "steps", "repeats",
                    "split_size", "split_size_or_sections", "minlength", "num_classes"}


def _counting_keyword(node: ast.AST, parents: dict) -> bool:
    """Whether `node` is a keyword's number that is no place (`decimals=4`, `bins=10`, `p=2`)."""
    parent = parents.get(id(node))
    return isinstance(parent, ast.keyword) and parent.arg not in _OFFSET_KEYWORDS


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 30 else text[:12] + " ... " + text[-12:]


def _dropped(node: ast.AST, op: str) -> ast.AST | None:
    """The term a "term" change drops: the right side for "left" (which keeps the left), and so on."""
    if not isinstance(node, ast.BinOp):
        return None
    return node.right if op == "left" else node.left if op == "right" else None


def mend_said(event: dict, other: dict, at: str, other_at: str) -> tuple[str, str | None]:
    """A mend (repair.py's, as the child sent it) in a sentence, and its words for the room. Where
    another change mends it too and names another slip (`other`), both are said as alternatives:
    the outputs are the same either way, so which slip was made is the learner's to tell."""
    words, text = event.get("words"), event.get("text")
    if other.get("words") and other.get("text") and words:
        return (f"either of two changes gives the reference's values on every input tried (the outputs cannot "
                f"tell them apart): {words} ({at}), with {text}; or {other['words']} ({other_at}), with {other['text']}",
                f"{words}, or {other['words']}")
    said = f"{words} ({at})" if words else f"mended by one change at {at}"
    return f"{said}: with {text}, yours gives the reference's values on every input tried", words
