"""A layer's `apply` taken for running the layer, read off the learner's values on the line that raised.

`v = value.apply(x)` raises "'Tensor' object is not callable", and torch's words point nowhere near
the cause: `nn.Module.apply(fn)` calls `fn` on each of the layer's submodules and on the layer itself
(it is meant for setting weights, `model.apply(init)`), so it called the tensor `x` with the layer as
its argument. In Flax a module does run as `module.apply(params, x)`; in torch a layer runs when
called, `value(x)`. The child (calls.py) evaluates, in the learner's frame, the object of each
`.apply(...)` call on the raising line and its first argument, and names the call only where the
object is a layer (an `nn.Module`) and the argument a tensor.

Left out: `Tensor.apply_` and an autograd Function's `apply` (neither is a layer's), and any call on
the line that would have to be made again to be read: nothing of the learner's runs twice.
"""

from __future__ import annotations

import ast
from pathlib import Path

from attention_by_hand.lab.broadcast_words import learner_frame_and_line, line_tree, quietly
from attention_by_hand.lab.none_words import value_of

__all__ = ["layer_applied"]


def layer_applied(tb, learner: Path, message: str) -> str | None:
    """Words for the `layer.apply(tensor)` on the learner's line that raised "'Tensor' object is not
    callable"; None where the line holds no such call."""
    return quietly(_layer_applied, tb, learner, message)


def _layer_applied(tb, learner: Path, message: str) -> str | None:
    if "'Tensor' object is not callable" not in message:
        return None
    got = learner_frame_and_line(tb, learner)
    tree = line_tree(got[1]) if got else None
    if tree is None:
        return None
    import torch

    frame = got[0]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "apply"
                and node.args and not isinstance(node.args[0], ast.Starred)):
            continue
        # the object and its argument are names or attribute chains: read, never called
        layer, given = value_of(node.func.value, frame), value_of(node.args[0], frame)
        if isinstance(layer, torch.nn.Module) and isinstance(given, torch.Tensor):
            name, tensor = ast.unparse(node.func.value), ast.unparse(node.args[0])
            return (f"`{name}.apply({tensor})` does not run the layer: a layer's `apply(fn)` calls `fn` on each of its "
                    f"submodules and on itself (it is made for setting weights), so it called the tensor `{tensor}`; "
                    f"a layer runs when called, `{name}({tensor})`")
    return None
