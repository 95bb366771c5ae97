"""Saying where a learner's values part from the reference's (blame.py found it, call by call).

The child reports, for each quick call whose output was wrong, the span of the learner's lines
where its values left the reference's and the reference local whose value, put in place of the
learner's at the span's end, made the whole output right. One call is one input; a hint speaks
for the function, so the span is said only when EVERY wrong call of it reported one, all ending
at the same line and local and replaced by the same reference local (its name and line): the
claim then holds on each input the function got wrong (the ones it got right were not run again).
When the learner's value there is a plain relation of the reference's
(transposed, scaled by a factor the lab knows, ...), that is said too (relations.py).

Left out: a span whose line calls one of the learner's own functions that failed its own check
(the mistake is in that function, whose own row says so).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from attention_by_hand.lab.blame import RETURNED, output_close
from attention_by_hand.lab.call_words import call_words, described as described_calls
from attention_by_hand.lab.code_layout import call_name
from attention_by_hand.lab.intermediates import Step, steps
from attention_by_hand.lab.outcomes import call, copy_input, known_numbers
from attention_by_hand.lab.relations import relation
from attention_by_hand.lab.row_factors import ROWS_SCALED_RIGHT
from attention_by_hand.lab.wire import decode

__all__ = ["Parted", "parted", "parting"]


@dataclass(frozen=True)
class Parted:
    """What parting says: `text`, the whole hint part; `related`, the plain relation it holds
    between the learner's value and the reference's or an argument's (said alone beside a mend),
    or None; `described`, what a call on its lines does that the reference never makes (said
    beside a relation the engine found), or None; `ending`, (name, words) of each such call on its
    last line alone, the line that makes the value wrong, at `ending_at` (said beside a change of
    the reference, which names no line of the learner's: the span's first line, where the values
    still agree, is no place to point at)."""

    text: str
    related: str | None = None
    described: str | None = None
    ending: tuple[tuple[str, str], ...] = ()
    ending_at: str = ""
    reads_right: bool = False  # every wrong call raised on one line whose every input equals a value the reference made
    calls: tuple[tuple[str, str], ...] = ()  # (name, words) of each call `described` says, in its order
    returned: tuple[str, ...] = ()  # the calls the span's last line returns as they are: their results are the output
    line: int = 0  # the line `related` speaks of (the span's last)


def _returned_calls(code: str) -> tuple[str, ...]:
    """The names of the calls a `return` line hands back as they are: `stack` of `return torch.stack(rows)`, each
    call of a returned tuple; () for another line (or one that does not parse alone)."""
    try:
        body = ast.parse(code.strip()).body
    except SyntaxError:
        return ()
    if not body or not isinstance(body[0], ast.Return) or body[0].value is None:
        return ()
    values = body[0].value.elts if isinstance(body[0].value, ast.Tuple) else [body[0].value]
    return tuple(call_name(v) for v in values if isinstance(v, ast.Call) and call_name(v))


def _source_line(module: ModuleType, line: int) -> str:
    import linecache

    text = linecache.getline(module.__file__, line)
    return text.split("#")[0].strip()


def _loop(code: str) -> str:
    """ "the loop " before a quoted loop header: a span is read as a loop ends (blame.py), so the
    line that starts it stands for all of its lines."""
    return "the loop " if code.startswith(("for ", "for(", "while ", "while(", "async for ")) else ""


def _returned(reference: ModuleType, function: str) -> str | None:
    """The reference's one return statement, quoted (from mutants' cached tree); None when it has several."""
    import ast

    from attention_by_hand.lab.mutants import definition

    returns = [n for n in ast.walk(definition(reference, function)) if isinstance(n, ast.Return) and n.value is not None]
    return ast.unparse(returns[0]) if len(returns) == 1 else None


def _same_code(a: str, b: str) -> bool:
    """Whether two quoted statements are the same code (`return a, b` and `return (a, b)` are)."""
    import ast

    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:  # a quote cut short by "..."
        return False


def parting(reference: ModuleType, function: str, blamed: list[tuple[tuple, dict | None]],
            failed: set[str], line_name: Callable[[int], str] | None = None) -> str | None:
    """The hint for `function` from each wrong call's (args, blame event or None); None when the
    calls do not all agree (or one found nothing)."""
    said = parted(reference, function, blamed, failed, line_name)
    return said.text if said else None


def parted(reference: ModuleType, function: str, blamed: list[tuple[tuple, dict | None]],
           failed: set[str], line_name: Callable[[int], str] | None = None, passed: frozenset[str] = frozenset()) -> Parted | None:
    """parting's hint, with the relation it found kept apart. passed: the learner's checked
    functions that passed every check (a call of one is no place to look)."""
    if not blamed or any(b is None for _, b in blamed):
        return None
    if len({(b["end"], b["name"], b["step"] is None) for _, b in blamed}) != 1 or any(set(b["calls"]) & failed for _, b in blamed):
        return None
    if blamed[0][1]["step"] is not None:
        # on one input several of the reference's values may be equal: the one every input allows
        # a value is its name and the line that made it (another function's `w` is another value)
        common = set.intersection(*({(s[0], s[2]) for s in b["step"]} for _, b in blamed))
        if not common:
            return None
        # a local of the reference's own first, then what a function it calls returns, then its output
        order = [(s[0], s[2]) for s in blamed[0][1]["step"]]
        chosen = min(common, key=lambda k: (k[0] == RETURNED, k[0].endswith("()"), order.index(k)))
        blamed = [(args, {**b, "step": next(s for s in b["step"] if (s[0], s[2]) == chosen)}) for args, b in blamed]
    first = blamed[0][1]
    earliest = min((b for _, b in blamed), key=lambda b: b["start"])  # the span said holds every input's
    start, end, name = earliest["start"], first["end"], first["name"]
    at = line_name or (lambda n: f"line {n}")
    code_start, code_end = earliest["code"][0], first["code"][1]
    made = f"{_loop(code_end)}`{code_end}`" if code_end else "it"
    raised = [bool(b.get("raised")) for _, b in blamed]
    # a call that raised either raised on the span's last line (nothing made there) or later,
    # with the wrong value that line made
    here = [r and decode(b["got"]) is None for r, (_, b) in zip(raised, blamed)]
    later = [r and not h for r, h in zip(raised, here)]
    wrong = f"makes `{name}` wrong" if name else "returns a wrong value"
    if all(here):
        does = "raises"
    elif any(here):
        does = f"raises on some inputs and {wrong} on the others"
    else:
        does = wrong + (f", and {'' if all(later) else 'on some inputs '}a later line raises with it" if any(later) else "")
    if start == end:
        where = f"your values part from the reference's at {at(end)}: {made} {does}, though each tensor it reads equals one the reference made on its way"
    else:
        where = (f"your values part from the reference's between {at(start)} ({_loop(code_start)}`{code_start}`) and {at(end)} ({made}), "
                 f"which {does}: before them your tensors agree with the reference's")
    helpers = sorted({name for _, b in blamed for name in b["calls"]} - passed)
    if helpers:  # its own tensors are right; what it calls of the learner's is not checked here (or failed)
        where += f" (it calls your {', '.join(f'`{h}`' for h in helpers)}: the mistake may be in there)"
    # the span's first line may call a function of the learner's that fails its own checks: what
    # it returned is wrong, and the span starts there because of it
    code = code_start.split("#")[0]  # a call through a bare name, not `torch.f(` nor `obj.f(`, nor a comment's
    starts = sorted(f for f in failed if start != end and re.search(rf"(?<![\w.]){re.escape(f)}\s*\(", code))
    if starts:
        fails = "fails its own checks" if len(starts) == 1 else "fail their own checks"
        where += f" ({at(start)} calls your {', '.join(f'`{f}`' for f in starts)}, which {fails}: the mistake is likely in there)"
    ends = described_calls((code_start, code_end), reference, function)
    described = "; ".join(ends.values()) or None
    ending = {"ending": tuple(described_calls((code_end,), reference, function).items()) if code_end else (), "ending_at": at(end),
              "reads_right": start == end and all(here), "calls": tuple(ends.items()), "returned": _returned_calls(code_end)}
    if described:  # a call the reference never makes, on a line quoted, is often the mistake
        where += f"; {described}"
    # and on the lines the span holds between them (a loop's body, where it ends at one): said with
    # where the values part, never beside a relation that already says what the values are
    inside = call_words(first.get("body", ()), reference, function, said=ends)
    if inside:
        where += f"; {inside}"
    sizes = next((b["sizes"] for _, b in blamed if b.get("sizes")), [])  # asked on one call only (size_locals.py)
    for size, mine, theirs, line, code in sizes[:2]:  # a size bound otherwise, whose reference's number mends it
        where += f"; `{size}` is {mine} in yours ({at(line)}: `{code}`), where the reference's `{size}` is {theirs} on the same input"
    if first["step"] is None:
        returns = _returned(reference, function) if code_end.startswith("return") else None
        if returns and _same_code(returns, code_end):  # the same line: quoting it would say nothing
            returns = None
        return Parted(where + (f"; the reference's is `{returns}`" if returns else ""), described=described, **ending)
    local = first["step"][0]
    related, of_values = _related(reference, function, blamed)
    if not related:
        related = _related_to_argument(reference, function, blamed)
        of_values = related is not None
    if local == RETURNED:
        returns = _returned(reference, function)
        ref = f"returned value (`{returns}`)" if returns else "returned value"
    else:
        ref_code = None if related else _source_line(reference, first["step"][2])  # the relation says more
        ref = f"`{local}` (`{ref_code}`)" if ref_code else f"`{local}`"
        if first["step"][2] == getattr(reference, function).__code__.co_firstlineno:
            ref = f"argument `{local}` as given"
        if related:
            related = related.replace("the reference's output", f"the reference's `{local}`")
    also = f"; there, {related}" if related else ""
    runs = "runs and " if any(raised) else ""
    return Parted(f"{where}{also}; with `{name}` equal to the reference's {ref}, yours {runs}is right on each input it got wrong",
                  f"at {at(end)}, {related}" if related and of_values else None, described, **ending, line=end)


def _related(reference: ModuleType, function: str, blamed) -> tuple[str | None, bool]:
    """How the learner's value at the span's end relates to the reference's, on every input, and
    whether that is a relation of values (False: a mask missing, a guess at a cause, which a mend
    found elsewhere would contradict)."""
    pairs = []
    for args, b in blamed:
        name, binding, line = b["step"]
        if name == RETURNED:
            out = call(getattr(reference, function), args)
            value = out[binding] if isinstance(out, (tuple, list)) else out
        else:
            copies = tuple(copy_input(a) for a in args)  # a reference may change its inputs in place
            value = steps(getattr(reference, function), copies, in_place=True, deep=True).get(Step(name, binding, line))
        if value is None:
            return None, False
        pairs.append((decode(b["got"]), value, known_numbers(reference, function, args)))
    try:
        said = relation(pairs)
        if said:
            return said, True
        # a mask applied later in the learner's code is not missing, though this value lacks it
        masked_later = any(_hides_future(_wrong_parts(decode(b["output"]), call(getattr(reference, function), args)))
                           for args, b in blamed if b.get("output") is not None)
        return (None if masked_later else _future(pairs)), False
    except Exception:  # noqa: BLE001 - words about the value only add to the hint
        return None, False


def _related_to_argument(reference: ModuleType, function: str, blamed) -> str | None:
    """How the learner's value at the span's end relates to one of the function's arguments as
    given (`scores` with its -inf filled), on every input; the argument named."""
    import inspect

    import torch

    names = list(inspect.signature(getattr(reference, function)).parameters)
    gots = [decode(b["got"]) for _, b in blamed]
    knowns = None  # the reference's numbers on each input: a run of it, made once and only if needed
    for i, name in enumerate(names):
        # an argument of another shape is no number-for-number relation of the value (and the
        # relations of shape are said of the reference's own values, above)
        if not all(len(args) > i and isinstance(args[i], torch.Tensor) and isinstance(got, torch.Tensor)
                   and args[i].shape == got.shape for got, (args, _) in zip(gots, blamed)):
            continue
        knowns = knowns or [known_numbers(reference, function, args) for args, _ in blamed]
        pairs = [(got, args[i], known) for got, (args, _), known in zip(gots, blamed, knowns)]
        try:
            said = relation(pairs)
        except Exception:  # noqa: BLE001 - words about the value only add to the hint
            said = None
        if said:
            # what a relation adds of the reference's being right ("the proportions within each
            # row are right") is no claim about an argument: only the relation is said of it
            said = said.split(ROWS_SCALED_RIGHT)[0].split(", where each row must SUM to 1")[0]
            said = re.sub(r"; \d+ of \d+ rows right on this input", "", said)
            return (said.replace("the reference's output", f"`{name}` as given").replace("the reference's row", f"`{name}`'s row")
                    .replace("the reference's", f"`{name}`"))
    return None


def _wrong_parts(output, expected) -> list:
    """The parts of the learner's output (one, or each of a tuple's) that differ from the reference's."""
    parts = list(output) if isinstance(output, (tuple, list)) else [output]
    theirs = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    if len(parts) != len(theirs):
        return parts
    wrong = []
    for part, their in zip(parts, theirs):
        try:
            right = output_close(part, their)
        except Exception:  # noqa: BLE001 - a part that cannot be compared is not known right
            right = False
        if not right:
            wrong.append(part)
    return wrong


def _hides_future(parts: list) -> bool:
    """Whether one of the learner's output parts is a (T, T) tensor (T > 1) that is 0 or -inf
    wherever a query's key lies in its future: its code applies a causal mask somewhere."""
    import torch

    for value in parts:
        if isinstance(value, torch.Tensor) and value.dim() >= 2 and value.shape[-1] == value.shape[-2] > 1:
            future = _future_cells(value)
            if bool((future == 0).all()) or bool((future == float("-inf")).all()):
                return True
    return False


def _future_cells(value):
    """The entries of a (..., T_q, T_k) tensor above the diagonal: each query's future keys."""
    import torch

    return value[torch.ones(value.shape[-2:], dtype=torch.bool).triu(1).expand(value.shape)]


def _future(pairs) -> str | None:
    """A causal mask missing: the reference's (T, T) values are 0 or -inf wherever a query's key
    lies in its future (above the diagonal), and the learner's are not, on every input."""
    import torch

    hidden, masked, bands = None, [], []
    for got, expected, _ in pairs:
        if not isinstance(got, torch.Tensor) or got.shape != expected.shape or expected.dim() < 2:
            return None
        if expected.shape[-2] < 2:
            continue
        kept, yours = _future_cells(expected), _future_cells(got)
        for value, word in ((0.0, "0"), (float("-inf"), "-inf")):
            if bool((kept == value).all()) and not bool((yours == value).all()) and hidden in (None, word):
                hidden = word
                masked.append(_masked_slices(got, value))
                bands.append((_band(got, value), got.shape[-1]))
                break
        else:
            return None
    if hidden is None:
        return None
    where = f"the reference's is {hidden} above the diagonal, where each query's future keys are"
    said, ahead = f"{where}, and yours is not", f"{where}; in yours only"
    offsets = [b for b, _ in bands]
    first = {b[0] for b in offsets if b}
    if all(offsets) and len(first) == 1 and all(b == tuple(range(b[0], size)) for b, size in bands):
        k = first.pop()  # the triangle moved up: the nearest future keys stay visible
        return (f"{ahead} the diagonals from offset {k} on are {hidden}: each query's next {k - 1} "
                f"key{'' if k == 2 else 's'} stay{'s' if k == 2 else ''} visible")
    if offsets[0] and all(b == offsets[0] for b in offsets):  # a mask of one diagonal, where the triangle was meant
        lines = ", ".join(str(d) for d in offsets[0])
        one = len(offsets[0]) == 1
        return (f"{ahead} the diagonal{'' if one else 's'} at offset{'' if one else 's'} {lines} above the main one "
                f"{'is' if one else 'are'} {hidden}, and the other keys in each query's future stay visible")
    some = next((m for m in masked if m[0]), None)
    if some is None:
        return said + ": the causal mask is not applied to it"
    # a mask applied to one head only (the loop's last) is not "not applied": say where it is,
    # when every input agrees on where
    if any(m != some for m in masked):
        return f"{said} on every (T, T) slice: some are masked, and the causal mask is not applied to the others"
    shown = ", ".join(str(i) for i in some[0][:4]) + (", ..." if len(some[0]) > 4 else "")
    which = f"slice{'s' if len(some[0]) > 1 else ''} {shown} of the {some[1]}"
    return (f"{said} on every (T, T) slice: only {which} along its leading axes "
            f"{'are' if len(some[0]) > 1 else 'is'} masked; the causal mask is not applied to the others")


def _band(got, value) -> tuple[int, ...]:
    """The offsets (1 and up) of the diagonals above the main one that hold `value` in every (T, T)
    slice of `got`, where they are its only future cells that hold it anywhere, and the future has
    cells besides; () otherwise."""
    import torch

    size = got.shape[-1]
    if got.shape[-2] != size or size < 2 or got.numel() == 0:
        return ()
    future = torch.ones(size, size, dtype=torch.bool).triu(1)
    cells = (got == value).reshape(-1, size, size)  # (slices, T, T)
    held, anywhere = cells.all(dim=0) & future, cells.any(dim=0) & future
    if not bool(held.any()) or bool((held != anywhere).any()) or bool(held[future].all()):
        return ()
    offsets = tuple(d for d in range(1, size) if bool(held.diagonal(d).all()))
    whole = sum(size - d for d in offsets)  # the cells of those diagonals: they must be every held cell
    return offsets if whole == int(held.sum()) else ()


def _masked_slices(got, value) -> tuple[list, int]:
    """(the leading indices of the (T, T) slices of `got` whose future cells are all `value`, their count)."""
    import torch

    if got.dim() < 3:
        return [], 1
    flat = got.reshape(-1, *got.shape[-2:])
    future = torch.ones(got.shape[-2:], dtype=torch.bool).triu(1)
    lead = got.shape[:-2]
    found = [[int(i) for i in torch.unravel_index(torch.tensor(n), lead)] for n in range(len(flat))
             if bool((flat[n][future] == value).all())]
    return [f[0] if len(f) == 1 else f for f in found], len(flat)
