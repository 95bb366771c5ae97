"""A function wrong only through a checked function of the learner's that it calls.

Lab 04's `attention_weights` calls the learner's `causal_mask`; when that mask is wrong, the
weights are wrong too, and the judge of the weights names what it sees in them ("nothing is
hidden"), as if the mistake were in the weights' own code. Here, in the child, each wrong function
that calls a checked function which was itself wrong is called again on each of its inputs with
the reference's version of those helpers in place of the learner's. If it is then right on every
input, its own code is right, and its hint says where the mistake is instead (verdict.py).

Left out: a helper the lab does not check (the learner's own `rotate_half`): the reference has
none to put in its place.
"""

from __future__ import annotations

import time
import warnings
from types import ModuleType

# A guard on all of it: each wrong caller is called once more per input, in milliseconds.
SECONDS = 1.0


def right_with_reference_helpers(module: ModuleType, reference: ModuleType, name: str, inputs: list,
                                 wrong: set[str], checked: set[str], deadline: float,
                                 through: frozenset[str] = frozenset()) -> list[str]:
    """The fewest checked helpers of `name` that were wrong whose reference versions, put in place
    of the learner's, make `name` right on every one of `inputs` (argument makers); else []. One
    helper alone first: `self_attention` wrong through `attention_weights` wrong through
    `causal_mask` is mended by the mask alone, tried first since it is not itself wrong only
    through another (`through`: the functions already found to be)."""
    from attention_by_hand.lab.mutants import reachable

    helpers = sorted((h for h in set(reachable(module, name)) - {name} if h in wrong and h in checked
                      and callable(getattr(reference, h, None))), key=lambda h: (h in through, h))
    if not inputs:
        return []
    for chosen in [[h] for h in helpers] + ([helpers] if len(helpers) > 1 else []):
        if time.perf_counter() > deadline:
            return []
        if _right_with(module, reference, name, inputs, chosen, deadline):
            return chosen
    return []


def _right_with(module: ModuleType, reference: ModuleType, name: str, inputs: list, chosen: list[str],
                deadline: float) -> bool:
    """Whether `name` is right on every input with the reference's `chosen` functions in place of
    the learner's (put back afterwards, whatever happens), and leaves its inputs as they were (an
    input changed in place is a mistake of its own, which its hint says)."""
    import torch

    from attention_by_hand.lab.blame import output_close
    from attention_by_hand.lab.unchanged import same
    from attention_by_hand.lab.outcomes import CALL_SECONDS, _at_most, _TooLong

    saved = {h: getattr(module, h) for h in chosen}
    try:
        for h in chosen:
            setattr(module, h, getattr(reference, h))  # the learner's functions look their helpers up here
        for make in inputs:
            if time.perf_counter() > deadline:
                return False
            torch.manual_seed(0)
            with torch.no_grad():
                expected = getattr(reference, name)(*make())
            args, originals = make(), make()
            torch.manual_seed(0)
            with warnings.catch_warnings(), torch.no_grad(), _at_most(CALL_SECONDS):
                warnings.simplefilter("ignore")  # the learner's warnings were reported from its own calls
                got = getattr(module, name)(*args)
            if not output_close(got, expected) or not all(same(a, b) for a, b in zip(originals, args)):
                return False
    except (Exception, SystemExit, _TooLong):  # noqa: BLE001 - still wrong (or raising, or too slow) with the reference's helpers
        return False
    finally:
        for h, function in saved.items():
            setattr(module, h, function)
    return True


def helped_words(function: str, helpers: list[str]) -> str:
    """The hint of a check of `function` that is right once its `helpers` are."""
    names = ", ".join(f"`{h}`" for h in helpers)
    fails = "fails its own checks" if len(helpers) == 1 else "fail their own checks"
    return (f"wrong only through your {names}, which {fails} (above): with the reference's {names} in place "
            f"of yours, your `{function}` gives the reference's output on every input of its checks; mend {names} first")
