"""Pitfalls of how a value was made, read off a learner's function (pitfalls.py says them with the
rest): the code alone shows each for certain.

- A list's own change kept as its value, `outs = outs.append(o)`: `append` (like `extend`,
  `insert`, `remove`, `clear`) changes the list and returns None, so the name holds None after;
  said only where the name was made as a list in the function, or of a list made on the spot,
  `kept = list(range(H)).remove(h)`, which is then lost.
- A tensor made by `expand` (or `broadcast_to`), bound once, then written into: its repeated axes
  are one memory, so a write into one entry shows along all of them.
- `~` on a tensor the code makes with an integer dtype (`torch.ones(T, T, dtype=torch.long)`): it
  flips every bit, ~1 = -2 and ~0 = -1, both True as a bool; it is a logical not only on bools.

- A tensor of index pairs given as one index, `bias[torch.tril_indices(T, T, -1)]`:
  it picks whole entries of the first axis, one per number, not the cells the pairs name.
- A name negated as an index, `outs[:, -head]`: it picks one entry counted from the end, where R's
  `x[-i]` leaves entry i out.
- An in-place call's result kept under another name, `c = angles.cos_()`, and both names read in
  the statements that run after it: the call changed that tensor itself, so the old name's read
  finds the new values. Only methods that change values and have a twin that returns new ones
  (`cos_` and `cos`; not `requires_grad_` or `t_`), and reads outside nested functions, lambdas
  and comprehensions, before the name is bound again.

Left out: values whose dtype or kind only a run shows (a tensor handed in, a helper's result).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import whole_slice

__all__ = ["changed_then_read", "expanded_written", "in_place_call", "inverted_integers", "negated_name_index", "none_kept",
           "pairs_as_one_index", "stores"]


def stores(tree: ast.AST, name: str) -> list[ast.Name]:
    """Where `name` is given a value in `tree`."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]


_LIST_CHANGES = ("append", "extend", "insert", "remove", "clear")  # list methods that return None (no tensor has them)


def _a_new_list(value: ast.AST) -> bool:
    """`[...]`, a list comprehension, `list(...)` or `sorted(...)`: a list made where it is written."""
    return isinstance(value, (ast.List, ast.ListComp)) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "sorted"))


def _made_as_list(fdef: ast.FunctionDef, name: str) -> bool:
    """`name` bound somewhere in the function to a list (`_a_new_list`), alone or in a tuple
    unpacked (`outs, weights = [], []`)."""
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == name and _a_new_list(node.value):
                return True
            if (isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                    and len(target.elts) == len(node.value.elts)):
                if any(isinstance(t, ast.Name) and t.id == name and _a_new_list(v) for t, v in zip(target.elts, node.value.elts)):
                    return True
    return False


def none_kept(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`outs = outs.append(o)`, where `outs` was made as a list, or `kept = list(range(H)).remove(h)`:
    the list's method changes it and returns None, which the assignment keeps."""
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr in _LIST_CHANGES):
            continue
        target, owner, method = node.targets[0].id, node.value.func.value, node.value.func.attr
        if isinstance(owner, ast.Name) and _made_as_list(fdef, owner.id):
            found.append((node.lineno, f"`{target} = {owner.id}.{method}(...)` ({{0}}) keeps None in `{target}`: a list's "
                                       f"`{method}` changes the list itself and returns None; call `{owner.id}.{method}(...)` "
                                       f"alone, without the assignment", [node.lineno]))
        elif _a_new_list(owner):  # the list made on the spot is changed, then lost: only the None is kept
            found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) keeps None in `{target}`: a list's `{method}` "
                                       f"changes the list itself and returns None, so the changed list is lost; bind "
                                       f"the list to `{target}` first, then call `{target}.{method}(...)` alone",
                          [node.lineno]))
    return found


_EXPANDS = ("expand", "expand_as", "broadcast_to")  # views that repeat one memory along an axis


def _written(fdef: ast.FunctionDef, name: str) -> list[ast.AST]:
    """The statements that write into `name` itself: `name[...] = ...`, `name[...] += ...`, `name += ...`,
    a method of it that changes it (`name.index_put_(...)`, `name[i].add_(...)`)."""
    found = []
    for node in ast.walk(fdef):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        for target in targets:
            if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name) or (
                    isinstance(node, ast.AugAssign) and isinstance(target, ast.Name) and target.id == name):
                found.append(node)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_")
                and node.func.attr not in ("requires_grad_", "share_memory_")):  # those change no value
            owner = node.func.value.value if isinstance(node.func.value, ast.Subscript) else node.func.value
            if isinstance(owner, ast.Name) and owner.id == name:
                found.append(node)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def expanded_written(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`counts = torch.zeros(V).expand(V, V)` bound once, then written into: one row in many places."""
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr in _EXPANDS) or len(stores(fdef, node.targets[0].id)) != 1:
            continue
        name, how = node.targets[0].id, node.value.func.attr
        writes = [w for w in _written(fdef, name) if w.lineno > node.end_lineno]
        if writes:
            found.append((node.lineno, f"`{name}` ({{0}}) is made by `{how}`, which repeats one memory along the axes it "
                                       f"widens, without copying: a write into one entry ({{1}}) shows along all of them, "
                                       f"or torch refuses it; make a tensor of its own (`torch.zeros` of the full shape, "
                                       f"or `.clone()` after `{how}`)", [node.lineno, writes[0].lineno]))
    return found


_INTEGERS = ("long", "int", "int64", "int32", "int16", "int8", "uint8", "short")


# steps that keep a tensor's dtype: the walk back to where the dtype was decided goes through these only
_KEEPS_DTYPE = ("tril", "triu", "clone", "view", "reshape", "transpose", "permute", "contiguous", "flip", "roll",
                "expand", "repeat", "t", "unsqueeze", "squeeze", "masked_fill", "detach")


def _bound_once(fdef: ast.FunctionDef) -> dict[str, ast.AST]:
    """name -> its value, for each name the function binds in one plain assignment and nowhere else."""
    return {a.targets[0].id: a.value for a in ast.walk(fdef) if isinstance(a, ast.Assign) and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name) and len(stores(fdef, a.targets[0].id)) == 1}


def _integer_made(value: ast.AST) -> bool:
    """A tensor whose code gives it an integer dtype: a call told `dtype=torch.long` (or int, ...),
    or a method `.long()` / `.int()`, reached back through steps that keep the dtype (`.tril()`,
    `torch.tril(...)`) only; any other step (a comparison, `.bool()`, `int(...)`) says nothing."""
    node = value
    while isinstance(node, ast.Call):
        told = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if told is not None:
            return isinstance(told, ast.Attribute) and told.attr in _INTEGERS
        func = node.func
        if not isinstance(func, ast.Attribute):
            return False  # a bare call (`int(n)`, a helper): no tensor's dtype can be read off it
        if func.attr in ("long", "int", "short") and not node.args:
            return not (isinstance(func.value, ast.Name) and func.value.id == "torch")
        if func.attr in ("zeros", "ones", "full", "empty", "arange", "tensor", "zeros_like", "ones_like"):
            return False  # made without a dtype: a float (or the like's), which `~` refuses
        if func.attr not in _KEEPS_DTYPE:
            return False
        torch_form = isinstance(func.value, ast.Name) and func.value.id == "torch"
        node = (node.args[0] if node.args else None) if torch_form else func.value
    return False


def inverted_integers(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`~seen` where `seen` was bound once to an integer tensor (or `~` of one made in place)."""
    assigned = _bound_once(fdef)
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert)):
            continue
        operand = node.operand
        value = assigned.get(operand.id) if isinstance(operand, ast.Name) else operand
        if value is not None and _integer_made(value):
            code = ast.unparse(node)
            found.append((node.lineno, f"`{code}` ({{0}}) flips every bit of an integer tensor: ~1 is -2 and ~0 is -1, "
                                       f"and both are True as a bool; `~` is a logical not only on a bool tensor (make "
                                       f"the mask with a comparison or a bool dtype)", [node.lineno]))
    return found


_PAIRS_OF_INDICES = ("tril_indices", "triu_indices")  # (2, n): a row of first indices over a row of second


def _pairs_made(value: ast.AST) -> bool:
    """`torch.tril_indices(...)` or `torch.triu_indices(...)`: a (2, n) tensor of positions, first
    positions over second, never one index. (`nonzero()` is left out: on a 1-D mask its (n, 1)
    result is a right index.)"""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _PAIRS_OF_INDICES


def pairs_as_one_index(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`bias[torch.tril_indices(T, T, -1)]`, or through a name bound once to it: a tensor of index
    pairs given as one index picks whole entries of the first axis, one per number it holds."""
    assigned = _bound_once(fdef)
    found = []
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Subscript):
            continue
        index = node.slice
        made = assigned.get(index.id) if isinstance(index, ast.Name) else index
        if made is None or not _pairs_made(made):
            continue
        code = ast.unparse(index)
        shape, split = "(2, n), a row of first positions over a row of second", f"{code}[0], {code}[1]"
        found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) gives `{code}` as one index: it is {shape}, and a "
                                   f"tensor given as one index picks whole entries along the first axis, one per "
                                   f"number it holds; for the cells, give its positions as two indices, "
                                   f"`{ast.unparse(node.value)}[{split}]`", [node.lineno]))
    return found


def _plain_ints(fdef: ast.FunctionDef) -> set[str]:
    """The names that plainly hold one int: arguments annotated `int`, and `for` names over a `range`
    from 0 (where `-0`, the first entry, shows that the from-the-end reading cannot be meant)."""
    every = fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs
    found = {a.arg for a in every if a.annotation is not None and ast.unparse(a.annotation) == "int"}
    for loop in ast.walk(fdef):
        # a range from 0 only: `x[-i]` for i from 1 is the from-the-end reading, meant
        if (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range" and loop.iter.args
                and (len(loop.iter.args) == 1 or (isinstance(loop.iter.args[0], ast.Constant) and loop.iter.args[0].value == 0))):
            found.add(loop.target.id)
    return found


def negated_name_index(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`outs[:, -head]`: a name that plainly holds one int, negated as an index after whole `:`s only
    (not as a slice's bound), picks ONE entry counted from the end, where R's `x[-i]` leaves entry i
    out; a number (`[-1]`, the last) is plainly meant from the end, and is not said."""
    ints, found = _plain_ints(fdef), []
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            continue
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        last = parts[-1]
        if not (isinstance(last, ast.UnaryOp) and isinstance(last.op, ast.USub) and isinstance(last.operand, ast.Name)
                and last.operand.id in ints and all(whole_slice(p) for p in parts[:-1])):
            continue
        name, before = last.operand.id, ":, " * (len(parts) - 1)
        keep = f"{ast.unparse(node.value)}[{before}"
        found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) picks ONE entry, the one `{name}` places from the end: "
                                   f"a negative index counts back from the end in Python (and `-0` is 0, the first), "
                                   f"it leaves nothing out as R's `x[-i]` does; to leave entry `{name}` out, join "
                                   f"`{keep}:{name}]` and `{keep}{name} + 1:]`", [node.lineno]))
    return found


# torch's methods that change their tensor's values in place, each beside a twin that returns new values
_IN_PLACE = frozenset(
    "add_ sub_ mul_ div_ cos_ sin_ tan_ exp_ log_ sqrt_ rsqrt_ pow_ clamp_ clamp_min_ clamp_max_ clip_ masked_fill_ "
    "masked_scatter_ index_put_ index_add_ index_fill_ index_copy_ scatter_ scatter_add_ neg_ abs_ tanh_ sigmoid_ "
    "relu_ addcmul_ addcdiv_ lerp_ reciprocal_ square_ floor_ ceil_ round_ sign_ tril_ triu_ log1p_ expm1_ exp2_ "
    "log2_ log10_ remainder_ fmod_ true_divide_ addmm_ baddbmm_ cumsum_ erf_ atan_ asin_ acos_ sinh_ cosh_ trunc_ "
    "frac_ nan_to_num_ logit_ float_power_".split())
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.ClassDef)


def in_place_call(value: ast.expr) -> str | None:
    """The receiver's name of `name.method_(...)`, a method of _IN_PLACE; None for anything else."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name)):
        return None
    return value.func.value.id if value.func.attr in _IN_PLACE else None


def _following(fdef: ast.FunctionDef, statement: ast.stmt) -> list[ast.stmt]:
    """The statements that run after `statement`: those after it in its own block, then those after
    each block holding it, outwards (never a sibling `else` arm, never a nested function's body)."""
    after: list[ast.stmt] = []

    def search(body: list[ast.stmt]) -> bool:
        for k, s in enumerate(body):
            if s is statement:
                after.extend(body[k + 1:])
                return True
            if isinstance(s, _SCOPES):
                continue
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and search(inner):
                    after.extend(body[k + 1:])
                    return True
        return False

    search(fdef.body)
    return after


def _reads(statements: list[ast.stmt], name: str) -> int | None:
    """The line of the first read of `name` in `statements`, before one binds it again (that one's own
    reads count: `x = x + 1`), outside nested scopes; None when there is none."""
    for s in statements:
        loads, stores = [], False
        stack = [s]
        while stack:
            node = stack.pop()
            if isinstance(node, _SCOPES) and node is not s:
                continue
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                loads.append(node.lineno)
            elif isinstance(node, ast.Name) and node.id == name:
                stores = True
            stack.extend(ast.iter_child_nodes(node))
        if loads:
            return min(loads)
        if stores:
            return None
    return None


def changed_then_read(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`c = angles.cos_()`, then both `c` and `angles` read in the statements that run after it,
    `angles` before it is bound again: two names for one tensor, whose old values are gone."""
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name, new = in_place_call(node.value), node.targets[0].id
        if name is None or name == new:
            continue
        after = _following(fdef, node)
        read = _reads(after, name)
        if read is None or _reads(after, new) is None:
            continue
        call = node.value
        method = call.func.attr
        twin = ast.unparse(ast.Call(ast.Attribute(call.func.value, method[:-1], ast.Load()), call.args, call.keywords))
        found.append((node.lineno, f"`{ast.unparse(node)}` ({{0}}) changes `{name}` itself (`{method}` works in place) "
                                   f"and names that same tensor `{new}`: `{name}` read after it ({{1}}) holds the new "
                                   f"values; `{twin}` leaves `{name}` as it was", [node.lineno, read]))
    return found
