"""An exchange of two names that reproduces the learner's error: which half of it the error shows.

`proj(merge_heads(weights)), heads` for `proj(merge_heads(heads)), weights` raises in `merge_heads` before
the second name is ever read, so the error cannot tell the exchange from its first half alone,
`merge_heads(weights)` with `weights` still returned. Said as an exchange, a hint would claim a second
mistake nobody can see (set AW's lab 05 file returned its weights rightly); said as the half, it would
miss one (set AV's lab 08 file had q and the keys exchanged, `keys @ q.T`, and `keys @ keys.T` raises
alike). Where exactly one half (one read of one name put for the other, on the exchange's line) raises
the same error on every input that raised, the change said is that half with the exchange beside it,
either of them; where none or both do, nothing is.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType

from attention_by_hand.lab.mutants import Change, build, changes
from attention_by_hand.lab.outcomes import Tried, agree, call

__all__ = ["raised_half"]


def raised_half(reference: ModuleType, function: str, change: Change, tried: list[Tried], raised: list[int]) -> Change | None:
    """The one half of the exchange `change` that raises as the learner's function did on each input
    of `raised` (indices into `tried`), or None. Other changes come back as they are."""
    if change.op != "exchange":
        return change
    a, b = change.arg
    halves = [c for c in changes(reference, function)
              if c.op == "name" and c.function == change.function and c.line == change.line and c.arg in ((a, b), (b, a))]
    raising = []
    for half in halves:
        mutant = build(reference, function, (half,))
        if mutant is not None and all(agree(call(mutant, tried[i].args), tried[i].got) for i in raised):
            raising.append(half)
    if len(raising) != 1:
        return None
    said = f"{change.text}, or with only {raising[0].text}: the error is raised before the other half is read, so it cannot tell the two apart"
    return dataclasses.replace(raising[0], said=said)
