"""Helpers shared by the site's tests (tests/site/) and its browser tests."""

from __future__ import annotations

import re


def named_in(title: str) -> set[tuple[str, int]]:
    """The modules and labs a heading names, read back from its words: "Modules 0 to 2, Lab 04"
    -> {("module", 0), ("module", 1), ("module", 2), ("lab", 4)}."""
    found = set()
    for kind, numbers in re.findall(r"\b(Module|Lab)s? ((?:\d+(?: to \d+)?(?:, (?=\d)| and )?)+)", title):
        for first, last in re.findall(r"(\d+)(?: to (\d+))?", numbers):
            found.update((kind.lower(), n) for n in range(int(first), int(last or first) + 1))
    return found
