"""A colon typed where a comma belonged in an index, tried on a learner's code only.

`counts[a:b] += 1`, meant as the one cell at row a, column b. A colon makes a slice: `[a:b]` cuts
the FIRST axis from a up to b - 1 (nothing where b <= a) and keeps every other axis whole, so the
count lands on whole rows, not on one cell. The mend (`comma_for_colon`) writes the comma,
`counts[a, b]`: a on the first axis, b on the second. Tried at every index that is one slice with
two bounds and no step, each bound read as it stands (a name, `ids[i]`, `x.start`, `int(t)`): a bound
worked out (`a:a + block`) or a number (`0:2`) cuts a run on purpose. A slice beside others in a
tuple is left out: a pair there would pick where the others cut.
(`[::n]` for `[:n]`, a colon doubled, is range_mends.py's `step_stop`.)

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import parents, statement_lines
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["COLON_OPS", "colon_mends", "colon_words"]

COLON_OPS = ("comma_for_colon",)
_READ = (ast.Name, ast.Subscript, ast.Attribute, ast.Call)  # a bound read as it stands, not worked out


def _read_bounds(node: ast.AST) -> bool:
    """`a:b`, both bounds read as they stand (no sum, no number) and no step."""
    return (isinstance(node, ast.Slice) and isinstance(node.lower, _READ) and isinstance(node.upper, _READ)
            and node.step is None)


def colon_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `comma_for_colon` changes of `fdef` (the module's docstring); a change's node is the slice."""
    found, up, lines = [], parents(fdef), statement_lines(fdef)
    for node in ast.walk(fdef):
        owner = up.get(id(node))
        if id(node) not in index or not (_read_bounds(node) and isinstance(owner, ast.Subscript) and owner.slice is node):
            continue
        # the owner as mend_edits.py makes it: the slice's bounds a pair
        made = ast.Subscript(owner.value, ast.Tuple([node.lower, node.upper], ast.Load()), ast.Load())
        found.append(Change(fdef.name, index[id(node)], "comma_for_colon", None, "slice",
                            f"`{quote(made)}` for `{quote(owner)}`", lines[id(node)]))
    return found


def colon_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `comma_for_colon` change mends, in words."""
    if change.op != "comma_for_colon" or not _read_bounds(node):
        return None
    a, b = quote(node.lower), quote(node.upper)
    return (f"a colon typed for the comma: `[{a}:{b}]` is a slice, which cuts the FIRST axis from `{a}` up to `{b}` - 1 "
            f"(nothing where `{b}` <= `{a}`) and keeps the others whole, where `[{a}, {b}]` picks `{a}` on the first "
            f"axis and `{b}` on the second")
