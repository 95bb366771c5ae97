"""A value written into a slice with an axis of length 1 too many at its end, tried on a learner's code only.

`lse[..., a:a + n] = m + torch.log(l)`, where the running state m and l were kept as (rows, 1) with
`keepdim=True` for the blend, and the slot is (rows,): the value keeps the trailing axis, which does
not fit (torch refuses it, or broadcasts where the sizes let it). The mend (`squeeze_written`) drops
it, `(m + torch.log(l)).squeeze(-1)`: tried at every value assigned to a subscript.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["SQUEEZE_WRITTEN_OPS", "squeeze_written_mends", "squeeze_written_words"]

SQUEEZE_WRITTEN_OPS = ("squeeze_written",)


def _written_values(fdef: ast.FunctionDef) -> dict[int, ast.Subscript]:
    """Each value assigned to one subscript, by id -> that subscript."""
    return {id(node.value): node.targets[0] for node in ast.walk(fdef) if isinstance(node, ast.Assign)
            and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)}


def squeeze_written_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `squeeze_written` changes of `fdef` (the module's docstring); each change's arg is the value, as source."""
    found, written = [], _written_values(fdef)
    for node in ast.walk(fdef):
        if id(node) not in index or id(node) not in written:
            continue
        made = ast.Call(ast.Attribute(node, "squeeze", ast.Load()), [ast.UnaryOp(ast.USub(), ast.Constant(1))], [])
        found.append(Change(fdef.name, index[id(node)], "squeeze_written", ast.unparse(made), "call",
                            f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def squeeze_written_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `squeeze_written` change mends, in words."""
    if change.op != "squeeze_written":
        return None
    return ("the value written keeps an axis of length 1 at its end, where the slot it goes into has none: "
            f"`{quote(node)}` needs `.squeeze(-1)`")
