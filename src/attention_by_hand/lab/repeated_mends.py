"""One slip made at several places: the changes that, made together, may mend a learner's function
where no single change does (repair.py tries each group as one change).

A learner who slipped once in a line copied to the next (the query's and the key's) slipped twice;
so did one who wrote the same bound in both slices of a line (`w[i, :i] @ v[:i]`, where each
token's own value belongs too), or a name in both bounds of one subscript (`k[..., i0:i0 + w]`, the
query block's rows for the key block's). Changes that do the same thing (`_twin_key`) are grouped:
on two or more lines, two to four of them; on one line, a call renamed, a power moved inside or an
argument put for an outside name (argument_mends.py); one bound moved by the same step in each of
two to four slices of one line (the upper bounds alone, or the lower); in one subscript, a name put
for another.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, _tree_copy, call_name

__all__ = ["innermost_subscripts", "subscript_of", "twin_groups"]

# the ops whose twins on one line are tried together (elsewhere, twins on one line are two places of one thing)
ONE_LINE = ("rename", "power_inside", "argument_for")
WIDE = ("subscripts", "last_two")  # grouped past the budget's cut too: each place is one reading, not a chance fit


def twin_groups(candidates: list[Change], allowed: list[Change], nodes: dict[str, list[ast.AST]],
                removals: tuple[str, ...]) -> list[list[Change]]:
    """The groups of changes to try together, in order: a slip taken out on every line (a
    transpose too many, twice, one of `removals`) before one tweaked on every line; then a name put
    for another in one subscript (found among every allowed change: the budget's cut of the
    candidates may fall between them). An einsum's operand or a transpose read otherwise (WIDE)
    is grouped among every allowed change too, where one member is a candidate: its other places may
    lie past the budget's cut (a line far from where the function raised, with the same slip); the
    rest are grouped among the candidates alone, as many other groups would pass only by chance
    there (a size put for another everywhere: one tile of keys). nodes: each function's nodes, in
    ast.walk order."""
    groups: dict[tuple, list[Change]] = {}
    chosen = set(candidates)
    for change in (*candidates, *(c for c in allowed if c.op in WIDE and c not in chosen)):
        key = _twin_key(nodes[change.function], change)
        if key is not None:
            groups.setdefault(key, []).append(change)
    groups = {k: g for k, g in groups.items() if any(c in chosen for c in g)}
    tries = [t for t in sorted(groups.values(), key=lambda twins: twins[0].op not in removals)
             if (len({c.line for c in t}) >= 2 or (t[0].op in ONE_LINE and len(t) >= 2)) and len(t) <= 4]
    # the same bound of each slice of a line moved (`:i` twice), not a slice's other bound (`i:`)
    bounds: dict[tuple, list[Change]] = {}
    for change in (c for c in candidates if c.op == "shift"):
        role = _bound_role(nodes[change.function], nodes[change.function][change.index])
        if role is not None:
            bounds.setdefault((_twin_key(nodes[change.function], change), role, change.line), []).append(change)
    tries += [t for t in bounds.values() if 2 <= len(t) <= 4 and t not in tries]
    names: dict[tuple, list[Change]] = {}
    for change in (c for c in allowed if c.op == "name"):
        names.setdefault(_twin_key(nodes[change.function], change), []).append(change)
    return tries + [t for t in _in_one_subscript(names.values(), nodes) if t not in tries]


def _twin_key(nodes: list[ast.AST], change: Change) -> tuple | None:
    """What a change does, apart from where: the same key on two lines is one slip made twice
    (`base=500000.0` given to both rope calls). None for changes that have no such key.
    nodes: the nodes of the change's function, in ast.walk order."""
    node = nodes[change.index]
    if change.op == "unwrap" and isinstance(node, ast.Call):  # one call taken off two tensors (`k.T`, `v.T`)
        return (change.function, change.op, call_name(node), tuple(ast.dump(a) for a in node.args),
                tuple(ast.dump(k) for k in node.keywords))
    if change.op == "unlayer" and isinstance(node, ast.Call):  # a layer around each branch's output (a sandwich norm)
        return (change.function, change.op, _renamed(node))
    if change.op == "rename" and isinstance(node, ast.Call):  # one call for another on each tensor (`empty_like` thrice)
        return (change.function, change.op, change.arg, call_name(node))
    if change.op == "power_inside" and isinstance(node, ast.BinOp):  # the same power on each of two calls (`cos`, `sin`)
        return (change.function, change.op, ast.dump(node.right))
    if change.op == "pad_before" and isinstance(node, ast.Call):  # the same pairs given to F.pad for each tensor
        return (change.function, change.op, call_name(node), ast.dump(node.args[1]))
    if change.op == "step_axis" and isinstance(node, ast.Subscript):  # `t[0::2]`, `t[1::2]`: one tensor's columns, each start
        return (change.function, change.op, change.arg, ast.dump(node.value), ast.dump(node.slice.step))
    if change.op == "subscripts" and isinstance(node, ast.Constant) and isinstance(node.value, str):
        # one operand spelled anew, the same in each einsum (`bkhd` read as `bhkd` for the keys and the values)
        old, new = (spec.replace(" ", "").split("->")[0].split(",") for spec in (node.value, str(change.arg)))
        moved = [(a, b) for a, b in zip(old, new) if a != b]
        return (change.function, change.op, *moved[0]) if len(moved) == 1 and len(old) == len(new) else None
    if change.op in ("last_two", "one_based", "scatter_add"):  # one reading of a call or a start, wherever it is met
        return (change.function, change.op)
    if change.op == "keep_axis" and isinstance(node, ast.Subscript):  # `x[..., 0]`, `x[..., j]`: one tensor's axis, each place
        return (change.function, change.op, ast.dump(node.value))
    if change.op == "drop_kw":
        if not (isinstance(node, ast.Call) and isinstance(change.arg, int) and 0 <= change.arg < len(node.keywords)):
            return None
        return (change.function, change.op, call_name(node), ast.dump(node.keywords[change.arg]))
    return (change.function, change.op, repr(change.arg), ast.dump(node))


def _bound_role(fnodes: list[ast.AST], node: ast.AST) -> str | None:
    """"lower" or "upper" where the node is a slice's bound, else None."""
    return next((b for n in fnodes if isinstance(n, ast.Slice) for b in ("lower", "upper") if getattr(n, b) is node), None)


def _in_one_subscript(groups, nodes: dict[str, list[ast.AST]]) -> list[list[Change]]:
    """Each group's changes that fall in one subscript, two to four of them: a name put for another
    in both bounds of a slice (`k[..., i0:i0 + (j1 - j0)]`, the query block's rows for the key block's)."""
    found, inner = [], {name: innermost_subscripts(fnodes) for name, fnodes in nodes.items()}
    for twins in groups:
        by_subscript: dict[tuple, list[Change]] = {}
        for change in twins:
            nearest = inner[change.function].get(id(nodes[change.function][change.index]))
            if nearest is not None:
                by_subscript.setdefault((change.function, id(nearest)), []).append(change)
        found += [t for t in by_subscript.values() if 2 <= len(t) <= 4]
    return found


def innermost_subscripts(fnodes: list[ast.AST]) -> dict[int, ast.Subscript]:
    """{id of a node: the innermost subscript whose index holds it}, for a function's nodes."""
    found: dict[int, ast.Subscript] = {}
    # ast.walk goes outside in, so an inner subscript, met later, overwrites the outer one
    for subscript in (n for n in fnodes if isinstance(n, ast.Subscript)):
        for inside in ast.walk(subscript.slice):
            found[id(inside)] = subscript
    return found


def subscript_of(change: Change, nodes: dict[str, list[ast.AST]]) -> ast.Subscript | None:
    """The innermost subscript whose index holds the change's node, or None."""
    return innermost_subscripts(nodes[change.function]).get(id(nodes[change.function][change.index]))


def _renamed(node: ast.AST) -> str:
    """The node's code with its names numbered in order of appearance: `ln1(attn(ln1(x)))` and
    `ln2(mlp(ln2(x)))` are one shape."""
    copy, names = _tree_copy(node), {}
    for n in ast.walk(copy):
        if isinstance(n, ast.Name):
            n.id = names.setdefault(n.id, f"_{len(names)}")
    return ast.dump(copy)
