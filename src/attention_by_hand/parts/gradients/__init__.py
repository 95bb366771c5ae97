"""The gradients part (G1-G4, Module 6): how attention learns, by hand, `captures/gradients.log`.

    sections.py     G1, G2, G4: the softmax's backward, the wired head's backward, the backward of
                    the tiled head; and the part's order of sections
    descent.py      G3: learning the head by gradient descent, and what it found beside S4's wiring
    shared.py       the seed, the bound of a float64 check, G2's loss gradient (G3 descends on it)
    figures.py      the softmax's Jacobian; the descent and the learned head; the bytes each backward keeps
    gradients.log   the canonical capture that `check` compares with
"""

from attention_by_hand.parts.gradients import sections
from attention_by_hand.run.part import Part

PART = Part(
    name="gradients",
    summary="G1-G4: the softmax's backward, the wired head's backward, learning the head, the tiled backward",
    write=sections.write,
    environment=sections.environment,
    home=__name__,
)
