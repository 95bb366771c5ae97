#!/usr/bin/env python3
"""The workshop's documented entry point: `python3 experiments/experiment.py`.

It runs the canonical experiment (sections S1-S6) and writes captures/results.log, its index
and the seven figures under diagrams/, next to this folder. All the work is in the package
`attention_by_hand`; this file only says where the outputs go, and, under a Python that lacks
the packages the run needs (a system python3 outside the project's .venv), which command to
use instead: one line and exit code 2, not an import traceback.
"""

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The imports the run needs beyond the standard library: pyproject.toml's dependencies (a test
# checks the two lists agree). Looked up, not imported: importing torch here would cost a second.
NEEDED = ("numpy", "torch", "matplotlib") + (("tomli",) if sys.version_info < (3, 11) else ())


def missing() -> list:
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def typed(path: Path) -> str:
    """`path` as a learner would type it here: relative below the current folder, else absolute."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def instead() -> str:
    """What to run instead of this Python."""
    venv_python = ROOT / ".venv" / "bin" / "python"
    command = f"{typed(venv_python)} {typed(Path(__file__).resolve())}"
    if venv_python.exists():
        return f"use `{command}`"
    where = "" if ROOT == Path.cwd().resolve() else f"cd {typed(ROOT)} && "
    return f"run `{where}make run` (it sets up .venv and runs this), then `{command}` runs it again"


if __name__ == "__main__":
    absent = missing()
    if absent:
        print(f"{sys.argv[0]}: {', '.join(absent)} not installed for {sys.executable}; {instead()}", file=sys.stderr)
        sys.exit(2)
    try:
        from attention_by_hand.cli import main
    except ModuleNotFoundError:  # not installed: use the source tree beside this file
        sys.path.insert(0, str(ROOT / "src"))
        from attention_by_hand.cli import main
    sys.exit(main(["run", "--out", str(ROOT), *sys.argv[1:]]))
