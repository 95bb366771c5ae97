"""A name from outside a function read where one of the function's own arguments belongs, tried on a
learner's code only.

`induction_score(pattern, period)` that never reads `period` and reads the file's `PROBE_PERIOD`
instead: the constant the lab's own test passes happened to be at hand, so the function is right
for that one period and wrong for every other. The mend (`argument_for`) puts the unread argument
for the outside name at one of its places; repair.py tries it at every place of that name at once
too, up to four (repeated_mends.py groups them), as the slip is usually copied to each.

Which names: a function's argument that its body never reads (not `*args` or `**kw`), and each
name its body reads that the function does not bind (an argument, an assignment, a loop, an import,
an exception's name, a `match` capture, a `global`) and that is not a builtin, nor called, nor a
module whose attribute is read (`torch.`, `F.`, `math.`).
repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses

from attention_by_hand.lab.code_layout import parents as parents_in, statement_lines
from attention_by_hand.lab.mutant_edits import Change

__all__ = ["ARGUMENT_OPS", "argument_mends", "argument_words"]

ARGUMENT_OPS = ("argument_for",)
_BUILTINS = frozenset(dir(builtins))


def _arguments(fdef: ast.FunctionDef) -> list[str]:
    a = fdef.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x))]


def _bound(fdef: ast.FunctionDef) -> set[str]:
    """Every name the function binds: its arguments, what it assigns or loops over, what it imports
    or defines inside, an exception's name, a `match` pattern's captures, a `global` or `nonlocal`."""
    bound = set(_arguments(fdef))
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            bound.add(n.id)
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
            bound.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            bound.add(n.rest)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bound.update(n.names)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) and n is not fdef:
            bound.update(_arguments(n) if not isinstance(n, ast.ClassDef) else ())
            if not isinstance(n, ast.Lambda):
                bound.add(n.name)
    return bound


def argument_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `argument_for` changes of `fdef` (the module's docstring)."""
    lines = statement_lines(fdef, header=False)  # an annotation's name is never offered as an outside name
    reads = [n for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) in lines]
    read = {n.id for n in reads}
    a = fdef.args  # `*args` and `**kw` are no stand-in for one value
    named = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    unread = [name for name in named if name not in read and name not in ("self", "cls")]
    if not unread:
        return []
    bound, parents = _bound(fdef), parents_in(fdef)
    found = []
    for node in reads:
        parent = parents.get(id(node))
        if node.id in bound or node.id in _BUILTINS:
            continue
        if (isinstance(parent, ast.Call) and parent.func is node) or (isinstance(parent, ast.Attribute) and parent.value is node):
            continue  # a function or a module (`torch.`), not a value that an argument could be
        for name in unread:
            change = Change(fdef.name, index[id(node)], "argument_for", (node.id, name), "variable", "", lines[id(node)])
            found.append(dataclasses.replace(change, said=f"`{name}` for `{node.id}`"))
    return found


def argument_words(node: ast.AST, change: Change) -> str | None:
    """The mistake an `argument_for` change mends, in words."""
    if change.op != "argument_for" or not isinstance(change.arg, tuple):
        return None
    outside, name = change.arg
    return (f"your function never reads its argument `{name}`: `{outside}`, a name from outside the function, "
            f"stands where `{name}` belongs, so it is right only when `{name}` happens to equal it")
