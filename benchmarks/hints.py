#!/usr/bin/env python3
"""How often `lab check`'s hint names the mistake, on a folder of wrong learner files with a manifest.

    python benchmarks/hints.py                          # the development set, benchmarks/hints/dev
    python benchmarks/hints.py FOLDER                   # any folder with a manifest.json
    python benchmarks/hints.py --engine off             # the hand-written hints alone (the "before")
    python benchmarks/hints.py --write                  # also write benchmarks/results/hints.md

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
import json
import os
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

RESULT = benchlib.RESULTS / "hints.md"
DEV = benchlib.ROOT / "benchmarks" / "hints" / "dev"
TARGET_NAMED, TARGET_SECONDS = 0.90, 10.0


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
    from attention_by_hand.lab.runner import check_file

    lab = LABS[int(entry["lab"]) - 1]
    with tempfile.TemporaryDirectory(prefix="hints-") as tmp:
        learner = Path(tmp) / lab.filename
        learner.write_text(expand(folder / entry["file"]), encoding="utf-8")
        started = time.monotonic()
        run = check_file(learner, lab, engine=engine)
        seconds = time.monotonic() - started
    hints = [r.hint for r in run.results if not r.passed and r.label.startswith(entry["function"] + ":")]
    found = lambda patterns: any(re.search(p, h, re.I) for p in patterns for h in hints)  # noqa: E731
    wrong = found(entry.get("wrong_if", []))
    named = found(entry.get("named_if", [])) and not wrong
    return {"file": entry["file"], "failed": run.exit_code != 0, "named": named, "wrong": wrong,
            "seconds": seconds, "hint": hints[0] if hints else (run.failure or "(no failing check of that function)")}


def main(argv: list[str]) -> int:
    parser = benchlib.Parser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEV)
    parser.add_argument("--engine", choices=("on", "off"), default="on", help="off: the hand-written hints alone")
    parser.add_argument("--write", action="store_true", help=f"also write {RESULT.relative_to(benchlib.ROOT)}")
    parser.add_argument("--verbose", action="store_true", help="print every file's hint")
    options = parser.parse_args(argv)
    entries = read_manifest(options.folder)
    import torch

    torch.set_num_threads(1)
    started = time.monotonic()
    load = os.getloadavg()[0]
    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(lambda e: judge_one(e, options.folder, options.engine == "on"), entries))
    wall = time.monotonic() - started
    named = sum(r["named"] for r in rows)
    wrong = sum(r["wrong"] for r in rows)
    failed = sum(r["failed"] for r in rows)
    times = [r["seconds"] for r in rows]
    if options.verbose:
        for r in rows:
            mark = "NAMED" if r["named"] else "WRONG" if r["wrong"] else "-    "
            print(f"{mark} {r['file']}: {r['hint']}")
    lines = [
        f"Measured on {benchlib.machine_line()}; torch threads 1 in the checker (set with `torch.set_num_threads`); "
        f"1-minute load average {load:.1f} at the start.",
        "",
        f"`python benchmarks/hints.py{'' if options.folder == DEV else ' FOLDER'}{' --engine off' if options.engine == 'off' else ''}`: "
        f"{len(rows)} wrong learner files ({options.folder.name}), each checked as `lab check` does, two at a time.",
        "",
        "| measure | value | target |",
        "| --- | --- | --- |",
        f"| files whose check failed | {failed} of {len(rows)} | all |",
        f"| hints that name the mistake | {named} of {len(rows)} ({named / len(rows):.0%}) | at least {TARGET_NAMED:.0%}: "
        f"{'met' if named >= TARGET_NAMED * len(rows) else 'missed'} |",
        f"| hints that name a mistake not made | {wrong} | 0: {'met' if wrong == 0 else 'missed'} |",
        f"| time of one check, median (max) | {statistics.median(times):.1f} s ({max(times):.1f} s) | under {TARGET_SECONDS:g} s: "
        f"{'met' if max(times) < TARGET_SECONDS else 'missed'} |",
        f"| wall time, all files | {wall:.0f} s | |",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if options.write:
        benchlib.write(RESULT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
