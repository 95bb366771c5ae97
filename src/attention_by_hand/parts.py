"""The run's parts: each deterministic, each writing its own log, index and figures.

    canonical  S1..S6  captures/results.log    the seed's log, byte for byte (experiment.py)
    positions  P1..P4  captures/positions.log  how position gets in (positions.py, Module 4)
    scale      L1..L5  captures/scale.log      attention at scale, no times (scale.py, Module 5)

One registry, so that `run`, `check`, `build`, the stamp and the site's directives all find a
part, its log and its canonical copy the same way: a new part is an entry here and its module.
Only the canonical part takes another world (`--world`): the new parts are written about the
toy world's own numbers (its two wired channels make RoPE one rotation in a plane), and a
world of other sizes would need other sentences, not other numbers.

Left out: what each part computes (its module); the site (sphinxext/).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["Part", "PARTS", "get_part", "part_of_log", "DEFAULT_LOG"]


@dataclass(frozen=True)
class Part:
    name: str  # as `attention-by-hand run NAME` takes it
    log: str  # the log's stem: captures/<log>.log, canonical/<log>.log in the package
    module: str  # the module whose run(out, formats) writes the part
    sections: str  # what its sections are, for --help
    code: tuple[str, ...]  # the package modules whose code decides its outputs (the stamp's)
    takes_world: bool = False

    @property
    def log_name(self) -> str:
        return f"{self.log}.log"

    @property
    def log_path(self) -> str:
        """The log's path under the run's output folder."""
        return f"captures/{self.log}.log"

    def load(self):
        return import_module(f"attention_by_hand.{self.module}")

    def canonical_log(self) -> str:
        """The part's canonical capture, shipped with the package."""
        from importlib.resources import files

        return files("attention_by_hand").joinpath(f"canonical/{self.log_name}").read_text(encoding="utf-8")

    def environment(self) -> str:
        """Line 3 of the log the part would write now, found without importing torch."""
        return self.load().environment_now()


_SHARED = ("atomic", "capture", "errors", "figures", "mechanism", "parts", "stamp", "textfile", "world")

PARTS = (
    Part(
        "canonical",
        "results",
        "experiment",
        "S1-S6: dot product, softmax, raw attention, the wired head, the scale, the general head",
        _SHARED + ("experiment", "measurements"),
        takes_world=True,
    ),
    Part(
        "positions",
        "positions",
        "positions",
        "P1-P4: sinusoidal positions, learned positions, RoPE, ALiBi",
        # experiment: the log's rule, GPT-2's sizes, RunResult and finish come from there.
        _SHARED + ("experiment", "measurements", "positional", "positions", "position_figures"),
    ),
    Part(
        "scale",
        "scale",
        "scale",
        "L1-L5: the memory wall, online softmax, tiled attention, the KV cache, shared keys and values",
        _SHARED + ("experiment", "measurements", "tiling", "scale", "scale_figures"),
    ),
)

DEFAULT_LOG = PARTS[0].log_path


def get_part(name: str) -> Part:
    for part in PARTS:
        if part.name == name:
            return part
    raise UserError(f"no run part {name!r}: the parts are {', '.join(p.name for p in PARTS)}")


def part_of_log(path: str | Path) -> Part | None:
    """The part whose log has this file name (positions.log -> positions), or None."""
    name = Path(path).name
    return next((part for part in PARTS if part.log_name == name), None)
