"""The mutation engine as a check's hint asks it: once per function, on every input it was called on.

verdict.py judges each check with the labs' hand-written judges; where they name nothing, `Engine`
asks diagnosis.py (a change of the reference, or a relation, that gives the learner's outputs on
every input), and otherwise says what was observed: where the values part (blame.py, parting.py),
where the first nan was made, an argument never used, the one change of the learner's own code that
mends it (repair.py, run in the child). It reads the child's events, never the learner's file.
"""

from __future__ import annotations

import inspect
from types import ModuleType

from attention_by_hand.lab.api_mends import CAUSE_OPS
from attention_by_hand.lab.call_words import LAYOUT_CALLS, call_words, kept_calls, mended_calls, reference_makes
from attention_by_hand.lab.diagnosis import diagnose, localise
from attention_by_hand.lab.related import ends_of, worded_for
from attention_by_hand.lab.relations import DIVIDED, MULTIPLIED
from attention_by_hand.lab.row_factors import ROWS_SCALED
from attention_by_hand.lab.outcomes import RAISED, Tried, all_zeros, apart_where_not_finite, call, raised
from attention_by_hand.lab.parting import Parted, parted
from attention_by_hand.lab.judging import Check, Miss
from attention_by_hand.lab.fatal_words import at_line
from attention_by_hand.lab.first_nan import inf_product, written_nan
from attention_by_hand.lab.kept_lines import kept_change, placed
from attention_by_hand.lab.mend_changes import AXIS_MENDS, FLOW_MENDS, NAMING_MENDS
from attention_by_hand.lab.mend_words import mend_said
from attention_by_hand.lab.unused import first_read, unused_words, well_formed
from attention_by_hand.lab.wire import decode

__all__ = ["Engine", "got_of"]


# a mend whose words describe calls (api_mends.py) -> those calls
_DESCRIBED_BY = {"flatten_span": ("flatten",), "norm_squared": ("norm", "vector_norm"), "transpose_first": ("reshape",),
                 "unbind_kept": ("unbind",), "running_max": ("cumsum", "cumprod", "logcumsumexp")}
# mends that mirror a change of the reference (another name, number, operator or flag): beside a
# change of the reference, which already says as much, they add nothing
_MIRRORED = ("rename", "add_kw", "const", "compare", "binop", "drop_kw", "nested_order")
# mends of the learner's own variables or arguments (ops): said after a change of the reference of another op
_OWN_OPS = ("args", "name", "shape_of", "exchange", "elts")
_LAYOUT_KINDS = ("axis", "transpose", "order", "arguments")  # a change of where axes go (layout_calls)
# the openings of a relation of scale: the output, or each row, times a number (relations.py, row_factors.py)
_SCALES = (DIVIDED, MULTIPLIED, ROWS_SCALED.split("{")[0])
# the calls that only place, cut or join entries, each kept once: where one makes the output itself, and each entry of
# the output is the reference's times a number, it put every entry in its place (not so of one whose result is then
# summed: `cat([t, t]).sum(0)` doubles)
_PLACING = frozenset({"stack", "vstack", "hstack", "dstack", "column_stack", "cat", "concat", "concatenate", "unbind", "unsqueeze",
                      "squeeze", "transpose", "swapdims", "swapaxes", "permute", "movedim", "reshape", "view", "flatten",
                      "unflatten", "split", "chunk", "tensor_split", "narrow", "flip", "roll"})



def _bare(name: str) -> str:
    """A call's name as call_words gives it, without what follows a `(` nor an in-place `_`."""
    return name.partition("(")[0].rstrip("_")


class Engine:
    """The mutation engine (diagnosis.py), asked once per function when the hand-written judges
    named nothing: on every input that function was called on, its cases and its probes.
    the_plan: the lab's verdict.Plan (its checks, calls and probes), read only."""

    def __init__(self, the_plan, by_id: dict, judged: list, reference: ModuleType, line_name=None,
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
        # the checks one of whose calls raised after PyTorch warned at the learner's own line: the warning is
        # said there, and a change of the reference that only raises alike would say another cause of the error
        self.warned = {id(check) for check, ids, _ in judged for i in ids
                       if by_id[i].get("warned") and by_id[i].get("event") == "raised"}
        for check, ids, _ in judged:
            for i in ids:
                self.tried.setdefault(check.function, []).append(Tried(the_plan.calls[i][1], got_of(by_id[i]), check.label))
        for k, (check, probe) in enumerate(the_plan.probes):
            event = by_id.get(len(the_plan.calls) + k)
            if event is not None and check.function in self.tried:
                self.probes.setdefault(check.function, []).append(Tried(probe.args, got_of(event), probe.label))

    def zeroed(self, ids: list[int], verdicts: list) -> bool:
        """Whether every wrong output of a check (its calls `ids`, judged `verdicts`) is all zeros."""
        wrong = [got_of(self.events[i]) for i, v in zip(ids, verdicts) if v is not None]
        return bool(wrong) and all(all_zeros(w) for w in wrong)

    def overflowed(self, ids: list[int], verdicts: list) -> bool:
        """Whether every wrong output of a check parts from the reference's only where it holds an inf
        or a nan: a known mistake that overflows (exp of a raw score) fits any code that does (one
        row's maximum kept for every row)."""
        wrong = [i for i, v in zip(ids, verdicts) if v is not None]
        try:
            import torch

            with torch.no_grad():
                return bool(wrong) and all(apart_where_not_finite(
                    got_of(self.events[i]), call(getattr(self.reference, self.calls[i][0].function), self.calls[i][1])) for i in wrong)
        except Exception:  # noqa: BLE001 - it only picks the words of a hint; it never breaks a check
            return False

    @staticmethod
    def layout_calls(found, parted) -> str | None:
        """After a change of the reference of where axes go (an axis, a transpose, an order, `keepdim`), what a call
        of the learner's that places or cuts axes does, on the line that makes the value wrong, named:
        the change is in the reference's terms, the call in the learner's (`k.conj()` beside the
        reference's transpose changed). A call of another kind there is said nowhere: beside a
        change of another kind it points at a line the change does not."""
        if not found.changes or not all(c.kind in _LAYOUT_KINDS or "keepdim=" in c.text for c in found.changes):
            return None
        words = [text for name, text in parted.ending if _bare(name) in LAYOUT_CALLS]
        return f"at {parted.ending_at}, where your values part, {'; '.join(words)}" if words else None

    @staticmethod
    def calls_beside(found, parted) -> str | None:
        """Beside a relation, what each call the reference never makes does on the lines where the values part; but
        beside a relation of scale, not a call that only places entries and whose result is returned as it is: each
        entry of yours is the reference's, in its place, times a number, so that call put them right (`return
        torch.stack(rows)` beside rows that sum wrong)."""
        scaled = any(opening in found.hint for opening in _SCALES)
        placed = {name for name in parted.returned if name in _PLACING} if scaled else set()
        words = [text for name, text in parted.calls if _bare(name) not in placed]
        return f"at the line where your values part, {'; '.join(words)}" if words else None

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
        if found and found.raised_later and (parted := self.parted_at(function, check)) and parted.reads_right:
            found = None  # the change raises with a value it made wrong; every value the learner's raising line read was right
        mended, words = self.mended(function)
        event = self.repairs.get(function, {})
        op, alone = event.get("op"), not event.get("other")  # alone: no rival mend
        if found and mended and ((found.compound and op not in ("left", "right")) or found.vacuous or found.pair
                                 or ((found.raised_only or found.partly_raised) and alone)):
            found = None  # the learner's line mended says it in one step (a factor taken off: the move says more), or more than nan, zeros or an error matched
        if found and mended and event.get("fresh") and found.changes and all(
                c.function == function and c.line in event.get("kept", ()) and not placed(c) for c in found.changes):
            found = None  # the reference changed where the learner wrote its very line; their own line mends (kept_lines.py)
        # the reference changed what the learner wrote as it did (kept_lines.py): their own line mends, and what
        # the values show where they part (a softmax's ones read as a sum) is that change's coincidence, not said
        coincidence = bool(found and mended and found.changes and all(
            c.function == function and kept_change(self.reference, c, event) for c in found.changes))
        found = None if coincidence else found
        if found and found.raised_only and id(check) in self.warned:
            found = None  # only an error matched, and PyTorch's warning at the learner's line is said: it is the evidence
        if found and found.vacuous and self.typed_nan(check):
            found = None  # matched by its nan alone, and the learner typed a nan where the first one was made: that is said
        if found and mended and op in FLOW_MENDS:  # a loop's `break` or `return`, mended: the learner's own line, alone
            return mended, None, words
        if found:  # a mend naming a function, a flag or a number (a torch reading: after any change), after what the outputs show
            # a call or a factor taken out says where a scale comes from: said after a relation of scale alone
            scaled = op in ("unwrap", "left", "right") and any(opening in found.hint for opening in _SCALES)
            after = mended if mended and (found.relation or op in CAUSE_OPS) and (
                op in NAMING_MENDS or scaled or (op in AXIS_MENDS and "of size 1" in found.hint)
                or (found.relation and op == "args")) else None  # two arguments exchanged: what a relation's transpose or sign came from
            # a change of the reference is in its terms; the one mend of the learner's own line that names
            # a slip no change of the reference mirrors says where it is in theirs (`attn(ln1(x))` for
            # `attn(ln1(x))[0]`, where the reference's change put the `[0]` on its input)
            # two arguments exchanged, or one variable put for another, where the reference's change is of another kind
            # (`hs ** -0.5` for `n_heads ** -0.5`, where the reference's `q.shape[0]` for `q.shape[-1]` says it in its terms)
            # (one change at one place: one made at several, as `T` for `block` in every range, may mend by chance)
            other_kind = op in _OWN_OPS and not event.get("many") and bool(found.changes) and not any(c.op in _OWN_OPS for c in found.changes)
            # a number, flag or name mended mirrors nothing where no change of the reference is said (a
            # known mistake's words), or where the call it mends is one the reference never makes (`dim=0`
            # for `dim=-1` in `stack(...)`, beside the reference's transpose changed); a rival in the same call
            # (`dim=-1` left out of `stack(...)`) is said with it; not beside a change matched by its error
            # alone, which the rivals would only blur (a change that also fits the values says more)
            unmirrored = op in _MIRRORED and self.rival_beside(event) and not found.raised_only and (
                not found.changes or self.foreign_mend(function, event))
            own = mended and (alone or unmirrored) and not found.relation and (
                (op in NAMING_MENDS and (op not in _MIRRORED or unmirrored)) or other_kind)
            after = after or (f"in your code, {mended}" if own else None)
            # what the outputs show, then what a call the reference never makes does on the line where they part
            parted = self.parted_at(function, check) if not after else None
            calls = None if not parted else self.layout_calls(found, parted) if not found.relation else self.calls_beside(found, parted)
            return "; ".join(p for p in (self.said(check, found), after, calls) if p), found.mistake, words if after else None
        if mended:  # the mend, after where the first nan was made or what the value it changes was (a relation)
            parted = self.parted_at(function, check)
            # a mend of a line of the function's own after the related one leaves that value as it is and
            # makes the function right: the value was the learner's own way there, and what the relation
            # guesses at is no cause (a helper's line, wherever it stands in the file, may run after it)
            later = event.get("own") and parted is not None and parted.line < (event.get("line") or 0)
            related = parted.related if parted and not later and not coincidence else None
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

    @staticmethod
    def rival_beside(event: dict) -> bool:
        """Whether the mend has no rival, or one that changes the same call on its line (`dim=-1` left out
        of the `stack(...)` whose `dim=0` for `dim=-1` mends): another call's rival may be a coincidence
        (`a / b` for `a - b`, beside `gt(0)` for `gt(1)`), which the words would offer as a cause."""
        other = event.get("other")
        return not isinstance(other, dict) or (other.get("line") == event.get("line") and bool(
            mended_calls(str(other.get("text"))) & mended_calls(str(event.get("text")))))

    def foreign_mend(self, function: str, event: dict) -> bool:
        """Whether the mend changes only calls the reference's function never makes (the innermost it changes:
        `t.size(-2)` for `t.size(-1)` inside a `reshape` the reference makes too changes `size`)."""
        calls = mended_calls(str(event.get("text")), innermost=True)
        return bool(calls) and calls.isdisjoint(reference_makes(self.reference, function))

    def mended(self, function: str) -> tuple[str | None, str | None]:
        """The one change of the learner's own code that makes the function right on every input
        tried (repair.py, in the child), in the learner's terms, and its words; (None, None)."""
        event = self.repairs.get(function)
        if not event:
            return None, None
        other = event.get("other") if isinstance(event.get("other"), dict) else {}
        said, words = mend_said(event, other, *(at_line(e.get("line"), self.line_name)[2:] for e in (event, other)))
        # the call a mend's own words already describe is not described again, nor one its new code
        # leaves with the same arguments (`(ids.view(-1, 1) - r).logical_not()` for
        # `(ids.view(-1, 1) - r).bool()`: the mend keeps the `view` as it was, so it points elsewhere)
        text = str(event.get("text"))
        kept = kept_calls(text)
        described = None if event.get("op") in ("add_kw", "overlap") else call_words(
            [text], self.reference, function, said=(*_DESCRIBED_BY.get(str(event.get("op")), ()), *kept))
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
        line, name, code, skips = made
        said = f"the first nan was made at{at_line(line, self.line_name)[1:]}: `{code}` (stored in `{name}`)"
        return said + ("" if skips else written_nan(code)) + inf_product(code)

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
        parted = self.parted_at(check.function, check)
        # what a call the reference never makes does, on the lines where the values part (the call that raised)
        calls = (f"at the line where your values part, {parted.described}"
                 if parted and parted.described and parted.described not in parted.text else None)
        # where it runs and is right (one row alone) and where it raises says what it cannot handle
        where = where if where and where.startswith("right ") else None
        said = (parted.text, calls) if parted and parted.text else (self.line_calls(check, raised),)
        return "; ".join(part for part in (raised, *said, where) if part), None, None

    def line_calls(self, check: Check, said: str = "") -> str | None:
        """Where no line is found where the values part: what a call the reference never makes does
        on the line that raised or returned (and the lines that made what it reads), in the child's
        words (line_calls.py), but for a call the words `said` already name (a gloss of torch's error)."""
        calls = self.first_of(check, "line_calls")
        calls = calls if isinstance(calls, dict) else {}
        parts = [words for name, words in calls.items() if f"torch.{name}" not in said and f"`{name}`" not in said]
        return "; ".join(parts) or None


def got_of(event: dict):
    """What one call of the learner's function gave, from its event: a value, or the error it raised."""
    if event.get("event") == "result":
        return decode(event["value"])
    if event.get("event") == "raised":
        where = event.get("in_loop")
        names, known = (frozenset(n for n in v if isinstance(n, str)) if isinstance(v, list) else None
                        for v in (event.get("names"), event.get("known")))
        told = event.get("written")
        written = frozenset(n for n in told if type(n) is int) if isinstance(told, list) else None
        asked = event.get("called")
        called = frozenset(n for n in asked if isinstance(n, str)) if isinstance(asked, list) else None
        return raised(str(event.get("type", "")), str(event.get("message", "")), where if isinstance(where, bool) else None,
                      names, known, written, called)
    return RAISED
