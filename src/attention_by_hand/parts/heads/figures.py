"""The heads part's three drawings: every head's pattern (H1), the detectors (H2), the loss by position (H5).

`sections.py` hands each over as a `FigureJob` with numbers already rounded to the digits the
log prints, so the pixels cannot depend on a CPU's last bits; `run/figures.py` renders it.

Left out: computing anything.
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.run.figures import BLUE, GREEN, GREY, ORANGE, drawing

__all__ = ["patterns", "detectors", "in_context"]

_MODEL = {"two_layer": "two layers", "one_layer": "one-layer control"}
_DETECTORS = (("previous-token", BLUE), ("induction", ORANGE), ("first-token", GREEN))


def _title(key: str) -> str:
    """'two_layer:L0H1' -> 'two layers, head L0H1'."""
    model, head = key.split(":")
    return f"{_MODEL[model]}, head {head}"


@drawing(12.0, 8.0)
def patterns(fig, patterns, period, tokens):
    """patterns: 'model:layer.head' -> (T, T) weights on one sequence; period: where the repeat starts."""
    fig.set_layout_engine("constrained")
    # Columns: the two-layer model's layer 0, its layer 1, the control; two heads in each.
    axes = fig.subplots(2, 3)
    T = len(tokens)
    ticks = [0, period + 1, T - 1]  # the start token, the repeat's first position, the last
    for index, key in enumerate(patterns):
        ax = axes[index % 2, index // 2]
        image = ax.imshow(np.array(patterns[key]), cmap="Blues", vmin=0.0, vmax=1.0)
        # The start token, and the first time through, end at these edges.
        for edge in (0.5, period + 0.5):
            ax.axhline(edge, color=GREY, lw=0.8, ls=":")
            ax.axvline(edge, color=GREY, lw=0.8, ls=":")
        ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=10)
        ax.set_yticks(ticks, [str(t) for t in ticks], fontsize=10)
        ax.set_title(_title(key), fontsize=12)
        if index % 2 == 1:
            ax.set_xlabel("key position (looked at)", fontsize=11)
        if index < 2:
            ax.set_ylabel("query position (looking)", fontsize=11)
    fig.colorbar(image, ax=axes, shrink=0.7, label="attention weight")
    repeat = T - 1 - period
    fig.suptitle(f"every head's weights on one sequence: the start token, {period} tokens, then {repeat} of them again", fontsize=13)


@drawing(10.4, 5.2)
def detectors(fig, scores, threshold):
    """scores: 'model:layer.head' -> (previous-token, induction, first-token); bars, and the threshold."""
    ax = fig.subplots()
    keys = list(scores)
    x = np.arange(len(keys))
    width = 0.26
    for i, (name, colour) in enumerate(_DETECTORS):
        ax.bar(x + (i - 1) * width, [scores[k][i] for k in keys], width, color=colour, label=f"{name} score")
    ax.axhline(threshold, color=GREY, lw=1.2, ls="--")
    ax.text(len(keys) - 0.5, threshold + 0.02, f"threshold {threshold}", ha="right", fontsize=11, color=GREY)
    ax.set_xticks(x, [_title(k).replace(", head ", "\nhead ") for k in keys], fontsize=10)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score (mean attention weight)")
    ax.set_title("three detectors for every head of both models, on the probe", fontsize=12)
    ax.legend(fontsize=10, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()


@drawing(9.6, 5.0)
def in_context(fig, losses, period, chance):
    """losses: model -> the mean loss at each row (T,); period: the repeat starts at row period + 1."""
    ax = fig.subplots()
    colours = {"two_layer": BLUE, "one_layer": ORANGE}
    for name, values in losses.items():
        ax.plot(range(len(values)), values, "o-", color=colours[name], lw=2, ms=4, label=_MODEL[name])
    ax.axhline(chance, color=GREY, lw=1, ls="--")
    ax.text(len(next(iter(losses.values()))) - 1, chance + 0.12, f"chance, ln 31 = {chance:.3f}", ha="right", fontsize=11, color=GREY)
    ax.axvline(period + 0.5, color=GREY, lw=1, ls=":")
    ax.text(period + 0.8, 0.2, "the repeat", fontsize=11, color=GREY)
    ax.set_xlabel("row (the position predicting the next token)")
    ax.set_ylabel("mean cross-entropy")
    ax.set_ylim(0, None)
    ax.set_title(f"loss at each row, period {period}: a length the training never used", fontsize=12)
    ax.legend(fontsize=11, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
