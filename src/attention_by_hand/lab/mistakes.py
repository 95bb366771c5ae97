"""The mistakes `lab check` recognises, lab by lab and function by function: the checker's own
catalogue, shipped as mistakes.json for the site's instructor page (sphinxext/instructor.py).

Working it out asks each check's judge, on every case of the check, about an output that is
wrong on purpose (the reference's own, moved off by 0.5, one part of a pair at a time): the Miss
it returns carries what the judge compared against (`Miss.tried`), every known mistake that can
be made on that input, with the numbers of that input. A mistake that changes nothing on an input
(`Miss.moot`: ignoring the `base` argument when the default was passed) is not listed from it, so
no hint is printed with numbers that contradict it. That takes torch and seconds, too slow for
every site build, so the result ships with the package and a test checks that it is current.
`python -m attention_by_hand.lab.mistakes` writes it again.

Left out: how often learners make each mistake (a room check counts them: room.py); the hints for
an error raised (explain_error); the mistakes the mutation engine finds (diagnosis.py), which no
list holds; mistakes the judges try in combination ("a; b"), whose parts are listed on their own.
"""

from __future__ import annotations

import json
import re
import sys
from importlib import resources
from pathlib import Path

from attention_by_hand.run.atomic import write_atomic

__all__ = ["CATALOGUE", "known_mistakes", "catalogue", "shipped_mistakes"]

CATALOGUE = "mistakes.json"  # beside this module


def _shape(hint: str) -> str:
    return re.sub(r"\d+", "#", hint)  # sqrt(4) and sqrt(3) name the same mistake


def _combined(hint: str, hints: list[str]) -> bool:
    """Whether `hint` is other hints joined by "; ": the judges also try mistakes together."""
    for other in hints:
        rest = hint[len(other) + 2 :]
        if other != hint and hint.startswith(other + "; ") and (rest in hints or _combined(rest, hints)):
            return True
    return False


def _off(value):
    """Outputs wrong on purpose, each in one part: a tensor moved by 0.5 (a mask flipped), a pair
    with one part moved at a time."""
    import torch

    if isinstance(value, torch.Tensor):
        yield ~value if value.dtype == torch.bool else value + (0.5 if value.is_floating_point() else 1)
    elif isinstance(value, (tuple, list)):
        for i, part in enumerate(value):
            for moved in _off(part):
                yield type(value)(moved if j == i else other for j, other in enumerate(value))


def known_mistakes(number: int) -> dict[str, list[str]]:
    """{function: [hint, ...]} for lab `number`, in the order of its checks. A hint that differs
    from an earlier one only in its numbers (sqrt(4) vs sqrt(3)) is listed once."""
    import torch

    from attention_by_hand.lab.judging import Miss
    from attention_by_hand.lab.registry import checks_for, get_lab, reference_path
    from attention_by_hand.lab.verdict import load_reference

    reference = load_reference(reference_path(get_lab(str(number))))
    found: dict[str, list[str]] = {}
    with torch.no_grad():
        for check in checks_for(number):
            hints = found.setdefault(check.function, [])
            shapes = {_shape(h) for h in hints}
            for args in check.cases:
                expected = getattr(reference, check.function)(*args)
                for wrong in _off(expected):
                    miss = check.judge(wrong, expected, args)
                    for hint in miss.tried if isinstance(miss, Miss) else ():
                        if hint not in miss.moot and _shape(hint) not in shapes:
                            hints.append(hint)
                            shapes.add(_shape(hint))
    return {function: [h for h in hints if not _combined(h, hints)] for function, hints in found.items()}


def catalogue() -> dict:
    from attention_by_hand.lab.registry import LABS

    return {"format": 1, "labs": {str(lab.number): known_mistakes(lab.number) for lab in LABS}}


def shipped_mistakes() -> dict[int, dict[str, tuple[str, ...]]]:
    """The shipped catalogue, read without torch: {lab number: {function: (hint, ...)}}."""
    labs = json.loads((resources.files("attention_by_hand.lab") / CATALOGUE).read_text(encoding="utf-8"))["labs"]
    return {int(n): {f: tuple(h) for f, h in functions.items()} for n, functions in labs.items()}


def main() -> int:
    path = Path(str(resources.files("attention_by_hand.lab") / CATALOGUE))
    write_atomic(path, (json.dumps(catalogue(), indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
