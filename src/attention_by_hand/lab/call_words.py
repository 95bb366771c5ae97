"""What a library call in a quoted line does, in words, when the reference never makes that call.

A hint quotes the learner's line where the values part from the reference's (parting.py) or the
change that mends it (repair.py). When that line calls something the reference does not, the call
is often the mistake, and the learner often misreads what it does: `cumsum` taken for a sum,
`split(2)` for two pieces, `reshape` for a transpose, `F.dropout` left on. The hint then says what
the call does. It says it as a fact about the call, never as the cause: the call may be right and
the mistake elsewhere in the line.

Only calls whose meaning is easy to misread are described; a call the reference's function makes
(or a function of the reference's it calls) is never described: the reference's own calls are not
the mistake.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from types import ModuleType

__all__ = ["CALLS", "called", "call_words"]

# the name of the call (a function's or a method's) -> what it does
CALLS = {
    "cumsum": "is a running (cumulative) sum: entry i adds up the entries up to i only",
    "cumprod": "is a running (cumulative) product: entry i multiplies the entries up to i only",
    "unique": "keeps each distinct value (or row) once, so a repeated one counts once",
    "unique_consecutive": "keeps one of each run of equal values, so a repeated one counts once per run",
    "eye": "is the identity: ones on the diagonal, zeros everywhere else",
    "diag": "makes a diagonal matrix of a 1-D tensor but returns the diagonal of a 2-D one",
    "diagonal": "returns a diagonal's entries, not a matrix",
    "median": "is the middle value, which is not the mean",
    "dropout": "randomly zeroes entries and scales the rest by 1 / (1 - p), anew on every call "
               "(`F.dropout` does so unless it is given `training=False`)",
    "cdist": "is the distance between rows, |a - b|, not their dot product",
    "argmax": "is the position of the largest entry: an index, not a weight",
    "argmin": "is the position of the smallest entry: an index, not a weight",
    "var": "divides by n - 1 unless told otherwise (`unbiased=False` or `correction=0` divides by n)",
    "std": "divides by n - 1 unless told otherwise (`unbiased=False` or `correction=0` divides by n)",
    "norm": "is a length: the square root of the sum of squares",
    "roll": "shifts with wrap-around: what leaves one end comes back at the other",
    "flip": "reverses the order along an axis",
    "repeat_interleave": "repeats each entry in place (a a b b), unlike `repeat` (a b a b)",
    "repeat": "repeats the whole tensor (a b a b), unlike `repeat_interleave` (a a b b)",
    "tril": "keeps the lower triangle, on and below the diagonal (moved by `diagonal=`)",
    "triu": "keeps the upper triangle, on and above the diagonal (moved by `diagonal=`)",
    "split": "cuts pieces of the size it is given (an int is a piece's size, not the number of pieces)",
    "chunk": "cuts the number of pieces it is given (not pieces of that size)",
    "view": "reads the entries in memory order and regroups them: it never moves an axis",
    "reshape": "reads the entries in memory order and regroups them: it never moves an axis",
    "sigmoid": "squashes each entry on its own, 1 / (1 + exp(-x)): a row of them is no distribution",
    "relu": "sets every negative entry to 0",
    "abs": "drops every sign",
    "clamp": "cuts the values off at its bounds",
    "clip": "cuts the values off at its bounds",
    "round": "rounds to the nearest whole number",
    "normalize": "divides each vector by its length (a p-norm, 2 by default)",
    "nansum": "skips every nan as if it were 0",
    "nanmean": "skips every nan, averaging the rest",
    "expand": "repeats along axes of size 1 without copying: every copy is the same memory",
    "narrow": "takes `length` entries from `start` along an axis",
    "logsumexp": "is the log of the sum of the exponentials, not the sum itself",
    "log_softmax": "is the log of the softmax, not the softmax",
}

# a call given one of these keywords says how it counts: nothing to misread
_SETTLED = {"var": {"unbiased", "correction"}, "std": {"unbiased", "correction"}, "dropout": {"training"}}


def called(tree: ast.AST, settled: bool = True) -> list[str]:
    """The names of the calls in `tree`, in the order they are written, each once; settled=False
    leaves out a call given a keyword that says how it counts (`var(..., unbiased=False)`)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if not settled and {k.arg for k in node.keywords} & _SETTLED.get(name, set()):
                continue
            if name and name not in names:
                names.append(name)
    return names


def _parsed(code: str) -> ast.AST | None:
    """A quoted piece of code as a tree: a statement, an expression, a loop's header or a
    fragment such as `* torch.eye(V)`; None when no reading parses."""
    for text in (code, code + "\n    pass", "_" + code, code.rstrip(":") + ":\n    pass"):
        try:
            return ast.parse(text)
        except SyntaxError:
            continue
    return None


def call_words(quoted: Iterable[str], reference: ModuleType, function: str) -> str | None:
    """What each described call in the `quoted` code does, for calls the reference's `function`
    (and the functions of the reference it calls) never makes; None when there is none. `quoted`
    may hold hint text: its backticked code is read."""
    from attention_by_hand.lab.mutants import definition, reachable

    reference_calls = {name for f in reachable(reference, function) for name in called(definition(reference, f))}
    names: list[str] = []
    for text in quoted:
        for code in re.findall(r"`([^`]+)`", text) or [text]:
            tree = _parsed(code)
            for name in called(tree, settled=False) if tree is not None else []:
                if name in CALLS and name not in reference_calls and name not in names:
                    names.append(name)
    if not names:
        return None
    return "; ".join(f"`{name}`, which the reference does not call, {CALLS[name]}" for name in names)

