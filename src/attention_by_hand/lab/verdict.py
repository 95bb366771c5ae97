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

import inspect
import json
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from attention_by_hand.lab.api_mends import CAUSE_OPS
from attention_by_hand.lab.call_words import call_words
from attention_by_hand.lab.combining import combine, ruled_out_where_right
from attention_by_hand.lab.calls import call_all, missing_functions
from attention_by_hand.lab.case_verdict import case_verdict
from attention_by_hand.lab.diagnosis import diagnose, localise
from attention_by_hand.lab.related import ends_of, worded_for
from attention_by_hand.lab.outcomes import RAISED, Tried, raised
from attention_by_hand.lab.parting import Parted, parted
from attention_by_hand.lab.judging import Check, Miss, Probe
from attention_by_hand.lab.fatal_words import at_line, fatal_message
from attention_by_hand.lab.first_nan import written_nan
from attention_by_hand.lab.helped import helped_words
from attention_by_hand.lab.learner_notes import with_notes
from attention_by_hand.lab.mend_changes import AXIS_MENDS, FLOW_MENDS, NAMING_MENDS
from attention_by_hand.lab.mend_words import mend_said
from attention_by_hand.lab.registry import Lab, checks_for, get_lab, load_reference, reference_path
from attention_by_hand.lab.unused import first_read, unused_words, well_formed
from attention_by_hand.lab.wire import decode, encode

__all__ = ["CheckResult", "CheckRun", "Ending", "Plan", "plan", "check_run", "check_in_process", "load_reference", "report_lines"]


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


class _Engine:
    """The mutation engine (diagnosis.py), asked once per function when the hand-written judges
    named nothing: on every input that function was called on, its cases and its probes."""

    def __init__(self, the_plan: Plan, by_id: dict, judged: list, reference: ModuleType, line_name=None,
                 repairs: dict[str, dict] | None = None):
        self.reference, self.found, self.parted, self.ended, self.worded = reference, {}, {}, {}, {}
        self.repairs = repairs or {}  # function -> the child's "repair" event (repair.py)
        self.unused: dict[str, object] = {}  # function -> the child's "unused" arguments (unused.py)
        self.events, self.line_name = by_id, line_name
        self.plan, self.calls, self.judged = the_plan, the_plan.calls, judged
        self.failed: set[str] = set()  # the functions that failed a check (set by _check_run)
        seen = {id(check) for check, _, _ in judged}  # a run stopped early judges only the checks before
        self.whole = {c.function for c in the_plan.checks} - {c.function for c in the_plan.checks if id(c) not in seen}
        self.ids = {id(check): ids for check, ids, _ in judged}
        self.tried: dict[str, list[Tried]] = {}
        self.probes: dict[str, list[Tried]] = {}
        for check, ids, _ in judged:
            for i in ids:
                self.tried.setdefault(check.function, []).append(Tried(the_plan.calls[i][1], _got(by_id[i]), check.label))
        for k, (check, probe) in enumerate(the_plan.probes):
            event = by_id.get(len(the_plan.calls) + k)
            if event is not None and check.function in self.tried:
                self.probes.setdefault(check.function, []).append(Tried(probe.args, _got(event), probe.label))

    def reaches(self, function: str) -> set[str]:
        """The function and the reference's functions it calls."""
        from attention_by_hand.lab.mutants import reachable

        return set(reachable(self.reference, function)) | {function}

    @staticmethod
    def may_diagnose(check: Check, verdicts: list) -> bool:
        """Only outputs are diagnosed: not an error raised, nor inputs changed in place."""
        return all(v is None or isinstance(v, Miss) for v in verdicts)

    def hint(self, check: Check, observed: str) -> tuple[str, str | None, str | None]:
        """(hint, the known mistake it names or None, the words of the mend it says or None)."""
        function = check.function
        if function not in self.found and self.line_caused(function):
            # where a raising line's own values show the cause (a slice of an axis of length 1,
            # unit_slice.py), on any call of the function, a change of the reference says another
            self.found[function] = (None, None)
        if function not in self.found:
            try:
                import torch

                with torch.no_grad():
                    tried = self.tried[function] + self.probes.get(function, [])
                    named = frozenset(d.mistake for d, _ in self.found.values() if d)
                    found = diagnose(self.reference, function, tried, prefer=named, sound=frozenset(self.whole) - self.failed)
                    where = None if found else localise(self.reference, function, self.probes.get(function, []))
            except Exception:  # noqa: BLE001 - the engine only adds to a hint; it never breaks a check
                found, where = None, None
            self.found[function] = (found, where)
        found, where = self.found[function]
        mended, words = self.mended(function)
        op, alone = self.repairs.get(function, {}).get("op"), not self.repairs.get(function, {}).get("other")  # alone: no rival mend
        if found and mended and ((found.compound and op not in ("left", "right")) or found.vacuous or found.pair or (found.raised_only and alone)):
            found = None  # the learner's line mended says it in one step (a factor taken off: the move says more), or more than nan, zeros or an error matched
        if found and found.vacuous and self.typed_nan(check):
            found = None  # matched by its nan alone, and the learner typed a nan where the first one was made: that is said
        if found and mended and op in FLOW_MENDS:  # a loop's `break` or `return`, mended: the learner's own line, alone
            return mended, None, words
        if found:  # a mend naming a function, a flag or a number (a torch reading: after any change), after what the outputs show
            after = mended if mended and (found.relation or op in CAUSE_OPS) and (op in NAMING_MENDS or (op in AXIS_MENDS and "of size 1" in found.hint)) else None
            # what the outputs show, then what a call the reference never makes does on the line where they part
            parted = self.parted_at(function, check) if found.relation and not after else None
            calls = f"at the line where your values part, {parted.described}" if parted and parted.described else None
            return "; ".join(p for p in (self.said(check, found), after, calls) if p), found.mistake, words if after else None
        if mended:  # the mend, after where the first nan was made or what the value it changes was (a relation)
            parted = self.parted_at(function, check)
            related = parted.related if parted else None
            parts = (observed, self.unused_words(function), self.first_nan(check) or related, mended)
            return "; ".join(part for part in parts if part), None, words
        made = self.first_nan(check) or self.parting(function, check) or self.line_calls(check, observed or "")
        parts = (observed, self.unused_words(function), self.ends(function), made, where)
        return "; ".join(part for part in parts if part), None, None

    def said(self, check: Check, found) -> str:
        """The diagnosis in words under this check: a relation's numbers are of its own inputs."""
        if check.function not in self.worded:  # every check's words at once: the reference runs once
            try:
                import torch

                with torch.no_grad():
                    tried = self.tried[check.function] + self.probes.get(check.function, [])
                    self.worded[check.function] = worded_for(self.reference, check.function, tried, found)
            except Exception:  # noqa: BLE001 - the words only; the diagnosis stands as it was said
                self.worded[check.function] = {}
        return self.worded[check.function].get(check.label, found.hint)

    def unused_words(self, function: str) -> str | None:
        """The arguments whose values never reach the learner's output, in the reference's names;
        where that is one argument, with the reference's first statement that reads it."""
        names = list(inspect.signature(getattr(self.reference, function)).parameters)
        found = self.unused.get(function, (None, None, False))
        said = unused_words(names, *found)
        # one clause about one argument (the event comes from the learner's process: checked first)
        one = {f[0] for f in found[0]} if well_formed(names, found[0]) else set()
        name = names[next(iter(one))] if len(one) == 1 else None
        alone = name is not None and said is not None and "; " not in said and said.startswith(f"`{name}` never reaches")
        read = first_read(self.reference, function, name) if alone else None
        return f"{said} (the reference reads it first in `{read}`)" if read else said

    def ends(self, function: str) -> str | None:
        """The reference's output as one end of the learner's, or the learner's of it, on every
        case (related.ends_of): an observation, said where nothing is named."""
        if function not in self.ended:
            try:
                import torch

                with torch.no_grad():
                    self.ended[function] = ends_of(self.reference, function, self.tried.get(function, []))
            except Exception:  # noqa: BLE001 - it only adds to a hint; it never breaks a check
                self.ended[function] = None
        return self.ended[function]

    def mended(self, function: str) -> tuple[str | None, str | None]:
        """The one change of the learner's own code that makes the function right on every input
        tried (repair.py, in the child), in the learner's terms, and its words; (None, None)."""
        event = self.repairs.get(function)
        if not event:
            return None, None
        other = event.get("other") if isinstance(event.get("other"), dict) else {}
        said, words = mend_said(event, other, *(at_line(e.get("line"), self.line_name)[2:] for e in (event, other)))
        described = None if event.get("op") in ("add_kw", "overlap") else call_words([str(event.get("text"))], self.reference, function)
        return said + (f"; {described}" if described else ""), words

    def parting(self, function: str, check: Check | None = None) -> str | None:
        """Where the learner's values part from the reference's (blame.py, parting.py), when every
        wrong call of the function says the same (a call that raised is a wrong call)."""
        said = self.parted_at(function, check)
        return said.text if said else None

    def parted_at(self, function: str, check: Check | None = None) -> Parted | None:
        """parting.py's Parted for the function, or None, per check: its calls first (a relation's numbers are its inputs')."""
        own = self.ids.get(id(check), []) if check is not None else []
        key = (function, tuple(own))
        if key not in self.parted:
            ids = [i for c, ids, _ in self.judged if c.function == function for i in ids]
            ids = own + [i for i in ids if i not in own]
            ids += [len(self.calls) + k for k, (c, _) in enumerate(self.plan.probes) if c.function == function]
            events = [(i, self.events.get(i)) for i in ids]
            said = None
            if all(e is not None and e.get("event") in ("result", "raised") for _, e in events):
                args = {i: (self.calls[i][1] if i < len(self.calls) else self.plan.probes[i - len(self.calls)][1].args) for i, _ in events}
                # a call the checker judged wrong, or that made a nan or changed its inputs, and
                # that was not searched (the child's test is the output alone), leaves it unsaid
                failed = {i for _, ids, verdicts in self.judged for i, v in zip(ids, verdicts) if v is not None}
                # each with the learner's output: a word about a value is weighed against it
                blamed = [(args[i], {**e["blame"], "output": e.get("value")} if e.get("blame") else e.get("blame"))
                          for i, e in events if "blame" in e or "nan" in e or e.get("changed") or i in failed]
                try:
                    said = parted(self.reference, function, blamed, self.failed, self.line_name, frozenset(self.tried) - self.failed)
                except Exception:  # noqa: BLE001 - the span only adds to a hint; it never breaks a check
                    said = None
            self.parted[key] = said
        return self.parted[key]

    def line_caused(self, function: str) -> bool:
        """Whether a call of the function raised where its line's values show the cause (unit_slice.py)."""
        return any((self.events.get(i) or {}).get("line_cause") for c, ids, _ in self.judged if c.function == function for i in ids)

    def first_of(self, check: Check, key: str):
        """The child's `key` on the first of this check's calls whose event has one (a "nan", the
        "line_calls"); None when none has."""
        return next((e[key] for e in map(self.events.get, self.ids.get(id(check), [])) if e and e.get(key)), None)

    def typed_nan(self, check: Check) -> bool:
        """Whether the line where this check's first nan was made types a nan (first_nan.written_nan)."""
        made = self.first_of(check, "nan")
        return bool(made and written_nan(made[2]))

    def first_nan(self, check: Check) -> str | None:
        """Where the learner's function first made a nan, on the first of this check's calls that
        returned one (calls.py traced it), in the learner's own code."""
        made = self.first_of(check, "nan")
        if not made:
            return None
        line, name, code = made
        said = f"the first nan was made at{at_line(line, self.line_name)[1:]}: `{code}` (stored in `{name}`)"
        return said + written_nan(code)

    def after_error(self, check: Check, raised: str) -> tuple[str, str | None, str | None]:
        """A check where the learner's function raised: the error, and the change that raises
        where it raised and gives its outputs elsewhere, if there is one (as `hint` returns)."""
        hint, mistake, _ = self.hint(check, raised)
        if mistake:
            return f"{raised}; {hint}", mistake, None
        mended, words = self.mended(check.function)
        if mended:
            return f"{raised}; {mended}", None, words
        where = self.found[check.function][1]
        parted = self.parting(check.function, check)
        # where it runs and is right (one row alone) and where it raises says what it cannot handle
        where = where if where and where.startswith("right ") else None
        return "; ".join(part for part in (raised, parted or self.line_calls(check, raised), where) if part), None, None

    def line_calls(self, check: Check, said: str = "") -> str | None:
        """Where no line is found where the values part: what a call the reference never makes does
        on the line that raised or returned (and the lines that made what it reads), in the child's
        words (line_calls.py), but for a call the words `said` already name (a gloss of torch's error)."""
        calls = self.first_of(check, "line_calls")
        calls = calls if isinstance(calls, dict) else {}
        parts = [words for name, words in calls.items() if f"torch.{name}" not in said and f"`{name}`" not in said]
        return "; ".join(parts) or None


def _got(event: dict):
    if event.get("event") == "result":
        return decode(event["value"])
    if event.get("event") == "raised":
        where = event.get("in_loop")
        names, known = (frozenset(n for n in v if isinstance(n, str)) if isinstance(v, list) else None
                        for v in (event.get("names"), event.get("known")))
        return raised(str(event.get("type", "")), str(event.get("message", "")), where if isinstance(where, bool) else None,
                      names, known)
    return RAISED


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
    mutants = _Engine(the_plan, by_id, judged, reference, line_name, repairs)
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
    helped = {e["function"]: tuple(e["helpers"]) for e in events if e.get("event") == "helped" and isinstance(e.get("function"), str)
              and isinstance(e.get("helpers"), list) and all(isinstance(h, str) for h in e["helpers"])}
    for (check, verdicts, hint, mistake), (_, ids, _) in zip(combined, judged):
        # a helper not written yet is said so already (case_verdict.py), in plainer words
        mended, through = None, helped.get(check.function, ()) if hint is not None and "not written yet" not in hint else ()
        if through and set(through) <= mutants.failed:  # its own code is right: the hint says where the mistake is
            run.results.append(CheckResult(f"{check.function}: {check.label}", helped_words(check.function, list(through)), through=through))
            continue
        ask = hint is not None and mistake is None and engine and not (mutants.reaches(check.function) & named_by_hand)
        if ask and _Engine.may_diagnose(check, verdicts):
            hint, mistake, mended = mutants.hint(check, hint)
        elif ask and hint.startswith("raised "):
            hint, mistake, mended = mutants.after_error(check, hint)
        elif mistake is not None and mutants.repairs.get(check.function, {}).get("op") in CAUSE_OPS:  # the catalogue's effect, the code's cause
            said, mended = mutants.mended(check.function)
            hint = f"{hint}; in your code, {said}"
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
