"""Mends of forms a habit from elsewhere reads otherwise than Python and torch do.

Each is tried on a learner's code only (mend_changes.py), made by mend_edits.py and said only where
repair.py finds that it gives the reference's output on every input:

- `unfold_aug`: `l *= r + p`, meant as "rescale l, then add p"; an augmented assignment applies its
  operator to the whole right side, `l = l * (r + p)`. The mend is `l = l * r + p`. Tried for `*=`,
  `/=` and `-=` with a sum or a difference on the right, where the two readings differ.
- `join`: `a[:, :h] + a[:, h + 1:]`, meant as the slices one after the other, as `+` joins two
  Python lists; on tensors it adds them entry by entry. The mend is `torch.cat((left, right),
  dim=d)`, for each axis d a learner most often means. Tried where both sides are slices.
- `factor_outside`: `math.log(base / d_model)`, a division moved inside a function call, where the
  call's result was to be divided, `math.log(base) / d_model`. Tried for a function (not a method)
  given one argument, a product or a division.
- `pad_before`: `F.pad(x, (0, n))`, meant for the time axis; F.pad's pairs start at the LAST axis
  and go backwards, so `(0, n)` widens the last axis. The mend moves every pair one axis back,
  `(0, 0, 0, n)` (two pairs exchanged where four numbers were given).

Left out: a join along an axis other than -1, 0, 1 and -2 (2 where the tensors have four axes is -2), and a layer's or a table's row of a
sum taken for the sum of its rows (`pe(a) + pe(b)` for `pe(a + b)`): the learner's code seldom
reads that way in one expression.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, call_name, quote

__all__ = ["HABIT_OPS", "habit_mends", "habit_words"]

HABIT_OPS = ("unfold_aug", "join", "factor_outside", "pad_before")

_JOIN_AXES = (-1, 0, 1, -2)
_AUG_OPS = {ast.Mult: "*", ast.Div: "/", ast.Sub: "-"}
_SUMS = {ast.Add: "+", ast.Sub: "-"}
_PADS = ("pad",)


def _slice(node: ast.expr) -> bool:
    """A subscript with a slice in it (`outs[:, :head]`)."""
    if not isinstance(node, ast.Subscript):
        return False
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(isinstance(p, ast.Slice) for p in parts)


def _function_form(call: ast.Call) -> bool:
    """`math.log(x)`, `torch.exp(x)`, `f(x)`: a function of its one argument, not a tensor's method."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    return isinstance(call.func, ast.Name) or (isinstance(owner, ast.Name) and owner.id in ("math", "torch", "np", "numpy"))


def habit_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The habit mends of `fdef`, in the order of its nodes."""
    found, name = [], fdef.name
    for node in ast.walk(fdef):
        at = index.get(id(node))
        if at is None:
            continue
        line = getattr(node, "lineno", None)
        if (isinstance(node, ast.AugAssign) and type(node.op) in _AUG_OPS and isinstance(node.value, ast.BinOp)
                and type(node.value.op) in _SUMS):
            target, sign = quote(node.target), _AUG_OPS[type(node.op)]
            unfolded = f"{target} = {target} {sign} {quote(node.value)}"
            found.append(Change(name, at, "unfold_aug", None, "order", f"`{unfolded}` for `{quote(node)}`", line))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _slice(node.left) and _slice(node.right):
            found += [Change(name, at, "join", axis, "call",
                             f"`torch.cat(({quote(node.left)}, {quote(node.right)}), dim={axis})` for `{quote(node)}`", line)
                      for axis in _JOIN_AXES]
        if (isinstance(node, ast.Call) and _function_form(node) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.BinOp) and isinstance(node.args[0].op, (ast.Div, ast.Mult))):
            inner, called = node.args[0], quote(node.func)
            sign = "/" if isinstance(inner.op, ast.Div) else "*"
            outside = f"{called}({quote(inner.left)}) {sign} {quote(inner.right)}"
            found.append(Change(name, at, "factor_outside", None, "factor", f"`{outside}` for `{quote(node)}`", line))
        if (isinstance(node, ast.Call) and call_name(node) in _PADS and len(node.args) >= 2
                and isinstance(node.args[1], (ast.Tuple, ast.List)) and len(node.args[1].elts) in (2, 4)):
            pairs = [quote(e) for e in node.args[1].elts]
            moved = ["0", "0", *pairs] if len(pairs) == 2 else [*pairs[2:], *pairs[:2]]
            found.append(Change(name, at, "pad_before", None, "arguments",
                                f"`({', '.join(moved)})` for `({', '.join(pairs)})` in `{quote(node)}`", line))
    return found


def habit_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a habit mend mends, in words; None for another change."""
    op = change.op
    if op == "unfold_aug" and isinstance(node, ast.AugAssign):
        target, sign = quote(node.target), _AUG_OPS[type(node.op)]
        return (f"`{quote(node)}` applies `{sign}` to the whole right side, `{target} = {target} {sign} "
                f"({quote(node.value)})`: an augmented assignment is no 'first {sign}, then the rest'")
    if op == "join" and isinstance(node, ast.BinOp):
        return (f"`{quote(node)}` adds the two slices entry by entry; `+` puts Python lists one after the other, "
                f"but tensors it adds: joined is `torch.cat(...)` along axis {change.arg}")
    if op == "factor_outside" and isinstance(node, ast.Call):
        inner = node.args[0]
        done = "divided" if isinstance(inner.op, ast.Div) else "multiplied"
        return (f"`{quote(node)}`: the argument {done} inside `{quote(node.func)}(...)`, where its result is to be "
                f"{done} by `{quote(inner.right)}`")
    if op == "pad_before" and isinstance(node, ast.Call):
        return ("F.pad's pairs start at the LAST axis and go backwards: the first pair pads the last axis, the next "
                "pair the axis before it")
    return None
