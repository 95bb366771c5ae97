"""The gradients part's four drawings: the softmax's Jacobian (G1), the descent and the learned head
(G3), and the bytes each backward keeps (G4).

`sections.py` hands each over as a `FigureJob` with the numbers to draw (the printed ones, where
the log prints them); `run/figures.py` renders it with the workshop's style, so the same
numbers give the same bytes.

Left out: computing anything. The sections compute every gradient, step and size.
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.run.figures import BLUE, GREEN, GREY, MAGENTA, ORANGE, drawing

__all__ = ["softmax_jacobian", "descent", "learned_head", "backward_memory"]


def _signed_cells(ax, values: np.ndarray, rows: list[str], columns: list[str], limit: float) -> None:
    """A table of signed numbers as colours: blue above 0, red below, white at 0, each cell written."""
    ax.imshow(values, cmap="RdBu", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(columns)), columns)
    ax.set_yticks(range(len(rows)), rows)
    ax.xaxis.set_ticks_position("top")
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            # White text only where the colour is dark enough to need it.
            ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=11, color="white" if abs(v) > 0.6 * limit else "black")


@drawing(5.6, 4.9)
def softmax_jacobian(fig, jacobian, words):
    """jacobian: (n, n), printed values; words: the sentence, labelling both axes."""
    ax = fig.subplots()
    J = np.array(jacobian)  # (n, n)
    _signed_cells(ax, J, [f"p_{w}" for w in words], [f"s_{w}" for w in words], float(np.abs(J).max()))
    ax.set_xlabel("moved by the score of ...")
    ax.set_ylabel("the weight of ...")
    ax.set_title("dp_i / ds_j = diag(p) - p p^T: each row sums to 0", fontsize=12, pad=30)
    fig.tight_layout()


@drawing(10.5, 4.6)
def descent(fig, steps, loss, weights, contexts, sentences, threshold, wired, word):
    """Left: the loss by step (log scale). Right: the ambiguous word's weight on its context word."""
    left, right = fig.subplots(1, 2)
    left.plot(steps, loss, color=MAGENTA, lw=2)
    left.set_yscale("log")
    left.set_xlabel("step")
    left.set_ylabel("loss (log scale)")
    left.set_title("the loss, both sentences", fontsize=12)
    left.grid(alpha=0.3, which="both")

    for row, context, sentence, colour in zip(weights, contexts, sentences, (BLUE, GREEN)):
        right.plot(steps, row, color=colour, lw=2, label=f'{word} -> {context} in "{sentence}"')
    right.axhline(threshold, color=GREY, lw=1, ls=":", label=f"the stop: {threshold:.1f}")
    right.axhline(wired, color=ORANGE, lw=1.5, ls="--", label=f"S4's wired head: {wired:.3f}")
    right.set_ylim(0, 1)
    right.set_xlabel("step")
    right.set_ylabel("weight")
    right.set_title(f"{word}'s weight on its context word", fontsize=12)
    right.legend(fontsize=10, loc="lower right")
    right.grid(alpha=0.3)
    fig.tight_layout()


@drawing(10.5, 4.9)
def learned_head(fig, wired, learned, axes):
    """W_Q W_K^T of S4's head and of the learned one, side by side, on one colour scale."""
    panels = fig.subplots(1, 2)
    tables = [np.array(wired), np.array(learned)]  # (d_model, d_model) each
    limit = max(float(np.abs(t).max()) for t in tables)
    for ax, table, title in zip(panels, tables, ("S4's wired head", "the learned head")):
        _signed_cells(ax, table, axes, axes, limit)
        ax.set_title(f"{title}: W_Q W_K^T", fontsize=12, pad=30)
        ax.set_xlabel("the key's axis")
        ax.set_ylabel("the query's axis")
    fig.tight_layout()


# Binary units for the memory axis: one tick per factor of 1024.
_UNITS = ((2**10, "1 KiB"), (2**20, "1 MiB"), (2**30, "1 GiB"), (2**40, "1 TiB"))


@drawing(8.4, 5.6)
def backward_memory(fig, lengths, marked, weights, kept, d_v, dtype):
    """Bytes per head kept for the backward against the words: P (n * n) and O + lse ((d_v + 1) * n)."""
    ax = fig.subplots()
    ax.plot(lengths, weights, "-", color=MAGENTA, lw=2, label=f"the weights P: n x n, {dtype}")
    ax.plot(lengths, kept, "-", color=GREEN, lw=2, label=f"O and lse: n x {d_v} + n, {dtype}")
    at = [lengths.index(n) for n in marked]  # the lengths the log tabulates, marked on both lines
    for line in ax.get_lines()[:2]:
        ax.plot([lengths[i] for i in at], [line.get_ydata()[i] for i in at], "o", color=line.get_color(), ms=5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(lengths, [f"{n // 1024}K" if n >= 1024 else str(n) for n in lengths])
    ax.set_yticks([b for b, _ in _UNITS], [name for _, name in _UNITS])
    ax.set_xlabel("words in the context (n)")
    ax.set_ylabel("bytes per head (log scale)")
    ax.set_title("kept for the backward, one head: P grows as n * n, O and lse as n", fontsize=12)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=11, loc="upper left")
    fig.tight_layout()
