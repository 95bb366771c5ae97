"""One verdict per check from its inputs' verdicts: the known mistake that explains every input
that failed, and that no input rules out.

A mistake is ruled out by an input of the same function where it could be made and did not give
the learner's output (`Miss.tried`), whether that input failed or the learner's output there was
right: a learner whose output was right on head_size 4 did not leave the scores unscaled, even
where `int(math.sqrt(2))` = 1 makes it look so on head_size 2. The same mistake with other numbers
on another input ("sqrt(3)", "sqrt(2)") is one mistake (`kind`).
"""

from __future__ import annotations

import re
from types import ModuleType

from attention_by_hand.lab.judging import Check, Miss

__all__ = ["combine", "kind", "ruled_out_where_right"]


def ruled_out_where_right(check: Check, args: tuple, reference: ModuleType) -> frozenset[str]:
    """The kinds of known mistake that the judge of `check` could make on `args` and that give
    another output than the reference's there; called for a call whose output was right, so none
    of them was made (int(sqrt(head_size)) is 1 for head_size 2, as if unscaled, and right for 4).
    The judge is shown an output it cannot accept (every tensor emptied), which makes it try its
    variants without matching one. A variant whose output here holds a nan or an inf rules nothing
    out: the learner's own code may be right at that edge (row -1 of a mask is its last row)."""
    import torch

    try:
        with torch.no_grad():
            expected = getattr(reference, check.function)(*args)
            miss = check.judge(_emptied(expected), expected, args)
    except Exception:  # noqa: BLE001 - only evidence: a judge that cannot say rules nothing out
        return frozenset()
    if not isinstance(miss, Miss):
        return frozenset()
    return frozenset(kind(t) for t in miss.tried if t not in miss.moot and t not in miss.broken)


def _emptied(value):
    """`value` with every tensor replaced by an empty one of its dtype: equal to no output."""
    import torch

    if isinstance(value, torch.Tensor):
        return torch.empty(0, dtype=value.dtype)
    if isinstance(value, (tuple, list)):
        return type(value)(_emptied(v) for v in value)
    return value


def combine(verdicts: list, others: list = (), right: frozenset[str] = frozenset()) -> tuple[str | None, str | None]:
    """(hint, mistake) for a check from its inputs' verdicts: a mistake that explains every failure.

    others: the verdicts of the same function's other checks; the mistake must explain their
    failures too (a learner's function has one body: a doubled exponent with base 100 looks like
    base 10000 ignored, and the default base's check rules that out).
    right: the kinds of known mistake that would have changed an output of this function that was
    right (ruled_out_where_right): they were not made either.
    mistake is the known mistake the hint names (numbers left out), None when the hint only says
    what was observed; the hint is None when every input passed.
    """
    failing = [v for v in verdicts if v is not None]
    if not failing:
        return None, None
    first = failing[0]
    if not isinstance(first, Miss):
        return first, None
    misses = [v for v in failing if isinstance(v, Miss)]
    # The same mistake on two inputs reads the same but for its numbers ("sqrt(3)", "sqrt(2)").
    kinds = [{kind(e) for e in m.explanations} for m in misses]
    # A mistake that could be made on another failing input of this function, and did not give
    # the learner's output there, did not happen.
    ruled_out = {
        kind(t)
        for m in [*misses, *others]
        if isinstance(m, Miss)
        for t in m.tried
        if kind(t) not in {kind(e) for e in m.explanations}
    } | set(right)
    common = [e for e in first.explanations if all(kind(e) in k for k in kinds) and kind(e) not in ruled_out]
    if common:
        return first.text(common[0]), kind(common[0])
    return first.prefix + first.observed, None


def kind(explanation: str) -> str:
    """An explanation with its numbers left out: the same mistake on every input."""
    return re.sub(r"\d+(\.\d+)?", "#", explanation)
