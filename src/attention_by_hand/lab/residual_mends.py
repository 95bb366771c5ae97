"""Two mends of a residual block's stream, tried on a learner's code only.

- `pre_norm`: `ln2(h + mlp(h))`, a block written post-norm, the order of the original Transformer
  (Vaswani et al., 2017, "Attention Is All You Need": LayerNorm(x + Sublayer(x))) and of BERT, which
  normalise after each residual sum. This lab's block is pre-norm, GPT-2's order (Radford et al.,
  2019, moved the norm to the input of each sub-block): the branch reads the normalised input, and
  the sum adds the input as it is. The mend is `h + mlp(ln2(h))`. Tried on every call of one
  argument whose name says a norm (`ln`, `norm`: `ln2`, `self.norm1`, `F.layer_norm`'s kin) and whose
  argument is a sum of a name and a call (the branch, or an index of it, `attn(h)[0]`) whose first
  argument is that same name.
- `stream_read`: `x + a + mlp(ln2(a))`, the second branch given the first branch's output `a` alone,
  where the stream after it, `x + a`, belongs (each branch reads the running sum, and adds to it). The
  mend puts the sum up to that term in its place, `mlp(ln2(x + a))`. Tried on every call that is a later
  term of a sum and reads, inside it, a name that is an earlier term of that sum, not its first.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast
import copy

from attention_by_hand.lab.code_layout import statement_lines
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["RESIDUAL_OPS", "pre_normed", "residual_mends", "residual_words"]

RESIDUAL_OPS = ("pre_norm", "stream_read")


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


def _terms(total: ast.expr) -> list[ast.expr]:
    """The terms of a sum written `t0 + t1 + ...`, left to right (one term for anything else); walked
    down the left sides in a loop, as a sum of hundreds of terms nests that deep."""
    terms = []
    while isinstance(total, ast.BinOp) and isinstance(total.op, ast.Add):
        terms.append(total.right)
        total = total.left
    return [total, *reversed(terms)]


def _streams_read(total: ast.BinOp) -> list[tuple[ast.expr, str]]:
    """(a later term, that term with an earlier term's name inside it made the sum up to that name), for
    each such name of `x + a + mlp(ln2(a))`: `mlp(ln2(x + a))`."""
    terms, found = _terms(total), []
    for j, term in enumerate(terms):
        earlier = {t.id: i for i, t in enumerate(terms[1:j], start=1) if isinstance(t, ast.Name)}
        for name in dict.fromkeys(n.id for n in ast.walk(term) if isinstance(n, ast.Name) and n.id in earlier):
            so_far = ast.parse(" + ".join(quote(t) for t in terms[: earlier[name] + 1]), mode="eval").body
            made = _Put(name, so_far).visit(copy.deepcopy(term))
            found.append((term, ast.unparse(made)))
    return found


class _Put(ast.NodeTransformer):
    """Puts an expression where a name is read (the sum up to a term, where the term's name stood)."""

    def __init__(self, name: str, value: ast.expr):
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.value) if node.id == self.name else node


def residual_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `pre_norm` and `stream_read` changes of `fdef` (the module's docstring)."""
    found, lines = [], statement_lines(fdef)
    # the sums that are the left side of a longer sum (`x + a` of `x + a + b`): the whole one is read
    lefts = {id(n.left) for n in ast.walk(fdef) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)}
    for node in ast.walk(fdef):
        made = pre_normed(node) if id(node) in index else None
        if made is not None:
            found.append(Change(fdef.name, index[id(node)], "pre_norm", made, "order", f"`{made}` for `{quote(node)}`",
                                lines[id(node)]))
        parent_sum = isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and id(node) in index
        for term, made in _streams_read(node) if parent_sum and id(node) not in lefts else ():
            if isinstance(term, ast.Call) and id(term) in index:
                found.append(Change(fdef.name, index[id(term)], "stream_read", made, "variable",
                                    f"`{made}` for `{quote(term)}`", lines[id(term)]))
    return found


def residual_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `pre_norm` or `stream_read` change mends, in words."""
    if change.op == "stream_read":
        return ("a branch given an earlier branch's output alone, where the stream after it (the sum up to that term) "
                "belongs: each branch of a residual block reads the running sum, and adds to it")
    if change.op != "pre_norm" or pre_normed(node) is None:
        return None
    norm = quote(node.func)
    return (f"the norm `{norm}` applied after the residual sum (post-norm, the order of the original Transformer and of "
            f"BERT); this block is pre-norm: the branch reads `{norm}` of its input, and the sum adds the input as it is")
