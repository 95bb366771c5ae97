"""The log recorder: the lines of results.log, plus an index of what they mean.

The run writes its lines through a `Capture`. Besides the lines, the capture keeps

* named spans: `with capture.span("s2.softmax"):` remembers which log lines the block wrote,
  so a page can quote "s2.softmax" and get lines 22-23 without anyone typing 22 or 23;
* named values: `capture.value("s2.dot.river", 0.54, "{:.3f}")` returns "0.540" for the log
  line AND files it under that name, so prose quotes the very text the log printed. The first
  line after it that prints the text is filed with it (`"line": 18`), so that a worksheet's
  answer key can say where the run prints each answer: a section formats its lines from the
  texts `value` returns, so a value is filed just before the line that prints it. One that its
  section (up to the next blank line) does not print keeps no line: derived values, and any a
  section files without printing.

`results.index.json` holds both. The log file itself stays the plain text a learner diffs.
"""

from __future__ import annotations

import json
import math
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from attention_by_hand.run.atomic import write_atomic

__all__ = ["Capture", "INDEX_FORMAT", "ENVIRONMENT_LINE", "fixed", "printed_in"]

# Bumped when the index's shape changes, so a reader can refuse an index it does not know.
INDEX_FORMAT = 1

# Line 3 of every log names the versions that made it: `check` reports it instead of comparing.
ENVIRONMENT_LINE = 3

# A number this close (in units of the last printed digit) to a rounding boundary could print
# differently on another CPU or BLAS; a run refuses it rather than print a fragile digit.
_BOUNDARY_MARGIN = 1e-6


def fixed(x: float, places: int = 3) -> str:
    """x to `places` decimals, with "-0.000" written "0.000"; refuses a value on a rounding boundary.

    The positions and scale parts print every number through this, so a learner's log matches
    ours digit for digit whatever the CPU.
    """
    scaled = abs(float(x)) * 10**places
    if abs(scaled - math.floor(scaled) - 0.5) < _BOUNDARY_MARGIN:
        raise ValueError(f"{x!r} sits on a rounding boundary at {places} decimals: its printed digits are fragile")
    text = f"{float(x):.{places}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def printed_in(text: str, line: str) -> bool:
    """Whether `line` prints `text` as a whole number: "0.5" is not in "0.500", "8" not in "28";
    a range's end counts ("1,023" in "rows 0..1,023")."""
    return re.search(rf"(?:(?<![\w.])|(?<=\.\.)){re.escape(text)}(?!\w|\.\d)", line) is not None


@dataclass
class Capture:
    """Collects log lines, named spans of them and named values."""

    lines: list[str] = field(default_factory=list)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    values: dict[str, dict] = field(default_factory=dict)
    # Printed values filed since the last line: the next line is theirs if it prints their text.
    _unplaced: list[str] = field(default_factory=list, repr=False)

    def line(self, text: str = "") -> None:
        """Record one log line (no newline inside); file it as the line of the values it prints."""
        if "\n" in text:
            raise ValueError(f"a log line may not contain a newline: {text!r}")
        self.lines.append(text)
        if not text:  # a blank line ends a section: what it has not printed, it never will
            self._unplaced.clear()
        for name in [n for n in self._unplaced if printed_in(self.values[n]["text"], text)]:
            self.values[name]["line"] = len(self.lines)
            self._unplaced.remove(name)

    def replace(self, number: int, text: str) -> None:
        """Rewrite line `number` (1-based): for a line whose content is known only at the end."""
        if "\n" in text:
            raise ValueError(f"a log line may not contain a newline: {text!r}")
        self.lines[number - 1] = text

    @contextmanager
    def span(self, name: str) -> Iterator[None]:
        """Name the lines written inside the block; lines are numbered from 1, as editors do."""
        if name in self.spans:
            raise ValueError(f"span {name!r} recorded twice")
        first = len(self.lines) + 1
        yield
        last = len(self.lines)
        if last < first:
            raise ValueError(f"span {name!r} wrote no line")
        self.spans[name] = (first, last)

    def value(self, name: str, number: float | int, fmt: str = "{}", derived: bool = False) -> str:
        """Format `number`, file the text and the number under `name`, return the text.

        derived: a number the log does not print but a page may say, worked out from ones it
        does (e to a printed score, a weight as a percentage); marked so in the index.
        """
        if name in self.values:
            raise ValueError(f"value {name!r} recorded twice")
        text = fmt.format(number)
        # NumPy scalars become plain Python numbers so the index is ordinary JSON.
        plain = bool(number) if isinstance(number, bool) else number.item() if hasattr(number, "item") else number
        self.values[name] = {"text": text, "value": plain, **({"derived": True} if derived else {})}
        if not derived:
            self._unplaced.append(name)
        return text

    def log_text(self) -> str:
        """The whole log as it is written to results.log: one line each, newline-terminated."""
        return "\n".join(self.lines) + "\n"

    def index(self, log_name: str) -> dict:
        """The index as a JSON-ready dict: spans as [first, last] line numbers, values by name."""
        return {
            "format": INDEX_FORMAT,
            "log": log_name,
            "line_count": len(self.lines),
            "spans": {name: list(lines) for name, lines in sorted(self.spans.items())},
            "values": dict(sorted(self.values.items())),
        }

    def write(self, log_path: Path) -> Path:
        """Write the log and its index (`<stem>.index.json`) atomically; return the index path."""
        index_path = log_path.with_name(log_path.stem + ".index.json")
        # allow_nan=False: NaN and Infinity are not JSON; a strict reader would refuse the file.
        index = json.dumps(self.index(log_path.name), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
        write_atomic(log_path, self.log_text().encode("utf-8"))
        write_atomic(index_path, index.encode("utf-8"))
        return index_path
