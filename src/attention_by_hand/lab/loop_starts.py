"""A running value started again at every pass of its loop: the mend that starts it once.

An online softmax keeps a running sum `l`, set to zero before the loop and updated at every pass,
`l = l * torch.exp(m - m_new) + torch.exp(s - m_new)`. A learner who writes its start inside the
loop, `l = torch.zeros_like(s)` as the body's first line, starts the sum again at each pass: the
update's old term is multiplied by zero, and at the end `l` holds only the last pass's term. The
outputs are those of the reference with that term dropped, and a change of the reference says so,
though the learner's line has the term: what is wrong is where the start stands.

Where the start reads no name the loop gives a value to, the mend moves it before the loop
(`start_before`): in tiled attention, an accumulator started inside the loop over key blocks
belongs before it, once per query block. Where it reads one (`s`, for its shape), the mend runs it
only on the loop's first pass (`once`): the statement becomes

    try:
        l            # already started: keep it
    except NameError:
        l = torch.zeros_like(s)

which `mend_changes` offers (mutant_edits.edit_statements makes both) and repair.py verifies on
every input, like any other change. A start is a statement of the loop's own body that assigns one
name a fresh value (a number, or a tensor made from sizes: `zeros`, `zeros_like`, `full`,
`new_zeros`, ...), whose name the later statements of that body both read and set again
(`l = l * r + p`; `m_new = max(m, s)`, then `m = m_new`).

The other way to lose a running value: the loop computes its next value under a twin name
(`m_new = torch.maximum(m, s)`) and reads the old one (`exp(m - m_new)`), but never carries the
twin on (`m = m_new`), so every pass reads `m` as it stood before the loop. The `carry` mend adds
that assignment as the loop body's last statement. A twin is the name with `_new`, `_next` or
`_cur` after it, or `new_` or `next_` before it, assigned in the loop's body; the name itself is
read there, assigned before the loop, and never assigned in it. A name the function is given
(`x` in a block's loop over its two residual steps) has a twin too: a name the loop's body assigns
from an expression that reads it and that is read after the loop (`out = x + branch(norm(x))`,
then `return out`: every pass starts from the `x` the function was given, and the attention
step is lost).

A running total lost a third way: the loop's body gives it each pass's value alone, `total =
outs[:, h]` where `total = total + outs[:, h]` was meant, so it ends with the last pass's value.
The `accumulate` mend adds the name to what it is given, for a name started at zero before the
loop (0, or a tensor of zeros), assigned once in the body from what never reads it, read nowhere
else in the body and read after the loop.

Left out: a start in a branch of the loop (done only on some passes), and one that unpacks several
names; a twin under another name (`m2`, `mx`) of a name assigned before the loop.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.mutant_edits import TENSOR_MAKERS, Change, call_name, quote

__all__ = ["carry_words", "loop_carries", "loop_starts", "start_words"]

_LOOPS = (ast.For, ast.While)
_MAKERS = TENSOR_MAKERS | {f"{name}_like" for name in TENSOR_MAKERS} | {"full_like", "tensor"}


def _fresh(value: ast.expr) -> bool:
    """A value that depends on no earlier pass: a number, `-inf`, or a tensor made from sizes."""
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    return isinstance(value, ast.Call) and (call_name(value) in _MAKERS or (
        call_name(value) == "float" and len(value.args) == 1 and isinstance(value.args[0], ast.Constant)))


def _carried(name: str, later: list[ast.stmt]) -> bool:
    """Whether the statements after the start both read `name` and give it a new value: a value
    carried from pass to pass (`l = l * r + p`; `m_new = max(m, s)`, then `m = m_new`)."""
    walked = [n for s in later for n in ast.walk(s)]
    if any(isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name for n in walked):
        return True  # `acc += p @ v` reads and sets it
    nodes = [n for n in walked if isinstance(n, ast.Name) and n.id == name]
    return any(isinstance(n.ctx, ast.Load) for n in nodes) and any(isinstance(n.ctx, ast.Store) for n in nodes)


def loop_starts(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `start_before` and `once` changes of `fdef`: each start of a running value in a loop's
    own body moved before the loop (each alone, then all of that loop's together), or run on the
    first pass only."""
    found = []
    for loop in (n for n in ast.walk(fdef) if isinstance(n, _LOOPS)):
        starts = [at for at, statement in enumerate(loop.body) if _starts_running(statement, loop.body[at + 1:])]
        movable = [at for at in starts if not _reads(loop.body[at].value) & _binds(loop)]  # they can stand before it
        # every start of the loop together first: where several restart, no one of them alone mends it
        for group in ([tuple(movable)] if len(movable) > 1 else []) + [(at,) for at in movable]:
            moved = " and ".join(f"`{quote(loop.body[at])}`" for at in group)
            found.append(Change(fdef.name, index[id(loop)], "start_before", group, "step",
                                f"{moved} moved before {_the_loop(loop)}", loop.body[group[0]].lineno))
        found += [Change(fdef.name, index[id(loop.body[at])], "once", None, "step",
                         f"`{quote(loop.body[at])}` done once, on the first pass of {_the_loop(loop)}", loop.body[at].lineno)
                  for at in starts]
    return found


def _twins(name: str) -> tuple[str, ...]:
    return (f"{name}_new", f"{name}_next", f"{name}_cur", f"new_{name}", f"next_{name}")


def loop_carries(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """The `carry` changes of `fdef`: `name = twin` added at the end of a loop's body, for each name
    the loop reads but never sets again while it sets the name's twin (the module's docstring); then
    the `accumulate` changes (`_totals`)."""
    found = _totals(fdef, index)
    for loop in (n for n in ast.walk(fdef) if isinstance(n, _LOOPS)):
        inside = [n for s in loop.body for n in ast.walk(s)]
        set_inside = _binds(loop) | {n.target.id for n in inside if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
        read_inside = {n.id for n in inside if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        before = {t.id for s in ast.walk(fdef) if isinstance(s, ast.Assign) and s.lineno < loop.lineno
                  for target in s.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        given = {a.arg for a in fdef.args.args} - before
        for name in sorted((read_inside & (before | given)) - set_inside):
            twins = [t for t in _twins(name) if t in set_inside] if name in before else _results_of(fdef, loop, name)
            found += [Change(fdef.name, index[id(loop)], "carry", (name, twin), "step",
                             f"`{name} = {twin}` added at the end of {_the_loop(loop)}", loop.body[-1].lineno)
                      for twin in twins]
    return found


def _totals(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """`total = x` in a loop's body made `total = total + x`, where `total` is started at zero before
    the loop, read after it, and neither read in the body nor set there otherwise (each assignment
    once, for the outermost loop it lies in)."""
    found = {}
    for loop in (n for n in ast.walk(fdef) if isinstance(n, _LOOPS)):
        started = {s.targets[0].id for s in ast.walk(fdef) if isinstance(s, ast.Assign) and s.lineno < loop.lineno
                   and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and _zero(s.value)}
        after = _read_after(fdef, loop)
        inside = [n for s in loop.body for n in ast.walk(s)]
        for s in (n for n in inside if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            name = s.targets[0].id
            stores = [n for n in inside if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
            if (name in started & after and len(stores) == 1 and name not in _reads(loop)
                    and id(s.value) in index and id(s) not in found):
                found[id(s)] = Change(fdef.name, index[id(s.value)], "accumulate", name, "step",
                                      f"`{name} = {name} + {quote(s.value)}` for `{quote(s)}`", s.lineno)
    return list(found.values())


def _zero(value: ast.expr) -> bool:
    """A start a sum can grow from: 0, or a tensor of zeros made from sizes."""
    if isinstance(value, ast.Constant):
        return type(value.value) in (int, float) and value.value == 0
    return isinstance(value, ast.Call) and call_name(value) in ("zeros", "zeros_like", "new_zeros")


def _results_of(fdef: ast.FunctionDef, loop: ast.AST, name: str) -> list[str]:
    """The names the loop's body assigns from an expression that reads `name`, read after the loop."""
    after = _read_after(fdef, loop)
    made = {s.targets[0].id for part in loop.body for s in ast.walk(part) if isinstance(s, ast.Assign)
            and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and name in _reads(s.value)}
    return sorted((made & after) - {name})


def _read_after(fdef: ast.FunctionDef, loop: ast.AST) -> set[str]:
    """The names the statements after the loop read."""
    end = getattr(loop, "end_lineno", loop.lineno)
    return {n.id for s in ast.walk(fdef) if isinstance(s, ast.stmt) and s.lineno > end
            for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def carry_words(node: ast.AST, change: Change) -> str | None:
    """The mistake the `carry` or `accumulate` change mends, in words (`node`: the loop, or the value given)."""
    if change.op == "accumulate" and isinstance(node, ast.expr):
        name, value = change.arg, quote(node)
        return (f"`{name} = {value}` inside the loop gives `{name}` a new value IN PLACE of what it held, so it ends "
                f"with the last value given alone; adding each to it is `{name} = {name} + {value}` (or `{name} += ...`)")
    if not isinstance(node, _LOOPS) or change.op != "carry":
        return None
    loop, (name, twin) = node, change.arg
    return (f"{_the_loop(loop)} never carries `{twin}` on into `{name}`: every pass reads `{name}` as it stood before the "
            f"loop, so what earlier passes found is lost; end each pass with `{name} = {twin}`")


def _starts_running(statement: ast.stmt, later: list[ast.stmt]) -> bool:
    """`l = torch.zeros(...)` (one name, a fresh value) that the later statements carry on."""
    return (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
            and _fresh(statement.value) and _carried(statement.targets[0].id, later))


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _binds(loop: ast.AST) -> set[str]:
    """The names a loop gives values to: its variable and what its body assigns."""
    parts = [loop.target, *loop.body] if isinstance(loop, ast.For) else loop.body
    return {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _the_loop(loop: ast.AST) -> str:
    """The loop by what it walks (its header's calls would be described as the learner's: call_words.py)."""
    target = loop.target if isinstance(loop, ast.For) else None
    return f"the loop over `{quote(target)}`" if target is not None else "the `while` loop"


def start_words(statements: list[ast.AST], loop: ast.AST | None, movable: bool = True) -> str | None:
    """The mistake the `once` and `start_before` changes mend, in words. movable: the start reads
    nothing the loop makes, so it can stand before the loop as it is."""
    if not (statements and all(isinstance(s, ast.Assign) for s in statements) and isinstance(loop, _LOOPS)):
        return None
    names = " and ".join(f"`{s.targets[0].id}`" for s in statements)
    lines = " and ".join(f"`{quote(s)}`" for s in statements)
    it, them = ("it", "it") if len(statements) == 1 else ("they", "them")
    advice = (f"start {them} once, before the loop" if movable else
              f"start {them} once: on the loop's first pass, or before the loop from a shape known there")
    return (f"{lines} inside {_the_loop(loop)} {'starts' if it == 'it' else 'start'} {names} again at every pass, so "
            f"what earlier passes added is lost and {it} {'ends' if it == 'it' else 'end'} with the last pass's alone; "
            f"{advice}")
