"""The positions part (P1-P4, Module 4): how word order gets into attention, `captures/positions.log`.

    sections.py     P1-P4: sinusoidal, learned, RoPE, ALiBi
    figures.py      the sinusoidal table; RoPE turning a query and a key
    positions.log   the canonical capture that `check` compares with
"""

from attention_by_hand.parts.positions import sections
from attention_by_hand.run.part import Part

PART = Part(
    name="positions",
    summary="P1-P4: sinusoidal positions, learned positions, RoPE, ALiBi",
    write=sections.write,
    environment=sections.environment,
    home=__name__,
)
