"""Whether an error was raised inside a loop's body: a place two raising functions must share.

Two functions that raise the same error with the same words on every input may still raise it at
different places: in lab 09, an online softmax that keeps its running maximum per score fails
inside its loop, where the reference with `l` for `l[..., None]` in its return fails at the return,
with the same sizes in the message. Such a change of the reference names a slip the learner did
not make. So a raised error carries, where it can be told, whether the line that raised it (or a
line that called it, of the same file) lies in the body of a loop (`for`, `while`, a
comprehension); the error of a change of the reference and the learner's agree only where both
sides say the same (diagnosis.py, through outcomes.agree).

The statement that raised says more: a change of the reference that raises the learner's very words
in its `dv[...] +=` line (the keys of every block where one block's were meant) names no slip of a
learner whose `ds = ...` line raised them, while the learner's own `dv` line ran. So an error also
carries the names its raising statement assigns (`assigned_at`), and the learner's also the names
its function assigns (`assigned_around`). The raising statement is the checked function's own step
(`checked_line`), where a function it called raised: a change of the reference's `self_attention`
that puts the tensor `x` where `query` belongs raises "'Tensor' object is not callable" inside the
reference's `attention_weights`, at its `q, k = ...`, and so does a learner's `v = value.apply(x)`
(the tensor called by the layer) at its own `v = ...`; the steps of `self_attention` that raised,
`weights = ...` and `v = ...`, tell them apart. Two errors were raised at different steps where their
statements share no name and the learner's function has a statement of the other's name, which is
not the one that raised. The learner's names are kept only where the reference assigns them too
(calls.py): a learner's own names (`scores` where the reference has `s`) tell nothing, and a name
the learner never assigns may be a step the learner wrote otherwise (`q = q @ k.T` where the
reference has `scores = ...`).

An error also carries the integers the learner's functions that raised it write (`written_integers`:
the checked function's and the one whose line raised, and the module's named constants): a change
of the reference that asks for axis 2, named only by errors that say "got 2", must be a change the
learner could have written. A batched product given 2-D inputs raises that axis's error from inside
torch, where the learner wrote no 2 (diagnosis.py). An axis written another way (-3 for 0 on three
axes), or in a helper between the two functions, is not read: such a change is then not named.

Where an error's words hold no number ("index out of range in self"), they tell nothing of sizes,
and many a wrong value raises them: a change of the reference that shifts its `arange` raises them
where a learner's running sum of the ids does. So an error also carries the names of the calls
that made the raising line's values (`called_names`: that line's and those of the lines feeding
it), and such a change is named only where its call is among them (diagnosis.py).

Left out: a function with no loop (a learner's loop where the reference has none raises "in a
loop" at a place the reference's code cannot show: nothing is said), and a file whose source
cannot be read or parsed (a notebook's cell).
"""

from __future__ import annotations

import ast
import linecache
from functools import lru_cache
from pathlib import Path
from types import CodeType, TracebackType

from attention_by_hand.lab.code_layout import signed_int
from attention_by_hand.lab.fed_lines import feeding_calls

__all__ = ["assigned_around", "assigned_at", "assigned_names", "called_names", "checked_line", "in_loop", "raised_in_loop",
           "raising_names", "written_integers"]


_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@lru_cache(maxsize=64)
def _tree(path: str) -> ast.Module | None:
    """The file parsed, once for its readers here; None when it cannot be read or parsed."""
    source = "".join(linecache.getlines(path))
    try:
        return ast.parse(source) if source else None
    except (SyntaxError, ValueError):
        return None


@lru_cache(maxsize=64)
def _functions(path: str) -> tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...] | None:
    """Each function of the file: its first and last line, and the line ranges of its loops'
    bodies (a loop's header and its `else` left out; a comprehension's whole expression); None
    when the file cannot be read or parsed."""
    tree = _tree(path)
    if tree is None:
        return None
    found = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nodes = list(ast.walk(function))
            bodies = [(n.body[0].lineno, n.body[-1].end_lineno) for n in nodes if isinstance(n, _LOOPS) and n.body]
            bodies += [(n.lineno, n.end_lineno) for n in nodes if isinstance(n, _COMPREHENSIONS)]
            found.append((function.lineno, function.end_lineno, tuple(bodies)))
    return tuple(found)


def in_loop(path: str, line: int | None) -> bool | None:
    """Whether `line` of the file at `path` lies in a loop's body. None when it cannot be told, or
    when the function around it has no loop: a learner's loop and a reference written without one
    (or the other way round) compute the same things at places that cannot be compared."""
    functions = _functions(path) if line else None
    around = [f for f in functions or () if f[0] <= line <= f[1]]
    if not around:
        return None
    bodies = max(around, key=lambda f: f[0])[2]  # the innermost function
    return any(first <= line <= last for first, last in bodies) if bodies else None


def raised_in_loop(tb: TracebackType | None, path: str, resolve: bool = False) -> bool | None:
    """Whether any frame of the traceback that runs code of the file at `path` stands in a loop's
    body (a helper called from a loop raises in the loop); None when none can be told. resolve:
    compare the frames' files by their resolved paths (a learner's file, imported by another name
    of it), not by name alone (a change of the reference, compiled under its path: thousands)."""
    told = set()
    while tb is not None:
        file = tb.tb_frame.f_code.co_filename
        if file == path or (resolve and Path(file).resolve() == Path(path)):
            told.add(in_loop(path, tb.tb_lineno))
        tb = tb.tb_next
    return True if True in told else False if False in told else None


def _roots(target: ast.AST) -> set[str]:
    """The names an assignment's target binds or writes into: `ds`; `dv` of `dv[..., j:j + b, :]`;
    `k_j` and `v_j` of `k_j, v_j`."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_roots(t) for t in target.elts)) if target.elts else set()
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    return {target.id} if isinstance(target, ast.Name) else set()


@lru_cache(maxsize=64)
def _statements(path: str) -> tuple[tuple[int, int, frozenset[str]], ...] | None:
    """Each assignment of the file: its first and last line and the names it assigns."""
    tree = _tree(path)
    if tree is None:
        return None
    return tuple((node.lineno, node.end_lineno, names) for node in ast.walk(tree) if (names := _assigns(node)))


def _assigns(node: ast.AST) -> frozenset[str]:
    """The names one statement assigns (none for a statement that is no assignment)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
    return frozenset().union(*(_roots(t) for t in targets))


def assigned_at(path: str, line: int | None) -> frozenset[str] | None:
    """The names the assignment holding `line` of the file assigns; None when the line is in none
    (a `return`, a bare call) or the file cannot be read."""
    around = [s for s in _statements(path) or () if line and s[0] <= line <= s[1]]
    return min(around, key=lambda s: s[1] - s[0])[2] if around else None


def assigned_around(path: str, line: int | None) -> frozenset[str] | None:
    """Every name the assignments of the innermost function holding `line` of the file assign;
    None when no function holds it or the file cannot be read."""
    around = [f for f in _functions(path) or () if line and f[0] <= line <= f[1]]
    if not around:
        return None
    first, last = max(around, key=lambda f: f[0])[:2]
    inner = [f for f in _functions(path) or () if first < f[0] and f[1] <= last]  # nested functions' own
    return frozenset().union(*(names for start, end, names in _statements(path) or ()
                               if first <= start and end <= last and not any(f[0] <= start <= f[1] for f in inner)))


def assigned_names(fdef: ast.AST) -> frozenset[str]:
    """Every name a function's assignments assign (its definition parsed)."""
    return frozenset().union(*(_assigns(n) for n in ast.walk(fdef)))


def raising_names(tb: TracebackType | None, code: CodeType) -> frozenset[str] | None:
    """assigned_at for the step of the checked function (its code `code`) that raised, itself or
    through a call it made: the outermost frame running that code."""
    line = checked_line(tb, lambda frame: frame.f_code is code)
    return assigned_at(code.co_filename, line)


def checked_line(tb: TracebackType | None, is_checked) -> int | None:
    """The line of the outermost frame of the traceback that `is_checked` (the frame) accepts: the
    checked function's own step, where a helper it called raised. Two sides compare the steps of
    the one function both were asked for: the reference's helpers are not the learner's, and a
    learner may write inline what the reference leaves to a helper (or the other way round)."""
    while tb is not None:
        if is_checked(tb.tb_frame):
            return tb.tb_lineno
        tb = tb.tb_next
    return None


def written_integers(path: str, lines: list[int | None]) -> frozenset[int] | None:
    """The integers written in the innermost functions of the file holding `lines`, a minus sign
    taken with its number (`-2` is -2, not 2), and those the module binds to a name (`AXIS = 2`):
    the axes and offsets the learner could have asked for. None when no function holds any of the
    lines or the file cannot be read."""
    try:
        return _written_integers(path, lines)
    except Exception:  # noqa: BLE001 - what a learner wrote only narrows a diagnosis; it never breaks a check
        return None


def _innermost(tree: ast.Module, line: int) -> ast.AST | None:
    """The innermost function around `line`, or None (a line outside every function)."""
    around = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              and n.lineno <= line <= (n.end_lineno or n.lineno)]
    return max(around, key=lambda f: f.lineno) if around else None


def called_names(path: str, lines: list[int | None]) -> frozenset[str] | None:
    """The names of the calls that make the values of `lines` in the file holding them: each line's
    statement and those feeding it (fed_lines.feeding_calls), `arange` for `torch.arange(T)`,
    `cumsum` for `x.cumsum(-1)`. A change of the reference must be in one of them to be the
    learner's, where an error's words tell no sizes (diagnosis.py). None when no function holds any
    of the lines or the file cannot be read."""
    try:
        tree = _tree(path)
        found, held = set(), False
        for line in {n for n in lines if n} if tree is not None else ():
            function = _innermost(tree, line)
            if function is not None:
                held = True
                found |= feeding_calls(function, line)
        return frozenset(found) if held else None
    except Exception:  # noqa: BLE001 - what a learner wrote only narrows a diagnosis; it never breaks a check
        return None


def _written_integers(path: str, lines: list[int | None]) -> frozenset[int] | None:
    tree = _tree(path)
    if tree is None:
        return None
    found, held = set(), False
    for line in {n for n in lines if n}:
        function = _innermost(tree, line)
        if function is None:
            continue
        held = True
        nodes = list(ast.walk(function))
        signed = {id(n.operand) for n in nodes if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)}
        for node in nodes:
            if isinstance(node, ast.Constant) and type(node.value) is int:
                found.add(-node.value if id(node) in signed else node.value)
    if held:  # and the module's own constants, `AXIS = 2` or `AXIS: int = -1`, which a function may read
        values = [s.value for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None]
        found |= {n for n in map(signed_int, values) if n is not None}
    return frozenset(found) if held else None
