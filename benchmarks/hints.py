#!/usr/bin/env python3
"""How often `lab check`'s hint names the mistake, on a folder of wrong learner files with a manifest.

    python benchmarks/hints.py                          # the development set, benchmarks/hints/dev
    python benchmarks/hints.py FOLDER                   # any folder with a manifest.json
    python benchmarks/hints.py --engine on              # with the engine only (default: without, then with)
    python benchmarks/hints.py --write                  # also write benchmarks/results/hints.md
    python benchmarks/hints.py --room                   # also time a room check of 30 lab 04 files

The manifest (FOLDER/manifest.json) is a JSON list, or a dict keyed by file name, of entries

    {"file": "lab04-x.py", "lab": 4, "function": "attention_weights", "description": "...",
     "named_if": ["regex", ...], "wrong_if": ["regex", ...]}

A file's hint NAMES the mistake when one failing check of `function` has a hint that matches a
`named_if` regex (case-insensitive) and none of that function's hints matches a `wrong_if` one; it
names a WRONG mistake when one matches a `wrong_if` regex. A file whose first line is
`# patches: lab-NN-x.py` holds only the functions the learner changed: it is checked as that
reference lab with those functions replaced. Each file is checked as `lab check` checks it (a
child process, the default limits), two at a time on two cores; the time is each check's own wall
time. A benchmark reports and asserts nothing: the targets are printed as met or missed.
"""

from __future__ import annotations

import ast
import functools
import json
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

RESULT = benchlib.RESULTS / "hints.md"
DEV = benchlib.ROOT / "benchmarks" / "hints" / "dev"
TARGET_NAMED, TARGET_SECONDS = 0.90, 10.0
TIMEOUT = 120.0  # seconds for one file's run (the checker's default is 20)


def read_manifest(folder: Path) -> list[dict]:
    path = folder / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"{path}: cannot read the manifest ({error})") from None
    if isinstance(data, dict):
        data = [{"file": name, **entry} for name, entry in data.items()]
    return data


def expand(path: Path) -> str:
    """A learner's whole file: the file itself, or the reference lab with its patch applied."""
    from attention_by_hand.lab.registry import LABS

    text = path.read_text(encoding="utf-8")
    header = re.match(r"# patches: (\S+)\n", text)
    if not header:
        return text
    reference = next(lab.reference() for lab in LABS if lab.filename == header.group(1)).read_text(encoding="utf-8")
    lines = reference.splitlines(keepends=True)
    old = {n.name: n for n in ast.parse(reference).body if isinstance(n, ast.FunctionDef)}
    patch_lines = text.splitlines(keepends=True)
    new = {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    for name in sorted(new, key=lambda n: old[n].lineno, reverse=True):
        lines[old[name].lineno - 1 : old[name].end_lineno] = patch_lines[new[name].lineno - 1 : new[name].end_lineno]
    return "".join(lines)


def judge_one(entry: dict, folder: Path, engine: bool) -> dict:
    from attention_by_hand.lab.registry import LABS
    from attention_by_hand.lab.runner import Limits, check_file

    lab = LABS[int(entry["lab"]) - 1]
    with tempfile.TemporaryDirectory(prefix="hints-") as tmp:
        learner = Path(tmp) / lab.filename
        learner.write_text(expand(folder / entry["file"]), encoding="utf-8")
        started = time.monotonic()
        # A time limit far above any check's: on a shared, loaded machine importing torch alone
        # has taken 20 s, and the limit is not what is measured here.
        run = check_file(learner, lab, engine=engine, limits=Limits(timeout=TIMEOUT))
        seconds = time.monotonic() - started
    hints = [r.hint for r in run.results if not r.passed and r.label.startswith(entry["function"] + ":")]
    found = lambda patterns: any(re.search(p, h, re.I) for p in patterns for h in hints)  # noqa: E731
    wrong = found(entry.get("wrong_if", []))
    named = found(entry.get("named_if", [])) and not wrong
    return {"file": entry["file"], "failed": run.exit_code != 0, "named": named, "wrong": wrong,
            "seconds": seconds, "hint": hints[0] if hints else (run.failure or "(no failing check of that function)")}


def time_room() -> tuple[float, int, int]:
    """(wall seconds, files, rows) of `lab check 4 --room` on 30 files: the development set's lab 04
    mistakes five times each (learners who made the same mistake), 8 right files, one that does not
    parse and one that never ends (it costs the time limit, 60 s here, on one of the two workers)."""
    import csv
    import subprocess

    from attention_by_hand.lab.registry import LABS

    reference = LABS[3].reference().read_text(encoding="utf-8")
    mistakes = sorted(DEV.glob("lab04-*.py"))
    with tempfile.TemporaryDirectory(prefix="room-") as tmp:
        room, out = Path(tmp) / "room", Path(tmp) / "out"
        room.mkdir()
        out.mkdir()
        n = 0
        for copy in range(5):
            for path in mistakes:
                n += 1
                (room / f"learner{n:02d}.py").write_text(expand(path), encoding="utf-8")
        while n < 28:
            n += 1
            (room / f"learner{n:02d}.py").write_text(reference, encoding="utf-8")
        (room / "learner29.py").write_text(reference.replace("def causal_mask(T: int)", "def causal_mask(T: int"), encoding="utf-8")
        (room / "learner30.py").write_text(reference + "\nwhile True:\n    pass\n", encoding="utf-8")
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "attention_by_hand", "lab", "check", "4", "--room", str(room), "--out", str(out), "--timeout", "60"],
                       check=True, stdout=subprocess.DEVNULL)
        wall = time.monotonic() - started
        with open(out / "room-lab-04.csv", encoding="utf-8") as f:
            rows = len(list(csv.DictReader(f)))
    return wall, 30, rows


def measure(entries: list[dict], folder: Path, engine: bool) -> tuple[list[dict], float]:
    started = time.monotonic()
    # Processes, as a room check uses: the engine compiles syntax trees, which CPython 3.11 does
    # not do safely from two threads at once (a SystemError), and times calls on the main thread.
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        rows = list(pool.map(functools.partial(judge_one, folder=folder, engine=engine), entries))
    return rows, time.monotonic() - started


def main(argv: list[str]) -> int:
    parser = benchlib.Parser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEV)
    parser.add_argument("--engine", choices=("both", "on", "off"), default="both",
                        help="off: the hand-written hints alone; both (default): off, then on")
    parser.add_argument("--write", action="store_true", help=f"also write {RESULT.relative_to(benchlib.ROOT)}")
    parser.add_argument("--verbose", action="store_true", help="print every file's hint")
    parser.add_argument("--room", action="store_true", help="also time a room check of 30 lab 04 files")
    options = parser.parse_args(argv)
    entries = read_manifest(options.folder)
    load = os.getloadavg()[0]
    runs = {}
    for engine in ("off", "on"):
        if options.engine in ("both", engine):
            runs[engine] = measure(entries, options.folder, engine == "on")
    if options.verbose:
        for engine, (rows, _) in runs.items():
            for r in rows:
                mark = "NAMED" if r["named"] else "WRONG" if r["wrong"] else "-    "
                print(f"[{engine}] {mark} {r['seconds']:4.1f} s {r['file']}: {r['hint']}")
    n = len(entries)
    heads = {"off": "hand-written hints alone", "on": "with the mutation engine"}
    lines = [
        f"Measured on {benchlib.machine_line()}; 1-minute load average {load:.1f} at the start "
        "(the machine is shared: times vary with its load).",
        "",
        f"`python benchmarks/hints.py{'' if options.folder == DEV else ' FOLDER'}`: {n} wrong learner files "
        f"({options.folder.name}: written for this measure, none of them a test fixture), across labs "
        f"{min(e['lab'] for e in entries)}-{max(e['lab'] for e in entries)}, each checked as `lab check` does, two at a time.",
        "",
        "| measure | " + " | ".join(heads[e] for e in runs) + " | target |",
        "| --- | " + " | ".join("---" for _ in runs) + " | --- |",
    ]
    named = {e: sum(r["named"] for r in rows) for e, (rows, _) in runs.items()}
    wrong = {e: sum(r["wrong"] for r in rows) for e, (rows, _) in runs.items()}
    failed = {e: sum(r["failed"] for r in rows) for e, (rows, _) in runs.items()}
    times = {e: [r["seconds"] for r in rows] for e, (rows, _) in runs.items()}
    last = list(runs)[-1]
    lines += [
        "| files whose check failed | " + " | ".join(f"{failed[e]} of {n}" for e in runs) + " | all |",
        "| hints that name the mistake | " + " | ".join(f"{named[e]} of {n} ({named[e] / n:.0%})" for e in runs)
        + f" | at least {TARGET_NAMED:.0%}: {'met' if named[last] >= TARGET_NAMED * n else 'missed'} |",
        "| hints that name a mistake not made | " + " | ".join(str(wrong[e]) for e in runs)
        + f" | 0: {'met' if wrong[last] == 0 else 'missed'} |",
        "| one check's wall time, median (max) | "
        + " | ".join(f"{statistics.median(times[e]):.1f} s ({max(times[e]):.1f} s)" for e in runs)
        + f" | under {TARGET_SECONDS:g} s: {'met' if max(times[last]) < TARGET_SECONDS else 'missed'} |",
        "| wall time, all files | " + " | ".join(f"{runs[e][1]:.0f} s" for e in runs) + " | |",
    ]
    if options.room:
        wall_room, files, written = time_room()
        lines += [
            "",
            "| room check | wall time | target |",
            "| --- | --- | --- |",
            f"| `lab check 4 --room` on 30 files (20 wrong, 8 right, 1 broken, 1 endless), sandboxed, {written} rows | "
            f"{wall_room:.0f} s | under 120 s: {'met' if wall_room < 120 and written == files else 'missed'} |",
        ]
    lines += ["", f"Load average at the end: {os.getloadavg()[0]:.1f}."]
    text = "\n".join(lines) + "\n"
    print(text)
    if options.write:
        benchlib.write(RESULT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
