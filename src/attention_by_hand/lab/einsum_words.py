"""einsum's subscripts in words: what a learner's spelling did that the mended one does not.

A mend of einsum's subscripts (mend_changes.py, `subscripts`) is a fact in code, `"ij,jd->id"` for
`"ij,jd->jd"`; here it is said as what the letters mean: an operand read transposed (its letters
swapped), an axis not matched one to one (a letter where it should share another operand's), the
output's axes in another order, or a letter the output keeps where another is summed over; and
subscripts written without `->`, whose output einsum spells in alphabetical order (`explicit`).

Left out: which spelling mends (repair.py) and every other mend's words (mend_words.py).
"""

from __future__ import annotations

__all__ = ["explicit", "subscripts_words"]


def explicit(spec: str) -> str:
    """einsum's subscripts with the output written out: without `->`, einsum keeps the letters that occur
    once, in ALPHABETICAL order (`"htd"` is `"htd->dht"`); with `...` or an arrow, `spec` itself."""
    if "->" in spec or "." in spec:
        return spec
    return f"{spec.replace(' ', '')}->{''.join(sorted(_once(spec)))}"


def _once(spec: str) -> str:
    """The letters of subscripts written without `->` that occur once, in the order written."""
    letters = spec.replace(" ", "")
    return "".join(c for c in letters if c.isalpha() and letters.count(c) == 1)


def subscripts_words(spec: str, mended: str) -> str:
    """What einsum's subscripts `spec` did that `mended` does not, in words."""
    alphabetical = explicit(spec).split("->")[1]
    if ("->" not in spec and explicit(spec).split("->")[0] == mended.split("->")[0] and _once(spec) != alphabetical
            and sorted(mended.split("->")[1]) == sorted(alphabetical)):
        return (f"einsum without `->` keeps the output's letters in ALPHABETICAL order, `\"{explicit(spec)}\"`, whatever "
                f"order they are written in; an arrow names the order meant, `\"{mended}\"`")
    spec = explicit(spec)
    (inputs, output), (new_inputs, new_output) = spec.replace(" ", "").split("->"), mended.split("->")
    changed = [(k, a, b) for k, (a, b) in enumerate(zip(inputs.split(","), new_inputs.split(","))) if a != b]
    if len(changed) >= 2 and all(sorted(a) == sorted(b) for _, a, b in changed):
        places = [i + 1 for i, (x, y) in enumerate(zip(changed[0][1], changed[0][2])) if x != y]
        which = ", ".join(str(k + 1) for k, _, _ in changed[:-1]) + f" and {changed[-1][0] + 1}"
        read = (f"letters {places[0]} and {places[1]} exchanged in each, a layout read as another library keeps it"
                if len(changed[0][1]) >= 3 else "each read transposed")
        return (f"einsum reads operands {which} as {', '.join(f'`{a}`' for _, a, _ in changed)} where "
                f"{', '.join(f'`{b}`' for _, _, b in changed)} are meant: {read}")
    if inputs != new_inputs:
        k, old, new = next((k, a, b) for k, (a, b) in enumerate(zip(inputs.split(","), new_inputs.split(","))) if a != b)
        if sorted(old) == sorted(new):
            return (f"einsum reads operand {k + 1} as `{old}` where `{new}` is meant: the same letters swapped, "
                    "so that operand is read transposed")
        mine, meant = next((a, b) for a, b in zip(old, new) if a != b)
        summed = f", and `{mine}`, which the output leaves out, is summed over" if mine not in output else ""
        return (f"einsum's operand {k + 1} is `{old}` where `{new}` is meant: its axis `{mine}` is a different "
                f"axis from the others' `{meant}`, so the two are not matched one to one{summed}")
    if sorted(output) == sorted(new_output):
        return (f"einsum's output letters in another order: `->{output}` where `->{new_output}` is meant (the result's "
                "axes come out in the order the output names them)")
    kept = "".join(c for c in output if c not in new_output)
    meant = "".join(c for c in new_output if c not in output)
    if not kept:  # the output gains a letter it left out (`"ij,ij->"` for `"ij,ij->i"`)
        return f"einsum's output leaves out `{meant}`, so yours sums over it; `->{new_output}` keeps it"
    if any(c not in inputs for c in kept):  # a letter no operand has: einsum raises, it sums nothing
        return f"einsum's output names `{kept}`, a letter no operand has, where `{meant}` is meant"
    return (f"einsum's output keeps `{kept}` where `{meant}` belongs: every letter the output leaves out is summed "
            f"over, so yours sums over `{meant}`")
