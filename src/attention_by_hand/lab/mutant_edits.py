"""How one small change is made to a reference function's syntax tree, and how a hint quotes it.

A `Change` names one edit at one node (mutants.py finds every one a function allows); `edit`
makes it on a copy of the node, `edit_statements` on a function's body (two steps in the other
order, or one step folded into the next), and `quote` prints the reference's own code that a hint
quotes. The tables of neighbours (max and min, triu and tril, ...), the slips a learner makes, are
neighbours.py's.
"""

from __future__ import annotations

import ast
import pickle
from dataclasses import dataclass, field

from attention_by_hand.lab.code_layout import OPS, call_name, number_of, regrouped
from attention_by_hand.lab.mend_edits import mend_edit
from attention_by_hand.lab.mutant_slices import SLICE_OPS, slice_edit
from attention_by_hand.lab.neighbours import ELEMENTWISE, KEYWORD_FOR

__all__ = ["KINDS", "Change", "AXIS_WORDS", "CMP", "COMMUTATIVE", "COMPARISONS", "Rename", "OPS", "STATEMENT_OPS", "TENSOR_MAKERS", "TRANSPOSES", "AXIS_KEYWORDS", "averaged", "call_name", "cut", "edit", "edit_statements", "fold_target", "given_name", "is_minus_inf", "locals_of", "moved_text", "number_of", "quote", "quote_statement", "replace_node", "speaks_of_positions", "step_name"]

# The kinds of change, in the order a match is preferred when two explain the same outputs.
KINDS = (
    "factor",
    "sqrt",
    "axis",
    "constant",
    "sign",
    "comparison",
    "function",
    "arguments",
    "returned",
    "unpacked",
    "transpose",
    "offset",
    "index",
    "order",
    "variable",
    "term",
    "call",
)

AXIS_WORDS = {"dim", "axis", "dim0", "dim1"}
STATEMENT_OPS = ("swap_next", "fold", "drop", "outdent", "hoist", "sink", "once", "start_before", "carry")
TRANSPOSES = {"transpose", "t", "permute"}
# torch's calls that make a tensor of the sizes they are given
TENSOR_MAKERS = frozenset({"zeros", "ones", "empty", "full", "randn", "rand", "new_zeros", "new_ones"})
COMMUTATIVE = (ast.Add, ast.Mult)
CMP = {ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!="}
# `>=` and `==` are neighbours too: a one-hot row compared with >= is a thermometer code.
COMPARISONS = {ast.Gt: (ast.GtE, ast.Lt), ast.GtE: (ast.Gt, ast.LtE, ast.Eq), ast.Lt: (ast.LtE, ast.Gt),
               ast.LtE: (ast.Lt, ast.GtE, ast.Eq), ast.Eq: (ast.NotEq, ast.GtE, ast.LtE), ast.NotEq: (ast.Eq,)}


@dataclass(frozen=True)
class Change:
    """One small change of one reference function: at node `index` (in ast.walk order of the
    function's definition), operation `op` with parameter `arg`."""

    function: str
    index: int
    op: str
    arg: object
    kind: str
    said: object = field(compare=False, repr=False)  # `text`, or a function that makes it when first asked
    line: int = 0  # the reference line of the statement it changes

    @property
    def text(self) -> str:
        """What it is, in the reference's code."""
        if callable(self.said):
            object.__setattr__(self, "said", self.said())
        return self.said

    @property
    def rank(self) -> int:
        # a kind made only of a learner's code (mend_changes.py: "step") ranks last
        return KINDS.index(self.kind) if self.kind in KINDS else len(KINDS)


def quote(node: ast.AST, limit: int = 60) -> str:
    return cut(ast.unparse(node), limit)


def cut(text: str, limit: int = 60) -> str:
    """Code quoted in a hint, its middle cut out past `limit` characters: its head and its tail say where."""
    return text if len(text) <= limit else text[: limit - 25] + " ... " + text[-20:]


def moved_text(statement: ast.stmt) -> str:
    """A statement quoted whole when it is one line (`s = s * scale`), by its header when it has a body."""
    return quote_statement(statement) if hasattr(statement, "body") else quote(statement, 70)


def quote_statement(node: ast.stmt) -> str:
    """A reference statement as quoted in a hint: `scores = ...`, `return ...`, `for j in ...`."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        return f"{ast.unparse(target)} {'=' if not isinstance(node, ast.AugAssign) else OPS.get(type(node.op), '') + '='} ..."
    if isinstance(node, ast.Return):
        return "return ..."
    if isinstance(node, (ast.For, ast.While, ast.If)):
        return ast.unparse(node).split("\n")[0][:40].rstrip(":") + ": ..."
    return quote(node, 40)


def is_minus_inf(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and call_name(node) == "float"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value in ("-inf", "-infinity")
    )


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def locals_of(fdef: ast.FunctionDef) -> list[str]:
    """Parameters and assigned names of a function, each where the walk of its tree first meets it
    (the parameters of a function or lambda it defines where the walk meets the `def`): `new` in
    `def grown(old, new): T = new.shape[2]` may be the slip for `old`. Put where it is not defined,
    such a name raises (or reads a global of that name) and mends nothing. No reference function of
    the labs defines one, so only a learner's code gets those names."""
    names = [a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs]
    for node in ast.walk(fdef):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not fdef:
            names += [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs if a.arg not in names]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in names:
            names.append(node.id)
    return names


def step_name(node: ast.expr) -> str:
    """A step as a learner names it: the call it makes (`softmax(...)`), else its code."""
    return f"{call_name(node)}(...)" if isinstance(node, ast.Call) and call_name(node) else quote(node, 30)


def fold_target(first: ast.stmt, second: ast.stmt) -> str | None:
    """The name n when `n = f(n)` is followed by a statement that uses n (a step to do after it)."""
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)):
        return None
    name = first.targets[0].id
    if name not in _names_in(first.value):
        return None
    value = getattr(second, "value", None)
    if not isinstance(second, (ast.Assign, ast.Return)) or value is None or name not in _names_in(value):
        return None
    return name


def _tree_copy(node: ast.AST) -> ast.AST:
    """A deep copy of a syntax tree: through pickle, several times faster than copy.deepcopy."""
    return pickle.loads(pickle.dumps(node, protocol=pickle.HIGHEST_PROTOCOL))


def replace_node(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for name, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, name, new)
            return
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new
                    return


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return _tree_copy(self.value)
        return node


class _Exchange(ast.NodeTransformer):
    """Every read of name a becomes b, and of b becomes a."""

    def __init__(self, a: str, b: str):
        self.other = {a: b, b: a}

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.other:
            return ast.Name(self.other[node.id], ast.Load())
        return node


class Rename(ast.NodeTransformer):
    """Every read of name a becomes b."""

    def __init__(self, a: str, b: str):
        self.a, self.b = a, b

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id == self.a:
            return ast.Name(self.b, ast.Load())
        return node


AXIS_KEYWORDS = {"dim", "axis", "keepdim"}  # the keywords that choose a reduction's axis


def given_name(name: str) -> str:
    """The name an argument's value as given is kept in, before the body can update it."""
    return f"_{name}_as_given"


def averaged(node: ast.Attribute) -> ast.Call:
    """x.mean(...) for x.max(...).values: the same axis, the average."""
    call = node.value
    return ast.Call(ast.Attribute(call.func.value, "mean", ast.Load()), call.args, call.keywords)


def factor_parts(node: ast.BinOp, arg: tuple[str, str]) -> tuple[ast.AST, ast.AST, ast.AST]:
    """(the factor, the term it multiplies, the other term of the sum) of a `factor_moved` change:
    arg = (the side of the sum holding the product, the side of the product holding the factor)."""
    side, which = arg
    product = getattr(node, side)
    factor, rest = (product.left, product.right) if which == "left" else (product.right, product.left)
    return factor, rest, node.right if side == "left" else node.left


def edit(node: ast.AST, change: Change) -> ast.AST | None:  # noqa: C901 - one branch per op
    """The node that takes `node`'s place (None: this change cannot be made here)."""
    op, arg = change.op, change.arg
    if op == "left":
        return node.left
    if op == "rebind":  # one name put for another at each of its places in one statement, set and read
        new = _tree_copy(node)
        for n in ast.walk(new):
            if isinstance(n, ast.Name) and n.id == arg[0]:
                n.id = arg[1]
        return new
    if op == "right":
        return node.right
    if op == "binop":
        return ast.BinOp(node.left, getattr(ast, arg)(), node.right)
    if op == "swap":
        return ast.BinOp(node.right, node.op, node.left)
    if op == "regroup" and (moved := regrouped(node, arg)) is not None:  # a o (b p c) <-> (a o b) p c
        return moved
    if op == "times2":
        return ast.BinOp(ast.Constant(2), ast.Mult(), node)
    if op == "sqrt":
        return ast.BinOp(node, ast.Pow(), ast.Constant(0.5))
    if op == "wrap":  # torch.<arg>(node), torch found by import: the learner may have named it otherwise
        torch_module = ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant("torch")], [])
        return ast.Call(ast.Attribute(torch_module, arg, ast.Load()), [node], [])
    if op == "unwrap":
        return node.func.value if isinstance(node.func, ast.Attribute) and not (
            isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "math", "F")
        ) else node.args[0]
    if op == "transpose":
        return ast.Call(ast.Attribute(node, "transpose", ast.Load()), [ast.Constant(-2), ast.Constant(-1)], [])
    if op == "args":
        args = list(node.args)
        args[arg], args[arg + 1] = args[arg + 1], args[arg]
        return ast.Call(node.func, args, node.keywords)
    if op == "shift":
        return ast.BinOp(node, ast.Add() if arg > 0 else ast.Sub(), ast.Constant(1))
    if op == "const":
        return ast.Constant(arg)
    if op in SLICE_OPS:
        return slice_edit(node, op, arg)
    if op == "unneg":
        return node.operand
    if op == "negate":
        return ast.UnaryOp(ast.USub(), node)
    if op == "invert":
        return ast.UnaryOp(ast.Invert(), node)
    if op == "attr":
        return node.value
    if op == "elts":
        i, j = arg
        elts = list(node.elts)
        elts[i], elts[j] = elts[j], elts[i]
        return ast.Tuple(elts, node.ctx)
    if op in ("name", "shape_of"):
        return ast.Name(arg[1], ast.Load())
    if op == "widen":  # mutant_arithmetic: f * a + b -> f * (a + b), or a * f + b -> (a + b) * f
        factor, kept = (node.left.left, node.left.right) if arg == "left" else (node.left.right, node.left.left)
        inner = ast.BinOp(kept, ast.Add(), node.right)
        return ast.BinOp(factor, ast.Mult(), inner) if arg == "left" else ast.BinOp(inner, ast.Mult(), factor)
    if op == "sibling":  # the same slice of another tensor (mutant_slips._sibling_slice), at the name's line
        return ast.increment_lineno(ast.parse(arg[2], mode="eval"), node.lineno - 1).body
    if op == "exchange":
        return _Exchange(*arg).visit(_tree_copy(node))
    if op == "posinf":
        return ast.Call(ast.Name("float", ast.Load()), [ast.Constant("inf")], [])
    if op == "unsub":
        return node.value
    if op == "first":
        return ast.Subscript(ast.Name(arg, ast.Load()), ast.Constant(0), ast.Load())
    if op == "compare":
        return ast.Compare(node.left, [getattr(ast, arg)()], node.comparators)
    if op == "rename":
        if isinstance(node.func, ast.Name):  # Python's own `max(a, b)` made `min(a, b)`
            return ast.Call(ast.Name(arg, ast.Load()), node.args, node.keywords)
        if arg in ELEMENTWISE:  # an elementwise function takes no axis: only the tensor goes with it
            method = not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "F"))
            return ast.Call(ast.Attribute(node.func.value, arg, ast.Load()), [] if method else node.args[:1], [])
        # a keyword the neighbour names otherwise goes with it (`clamp_min(min=0)` made `clamp_max(max=0)`)
        keywords = [ast.keyword(KEYWORD_FOR.get((arg, k.arg), k.arg), k.value) for k in node.keywords
                    if KEYWORD_FOR.get((arg, k.arg), k.arg) != ""]
        return ast.Call(ast.Attribute(node.func.value, arg, ast.Load()), node.args, keywords)
    if op == "drop_kw":
        return ast.Call(node.func, node.args, [k for i, k in enumerate(node.keywords) if i != arg])
    if op == "shift_all":
        bounds = node.args[:2] if len(node.args) >= 2 else node.args[:1]
        shifted = [ast.BinOp(a, ast.Add() if arg > 0 else ast.Sub(), ast.Constant(1)) for a in bounds]
        if len(node.args) == 1:
            shifted = [ast.Constant(arg if arg > 0 else -1)] + [ast.BinOp(node.args[0], ast.Add() if arg > 0 else ast.Sub(), ast.Constant(1))]
        return ast.Call(node.func, shifted + node.args[len(bounds):], node.keywords)
    if op == "whole":
        return ast.Call(node.func, [], [k for k in node.keywords if k.arg not in AXIS_KEYWORDS])
    if op == "mean_for":
        return averaged(node)
    if op == "unlayer":
        return node.args[0]
    if op == "size_for":
        return ast.Name(arg, ast.Load())
    if op == "scaled":  # a loop's counter made `counter * size` (mend_changes.py)
        return ast.BinOp(node, ast.Mult(), ast.Name(arg, ast.Load()))
    if op == "given":
        return ast.Name(given_name(arg), ast.Load())  # kept by applied (mutants.py) at the start
    if op == "inner_first":
        inner = node.func.value
        moved = ast.Call(ast.Attribute(inner.args[0], node.func.attr, ast.Load()), node.args, node.keywords)
        return ast.Call(inner.func, [moved], [])
    if op == "by_hand":
        weight = ast.Attribute(node.func, "weight", ast.Load())
        return ast.BinOp(node.args[0], ast.MatMult(), ast.Attribute(weight, "T", ast.Load()) if arg[1] else weight)
    if op == "arg_shift":
        return ast.BinOp(node, ast.Add() if arg[1] > 0 else ast.Sub(), ast.Constant(1))
    if op == "flip":
        return ast.Call(ast.Attribute(node, "flip", ast.Load()), [ast.Constant(0)], [])
    if op == "cond":
        return ast.Constant(arg)
    if op == "keep_part":
        return node.values[arg] if isinstance(node, ast.BoolOp) else (node.left, node.right)[arg]
    if op == "dot_t":
        return ast.Attribute(node.func.value, "T", ast.Load())
    if op == "layers_swapped":
        inner = node.args[0]
        return ast.Call(inner.func, [ast.Call(node.func, inner.args, [])], [])
    if op == "layer_on":
        return ast.Call(ast.Name(arg, ast.Load()), [node], [])
    if op == "factor_moved":  # a + f * b -> f * a + b: the factor moved to the other term (mend_changes.py)
        factor, rest, other = factor_parts(node, arg)
        moved = ast.BinOp(factor, ast.Mult(), other) if arg[1] == "left" else ast.BinOp(other, ast.Mult(), factor)
        return ast.BinOp(rest, node.op, moved) if arg[0] == "left" else ast.BinOp(moved, node.op, rest)
    if op == "no_new_axis":
        parts = node.slice.elts
        return ast.Subscript(node.value, ast.Tuple(parts[:arg] + parts[arg + 1:], ast.Load()), ast.Load())
    if op == "grid":
        rows, columns = node.slice.elts
        first = ast.Subscript(node.value, rows, ast.Load())
        return ast.Subscript(first, ast.Tuple([ast.Slice(None, None, None), columns], ast.Load()), ast.Load())
    if op == "slice_name":
        return Rename(*arg).visit(_tree_copy(node))
    if op == "nest":
        inner = node.args[arg]
        outer_args = list(node.args)
        outer_args[arg] = inner.func.value
        outer = ast.Call(node.func, outer_args, node.keywords)
        return ast.Call(ast.Attribute(outer, inner.func.attr, ast.Load()), inner.args, inner.keywords)
    return mend_edit(node, change)  # a change made to a learner's code only (mend_changes.py)


def edit_statements(body: list, node: ast.stmt, change: Change) -> bool:
    at = next(i for i, s in enumerate(body) if s is node)
    if change.op == "drop":  # a statement left out (mend_changes.py): a body keeps at least one
        if len(body) < 2:
            return False
        del body[at]
        return True
    if change.op == "outdent":  # a loop's last statement, a return, moved after the loop (mend_changes.py)
        if not (isinstance(node, (ast.For, ast.While)) and len(node.body) > 1 and isinstance(node.body[-1], ast.Return)):
            return False
        loop = _tree_copy(node)
        body[at : at + 1] = [loop, loop.body.pop()]
        return True
    if change.op == "once":  # a loop's `l = zeros(...)` run on its first pass only, while `l` is unbound (loop_starts.py)
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            return False
        caught = ast.ExceptHandler(ast.Name("NameError", ast.Load()), None, [node])
        body[at] = ast.fix_missing_locations(ast.copy_location(ast.Try([ast.Expr(ast.Name(node.targets[0].id, ast.Load()))],
                                                                        [caught], [], []), node))
        return True
    if change.op == "start_before":  # a loop's statements at change.arg moved before the loop (loop_starts.py)
        if not (isinstance(node, (ast.For, ast.While)) and all(0 <= i < len(node.body) for i in change.arg)
                and len(node.body) > len(change.arg)):
            return False
        loop = _tree_copy(node)
        moved = [loop.body[i] for i in change.arg]
        loop.body = [s for i, s in enumerate(loop.body) if i not in change.arg]
        body[at : at + 1] = [*moved, loop]
        return True
    if change.op == "carry":  # `name = twin` added as the loop body's last statement (loop_starts.py)
        if not isinstance(node, (ast.For, ast.While)):
            return False
        loop, (name, twin) = _tree_copy(node), change.arg
        # placed at the body's last line, so that a count of the loop's passes by its lines holds
        carried = ast.Assign([ast.Name(name, ast.Store())], ast.Name(twin, ast.Load()))
        loop.body.append(ast.fix_missing_locations(ast.copy_location(carried, loop.body[-1])))
        body[at] = loop
        return True
    if change.op in ("hoist", "sink"):  # an `if`'s first statement moved before it, or its last after it (mend_changes.py)
        if not (isinstance(node, ast.If) and len(node.body) > 1):
            return False
        branch = _tree_copy(node)
        body[at : at + 1] = [branch.body.pop(0), branch] if change.op == "hoist" else [branch, branch.body.pop()]
        return True
    if at + 1 >= len(body):
        return False
    first, second = body[at], body[at + 1]
    if change.op == "swap_next":
        body[at], body[at + 1] = second, first
        return True
    name = fold_target(first, second)
    if name is None:
        return False
    # n = f(n); use(n)  ->  use'(...) = f(use(n)): the second step first, then the first on its result
    folded = _tree_copy(second)
    folded.value = _Substitute(name, second.value).visit(_tree_copy(first.value))
    body[at : at + 2] = [folded]
    return True


def speaks_of_positions(statement: ast.stmt) -> bool:
    """Whether a name in the range's statement (a loop's header only, not its body) is one of
    positions: `pos`, `positions`, `n_positions`, `position_embedding` (not `transpose`)."""
    around = [statement.target, statement.iter] if isinstance(statement, (ast.For, ast.AsyncFor)) else [statement]
    names = {n.id for part in around for n in ast.walk(part) if isinstance(n, ast.Name)}
    names |= {n.attr for part in around for n in ast.walk(part) if isinstance(n, ast.Attribute)}
    return any(word.startswith("pos") for name in names for word in name.lower().split("_"))
