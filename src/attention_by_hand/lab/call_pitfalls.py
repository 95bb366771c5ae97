"""Pitfalls of calls whose results read otherwise than they look, read off a learner's function
(pitfalls.py says them with the rest, when its check fails).

- `torch.cat(x.split(1), dim=-1)`: each piece keeps the axis it was cut from, with size 1, so
  joined along another axis, the result keeps that axis too; `unbind` drops it. Said where split
  cuts pieces of 1 along the first axis (its default, or 0), cat joins them along another axis
  written as a number, and the joined tensor is used as it is (not indexed, squeezed, viewed or
  reshaped after, which may take the axis away).

- `int(smoothing)` (or `math.floor`, `math.trunc`) of an argument the signature gives as a float
  (annotated `float`, or a float default): it cuts the number to a whole one toward zero, 0.5 to 0
  and 1.5 to 1, so only a whole-number value comes through as given.

- `q.grad` read, of an argument the function copies with `.detach()` or `.clone()` (itself, or as
  the variable of a comprehension over it): a backward through the copy fills the copy's `.grad`,
  and the argument's stays None.

- `torch.cat(cache + (k_new, v_new), dim=2)`, with a written tuple or list on one side of the `+` and
  an argument annotated as a pair, `tuple[A, B]`, on the other: `+` puts sequences one after
  the other and pairs nothing up, so the call gets one sequence of every tensor of both and joins
  them all into one tensor. (`torch.cat(parts + [tail])`, a list grown to be joined whole, is left alone.)

- `functools.reduce(tile, range(0, T, block))` with no start, where `tile`'s first parameter (the
  running state) is unpacked, `m, l, acc = state`: without a start, reduce hands the FIRST ITEM of
  the range, a number, to `tile` as the state, and folds from the second. Said where the items are
  a `range(...)` (numbers, for certain) and the function is a `def` inside the same function.

What `take` and `tensordot` do is said where the values part at their line (call_words.py), since
either may be called rightly; tensordot's own error is glossed (judging.py).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import parents as parents_in

__all__ = ["call_pitfalls"]


def _called(node: ast.Call, name: str) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == name


def _torch_form(node: ast.Call) -> bool:
    return isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"


def _axis(node: ast.Call, position: int) -> int | None:
    """The axis a call is given (by keyword or at `position`) when written as a whole number; 0
    where it is left out; None otherwise (a name, `-d`)."""
    given = next((k.value for k in node.keywords if k.arg == "dim"), node.args[position] if len(node.args) > position else None)
    if given is None:
        return 0
    try:
        value = ast.literal_eval(given)
    except ValueError:
        return None
    return value if type(value) is int else None


def _bracketed(node: ast.expr) -> str:
    """The code of `node`, bracketed where an attribute put after it would bind to its last part."""
    code = ast.unparse(node)
    return code if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else f"({code})"


def _pieces_of_one(node: ast.expr) -> ast.Call | None:
    """`x.split(1)` along the first axis (a method, so its axis is argument 1)."""
    if (isinstance(node, ast.Call) and _called(node, "split") and not _torch_form(node) and node.args
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == 1 and _axis(node, 1) == 0):
        return node
    return None


def _float_arguments(fdef: ast.FunctionDef) -> set[str]:
    """The arguments the signature gives as floats: annotated `float`, or with a float default."""
    args = fdef.args.posonlyargs + fdef.args.args
    defaults = dict(zip([a.arg for a in args][len(args) - len(fdef.args.defaults):], fdef.args.defaults))
    defaults.update({a.arg: d for a, d in zip(fdef.args.kwonlyargs, fdef.args.kw_defaults) if d is not None})
    named = {a.arg for a in args + fdef.args.kwonlyargs if isinstance(a.annotation, ast.Name) and a.annotation.id == "float"}
    return named | {name for name, d in defaults.items() if isinstance(d, ast.Constant) and type(d.value) is float}


def _truncated(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`int(x)` of a float argument, said with what it makes of 0.5 and 1.5."""
    floats, found = _float_arguments(fdef), []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Name) and node.args[0].id in floats):
            continue
        func = node.func
        name = (func.id if isinstance(func, ast.Name) and func.id == "int" else
                func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "math" and func.attr in ("floor", "trunc") else None)
        if name is None:
            continue
        found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) cuts `{node.args[0].id}`, which the signature gives as "
                                   f"a float, to a whole number toward zero: 0.5 becomes 0 and 1.5 becomes 1, so only a "
                                   f"whole-number `{node.args[0].id}` comes through as given", [node.lineno]))
    return found


def _root(node: ast.expr) -> ast.expr:
    """The name a chain of calls and attributes starts from: `q` of `q.detach().clone()`; a chain
    through `.grad` (`x.grad.clone()`) copies a gradient, not the tensor, and has no such root."""
    while isinstance(node, (ast.Call, ast.Attribute)):
        if isinstance(node, ast.Attribute) and node.attr == "grad":
            return node
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _copied(fdef: ast.FunctionDef, arguments: set[str]) -> dict[str, int]:
    """{argument: line} for the arguments the function copies with `.detach()` or `.clone()`,
    directly or as a comprehension's variable over a tuple or list that holds them."""
    over: dict[str, set[str]] = {}  # a comprehension's variable -> the arguments it runs over
    for node in ast.walk(fdef):
        if isinstance(node, ast.comprehension) and isinstance(node.target, ast.Name) and isinstance(node.iter, (ast.Tuple, ast.List)):
            over.setdefault(node.target.id, set()).update(e.id for e in node.iter.elts if isinstance(e, ast.Name) and e.id in arguments)
    found: dict[str, int] = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("detach", "clone"):
            root = _root(node.func.value)
            if isinstance(root, ast.Name):
                for name in ({root.id} & arguments) | over.get(root.id, set()):
                    found.setdefault(name, node.lineno)
    return found


def _grad_of_original(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`q.grad` read, where the function copies the argument `q` and never gives the name `q`
    another value (`q = q.detach().requires_grad_()` makes `q` the copy: its `.grad` is filled)."""
    arguments = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    rebound = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    copied, read = {k: v for k, v in _copied(fdef, arguments).items() if k not in rebound}, {}
    for node in ast.walk(fdef):
        if (isinstance(node, ast.Attribute) and node.attr == "grad" and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name) and node.value.id in copied):
            read.setdefault(node.lineno, []).append(node)
    found = []
    for line, nodes in sorted(read.items()):
        names = sorted({n.value.id for n in nodes}, key=lambda name: min(n.col_offset for n in nodes if n.value.id == name))
        grads, args = (", ".join(f"`{n}{suffix}`" for n in names) for suffix in (".grad", ""))
        one = len(names) == 1
        found.append((line, f"{grads} ({{0}}) read{'s' if one else ''} the gradient{'' if one else 's'} of the argument{'' if one else 's'} {args} "
                            f"{'itself' if one else 'themselves'}, copied with `.detach()` or `.clone()` ({{1}}): a backward through "
                            f"{'the copy' if one else 'the copies'} fills {'its' if one else 'their'} own `.grad`, and "
                            f"{grads} stay{'s' if one else ''} None", [line, min(copied[n] for n in names)]))
    return found


def _pair_arguments(fdef: ast.FunctionDef) -> set[str]:
    """The arguments annotated as a pair, `cache: tuple[torch.Tensor, torch.Tensor]`: two entries, no `...`."""
    every = fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs
    return {a.arg for a in every if _pair(a.annotation)}


def _pair(annotation: ast.expr | None) -> bool:
    if not (isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in ("tuple", "Tuple", "typing.Tuple")):
        return False
    entries = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    return len(entries) == 2 and not any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in entries)


def _sequence_of(side: ast.expr) -> str | None:
    """The name a sequence is made of: `cache`, `[*cache]`, `(*cache,)`, `list(cache)`, `tuple(cache)`."""
    if isinstance(side, ast.Name):
        return side.id
    if isinstance(side, (ast.List, ast.Tuple)) and len(side.elts) == 1 and isinstance(side.elts[0], ast.Starred):
        return _sequence_of(side.elts[0].value)
    if isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id in ("list", "tuple") and len(side.args) == 1:
        return _sequence_of(side.args[0])
    return None


def _sequences_joined(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`torch.cat(cache + (b, c), ...)` or `torch.stack(...)` of it: a written tuple or list added to
    an argument annotated as a pair of tensors, `tuple[A, B]`, where each was to be joined alone."""
    found = []
    pairs = _pair_arguments(fdef)
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _torch_form(node) and node.args
                and node.func.attr in ("cat", "stack")):
            continue
        joined = node.args[0]
        if not (isinstance(joined, ast.BinOp) and isinstance(joined.op, ast.Add)
                and any(isinstance(side, (ast.Tuple, ast.List)) for side in (joined.left, joined.right))
                and any(_sequence_of(side) in pairs for side in (joined.left, joined.right))):
            continue
        found.append((node.lineno, f"`{ast.unparse(joined)}` ({{0}}) is ONE sequence, every tensor of both sides one "
                                   f"after the other: `+` of tuples or lists pairs nothing up, so "
                                   f"`torch.{node.func.attr}` joins them all into one tensor", [node.lineno]))
    return found


def _state_unpacked(fdef: ast.FunctionDef, name: str) -> bool:
    """Whether the `def` called `name` inside `fdef` unpacks its first parameter, `a, b = state`."""
    for inner in ast.walk(fdef):
        if isinstance(inner, ast.FunctionDef) and inner.name == name and inner.args.args:
            first = inner.args.args[0].arg
            return any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id == first
                       and any(isinstance(t, (ast.Tuple, ast.List)) for t in n.targets) for n in ast.walk(inner))
    return False


def _reduced_without_start(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`functools.reduce(f, range(...))`, no start, where `f` unpacks its state."""
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func) in ("functools.reduce", "reduce")
                and len(node.args) == 2 and not node.keywords):
            continue
        f, items = node.args
        if not (isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.func.id == "range"
                and isinstance(f, ast.Name) and _state_unpacked(fdef, f.id)):
            continue
        found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) has no start: reduce then hands the FIRST item of "
                                   f"`{ast.unparse(items)}`, a number, to `{f.id}` as its state, and folds from the "
                                   f"second; the start state goes third, `reduce({f.id}, ..., start)`", [node.lineno]))
    return found


def call_pitfalls(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    found = _truncated(fdef) + _grad_of_original(fdef) + _sequences_joined(fdef) + _reduced_without_start(fdef)
    parent_of = parents_in(fdef)
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Call) and _called(node, "cat") and _torch_form(node) and node.args):
            continue
        pieces = _pieces_of_one(node.args[0])
        axis = _axis(node, 1)
        parent = parent_of.get(id(node))
        # `torch.cat(...)[0]`, `.squeeze(0)`, `.view(...)`: the axis may be taken away after
        used_after = isinstance(parent, ast.Subscript) or (isinstance(parent, ast.Attribute) and parent.value is node)
        if pieces is None or axis is None or axis == 0 or used_after:
            continue
        whole = _bracketed(pieces.func.value)
        found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) joins the pieces of `{ast.unparse(pieces)}`, and each "
                                   f"keeps the axis it was cut from, with size 1: joined along another axis, the result "
                                   f"keeps it too (a leading axis of size 1); `{whole}.unbind(0)` gives pieces without it",
                      [node.lineno]))
    return found
