"""Whether a change of the reference, matched to the learner's errors by their kind, raises with other numbers.

diagnosis.py keeps a change whose outputs are the learner's wherever the learner's function returned,
and whose errors are of the same family wherever it raised (outcomes.alike: a shape that does not fit,
in any words). An error of the same kind is little evidence, and one in the very words of the learner's
but with other numbers in them speaks against the change: `tokens.ndim` for the number of tokens gives
two positions whatever T is, which `T + 1` for `T` matches where T = 1; on T = 3 both raise "The size of
tensor a (3) must match the size of tensor b (...)", with 2 for the learner and 4 for the change. Such a
change fits some inputs by chance (`partly_raised`), and a mend of the learner's own line that makes
every input right says more (engine.py). Errors in other words tell nothing either way: the learner's
function may take another road to the same slip (`weight[ids]` where the reference calls an embedding,
"index 5 is out of bounds" against "index out of range in self").
"""

from __future__ import annotations

import re
from types import ModuleType

from attention_by_hand.lab.mutants import Change, build
from attention_by_hand.lab.outcomes import Raised, Tried, call

__all__ = ["other_numbers"]

_NUMBER = re.compile(r"-?\d+")


def _apart(made: object, learner: Raised) -> bool:
    """Two errors in the same words but for their numbers, and other numbers: not the same ones in another
    order (the sum's two sides written the other way round, "a (2) ... b (3)" against "a (3) ... b (2)")."""
    return (isinstance(made, Raised) and made.kind == learner.kind
            and _NUMBER.sub("#", made.message) == _NUMBER.sub("#", learner.message)
            and sorted(_NUMBER.findall(made.message)) != sorted(_NUMBER.findall(learner.message)))


def other_numbers(reference: ModuleType, function: str, chosen: tuple[Change, ...], tried: list[Tried]) -> bool:
    """Whether the reference with the changes `chosen` raises, on some input where the learner's `function`
    raised, the learner's error with other numbers in it."""
    raised = [t for t in tried if isinstance(t.got, Raised)]
    mutant = build(reference, function, chosen) if raised and chosen else None
    return mutant is not None and any(_apart(call(mutant, t.args), t.got) for t in raised)
