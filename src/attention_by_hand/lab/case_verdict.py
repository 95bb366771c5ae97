"""What one call of a learner's function, as the child reported it, says under one check: nothing
(it passed), a hint (it raised, or changed its inputs in place), or the check's own Miss (its
output judged wrong), before the engine (verdict.py) adds what the outputs show.

Left out: running the calls (calls.py), the judges themselves (judging.py, each lab's checks.py).
"""

from __future__ import annotations

import inspect
from types import ModuleType

from attention_by_hand.lab.changed_where import writes_into
from attention_by_hand.lab.fatal_words import at_line
from attention_by_hand.lab.judging import Check, Miss, hint_for_exception
from attention_by_hand.lab.wire import decode

__all__ = ["case_verdict", "changed_inputs"]


def case_verdict(check: Check, args: tuple, event: dict, reference: ModuleType, line_name) -> Miss | str | None:
    """None when this call passed, else a Miss or a hint. A judge that fails is reported, not raised."""
    import torch

    if event["event"] == "raised":
        if event["type"] == "NotImplementedError" and event.get("own_raise", True):
            # The function checked may be written and call one that is not: name the one to write.
            other = event.get("function")
            who = f"{other}() is " if other and other != check.function else ""
            return f"{who}not written yet: {event['message']}"
        where = f" ({at_line(event.get('line'), line_name)[2:]})" if event.get("line") else ""
        known = check.explain_error(event["type"], event["message"], args, event.get("shapes", {})) if check.explain_error else None
        said = f": {known}" if known else hint_for_exception(event["type"], event["message"])
        seen = f"; {event['line_words']}" if isinstance(event.get("line_words"), str) else ""
        whole = event["message"]  # torch's list of a call's forms, where its words are said: its first line
        message = whole.split("\n", 1)[0] + " ..." if "invalid combination of arguments" in whole and said.startswith(" (") else whole
        return f"raised {event['type']}: {message}{where}{said}{seen}"
    if event.get("changed"):
        return changed_inputs(getattr(reference, check.function), event["changed"], event.get("changed_at"), line_name)
    try:
        with torch.no_grad():
            expected = getattr(reference, check.function)(*args)
            return check.judge(decode(event["value"]), expected, args)
    except Exception as error:  # noqa: BLE001 - the checker never crashes on a learner's output
        return f"the checker could not judge this output ({type(error).__name__}: {error}); please report it"


def changed_inputs(function, positions: list[int], at: list | None = None, line_name=None) -> str:
    """The hint for a call that modified its arguments in place, named as the reference names them.

    Reported before the output is judged: a function that zeroes x and then computes from it
    gives a wrong output whose cause is the change, and the right output does not excuse it.
    at: [line, code], the learner's line after which an input first differed (changed_where.py).
    """
    names = list(inspect.signature(function).parameters)
    changed = [names[i] if i < len(names) else f"argument {i + 1}" for i in positions]
    inputs, it = ("inputs", "them") if len(changed) > 1 else ("input", "it")
    said = f"your function changed its {inputs} {' and '.join(changed)} in place"
    if at:
        words = writes_into(at[1])
        where = at_line(at[0], line_name)[2:]
        said += f" ({where}: `{at[1]}`)" + (f": {words}" if words else "")
        if words:
            return f"{said}; its caller still needs {it}"
    return f"{said}; its caller still needs {it}: compute new tensors (y = x * 2), not x.mul_(2), x *= 2 or x[...] = ..."
