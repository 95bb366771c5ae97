"""The canonical part's seven drawings (S2-S6): each a function from the run's numbers to a figure.

`sections.py` hands each over as a `FigureJob` with the numbers to draw; `run/figures.py`
renders it with the workshop's style, so the same numbers give the same bytes.

Left out: computing anything; the sections compute every number drawn here (the one sum here
is a dot product of two fixed example arrows, for their labels).
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.run.figures import BLUE, MAGENTA, ORANGE, drawing, heatmap

__all__ = [
    "dot_product_arrows",
    "softmax_in_action",
    "raw_attention_heatmaps",
    "embedding_plane",
    "qk_vs_raw_heatmaps",
    "scaling_max_weight",
    "causal_mask",
]


@drawing(10.5, 3.6)
def dot_product_arrows(fig):
    pairs = [
        (np.array([1.0, 0.4]), np.array([0.9, 0.5]), "similar direction"),
        (np.array([1.0, 0.0]), np.array([0.0, 1.0]), "unrelated (perpendicular)"),
        (np.array([1.0, 0.3]), np.array([-0.9, -0.4]), "opposite direction"),
    ]
    axes = fig.subplots(1, 3)
    for ax, (a, b, title) in zip(axes, pairs):
        for vec, colour, label in ((a, BLUE, "a"), (b, ORANGE, "b")):
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


@drawing(10.5, 3.4)
def softmax_in_action(fig, scores, weights, sharp, words):
    axes = fig.subplots(1, 3)
    panels = [
        (np.asarray(scores), "raw scores", "#90a4ae"),
        (np.asarray(weights), "softmax(scores)", BLUE),
        (np.asarray(sharp), "softmax(scores x 5)", MAGENTA),
    ]
    for ax, (values, title, colour) in zip(axes, panels):
        ax.bar(words, values, color=colour)
        ax.set_title(title, fontsize=12)
        ax.set_ylim(min(0.0, values.min() * 1.15), max(1.05, values.max() * 1.15))
        for i, v in enumerate(values):
            ax.text(i, v + 0.02, f"{v:.3f}", ha="center", fontsize=11)
    fig.tight_layout()


@drawing(8.6, 4.2)
def raw_attention_heatmaps(fig, weights, words, titles):
    axes = fig.subplots(1, 2)
    for ax, w, ws, title in zip(axes, weights, words, titles):
        heatmap(ax, np.asarray(w), ws, title)
    fig.text(0.5, 0.02, "row = word doing the looking; columns sum to nothing, ROWS sum to 1", ha="center", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))


@drawing(6.4, 5.6)
def embedding_plane(fig, points, moves, axis_names):
    """points: [(label, x, y, colour)]; moves: [(label, (x0, y0), (x1, y1))] drawn as arrows."""
    ax = fig.subplots()
    for label, x, y, colour in points:
        ax.scatter(x, y, s=90, color=colour, zorder=3)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(8, 6), fontsize=12)
    for label, start, end in moves:
        ax.scatter(end[0], end[1], s=90, color=MAGENTA, marker="D", zorder=3)
        ax.annotate(label, end, textcoords="offset points", xytext=(8, 6), fontsize=12)
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color=MAGENTA, lw=1.6))
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


@drawing(8.6, 4.2)
def qk_vs_raw_heatmaps(fig, raw, wired, words):
    axes = fig.subplots(1, 2)
    heatmap(axes[0], np.asarray(raw), words, "raw embeddings\n(who looks like me?)")
    heatmap(axes[1], np.asarray(wired), words, "wired Q/K head\n(who answers my question?)")
    fig.tight_layout()


@drawing(7.2, 4.6)
def scaling_max_weight(fig, dims, unscaled, scaled, row):
    ax = fig.subplots()
    ax.plot(dims, unscaled, "o-", color=MAGENTA, label="softmax(Q K^T), unscaled")
    ax.plot(dims, scaled, "s-", color=BLUE, label="softmax(Q K^T / sqrt(d_k))")
    ax.axhline(1.0 / row, color="gray", ls=":", label=f"perfectly even (1/{row})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(dims, [str(d) for d in dims])
    ax.set_xlabel("query/key dimension d_k")
    ax.set_ylabel("average largest weight in a row")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    fig.tight_layout()


@drawing(4.6, 4.2)
def causal_mask(fig, weights, words):
    ax = fig.subplots()
    heatmap(ax, np.asarray(weights), words, "wired head + causal mask")
    fig.tight_layout()
