"""What every benchmark repeats: its arguments' one-line errors, the machine it ran on, and
writing its results.

    Parser        argparse, but a bad argument is one line and exit 2 (no usage block)
    positive      an argparse type: a whole number of at least 1 ("runs", "seeds", ...)
    cpu_model     the CPU's name, as Linux reports it
    machine_line  cores, CPU, Python and the versions of the given packages, for a results file
    measured_on   the stamp of a timed result: machine_line, torch's threads, how its threads wait,
                  and the load average when the measuring began
    write         results and figures to benchmarks/results/, atomically, saying what was written

Each benchmark is a script (`python benchmarks/x.py`); this module sits beside them, so a script
imports it as `benchlib` (the tests put benchmarks/ on the path too).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["ROOT", "RESULTS", "Parser", "positive", "cpu_model", "installed", "machine_line", "measured_on", "write"]

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


class Parser(argparse.ArgumentParser):
    def error(self, message: str):
        """Bad arguments: one line naming them, exit 2 (argparse's default adds the usage)."""
        self.exit(2, f"{self.prog}: {message}\n")


def positive(what: str):
    """An argparse type for a count of `what`: a whole number of at least 1."""

    def parse(text: str) -> int:
        if not text.isdigit() or int(text) < 1:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of {what} >= 1")
        return int(text)

    return parse


def cpu_model() -> str:
    """The CPU's model name, as Linux reports it; else what the platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def installed(name: str) -> str:
    """A package's version from its metadata (no import: torch takes seconds), or "not installed"."""
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def machine_line(packages: tuple[str, ...] = ("torch",)) -> str:
    """'2 cores (AMD EPYC ...), Python 3.11.7, torch 2.13.0+cpu': what a time depends on."""
    names = ", ".join(f"{name} {installed(name)}" for name in packages)
    return f"{os.cpu_count()} cores ({cpu_model()}), Python {platform.python_version()}" + (f", {names}" if names else "")


def measured_on(threads: int, packages: tuple[str, ...] = ("torch", "numpy"), also: str = "") -> str:
    """'Measured on <machine_line>; torch threads 2 (set with `torch.set_num_threads`), GOMP_SPINCOUNT=...;
    load average 0.9 at the start.' A time means little without these; `also` adds a clause."""
    policy = os.environ.get("OMP_WAIT_POLICY")
    waits = f"GOMP_SPINCOUNT={os.environ.get('GOMP_SPINCOUNT')}" + (f", OMP_WAIT_POLICY={policy}" if policy else "")
    load = f"; load average {os.getloadavg()[0]:.1f} at the start" if hasattr(os, "getloadavg") else ""
    return (
        f"Measured on {machine_line(packages)}; torch threads {threads} (set with `torch.set_num_threads`), "
        f"{waits}{', ' + also if also else ''}{load}."
    )


def write(path: Path, data: bytes | str) -> None:
    """Write one result file atomically (an interrupted benchmark leaves the old one whole)."""
    from attention_by_hand.run.atomic import write_atomic

    write_atomic(path, data.encode("utf-8") if isinstance(data, str) else data)
    print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
