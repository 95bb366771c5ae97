"""A tensor's method named without its brackets, tried on a learner's code only.

`pairs.float.t()` or `causal_mask(x.size)`: without `()` the name is the method itself, a bound
method, not what it gives, and the next step refuses it ("'builtin_function_or_method' object has no
attribute 't'", "ones() takes 1 positional argument"). The mend (`called`) adds the brackets:
tried at every attribute read whose name is a method that needs no argument (`float`, `size`, `t`,
`sum`, ...) and that is not already called; `size` is also called with one axis (0, -2, -1), the
length a learner who wrote `x.size` for T meant. Attributes that are read without a call (`.T`, `.shape`,
`.dtype`) are never tried, nor a name read off a module (`torch.float` is a dtype, `math.sqrt` a function
passed on purpose). Two reads left uncalled on one line (`torch.ones(x.size, x.size)`) are two slips,
which one change does not mend.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import parents
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["UNCALLED_OPS", "uncalled_mends", "uncalled_words"]

UNCALLED_OPS = ("called",)
# `x.size` where one length was meant (`causal_mask(x.size)`): called with each axis too
_AXES = (None, 0, -2, -1)
# methods of a tensor that run with no argument and give a value
_METHODS = frozenset({"float", "double", "half", "long", "int", "bool", "t", "clone", "size", "dim", "numel", "exp",
                      "log", "sqrt", "abs", "item", "contiguous", "detach", "sum", "mean", "tolist", "cpu"})
# names a lab's code gives its modules: what they hold under those names is no tensor's method
_MODULES = frozenset({"torch", "math", "np", "numpy", "F", "nn", "functools", "operator"})


def _uncalled(fdef: ast.FunctionDef) -> set[int]:
    """The ids of `fdef`'s attribute reads `x.m`, m one of _METHODS, that no call calls."""
    up = parents(fdef)
    return {id(n) for n in ast.walk(fdef) if isinstance(n, ast.Attribute) and n.attr in _METHODS
            and isinstance(n.ctx, ast.Load) and not (isinstance(up.get(id(n)), ast.Call) and up[id(n)].func is n)
            and not (isinstance(n.value, ast.Name) and n.value.id in _MODULES)}


def uncalled_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `called` changes of `fdef` (the module's docstring); each change's arg is the call, as source."""
    found, uncalled = [], _uncalled(fdef)
    for node in ast.walk(fdef):
        if id(node) not in index or id(node) not in uncalled:
            continue
        for axis in _AXES if node.attr == "size" else (None,):
            made = ast.Call(node, [] if axis is None else [ast.Constant(axis)], [])
            found.append(Change(fdef.name, index[id(node)], "called", ast.unparse(made), "call",
                                f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def uncalled_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `called` change mends, in words."""
    if change.op != "called" or not isinstance(node, ast.Attribute):
        return None
    made = ast.parse(change.arg, mode="eval").body
    axis = f", the length of its axis {ast.unparse(made.args[0])}," if made.args else ""
    return (f"the brackets left off: `{quote(node)}` is the method itself, not what it gives; `{quote(made)}`{axis} "
            "calls it")
