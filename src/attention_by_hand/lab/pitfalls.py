"""Python pitfalls read off a learner's function, said when its check fails: they are facts of
its code that no output shows, and each breaks a function that reads right line by line.

- A generator used twice: `heads = (attend(h) for h in range(n))` can be gone through once;
  its second use finds it empty (`torch.cat` of nothing, a sum of 0).
- A function made in a loop that reads the loop's variable (`lambda x: x[h]`, a `def` in the
  loop's body) and is kept for after the loop: Python looks the variable up when the function
  runs, so every one of them sees its last value (every head computes the last head).
- A result written into an input with `out=` and kept under another name, then both names read
  in one statement (`exp(m - m_new)`): they are one tensor, and the old values are gone.
- The loop's own name given a new value (`for r in rows: r = r / r.sum()`) that nothing reads
  before the next pass: the row it came from stays as it was.
- A tensor made to be filled (`lse = torch.zeros(T)`) and then given a new value in every pass of a
  loop that never reads it (`lse = m + l.log()`): after the loop it holds the last pass's value.
- `&` or `|` beside a comparison without brackets, `causal & ks > qs`: they bind tighter than `>`,
  so Python compares `causal & ks` with `qs` (said with the reading Python makes).
- Written tuples given to `zip` as rows, `for norm, branch in zip((ln1, attn), (ln2, mlp))`: zip
  takes them by position, so the passes are `ln1, ln2` and then `attn, mlp` (said, pass by pass).
- A list that repeats one object, `[[0] * V] * V` or `[torch.zeros(d)] * n`, then changed one
  entry at a time: every "row" is the same row, so a count made in one shows in all.

Each is said only where the code shows it for certain: the generator's name read two or more
times after it was made and never made again; the function stored (appended, put in a list or
a dict, or the `def`'s own name) in something read after the loop, and the variable not bound
as a default (`lambda x, h=h: ...`); the repeated list bound once and changed in place, through
an entry, before any entry was replaced;
the loop's name not given a value made in place (`r.div_(...)`), and not read after the loop,
in its `else`, or by a function made in the function. The child (calls.py) reads the learner's
source; verdict.py puts the words before a failed check's hint (learner_notes.with_notes).

Pitfalls of how a value was made (a list's `append` kept as its value, a tensor made by `expand`
and written into, `~` of an integer tensor, index pairs given as one index, a name negated as an
index, R's way of leaving an entry out, an in-place call's result kept under a new name and the old
name read after it) are read in made_pitfalls.py,
the pieces of `split(1)` joined along another axis (and `reduce` with no start) in call_pitfalls.py, values computed and
dropped (`x.masked_fill(...)` alone on its line) in dropped_pitfalls.py, a call's argument that means something else
than it seems to (`std_mean(x, -1, True)`, `transpose(-1, -1)`) in reading_pitfalls.py, and said with these.

Left out: iterators made other ways (`iter(...)`, a generator function), and loops in helpers
the function calls.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap

from attention_by_hand.lab.call_pitfalls import call_pitfalls
from attention_by_hand.lab.code_layout import call_name, parents as parents_in
from attention_by_hand.lab.dropped_pitfalls import no_effect, result_dropped
from attention_by_hand.lab.made_pitfalls import (changed_then_read, expanded_written, inverted_integers, negated_name_index,
                                                 none_kept, pairs_as_one_index)
from attention_by_hand.lab.made_pitfalls import stores as _stores
from attention_by_hand.lab.reading_pitfalls import reading_pitfalls

__all__ = ["pitfalls"]

_LAZY = ("map", "filter", "zip", "reversed", "enumerate")  # calls that give a one-pass iterator


def _binds(scope: ast.AST, name: str) -> bool:
    """Whether a nested function, lambda or comprehension binds `name` for itself."""
    if isinstance(scope, (ast.Lambda, ast.FunctionDef)):
        a = scope.args
        return name in {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None}
    if isinstance(scope, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return any(name in {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)} for g in scope.generators)
    return False


def _loads(tree: ast.AST, name: str) -> list[ast.Name]:
    """The reads of `name` in `tree` that mean the same variable (not a nested scope's own)."""
    found = []

    def visit(node):
        if node is not tree and _binds(node, name):
            return
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _apart(fdef: ast.FunctionDef, a: ast.AST, b: ast.AST) -> bool:
    """Whether b can run only where a did not: the two branches of one `if`, or a in a block that
    ends by leaving the function (`return`, `raise`) and b outside it."""
    for node in ast.walk(fdef):
        blocks = [node.body, node.orelse] if isinstance(node, ast.If) else [getattr(node, "body", None)]
        inside = [{id(n) for s in block for n in ast.walk(s)} if isinstance(block, list) else set() for block in blocks]
        if isinstance(node, ast.If) and ((id(a) in inside[0] and id(b) in inside[1]) or (id(a) in inside[1] and id(b) in inside[0])):
            return True
        for block, ids in zip(blocks, inside):
            if (isinstance(block, list) and block and isinstance(block[-1], (ast.Return, ast.Raise))
                    and id(a) in ids and id(b) not in ids and node is not fdef):
                return True
    parents = parents_in(fdef)
    holder = parents.get(id(a))
    while holder is not None and not isinstance(holder, ast.stmt):
        holder = parents.get(id(holder))
    return isinstance(holder, (ast.Return, ast.Raise))


def _stops_early(fdef: ast.FunctionDef, use: ast.Name) -> bool:
    """A use that may take only part of the iterator (`next(it)`, `any(...)`): the rest is still there."""
    call = parents_in(fdef).get(id(use))
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("next", "any", "all")


def _generators(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        call = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _LAZY
        name = node.targets[0].id
        if not (isinstance(value, ast.GeneratorExp) or call) or len(_stores(fdef, name)) != 1:
            continue
        uses = sorted((n for n in _loads(fdef, name) if n.lineno > node.end_lineno), key=lambda n: (n.lineno, n.col_offset))
        if len(uses) >= 2 and not _apart(fdef, uses[0], uses[1]) and not _stops_early(fdef, uses[0]):
            what = f"a one-pass iterator (`{value.func.id}(...)`)" if call else "a generator"
            found.append((node.lineno, f"`{name}` ({{0}}) is {what}: it can be gone through once, so its next use "
                                       f"({{1}}) finds it already empty", [node.lineno, uses[1].lineno]))
    return found


def _holders(loop: ast.For, made: ast.AST) -> set[str]:
    """The names that keep a function made in the loop: a def's own name, a list it is appended
    to, a list or dict it is put in."""
    held = {made.name} if isinstance(made, ast.FunctionDef) else set()
    for node in ast.walk(loop):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "insert")
                and isinstance(node.func.value, ast.Name) and any(a is made or (isinstance(a, ast.Name) and a.id in held)
                                                                  for a in node.args)):
            held.add(node.func.value.id)
        if isinstance(node, ast.Assign) and (node.value is made or (isinstance(node.value, ast.Name) and node.value.id in held)):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    held.add(target.value.id)
    return held


def _own(made: ast.AST) -> set[str]:
    """The names a function made in the loop binds itself: its parameters and its own variables."""
    a = made.args
    names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None}
    return names | {n.id for n in ast.walk(made) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _kept_after(fdef: ast.FunctionDef, loop: ast.For, holder: str) -> bool:
    """Whether the holder is read after the loop, still holding what the loop put in it (never
    bound again after the loop)."""
    if any(n.lineno > loop.end_lineno for n in _stores(fdef, holder)):
        return False
    return any(n.lineno > loop.end_lineno for n in _loads(fdef, holder))


def _late_bound(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    found = []
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For)):
        variables = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for made in (n for n in ast.walk(loop) if isinstance(n, (ast.Lambda, ast.FunctionDef)) and n is not loop):
            body = made.body if isinstance(made, ast.Lambda) else ast.Module(made.body, [])
            read = sorted(v for v in variables - _own(made) if _loads(body, v))
            if read and any(_kept_after(fdef, loop, h) for h in _holders(loop, made)):
                found.append((made.lineno, f"the function made in the loop ({{0}}) reads `{read[0]}` when it is called, "
                                           f"not when it was made: called after the loop, every one of them sees the "
                                           f"last `{read[0]}`", [made.lineno]))
    return found


_MADE = ("zeros", "ones", "empty", "full", "tensor", "zeros_like", "ones_like", "list", "dict", "set")


def _one_object(node: ast.AST) -> bool:
    """A value made anew where it is written (a list, a tensor, a dict): `[it] * n` holds it n times."""
    if isinstance(node, (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return isinstance(node.left, ast.List) or isinstance(node.right, ast.List)
    func = node.func if isinstance(node, ast.Call) else None
    return (isinstance(func, ast.Attribute) and func.attr in _MADE) or (isinstance(func, ast.Name) and func.id in _MADE)


def _repeated(value: ast.AST) -> bool:
    """`[row] * n` or `n * [row]`, row a list or tensor made there: one object, n places."""
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult)):
        return False
    held = value.left if isinstance(value.left, ast.List) else value.right if isinstance(value.right, ast.List) else None
    return held is not None and len(held.elts) == 1 and _one_object(held.elts[0])


def _changed_in_place(fdef: ast.FunctionDef, name: str) -> list[ast.AST]:
    """The statements that change one entry of `name` in place: `name[i][j] = ...`, `name[i][j] += ...`,
    `name[i] += ...`, `name[i].append(...)` (or another method that changes it)."""
    found = []
    for node in ast.walk(fdef):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        for target in targets:
            inner = target.value if isinstance(target, ast.Subscript) else None
            deep = isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id == name
            shallow = (isinstance(node, ast.AugAssign) and isinstance(inner, ast.Name) and inner.id == name)
            if deep or shallow:
                found.append(node)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Subscript)
                and isinstance(node.func.value.value, ast.Name) and node.func.value.value.id == name
                and (node.func.attr in ("append", "extend", "insert", "update") or node.func.attr.endswith("_"))):
            found.append(node)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _shared_rows(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`[row] * n` bound to a name once, then one entry changed in place through it."""
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        if not _repeated(node.value) or len(_stores(fdef, name)) != 1:
            continue
        changed = [c for c in _changed_in_place(fdef, name) if c.lineno > node.end_lineno]
        replaced = [a for a in ast.walk(fdef) if isinstance(a, ast.Assign) and a.lineno > node.end_lineno and any(
            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name for t in a.targets)]
        # rows put in one by one (`name[i] = [0] * n`) before anything is changed: no longer one row
        if changed and not any(a.lineno <= changed[0].lineno for a in replaced):
            found.append((node.lineno, f"`{name}` ({{0}}) holds one object many times: `[row] * n` repeats the same row, "
                                       f"not copies of it, so a change to one entry ({{1}}) shows in every one",
                          [node.lineno, changed[0].lineno]))
    return found


def _written_into(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`new = torch.maximum(old, s, out=old)`, then a statement that reads both `new` and `old`
    (`exp(old - new)`): it takes them for two values, but they are one tensor and the old values
    are gone. A buffer filled with `out=` and then read under either name alone is fine."""
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)):
            continue
        out = next((k.value for k in node.value.keywords if k.arg == "out"), None)
        name = node.targets[0].id
        if not isinstance(out, ast.Name) or out.id == name:
            continue
        both = [s for s in ast.walk(fdef) if isinstance(s, ast.stmt) and not isinstance(s, _BLOCKS) and s is not node
                and s.lineno > node.lineno and _loads(s, name) and _loads(s, out.id)]
        if both:
            first = min(both, key=lambda s: s.lineno)
            found.append((node.lineno, f"`{name}` ({{0}}) is `{out.id}` itself: `out={out.id}` writes the result into "
                                       f"`{out.id}` and returns it, so `{out.id}` no longer holds its old values, which "
                                       f"{{1}} reads beside `{name}`", [node.lineno, first.lineno]))
    return found


# statements that hold others: a read is counted at the simple statement that makes it
_BLOCKS = (ast.For, ast.While, ast.If, ast.With, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _after(statement: ast.stmt, body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of `body` after the one that holds `statement` (itself, or a block holding
    it: its branches, `else`, handlers and `finally` all count as after)."""
    for k, s in enumerate(body):
        if any(n is statement for n in ast.walk(s)):
            if s is statement:
                return body[k + 1:]
            # in the order they can run (an `if`'s other branch counts too: said too seldom, never wrongly)
            inner = [*getattr(s, "body", []), *getattr(s, "orelse", [])]
            inner += [h for handler in getattr(s, "handlers", []) for h in handler.body] + getattr(s, "finalbody", [])
            return _after(statement, inner) + body[k + 1:]
    return []


def _changes_itself(value: ast.AST) -> bool:
    """A right side that changes a tensor in place (`row.div_(...)`, `out=`): the row does change."""
    return any(isinstance(n, ast.Call) and ((isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_")
                                            and not n.func.attr.startswith("_")) or any(k.arg == "out" for k in n.keywords))
               for n in ast.walk(value))


def _loop_rebound(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`for r in rows: r = r / r.sum()`: the loop's name given a new value that nothing reads
    before the next pass replaces it, and that is not read after the loop: the entry it came from
    stays as it was."""
    found = []
    nested = [n for n in ast.walk(fdef) if isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not fdef]
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)):
        name = loop.target.id
        # read after the loop, in its `else`, or by a function made in the function: the new value may be used
        if (any(n.lineno > loop.end_lineno for n in _loads(fdef, name)) or any(_loads(s, name) for s in loop.orelse)
                or any(_loads(n, name) for n in nested)):
            continue
        stores = [a for a in ast.walk(loop) if isinstance(a, ast.Assign) and a is not loop
                  and any(isinstance(t, ast.Name) and t.id == name for t in a.targets)]
        if not stores:
            continue
        last = max(stores, key=lambda a: a.lineno)
        if not _changes_itself(last.value) and not any(_loads(s, name) for s in _after(last, loop.body)):
            found.append((last.lineno, f"`{name}` is the loop's own name: giving it a new value ({{0}}) changes "
                                       f"nothing the loop goes through, and the next pass replaces it", [last.lineno]))
    return found


# the calls that make a tensor to be filled (`lse = torch.zeros(...)`, `out = q.new_zeros(...)`)
_MADE_EMPTY = ("zeros", "empty", "full", "ones", "zeros_like", "empty_like", "full_like", "ones_like", "new_zeros",
               "new_empty", "new_full", "new_ones")


def _breaks(loop: ast.For | ast.While) -> bool:
    """Whether a `break` can stop this loop early (one inside a loop nested in it stops that one)."""
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return True
        if not isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
        elif isinstance(node, (ast.For, ast.While)):
            stack.extend(node.orelse)  # a nested loop's `else` runs in this loop
    return False


def _replaced_in_loop(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`lse = torch.zeros(T)` before a loop, then `lse = m + l.log()` in it: a tensor made to be
    filled, given a new value by a plain assignment that is a statement of the loop's own body (so
    every pass makes it), never read in the loop (nor written into, nor updated by `+=`), and read
    after it. Each pass replaces the last one's value without reading it, so after the loop the
    name holds the last pass's value alone, and the tensor made for it is never written. Not said
    where the loop can stop early (a `break` of its own), or where the name is read between the two."""
    found = []
    for at, loop in enumerate(fdef.body):
        if not isinstance(loop, (ast.For, ast.While)) or _breaks(loop):
            continue
        for made in fdef.body[:at]:
            if not (isinstance(made, ast.Assign) and len(made.targets) == 1 and isinstance(made.targets[0], ast.Name)
                    and isinstance(made.value, ast.Call) and call_name(made.value) in _MADE_EMPTY):
                continue
            name = made.targets[0].id
            between = fdef.body[fdef.body.index(made) + 1:at]
            if _loads(loop, name) or any(_loads(s, name) or _stores(s, name) for s in between):
                continue  # read, or made again, before the loop or in it
            if any(isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name) and n.target.id == name
                   for n in ast.walk(loop)):
                continue
            stores = [s for s in loop.body if isinstance(s, ast.Assign)
                      and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)]
            if not stores or not any(_loads(s, name) for s in fdef.body[at + 1:]):
                continue
            last = stores[-1]
            found.append((last.lineno, f"`{name}` is made at {{1}} to be filled, but the loop gives it a new value ({{0}}) "
                                       f"in every pass without reading it: after the loop it holds the last pass's value "
                                       f"alone, and the tensor made at {{1}} is never written", [last.lineno, made.lineno]))
    return found


def _zipped_rows(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`for norm, branch in zip((ln1, attn), (ln2, mlp))`: written tuples given to zip as rows,
    as many as the loop's names and each as long: zip pairs them by position, so each pass takes
    one column, the first entries together (`ln1, ln2`), then the second. The passes are said."""
    found = []
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For)):
        zipped, target = loop.iter, loop.target
        if not (isinstance(zipped, ast.Call) and isinstance(zipped.func, ast.Name) and zipped.func.id == "zip"
                and not zipped.keywords and isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts)):
            continue
        rows, names = zipped.args, [t.id for t in target.elts]
        if not (len(rows) == len(names) >= 2 and all(isinstance(r, (ast.Tuple, ast.List)) and len(r.elts) == len(names)
                                                     for r in rows)):
            continue
        # said where the code's own names show rows written as pairs: a column holds one kind
        # (`ln1, ln2`) and no row does; `zip((w1, w2), (b1, b2))`, columns of pairs, is right
        stem = [[re.sub(r"\d+$", "", ast.unparse(e)) for e in r.elts] for r in rows]
        columns = [[row[k] for row in stem] for k in range(len(names))]
        if not (any(len(set(c)) == 1 for c in columns) and all(len(set(r)) == len(r) for r in stem)):
            continue
        passes = [", ".join(ast.unparse(r.elts[k]) for r in rows) for k in range(len(names))]
        said = " and then ".join(f"`{p}`" for p in passes)
        found.append((loop.lineno, f"`for {', '.join(names)} in zip(...)` ({{0}}) takes `{', '.join(names)}` = {said}: "
                                   "zip pairs the entries of its arguments by position, the first of each together, "
                                   "not each argument's own entries", [loop.lineno]))
    return found


_BITWISE = {ast.BitAnd: ("&", "and"), ast.BitOr: ("|", "or")}


def _bitwise_before_comparison(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """`causal & ks > qs` without brackets: `&` and `|` bind tighter than a comparison, so Python
    compares `causal & ks` with `qs`. Brackets the learner wrote (`(a & b) > c`) are seen by where
    the nodes start and end, and said nothing of."""
    found = []
    for test in (n for n in ast.walk(fdef) if isinstance(n, ast.Compare) and len(n.ops) == 1):
        left, right = test.left, test.comparators[0]
        side = left if isinstance(left, ast.BinOp) and type(left.op) in _BITWISE and left.col_offset == test.col_offset \
            else right if isinstance(right, ast.BinOp) and type(right.op) in _BITWISE and right.end_col_offset == test.end_col_offset \
            else None
        if side is None or test.lineno != test.end_lineno:
            continue
        # `idx & 1 == 0` (an even index) is read as meant; so is a comparison of two bitwise terms
        far = right if side is left else left
        if any(isinstance(n, ast.Constant) for n in (side.left, side.right, far)) or (
                isinstance(far, ast.BinOp) and type(far.op) in _BITWISE):
            continue
        sign, word = _BITWISE[type(side.op)]
        text, inner = ast.unparse(test), ast.unparse(side)
        if side is left:  # `a & b > c`: read `(a & b) > c`, meant `a & (b > c)`
            compared = ast.unparse(ast.Compare(side.right, test.ops, test.comparators))
            read = f"({inner}) {text[len(inner):].strip()}"
            meant = f"`{ast.unparse(side.left)} {word} {compared}` (bools) or `{ast.unparse(side.left)} {sign} ({compared})` (tensors)"
        else:  # `c > a | b`: read `c > (a | b)`, meant `(c > a) | b`
            compared = ast.unparse(ast.Compare(test.left, test.ops, [side.left]))
            read = f"{text[: len(text) - len(inner)].strip()} ({inner})"
            meant = f"`{compared} {word} {ast.unparse(side.right)}` (bools) or `({compared}) {sign} {ast.unparse(side.right)}` (tensors)"
        found.append((test.lineno, f"`{text}` ({{0}}) is read by Python as `{read}`: `{sign}` binds tighter than a "
                                   f"comparison; for both conditions, {meant}", [test.lineno]))
    return found


def _guarded(find, fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """A reader of pitfalls that cannot read this code says nothing, and the others still speak."""
    try:
        return find(fdef)
    except Exception:  # noqa: BLE001 - a construct it never met
        return []


def pitfalls(function) -> list[list]:
    """[[line, words, lines], ...] for the pitfalls of `function`'s own code: `words` holds {0},
    {1}, ... where the lines of `lines` (of its file) are to be said, as the parent says lines
    (a script's line, a notebook's cell)."""
    try:
        lines, start = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return []
    fdef = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
    if fdef is None:
        return []
    # the lines of the parsed text count from 1 at the `def`: the file's lines count from `start`
    found = sorted(_generators(fdef) + _late_bound(fdef) + _shared_rows(fdef) + no_effect(fdef)
                   + _written_into(fdef) + _loop_rebound(fdef) + _replaced_in_loop(fdef) + none_kept(fdef) + result_dropped(fdef, function)
                   + expanded_written(fdef) + inverted_integers(fdef) + _zipped_rows(fdef)
                   + _bitwise_before_comparison(fdef) + pairs_as_one_index(fdef) + negated_name_index(fdef)
                   + changed_then_read(fdef) + _guarded(call_pitfalls, fdef) + _guarded(reading_pitfalls, fdef))
    return [[line + start - 1, words, [at + start - 1 for at in where]] for line, words, where in found]
