"""The pairs of changes diagnosis.py tries beside those among the nearest singles: a slip made
twice on neighbouring statements, a layer moved to another value, and each change's next line.

A pair is tried only where each half is plausible alone (diagnosis.py's singles); these say which
halves belong together, whether or not either came nearer the learner's outputs by itself.
"""

from __future__ import annotations

from itertools import combinations

from attention_by_hand.lab.mutant_edits import Change

__all__ = ["MAX_TWINS", "moved_layers", "next_lines", "twins"]


MAX_TWINS = 200


def twins(singles: list[Change], following: dict[tuple[str, int], int]) -> list[tuple[Change, Change]]:
    """The same slip made twice, on a statement and the next (both statistics of a layer norm
    taken over the whole tensor): each alone may come no nearer the learner's outputs, so these
    pairs are tried whether or not their halves did."""
    groups: dict[tuple, list[Change]] = {}
    for c in singles:
        # the same slip on two layers (q and k both by hand) is one slip: the layer is no part of it
        slip = repr(c.arg[1]) if c.op == "by_hand" else repr(c.arg)
        groups.setdefault((c.function, c.op, slip, c.kind), []).append(c)
    found = []
    for group in groups.values():
        for a, b in combinations(group, 2):
            if a.line <= b.line <= following[(a.function, a.line)] and a.index != b.index:
                found.append((a, b))
    return found[:MAX_TWINS]


def moved_layers(singles: list[Change]) -> list[tuple[Change, Change]]:
    """A layer applied to another value: left out where the reference applies it, and applied to
    another layer's output (proj on the values, not on the merged heads)."""
    left_out = [c for c in singles if c.op == "unlayer"]
    return [(a, b) for b in singles if b.op == "layer_on" for a in left_out
            if a.function == b.function and a.arg == b.arg]


def next_lines(singles: list[Change]) -> dict[tuple[str, int], int]:
    """{(function, line): the line of the next statement with a change in that function} (a
    comment between two steps is no step), its own line for the last; made once per diagnosis."""
    lines: dict[str, list[int]] = {}
    for c in singles:
        lines.setdefault(c.function, []).append(c.line)
    following = {}
    for function, found in lines.items():
        ordered = sorted(set(found))
        following.update({(function, a): b for a, b in zip(ordered, ordered[1:] + ordered[-1:])})
    return following
