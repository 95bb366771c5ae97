"""The section log: what every part's sections write through, in the workshop's one log format.

A part's sections never print. They write lines, name spans and file values through a
`SectionLog`, which keeps them in a `Capture` (capture.py) and adds the shapes every log
shares: the header, a labelled table of numbers, a vector in brackets, a bound for a
difference that must be zero, a size in binary units, and a figure with its "[plot saved: ...]"
line.

Numbers, two ways. A robust log (every part but the canonical one) prints each number through
`fixed`, which refuses one on a rounding boundary, and files the printed number, so a learner's
log matches ours digit for digit on any CPU. The canonical log prints as the workshop's
original script did (Python's format, nothing refused) and files the exact number: its bytes
are the published ones and may not change.

Left out: what any section says (the parts), writing the files (`part.finish`), drawing
(`figures.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np

from attention_by_hand.run.capture import Capture, fixed
from attention_by_hand.run.figures import FigureJob, render

__all__ = ["SectionLog", "RULE", "quoted", "bracket", "binary_size"]

RULE = "=" * 72


def quoted(words: Iterable[str]) -> str:
    """A sentence as the logs write it: '"the river bank"'."""
    return '"' + " ".join(words) + '"'


def bracket(texts: Iterable[str], width: int = 0) -> str:
    """[a, b, c], each text right-aligned to `width`, so that rows of vectors line up."""
    return "[" + ", ".join(f"{t:>{width}}" for t in texts) + "]"


def binary_size(n_bytes: int) -> str:
    """Bytes in the largest binary unit that keeps the number >= 1: '4.0 MiB', '9.0 TiB'.

    An integer over a power of two is exact in float64, so these digits are the same everywhere.
    """
    for power, unit in ((4, "TiB"), (3, "GiB"), (2, "MiB"), (1, "KiB")):
        if n_bytes >= 1024**power:
            return f"{n_bytes / 1024**power:,.1f} {unit}"
    return f"{n_bytes} B"


class SectionLog:
    """The lines, spans and values of one part's log, and the figures its sections draw.

    figure_folder: where figures are written, and the folder the "[plot saved: ...]" lines name
    (relative to the run's output folder); formats: the figure formats ("png" always first);
    draw: False leaves the figures undrawn, every line as it would be (a worksheet's run, which
    reads only the index, is then about four times faster).
    """

    def __init__(self, out: Path, figure_folder: str, formats: tuple[str, ...], robust: bool = True, draw: bool = True):
        self.capture = Capture()
        self.robust = robust
        self.figure_paths: list[Path] = []
        self._out = Path(out)
        self._figure_folder = figure_folder
        self._formats = tuple(dict.fromkeys(("png", *formats)))  # the log names the PNGs
        self._draw = draw

    # --- the capture's three verbs, so a section writes through one object -------------------

    def line(self, text: str = "") -> None:
        self.capture.line(text)

    def span(self, name: str) -> AbstractContextManager[None]:
        return self.capture.span(name)

    def value(self, name: str, number, fmt: str = "{}", derived: bool = False) -> str:
        return self.capture.value(name, number, fmt, derived)

    # --- the shapes every log shares ------------------------------------------------------------

    def header(self, title: str, subtitle: str) -> None:
        """Lines 1-5 and a blank line; line 3 names the versions, filled in when the run ends."""
        with self.span("header"):
            self.line(RULE)
            self.line(f"LLM Self-Attention by Hand -- {title}")
            with self.span("header.environment"):
                self.line("(versions: filled in when the run ends)")
            self.line(subtitle)
            self.line(RULE)
        self.line()

    def number(self, name: str, x: float, places: int = 3) -> str:
        """Print x with `places` decimals and file it under `name` (robust: the printed number)."""
        fmt = f"{{:.{places}f}}"
        if self.robust:
            return self.value(name, float(fixed(x, places)), fmt)
        return self.value(name, x, fmt)

    def row(self, name: str, values, keys: Iterable | None = None, places: int = 3) -> list[str]:
        """File each entry of a vector as `<name>.<key>` (keys default to 0, 1, ...); the texts."""
        keys = range(len(values)) if keys is None else keys
        return [self.number(f"{name}.{key}", v, places) for key, v in zip(keys, values)]

    def matrix(self, name: str, title: str, values: np.ndarray, rows, columns=None, places: int = 3) -> None:
        """A small labelled table (columns default to the row labels); each cell `<name>.<i>.<j>`."""
        columns = rows if columns is None else columns
        with self.span(name):
            self.line(f"  {title}")
            self.line("    " + " " * 7 + "".join(f"{c:>8}" for c in columns))
            for i, (label, row) in enumerate(zip(rows, values)):
                cells = self.row(f"{name}.{i}", row, places=places)
                self.line(f"    {label:<7}" + "".join(f"{t:>8}" for t in cells))

    def bound(self, name: str, difference: float, bound: float) -> str:
        """'< 1e-10 -> True' for a difference that must be zero: files the verdict, never the noise."""
        return f"< {bound:.0e} -> {self.value(name, bool(difference < bound))}"

    def size(self, name: str, n_bytes: int) -> str:
        """A size as the log prints it ('4.0 MiB'); the index keeps the exact bytes."""
        return self.value(name, int(n_bytes), binary_size(n_bytes))  # the text holds no {}: its own format

    # --- figures ------------------------------------------------------------------------------

    def draw(self, job: FigureJob) -> None:
        """Write the figure's files, without its log line (for a figure logged later)."""
        if self._draw:
            self.figure_paths.extend(render(job, self._out / self._figure_folder, self._formats))

    def figure_line(self, job: FigureJob) -> None:
        with self.span(f"figure.{job.stem}"):
            self.line(f"  [plot saved: {self._figure_folder}/{job.filename}]")

    def figure(self, job: FigureJob) -> None:
        """Draw a figure and log where it landed."""
        self.draw(job)
        self.figure_line(job)
