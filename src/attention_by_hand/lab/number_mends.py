"""A plain Python number given where a torch function takes a tensor, tried on a learner's code only.

`torch.heaviside(ahead, 0.0)`, written as NumPy's `np.heaviside(x, 0.5)` takes its value at zero,
or `torch.rsqrt(head_size)`, written as `math.sqrt(n)` or JAX's `lax.rsqrt` take a number: torch's
functions of tensors raise a TypeError ("argument 'values' (position 2) must be Tensor, not
float"). The mend (`number_tensor`) makes the number a tensor, `torch.tensor(0.0)`.

Tried on every number written as an argument of a torch function (`torch.f(...)`,
`torch.special.f(...)`) whose first argument is neither a number nor a tuple or list (so not
`torch.full((T, T), 0.0)` or `torch.arange(0, T)`, which make a tensor from numbers), and on the
first argument of an entrywise function (`torch.rsqrt(n)`: one of torch's functions that a tensor
also has as a method and that keeps its input's shape, or one of `torch.special`'s). Not on the
second argument of `max` and `min`: a number there is an axis (`torch.max(x, 0)` reduces), a
tensor another operand (`torch.max(x, y)` compares entry by entry), both run.
repair.py keeps a mend only where it gives the reference's output on every input the check
tried, and keeps this one only where the learner's function raised torch's TypeError of a
number given for a tensor (`numbers_refused`): a number made a 0-d tensor then mends the call that
refused it. It drops a swap of the called function of that very call (`relu(ahead)` for
`heaviside(ahead, 0.0)`), which only evades the argument's type (`evading`).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import warnings

import torch

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["NUMBER_OPS", "evading", "number_mends", "number_words", "numbers_refused"]

NUMBER_OPS = ("number_tensor",)
_AXIS_OR_OPERAND = ("max", "min")  # a number second is an axis, a tensor another operand
# torch's TypeError of a plain number where a tensor belongs (the one error this mend can mend)
_REFUSED = re.compile(r"must be Tensor, not (int|float|bool)\b")


def _torch_function(call: ast.Call) -> str | None:
    """`torch.heaviside` or `torch.special.expit` for such a call's function, else None."""
    text = ast.unparse(call.func) if isinstance(call.func, ast.Attribute) else ""
    parts = text.split(".")
    return text if parts[0] == "torch" and (len(parts) == 2 or (len(parts) == 3 and parts[1] == "special")) else None


def _number(node: ast.AST) -> bool:
    """A number written out: `0.0`, `2`, `-1e9` (not True or False)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


@functools.lru_cache(maxsize=None)
def _entrywise(name: str) -> bool:
    """Whether `torch.<f>` (or `torch.special.<f>`) takes one tensor and keeps its shape. Only a function a
    tensor also has as a method (no `manual_seed`), or one of `torch.special`'s, is called to find out."""
    *owner, short = name.split(".")
    module = torch.special if owner[1:] == ["special"] else torch
    function = getattr(module, short, None)
    if not callable(function) or short.endswith("_") or short.startswith("_") or not (
            module is torch.special or hasattr(torch.Tensor, short)):
        return False
    try:
        # fork_rng: a seeded function (`bernoulli`) draws from the global generator, which stays as it was
        with warnings.catch_warnings(), torch.no_grad(), torch.random.fork_rng(devices=[]):
            warnings.simplefilter("ignore")
            return all(getattr(function(torch.ones(shape)), "shape", None) == shape for shape in ((3,), ()))
    except Exception:  # noqa: BLE001 - a function that takes more than one tensor is not entrywise
        return False


def number_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `number_tensor` changes of `fdef` (the module's docstring)."""
    found = []
    for call in (n for n in ast.walk(fdef) if isinstance(n, ast.Call)):
        name = _torch_function(call)
        if name is None or not call.args or isinstance(call.args[0], ast.Starred):
            continue
        first = call.args[0]
        later = call.args[2:] if name.split(".")[-1] in _AXIS_OR_OPERAND else call.args[1:]
        numbers = [a for a in (*later, *(k.value for k in call.keywords)) if _number(a)]
        if _number(first) or isinstance(first, (ast.Tuple, ast.List)):
            numbers = []  # a function that makes a tensor from numbers (`arange(0, T)`, `full((T, T), 0.0)`)
        if _entrywise(name) and not isinstance(first, (ast.Tuple, ast.List)):
            numbers.insert(0, first)
        for node in numbers:
            change = Change(fdef.name, index[id(node)], "number_tensor", name, "call", "", getattr(node, "lineno", call.lineno))
            found.append(dataclasses.replace(change, said=f"`torch.tensor({quote(node)})` for `{quote(node)}`"))
    return found


def number_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `number_tensor` change mends, in words."""
    if change.op != "number_tensor":
        return None
    given = quote(node)
    kind = "a plain Python number" if _number(node) else "no tensor here (a plain Python value)"
    return (f"`{change.arg}` takes a tensor there, and `{given}` is {kind} (NumPy's and math's functions take "
            "numbers; torch's functions of tensors do not)")


def numbers_refused(got: list) -> bool:
    """Whether any of the learner's outputs is torch's TypeError of a number given for a tensor."""
    return any(getattr(g, "kind", "") == "TypeError" and _REFUSED.search(getattr(g, "message", "")) for g in got)


def evading(mends: list[Change], nodes: dict[str, list[ast.AST]]) -> list[Change]:
    """The mends that swap the called function of a call whose number another mend makes a tensor
    (`relu(ahead)` for `heaviside(ahead, 0.0)`): they mend only by calling something that takes the
    number, where the number was the slip."""
    calls = []
    for c in (c for c in mends if c.op == "number_tensor"):
        wrapped = nodes[c.function][c.index]
        calls += [(c.function, n) for n in nodes[c.function] if isinstance(n, ast.Call)
                  and any(a is wrapped for a in (*n.args, *(k.value for k in n.keywords)))]
    return [m for m in mends if m.op != "number_tensor" and m.kind == "function"
            and any(f == m.function and (nodes[f][m.index] is call or nodes[f][m.index] is call.func) for f, call in calls)]
