"""The heads part (H1-H5, Module 7): what the heads of a model trained here do, `captures/heads.log`.

A two-layer attention-only model and a one-layer control, trained here on repeated random
segments (`attention-by-hand train heads`); the run reads their shipped weights and finds a
previous-token head and induction heads in the first, none in the second.

    sections.py    H1-H5: the patterns, the detectors, the circuit by hand, ablations, in-context learning
    figures.py     every head's pattern; the detectors; the loss by position
    weights.py     the shipped weights: loading them, training them again, their stamp
    two_layer.pt, one_layer.pt, weights.json   the weights and how they were made
    heads.log      the canonical capture that `check` compares with
"""

from attention_by_hand.run.environment import versions_line
from attention_by_hand.run.part import Part, RunContext
from attention_by_hand.run.section_log import SectionLog

# The files the stamp hashes with the code: a model trained again changes the outputs.
WEIGHT_FILES = ("two_layer.pt", "one_layer.pt")


def write(log: SectionLog, context: RunContext) -> None:
    """H1-H5. The sections import torch; imported here, when the part runs, every command would
    wait for torch, `--help` and `check` too."""
    from attention_by_hand.parts.heads import sections

    sections.write(log, context)


def environment() -> str:
    """Line 3: torch computes every number, NumPy and Matplotlib draw. (The probe's seed is H1's.)"""
    return versions_line(("torch", "numpy", "matplotlib"))


PART = Part(
    name="heads",
    summary="H1-H5: a trained model's previous-token and induction heads, found, followed by hand, ablated",
    write=write,
    environment=environment,
    home=__name__,
    data=WEIGHT_FILES,
)
