"""Exponentials taken of the raw scores where their shifted twin was meant, tried on a learner's code only.

`l = r * l + s.exp().sum(-1)` in an online softmax, two lines after `p = (s - m_new).exp()`: the
running sum adds the unshifted exponentials while the accumulator adds the shifted ones, so the
two count on scales a factor exp(m_new) apart (and the raw `exp` overflows for large scores). The
mend (`shifted_twin`) puts the name that holds the shifted values, `p.sum(-1)`. Tried at every `exp`
(`x.exp()`, `torch.exp(x)`) of an expression that an earlier assignment in the same block of
statements takes the `exp` of, less something (`p = torch.exp(s - m)`, `p = (s - m[..., None]).exp()`).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, function_form
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["SHIFTED_OPS", "shifted_mends", "shifted_words"]

SHIFTED_OPS = ("shifted_twin",)


def _exp_of(node: ast.AST) -> ast.expr | None:
    """What an `exp` call takes the exponential of (`s` of `s.exp()` or `torch.exp(s)`); None for another node."""
    if not (isinstance(node, ast.Call) and call_name(node) == "exp"):
        return None
    if function_form(node, ("torch",)):
        return node.args[0] if len(node.args) == 1 else None
    return node.func.value if isinstance(node.func, ast.Attribute) and not node.args else None


def _shifted(statement: ast.stmt) -> tuple[str, str] | None:
    """(the name, the dump of what was shifted) of `p = (s - m).exp()`; None for another statement."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return None
    inner = _exp_of(statement.value)
    if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub):
        return statement.targets[0].id, ast.dump(inner.left)
    return None


def shifted_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `shifted_twin` changes of `fdef` (the module's docstring)."""
    found = []
    for block in (n.body for n in ast.walk(fdef) if isinstance(n, (ast.FunctionDef, ast.For, ast.While, ast.If, ast.With))):
        twins: dict[str, str] = {}  # the dump of what was shifted -> the name of its shifted exponentials
        for statement in block:
            for node in (n for n in ast.walk(statement) if id(n) in index):
                inner = _exp_of(node)
                name = twins.get(ast.dump(inner)) if inner is not None else None
                if name is not None:
                    found.append(Change(fdef.name, index[id(node)], "shifted_twin", name, "variable",
                                        f"`{name}` for `{quote(node)}`", statement.lineno))
            if (shifted := _shifted(statement)) is not None:
                twins[shifted[1]] = shifted[0]
    return found


def shifted_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `shifted_twin` change mends, in words."""
    if change.op != "shifted_twin" or not isinstance(node, ast.Call):
        return None
    return (f"`{quote(node)}` takes the exponentials unshifted, where `{change.arg}`, made before it, holds them shifted "
            "(the exp of the same values less something): the two differ by a factor on each row, and the unshifted "
            "overflow for large values")
