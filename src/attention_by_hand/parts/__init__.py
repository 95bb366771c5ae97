"""The run's parts, each deterministic, each writing its own log, index and figures: the registry.

    canonical  S1..S6  captures/results.log    the workshop's published run, byte for byte (Modules 0-3)
    positions  P1..P4  captures/positions.log  how word order gets in (Module 4)
    memory     L1..L5  captures/memory.log     attention at scale, no times (Module 5)
    gradients  G1..G4  captures/gradients.log  how attention learns: its gradients by hand (Module 6)
    heads      H1..H5  captures/heads.log      a trained model's previous-token and induction heads (Module 7)

Each part is one package here holding its sections, its drawings, its canonical log and its
`PART`. `PARTS` is the one list of them: `run`, `check`, `build`, the stamp, the site's log
page and the tests all read it (at call time, so a part registered in a test is found too).
Adding a part is its package, one line in `PARTS`, its page and its tests.

A part imports `math/` and `run/` (what every part shares); nothing here
imports the site or the labs.
"""

from __future__ import annotations

from pathlib import Path

from attention_by_hand.errors import UserError
from attention_by_hand.parts import canonical, gradients, heads, memory, positions
from attention_by_hand.run.part import Part

__all__ = ["PARTS", "get_part", "part_of_log", "default_part"]

PARTS: tuple[Part, ...] = (canonical.PART, positions.PART, memory.PART, gradients.PART, heads.PART)


def default_part() -> Part:
    """The part a command means when it names none: the canonical one, the first registered."""
    return PARTS[0]


def get_part(name: str) -> Part:
    for part in PARTS:
        if part.name == name:
            return part
    raise UserError(f"no run part {name!r}: the parts are {', '.join(p.name for p in PARTS)}")


def part_of_log(path: str | Path) -> Part | None:
    """The part whose log has this file name (positions.log -> positions), or None."""
    name = Path(path).name
    return next((part for part in PARTS if part.log_name == name), None)
