"""A layer's weight read where its output belongs, tried on a learner's code only.

`weights @ value.weight`, meant as the weights blending the values: `value.weight` is a parameter
of the layer (a Linear's (out_features, in_features) matrix, a LayerNorm's scales, an Embedding's
rows), the same whatever the input; the values are what the layer makes of the input, `value(x)`.
The mend (`layer_applied`) applies the layer to each of the function's arguments in turn, `value(x)`
for `value.weight`. Tried at every `.weight` read off a name, with each argument of the function
but that name.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["LAYER_OPS", "layer_mends", "layer_words"]

LAYER_OPS = ("layer_applied",)


def _weight_of(node: ast.AST) -> str | None:
    """The layer's name of `layer.weight`, read; else None."""
    if isinstance(node, ast.Attribute) and node.attr == "weight" and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def layer_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `layer_applied` changes of `fdef` (the module's docstring)."""
    arguments = [a.arg for a in (*fdef.args.posonlyargs, *fdef.args.args)]
    found = []
    for node in ast.walk(fdef):
        layer = _weight_of(node)
        if layer is None or id(node) not in index:
            continue
        for given in (a for a in arguments if a != layer):
            applied = f"{layer}({given})"
            found.append(Change(fdef.name, index[id(node)], "layer_applied", applied, "call",
                                f"`{applied}` for `{quote(node)}`", node.lineno))
    return found


def layer_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `layer_applied` change mends, in words."""
    layer = _weight_of(node)
    if change.op != "layer_applied" or layer is None:
        return None
    return (f"`{layer}.weight` is a parameter of the layer, the same whatever the input; what the layer makes of its "
            f"input is its output, `{change.arg}`")
