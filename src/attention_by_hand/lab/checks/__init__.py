"""The checks of each lab: one module per lab, each with `checks(seed) -> list[Check]`.

A check names the function it calls, the inputs (fixed ones, the same for everyone, and random
ones from `seed`) and a judge that compares the learner's output with the reference's and names
the mistake it shows (judging.py). A new lab adds a module here and a line to `_MODULES`.

Two modules here are no lab's: attention.py (the weights, judged alike in labs 04 and 05) and
position_math.py (lab 07's own position code). Left out: the shared comparisons (judging.py)
and inputs (inputs.py).
"""

from __future__ import annotations

from importlib import import_module

import torch

from attention_by_hand.lab.judging import Check

__all__ = ["checks_for"]

_MODULES = {1: "lab01", 2: "lab02", 3: "lab03", 4: "lab04", 5: "lab05", 6: "lab06", 7: "lab07", 8: "lab08", 9: "lab09"}


def checks_for(number: int, seed: int = 0) -> list[Check]:
    """The checks of lab `number`; random inputs come from `seed`, fixed ones never change."""
    module = import_module(f"attention_by_hand.lab.checks.{_MODULES[number]}")
    with torch.no_grad():
        return module.checks(seed)
