"""A function of the learner's file that is the reference's word for word: a helper the lab gives
(`hidden_future` in lab 07), left as it is.

Where the learner's values part from the reference's on a line that calls the learner's own functions,
parting.py adds that the mistake may be in one of them, unless it passed its own checks. A helper the
lab gives has no checks, and a learner who never touched it did not put the mistake there: "it calls
your `hidden_future`: the mistake may be in there" sends them to code that is the reference's. Compared
by syntax tree, without places (and without its docstring, which the learner's version may shorten).
"""

from __future__ import annotations

import ast
from types import ModuleType

from attention_by_hand.lab.mutants import definition

__all__ = ["as_given"]


def _body(fdef: ast.FunctionDef) -> str:
    """The definition's tree without places and without its docstring, with its arguments and decorators."""
    body = fdef.body[1:] if ast.get_docstring(fdef) is not None else fdef.body
    return ast.dump(ast.Module(body=body, type_ignores=[])) + ast.dump(fdef.args) + "".join(map(ast.dump, fdef.decorator_list))


def as_given(module: ModuleType, reference: ModuleType, name: str) -> bool:
    """Whether the learner's function `name` is the reference's same-named one, word for word, and the name still
    stands for that `def` (not rebound below it: `hidden_future = lambda T: ...`)."""
    try:
        mine, theirs = definition(module, name), definition(reference, name)
    except Exception:  # noqa: BLE001 - no definition to read (a lambda, a builtin): not given
        return False
    code = getattr(getattr(module, name, None), "__code__", None)
    first = min([mine.lineno, *(d.lineno for d in mine.decorator_list)]) if mine is not None else None
    return (code is not None and code.co_firstlineno == first and theirs is not None and _body(mine) == _body(theirs))
