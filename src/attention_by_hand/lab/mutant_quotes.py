"""The two sides of a change, as a hint quotes them: what they share at either end cut to "...".

`... + torch.log(l)` for `... - torch.log(l)` says what changed; the whole statement twice would
bury it. mutants.py quotes each change so.
"""

from __future__ import annotations

__all__ = ["elide"]

KEEP = 16  # characters two quoted expressions may share at either end before the rest is "..."


def elide(new: str, old: str) -> tuple[str, str]:
    """The two sides of a change with a long common beginning or end cut to "...", at a space:
    what differs stands out, and what is the same is not quoted twice."""
    start = 0
    while start < min(len(new), len(old)) and new[start] == old[start]:
        start += 1
    start = new.rfind(" ", 0, start - 1) + 1 if start > KEEP else 0
    start = start if start >= KEEP else 0  # only a long common beginning is worth a "..."
    end = 0
    while end < min(len(new), len(old)) - start and new[-1 - end] == old[-1 - end]:
        end += 1
    cut = new.find(" ", len(new) - end) if end > KEEP else -1
    tail = len(new) - cut if cut > 0 and len(new) - cut >= KEEP else 0
    new, old = new[start : len(new) - tail], old[start : len(old) - tail]
    return ("... " if start else "") + new + (" ..." if tail else ""), ("... " if start else "") + old + (" ..." if tail else "")
