"""Slips that are no edit of one token: a reduction over the whole tensor, the average for a
maximum, a size read from the wrong variable, and a value used after it was updated where the one
given was meant.

- `x.mean()` for `x.mean(dim=-1, keepdim=True)`: the axis forgotten, so one number for the whole
  tensor (a layer norm over everything, not over each token).
- `x.mean(dim=-1, keepdim=True)` for `x.max(dim=-1, keepdim=True).values`: the row's average
  where its maximum was meant (a softmax shifted by the mean).
- `block` for `q.shape[-1]`: a size taken from another integer in scope (a scale by the tile's
  width, not the head's).
- `heads` for `proj(heads)`: a layer handed in as an argument and never applied.
- `x` as it was given, where the reference reads `x` after `x = x + attn(...)`: the update
  skipped (a residual added to the block's input, not to the attention's output).

mutants.py asks `slips(finder, node)` for every node of a reference function; `edit` (in
mutant_edits.py) makes each change.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import AXIS_KEYWORDS, call_name, quote

__all__ = ["WHOLE_CALLS", "slips"]

# Reductions whose result keeps its type when the axis is left out (max/min would lose `.values`).
WHOLE_CALLS = {"mean", "var", "std", "sum", "amax", "amin", "logsumexp", "norm"}


def _is_size(node: ast.AST) -> bool:
    """x.shape[i], x.size(i), x.size(-1), len(x): a size read from a tensor."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and node.args:
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def _updated_before(finder, name: str, statement: ast.stmt) -> ast.stmt | None:
    """The last statement of the function's own body before `statement` that assigns `name`."""
    body = finder.fdef.body
    at = next((i for i, s in enumerate(body) if s is statement), None)
    if at is None:
        return None
    for earlier in reversed(body[:at]):
        targets = earlier.targets if isinstance(earlier, ast.Assign) else [earlier.target] if isinstance(earlier, ast.AugAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return earlier
    return None


def slips(finder, node: ast.AST) -> None:
    """Add to `finder` (mutants._Finder) the slips this node allows."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and call_name(node) in WHOLE_CALLS:
        axes = node.args or any(k.arg in AXIS_KEYWORDS for k in node.keywords)
        if axes and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "F")):
            # only the arguments that choose the axis are quoted: the others stay as they were
            chosen = [ast.unparse(a) for a in node.args] + [ast.unparse(k) for k in node.keywords if k.arg in AXIS_KEYWORDS]
            finder.add(node, "whole", None, "axis",
                       f"`{quote(node.func)}(...)` over the whole tensor, not along one axis (`{', '.join(chosen)}` left out)")
    if isinstance(node, ast.Attribute) and node.attr == "values" and isinstance(node.value, ast.Call):
        if call_name(node.value) in ("max", "min") and isinstance(node.value.func, ast.Attribute):
            # the same axis either way: the hint names the function, not the arguments
            base, name = quote(node.value.func.value), call_name(node.value)
            finder.add(node, "mean_for", None, "function",
                       f"`{base}.mean(...)` for `{base}.{name}(...).values`: the average, not the {name}imum")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in finder.scope:
        if len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred):
            # a layer handed in as an argument (proj, attn, ln1) and not applied
            finder.add(node, "unlayer", None, "call",
                       f"`{quote(node.args[0])}` for `{quote(node)}` (the layer `{node.func.id}` left out)")
    if _is_size(node) and isinstance(node, ast.expr):
        for other in finder.scope:
            finder.add(node, "size_for", other, "variable", f"`{other}` for `{quote(node)}` (a wrong size: another number in scope)")
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        parameters = {a.arg for a in finder.fdef.args.args}
        if node.id in parameters:
            statement = finder.statement_of(node)
            update = _updated_before(finder, node.id, statement)
            if update is not None:
                finder.add(node, "given", node.id, "variable",
                           f"the original {node.id} (as the function was given it), not the {node.id} that "
                           f"`{quote(update)}` made: that step's result is lost")
