"""What one variable used for another means, said after the change itself.

"`values[:, others]` for `writes[:, others]`" is exact but leaves the learner to look up what
`writes` is; the reference made it from `values` one line before (`writes = softmax(scores) @
values`), and saying that step shows what was skipped or not used. And "`math.sqrt(T)` for `math.sqrt(head_size)`"
says more once the learner knows that the reference's `T` is `keys.shape[2]`, the number of keys.
So a change of one name for another (mutants.py, op "name") ends with one of:

- the step (or steps) that make the reference's variable from the one used, when the one used is
  what the reference's variable was made from: said as the reference's, since the learner may
  have left that step out or made it and then used the other name;
- else what the one used is, in the reference's line that makes it.

Left out: names that are arguments (the learner has them, with the docstring's words), and
assignments other than plain ones (a loop's target, `+=`: what they hold changes as it runs).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import quote

__all__ = ["gloss"]

LIMIT = 70  # characters of a quoted statement


def _made(fdef: ast.FunctionDef, name: str, before: int) -> ast.Assign | None:
    """The last plain assignment to `name` on a line before `before` (None: none, or an argument)."""
    found = None
    for node in ast.walk(fdef):
        if (isinstance(node, ast.Assign) and node.lineno < before
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
                and (found is None or node.lineno > found.lineno)):
            found = node
    return found


_SIZES = ("shape", "ndim", "dtype", "device")  # attributes that read a tensor's form, not its numbers
_SIZE_CALLS = ("len", "size", "dim", "numel", "zeros", "ones", "full", "empty", "arange", "eye", "randn", "rand", "linspace")


def _reads(node: ast.AST) -> set[str]:
    """The names whose numbers `node` reads: not those it only measures (`x.shape[-2]`, `len(x)`)
    or passes as a size (`torch.ones(T, T)`)."""
    found: set[str] = set()

    def visit(n):
        if isinstance(n, ast.Attribute) and n.attr in _SIZES:
            return
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if name in _SIZE_CALLS:
                return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            found.add(n.id)
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return found


def _computes(node: ast.AST) -> bool:
    """A step that computes numbers (a call, an operation), not a size's whole-number arithmetic
    (`C // n_heads`)."""
    return not any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.FloorDiv, ast.Mod)) for n in ast.walk(node)) and any(
        isinstance(n, (ast.Call, ast.BinOp)) for n in ast.walk(node))


def _steps_from(fdef: ast.FunctionDef, old: str, new: str, line: int) -> list[ast.Assign] | None:
    """The assignments that lead from `new` to `old` (the last first), when `old` was made from
    `new`'s numbers through at most three steps that compute; None otherwise."""
    made = _made(fdef, old, line)
    chain = []
    while made is not None and len(chain) < 3 and _computes(made.value):
        chain.append(made)
        read = _reads(made.value)
        if new in read:
            return chain
        # one step back: the name made again (`s = s.masked_fill(...)`), else the one local it read
        target = next(t.id for t in made.targets if isinstance(t, ast.Name))
        before = [target] if target in read else [n for n in read if _made(fdef, n, made.lineno) is not None]
        made = _made(fdef, before[0], made.lineno) if len(before) == 1 else None
    return None


def gloss(fdef: ast.FunctionDef, old: str, new: str, line: int) -> str:
    """Words to add after "`new` for `old`" in the statement on `line`, or ""."""
    steps = _steps_from(fdef, old, new, line)
    if steps:
        quoted = ", then ".join(f"`{quote(s, LIMIT)}`" for s in reversed(steps))
        # said of the reference: the learner may have made `old` too and not used it here
        steps_said = "" if len(steps) == 1 else f" in {len(steps)} steps"
        return f": the reference makes `{old}` from `{new}`{steps_said} ({quoted})"
    made = _made(fdef, new, line)
    if made is not None:
        return f" (the reference's `{new}` is made by `{quote(made, LIMIT)}`)"
    return ""
