"""Facts about a learner's call that its output's numbers cannot show: parts of what it returns
that are one tensor under two names, and the warnings PyTorch gave while it ran (and, said with
them, the Python pitfalls of its code that pitfalls.py finds).

`dq = dk = torch.zeros_like(q)` makes ONE tensor with two names: whatever is added to dq is
added to dk, and both come back as the same sum. Compared number by number, that is only "dq is
wrong, dk is wrong"; the child process (calls.py) still holds the tensors and can see that they
share their memory, which says the mistake itself. Likewise PyTorch warns where a call does
something other than what it seems to (`.T` on a tensor of three axes reverses all three; a
softmax without `dim=` picks an axis by itself); the warning is lost with the child's stderr
unless it is kept with the call's result.

The child records both (`shared_parts`, `recording`); the parent says them (`say_shared`,
`say_warned`), first in a failed check's hint, since they are facts about the learner's code,
not guesses.

Left out: aliasing between a returned tensor and an argument (calls.py's in-place test covers
what matters of that), and warnings raised from lines outside the learner's file.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from pathlib import Path

__all__ = ["shared_parts", "recording", "say_shared", "say_warned", "with_notes", "MAX_WARNINGS"]

MAX_WARNINGS = 2  # distinct warnings kept per call: the first say the most
MAX_SEEN = 100  # warnings looked at per call; after them, Python's own rule (once per line)
WARNING_TEXT = 160  # characters of a warning's message kept


def _place(value):
    """Where a tensor's numbers live, to the element: two parts at one place are one tensor (two
    views of one storage at different offsets, such as the pieces of a split, are not)."""
    import torch

    if not isinstance(value, torch.Tensor) or value.numel() == 0:
        return None
    return (value.untyped_storage().data_ptr(), value.storage_offset(), tuple(value.shape), value.stride())


def shared_parts(value) -> list[list[int]]:
    """[[i, j], ...]: the parts of a returned tuple or list (i < j) that are one tensor."""
    if not isinstance(value, (tuple, list)):
        return []
    where = [_place(part) for part in value]
    return [[i, j] for i in range(len(where)) for j in range(i + 1, len(where))
            if where[i] is not None and where[i] == where[j]]


@contextmanager
def recording(learner: Path):
    """Collects the warnings raised from the learner's own lines while the block runs, as
    [[line, message], ...] in the list it yields (each distinct one once, at most MAX_WARNINGS)."""
    import torch

    kept: list[list] = []
    learner = Path(learner).resolve()
    ours: dict[str, bool] = {}  # file name -> whether it is the learner's, resolved once
    seen = [0]

    def note(message, category, filename, lineno, file=None, line=None):
        seen[0] += 1
        if seen[0] > MAX_SEEN:  # a warning in a hot loop: the rest go by Python's usual rule
            warnings.simplefilter("default")
        if filename not in ours:
            try:
                ours[filename] = Path(filename).resolve() == learner
            except (OSError, ValueError):
                ours[filename] = False
        text = str(message).split(". ")[0][:WARNING_TEXT]
        # torch names the line that called it (its stack level), so a warning from the
        # learner's line is one its code caused; one the learner raised itself is kept too
        if ours[filename] and [lineno, text] not in kept and len(kept) < MAX_WARNINGS:
            kept.append([lineno, text])

    always = torch.is_warn_always_enabled()
    with warnings.catch_warnings():  # restores the filters and showwarning as they were
        warnings.simplefilter("always")  # each call's own warnings, not only the first call's
        warnings.showwarning = note
        torch.set_warn_always(True)  # a warning torch's C++ gives once per process: on every call
        try:
            yield kept
        finally:
            torch.set_warn_always(always)


def say_shared(pairs, reference_pairs) -> str | None:
    """The words for parts that are one tensor, when the reference's parts are not."""
    pairs = [tuple(p) for p in pairs if isinstance(p, (list, tuple)) and len(p) == 2
             and all(type(i) is int for i in p) and tuple(p) not in {tuple(r) for r in reference_pairs}]
    if not pairs:
        return None
    i, j = pairs[0]
    return (f"parts {i + 1} and {j + 1} of what you return are one tensor under two names (they share "
            f"their memory): whatever is written into one is written into the other, as after "
            f"`a = b = torch.zeros(...)`, where the reference makes two")


def say_warned(warned, line_name=None) -> str | None:
    """PyTorch's warnings from the learner's lines, as it gave them (its first sentence)."""
    said = []
    for item in warned or []:
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and type(item[0]) is int and isinstance(item[1], str)):
            continue
        at = line_name(item[0]) if line_name else f"line {item[0]}"
        said.append(f"PyTorch warned at {at}: \"{item[1]}\"")
    return "; ".join(said) or None


def with_notes(hint: str, made: list[tuple[dict, tuple]], reference, line_name=None, pitfalls=None) -> str:
    """A failed check's hint with these facts before it, from the events of the check's own calls,
    each with its arguments;
    `reference` is the reference's function, called only where the learner's parts are shared;
    pitfalls: the child's [[line, words, lines]] of pitfalls.py for the function."""
    at = line_name or (lambda line: f"line {line}")
    said: list[str] = [words.format(*(at(n) for n in lines)) for words, lines in _pitfalls(pitfalls)]
    for event, args in made:
        if event.get("shared") and not any(s.startswith("parts ") for s in said):
            import torch

            try:
                with torch.no_grad():
                    theirs = shared_parts(reference(*args))
            except Exception:  # noqa: BLE001 - a note only adds to a hint; it never breaks a check
                continue
            said.append(say_shared(event["shared"], theirs) or "")
        warned = say_warned(event.get("warned"), line_name)
        if warned and warned not in said:
            said.append(warned)
    said = [s for s in said if s]
    return "; ".join(said + [hint]) if said else hint


def _pitfalls(found) -> list[tuple[str, list[int]]]:
    """(words, lines) of the child's [[line, words, lines]] that have that form (anything else,
    or words that do not fit their lines, is left out)."""
    kept = []
    for item in found or []:
        if not (isinstance(item, (list, tuple)) and len(item) == 3 and isinstance(item[1], str) and isinstance(item[2], list)
                and all(type(n) is int for n in item[2])):
            continue
        try:
            item[1].format(*item[2])
        except (IndexError, KeyError, ValueError):
            continue
        kept.append((item[1], item[2]))
    return kept[:MAX_WARNINGS]
