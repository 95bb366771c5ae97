"""A triangle's diagonal offset changed, said as what the triangle then holds: the main diagonal or not.

A causal mask hides the cells above the main diagonal, `triu(ones, diagonal=1)`, or keeps those on
and below it, `tril(ones)`. A change of the offset by one (`diagonal=0` for `diagonal=1`) moves the
triangle's edge across the main diagonal, the cells where a position meets itself; where the
learner's mask hid (or kept) the diagonal another way, by a comparison of its own, the offset is
not on the learner's line, and what the change does to the diagonal is the part that says what the
learner did. `triu(x, k)` keeps the cells whose column minus row is at least k, so it holds the main
diagonal where k <= 0; `tril(x, k)` those where it is at most k, so where k >= 0.

Left out: an offset change that leaves the main diagonal where it was (`diagonal=2` for `1`),
said by the change alone.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import parents
from attention_by_hand.lab.mutant_edits import Change, call_name, number_of

__all__ = ["diagonal_words"]

_HOLDS = {"triu": lambda k: k <= 0, "tril": lambda k: k >= 0}


def diagonal_words(fdef: ast.FunctionDef, change: Change) -> str:
    """Whether the changed triangle holds the main diagonal, in words, for a `const` change of a
    `triu` or `tril` offset that moves it across; "" for every other change."""
    nodes = list(ast.walk(fdef))
    if change.op != "const" or not 0 <= change.index < len(nodes) or isinstance(change.arg, bool):
        return ""
    node = nodes[change.index]
    up = parents(fdef)
    holder = up.get(id(node))
    call, given = (up.get(id(holder)), holder.arg == "diagonal") if isinstance(holder, ast.keyword) else (holder, False)
    if not (isinstance(call, ast.Call) and call_name(call) in _HOLDS):
        return ""
    if not given:  # `torch.triu(x, 1)` or `x.triu(1)`: the offset's place follows the tensor
        function_form = isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "torch"
        at = 1 if function_form or isinstance(call.func, ast.Name) else 0
        if len(call.args) <= at or call.args[at] is not node:
            return ""
    old, new = number_of(node), change.arg
    if not (isinstance(old, int) and isinstance(new, int)):
        return ""
    holds = _HOLDS[call_name(call)]
    if holds(old) == holds(new):
        return ""
    then = "takes in the main diagonal too" if holds(new) else "leaves out the main diagonal"
    return f"the triangle then {then}, the cells where each position meets itself"
