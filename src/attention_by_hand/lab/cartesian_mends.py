"""`torch.cartesian_prod` given one tensor where it was to pair a tensor with itself, tried on a
learner's code only.

`torch.cartesian_prod(r)`, meant as every pair (i, j) of entries of r, as Python's
`itertools.product(r, repeat=2)` makes them: `cartesian_prod` pairs the tensors it is GIVEN, and of one
tensor it returns that tensor unchanged, a vector with no pairs in it. The mend (`cartesian_self`)
gives the tensor twice, `torch.cartesian_prod(r, r)`: tried at every `cartesian_prod` given one tensor.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["CARTESIAN_OPS", "cartesian_mends", "cartesian_words"]

CARTESIAN_OPS = ("cartesian_self",)


def _alone(node: ast.AST) -> bool:
    """`torch.cartesian_prod(r)`: one tensor, no keywords."""
    return (isinstance(node, ast.Call) and ast.unparse(node.func) == "torch.cartesian_prod" and len(node.args) == 1
            and not node.keywords and not isinstance(node.args[0], ast.Starred))


def cartesian_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `cartesian_self` changes of `fdef` (the module's docstring); each change's arg is the call, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or not _alone(node):
            continue
        made = ast.unparse(ast.Call(node.func, [node.args[0], node.args[0]], []))
        found.append(Change(fdef.name, index[id(node)], "cartesian_self", made, "arguments",
                            f"`{made}` for `{quote(node)}`", node.lineno))
    return found


def cartesian_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `cartesian_self` change mends, in words."""
    if change.op != "cartesian_self" or not _alone(node):
        return None
    r = quote(node.args[0])
    return (f"`torch.cartesian_prod` pairs the tensors it is given, and of ONE it returns that tensor unchanged; every "
            f"pair of `{r}`'s entries with each other is `torch.cartesian_prod({r}, {r})`")
