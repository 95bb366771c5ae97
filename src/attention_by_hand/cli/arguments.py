"""The argument types the subcommands share: a folder to write into, a number within bounds, a port.

Each refuses a bad value before anything runs, with one line that names it (argparse: exit 2).
"""

from __future__ import annotations

import argparse

from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["folder", "bounded", "port"]


def folder(text: str) -> Path:
    """--out as a folder that can be written: the nearest part of the path that exists is a folder."""
    out = Path(text)
    for step in (out, *out.parents):
        if step.exists():
            if not step.is_dir():
                raise UserError(f"{out}: --out must be a folder, and {step} is a file")
            break
    return out


def bounded(kind, low, high, what: str, bounds: str):
    """An argparse type: `kind(text)` within [low, high], else one line naming the value (exit 2)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:  # NaN fails every comparison, inf the upper bound
            raise argparse.ArgumentTypeError(f"{text!r}: must be {bounds}")
        return value

    return parse


def port(text: str) -> int:
    """A TCP port number, checked before anything is built (argparse reports the error, exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535; 0 = any free port)")
    return port

