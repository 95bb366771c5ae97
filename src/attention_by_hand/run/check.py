"""Compare a log (results.log, positions.log, memory.log, ...) with its canonical capture, line by line.

Line 3 names the versions of torch, NumPy, Matplotlib and Python that made a log; it is
reported, never judged, because a learner on other versions must still be able to match
every other line. Every other line must be equal to the byte.

Left out: where the canonical capture comes from (each part ships its own: `Part.canonical_log`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from attention_by_hand.run.capture import ENVIRONMENT_LINE
from attention_by_hand.run.textfile import read_text_file

__all__ = ["Difference", "Comparison", "compare", "read_log", "report", "ENVIRONMENT_LINE"]


# The canonical log is about 5 KB; anything past this is not a results.log.
MAX_LOG_BYTES = 1024 * 1024

_SECTION = re.compile(r"\[([A-Z]\d)\]")  # [S1] in results.log, [P1] in positions.log, ...


@dataclass(frozen=True)
class Difference:
    """One line that differs. `expected` or `got` is None where that side has no such line."""

    line: int
    section: str
    expected: str | None
    got: str | None


@dataclass(frozen=True)
class Comparison:
    differences: list[Difference]
    expected_environment: str
    got_environment: str

    @property
    def equal(self) -> bool:
        return not self.differences


def read_log(path: str | Path) -> str:
    """Read a log for comparison; a missing, empty, binary or huge file raises UserError.

    A missing file whose path is one typo away from a file that exists (captures/result.log)
    names that file in the message; any other missing file suggests running first.
    """
    path = Path(path)
    nearest = None if path.exists() else _did_you_mean(path)
    hint = f" (did you mean {nearest}?)" if nearest else " (run `attention-by-hand run` first to write it)"
    return read_text_file(path, "log", MAX_LOG_BYTES, hint=hint)


def _did_you_mean(path: Path) -> Path | None:
    """The existing file `path` was probably meant to name, or None.

    Each part of the path that does not exist is replaced by the closest name beside it
    (difflib's ratio >= 0.8: one or two letters off in a short name), so a typo in a folder's
    name is found as well as one in the file's.
    """
    fixed = Path(path.anchor) if path.anchor else Path()
    for part in path.parts[1 if path.anchor else 0 :]:
        candidate = fixed / part
        if not candidate.exists():
            try:
                names = [entry.name for entry in fixed.iterdir()]
            except OSError:
                return None
            close = difflib.get_close_matches(part, names, n=1, cutoff=0.8)
            if not close:
                return None
            candidate = fixed / close[0]
        fixed = candidate
    return fixed if fixed.is_file() else None


def _sections(lines: list[str]) -> list[str]:
    """The section each line belongs to: 'header' until the first section, then [S1], [P1], ..."""
    current, out = "header", []
    for text in lines:
        match = _SECTION.match(text)
        if match:
            current = f"[{match.group(1)}]"
        out.append(current)
    return out


def _lines(text: str) -> list[str]:
    """The lines of a text, without the empty string split() leaves after a final newline."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _eol(text: str) -> str:
    return "\n" if text.endswith("\n") else ""


def compare(got_text: str, expected_text: str) -> Comparison:
    """Line-by-line comparison; line 3 is set aside as the environment."""
    expected, got = _lines(expected_text), _lines(got_text)
    # Each line is filed under the section the canonical log has it in; lines past its end
    # (a longer log) under the section the learner's log has them in.
    sections = _sections(expected) + _sections(got)[len(expected) :]
    differences = []
    for i in range(max(len(expected), len(got))):
        number = i + 1
        if number == ENVIRONMENT_LINE:
            continue
        e = expected[i] if i < len(expected) else None
        g = got[i] if i < len(got) else None
        if e != g:
            differences.append(Difference(number, sections[i], e, g))
    # The same lines, but one file ends in a newline and the other does not.
    if not differences and expected_text.endswith("\n") != got_text.endswith("\n") and expected:
        last = len(expected) - 1
        differences.append(
            Difference(last + 1, sections[last], expected[last] + _eol(expected_text), got[last] + _eol(got_text))
        )

    def env(lines):
        return lines[ENVIRONMENT_LINE - 1] if len(lines) >= ENVIRONMENT_LINE else ""

    return Comparison(differences, env(expected), env(got))


def _versions(line: str) -> dict[str, str] | None:
    """Line 3 as {name: version}: "torch 2.13.0+cpu | numpy 2.4.6 | ..." -> {"torch": "2.13.0+cpu", ...};
    None when it is not a list of "name version" pairs (a hand-edited line, another file)."""
    pairs = [part.split(" ") for part in line.split(" | ")]
    if not all(len(pair) == 2 and all(pair) for pair in pairs):
        return None
    return dict(pairs)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def environment_note(comparison: Comparison, got_name: str, expected_name: str) -> list[str]:
    """What line 3 says differs, in words: which versions made each log, each named once and only
    where the two differ, as each log's own line 3 has them. Nothing when the lines are equal."""
    expected, got = comparison.expected_environment, comparison.got_environment
    if expected == got:
        return []
    head = f"info: line {ENVIRONMENT_LINE} (environment) differs, which is allowed"
    before, now = _versions(expected), _versions(got)
    if before is None or now is None:
        return [f"{head}:", f"  expected: {expected}", f"  got:      {got}"]
    names = list(before) + [name for name in now if name not in before]
    differ = [name for name in names if before.get(name) != now.get(name)]

    def made_with(versions: dict[str, str]) -> str:
        return _listed([f"{name} {versions[name]}" if name in versions else f"no {name}" for name in differ])

    return [f"{head}: {expected_name} was made with {made_with(before)}; {got_name} with {made_with(now)}"]


def report(comparison: Comparison, got_name: str, expected_name: str) -> list[str]:
    """Human-readable lines for the command line."""
    out = environment_note(comparison, got_name, expected_name)
    if comparison.equal:
        out.append(f"OK: {got_name} matches {expected_name} (every line but line {ENVIRONMENT_LINE}, byte for byte)")
        return out
    n = len(comparison.differences)
    lines = "1 line" if n == 1 else f"{n} lines"
    out.append(f"DIFFERENT: {lines} of {got_name} {'differs' if n == 1 else 'differ'} from {expected_name}:")
    for d in comparison.differences:
        out.append(f"  line {d.line} {d.section}")
        out.append(f"    expected: {_show(d.expected)}")
        out.append(f"    got:      {_show(d.got)}")
    return out


def _show(text: str | None) -> str:
    # repr() makes trailing spaces and tabs visible, which is where hand-typed logs go wrong.
    return "(no such line)" if text is None else repr(text)
