"""A clamp's bound read as the other one, tried on a learner's code only.

`new = m.clamp(max=s)`, meant as the running maximum of `m` and `s`: `max=` reads as "the maximum",
but it is the CEILING clamp puts on each entry, so the entry kept is the smaller of the two; the
larger is kept by the FLOOR, `min=` (`torch.maximum(m, s)` says it outright). The mend
(`clamp_side`) gives the bound to the other keyword (`max=` for `min=` and back): tried at every
`clamp` or `clip` given one bound by keyword. `clamp_max` for `clamp_min` is another name of a
call, which the reference's changes already try (and catalogued hints name).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["CLAMP_OPS", "clamp_mends", "clamp_words"]

CLAMP_OPS = ("clamp_side",)
_OTHER = {"min": "max", "max": "min"}
# what each bound is, and what it keeps of an entry and the bound
_IS = {"min": "a floor", "max": "a ceiling"}
_KEEPS = {"min": "the larger", "max": "the smaller"}


def _bound(node: ast.AST) -> str | None:
    """The bound a clamp is given by keyword, "min" or "max", where it is its one keyword; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    given = [k.arg for k in node.keywords]
    return given[0] if call_name(node) in ("clamp", "clip") and len(given) == 1 and given[0] in ("min", "max") else None


def clamp_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `clamp_side` changes of `fdef` (the module's docstring)."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or (bound := _bound(node)) is None:
            continue
        made = ast.Call(node.func, node.args, [ast.keyword(_OTHER[bound], node.keywords[0].value)])
        found.append(Change(fdef.name, index[id(node)], "clamp_side", ast.unparse(made), "function",
                            f"`{quote(made)}` for `{quote(node)}`", node.lineno))
    return found


def clamp_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `clamp_side` change mends, in words."""
    if change.op != "clamp_side" or (bound := _bound(node)) is None:
        return None
    other = _OTHER[bound]
    written, meant = f"`{bound}=`", f"`{other}=`"
    both = "maximum" if other == "min" else "minimum"
    return (f"the other bound of a clamp: {written} is {_IS[bound]}, which keeps of each entry and the bound "
            f"{_KEEPS[bound]}, where {_KEEPS[other]} was meant, which {meant} keeps (`torch.{both}` says it outright)")
