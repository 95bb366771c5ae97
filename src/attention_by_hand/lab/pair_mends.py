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

A pair read off a call given no axis (`pair_axis`): `scores.max().values`, where `max` without `dim` returns the whole
tensor's largest number, a plain tensor (whose `.values` is a method, and whose `[0]` indexes a 0-d tensor). The
mend gives the call the last axis, `scores.max(dim=-1, keepdim=True).values` (or without `keepdim`). Tried at
`.values`, `.indices`, `[0]` and `[1]` read off a `max`, `min` or `median` given nothing but its tensor.

A running maximum typed as another running call (`running_max`): `torch.cumsum(scores, dim=-1)[..., -1:]` for a
row's largest score, `cumsum` taken for `cummax` (neighbours in the completion list); its last entry is the
row's total. The mend calls `cummax` and takes its values, `torch.cummax(scores, dim=-1).values`. Tried at every
`cumsum`, `cumprod` and `logcumsumexp` whose last entry alone is read (`[..., -1:]`): where the whole running row
is used, no maximum was meant.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, function_form, number_of, parents, statement_lines, tensor_and_args
from attention_by_hand.lab.mutant_edits import Change, quote
from attention_by_hand.lab.wire import VALUE_PAIRS

__all__ = ["PAIR_OPS", "pair_mends", "pair_words"]

PAIR_OPS = ("pair_values", "values_of_tensor", "pair_axis", "running_max")
_RUNNING = {"cumsum": "sum", "cumprod": "product", "logcumsumexp": "log-sum-exp"}  # running calls -> what they gather
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
        found += _axis_given(fdef, node, index, lines)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RUNNING and id(node) in index \
                and _last_read(above.get(id(node)), node):
            made = ast.Attribute(ast.Call(ast.Attribute(node.func.value, "cummax", ast.Load()), node.args, node.keywords), "values", ast.Load())
            found.append(Change(fdef.name, index[id(node)], "running_max", ast.unparse(made), "call",
                                f"`{quote(made)}` for `{quote(node)}`", lines[id(node)]))
        if not (isinstance(node, ast.Call) and id(node) in index and _given_dim(node)):
            continue
        parent = above.get(id(node))
        if isinstance(parent, (ast.Attribute, ast.Subscript)) or (isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple)):
            continue  # the pair already taken apart (`.values`, `[0]`, `m, i = ...`)
        made = ast.Attribute(node, "values", ast.Load())
        found.append(Change(fdef.name, index[id(node)], "pair_values", ast.unparse(made), "call",
                            f"`{quote(made)}` for `{quote(node)}`", lines[id(node)]))
    return found


def _last_read(parent: ast.AST | None, call: ast.Call) -> bool:
    """Whether `parent` reads only the last entry of what `call` makes (`[..., -1]`, `[..., -1:]`, `[..., -1, None]`):
    where a running call's whole row is used, no maximum was meant."""
    if not (isinstance(parent, ast.Subscript) and parent.value is call):
        return False
    places = [p for p in (parent.slice.elts if isinstance(parent.slice, ast.Tuple) else [parent.slice])
              if not (isinstance(p, ast.Constant) and p.value is None)]
    last = places[-1] if places else None
    if isinstance(last, ast.Slice):
        return last.upper is None and last.step is None and last.lower is not None and number_of(last.lower) == -1
    return last is not None and number_of(last) == -1


def _pair_read(node: ast.AST) -> ast.Call | None:
    """The call whose pair `node` reads (`.values`, `.indices`, `[0]`, `[1]`) where that call is a `max`, `min` or
    `median` given nothing but its tensor: it returns no pair."""
    if isinstance(node, ast.Attribute) and node.attr in ("values", "indices") and isinstance(node.ctx, ast.Load):
        call = node.value
    elif isinstance(node, ast.Subscript) and type(number_of(node.slice)) is int and number_of(node.slice) in (0, 1):
        call = node.value
    else:
        return None
    if not isinstance(call, ast.Call) or call_name(call) not in ("max", "min", "median") or call.keywords:
        return None
    tensor, rest = tensor_and_args(call)
    return call if tensor is not None and not rest else None


def _axis_given(fdef: ast.FunctionDef, node: ast.AST, index: dict[int, int], lines) -> list[Change]:
    """The `pair_axis` changes at `node`: the call it reads given the last axis, kept and not."""
    call = _pair_read(node)
    if call is None or id(node) not in index:
        return []
    found = []
    for keywords in ([ast.keyword("dim", ast.Constant(-1)), ast.keyword("keepdim", ast.Constant(True))],
                     [ast.keyword("dim", ast.Constant(-1))]):
        given = ast.Call(call.func, call.args, keywords)
        made = ast.Attribute(given, node.attr, ast.Load()) if isinstance(node, ast.Attribute) else ast.Subscript(given, node.slice, ast.Load())
        found.append(Change(fdef.name, index[id(node)], "pair_axis", ast.unparse(made), "call",
                            f"`{quote(made)}` for `{quote(node)}`", lines[id(node)]))
    return found


def pair_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `pair_values` or `values_of_tensor` change mends, in words."""
    if change.op == "values_of_tensor" and isinstance(node, ast.Attribute):
        made = f"what `{call_name(node.value)}` returns" if isinstance(node.value, ast.Call) and call_name(node.value) else f"`{quote(node.value)}`"
        return (f"`.values` of {made}, a plain tensor, is a METHOD (a sparse tensor's), not its numbers: only a "
                "(values, indices) pair, as `max(dim=...)` returns, holds them in `.values`; a tensor is its values")
    if change.op == "running_max" and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RUNNING:
        name = node.func.attr
        return (f"`{name}` is a running {_RUNNING[name]}: entry i gathers the entries up to i, so the last is the whole "
                f"row's {_RUNNING[name]}, not its largest entry; the running maximum is `cummax`, a pair whose `.values` "
                f"hold it")
    if change.op == "pair_axis" and _pair_read(node) is not None:
        name = call_name(_pair_read(node))
        return (f"`{name}` given no axis returns the whole tensor's {'median' if name == 'median' else name + 'imum'}, one "
                f"number in a plain tensor, and no (values, indices) pair to read: given `dim`, it returns the pair, one "
                f"entry per row")
    if change.op != "pair_values" or not isinstance(node, ast.Call):
        return None
    name = call_name(node)
    alone = f" (NumPy's `{name}` and torch's `a{name}` return the values alone)" if name in ("max", "min") else ""
    given = "" if name in _ALWAYS else " given an axis"
    return f"`{name}`{given} returns a PAIR, (values, indices), not a tensor{alone}: `.values` takes them"
