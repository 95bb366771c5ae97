"""A name read one step early in a `return`: `return out, e` where `w = e / e.sum(-1, keepdim=True)` was meant.

A mend that puts another variable for one in a `return` is said only beside a relation between the
outputs when it names a slip (repair.py, mend_changes.NAMING_MENDS); another variable that mends by
chance names none. One kind of it does: the name the `return` reads is what the function then went on
to make the meant one from. The learner made the last step (the division, the residual sum) and read
the value before it. That is said as what it is, where it is so: the meant name's last assignment
before the `return` reads the old one, and neither is bound again between that assignment and the
`return` (after `w = s.softmax(-1)` and then `s = w @ v`, the `s` returned is made from `w`, not the
other way round). Where the old name is the whole value of the `return`, or one part of the tuple it
returns, it was returned a step early (`return out, e`); elsewhere in it, read a step early (`ln2(x)`
in `return h + mlp(ln2(x))`, after `h = x + attn(ln1(x))`).

Left out: a step two statements back (`w` made from `p`, `p` from `e`), and assignments in loops or
branches read as if each ran once, in the order of their lines.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import Change

__all__ = ["RETURNED_STEP", "returned_step"]

RETURNED_STEP = "returned_step"


def _return_of(node: ast.AST, fdef: ast.FunctionDef) -> tuple[ast.Return | None, bool]:
    """The `return` that reads `node`, and whether `node` is what it returns (its whole value, or
    one part of the tuple it returns); (None, False) where no `return` reads it."""
    for statement in ast.walk(fdef):
        if isinstance(statement, ast.Return) and statement.value is not None:
            value = statement.value
            if value is node or (isinstance(value, ast.Tuple) and any(e is node for e in value.elts)):
                return statement, True
            if any(n is node for n in ast.walk(value)):
                # read as a value, not for a size or a method of it (`logp.numel()`): that is another variable
                return (statement, False) if not any(isinstance(p, ast.Attribute) and p.value is node
                                                     for p in ast.walk(value)) else (None, False)
    return None, False


def _bound(fdef: ast.FunctionDef, name: str) -> list[int]:
    """The lines where `name` is bound (assigned, augmented, a loop's target, a part of a tuple)."""
    return [n.lineno for n in ast.walk(fdef) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]


def returned_step(fdef: ast.FunctionDef, change: Change) -> str | None:
    """Where `change` puts a name for one a `return` reads, and the new name's last assignment before
    that `return` reads the old one (neither bound again in between): the slip in words; None otherwise."""
    if change.op != "name" or not isinstance(change.arg, tuple) or len(change.arg) != 2:
        return None
    old, new = change.arg
    nodes = list(ast.walk(fdef))
    node = nodes[change.index] if 0 <= change.index < len(nodes) else None
    returned, whole = _return_of(node, fdef) if isinstance(node, ast.Name) else (None, False)
    if returned is None:
        return None
    made = [n for n in ast.walk(fdef) if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and n.targets[0].id == new and n.lineno < returned.lineno]
    if not made:
        return None
    last = max(made, key=lambda n: n.lineno)
    if any(last.lineno < line < returned.lineno for line in _bound(fdef, new) + _bound(fdef, old)):
        return None  # bound again after it: what the `return` reads is not what that line made
    if not any(isinstance(n, ast.Name) and n.id == old for n in ast.walk(last.value)):
        return None
    return (f"a step too early {'returned' if whole else 'read'}: `{old}`, from which line {last.lineno} makes "
            f"`{new}` (`{new} = {ast.unparse(last.value)}`), where `{new}` itself was meant")
