"""The canonical part (S1-S6): the workshop's published run, `captures/results.log`, byte for byte.

Modules 0-3 quote it. The only part that takes another world (`run --world FILE.toml`).

    sections.py      S1-S6, in teaching order
    measurements.py  S5's sampling and S6's PyTorch answers, in a helper process
    figures.py       the seven drawings
    results.log      the canonical capture that `check` compares with
"""

from attention_by_hand.parts.canonical import sections
from attention_by_hand.run.part import Part

PART = Part(
    name="canonical",
    summary="S1-S6: dot product, softmax, raw attention, the wired head, the scale, the general head",
    write=sections.write,
    environment=sections.environment,
    home=__name__,
    log="results",  # the published name, kept
    takes_world=True,
    robust=False,  # the published bytes: numbers print as the original script printed them
)
