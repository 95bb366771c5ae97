"""Where a learner's function changed one of its inputs in place: the line of the learner's file,
and what on that line writes into a tensor it was given.

"Your function changed its input in place" tells a learner what happened, not where. So, when a
call changed an input, it is made again on fresh copies of the inputs while a tracer watches the
learner's own frames (as first_nan.py does for a nan); after each line a frame runs, the inputs
are compared with copies kept aside, and the first line after which one differs is the line that
changed it. A line that writes into a tensor it was handed says so by its form or by a call's
keyword, and each such form has its own words:

- `max_norm=` in an embedding lookup: rows over the norm are scaled down inside the weight itself;
- `inplace=True` or `out=`: the result written into a tensor given;
- a call whose name ends in `_` (`x.mul_(2)`, `F.relu_(x)`): it writes into its tensor;
- `x += ...` and the other augmented assignments on a tensor: into the tensor `x` names;
- an assignment into entries (`x[...] = ...`): into that tensor.

calls.py asks `first_change` after a quick call that changed an input; case_verdict.py says it.
Left out: an input changed by a helper of another file (torch's own code runs between two of the
learner's lines, and the line that called it is named).
"""

from __future__ import annotations

import linecache
import re
import sys
from collections.abc import Callable
from pathlib import Path

from attention_by_hand.lab.code_layout import code_only
from attention_by_hand.lab.wire import MAX_TEXT

__all__ = ["change_made", "first_change", "writes_into"]

# (what on the line writes in place, its words); the first that the line holds is said. A keyword is
# matched only inside a call's brackets (`out = x.mul_(2)` assigns a name `out`, it gives no `out=`).
_FORMS = (
    (re.compile(r"[(,]\s*max_norm\s*=(?!=)"), "`max_norm=` rescales every looked-up row whose norm is over it, inside the weight "
                                    "itself, as well as in the rows it returns"),
    (re.compile(r"[(,]\s*inplace\s*=\s*True\b"), "`inplace=True` writes the result into the tensor it is given"),
    (re.compile(r"[(,]\s*out\s*=(?!=)"), "`out=` writes the result into the tensor it names"),
    (re.compile(r"\.(?P<name>[a-z][a-z0-9_]*[a-z0-9]_)\s*\("), "`{name}`, with its trailing underscore, works in place: it "
                                                              "writes into its tensor{twin}"),
    (re.compile(r"^(?P<name>[A-Za-z_][\w.]*)\s*(?P<op>[-+*/@%]|//|\*\*)=(?!=)"),
     "`{name} {op}= ...` writes into the tensor `{name}` names, the caller's own; `{name} = {name} {op} ...` makes a new one"),
    (re.compile(r"^(?P<name>[A-Za-z_][\w.]*)\[[^=]*\]\s*=(?!=)"),
     "assigning into `{name}[...]` writes into that tensor, the caller's own; write into a copy made by `.clone()`"),
)


def writes_into(code: str) -> str:
    """The words for what on the line `code` writes into a tensor in place; "" when nothing on it does."""
    for pattern, words in _FORMS:
        found = pattern.search(code.strip())
        if found:
            named = found.groupdict()
            if "name" in named and named["name"].endswith("_") and "op" not in named:
                named["twin"] = _twin(named["name"][:-1])
            return words.format(**named)
    return ""


def _twin(bare: str) -> str:
    """"; `mul` makes a new one" where a tensor's method of that name does (no `zero`, `copy` or
    `uniform` does; `resize` is deprecated, and warns)."""
    import torch

    return f"; `{bare}` makes a new one" if callable(getattr(torch.Tensor, bare, None)) and bare != "resize" else ""


def first_change(call: Callable[[], object], changed: Callable[[], bool], learner: Path) -> tuple[int, str] | None:
    """(line, text): the first line of the learner's file after which `changed()` holds (an input no
    longer as it came), and the line's code; None when no line of the file was running then."""
    learner = learner.resolve()
    files: dict[str, bool] = {}  # filename -> whether it is the learner's (resolved once each)
    last: dict = {}  # frame -> the line it is running (the frame itself as the key: an id may be reused)
    found: list[int] = []

    def mine(code) -> bool:
        if code.co_filename not in files:
            files[code.co_filename] = Path(code.co_filename).resolve() == learner
        return files[code.co_filename]

    def local(frame, event, arg):
        if found:
            return None
        if event in ("line", "return"):
            if frame in last and changed():  # changed by the line the frame just ran
                found.append(last[frame])
                return None
            last[frame] = frame.f_lineno
        return local

    def tracer(frame, event, arg):
        if found or event != "call" or not mine(frame.f_code):
            return None
        # a helper of the learner's called: its arguments were made on the caller's line
        # (`helper(x.mul_(2))`), so a change seen now is that line's
        caller = frame.f_back
        if caller in last and changed():
            found.append(caller.f_lineno)
            return None
        return local

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    except Exception:  # noqa: BLE001 - the call was made once already; this run only looks
        pass
    finally:
        sys.settrace(previous)
    if not found:
        return None
    return found[0], code_only(linecache.getline(str(learner), found[0]))[:MAX_TEXT]


def change_made(function: Callable, fresh: Callable[[], list], positions: list[int], same: Callable[[object, object], bool],
                learner: Path) -> tuple[int, str] | None:
    """Where `function` changed its arguments at `positions` (first_change), made again on `fresh()`
    arguments, the same seed first; `same(before, after)` says whether an argument is unchanged.
    Traced once per function and positions in a process (a traced call runs several times slower):
    a later call that changes the same inputs is said at the line the first one found."""
    import torch

    key = (function, tuple(positions))
    if key in _FOUND:
        return _FOUND[key]
    args, kept = fresh(), fresh()

    def again():
        torch.manual_seed(0)
        with torch.no_grad():
            function(*args)

    _FOUND[key] = first_change(again, lambda: not all(same(kept[i], args[i]) for i in positions), learner)
    return _FOUND[key]


_FOUND: dict = {}  # (function, positions) -> its line, for change_made

