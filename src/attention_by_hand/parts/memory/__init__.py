"""The memory part (L1-L5, Module 5): attention at scale, by hand, `captures/memory.log`.

Named for what it measures: the memory an n x n score matrix takes, and how tiling, the
key/value cache and shared key/value heads spend less of it (sizes and multiply-adds only).

    sections.py   L1-L5: the memory wall, online softmax, tiled attention, the KV cache, shared keys and values
    figures.py    the memory wall; tiled attention's running state and grid
    memory.log    the canonical capture that `check` compares with
"""

from attention_by_hand.parts.memory import sections
from attention_by_hand.run.part import Part

PART = Part(
    name="memory",
    summary="L1-L5: the memory wall, online softmax, tiled attention, the KV cache, shared keys and values",
    write=sections.write,
    environment=sections.environment,
    home=__name__,
)
