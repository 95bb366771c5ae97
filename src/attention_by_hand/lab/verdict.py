"""From what a learner's functions did to the report: one line per check, and why a run stopped.

The calls to make come from the lab's checks (`plan`); what happened to each comes back as events
(calls.py); `check_run` turns them into a `CheckRun`. A check calls its function on several inputs
and fails when one fails. Its hint is the known mistake that explains EVERY input that failed, so
that no input's coincidence (on a single token, hiding the diagonal looks like an inverted mask) can
name a mistake the other inputs rule out, and that no input of the function's other checks rules out
(`Miss.tried`: it could be made there and did not give the learner's output), nor any input where
its output was right (combining.py). When no hand-written hint is left, the mutation engine
(diagnosis.py) is asked, once per function, on every input that function was called on (its checks'
cases and probes); when it finds nothing, the hint says what the first failing input showed, and
where the probes show the error. A check that raised on some inputs and gave wrong outputs on others
gets only the mend of the learner's own code (repair.py), which holds on both. `check_in_process` does the same in this process, for a module
already imported (the tests' fixtures, where the child is not what is tested).

Left out: running the file (runner.py, child.py); the comparisons and the labs' checks
(judging.py, each lab's checks.py); the mutants themselves (mutants.py, relations.py).
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from attention_by_hand.lab.api_mends import CAUSE_OPS
from attention_by_hand.lab.combining import combine, ruled_out_where_right
from attention_by_hand.lab.calls import call_all, missing_functions
from attention_by_hand.lab.case_verdict import case_verdict
from attention_by_hand.lab.engine import Engine
from attention_by_hand.lab.judging import Check, Miss, Probe
from attention_by_hand.lab.layout_mends import LAYOUT_OPS
from attention_by_hand.lab.mend_words import WRONG_AXIS
from attention_by_hand.lab.fatal_words import fatal_message
from attention_by_hand.lab.helped import helped_words
from attention_by_hand.lab.learner_notes import with_notes
from attention_by_hand.lab.registry import Lab, checks_for, get_lab, load_reference, reference_path
from attention_by_hand.lab.wire import encode

# mends said after a catalogued mistake's effect: those that name a cause no change of the reference
# says, a function put for its mirror (`hstack` for `vstack`), which names the call the effect came from,
# two arguments of one call exchanged (`pow(exponent, base)` under "nothing is rotated"), and the
# mends that say where an axis or a sum went (the built-in `sum(e)` under "the wrong axis", a tensor
# walked or unpacked along its first axis, an index's `None` moved, a transpose before a reshape, a
# `:=` given the whole sum), einsum's letters spelled otherwise (two operands' axes summed apart),
# positions counted from 1 (R's `1:T`, under "the diagonal is not 0"), a comparison given the axis
# it lacked (`kj > qi.unsqueeze(-1)` under "the diagonal block is not masked"), and Python's `is not`
# made `!=` (under "the head was not removed")
SAID_AFTER_EFFECT = (*CAUSE_OPS, "rename", "args", "walk_last", "unpack_axis", "builtin_sum", "named_whole", "subscripts",
                     "one_based_range", "outer", "identity_compared", *LAYOUT_OPS)

__all__ = ["CheckResult", "CheckRun", "Ending", "Plan", "plan", "check_run", "check_in_process", "load_reference", "report_lines"]


def _said_after_effect(event: dict, effect: str) -> bool:
    """Whether a mend is said after a catalogued mistake's `effect`: its op is one of SAID_AFTER_EFFECT,
    or it puts one axis's number for another where the effect speaks of axes, a shape or a transpose
    (`mean(dim=-2)` for `mean(dim=-1)` under "averaged over the wrong axes"), or takes a call away where it
    does (`torch.stack(...)` for `torch.stack(...).transpose(0, 1)`): an axis mended under "the mask is on the
    wrong side" (`cumsum(-2)` for `cumsum(1)`) may mend by another road than the slip made."""
    axes = re.search(r"\bax[ie]s\b|shape|transpose", effect) is not None
    axis = event.get("op") == "const" and event.get("words") == WRONG_AXIS and axes
    # a call taken away (a transpose too many) where the effect is of axes: the effect's own words may read as one missing
    return event.get("op") in SAID_AFTER_EFFECT or axis or (event.get("op") == "unwrap" and axes)


@dataclass(frozen=True)
class CheckResult:
    """One reported check: its label, and None when it passed or the hint when it failed."""

    label: str
    hint: str | None
    mistake: str | None = None  # the known mistake the hint names, if it names one (combining.kind of it)
    mended: str | None = None  # else the mistake a mend of the learner's code says, in words (repair.py)
    through: tuple[str, ...] = ()  # else the learner's checked functions it is wrong only through (helped.py)

    @property
    def passed(self) -> bool:
        return self.hint is None


@dataclass
class CheckRun:
    """Everything one `lab check` found. `failure` is set when the file could not be checked."""

    results: list[CheckResult] = field(default_factory=list)
    failure: str | None = None
    ending: Ending | None = None  # how the child ended, when the file ran in one (runner.py)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    @property
    def exit_code(self) -> int:
        """0 all passed, 1 some failed, 2 the file could not be checked."""
        if self.failure:
            return 2
        return 0 if self.failed == 0 else 1


@dataclass(frozen=True)
class Plan:
    """The checks of a lab, every (check, args) call in order, and the request the child reads.

    probes: the checks' probe inputs, called after every case (ids from len(calls) on), never judged.
    """

    checks: list[Check]
    calls: list[tuple[Check, tuple]]
    request: bytes
    probes: list[tuple[Check, Probe]] = field(default_factory=list)


@dataclass(frozen=True)
class Ending:
    """How the child process ended, and the limits it ran under."""

    timed_out: bool
    overflowed: bool
    returncode: int | None
    last_output: str
    timeout: float
    memory_mb: int
    output_limit: int
    started: bool = True  # False: it never got ready (Python and torch did not start in time)
    printed: int = 0  # bytes of output read from it, up to where it was stopped


def plan(number: int, seed: int) -> Plan:
    checks = checks_for(number, seed)
    calls = [(check, args) for check in checks for args in check.cases]
    probes = [(check, probe) for check in checks for probe in check.probes]
    every = calls + [(check, probe.args) for check, probe in probes]
    request = {
        "functions": sorted({check.function for check in checks}),
        # the child runs the reference beside the learner's function to find where they part (blame.py)
        "reference": str(reference_path(get_lab(str(number)))),
        "calls": [
            {"id": i, "function": check.function, "args": [encode(a) for a in args]}
            for i, (check, args) in enumerate(every)
        ],
    }
    return Plan(checks, calls, json.dumps(request).encode("utf-8"), probes)


def check_run(
    events: list[dict],
    the_plan: Plan,
    reference: ModuleType,
    ending: Ending | None = None,
    line_name: Callable[[int], str] | None = None,
    engine: bool = True,
) -> CheckRun:
    """The events of a run, and the way its process ended (None: in this process) -> the report.

    engine: ask the mutation engine (diagnosis.py) when the hand-written judges name nothing
    (off only to measure what the hand-written hints alone name: benchmarks/hints.py).
    """
    import torch

    # Every judge, variant and mutant call here is on a tensor of a few dozen numbers: a second
    # thread costs more than it brings (a 5 x 5 triu took 0.8 ms on two threads, 10 us on one).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _check_run(events, the_plan, reference, ending, line_name, engine)
    finally:
        torch.set_num_threads(threads)


def _check_run(events, the_plan: Plan, reference: ModuleType, ending: Ending | None, line_name, engine: bool) -> CheckRun:
    calls = the_plan.calls
    by_id = {e["id"]: e for e in events if e.get("event") in ("result", "raised")}
    started = [e["id"] for e in events if e.get("event") == "start"]
    running = started[-1] if started and started[-1] not in by_id else None
    if running is not None:
        check, _ = calls[running] if running < len(calls) else the_plan.probes[running - len(calls)]
        where = f"in {check.function}() on {check.label}"
    else:
        where = "while importing the file" if not started else "after the last call"

    run = CheckRun(ending=ending)
    # Every check whose calls all came back, in order, up to the first that did not.
    judged: list[tuple[Check, list[int], list]] = []
    for check in the_plan.checks:
        ids = [i for i, (c, _) in enumerate(calls) if c is check]
        if not all(i in by_id for i in ids):
            break
        judged.append((check, ids, [case_verdict(check, calls[i][1], by_id[i], reference, line_name) for i in ids]))
    repairs = {e["function"]: e for e in events if e.get("event") == "repair" and isinstance(e.get("function"), str)}
    mutants = Engine(the_plan, by_id, judged, reference, line_name, repairs)
    pitfalls = {e.get("function"): e.get("found") for e in events if e.get("event") == "pitfalls"}
    mutants.unused = {e["function"]: (e.get("arguments"), e.get("tried"), e.get("random") is True) for e in events
                      if e.get("event") == "unused" and isinstance(e.get("function"), str)}
    # the outputs that were right rule out the known mistakes that would have changed them, for
    # the functions where a judge named one
    naming = {c.function for c, _, vs in judged if any(isinstance(v, Miss) and v.explanations for v in vs)}
    right: dict[str, frozenset[str]] = {}
    for check, ids, verdicts in judged:
        if check.function in naming:
            for i, verdict in zip(ids, verdicts):
                if verdict is None and by_id[i].get("event") == "result":
                    right[check.function] = right.get(check.function, frozenset()) | ruled_out_where_right(
                        check, calls[i][1], reference)
    combined = []
    for check, ids, verdicts in judged:
        others = [v for c, _, vs in judged if c.function == check.function and c is not check for v in vs]
        combined.append((check, verdicts, *combine(verdicts, others, right.get(check.function, frozenset()))))
    # A function whose mistake a hand-written hint named is not diagnosed again on its other
    # checks: the engine may say the same mistake in other words, and the room would count it twice.
    # So is one that calls it (matmul_by_loops raising where the dot it calls is wrong).
    named_by_hand = {check.function for check, _, _, mistake in combined if mistake is not None}
    mutants.failed = {check.function for check, _, hint, _ in combined if hint is not None}
    # a function named by hand that raised on another check: the one mend of its own code that holds on
    # every input, where it raised and where the named effect showed, is that mistake's cause in its code
    # (where two mend, one may by another road: neither is said)
    raised_in = {check.function for check, _, hint, _ in combined if hint is not None and hint.startswith("raised ")
                 and (event := mutants.repairs.get(check.function)) and not event.get("other")}
    helped = {e["function"]: tuple(e["helpers"]) for e in events if e.get("event") == "helped" and isinstance(e.get("function"), str)
              and isinstance(e.get("helpers"), list) and all(isinstance(h, str) for h in e["helpers"])}
    for (check, verdicts, hint, mistake), (_, ids, _) in zip(combined, judged):
        # a helper not written yet is said so already (case_verdict.py), in plainer words
        mended, through = None, helped.get(check.function, ()) if hint is not None and "not written yet" not in hint else ()
        if through and set(through) <= mutants.failed:  # its own code is right: the hint says where the mistake is
            run.results.append(CheckResult(f"{check.function}: {check.label}", helped_words(check.function, list(through)), through=through))
            continue
        ask = hint is not None and mistake is None and engine and not (mutants.reaches(check.function) & named_by_hand)
        if ask and Engine.may_diagnose(check, verdicts):
            hint, mistake, mended = mutants.hint(check, hint)
        elif ask and hint.startswith("raised "):
            hint, mistake, mended = mutants.after_error(check, hint)
        elif (mistake is not None and mutants.repairs.get(check.function)
              and (mutants.zeroed(ids, verdicts) or mutants.overflowed(ids, verdicts))
              and (first := next((v for v in verdicts if isinstance(v, Miss)), None)) is not None):
            # a known mistake whose output is all zeros fits any code that zeroes it (a band cut empty),
            # and one that overflows any code that overflows (one row's maximum used for all):
            # what was observed, and the mend of the learner's own code, which holds on every input
            said, mended = mutants.mended(check.function)
            hint, mistake = f"{first.prefix}{first.observed}; {said}", None
        elif mistake is not None and mutants.repairs.get(check.function) and (
                check.function in raised_in or _said_after_effect(mutants.repairs[check.function], hint)):
            said, mended = mutants.mended(check.function)  # the catalogue's effect, the code's cause
            hint = f"{hint}; in your code, {said}"
        elif mistake is None and hint is not None and hint.startswith("raised ") and check.function in named_by_hand & raised_in:
            # the error, and the mend said where the effect was named
            said, mended = mutants.mended(check.function)
            hint = f"{hint}; {said}" if said else hint
        elif ask and any(isinstance(v, str) and v.startswith("raised ") for v in verdicts):
            # a wrong output said, where another of its calls raised: the mend alone, which holds on both
            said, mended = mutants.mended(check.function)
            hint = f"{hint}; {said}" if said else hint
        if hint is not None:  # what the child saw of the learner's code, first (learner_notes.py)
            made = [(by_id[i], calls[i][1]) for i in ids]  # this check's own calls: what holds on its inputs
            hint = with_notes(hint, made, getattr(reference, check.function), line_name, pitfalls.get(check.function))
        run.results.append(CheckResult(f"{check.function}: {check.label}", hint, mistake, mended))

    fatal = next((e for e in events if e.get("event") == "fatal"), None)
    done = any(e.get("event") == "done" for e in events)
    memory_mb = ending.memory_mb if ending else 0
    if ending and ending.overflowed:
        mb = ending.output_limit // (1024 * 1024)
        run.failure = f"printed more than {mb} MB {where} (a print inside a loop?); stopped"
    elif ending and ending.timed_out and not ending.started:
        run.failure = "the checker's own process did not start in time (starting Python and torch); is the machine very busy?"
    elif ending and ending.timed_out:
        run.failure = f"time limit: still running after {ending.timeout:g} s {where} (a loop that never ends?)"
    elif fatal:
        run.failure = fatal_message(fatal, where, memory_mb, line_name)
    elif not done and ending:
        if ending.returncode is not None and ending.returncode < 0:
            try:
                name = signal.Signals(-ending.returncode).name
            except ValueError:
                name = str(-ending.returncode)
            run.failure = f"stopped by signal {name} {where}" + (" (out of memory?)" if name == "SIGKILL" else "")
        else:
            tail = f": {ending.last_output}" if ending.last_output else ""
            run.failure = f"stopped early (exit code {ending.returncode}) {where}{tail}"
    return run


def check_in_process(
    module: ModuleType, lab: Lab, seed: int = 0, reference: ModuleType | None = None, engine: bool = True
) -> CheckRun:
    """Check an imported module in this process: the same calls and verdicts as `lab check`,
    without the child process, its limits or its protection (for files that are trusted)."""
    the_plan = plan(lab.number, seed)
    reference = reference or load_reference(reference_path(lab))
    events: list[dict] = []
    request = json.loads(the_plan.request)
    missing = missing_functions(module, request["functions"])
    if missing:
        events.append({"event": "fatal", "reason": "missing", "names": missing})
    else:
        call_all(module, request["calls"], Path(module.__file__).resolve(), lambda **e: events.append(e), reference=reference)
    return check_run(events, the_plan, reference, engine=engine)


def report_lines(run: CheckRun) -> list[str]:
    """The report as printed: one line per check, then the count (or nothing, if it could not run)."""
    lines = []
    for result in run.results:
        lines.append(f"  ok    {result.label}" if result.passed else f"  FAIL  {result.label}: {result.hint}")
    if not run.failure:
        lines.append(f"{run.passed} passed, {run.failed} failed")
    return lines
