"""The workshop's figures: each a function from the run's numbers to a Matplotlib figure.

The run's sections do not draw. Each hands its figure over as a `FigureJob` (a file name, the
name of a drawing function below, and the numbers to draw), and `render` turns a job into
files, in the run's own process, while the helper process of `measurements.py` samples S5 and
imports PyTorch for S6. A job is plain data, so a figure can also be rendered and tested on
its own; the bytes are the same wherever a job is rendered.

Same numbers in, same bytes out: the PNG carries no software or date stamp, SVG ids come
from a fixed salt, and PDF dates are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from attention_by_hand.atomic import write_atomic

__all__ = ["FigureJob", "render", "figure_bytes", "heatmap", "BLUE", "ORANGE", "MAGENTA", "GREEN", "GREY"]

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

# The workshop's colours, shared by every figure module, the benchmarks' figures and the playground.
BLUE, ORANGE, MAGENTA, GREEN, GREY = "#1976d2", "#ef6c00", "#c2185b", "#2e7d32", "#616161"
_BLUE, _ORANGE, _MAGENTA, _GREEN, _GREY = BLUE, ORANGE, MAGENTA, GREEN, GREY


@dataclass(frozen=True)
class FigureJob:
    """One figure to render: `<stem>.<format>` drawn by `DRAWINGS[drawing](**data)`."""

    stem: str
    drawing: str
    data: dict = field(default_factory=dict)

    @property
    def filename(self) -> str:
        """The PNG's name, as the log lists it."""
        return f"{self.stem}.png"


def figure_bytes(size: tuple[float, float], draw, fmt: str = "png", **data) -> bytes:
    """Draw `draw(fig, **data)` on a figure of `size` inches and return the file's bytes.

    The one place a figure is saved: the workshop's style, dpi and stamp-free metadata, so the
    same numbers give the same bytes (figure modules and benchmarks alike call this).
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


def render(job: FigureJob, folder: str | Path, formats: tuple[str, ...] = ("png",), drawings: dict | None = None) -> list[Path]:
    """Draw one job and write it to `folder` in each format, atomically. Returns the paths.

    drawings: the table of drawing functions the job names (default: this module's).
    """
    size, draw = (drawings or DRAWINGS)[job.drawing]
    written = []
    for fmt, data in zip(formats, _draw(size, draw, job.data, formats)):
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


def _dot_product_arrows(fig):
    pairs = [
        (np.array([1.0, 0.4]), np.array([0.9, 0.5]), "similar direction"),
        (np.array([1.0, 0.0]), np.array([0.0, 1.0]), "unrelated (perpendicular)"),
        (np.array([1.0, 0.3]), np.array([-0.9, -0.4]), "opposite direction"),
    ]
    axes = fig.subplots(1, 3)
    for ax, (a, b, title) in zip(axes, pairs):
        for vec, colour, label in ((a, _BLUE, "a"), (b, _ORANGE, "b")):
            ax.quiver(0, 0, vec[0], vec[1], angles="xy", scale_units="xy", scale=1, color=colour, width=0.02, label=label)
        ax.set_xlim(-1.3, 1.3)
        ax.set_ylim(-1.3, 1.3)
        ax.set_aspect("equal")
        ax.axhline(0, color="gray", lw=0.5)
        ax.axvline(0, color="gray", lw=0.5)
        ax.set_title(f"{title}\na . b = {float(a @ b):+.2f}", fontsize=12)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()


def _softmax_in_action(fig, scores, weights, sharp, words):
    axes = fig.subplots(1, 3)
    panels = [
        (np.asarray(scores), "raw scores", "#90a4ae"),
        (np.asarray(weights), "softmax(scores)", _BLUE),
        (np.asarray(sharp), "softmax(scores x 5)", _MAGENTA),
    ]
    for ax, (values, title, colour) in zip(axes, panels):
        ax.bar(words, values, color=colour)
        ax.set_title(title, fontsize=12)
        ax.set_ylim(min(0.0, values.min() * 1.15), max(1.05, values.max() * 1.15))
        for i, v in enumerate(values):
            ax.text(i, v + 0.02, f"{v:.3f}", ha="center", fontsize=11)
    fig.tight_layout()


def _raw_attention_heatmaps(fig, weights, words, titles):
    axes = fig.subplots(1, 2)
    for ax, w, ws, title in zip(axes, weights, words, titles):
        heatmap(ax, np.asarray(w), ws, title)
    fig.text(0.5, 0.02, "row = word doing the looking; columns sum to nothing, ROWS sum to 1", ha="center", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))


def _embedding_plane(fig, points, moves, axis_names):
    """points: [(label, x, y, colour)]; moves: [(label, (x0, y0), (x1, y1))] drawn as arrows."""
    ax = fig.subplots()
    for label, x, y, colour in points:
        ax.scatter(x, y, s=90, color=colour, zorder=3)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(8, 6), fontsize=12)
    for label, start, end in moves:
        ax.scatter(end[0], end[1], s=90, color=_MAGENTA, marker="D", zorder=3)
        ax.annotate(label, end, textcoords="offset points", xytext=(8, 6), fontsize=12)
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color=_MAGENTA, lw=1.6))
    xs = [p[1] for p in points] + [m[2][0] for m in moves]
    ys = [p[2] for p in points] + [m[2][1] for m in moves]
    # The canonical world lives in the unit square; another world may not, so widen to fit.
    ax.set_xlim(min(-0.05, min(xs) - 0.05), max(1.05, max(xs) + 0.05))
    ax.set_ylim(min(-0.05, min(ys) - 0.05), max(1.05, max(ys) + 0.05))
    ax.set_xlabel(f"{axis_names[0]} axis")
    ax.set_ylabel(f"{axis_names[1]} axis")
    ax.grid(alpha=0.3)
    ax.set_title("one embedding, two context-aware outputs", fontsize=12)
    fig.tight_layout()


def _qk_vs_raw_heatmaps(fig, raw, wired, words):
    axes = fig.subplots(1, 2)
    heatmap(axes[0], np.asarray(raw), words, "raw embeddings\n(who looks like me?)")
    heatmap(axes[1], np.asarray(wired), words, "wired Q/K head\n(who answers my question?)")
    fig.tight_layout()


def _scaling_max_weight(fig, dims, unscaled, scaled, row):
    ax = fig.subplots()
    ax.plot(dims, unscaled, "o-", color=_MAGENTA, label="softmax(Q K^T), unscaled")
    ax.plot(dims, scaled, "s-", color=_BLUE, label="softmax(Q K^T / sqrt(d_k))")
    ax.axhline(1.0 / row, color="gray", ls=":", label=f"perfectly even (1/{row})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(dims, [str(d) for d in dims])
    ax.set_xlabel("query/key dimension d_k")
    ax.set_ylabel("average largest weight in a row")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    fig.tight_layout()


def _causal_mask(fig, weights, words):
    ax = fig.subplots()
    heatmap(ax, np.asarray(weights), words, "wired head + causal mask")
    fig.tight_layout()


# name -> (figure size in inches, the function that draws on a blank Figure of that size)
DRAWINGS = {
    "dot_product_arrows": ((10.5, 3.6), _dot_product_arrows),
    "softmax_in_action": ((10.5, 3.4), _softmax_in_action),
    "raw_attention_heatmaps": ((8.6, 4.2), _raw_attention_heatmaps),
    "embedding_plane": ((6.4, 5.6), _embedding_plane),
    "qk_vs_raw_heatmaps": ((8.6, 4.2), _qk_vs_raw_heatmaps),
    "scaling_max_weight": ((7.2, 4.6), _scaling_max_weight),
    "causal_mask": ((4.6, 4.2), _causal_mask),
}
