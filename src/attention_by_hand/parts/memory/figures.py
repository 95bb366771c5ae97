"""The memory part's two drawings (L1, L3): the memory wall, and tiled attention's running state and grid.

`sections.py` hands each over as a `FigureJob` with the numbers to draw; `run/figures.py`
renders it with the workshop's style, so the same numbers give the same bytes.

Left out: computing anything. The sections compute every size, trace and tile kind; these
functions only draw them.
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.run.figures import BLUE, GREEN, MAGENTA, ORANGE, drawing

__all__ = ["memory_wall", "tiled_blocks"]

# Binary units for the memory axis: one tick per factor of 1024.
_UNITS = ((2**10, "1 KiB"), (2**20, "1 MiB"), (2**30, "1 GiB"), (2**40, "1 TiB"))


def _words(n: int) -> str:
    """2048 -> '2K': the length axis reads like the text does (8 K, 32 K, 128 K words)."""
    return f"{n // 1024}K" if n >= 1024 else str(n)


@drawing(8.4, 6.6)
def memory_wall(fig, lengths, marked, series, tiled, tile):
    """series: label -> bytes per length (score matrices); tiled: dtype -> bytes per length."""
    ax = fig.subplots()
    styles = {"fp32": "-", "fp16": "--"}
    for label, values in series.items():
        colour = MAGENTA if label.startswith("one model") else BLUE
        ax.plot(lengths, values, styles[label.split(", ")[-1]], color=colour, lw=2, label=f"score matrix, {label}")
    for dtype, values in tiled.items():
        ax.plot(lengths, values, styles[dtype], color=GREEN, lw=2, label=f"tiled head, {tile} x {tile} tile, {dtype}")
    # The lengths the log tabulates, marked on every line.
    at = [lengths.index(n) for n in marked]
    for line in ax.get_lines():
        ax.plot([lengths[i] for i in at], [line.get_ydata()[i] for i in at], "o", color=line.get_color(), ms=5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(lengths, [_words(n) for n in lengths])
    ax.set_yticks([b for b, _ in _UNITS], [name for _, name in _UNITS])
    ax.set_xlabel("words in the context (n)")
    ax.set_ylabel("bytes (log scale)")
    ax.set_title("the score matrix grows as n * n; a tiled head's working set as n", fontsize=12)
    ax.grid(alpha=0.3, which="major")
    # Below the axes, where it covers no line: fp32 in the left column, fp16 in the right.
    handles = sorted(ax.get_lines()[: len(series) + len(tiled)], key=lambda line: line.get_label().endswith("fp16"))
    ax.legend(handles=handles, fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, columnspacing=1.0)
    fig.tight_layout()


_KIND_COLOURS = {"full": BLUE, "diagonal": ORANGE, "skipped": "#eeeeee"}


@drawing(10.5, 4.8)
def tiled_blocks(fig, keys, m, l, rescale, word, grid, n_words, block):  # noqa: E741
    """Left: one row's running max and sum, tile by tile. Right: the causal grid of tiles."""
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})

    steps = np.arange(1, len(keys) + 1)
    left.plot(steps, m, "o-", color=ORANGE, lw=2, label="m, running max")
    left.plot(steps, l, "s-", color=BLUE, lw=2, label="l, running sum")
    for x, mv, lv in zip(steps, m, l):
        left.annotate(f"{mv:.3f}", (x, mv), textcoords="offset points", xytext=(0, -18), ha="center", fontsize=11, color=ORANGE)
        left.annotate(f"{lv:.3f}", (x, lv), textcoords="offset points", xytext=(0, 9), ha="center", fontsize=11, color=BLUE)
    # Under each tile: the rescale it applied to the sum so far (none at the first tile).
    labels = [f"key '{k}'\n" + ("start" if i == 0 else f"rescale {r:.3f}") for i, (k, r) in enumerate(zip(keys, rescale))]
    left.set_xticks(steps, labels)
    left.set_xlim(0.6, len(keys) + 0.4)
    left.set_ylim(min(0.0, min(m)) - 0.35, max(l) + 0.45)
    left.set_title(f"{word}'s row, one key per tile", fontsize=12)
    left.legend(fontsize=11, loc="upper left")
    left.grid(alpha=0.3)

    kinds = list(_KIND_COLOURS)
    codes = np.array([[kinds.index(kind) for kind in row] for row in grid])  # (q blocks, k blocks)
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    right.imshow(codes, cmap=ListedColormap([_KIND_COLOURS[k] for k in kinds]), vmin=-0.5, vmax=len(kinds) - 0.5)
    count = len(grid)
    right.set_xticks(np.arange(-0.5, count), minor=True)
    right.set_yticks(np.arange(-0.5, count), minor=True)
    right.grid(which="minor", color="white", lw=2)
    right.tick_params(which="minor", length=0)
    right.set_xticks([0, count - 1], ["1", str(count)])
    right.set_yticks([0, count - 1], ["1", str(count)])
    right.set_xlabel("key block")
    right.set_ylabel("query block")
    skipped = int(np.sum(codes == kinds.index("skipped")))
    right.set_title(f"causal, {n_words:,} words, tiles of {block}:\n{skipped} of {count * count} tiles skipped", fontsize=12)
    names = {"full": "computed whole", "diagonal": "masked (diagonal)", "skipped": "skipped"}
    right.legend(
        handles=[Patch(facecolor=_KIND_COLOURS[k], edgecolor="#9e9e9e", label=names[k]) for k in kinds],
        fontsize=10,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.18),
        ncol=3,
        handlelength=1.2,
        columnspacing=0.8,
    )
    fig.tight_layout()
