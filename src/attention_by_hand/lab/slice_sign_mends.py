"""A slice's number bound written without its minus sign (or with one too many), tried on a learner's code only.

`top = scores.cummax(dim=-1)[0][..., 1:]`, meant as the last running maximum, the row's largest:
`1:` starts after the FIRST entry and keeps every one after it (n - 1 of them); the last entry alone
is `-1:`. The minus sign is one key, and both read as "one" at the end of a slice. The mend
(`slice_sign`) negates one bound written as a whole number other than 0 (`:2` made `:-2`, and `-1:`
made `1:`): tried at every slice with that one bound and no step (a slice with two bounds keeps what both
say, which the words of one would misstate). In a shape's slice only a bound of 1, the minus sign
dropped: `x.shape[:1]` typed for `x.shape[:-1]`, every size but the last, keeps the FIRST size alone,
which a batch of rows notices. The right `x.shape[:-1]` is written in nearly every long function, and
repair.py tries a bounded number of changes: it is not made `[:1]`.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast
import copy

from attention_by_hand.lab.code_layout import number_of, size_read, subscript_parts
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["SLICE_SIGN_OPS", "slice_sign_mends", "slice_sign_words"]

SLICE_SIGN_OPS = ("slice_sign",)


def _bounds(node: ast.AST) -> list[tuple[int, str, int]]:
    """(the part's place in the subscript, "lower" or "upper", the number) of each slice of `node` with one bound,
    written as a whole number other than 0 (only 1 in a shape's slice); [] for a node that is no subscript."""
    if not isinstance(node, ast.Subscript):
        return []
    shape = size_read(node.value)
    parts = subscript_parts(node)
    found = []
    for place, part in enumerate(parts):
        if not isinstance(part, ast.Slice) or part.step is not None or (part.lower is None) == (part.upper is None):
            continue
        for end in ("lower", "upper"):
            number = number_of(getattr(part, end))
            if type(number) is int and number != 0 and not (shape and number != 1):
                found.append((place, end, number))
    return found


def _negated(node: ast.Subscript, place: int, end: str, number: int) -> ast.Subscript:
    made = copy.deepcopy(node)
    parts = subscript_parts(made)
    setattr(parts[place], end, ast.UnaryOp(ast.USub(), ast.Constant(number)) if number > 0 else ast.Constant(-number))
    return made


def slice_sign_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `slice_sign` changes of `fdef` (the module's docstring); each change's arg is the new subscript, as source."""
    found = []
    for node in ast.walk(fdef):
        if id(node) not in index or isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        for place, end, number in _bounds(node):
            made = ast.unparse(_negated(node, place, end, number))
            found.append(Change(fdef.name, index[id(node)], "slice_sign", made, "sign",
                                f"`{made}` for `{quote(node)}`", node.lineno))
    return found


# what a slice keeps with one bound k > 0, either sign: (end, k's sign) -> words
_KEEPS = {("lower", 1): "`{k}:` drops the first {n} and keeps the rest", ("lower", -1): "`-{k}:` keeps the last {n} alone",
          ("upper", 1): "`:{k}` keeps the first {n} alone", ("upper", -1): "`:-{k}` drops the last {n} and keeps the rest"}


def slice_sign_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `slice_sign` change mends, in words."""
    if change.op != "slice_sign":
        return None
    for place, end, number in _bounds(node):
        if ast.unparse(_negated(node, place, end, number)) == change.arg:
            k, sign = abs(number), 1 if number > 0 else -1
            n = "entry" if k == 1 else f"{k} entries"
            written, meant = _KEEPS[end, sign].format(k=k, n=n), _KEEPS[end, -sign].format(k=k, n=n)
            what = "without its minus sign" if sign > 0 else "with a minus sign"
            return f"a slice's bound {what}: {written}, where {meant}"
    return None
