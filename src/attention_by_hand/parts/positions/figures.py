"""The positions part's two drawings (P1, P3): the sinusoidal table, and RoPE turning a query and a key.

`sections.py` hands each over as a `FigureJob` with the numbers to draw; `run/figures.py`
renders it with the workshop's style, so the same numbers give the same bytes.

Left out: computing anything. The sections compute the vectors and the table; these functions
only draw them (the one sum here is the angle between two arrows, for its label).
"""

from __future__ import annotations

import math

import numpy as np

from attention_by_hand.run.figures import BLUE, GREY, ORANGE, drawing

__all__ = ["sinusoidal_positions", "rope_rotation"]


@drawing(7.6, 5.4)
def sinusoidal_positions(fig, table, base):
    """table: (n_positions, d_model), every entry in [-1, 1]."""
    table = np.asarray(table)
    n_positions, d_model = table.shape
    ax = fig.subplots()
    # A diverging map centred on 0 with the scale fixed to [-1, 1]: sin and cos never leave it.
    image = ax.imshow(table, cmap="RdBu_r", vmin=-1.0, vmax=1.0, aspect="auto", interpolation="nearest")
    ax.set_xlabel("channel of the position vector (even: sin, odd: cos)")
    ax.set_ylabel("position in the sentence")
    ax.set_title(f"sinusoidal positions, base {base:g}: {n_positions} positions x d_model {d_model}", fontsize=12)
    fig.colorbar(image, ax=ax, label="value", shrink=0.9)
    fig.tight_layout()


def _angle_between(a: np.ndarray, b: np.ndarray) -> float:
    """Signed angle from a to b in degrees, in (-180, 180]."""
    turn = math.atan2(b[1], b[0]) - math.atan2(a[1], a[0])
    return math.degrees(math.atan2(math.sin(turn), math.cos(turn)))


@drawing(11.4, 4.1)
def rope_rotation(fig, panels, query_word, key_word, channels):
    """panels: [{"title", "q": (2,), "k": (2,), "score"}]; the first is the pair with no positions."""
    axes = fig.subplots(1, len(panels))
    reach = 1.45 * max(float(np.hypot(*p[v])) for p in panels for v in ("q", "k"))
    unturned = panels[0]
    for ax, panel in zip(axes, panels):
        q, k = np.asarray(panel["q"]), np.asarray(panel["k"])
        if panel is not unturned:  # where the arrows started, for comparison
            for vec in (unturned["q"], unturned["k"]):
                ax.annotate("", xy=vec, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=GREY, lw=1, ls=":"))
        for vec, colour, label in ((q, BLUE, f"q ({query_word})"), (k, ORANGE, f"k ({key_word})")):
            ax.annotate("", xy=vec, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.2))
            # The label just past the tip, on the side the arrow points to, so it never sits on an arrow.
            u = vec / np.hypot(*vec)
            ax.annotate(
                label, vec, textcoords="offset points", xytext=tuple(10 * u), fontsize=11, color=colour,
                ha="left" if u[0] >= 0 else "right", va="bottom" if u[1] >= 0 else "top",
            )  # fmt: skip
        # The arc from q to k: RoPE turns both, and keeps this angle when both move together.
        start = math.degrees(math.atan2(q[1], q[0]))
        between = _angle_between(q, k)
        arc = np.radians(np.linspace(start, start + between, 40))  # (40,)
        ax.plot(0.3 * reach * np.cos(arc), 0.3 * reach * np.sin(arc), color="black", lw=1.2)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach, reach)
        ax.set_aspect("equal")
        ax.axhline(0, color="gray", lw=0.5)
        ax.axvline(0, color="gray", lw=0.5)
        ax.set_xlabel(f"{channels[0]} channel", fontsize=11)
        ax.set_ylabel(f"{channels[1]} channel", fontsize=11)
        ax.tick_params(labelsize=9)
        ax.set_title(f"{panel['title']}\nangle {abs(between):.1f}°, q . k = {panel['score']}", fontsize=11)
    fig.text(0.5, 0.02, "dotted: the same q and k with no positions; the arc: the angle from q to k", ha="center", fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
