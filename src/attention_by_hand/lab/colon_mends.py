"""A colon typed where another mark belonged in an index, tried on a learner's code only.

- `comma_for_colon`: `counts[a:b] += 1`, meant as the one cell at row a, column b. A colon makes a
  slice: `[a:b]` is every whole row from a up to b - 1 (none where b <= a), so the count lands on
  rows, not on one cell. The mend writes the comma, `counts[a, b]`. Tried at every index that is one
  slice whose two bounds are plain names, no step (`[i:j]` read or written, as loop variables are);
  a bound worked out (`a:a + block`) cuts a run on purpose.
- `step_for_stop`: `weight[::T]`, meant as the first T rows. A second colon makes T the STEP: every
  T-th row from the first (0, T, 2T, ...). The mend takes a colon away, `weight[:T]`. Tried at every
  slice given a step alone (no start, no stop) that is no negative number (`[::-1]` reverses on purpose).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import parents
from attention_by_hand.lab.mutant_edits import Change

__all__ = ["COLON_OPS", "colon_mends", "colon_words"]

COLON_OPS = ("comma_for_colon", "step_for_stop")


def _named_bounds(node: ast.AST) -> bool:
    """`a:b`, both bounds plain names and no step."""
    return (isinstance(node, ast.Slice) and isinstance(node.lower, ast.Name) and isinstance(node.upper, ast.Name)
            and node.step is None)


def _step_alone(node: ast.AST) -> bool:
    """`::n`, a step with no start and no stop, n no negative number."""
    if not (isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is not None):
        return False
    step = node.step
    return not (isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub)) and not (
        isinstance(step, ast.Constant) and isinstance(step.value, (int, float)) and step.value < 0)


def colon_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The changes of `fdef` (the module's docstring); a change's node is the slice itself."""
    found, up = [], parents(fdef)
    for node in ast.walk(fdef):
        if id(node) not in index:
            continue
        owner = up.get(id(node))
        # the index is that one slice: in a tuple, a pair would gather where the others cut
        if _named_bounds(node) and isinstance(owner, ast.Subscript) and owner.slice is node:
            op = "comma_for_colon"
        elif _step_alone(node) and isinstance(owner, (ast.Subscript, ast.Tuple)):
            op = "step_for_stop"
        else:
            continue
        # as mend_edits.py makes it: the bounds a pair, or the step a stop
        made = f"{node.lower.id}, {node.upper.id}" if op == "comma_for_colon" else f":{ast.unparse(node.step)}"
        was = ast.unparse(node)
        found.append(Change(fdef.name, index[id(node)], op, made, "slice", f"`[{made}]` for `[{was}]`", node.lineno))
    return found


def colon_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a change of this module mends, in words."""
    if change.op == "comma_for_colon" and _named_bounds(node):
        a, b = node.lower.id, node.upper.id
        return (f"a colon typed for the comma: `[{a}:{b}]` is a slice, every whole row from `{a}` up to `{b} - 1` (none "
                f"where `{b} <= {a}`), where `[{a}, {b}]` is the one entry at row `{a}`, column `{b}`")
    if change.op == "step_for_stop" and _step_alone(node):
        n = ast.unparse(node.step)
        return (f"a colon too many: in `[::{n}]`, `{n}` is the STEP, so it takes the entries at 0, `{n}`, `2 * {n}`, "
                f"...; `[:{n}]` takes the first `{n}`, stopping before `{n}`")
    return None
