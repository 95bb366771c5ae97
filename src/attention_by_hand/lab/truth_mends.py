"""Python's `not`, `and` and `or` read as operations on each entry, tried on a learner's code only.

`return not torch.ones(T, T).tril().bool()`, meant as the cells above the diagonal: `not` asks for
the truth of the WHOLE tensor, one Python bool; torch refuses that for more than one entry ("Boolean
value of Tensor with more than one value is ambiguous") and for one entry answers a plain `False`.
R's `!` and MATLAB's `~` turn each entry over; in torch that is `~` (or `torch.logical_not`). `a and b`
and `a or b` ask alike, and give one of the two sides whole; `&` and `|` combine entry by entry.
The mends (`truth_entrywise`) put `~x` for `not x`, and `a & b` for `a and b` (`|` for `or`): tried at
every `not`, `and` and `or` of the function, but never said where what `not` reads, or the first side of
`and` or `or`, is a name that holds no tensor on some input (`plain_truth`): `not causal` of a flag is
Python's own `not`, and `~causal` of a bool is -1 or -2, always true, which mends a condition by chance.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

import torch

from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["TRUTH_OPS", "plain_truth", "truth_mends", "truth_words"]

TRUTH_OPS = ("truth_entrywise",)
_ENTRYWISE = {ast.And: ast.BitAnd, ast.Or: ast.BitOr}
_SAID = {ast.And: ("and", "&"), ast.Or: ("or", "|")}


def _entrywise(node: ast.AST) -> ast.expr | None:
    """`~x` for `not x`, `a & b` for `a and b`, `a | b` for `a or b`; None for another node."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return ast.UnaryOp(ast.Invert(), node.operand)
    if isinstance(node, ast.BoolOp):
        made = node.values[0]
        for value in node.values[1:]:
            made = ast.BinOp(made, _ENTRYWISE[type(node.op)](), value)
        return made
    return None


def plain_truth(node: ast.AST, values: list[dict[str, object]]) -> bool:
    """Whether what `node`'s `not` reads, or the first side of its `and` or `or`, is a name that holds no tensor as
    the function ends on some input (values: its locals on each input, repair.py's `seens`)."""
    read = node.operand if isinstance(node, ast.UnaryOp) else node.values[0] if isinstance(node, ast.BoolOp) else None
    return isinstance(read, ast.Name) and any(read.id in v and not isinstance(v[read.id], torch.Tensor) for v in values)


def truth_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `truth_entrywise` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or (made := _entrywise(node)) is None:
            continue
        found.append(Change(fdef.name, index[id(node)], "truth_entrywise", ast.unparse(made), "comparison",
                            f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def truth_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `truth_entrywise` change mends, in words."""
    if change.op != "truth_entrywise" or _entrywise(node) is None:
        return None
    if isinstance(node, ast.UnaryOp):
        return ("Python's `not` asks for the truth of the WHOLE tensor and gives one plain bool (an error for more "
                "than one entry); `~` turns over each entry (`torch.logical_not` too)")
    word, sign = _SAID[type(node.op)]
    return (f"Python's `{word}` asks for the truth of a WHOLE tensor and gives one of its sides whole (an error for "
            f"more than one entry); `{sign}` combines the two entry by entry")
