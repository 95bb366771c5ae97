"""Helpers for the run-part tests: the repository root, and reading a log and its index."""

from __future__ import annotations

import json
from pathlib import Path

from attention_by_hand.run.capture import ENVIRONMENT_LINE

ROOT = Path(__file__).resolve().parents[1]


def log_lines(result) -> list[str]:
    """The log's lines, without the empty string after the final newline."""
    return result.log_path.read_text(encoding="utf-8").split("\n")[:-1]


def read_index(result) -> dict:
    return json.loads(result.index_path.read_text(encoding="utf-8"))


def value(index: dict, name: str):
    return index["values"][name]["value"]


def text(index: dict, name: str) -> str:
    return index["values"][name]["text"]


def span_lines(lines: list[str], index: dict, name: str) -> list[str]:
    first, last = index["spans"][name]
    return lines[first - 1 : last]


def without_environment(text_: str) -> list[str]:
    rows = text_.split("\n")
    del rows[ENVIRONMENT_LINE - 1]
    return rows


def outputs(result) -> dict[str, bytes]:
    """Every file a run wrote under its output folder, by path relative to it."""
    out = result.log_path.parent.parent
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
