"""Figures as files: every part's drawings are rendered here, with one style and no stamps.

A part's sections do not draw. Each hands a figure over as a `FigureJob`: a file stem, the
`Drawing` to use (a function that draws on a blank Matplotlib figure, with its size) and the
numbers to draw. `render` turns a job into files. A job is plain data, so a figure can be
rendered and tested on its own, and its bytes are the same wherever it is rendered.

Same numbers in, same bytes out: the PNG carries no software or date stamp, SVG ids come from a
fixed salt, and PDF dates are left out. The workshop's colours live here too, because every
part, the benchmarks' figures and the playground share them.

Left out: the drawings themselves (each part's `figures.py`), and computing anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from attention_by_hand.run.atomic import write_atomic

__all__ = ["Drawing", "drawing", "FigureJob", "render", "figure_bytes", "heatmap", "BLUE", "ORANGE", "MAGENTA", "GREEN", "GREY"]

# Figures are viewed on phones too: a larger base font keeps the labels legible when a
# 10-inch-wide figure is scaled down to a 390-pixel screen.
_STYLE = {
    "font.size": 13,
    "svg.hashsalt": "attention-by-hand",  # SVG clip-path ids are hashes; fix their salt
    "svg.fonttype": "path",  # glyphs as paths: the SVG looks the same without the font
    "pdf.compression": 6,
}
_DPI = 110

# The metadata each backend would otherwise stamp with a version or the current time.
_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
}

# The workshop's colours.
BLUE, ORANGE, MAGENTA, GREEN, GREY = "#1976d2", "#ef6c00", "#c2185b", "#2e7d32", "#616161"


@dataclass(frozen=True)
class Drawing:
    """A function that draws on a blank figure, `draw(fig, **data)`, and the figure's size in inches."""

    size: tuple[float, float]
    draw: Callable[..., None]


def drawing(width: float, height: float) -> Callable[[Callable[..., None]], Drawing]:
    """Decorator: `@drawing(4.6, 4.2)` over `def causal_mask(fig, weights, words)` makes it a Drawing."""

    def wrap(draw: Callable[..., None]) -> Drawing:
        return Drawing((width, height), draw)

    return wrap


@dataclass(frozen=True)
class FigureJob:
    """One figure to render: `<stem>.<format>` drawn by `drawing.draw(fig, **data)`."""

    stem: str
    drawing: Drawing
    data: dict = field(default_factory=dict)

    @property
    def filename(self) -> str:
        """The PNG's name, as the log lists it."""
        return f"{self.stem}.png"


def figure_bytes(size: tuple[float, float], draw, fmt: str = "png", **data) -> bytes:
    """Draw `draw(fig, **data)` on a figure of `size` inches and return the file's bytes.

    The one place a figure is saved: the workshop's style, dpi and stamp-free metadata, so the
    same numbers give the same bytes (parts and benchmarks alike call this).
    """
    return _draw(size, draw, data, (fmt,))[0]


def _draw(size, draw, data: dict, formats: tuple[str, ...]) -> list[bytes]:
    import io

    # Figure, not pyplot: no window manager, no global figure list, and a faster import
    # (pyplot adds about 0.1 s to the 0.25 s Matplotlib itself takes).
    import matplotlib
    from matplotlib.figure import Figure

    out = []
    with matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=size)
        draw(fig, **data)
        for fmt in formats:
            buffer = io.BytesIO()
            fig.savefig(buffer, format=fmt, dpi=_DPI, metadata=_METADATA[fmt])
            out.append(buffer.getvalue())
    return out


def render(job: FigureJob, folder: str | Path, formats: tuple[str, ...] = ("png",)) -> list[Path]:
    """Draw one job and write it to `folder` in each format, atomically. Returns the paths."""
    written = []
    for fmt, data in zip(formats, _draw(job.drawing.size, job.drawing.draw, job.data, formats)):
        path = Path(folder) / f"{job.stem}.{fmt}"
        write_atomic(path, data)
        written.append(path)
    return written


def heatmap(ax, weights: np.ndarray, words: list[str], title: str) -> None:
    """The workshop's attention heatmap: row = the word looking, column = the word looked at.

    weights: (n_words, n_words), each row summing to 1. The colour scale is fixed to [0, 1]
    so that two heatmaps side by side are comparable cell by cell.
    """
    n = len(words)
    ax.imshow(weights, cmap="Blues", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(n), words)
    ax.set_yticks(range(n), words)
    ax.xaxis.set_ticks_position("top")
    for i in range(n):
        for j in range(n):
            v = weights[i, j]
            # White text only where the blue is dark enough to need it.
            ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=12, color="white" if v > 0.55 else "black")
    ax.set_title(title, fontsize=12, pad=28)
