"""Candidate mistakes derived from the reference itself: small changes of its code (mutants).

A learner's wrong function is very often the reference with one small change: a factor dropped,
another axis, two arguments swapped, a mask applied after the softmax. So no catalogue is needed
to name it: every such change of the reference's source is made here, compiled, and run on the
inputs the learner's function got (diagnosis.py compares the outputs). A `Change` is one edit at
one node of one reference function, and describes itself in the reference's own code:

    `/ math.sqrt(head_size)` removed from `scores = q @ k.transpose(-2, -1) / math.sqrt(head_size)`

The kinds of change (`KINDS`, in the order a match is preferred when two explain the same outputs): a
factor dropped or inverted, sqrt added or removed, another axis (of a call, or of a size `x.shape[0]`),
a neighbouring constant (0/1, a diagonal offset, a flag flipped, -inf made 0), a sign, two arguments
swapped, two returned values or two unpacked names swapped, a transpose added or removed, +1/-1 on an
index or a position, two steps done in the other order, one variable replaced by another in scope, one
term of a sum dropped, a call left out. The functions the checked one calls (in the reference's own
module) are changed too: a learner's `self_attention` is wrong when its `attention_weights` is.

The reference is trusted code, so mutants run in this (the checker's) process. Left out: which
change matches (diagnosis.py); changes of classes' methods (the labs' learners write functions).
"""

from __future__ import annotations

import ast
import copy
import types
from functools import lru_cache
from pathlib import Path

from attention_by_hand.lab.mutant_arithmetic import arithmetic
from attention_by_hand.lab.mutant_slips import slips
from attention_by_hand.lab.mutant_trees import copy_along, routes_of
from attention_by_hand.lab.name_words import gloss
from attention_by_hand.lab.axis_words import size_words
from attention_by_hand.lab.axis_arguments import axis_argument
from attention_by_hand.lab.code_layout import new_axes_only
from attention_by_hand.lab.mutant_quotes import elide
from attention_by_hand.lab.neighbours import NEIGHBOUR_WORDS, NEIGHBOURS, builtin_pair
from attention_by_hand.lab.mutant_edits import (
    KINDS,
    Change,
    AXIS_KEYWORDS,
    AXIS_WORDS,
    CMP,
    COMPARISONS,
    STATEMENT_OPS,
    TRANSPOSES,
    _tree_copy as _copy,
    call_name,
    edit,
    edit_statements,
    fold_target,
    given_name,
    is_minus_inf,
    locals_of,
    number_of,
    quote,
    quote_statement,
    replace_node,
    speaks_of_positions,
    step_name,
)

__all__ = ["KINDS", "Change", "applied", "changes", "build", "reachable", "definition"]

# Changes said in words first, then in code: the words name the concept ("q and k exchanged").
CONCEPT_FIRST = ("exchange", "args", "shift_all", "invert")
# a call -> the inner calls never moved out of it: a cast of a mask (`masked_fill(mask.float(), ...)`) is the slip itself
_KEPT_IN = dict.fromkeys(("masked_fill", "masked_fill_", "where", "masked_select", "masked_scatter"), ("float", "double", "half", "long", "int", "bool", "to", "type"))


class _Finder:
    """Walks one function definition and lists every change it allows."""

    def __init__(self, fdef: ast.FunctionDef, glossed: bool = True):
        self.fdef, self.glossed = fdef, glossed
        self.nodes = list(ast.walk(fdef))
        self.index = {id(n): i for i, n in enumerate(self.nodes)}
        self.parent: dict[int, ast.AST] = {}
        for node in self.nodes:
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
        self.found: list[Change] = []
        self.scope = locals_of(fdef)

    def statement_of(self, node: ast.AST) -> ast.stmt:
        while not isinstance(node, ast.stmt):
            node = self.parent[id(node)]
        return node

    def add(self, node, op, arg, kind, text) -> None:
        statement = self.statement_of(node)
        change = Change(self.fdef.name, self.index[id(node)], op, arg, kind, "")

        def say(text=text) -> str:
            # Made when a hint needs it: thousands of changes are tried, one or two are named.
            if op not in ("swap_next", "fold", "elts", "rename", "drop_kw", "times2", "whole", "given", "size_for", "mean_for", "unlayer", "layers_swapped", "layer_on", "grid", "no_new_axis", "slice_name", "dot_t", "keep_part", "cond", "inner_first", "by_hand", "flip", "arg_shift", "sibling", "widen", "colon", "short", "unbound", "parts") and not self._in_keyword(node):
                code = self._before_after(node, change)
                if code and (op in CONCEPT_FIRST or kind == "term"):
                    text = f"{text} ({code})"  # what changed in words, then in the reference's code
                elif code and kind == "offset":
                    text = f"{code}: off by one"
                elif code and op not in ("left", "right"):
                    # what the words add after the quoted code ("the factor inverted"), kept
                    # (a comma after them: "multiplied, not added, in `s = ...`")
                    text = code + (": " + text.split("): ", 1)[1] + "," if op == "binop" and "): " in text else
                                   text[text.index("` ("):][1:] if op == "shape_of" and "` (" in text else "")
            joint = " from " if text.endswith(("removed", "dropped")) else " in "
            glossed = gloss(self.fdef, *arg, statement.lineno) if op == "name" and self.glossed else ""
            return text if op in STATEMENT_OPS else f"{text}{joint}`{quote_statement(statement)}`{glossed}"

        self.found.append(Change(self.fdef.name, change.index, op, arg, kind, say, statement.lineno))

    def _shift_words(self, node: ast.Call, delta: int) -> str:
        """Every number of a range one more or one less, said as what the range counts: positions
        where its statement speaks of them, else a count from 0 made a count from 1 (or -1)."""
        if speaks_of_positions(self.statement_of(node)):
            return f"every position shifted by one ({delta:+d})"
        if len(node.args) == 1 or number_of(node.args[0]) == 0:
            return f"the range counted from {delta} instead of 0 (every number {delta:+d})"
        return f"every number of the range shifted by one ({delta:+d})"

    def _in_keyword(self, node) -> bool:
        return isinstance(self.parent.get(id(node)), ast.keyword)

    def _before_after(self, node, change: Change) -> str | None:
        """`after` for `before`, on the smallest expression around the change that reads well."""
        around = node
        while True:
            text = ast.unparse(around)
            if len(text) >= 12 or not isinstance(self.parent.get(id(around)), ast.expr):
                break
            around = self.parent[id(around)]
        if not isinstance(around, ast.expr) or len(ast.unparse(around)) > 60:
            return None
        copied = _copy(around)
        target = list(ast.walk(copied))[list(ast.walk(around)).index(node)]
        try:
            new = edit(_copy(target), change)
        except (AttributeError, IndexError, TypeError, ValueError):
            return None
        if target is copied:
            copied = new
        else:
            holder = next(n for n in ast.walk(copied) if any(c is target for c in ast.iter_child_nodes(n)))
            replace_node(holder, target, new)
        return "`{}` for `{}`".format(*elide(ast.unparse(copied), ast.unparse(around)))

    def run(self) -> list[Change]:
        self._statements(self.fdef)
        for node in self.nodes:
            if node is self.fdef or isinstance(node, (ast.arguments, ast.arg)):
                continue
            if self._in_docstring(node):
                continue
            self._expression(node)
            slips(self, node)
            self._statements(node)
        return self.found

    def _in_docstring(self, node) -> bool:
        body = self.fdef.body
        first = body[0] if body else None
        return (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
            and (node is first or node is first.value)
        )

    def _axis_position(self, node) -> bool:
        parent = self.parent.get(id(node))
        if isinstance(parent, ast.keyword):
            return parent.arg in AXIS_WORDS
        if isinstance(parent, ast.Subscript) and node is parent.slice:  # `q.shape[0]`: the size along an axis
            return isinstance(parent.value, ast.Attribute) and parent.value.attr == "shape"
        if isinstance(parent, ast.Call) and node in parent.args:
            return axis_argument(parent, node)
        return False

    def _expression(self, node) -> None:  # noqa: C901 - one branch per kind of node, flat
        parent = self.parent.get(id(node))
        arithmetic(self, node)
        if isinstance(node, ast.Call):
            name = call_name(node)
            if name == "sqrt" and len(node.args) == 1:
                self.add(node, "unwrap", None, "sqrt", f"`{quote(node.args[0])}` for `{quote(node)}`")
            elif name in TRANSPOSES and isinstance(node.func, ast.Attribute):
                self.add(node, "unwrap", None, "transpose", f"`{quote(node)}` without its `.{name}(...)`")
            elif isinstance(node.func, ast.Attribute) and name not in ("view", "reshape", "to", "float", "double"):
                if not isinstance(node.func.value, ast.Name) or node.func.value.id not in ("torch", "math", "F", "nn"):
                    self.add(node, "unwrap", None, "call", f"`{quote(node.func.value)}` for `{quote(node)}`")
            if name not in ("float", "range", "arange") and isinstance(node.func, (ast.Attribute, ast.Name)):
                # `torch.round(x, decimals=4)` unwraps to `x` too; a keyword that names an axis keeps it
                told_axis = any(k.arg is None or k.arg in AXIS_KEYWORDS for k in node.keywords)
                if len(node.args) == 1 and not told_axis and name not in ("sqrt",):
                    if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                        if node.func.value.id in ("torch", "math", "F"):  # F: `F.one_hot(t)` where the class numbers `t` were meant
                            self.add(node, "unwrap", None, "call", f"`{quote(node.args[0])}` for `{quote(node)}`")
            positional = [a for a in node.args if not isinstance(a, ast.Starred)]
            if len(positional) == len(node.args):
                for i in range(len(node.args) - 1):
                    a, b = node.args[i], node.args[i + 1]
                    if ast.dump(a) != ast.dump(b):
                        self.add(node, "args", i, "arguments", f"`{quote(a)}` and `{quote(b)}` swapped")
            if name in NEIGHBOURS and (isinstance(node.func, ast.Attribute) or builtin_pair(node, name)):
                for neighbour in NEIGHBOURS[name]:
                    why = NEIGHBOUR_WORDS.get((neighbour, name), "")
                    self.add(node, "rename", neighbour, "function", f"`{neighbour}(...)` for `{name}(...)`{why}")
            for k, keyword in enumerate(node.keywords):
                if keyword.arg is not None:
                    self.add(node, "drop_kw", k, "arguments", f"`{keyword.arg}={quote(keyword.value)}` left out of `{name}(...)`")
            if name in ("arange", "range") and any(number_of(a) is None for a in node.args[:2]):
                for delta in (1, -1):
                    self.add(node, "shift_all", delta, "offset", self._shift_words(node, delta))
            if name in ("arange", "range"):
                for arg in node.args:
                    if number_of(arg) is None:
                        for delta in (1, -1):
                            self.add(arg, "shift", delta, "offset", f"`{quote(arg)} {'+' if delta > 0 else '-'} 1` for `{quote(arg)}`")
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and name != "float" and arg.func.attr not in _KEPT_IN.get(name, ()):
                    # outer(x.inner(...)) -> outer(x).inner(...): the two steps in the other order
                    inner = arg.func.attr
                    self.add(node, "nest", i, "order", f"`.{inner}(...)` done after `{name}(...)`, not before, in `{quote(node)}`")
            # x.masked_fill(mask, v), or torch.masked_fill(x, mask, v)
            functional = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
            if name in ("masked_fill", "masked_fill_") and len(node.args) > int(functional):
                mask = node.args[int(functional)]
                self.add(mask, "invert", None, "comparison",
                         "the mask inverted: it hides what it should keep and keeps what it should hide")
            if is_minus_inf(node):
                self.add(node, "const", 0.0, "constant", f"`0.0` for `{quote(node)}`")
                self.add(node, "posinf", None, "sign", f"`float('inf')` for `{quote(node)}` (the minus sign dropped)")
        value = number_of(node)
        if value is not None and not isinstance(parent, ast.UnaryOp):
            keyword = parent.arg + "=" if isinstance(parent, ast.keyword) else ""
            call = self.parent.get(id(parent)) if keyword else parent
            inside = f" in `{call_name(call)}(...)`" if isinstance(call, ast.Call) else ""
            if self._axis_position(node):
                # transpose(-1, -1) does nothing: that is "the transpose left out", said as such
                same = {number_of(a) for a in call.args} if isinstance(call, ast.Call) and call_name(call) == "transpose" else set()
                for other in (-1, -2, 0, 1, 2):
                    if other != value and other not in same:
                        self.add(node, "const", other, "axis", f"`{keyword}{other}` for `{keyword}{value}`{inside}")
            else:
                neighbours = {0: (1,), 1: (0, 2)} if isinstance(value, int) else {0.0: (1.0,), 1.0: (0.0, 2.0), 0.5: (1.0, 0.05, 5.0)}
                # a count of several where one was meant (`sinks = 4`, the first four for the first) too
                others = neighbours.get(value, (value - 1, value + 1, *((1,) if value > 2 else ()))
                                        if isinstance(value, int) else (value / 10, value * 10))
                for other in others:
                    self.add(node, "const", other, "constant", f"`{keyword}{other}` for `{keyword}{value}`{inside}")
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            for other in COMPARISONS.get(type(node.ops[0]), ()):
                self.add(node, "compare", other.__name__, "comparison",
                         f"`{CMP[other]}` for `{CMP[type(node.ops[0])]}` (`{quote(node)}`)")
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            keyword = parent.arg + "=" if isinstance(parent, ast.keyword) else ""
            self.add(node, "const", not node.value, "constant", f"`{keyword}{not node.value}` for `{keyword}{node.value}`")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and number_of(node) is None:
            self.add(node, "unneg", None, "sign", f"`{quote(node.operand)}` for `{quote(node)}`")
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT") and isinstance(node.ctx, ast.Load):
            self.add(node, "attr", None, "transpose", f"`{quote(node.value)}` for `{quote(node)}`")
        if isinstance(node, ast.Slice) and node.upper is not None and node.step is None:
            for delta in (1, -1):
                self.add(node, "slice_shift", delta, "offset", f"the slice moved by {delta:+d}")
        if isinstance(node, ast.Slice):
            for bound in ("lower", "upper"):
                b = getattr(node, bound)
                if b is None:
                    self.add(node, "bound", (bound, 1 if bound == "lower" else -1), "offset",
                             f"`{'1:' if bound == 'lower' else ':-1'}` for `:` (`{quote(parent)}`)")
                elif number_of(b) is None:
                    for delta in (1, -1):
                        self.add(b, "shift", delta, "offset", f"`{quote(b)} {'+' if delta > 0 else '-'} 1` for `{quote(b)}`")
        # a name indexed, or a call's result indexed by a number of habit (`e.sum(-1, keepdim=True)[0]`, as after `max`)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and (isinstance(node.value, ast.Name) or (
                isinstance(node.value, ast.Call) and (type(number_of(node.slice)) is int or new_axes_only(node.slice)))):
            self.add(node, "unsub", None, "index", f"`{quote(node.value)}` for `{quote(node)}` (the indexing left out)")
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            if isinstance(node.slice, (ast.Name, ast.BinOp)):
                for delta in (1, -1):
                    self.add(node.slice, "shift", delta, "offset",
                             f"`{quote(node.slice)} {'+' if delta > 0 else '-'} 1` for `{quote(node.slice)}`")
        if isinstance(node, ast.Tuple):
            where = "returned" if isinstance(parent, ast.Return) else "unpacked" if isinstance(node.ctx, ast.Store) else None
            if where and len(node.elts) >= 2:
                for i in range(len(node.elts)):
                    for j in range(i + 1, len(node.elts)):
                        a, b = quote(node.elts[i]), quote(node.elts[j])
                        self.add(node, "elts", (i, j), where, f"`{a}` and `{b}` swapped in `{quote(node)}`")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.scope:
            # one slice for all (v[0] for v: every head blends head 0's values), where it broadcasts;
            # not where only its axes are counted (`x[0].ndim` is `x.ndim - 1`: a count off by one, no slice)
            if not (isinstance(parent, ast.Attribute) and parent.attr in ("ndim", "dim", "shape", "size")):
                self.add(node, "first", node.id, "index", f"`{node.id}[0]` for `{node.id}` (its first slice used for every one)")
            sized = isinstance(parent, ast.Attribute) and parent.attr in ("shape", "size")  # only a size read from it
            for other in self.scope:
                if other != node.id:
                    words = size_words(self.fdef, node.id, other, self.parent.get(id(parent))) if sized else ""
                    self.add(node, "shape_of" if sized else "name", (node.id, other), "variable", f"`{other}` for `{node.id}`{words}")
        if isinstance(parent, ast.Return) and isinstance(node, ast.expr) and not isinstance(node, ast.Tuple):
            self.add(node, "negate", None, "sign", f"`-({quote(node)})` returned")
            self.add(node, "transpose", None, "transpose", f"`{quote(node)}` transposed")

    def _exchanges(self, node) -> None:
        """Two variables of a statement exchanged (k @ q.T for q @ k.T, x * bias + weight)."""
        value = getattr(node, "value", None)
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.Return)) or value is None:
            return
        names = []
        for n in ast.walk(value):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in self.scope and n.id not in names:
                names.append(n.id)
        outer = _is_outer(value)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                said = f"{a} and {b} exchanged" + (": the outer product comes out transposed" if outer else "")
                self.add(self._around(value, a, b), "exchange", (a, b), "variable", said)

    @staticmethod
    def _around(value: ast.expr, a: str, b: str) -> ast.expr:
        """The smallest part of `value` that holds every read of a and of b (what a hint quotes)."""

        def reads(node):
            return sorted(id(n) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in (a, b) and isinstance(n.ctx, ast.Load))

        every = reads(value)
        holders = [n for n in ast.walk(value) if isinstance(n, ast.expr) and reads(n) == every]
        return min(holders, key=lambda n: sum(1 for _ in ast.walk(n)))

    def _statements(self, node) -> None:
        self._exchanges(node)
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if not isinstance(body, list):
                continue
            for first, second in zip(body, body[1:]):
                simple = (ast.Assign, ast.AugAssign, ast.Expr)
                if isinstance(first, simple) and isinstance(second, simple) and not self._in_docstring(first):
                    self.add(first, "swap_next", None, "order", f"`{quote_statement(second)}` done before `{quote_statement(first)}`")
                folded = fold_target(first, second)
                if folded:
                    later, earlier = step_name(second.value), step_name(first.value)
                    # Said in the order the learner's steps ran: the reference's first step, done last.
                    self.add(first, "fold", None, "order",
                             f"{earlier} done after {later}, not before (`{quote_statement(first)}`, then `{quote_statement(second)}`)")




def _is_outer(value: ast.expr) -> bool:
    """a[:, None] * b[None, :]: an outer product, one side a column and the other a row."""
    def is_spread(side):
        return isinstance(side, ast.Subscript) and isinstance(side.slice, ast.Tuple) and any(
            isinstance(e, ast.Constant) and e.value is None for e in side.slice.elts)
    return isinstance(value, ast.BinOp) and is_spread(value.left) and is_spread(value.right)


def applied(fdef: ast.FunctionDef, chosen: list[Change]) -> ast.FunctionDef | None:
    routes = routes_of(fdef)
    tree, found = copy_along(fdef, [routes[c.index] for c in chosen])
    parent = {id(node): holder for holder, node in found}
    targets = [node for _, node in found]
    # Two changes where one's node holds the other's would overwrite each other: not a pair (a
    # change of statements' order comes last, and carries what was changed inside them).
    for i, a in enumerate(targets):
        if chosen[i].op in STATEMENT_OPS:
            continue
        inside = {id(n) for n in ast.walk(a)}
        if any(id(b) in inside for j, b in enumerate(targets) if j != i):
            return None
    statement_ops = STATEMENT_OPS
    for change, node in sorted(zip(chosen, targets), key=lambda p: p[0].op in statement_ops):
        holder = parent[id(node)]
        if change.op in statement_ops:
            body = next((v for _, v in ast.iter_fields(holder) if isinstance(v, list) and any(s is node for s in v)), None)
            if body is None or not edit_statements(body, node, change):
                return None
            continue
        try:
            new = edit(node, change)
        except (AttributeError, IndexError, TypeError, SyntaxError, ValueError):  # one change that cannot be made: none
            return None
        if new is None:
            return None
        # An edit may return a part of the old node itself (`scores` for `scores.masked_fill(...)`):
        # a copy takes the position, so that the cached definition keeps its own.
        new = copy.copy(new)
        replace_node(holder, node, new)
        # Only the new nodes lack a position (fixing the whole tree took a quarter of a diagnosis).
        ast.fix_missing_locations(ast.copy_location(new, node))
    for name in sorted({c.arg for c in chosen if c.op == "given"}):
        # the argument as it was given, kept before the body can update it
        kept = ast.Assign([ast.Name(given_name(name), ast.Store())], ast.Name(name, ast.Load()))
        tree.body.insert(0, ast.fix_missing_locations(ast.copy_location(kept, tree.body[0])))
    return tree


@lru_cache(maxsize=32)
def _definitions(path: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


@lru_cache(maxsize=64)
def _reachable_in(path: str, function: str) -> tuple[str, ...]:
    return tuple(_reachable(_definitions(path), function))


def _reachable(definitions: dict[str, ast.FunctionDef], function: str) -> list[str]:
    """`function` and the module's functions it calls, directly or not, in order of discovery."""
    found, todo = [], [function]
    while todo:
        name = todo.pop(0)
        if name in found or name not in definitions:
            continue
        found.append(name)
        for node in ast.walk(definitions[name]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in definitions:
                todo.append(node.func.id)
    return found


@lru_cache(maxsize=64)
def _changes(path: str, function: str, glossed: bool) -> tuple[Change, ...]:
    definitions = _definitions(path)
    found: list[Change] = []
    for name in _reachable(definitions, function):
        found.extend(_Finder(definitions[name], glossed).run())
    return tuple(found)


@lru_cache(maxsize=32)
def _resolved(file: str) -> str:
    return str(Path(file).resolve())


def _path(reference: types.ModuleType) -> str:
    """The reference's file, resolved once (a build asks for it hundreds of times)."""
    return _resolved(reference.__file__)


def reachable(reference: types.ModuleType, function: str) -> tuple[str, ...]:
    """`function` and the reference's functions it calls, directly or not."""
    return _reachable_in(_path(reference), function)


def definition(reference: types.ModuleType, function: str) -> ast.FunctionDef:
    """The reference function's syntax tree, parsed once (never to be changed: copy it first)."""
    return _definitions(_path(reference))[function]


def changes(reference: types.ModuleType, function: str, glossed: bool = True) -> tuple[Change, ...]:
    """Every single change of `function` and of the reference functions it calls. glossed: a name
    used for another says what the reference's names mean (name_words.py); a learner's code
    mended (repair.py) is said without."""
    return _changes(_path(reference), function, glossed)


_BUILT: dict[tuple, object] = {}  # single changes already compiled: a room checks many files of one lab


def build(reference: types.ModuleType, function: str, chosen: tuple[Change, ...]):
    """The reference's `function` with the `chosen` changes made, or None when they cannot be
    made together (or do not compile). The functions it calls see the changes too."""
    path = _path(reference)
    if len(chosen) == 1:
        key = (path, function, chosen[0])
        if key not in _BUILT:
            if len(_BUILT) > 50_000:
                _BUILT.clear()
            _BUILT[key] = _build(reference, path, function, chosen)
        return _BUILT[key]
    return _build(reference, path, function, chosen)


def _build(reference: types.ModuleType, path: str, function: str, chosen: tuple[Change, ...]):
    definitions = _definitions(path)
    namespace = dict(vars(reference))
    reachable = _reachable_in(path, function)
    changed = {}
    for name in {c.function for c in chosen}:
        tree = applied(definitions[name], [c for c in chosen if c.function == name])
        if tree is None:
            return None
        changed[name] = tree
    try:
        for name, tree in changed.items():
            exec(compile(ast.Module([tree], []), path, "exec"), namespace)  # noqa: S102 - the trusted reference
    except Exception:  # noqa: BLE001 - does not compile, or its `def` raises (a changed default names nothing)
        return None
    for name in reachable:
        if name not in changed:
            original = getattr(reference, name)
            rebound = types.FunctionType(original.__code__, namespace, name, original.__defaults__, original.__closure__)
            rebound.__kwdefaults__ = original.__kwdefaults__
            namespace[name] = rebound
    return namespace[function]
