#!/usr/bin/env python3
"""The workshop's documented entry point: `python3 experiments/experiment.py`.

It runs the canonical experiment (sections S1-S6) and writes captures/results.log, its index
and the seven figures under diagrams/, next to this folder. All the work is in the package
`attention_by_hand`; this file only says where the outputs go.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

try:
    from attention_by_hand.cli import main
except ModuleNotFoundError:  # not installed: use the source tree beside this file
    sys.path.insert(0, str(ROOT / "src"))
    from attention_by_hand.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "--out", str(ROOT), *sys.argv[1:]]))
