"""A reduction that returns a (values, indices) pair, used as the tensor of its values, and the other
way round; tried on a learner's code only.

`torch.stack([m, s]).max(dim=0)`, read as NumPy's `np.max(a, axis=0)` or as torch's `amax`, which
return the maxima alone: given a `dim`, torch's `max`, `min` and `median` return a named pair
(`values`, `indices`), and `mode`, `kthvalue`, `sort`, `topk`, `cummax` and `cummin` return one
whatever they are given; the next arithmetic on it raises ("unsupported operand type(s) for -:
'Tensor' and 'torch.return_types.max'"). The mend (`pair_values`) takes the values,
`torch.stack([m, s]).max(dim=0).values`. Tried at every such call that returns a pair (given a `dim`
by keyword, or a whole number by position after the tensor) whose result is not already indexed,
unpacked or asked for an attribute (`.values`, `[0]`).

The other way round (`values_of_tensor`): `e / e.sum(dim=-1, keepdim=True).values`, `.values` carried over
from a `max` line, or from pandas' `df.values`, onto what returns a plain tensor. A tensor's `.values` is a
METHOD (a sparse tensor's), so the arithmetic on it raises. The mend takes `.values` away. Tried at every
`.values` read and not called, except on a call that returns a pair.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, function_form, number_of, parents, statement_lines
from attention_by_hand.lab.mutant_edits import Change, quote
from attention_by_hand.lab.wire import VALUE_PAIRS

__all__ = ["PAIR_OPS", "pair_mends", "pair_words"]

PAIR_OPS = ("pair_values", "values_of_tensor")
# a call's name -> the positional arguments before its `dim` as a method (`x.kthvalue(k, dim)`)
_PAIRS = {name: 1 if name in ("kthvalue", "topk") else 0 for name in VALUE_PAIRS}
_ALWAYS = ("sort", "topk", "cummax", "cummin", "mode", "kthvalue")  # a pair whatever the arguments


def _given_dim(call: ast.Call) -> bool:
    """Whether a pair-returning call is given its axis, so that it returns a pair."""
    name = call_name(call)
    if name not in _PAIRS:
        return False
    if name in _ALWAYS:
        return True
    before = _PAIRS[name] + (1 if function_form(call) else 0)
    if any(k.arg == "dim" for k in call.keywords):
        return True
    # `torch.max(x, y)` compares two tensors: a dim by position is a number written out
    return len(call.args) > before and type(number_of(call.args[before])) is int


def pair_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `pair_values` and `values_of_tensor` changes of `fdef` (the module's docstring)."""
    found, lines, above = [], statement_lines(fdef), parents(fdef)
    for node in ast.walk(fdef):
        if isinstance(node, ast.Attribute) and node.attr == "values" and isinstance(node.ctx, ast.Load) and id(node) in index \
                and not (isinstance(node.value, ast.Call) and _given_dim(node.value)) \
                and not (isinstance(above.get(id(node)), ast.Call) and above[id(node)].func is node):
            found.append(Change(fdef.name, index[id(node)], "values_of_tensor", ast.unparse(node.value), "call",
                                f"`{quote(node.value)}` for `{quote(node)}`", lines[id(node)]))
        if not (isinstance(node, ast.Call) and id(node) in index and _given_dim(node)):
            continue
        parent = above.get(id(node))
        if isinstance(parent, (ast.Attribute, ast.Subscript)) or (isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple)):
            continue  # the pair already taken apart (`.values`, `[0]`, `m, i = ...`)
        made = ast.Attribute(node, "values", ast.Load())
        found.append(Change(fdef.name, index[id(node)], "pair_values", ast.unparse(made), "call",
                            f"`{quote(made)}` for `{quote(node)}`", lines[id(node)]))
    return found


def pair_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `pair_values` or `values_of_tensor` change mends, in words."""
    if change.op == "values_of_tensor" and isinstance(node, ast.Attribute):
        made = f"what `{call_name(node.value)}` returns" if isinstance(node.value, ast.Call) and call_name(node.value) else f"`{quote(node.value)}`"
        return (f"`.values` of {made}, a plain tensor, is a METHOD (a sparse tensor's), not its numbers: only a "
                "(values, indices) pair, as `max(dim=...)` returns, holds them in `.values`; a tensor is its values")
    if change.op != "pair_values" or not isinstance(node, ast.Call):
        return None
    name = call_name(node)
    alone = f" (NumPy's `{name}` and torch's `a{name}` return the values alone)" if name in ("max", "min") else ""
    given = "" if name in _ALWAYS else " given an axis"
    return f"`{name}`{given} returns a PAIR, (values, indices), not a tensor{alone}: `.values` takes them"
