"""One mend of where a residual block's norm goes, tried on a learner's code only.

- `pre_norm`: `ln2(h + mlp(h))`, a block written post-norm, the order of the original Transformer
  (Vaswani et al., 2017, "Attention Is All You Need": LayerNorm(x + Sublayer(x))) and of BERT, which
  normalise after each residual sum. This lab's block is pre-norm, GPT-2's order (Radford et al.,
  2019, moved the norm to the input of each sub-block): the branch reads the normalised input, and
  the sum adds the input as it is. The mend is `h + mlp(ln2(h))`. Tried on every call of one
  argument whose name says a norm (`ln`, `norm`: `ln2`, `self.norm1`, `F.layer_norm`'s kin) and whose
  argument is a sum of a name and a call (the branch, or an index of it, `attn(h)[0]`) whose first
  argument is that same name.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast
import copy

from attention_by_hand.lab.code_layout import statement_lines
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["RESIDUAL_OPS", "pre_normed", "residual_mends", "residual_words"]

RESIDUAL_OPS = ("pre_norm",)


def _branch_call(side: ast.expr) -> ast.Call | None:
    """The call of a branch, `mlp(h)` or the `attn(h)` of `attn(h)[0]`; None for another node."""
    call = side.value if isinstance(side, ast.Subscript) else side
    return call if isinstance(call, ast.Call) and call.args and not isinstance(call.args[0], ast.Starred) else None


def pre_normed(node: ast.AST) -> str | None:
    """`h + mlp(ln2(h))` for `ln2(h + mlp(h))`, written out whole; None for another node."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.BinOp) and isinstance(node.args[0].op, ast.Add)):
        return None
    called = ast.unparse(node.func).rsplit(".", 1)[-1].lower()
    if not (called.startswith("ln") or "norm" in called):  # a norm's name: no other call is moved onto a branch
        return None
    total = node.args[0]
    for kept, side in ((total.left, total.right), (total.right, total.left)):
        call = _branch_call(side)
        if isinstance(kept, ast.Name) and call is not None and ast.dump(call.args[0]) == ast.dump(kept):
            branch = copy.deepcopy(side)
            _branch_call(branch).args[0] = ast.Call(node.func, [kept], [])  # the norm moved onto the branch's input
            return ast.unparse(ast.BinOp(kept, ast.Add(), branch))
    return None


def residual_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `pre_norm` changes of `fdef` (the module's docstring)."""
    found, lines = [], statement_lines(fdef)
    for node in ast.walk(fdef):
        made = pre_normed(node) if id(node) in index else None
        if made is not None:
            found.append(Change(fdef.name, index[id(node)], "pre_norm", made, "order", f"`{made}` for `{quote(node)}`",
                                lines[id(node)]))
    return found


def residual_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `pre_norm` change mends, in words."""
    if change.op != "pre_norm" or pre_normed(node) is None:
        return None
    norm = quote(node.func)
    return (f"the norm `{norm}` applied after the residual sum (post-norm, the order of the original Transformer and of "
            f"BERT); this block is pre-norm: the branch reads `{norm}` of its input, and the sum adds the input as it is")
