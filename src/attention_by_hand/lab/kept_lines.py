"""The learner's statements that are the reference's own, word for word and in the same place.

A learner who writes `T_q, T_k = q.shape[-2], k.shape[-2]` exactly as the reference does, then walks
the keys with `range(0, T_q, block)`, has one slip, in the loop. The outputs cannot say where: the
loop mended mends the function, and so does `T_q` made the number of keys on the first line, which
makes every later `T_q` mean the keys (the queries' loop then runs past its end and finds nothing).
A change of the reference that swaps `T_q` and `T_k` on that first line gives the learner's outputs
too. Both put the slip on a line the learner wrote as the reference did, where a line the learner
wrote their own way mends as well: that one is said.

A statement is compared by its syntax tree, without places, together with the heads of the
statements it stands in (so `l = torch.zeros(...)` inside a loop is not the reference's same line
before it): for a `for`, its target and what it walks; for an `if` or a `while`, its test; for a
`with`, its items; any other compound statement (a `def`, a `try`) is never taken as kept. A line
is kept only where every statement on it is. The function's nested statements count too.

A change of the reference is compared alike (`kept_change`): one of `softmax(scores, dim=-1)` that puts
`dim=-2` gives a learner's outputs where the learner's own `F.softmax(s, dim=-1)` (its arguments but the
tensor as the reference's) was right and another line was wrong; so may `/ x.shape[-1]` taken out of an
operation the learner wrote word for word (truncated angles that the reference's tiny ones match within
tolerance). Where a mend of the learner's own code mends too, the reference's change is no slip the
learner made. A size read off one axis counts as written (`q.shape[0]` for `q.shape[-2]`, where the
learner read `q.shape[-2]` too): compared by its text, not its place, so it sets the reference's change
aside only where the learner's own mend holds on every input, never where nothing else is said.

Never set aside: a mend that moves, repeats or leaves out a whole statement (a line written twice,
a start made inside a loop), since a kept line in the wrong place is just where such a slip is; nor
any where the span in which the learner's values part from the reference's (blame.py) holds mends
of kept lines alone: that span's evidence points at them.
"""

from __future__ import annotations

import ast
from types import ModuleType

from attention_by_hand.lab.code_layout import call_name, function_form, number_of, parents, size_read
from attention_by_hand.lab.mutant_edits import STATEMENT_OPS
from attention_by_hand.lab.mutants import applied, definition

__all__ = ["call_signature", "kept_change", "kept_event", "kept_lines", "fresh_mends", "placed", "reference_lines_kept",
           "texts_kept"]

# mends of a statement's place or presence, besides mutant_edits.STATEMENT_OPS (mend_changes.py)
_PLACES = ("jump", "in_place", "accumulate")


def _head(node: ast.stmt) -> str | None:
    """The statement's own words, without its body, as a syntax tree without places; None where
    a compound statement has no head to compare."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return "for " + ast.dump(node.target) + " in " + ast.dump(node.iter)
    if isinstance(node, (ast.If, ast.While)):
        return type(node).__name__ + " " + ast.dump(node.test)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return "with " + " ".join(ast.dump(item) for item in node.items)
    if any(isinstance(value, list) and value and isinstance(value[0], ast.stmt) for _, value in ast.iter_fields(node)):
        return None  # a def, a class, a try: its head is not one line of work
    return ast.dump(node)


def _heads(fdef: ast.FunctionDef) -> dict[int, list[str | None]]:
    """Each line of `fdef`'s body that starts a statement -> the head of each statement there, each
    after the heads of the statements it stands in."""
    found: dict[int, list[str | None]] = {}

    def visit(statements: list[ast.stmt], around: str) -> None:
        for node in statements:
            head = _head(node)
            found.setdefault(node.lineno, []).append(None if head is None else around + head)
            for _, value in ast.iter_fields(node):
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    visit(value, f"{around}{head} / ")
                if isinstance(value, list) and value and isinstance(value[0], ast.ExceptHandler):
                    for handler in value:
                        visit(handler.body, f"{around}{head} / except {ast.dump(handler.type) if handler.type else ''} / ")

    visit(fdef.body, "")
    return found


def _kept(mine: dict[int, list[str | None]], theirs: dict[int, list[str | None]]) -> set[int]:
    known = {head for heads in theirs.values() for head in heads if head is not None}
    return {line for line, heads in mine.items() if all(head is not None and head in known for head in heads)}


def kept_lines(learner: ast.FunctionDef, reference: ast.FunctionDef) -> set[int]:
    """The learner's lines whose every statement is one of the reference function's, word for word
    and within the same statements."""
    return _kept(_heads(learner), _heads(reference))


def reference_lines_kept(learner: ast.FunctionDef, reference: ast.FunctionDef) -> set[int]:
    """The reference's lines whose every statement the learner wrote word for word, in the same place."""
    return _kept(_heads(reference), _heads(learner))


def _others(call: ast.Call) -> list[ast.AST]:
    """A call's arguments but its tensor (`torch.f(t, ...)`'s first, unless written out; a method's owner)."""
    given = list(call.args)
    if function_form(call) and given and not isinstance(given[0], ast.Constant):
        given = given[1:]
    return [*given, *call.keywords]


def call_signature(call: ast.Call) -> str:
    """A call's name and its arguments but the tensor, as written: `softmax(dim=-1)`."""
    keywords = sorted(ast.unparse(k) for k in call.keywords)
    return f"{call_name(call)}({', '.join([*(ast.unparse(a) for a in _others(call) if not isinstance(a, ast.keyword)), *keywords])})"


def _written(node: ast.AST) -> str | None:
    """An operation, a call or a size read off one axis (`q.shape[-2]`) as written, to be found word for
    word in the learner's function; None for a name, a number or an attribute, which any function may
    hold by chance."""
    sized = isinstance(node, ast.Subscript) and size_read(node.value) and number_of(node.slice) is not None
    return ast.unparse(node) if isinstance(node, (ast.BinOp, ast.Call)) or sized else None


def texts_kept(module: ModuleType, function: str, mend) -> list[str]:
    """The operations and calls of the learner's `function` that its `mend` leaves as they are: the text
    a mend rewrites (`k @ q.T` for `q @ k.T`, where q and k were swapped on the lines above) is the
    learner's word for word, but the mend names it as the slip, so no change of the reference there is
    set aside for it."""
    try:
        mine = {text for n in ast.walk(definition(module, function)) if (text := _written(n)) is not None}
        if mend.function != function:
            return sorted(mine)
        mended = applied(definition(module, function), [mend])
    except (KeyError, OSError, SyntaxError, TypeError):
        return []
    return sorted(mine & {text for n in ast.walk(mended) if (text := _written(n)) is not None}) if mended else []


def kept_change(reference: ModuleType, change, event: dict) -> bool:
    """Whether a change of the reference's function is of what the learner wrote as the reference did:
    an operation or a call the learner wrote word for word and the learner's mend leaves (`event["texts"]`:
    texts_kept), or an argument (not the tensor) of a call whose signature every call of that name the
    learner wrote has (`event["calls"]`: call_signature of each). Where one of those calls differs
    (`rope(k, positions + 1)` beside `rope(q, positions)`), the change may be just that slip."""
    try:
        nodes = list(ast.walk(definition(reference, change.function)))
    except (KeyError, OSError, SyntaxError, TypeError):
        return False
    if not 0 <= change.index < len(nodes):
        return False
    node, signatures = nodes[change.index], event.get("calls", ())
    above = parents(nodes[0]).get(id(node))
    if isinstance(above, ast.Subscript) and above.slice is node and _written(above) is not None:
        node = above  # the axis of a size read (`q.shape[0]` for `q.shape[-2]`): the read, as written
    if _written(node) is not None and _written(node) in event.get("texts", ()):
        return True

    def alike(call: ast.Call) -> bool:  # every learner's call of its name written as the reference's
        return {s for s in signatures if s.partition("(")[0] == call_name(call)} == {call_signature(call)}

    return any(alike(call) for call in nodes if isinstance(call, ast.Call)
               and any(node is part or (isinstance(part, ast.keyword) and node is part.value) for part in _others(call)))


def placed(change) -> bool:
    """Whether a change moves, repeats or leaves out a whole statement: its line may be a kept one
    in the wrong place, the very slip."""
    return change.op in (*STATEMENT_OPS, *_PLACES)


def fresh_mends(module: ModuleType, reference: ModuleType, function: str, mends: list,
                span: tuple[int, int] | None = None) -> list:
    """`mends` (of the learner's `function` in `module`) without those on a kept line of it, where
    a mend of a line the learner wrote their own way mends too; all of them where none, or every
    one, is on a kept line, or where either file has no `def` of the function. A mend of a
    statement's place is never set aside, nor any where `span` (the lines where the values part,
    blame.py) holds mends of kept lines alone."""
    try:
        kept = kept_lines(definition(module, function), definition(reference, function))
    except (KeyError, OSError, SyntaxError, TypeError):
        return mends
    fresh = [m for m in mends if m.function != function or m.line not in kept or placed(m)]

    def inside(m) -> bool:
        return span is not None and span[0] <= m.line <= span[1]

    if any(inside(m) for m in mends if m not in fresh) and not any(inside(m) for m in fresh):
        return mends  # where the values part, only kept lines are mended: blame points there
    return fresh if fresh and len(fresh) < len(mends) else mends


def kept_event(module: ModuleType, reference: ModuleType, function: str, line: int, texts: list[str]) -> dict:
    """What the engine needs beside a mend of the learner's `function` at `line` (calls.py's
    "repair" event): the reference's lines the learner wrote word for word, whether the mended line
    is one the learner wrote their own way, the signatures of the learner's calls, and `texts`
    (texts_kept)."""
    try:
        mine, theirs = definition(module, function), definition(reference, function)
    except (KeyError, OSError, SyntaxError, TypeError):
        return {}
    return {"kept": sorted(reference_lines_kept(mine, theirs)), "fresh": line not in kept_lines(mine, theirs),
            "calls": sorted({call_signature(n) for n in ast.walk(mine) if isinstance(n, ast.Call)}),
            "texts": texts}
