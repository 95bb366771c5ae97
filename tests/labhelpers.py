"""Helpers for the lab tests: labs imported by path, and the `lab` command driven in-process.

A module of its own, not conftest.py: tests/browser/ has a conftest too, and `import conftest`
would find whichever of the two pytest loaded last.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
LABS_DIR = ROOT / "labs"


def load_lab(path: Path) -> ModuleType:
    """Import a lab script by path, as the checker does: its steps stay behind the main guard."""
    spec = importlib.util.spec_from_file_location(f"test_{path.stem.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lab_main(*argv: str) -> int:
    """`attention-by-hand lab ...` in-process, with cli.main's handling of a UserError.

    Built the way cli.main builds it (register() on a subparsers object): a UserError becomes
    one `attention-by-hand: error:` line on stderr and exit code 2.
    """
    from attention_by_hand.errors import UserError
    from attention_by_hand.labs import register

    parser = argparse.ArgumentParser(prog="attention-by-hand")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    try:
        return args.func(args)
    except UserError as err:
        print(f"attention-by-hand: error: {err}", file=sys.stderr)
        return 2
