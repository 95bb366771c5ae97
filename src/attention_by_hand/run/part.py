"""A run part as one object: its name, its sections, its log, and how a run of it ends.

Every part is run the same way, `part.run(context)`: a `SectionLog` is opened, the part's
`write(log, context)` writes its sections through it (and draws its figures), line 3 gets the
versions, and `finish` writes the log, its index and the stamp. The context carries what a
caller may choose: the output folder, the figure formats (or no figures at all), and the world
(only a part that `takes_world` reads it; the others are written about the toy world's own
numbers).

    <out>/captures/<log>.log           the log (results.log for the canonical part)
    <out>/captures/<log>.index.json    its named spans and values (capture.py)
    <out>/captures/.<log>.run-inputs   the stamp: what the outputs were made from (stamp.py)
    <out>/diagrams/*.png               the figures

Left out: which parts there are (the registry, `attention_by_hand.parts`), what any part
writes (its package), and deciding whether outputs are stale (stamp.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module, resources
from pathlib import Path

from attention_by_hand.run import stamp
from attention_by_hand.run.capture import ENVIRONMENT_LINE
from attention_by_hand.run.section_log import SectionLog
from attention_by_hand.run.world import RIVER_BANK, World

__all__ = ["Part", "RunContext", "RunResult", "FIGURE_DIR"]

FIGURE_DIR = "diagrams"  # relative to the run's output folder


@dataclass(frozen=True)
class RunContext:
    """What a caller chooses about a run: where it writes, which figure formats, which world."""

    out: Path = Path(".")
    formats: tuple[str, ...] = ("png",)  # "png" is always written: the logs name the PNGs
    world: World = RIVER_BANK  # read only by a part that takes_world
    background: bool = True  # the canonical part's helper process (same bytes either way)
    figures: bool = True  # False: the same log and index, no figure drawn (a worksheet reads only the index)


@dataclass
class RunResult:
    """What a run wrote: the log, its index and the figure files."""

    log_path: Path
    index_path: Path
    figure_paths: list[Path] = field(default_factory=list)
    log_text: str = ""


@dataclass(frozen=True, eq=False)  # eq=False: each part is one object, hashed by identity
class Part:
    """One deterministic part of the run.

    name: as `attention-by-hand run NAME` takes it, and its package's name.
    summary: its sections in a line, for --help and the log page.
    write: write(log, context) writes every section through the SectionLog.
    environment: line 3 as a run would write it now (from installed metadata: no torch import).
    home: the part's package (`__name__` in its __init__): its code is what the stamp hashes,
        beside run/ and math/, and its canonical log ships in it.
    log: the log's stem, where it is not the name (the canonical part keeps the published
        results.log).
    robust: print numbers through `fixed` (see section_log.py); the canonical log prints as the
        original script did.
    data: files of the part's package besides its code whose bytes decide the outputs (the heads
        part's trained weights): the stamp hashes them with the code.
    """

    name: str
    summary: str
    write: Callable[[SectionLog, RunContext], None]
    environment: Callable[[], str]
    home: str
    log: str = ""
    takes_world: bool = False
    robust: bool = True
    data: tuple[str, ...] = ()

    @property
    def log_stem(self) -> str:
        return self.log or self.name

    @property
    def log_name(self) -> str:
        return f"{self.log_stem}.log"

    @property
    def log_path(self) -> str:
        """The log's path under the run's output folder."""
        return f"captures/{self.log_name}"

    @property
    def stamp_path(self) -> str:
        return f"captures/.{self.log_stem}.run-inputs"

    def canonical_log(self) -> str:
        """The part's canonical capture, shipped in its package."""
        return resources.files(self.home).joinpath(self.log_name).read_text(encoding="utf-8")

    def code_files(self) -> dict[str, Path]:
        """The files that decide the outputs: the part's package (its code and its `data`), run/ and math/.

        Keyed by their paths under the package's root folder, as the stamp records them.
        """
        root = Path(__file__).resolve().parents[1]  # attention_by_hand/
        home = Path(import_module(self.home).__file__).resolve()
        files = [*(root / "run").rglob("*.py"), *(root / "math").rglob("*.py")]
        files += list(home.parent.rglob("*.py")) if home.name == "__init__.py" else [home]
        files += [home.parent / name for name in self.data]
        return {(p.relative_to(root) if p.is_relative_to(root) else Path(p.name)).as_posix(): p for p in sorted(set(files))}

    def run(self, context: RunContext = RunContext()) -> RunResult:
        """Write every section, then the log, its index and the stamp; what was written."""
        out = Path(context.out)
        log = SectionLog(out, FIGURE_DIR, context.formats, robust=self.robust, draw=context.figures)
        self.write(log, context)
        # Filled last: a part that imports torch knows it is there only once its sections ran.
        log.capture.replace(ENVIRONMENT_LINE, self.environment())
        return finish(out, self, log, context.world if self.takes_world else None)


def finish(out: Path, part: Part, log: SectionLog, world: World | None) -> RunResult:
    """Write the log and its index, then the stamp; what the run wrote.

    The log goes after its figures: a log on disk means its figures are on disk too; the stamp
    last, so that `build` can tell these outputs from hand-edited or older ones (stamp.py).
    """
    log_path = out / part.log_path
    index_path = log.capture.write(log_path)
    stamp.write(out, part, world, [log_path, index_path, *log.figure_paths])
    return RunResult(log_path=log_path, index_path=index_path, figure_paths=log.figure_paths, log_text=log.capture.log_text())
