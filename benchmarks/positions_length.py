#!/usr/bin/env python3
"""Train short, test long: lab 07's comparison of position schemes, timed, over a few seeds.

    python benchmarks/positions_length.py             # print the measurements
    python benchmarks/positions_length.py --write     # also write benchmarks/results/positions_length.md
                                                      # and positions-length.png
    python benchmarks/positions_length.py --seeds 1   # fewer seeds (default 3)

Lab 07 trains lab 06's one-block model on lab 06's copy task (6 random digits, then the same 6)
five times, with no positions, a learned table, the sinusoidal table, RoPE and ALiBi, with the
same seed and the same batches, and tests each at the trained length and at 1.5 and 2 times it
(the same digits repeated more times). This script imports the lab's reference through the
package and runs its full comparison (`compare`) once per seed, in this process, with torch's
thread count set explicitly; the wall time of each comparison is measured against the lab's
budget. Every number in the results comes from the run: the accuracies and the times. Each
finding is set beside what the literature found, and says where the two are not comparable (a
one-block model on a copy task is not language modelling).

The figure depends on the accuracies alone, so the same accuracies give the same PNG bytes. A
benchmark reports and asserts nothing; both files are generated, never edit them by hand.
"""

from __future__ import annotations

import dataclasses
import io
import os
import platform
import statistics
import sys
import time

from benchlib import Parser, RESULTS, ROOT, cpu_model, positive, write

RESULT = RESULTS / "positions_length.md"
FIGURE = RESULT.with_name("positions-length.png")
BUDGET_SECONDS = 120.0  # one full comparison, five models, on the 2-core workshop machine
# One thread: the lab's matrices are tiny, and lab 06 measured a second thread to cost more than it
# gives on a shared CPU. Set here, whatever the lab sets when it runs as a script.
THREADS = 1
LEARNED_HOLDS = 0.95  # the lab's own bar for "learned the copy" at the trained length
NAMES = {"none": "no positions", "learned": "learned", "sinusoidal": "sinusoidal", "rope": "RoPE", "alibi": "ALiBi"}
# The workshop figures' look (attention_by_hand.run.figures): base font, resolution, one colour per scheme.
_FONT_SIZE, _DPI = 13, 110
_COLOURS = {"none": "#616161", "learned": "#8e24aa", "sinusoidal": "#1976d2", "rope": "#2e7d32", "alibi": "#ef6c00"}
# Different markers and sizes, so that schemes on the same point (all at 1.0) stay visible.
_MARKERS = {"none": ("o", 7), "learned": ("s", 15), "sinusoidal": ("^", 9), "rope": ("D", 6), "alibi": ("v", 9)}


def lab07():
    """Lab 07's reference, imported by path as the package finds it (its steps do not run)."""
    from attention_by_hand.lab.registry import get_lab, reference_path
    from attention_by_hand.lab.verdict import load_reference

    return load_reference(reference_path(get_lab("7")))


def run(lab, seeds: list[int]) -> tuple[list[float], dict[str, dict[int, list[float | None]]]]:
    """The lab's full comparison once per seed -> (wall seconds per comparison, scheme -> length -> accuracies)."""
    walls, accuracies = [], {}
    for seed in seeds:
        config = dataclasses.replace(lab.Config(), seed=seed)
        started = time.perf_counter()
        trained = list(lab.compare(config, config.steps))
        walls.append(time.perf_counter() - started)
        for t in trained:
            for length, accuracy in t.accuracies.items():
                accuracies.setdefault(t.scheme, {}).setdefault(length, []).append(accuracy)
        print(f"seed {seed}: {walls[-1]:.1f} s", file=sys.stderr)
    return walls, accuracies


def mean(values: list[float | None]) -> float | None:
    """The mean, or None where the scheme has no value (a learned table past its last row)."""
    return None if None in values else statistics.fmean(values)


def cell(values: list[float | None], first_missing: int) -> str:
    """One table cell: the mean, and the range over the seeds when there are several."""
    if None in values:
        return f"n/a: no row for position {first_missing}"
    spread = f" ({min(values):.3f}-{max(values):.3f})" if len(values) > 1 else ""
    return f"{statistics.fmean(values):.3f}{spread}"


def findings(accuracies: dict, lengths: tuple[int, ...], context: int, half: int) -> list[str]:
    """What the run shows, each beside what the literature found; which sentence is read from the numbers."""
    trained, longest = lengths[0], lengths[-1]
    at = {scheme: {n: mean(v) for n, v in by_length.items()} for scheme, by_length in accuracies.items()}
    learned_it = [s for s in at if at[s][trained] is not None and at[s][trained] >= LEARNED_HOLDS]
    lines = []
    failed = [NAMES[s] for s in at if s not in learned_it]
    if failed:
        lines.append(
            f"- Did not learn the copy at the trained length (below {LEARNED_HOLDS}): {', '.join(failed)}. "
            "In one block, attention scores come from the tokens' contents plus the position scheme: with "
            "no positions, or ALiBi's penalty that only says \"nearer is better\", no head can single out "
            f"the token {half - 1} places before the query (the digit {half} before the one it predicts), at any length."
            + (
                " (Kazemnejad et al., 2023, found no positions at all to generalise well in decoder-only models "
                "of several layers, which can count the tokens before them through the causal mask; one block "
                "cannot use such a count in its own scores.)"
                if "none" in at and "none" not in learned_it
                else ""
            )
        )
    if "learned" in at:
        lines.append(
            f"- Learned positions cannot be run past the trained length at all: the table has rows 0-{context - 1}, "
            f"and a sequence of {lengths[1]} needs rows up to {lengths[1] - 2}."
        )
    sinusoidal = at.get("sinusoidal", {})
    if sinusoidal.get(trained) is not None and sinusoidal.get(longest) is not None:
        held = sinusoidal[longest] >= sinusoidal[trained] - 0.05
        lines.append(
            f"- Sinusoidal: {sinusoidal[trained]:.3f} at {trained}, {sinusoidal[longest]:.3f} at {longest}. "
            "The Transformer paper (Vaswani et al., 2017) hoped the fixed table would let a model extrapolate; "
            "Press et al. (2022, \"Train Short, Test Long\") found that it does not, in language modelling. "
            "A one-block model on a copy task is not that, so this run neither confirms nor refutes them; "
            + ("here it kept its accuracy." if held else "here too it fell.")
        )
    rope = at.get("rope", {})
    if rope.get(trained) is not None and rope.get(longest) is not None:
        held = rope[longest] >= rope[trained] - 0.05
        lines.append(
            f"- RoPE: {rope[trained]:.3f} at {trained}, {rope[longest]:.3f} at {longest}. Press et al. found rotary "
            "positions to extrapolate only a little past the training length in language modelling. The two "
            "are not comparable: RoPE's scores depend on distances only, and the one distance this task needs "
            f"({half - 1} back from the query, the digit {half} before the one it predicts) is one it trained on, "
            "so a longer sequence asks it nothing new"
            + (", and it held." if held else "; it fell all the same.")
        )
    finished = {s: at[s][longest] for s in at if at[s][longest] is not None}
    if "alibi" in finished:
        best = max(finished.values())
        winners = [NAMES[s] for s, a in finished.items() if a >= best - 0.005]
        alibi_best = finished["alibi"] >= best - 0.005
        lines.append(
            f"- Press et al. found ALiBi to extrapolate best, in language modelling. At {longest} the best here is "
            f"{' and '.join(winners)} ({best:.3f}); ALiBi has {finished['alibi']:.3f}. "
            + (
                "That does not test their finding: ALiBi never learned this task at the trained length in one "
                "block, so it had nothing to carry to longer ones."
                if "alibi" not in learned_it
                else ("It is among the best here too, on a task that is not language modelling."
                      if alibi_best else "It is not the best here, on a task that is not language modelling.")
            )
        )
    return lines


def draw(accuracies: dict, lengths: tuple[int, ...], chance: float) -> bytes:
    """Accuracy against sequence length, one line per scheme (the seeds' range shaded), as PNG bytes.

    Saved as attention_by_hand.run.figures saves the run's figures: a Matplotlib Figure without pyplot
    and no Software stamp in the PNG, so the same accuracies give the same bytes.
    """
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"font.size": _FONT_SIZE}):
        fig = Figure(figsize=(8.6, 6.0), layout="constrained")
        ax = fig.subplots()
        for scheme, by_length in accuracies.items():
            known = [(n, v) for n, v in by_length.items() if None not in v]
            xs = [n for n, _ in known]
            marker, size = _MARKERS.get(scheme, ("o", 7))
            ax.plot(
                xs,
                [statistics.fmean(v) for _, v in known],
                marker=marker,
                markersize=size,
                markerfacecolor="none" if scheme == "learned" else _COLOURS.get(scheme),
                color=_COLOURS.get(scheme),
                label=NAMES.get(scheme, scheme)
                + (": no rows past the trained length" if len(known) < len(lengths) else ""),
            )
            if any(len(v) > 1 for _, v in known):
                ax.fill_between(
                    xs, [min(v) for _, v in known], [max(v) for _, v in known], color=_COLOURS.get(scheme), alpha=0.15
                )
        ax.axhline(chance, color="#9e9e9e", linestyle=":", linewidth=1)
        ax.annotate(
            "chance", (lengths[-1], chance), xytext=(0, 4), textcoords="offset points", ha="right", color="#757575"
        )
        ax.axvline(lengths[0], color="#9e9e9e", linestyle="--", linewidth=1)
        ax.annotate("trained here", (lengths[0], 0.02), xytext=(4, 0), textcoords="offset points", color="#757575")
        ax.set(
            title="train short, test long: lab 07's copy task",
            xlabel="sequence length",
            ylabel="accuracy on the predictable digits",
            xticks=list(lengths),
            ylim=(0, 1.05),
        )
        ax.grid(True, color="#e0e0e0", linewidth=0.8)
        fig.legend(loc="outside lower center", ncols=3, fontsize=_FONT_SIZE - 2, frameon=False)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    return buffer.getvalue()


def alt_text(accuracies: dict, lengths: tuple[int, ...]) -> str:
    """What the figure shows, in words, with the run's own numbers."""
    parts = []
    for scheme, by_length in accuracies.items():
        points = [f"{mean(v):.3f} at {n}" for n, v in by_length.items() if None not in v]
        parts.append(f"{NAMES.get(scheme, scheme)} {', '.join(points)}")
    return (
        f"Accuracy on the predictable digits against sequence length ({', '.join(map(str, lengths))}), one line "
        f"per position scheme, trained at {lengths[0]}: " + "; ".join(parts) + "."
    )


def report(lab, seeds: list[int], walls: list[float], accuracies: dict, total: float) -> str:
    """The measurements as markdown: the machine, the table, the findings, the figure and the timing."""
    import torch

    config = lab.Config()
    lengths = config.lengths
    median = statistics.median(walls)
    how = "mean over the seeds (min-max)" if len(seeds) > 1 else "one seed"
    # Other work on the machine slows the timings (not the accuracies): say how busy it was.
    load = (
        f"1-minute load average {os.getloadavg()[0]:.1f} at the end, its own thread included"
        if hasattr(os, "getloadavg")
        else "load average not known"
    )
    header = "| scheme | " + " | ".join(f"{n} ({n / lengths[0]:g}x)" for n in lengths) + " |"
    lines = [
        "<!-- generated by benchmarks/positions_length.py --write; do not edit by hand -->",
        f"Lab 07's full comparison on {os.cpu_count()} cores ({cpu_model()}), Python {platform.python_version()}, "
        f"torch {torch.__version__}, torch threads set to {torch.get_num_threads()}, {load}; "
        f"{len(seeds)} seed{'s' if len(seeds) > 1 else ''} ({', '.join(map(str, seeds))}), "
        f"{config.steps} training steps per model, {config.held_out} held-out sequences per length.",
        "",
        f"Accuracy on the predictable digits (every digit after the first {config.half}), trained at length "
        f"{lengths[0]}, {how}:",
        "",
        header,
        "| --- |" + " --- |" * len(lengths),
    ]
    for scheme, by_length in accuracies.items():
        cells = [cell(by_length[n], config.context) for n in lengths]
        lines.append(f"| {NAMES.get(scheme, scheme)} | " + " | ".join(cells) + " |")
    lines += ["", "What comes out:", "", *findings(accuracies, lengths, config.context, config.half), ""]
    lines += [f"![{alt_text(accuracies, lengths)}]({FIGURE.name})", ""]
    lines += [
        "| measure | value |",
        "| --- | --- |",
        f"| wall time, one full comparison (5 models trained and tested) | {median:.1f} s "
        + (f"({min(walls):.1f}-{max(walls):.1f}, {len(walls)} runs)" if len(walls) > 1 else "(1 run)")
        + " |",
        f"| wall time, the whole benchmark | {total:.1f} s |",
        f"| budget | {BUDGET_SECONDS:.0f} s per comparison: {'met' if max(walls) <= BUDGET_SECONDS else 'NOT met'} |",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="positions_length.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=positive("seeds"), default=3, help="seeds to average, from the lab's own (default: 3)")
    parser.add_argument(
        "--write", action="store_true", help=f"also write {RESULT.relative_to(ROOT)} and {FIGURE.relative_to(ROOT)}"
    )
    args = parser.parse_args(argv)

    import torch

    from attention_by_hand.errors import UserError

    try:
        lab = lab07()
    except UserError as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 2
    torch.set_num_threads(THREADS)
    print(f"torch threads: {torch.get_num_threads()} (set explicitly)", file=sys.stderr)
    started = time.perf_counter()
    seeds = [lab.Config().seed + i for i in range(args.seeds)]
    walls, accuracies = run(lab, seeds)
    text = report(lab, seeds, walls, accuracies, time.perf_counter() - started)
    print(text, end="")
    if args.write:
        config = lab.Config()
        # The figure first: the markdown names it, so it must exist before the markdown does.
        write(FIGURE, draw(accuracies, config.lengths, 1 / config.vocab_size))
        write(RESULT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
