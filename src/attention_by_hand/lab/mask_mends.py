"""A mask of numbers used as an index, tried on a learner's code only.

`s[:, torch.full((T, T), 1).triu(diagonal=1)] = float("-inf")`, meant as the cells above the diagonal:
1 read as True. A tensor indexes by its dtype: a bool one picks the cells where it holds True, a
tensor of whole numbers picks whole entries of the axis it stands for BY NUMBER (here rows 0 and 1,
again and again), and a float one is refused. `torch.full` with a whole number fills int64;
`ones`, `zeros` and `eye` fill floats; `triu` and `tril` keep the dtype they are given. The mend
(`mask_bool`) makes the index bool, `torch.full((T, T), 1).triu(diagonal=1).bool()`. Tried at
every part of an index that is made by one of those calls (or by `triu`/`tril` of one), and where
the part is a name the function binds once to such a call, at that call (the line that makes it).

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import bound_once, call_name, function_form, tensor_and_args
from attention_by_hand.lab.mutant_edits import Change, quote

__all__ = ["MASK_OPS", "mask_mends", "mask_words"]

MASK_OPS = ("mask_bool",)
_FILLS = ("full", "ones", "zeros", "eye", "full_like", "ones_like", "zeros_like")  # what a mask is made of
_KEEPS = ("triu", "tril")  # what keeps the dtype of the tensor it is given


def _filled(node: ast.AST) -> ast.Call | None:
    """The filling call a mask's expression is made by (`torch.full(...)` of
    `torch.full(...).triu(1)`); None where the expression is not one."""
    while isinstance(node, ast.Call) and call_name(node) in _KEEPS:
        node = tensor_and_args(node)[0] if function_form(node) else node.func.value
    return node if isinstance(node, ast.Call) and call_name(node) in _FILLS else None


def _bound_once(fdef: ast.FunctionDef) -> dict[str, ast.expr]:
    """The names `fdef` binds once, each to the mask expression it is bound to (a filling call, as
    `_filled` reads it)."""
    return {name: value for name, value in bound_once(fdef).items() if _filled(value) is not None}


def mask_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `mask_bool` changes of `fdef` (the module's docstring)."""
    names = _bound_once(fdef)
    found, seen = [], set()
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Subscript):
            continue
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for part in parts:
            # a name's mask is mended where it is made: there the words can say what it was filled with
            made = names.get(part.id) if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load) else part
            if made is None or id(made) not in index or id(made) in seen or _filled(made) is None:
                continue
            seen.add(id(made))
            mended = ast.unparse(ast.Call(ast.Attribute(made, "bool", ast.Load()), [], []))
            found.append(Change(fdef.name, index[id(made)], "mask_bool", mended, "call", f"`{mended}` for `{quote(made)}`",
                                made.lineno))
    return found


def _dtype(filled: ast.Call) -> tuple[str | None, object]:
    """What a filling call fills, as far as its own text says, and its fill where written: "int" (`full`
    with a whole number), "float" (`ones`, `zeros`, `eye`, `full` with a float), else None (a dtype
    given, or another tensor's)."""
    if any(k.arg == "dtype" for k in filled.keywords) or call_name(filled).endswith("_like"):
        return None, None
    if call_name(filled) != "full":
        return "float", None
    fill = filled.args[1] if len(filled.args) > 1 else next((k.value for k in filled.keywords if k.arg == "fill_value"), None)
    value = fill.value if isinstance(fill, ast.Constant) else None
    return ("int" if type(value) is int else "float" if type(value) is float else None), value


def mask_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a `mask_bool` change mends, in words."""
    filled = _filled(node) if change.op == "mask_bool" else None
    if filled is None:
        return None
    kind, fill = _dtype(filled)
    # a mask of ones cut by triu/tril holds 0s and 1s: as numbers, those pick entries 0 and 1
    picked = " (entries 0 and 1 of that axis, again and again)" if fill == 1 else ""
    said = {"int": "holds whole numbers (`full` with a whole number fills int64), not True and False: an index of whole "
                   f"numbers picks whole entries of its axis BY NUMBER{picked}, not the cells where it holds {fill}",
            "float": f"holds floats (`{call_name(filled)}` fills floats), not True and False, and an index takes whole "
                     "numbers or bools only",
            None: "is a tensor of numbers, not of True and False: as an index, whole numbers pick whole entries of its axis "
                  "by number (a float one is refused), not the cells where it holds 1"}[kind]
    return f"`{quote(node)}` {said}; a mask picks cells only as a bool tensor (`.bool()`)"
