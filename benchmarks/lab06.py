#!/usr/bin/env python3
"""Time lab 06 on its full schedule, as a learner runs it, and draw its training curve.

    python benchmarks/lab06.py                # print the measurements
    python benchmarks/lab06.py --write        # also write benchmarks/results/lab06.md and lab06-loss.png
    python benchmarks/lab06.py --repeat 5     # more runs (default 3)

Each run is `python <lab 06> --out <temporary folder>` in a fresh interpreter, so the wall time
includes what a learner pays: starting Python, importing torch and Matplotlib, training and
drawing. Steps, training time, final loss, held-out accuracy and the loss curve are read from
the lab's own STEP lines, so the numbers here are the ones a learner sees. The budget is 60 s
on a 2-core CPU.

The markdown file has two parts: what a learner sees (a short table and the figure of the loss
and the held-out accuracy against the training step), which the labs page includes, and below
the `<!-- benchmark details -->` line the spread over the runs and the budget, which only the
README shows. Both files are generated; never edit them by hand. The figure depends on the
curve alone, not on the timings, so the same curve gives the same PNG bytes. A benchmark
reports and asserts nothing, but it exits 1 if the lab itself fails.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import Parser, RESULTS, ROOT, positive, write

RESULT = RESULTS / "lab06.md"
FIGURE = RESULT.with_name("lab06-loss.png")
BUDGET_SECONDS = 60.0
TARGET_ACCURACY = 0.95  # the lab's own self-check threshold
# Ends the learner's part of the results: the labs page includes what is above this line.
DETAILS_MARKER = "<!-- benchmark details -->"


def lab06_script() -> Path:
    """Lab 06's reference script, as the package finds it: the labs ship with the package."""
    from attention_by_hand.lab.registry import get_lab, reference_path

    return reference_path(get_lab("6"))


def run_once(lab: Path) -> tuple[float, str]:
    """One full run of the lab: (wall seconds, its stdout)."""
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(lab), "--out", out], capture_output=True, text=True)
        seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"lab 06 failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return seconds, done.stdout


def _search(pattern: str, stdout: str) -> re.Match:
    """The lab's line that `pattern` reads, or exit 1 naming it: the lab's output changed."""
    found = re.search(pattern, stdout, re.M)
    if found is None:
        sys.exit(f"lab 06 printed no line matching {pattern!r}; update benchmarks/lab06.py to its output")
    return found


def parse(stdout: str) -> dict:
    """The lab's own numbers, from its STEP lines and its loss curve."""
    trained = _search(r"^STEP 4: trained (\d+) steps in ([\d.]+) s; final loss ([\d.]+)", stdout)
    accuracy = _search(r"held-out accuracy on the repeated half: ([\d.]+)", stdout)
    held_out = _search(r"^STEP 1: .*?(\d+) held-out sequences", stdout)
    curve = [
        (int(step), float(loss), float(acc))
        for step, loss, acc in re.findall(r"^ +step +(\d+): loss ([\d.]+), held-out accuracy ([\d.]+)", stdout, re.M)
    ]
    if not curve:
        sys.exit("lab 06 printed no `step N: loss ..., held-out accuracy ...` lines; update benchmarks/lab06.py")
    return {
        "steps": int(trained.group(1)),
        "training_seconds": float(trained.group(2)),
        "final_loss": float(trained.group(3)),
        "accuracy": float(accuracy.group(1)),
        "held_out": int(held_out.group(1)),
        "curve": curve,
    }


def first_step_reaching(curve: list[tuple[int, float, float]], accuracy: float = TARGET_ACCURACY) -> int | None:
    """The first logged step whose held-out accuracy is at least `accuracy`, or None."""
    return next((step for step, _, acc in curve if acc >= accuracy), None)


def draw_curve(curve: list[tuple[int, float, float]]) -> bytes:
    """The loss (log scale) and the held-out accuracy against the training step, as PNG bytes.

    `curve` is the lab's logged (step, loss, held-out accuracy) triples. Saved as the run's
    figures are (attention_by_hand.run.figures.figure_bytes), so the same curve gives the same bytes.
    """
    from attention_by_hand.run.figures import figure_bytes

    return figure_bytes((10, 3.8), _draw_curve, curve=curve)


def _draw_curve(fig, curve: list[tuple[int, float, float]]) -> None:
    from attention_by_hand.run.figures import BLUE, GREY, ORANGE

    fig.set_layout_engine("constrained")
    steps = [step for step, _, _ in curve]
    loss_ax, accuracy_ax = fig.subplots(1, 2)
    loss_ax.plot(steps, [loss for _, loss, _ in curve], marker="o", color=BLUE)
    # Log scale: the loss falls by orders of magnitude, and a linear axis hides all but the first drop.
    loss_ax.set_yscale("log")
    loss_ax.set(title="training loss (log scale)", xlabel="training step", ylabel="cross-entropy")
    accuracy_ax.plot(steps, [acc for _, _, acc in curve], marker="o", color=ORANGE)
    accuracy_ax.axhline(TARGET_ACCURACY, color=GREY, linestyle="--", linewidth=1)
    accuracy_ax.annotate(
        f"self-check: >= {TARGET_ACCURACY}",
        (steps[-1], TARGET_ACCURACY),
        xytext=(0, -6),
        textcoords="offset points",
        ha="right",
        va="top",
        color=GREY,
    )
    accuracy_ax.set(title="held-out accuracy", xlabel="training step", ylabel="fraction right", ylim=(0, 1.05))
    for ax in (loss_ax, accuracy_ax):
        ax.grid(True, color="#e0e0e0", linewidth=0.8)


def alt_text(curve: list[tuple[int, float, float]]) -> str:
    """What the figure shows, in words, with the curve's own numbers."""
    (first_step, first_loss, first_acc), (last_step, last_loss, last_acc) = curve[0], curve[-1]
    reached = first_step_reaching(curve)
    reaching = (
        f"first reaching the self-check's {TARGET_ACCURACY} at step {reached}"
        if reached is not None
        else f"never reaching the self-check's {TARGET_ACCURACY}"
    )
    return (
        f"Lab 06's training in two panels against the training step. Left: the training loss, on a log "
        f"scale, falls from {first_loss:.4f} at step {first_step} to {last_loss:.4f} at step {last_step}. "
        f"Right: the held-out accuracy goes from {first_acc:.3f} to {last_acc:.3f}, {reaching}."
    )


def report(walls: list[float], trainings: list[float], numbers: dict) -> str:
    """The measurements as markdown: the learner's table and figure, then the benchmark details."""
    import torch

    curve = numbers["curve"]
    median, low, high = statistics.median(walls), min(walls), max(walls)
    lines = [
        "<!-- generated by benchmarks/lab06.py --write; do not edit by hand -->",
        f"Lab 06 on its full schedule, run on a CPU with {os.cpu_count()} cores "
        f"(Python {platform.python_version()}, torch {torch.__version__}):",
        "",
        "| what the lab did | this run |",
        "| --- | --- |",
        f"| training steps | {numbers['steps']} |",
        f"| time for the whole script (starting Python, imports, training, the figure) | {median:.1f} s |",
        f"| time for the training loop alone (with its held-out checks) | {statistics.median(trainings):.1f} s |",
        f"| training loss at the first logged step, and at the end | {curve[0][1]:.4f}, {numbers['final_loss']:.4f} |",
        f"| first logged step with held-out accuracy >= {TARGET_ACCURACY} | {first_step_reaching(curve)} |",
        f"| held-out accuracy on the repeated half, at the end | {numbers['accuracy']:.3f} |",
        "",
        f"The loss is the cross-entropy on the repeated half of each training batch; the accuracy is "
        f"measured on {numbers['held_out']} held-out sequences at each logged step.",
        "",
        f"![{alt_text(curve)}]({FIGURE.name})",
        "",
        DETAILS_MARKER,
        f"Benchmark: {len(walls)} runs of the whole script (median, min-max).",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| wall time, whole script | {median:.1f} s ({low:.1f}-{high:.1f}) |",
        f"| budget | {BUDGET_SECONDS:.0f} s wall: {'met' if high <= BUDGET_SECONDS else 'NOT met'} |",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="lab06.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=positive("runs"), default=3, help="number of full runs (default: 3)")
    parser.add_argument(
        "--write", action="store_true", help=f"also write {RESULT.relative_to(ROOT)} and {FIGURE.relative_to(ROOT)}"
    )
    args = parser.parse_args(argv)

    from attention_by_hand.errors import UserError

    try:
        lab = lab06_script()
    except UserError as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 2
    walls, trainings, numbers = [], [], None
    for i in range(args.repeat):
        seconds, stdout = run_once(lab)
        numbers = parse(stdout)
        walls.append(seconds)
        trainings.append(numbers["training_seconds"])
        print(f"run {i + 1}: {seconds:.1f} s wall, {numbers['training_seconds']:.1f} s training", file=sys.stderr)
    text = report(walls, trainings, numbers)
    print(text, end="")
    if args.write:
        # The figure first: the markdown names it, so it must exist before the markdown does.
        write(FIGURE, draw_curve(numbers["curve"]))
        write(RESULT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
