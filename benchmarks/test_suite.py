#!/usr/bin/env python3
"""Time the whole test suite as `make test` runs it, on this machine.

    python benchmarks/test_suite.py                  # one run of the whole suite, printed
    python benchmarks/test_suite.py --runs 3         # more runs (median, min-max)
    python benchmarks/test_suite.py --write          # also write benchmarks/results/test_suite.md
    python benchmarks/test_suite.py --pytest-args tests/test_atomic.py   # a selection, to try this script

Run it with the project's Python (`.venv/bin/python`, as `make bench` does): each run is
`python -m pytest -q -p no:cacheprovider` in a fresh process at the repository's root, with
ABH_REQUIRE_BROWSER=1, so the browser tests run (or fail) instead of skipping, as in CI. The
wall time is the suite's alone: the venv already exists, so `make test`'s set-up costs nothing.
It reports the wall time, pytest's summary line (passed, skipped, ...) and the machine (cores,
CPU model, Python, torch), and whether the target (at most 200 s on a 2-core machine) was met.

A selection (--pytest-args) is timed and printed but never written: the README's number is the
whole suite's. The markdown file is generated for the README; never edit it by hand. A benchmark
reports and asserts nothing, but it exits 1 if the suite fails.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "results" / "test_suite.md"


def make_test_pytest(makefile: Path = ROOT / "Makefile") -> tuple[str, ...]:
    """What `make test` gives Python, read from the Makefile's `test:` recipe (the one source):
    ("-m", "pytest", "-n", "2", ...)."""
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile.read_text(encoding="utf-8"), re.M)
    for line in recipe.group(1).splitlines() if recipe else []:
        words = shlex.split(line)
        if words[1:3] == ["-m", "pytest"]:
            return tuple(words[1:])
    raise SystemExit(f"{makefile}: no `$(PY) -m pytest` line in the recipe of `test:`")


# `make test`'s pytest, quiet and without a cache folder, so every run starts from the same state.
PYTEST = (*make_test_pytest()[:2], "-q", "-p", "no:cacheprovider", *make_test_pytest()[2:])
TARGET_SECONDS, TARGET_CORES = 200.0, 2
# pytest's last line: "412 passed, 3 skipped, 1 warning in 183.21s (0:03:03)", with `=` around it
# unless -q; or "no tests ran in 0.01s".
_SUMMARY = re.compile(r"^=*\s*(?P<counts>(?:\d+ [a-z]+(?:, )?)+|no tests ran) in [\d.]+s\b", re.M)


def run_once(extra: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """One run of pytest with `extra` arguments: (wall seconds, the finished process)."""
    env = dict(os.environ, ABH_REQUIRE_BROWSER="1")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *PYTEST, *extra], cwd=ROOT, env=env, capture_output=True, text=True)
    return time.perf_counter() - started, done


def summary_of(output: str) -> str:
    """pytest's summary counts ("412 passed, 3 skipped"), from the last summary line of `output`."""
    found = _SUMMARY.findall(output)
    return found[-1] if found else "no summary line"


def cpu_model() -> str:
    """The CPU's model name, as Linux reports it; else what the platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or "unknown"


def torch_version() -> str:
    """The installed torch's version, read without importing torch (a second of start-up)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return "not installed"


def machine() -> dict:
    """What the timing depends on: cores, CPU model, Python and torch versions."""
    return {"cores": os.cpu_count(), "cpu": cpu_model(), "python": platform.python_version(), "torch": torch_version()}


def report(walls: list[float], summary: str, machine: dict, selection: list[str] = ()) -> str:
    """The measurements as markdown: what was run, then one table of the measures.

    `selection` is the extra pytest arguments, if any: a selection is timed but not judged
    against the whole suite's target.
    """
    median, low, high = statistics.median(walls), min(walls), max(walls)
    wall = f"{median:.1f} s" if len(walls) == 1 else f"{median:.1f} s ({low:.1f}-{high:.1f})"
    cores = machine["cores"]
    where = f"on {TARGET_CORES} cores" + ("" if cores == TARGET_CORES else f" (this machine has {cores})")
    if selection:
        what, verdict = f"A selection of the test suite, `{shlex.join(selection)}`,", "not judged (not the whole suite)"
    else:
        # Judged on the slowest run: the target is a promise about every run, not the typical one.
        what, verdict = "The whole test suite", "met" if high <= TARGET_SECONDS else "NOT met"
    runs = "1 run" if len(walls) == 1 else f"{len(walls)} runs (median, min-max)"
    lines = [
        "<!-- generated by benchmarks/test_suite.py --write; do not edit by hand -->",
        f"{what} as `make test` runs it (`python {' '.join(PYTEST)}` with `ABH_REQUIRE_BROWSER=1`), {runs}:",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| wall time | {wall} |",
        f"| pytest's summary | {summary} |",
        f"| machine | {cores} cores, {machine['cpu']} |",
        f"| versions | Python {machine['python']}, torch {machine['torch']} |",
        f"| target | at most {TARGET_SECONDS:.0f} s {where}: {verdict} |",
    ]
    return "\n".join(lines) + "\n"


def _positive(text: str) -> int:
    """A count of runs: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of runs >= 1")
    return int(text)


def _arguments(text: str) -> list[str]:
    """Extra pytest arguments, split as a shell would split them."""
    try:
        return shlex.split(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} cannot be split into arguments: {error}") from None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        """Bad arguments: one line naming them, exit 2 (argparse's default adds the usage)."""
        self.exit(2, f"{self.prog}: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="test_suite.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=_positive, default=1, help="number of runs of the suite (default: 1)")
    parser.add_argument("--write", action="store_true", help=f"also write {RESULT.relative_to(ROOT)}")
    parser.add_argument(
        "--pytest-args",
        type=_arguments,
        default=[],
        metavar="ARGS",
        help='extra arguments for pytest, one string (e.g. "tests/test_atomic.py -k write"): '
        "time a selection instead of the whole suite; not with --write",
    )
    args = parser.parse_args(argv)
    if args.write and args.pytest_args:
        parser.error("--write records the whole suite only: leave out --pytest-args to write")

    print(f"running: {' '.join(['python', *PYTEST, *args.pytest_args])} (ABH_REQUIRE_BROWSER=1)", file=sys.stderr)
    walls, summary = [], ""
    for i in range(args.runs):
        seconds, done = run_once(args.pytest_args)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
            print(f"{tail}\nthe test run did not pass (pytest exit {done.returncode}); nothing written",
                  file=sys.stderr)
            return 1
        summary = summary_of(done.stdout)
        walls.append(seconds)
        print(f"run {i + 1}: {seconds:.1f} s wall, {summary}", file=sys.stderr)
    text = report(walls, summary, machine(), args.pytest_args)
    print(text, end="")
    if args.write:
        from attention_by_hand.run.atomic import write_atomic

        write_atomic(RESULT, text.encode("utf-8"))
        print(f"wrote {RESULT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
