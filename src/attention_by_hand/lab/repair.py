"""One small change of the learner's own code that makes its function right on every input the
check tried: a mistake named by its mend, where no change of the reference reproduces it.

diagnosis.py asks which change of the *reference* gives the learner's outputs. Many mistakes are
no small change of the reference's code (the learner wrote the function another way) and still a
small change of the learner's: a loop that starts at 1, a slice end less one, `split(hs)` for
`split(d)`, a `v` never transposed. So the same changes (mutants.py) are made to the learner's
function, in the child (the learner's code runs nowhere else), and each is run on every input the
check called that function on. A change is said only when, with it, the function returns the
reference's output on EVERY input (its dtype too): the hint is then a fact the learner can test,
"with `range(0, T)` for `range(1, T)` (line 56) yours gives the reference's values".

Which changes: those of the function's own lines, and of the learner's helpers the checker does
not check (a checked helper has its own checks; a change there would name the wrong function).
Where blame.py found a span on every wrong call, only the span's lines are changed first. A
function that calls a checked function that was wrong is not mended (its own code may be right).
When several changes mend it, the one said first reads most like a mistake (`PREFERRED`); a
change that puts a loop's variable for another name is never said (it is right only because the
loop left that variable at its last value).

Costs are bounded by counts (`MAX_CHANGES` per function), so the same file gets the same hint on
any machine; `SECONDS` (per child) and `CALL_SECONDS` (per call) stop only a runaway change.

Left out: pairs of changes, and changes of classes' methods.
"""

from __future__ import annotations

import ast
import time
from dataclasses import dataclass
from types import ModuleType

import torch

from attention_by_hand.lab.blame import output_close
from attention_by_hand.lab.mend_words import mistake_words
from attention_by_hand.lab.mend_changes import mend_changes
from attention_by_hand.lab.mutants import Change, build, changes, definition, reachable
from attention_by_hand.lab.outcomes import Raised, call

__all__ = ["Repair", "repair", "MAX_CHANGES", "SECONDS", "PREFERRED"]

MAX_CHANGES = 400
SECONDS = 2.0
CALL_SECONDS = 0.5

# The kinds of change in the order they are said when several mend the function: those that read
# as a slip first (a term left in, another constant, another axis), a whole line left out before
# the parts of it (its factor, its call), a reordering or another name last.
PREFERRED = ("term", "comparison", "constant", "axis", "transpose", "arguments", "step", "factor", "sqrt", "sign",
             "function", "returned", "unpacked", "index", "call", "offset", "order", "variable")


@dataclass(frozen=True)
class Repair:
    """A change of the learner's function that gives the reference's output on every input tried.

    line: the learner's line it changes; text: the change in the learner's code; words: the
    mistake it mends, in words (mend_words.py), or None."""

    line: int
    text: str
    words: str | None = None


def _right(got, expected) -> bool:
    """The reference's output: its numbers within the checker's tolerance, its shapes and dtypes."""
    if isinstance(got, Raised):
        return False
    if isinstance(expected, torch.Tensor):
        return isinstance(got, torch.Tensor) and got.dtype == expected.dtype and output_close(got, expected)
    if isinstance(expected, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(expected)
                and all(_right(g, e) for g, e in zip(got, expected)))
    return output_close(got, expected)


def _loop_names(fdef: ast.FunctionDef) -> set[str]:
    """The names a `for` of the function binds (their value after the loop is its last step)."""
    names = set()
    for node in ast.walk(fdef):
        if isinstance(node, (ast.For, ast.comprehension)):
            names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return names


def _candidates(module: ModuleType, function: str, checked: set[str], span: tuple[int, int] | None) -> list[Change]:
    """The changes to try, the span's lines first, at most MAX_CHANGES."""
    loops = _loop_names(definition(module, function))
    own = [name for name in reachable(module, function) if name == function or name not in checked]
    extra = [c for name in own for c in mend_changes(definition(module, name))]
    allowed = [c for c in (*changes(module, function), *extra)
               if c.function in own and not (c.op == "name" and isinstance(c.arg, tuple) and c.arg[1] in loops)]
    if span is not None:
        inside = [c for c in allowed if c.function == function and span[0] <= c.line <= span[1]]
        allowed = inside + [c for c in allowed if c not in inside]
    return allowed[:MAX_CHANGES]


def repair(module: ModuleType, reference: ModuleType, function: str, inputs: list[tuple], checked: set[str],
           span: tuple[int, int] | None = None, deadline: float | None = None) -> Repair | None:
    """The change of the learner's `function` (in `module`) that mends it on every one of `inputs`,
    or None. checked: the functions the checker calls (their changes are not tried)."""
    expected = [call(getattr(reference, function), args) for args in inputs]
    if any(isinstance(e, Raised) for e in expected):
        return None  # where the reference raises, "right" means nothing
    learner = getattr(module, function)
    fdef = definition(module, function)
    if getattr(getattr(learner, "__code__", None), "co_firstlineno", None) not in {fdef.lineno, *(d.lineno for d in fdef.decorator_list)}:
        return None  # the name is bound to another function than the file's `def` of it: its code is not that
    wrong = [i for i, args in enumerate(inputs) if not _right(call(learner, args, CALL_SECONDS), expected[i])]
    if not wrong:
        return None
    order = wrong + [i for i in range(len(inputs)) if i not in wrong]  # a change fails fastest where yours does
    mends: list[Change] = []
    for change in _candidates(module, function, checked, span):
        if deadline is not None and time.perf_counter() > deadline:
            break
        built = build(module, function, (change,))
        if built is None:
            continue
        if all(_right(call(built, inputs[i], CALL_SECONDS), expected[i]) for i in order):
            mends.append(change)
    if not mends:
        return None
    best = min(mends, key=lambda c: (span is not None and not span[0] <= c.line <= span[1],
                                     PREFERRED.index(c.kind) if c.kind in PREFERRED else len(PREFERRED)))
    return Repair(best.line, best.text, mistake_words(definition(module, best.function), best))
