#!/usr/bin/env python3
"""Measure `attention-by-hand run` against the seed script, side by side, and break it down.

    python benchmarks/run_breakdown.py                  # print the tables
    python benchmarks/run_breakdown.py --write          # also write benchmarks/results/run.md

1. Wall time, whole commands, alternating: the seed script (taken from the specification in
   ../shared/seeds/, into a temporary folder; never copied into this project) and
   `attention-by-hand run`, each into a fresh empty folder, `--repeat` times each. The
   median of each and their ratio are reported.
2. Where the time goes, one process, nothing overlapped: each import in a fresh interpreter,
   then each section and each figure of the run timed on their own.

A benchmark reports; it asserts nothing. Timings vary by a few percent from run to run.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import Parser, RESULTS, ROOT, positive, write

SEED_SCRIPT = ROOT.parent / "shared" / "seeds" / "000_bc36e3356cebdf5c.txt"
RESULT = RESULTS / "run.md"


def extract_seed(folder: Path) -> Path | None:
    """Write the seed's experiment script (the text after its '#!' line) to folder/experiments/."""
    if not SEED_SCRIPT.exists():
        return None
    text = SEED_SCRIPT.read_text(encoding="utf-8")
    start = text.index("#!/usr/bin/env python3")
    script = folder / "experiments" / "experiment.py"
    script.parent.mkdir(parents=True)
    script.write_text(text[start:], encoding="utf-8")
    return script


def wall(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def side_by_side(repeat: int) -> dict:
    ours_cmd = [sys.executable, "-m", "attention_by_hand", "run", "-q", "--out"]
    times = {"seed": [], "ours": []}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        seed = extract_seed(tmp / "seed")
        # One untimed run of each first: both then read warm caches (fonts, .pyc files, disk).
        if seed:
            wall([sys.executable, str(seed)], seed.parent)
        wall(ours_cmd + [str(tmp / "warm")], tmp)
        for i in range(repeat):
            if seed:
                for folder in ("captures", "diagrams"):
                    shutil.rmtree(seed.parent.parent / folder, ignore_errors=True)
                times["seed"].append(wall([sys.executable, str(seed)], seed.parent))
            times["ours"].append(wall(ours_cmd + [str(tmp / f"out{i}")], tmp))
    return times


def import_time(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return float(out)


def breakdown() -> list[tuple[str, float]]:
    """Each section and each figure, timed alone in this process (measurements in-process)."""
    import numpy as np

    import attention_by_hand.parts.canonical.sections as E
    from attention_by_hand.parts.canonical.measurements import Measurements
    from attention_by_hand.run.figures import render
    from attention_by_hand.run.section_log import SectionLog
    from attention_by_hand.run.world import RIVER_BANK

    rows: list[tuple[str, float]] = []
    tmp = Path(tempfile.mkdtemp())
    jobs = []
    world = RIVER_BANK
    measured = Measurements(world.embed(world.sentences[0]), background=False)
    log = SectionLog(tmp, "diagrams", ("png",), robust=False)
    log.draw = jobs.append  # keep the jobs: each figure is timed alone below
    sections = [
        ("S1 toy world", lambda: E.s1_toy_world(log, world)),
        ("S2 dot product, softmax", lambda: E.s2_dot_and_softmax(log, world)),
        ("S3 raw attention", lambda: rows_raw.append(E.s3_raw_attention(log, world))),
        ("S4 wired head", lambda: E.s4_wired_head(log, world, rows_raw[0])),
        ("S5 scaling (the random sampling)", lambda: E.s5_scaling(log, measured)),
        ("S6 general head (incl. import torch)", lambda: E.s6_general_head(log, world, measured)),
    ]
    rows_raw: list = []
    for name, section in sections:
        start = time.perf_counter()
        section()
        rows.append((f"section {name}", time.perf_counter() - start))
    start = time.perf_counter()
    import matplotlib.figure  # noqa: F401

    rows.append(("import matplotlib (in-process, first figure pays it)", time.perf_counter() - start))
    for job in jobs:
        start = time.perf_counter()
        render(job, tmp)
        rows.append((f"figure {job.filename}", time.perf_counter() - start))
    shutil.rmtree(tmp)
    del np
    return rows


def table(times: dict, imports: list[tuple[str, float]], rows: list[tuple[str, float]]) -> str:
    import platform

    import numpy

    out = []
    median = {k: statistics.median(v) for k, v in times.items() if v}
    out.append(f"Measured on {os.cpu_count()} cores, Python {platform.python_version()}, numpy {numpy.__version__}, "
               f"{len(times['ours'])} alternating runs each (median, min-max):")
    out.append("")
    out.append("| command | wall time |")
    out.append("| --- | --- |")
    if times["seed"]:
        out.append(f"| seed script `python3 experiment.py` | {median['seed']:.2f} s ({min(times['seed']):.2f}-{max(times['seed']):.2f}) |")
    out.append(f"| `attention-by-hand run` | {median['ours']:.2f} s ({min(times['ours']):.2f}-{max(times['ours']):.2f}) |")
    if times["seed"]:
        out.append(f"| ratio | **{median['ours'] / median['seed']:.2f}x** the seed's wall time |")
    out.append("")
    out.append("Where the time goes (each part alone, nothing overlapped):")
    out.append("")
    out.append("| part | seconds |")
    out.append("| --- | --- |")
    for name, seconds in imports + rows:
        out.append(f"| {name} | {seconds:.3f} |")
    return "\n".join(out)




def main() -> None:
    parser = Parser(prog="run_breakdown.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=positive("runs"), default=7, help="timed runs of each command (default 7)")
    parser.add_argument("--write", action="store_true", help=f"also write {RESULT.relative_to(ROOT)}")
    args = parser.parse_args()

    times = side_by_side(args.repeat)
    imports = [(f"import {m} (fresh interpreter)", import_time(m)) for m in ("numpy", "matplotlib.figure", "torch")]
    text = table(times, imports, breakdown())
    print(text)
    if args.write:
        write(RESULT, f"<!-- generated by benchmarks/run_breakdown.py --write; do not edit by hand -->\n{text}\n")


if __name__ == "__main__":
    main()
