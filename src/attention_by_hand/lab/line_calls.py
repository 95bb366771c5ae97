"""Which lines of a learner's file a hint may describe the calls of (call_words.py says what each
call the reference never makes does), read in the child where the file is at hand.

- The line that raised, and the lines that last gave a value to a name it reads: `D =
  torch.inner(p, dp)` makes an (n, n) tensor, and the line after it raises. Only assignments
  sure to have run before the line count: in the same function (not a nested one), and in a
  block that holds the line (not an `if` branch beside it, which may not have run).
- The one `return` line of a function whose wrong output no span explains (blame.py found none):
  `return torch.triu_indices(T, T, 1)`; for an output of several parts, only a line that makes
  them all in one expression (`return vjp(f, inputs, v)`). A `for` loop whose body writes into
  the entries of a name the line reads counts as the last to give it a value, by its header:
  `for a, b in torch.combinations(ids, 2).tolist():` before `counts[a, b] += 1`.
- The lines of a span where the values part (parting.py quotes its first and last): the lines
  between them, and a last line that heads a loop stands for the loop's body too.

Left out: which calls are described (call_words.py), and the words of a hint (verdict.py, parting.py):
a call a gloss of torch's error already explains (tensordot's sizes) is not said twice there.
"""

from __future__ import annotations

import ast
import linecache
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from attention_by_hand.lab.call_words import described
from attention_by_hand.lab.code_layout import function_def

__all__ = ["SPAN_LINES", "last_setters", "line_calls", "return_line", "span_body"]

# the lines of a span, past its first and last, whose calls may be described: a span longer than
# this says where the values part too loosely for its calls to say much
SPAN_LINES = 24

_BLOCKS = ("body", "orelse", "finalbody", "handlers")


def _holding(fdef: ast.AST, line: int) -> list[ast.AST]:
    """The statements (and except clauses) whose blocks lead from `fdef` to `line`, outermost first,
    the last being the one on the line; a nested function or class is not entered."""
    path, owner = [], fdef
    while True:
        inner = next((s for field in _BLOCKS for s in getattr(owner, field, None) or []
                      if isinstance(s, (ast.stmt, ast.excepthandler)) and s.lineno <= line <= (s.end_lineno or s.lineno)), None)
        if inner is None:
            return path
        path.append(inner)
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return path
        owner = inner


def last_setters(fdef: ast.AST, line: int) -> list[int]:
    """The lines of the one-line assignments sure to have run before `line` that last gave a value
    to a name `line` reads (see the module's docstring)."""
    path = _holding(fdef, line)
    if not path:
        return []
    here = path[-1]
    read = {n.id for n in ast.walk(here) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.lineno <= line <= (n.end_lineno or n.lineno)}
    last: dict[str, int] = {}
    # the statements before the line in each block on the path to it (the function's own, then inward)
    for owner in [fdef, *path[:-1]]:
        for field in _BLOCKS:
            block = getattr(owner, field, None)
            if not isinstance(block, list):
                continue
            for statement in block:
                if isinstance(statement, ast.For) and statement.lineno < line:  # a loop that writes into entries
                    for name in _filled(statement) & read:
                        last[name] = max(last.get(name, 0), statement.lineno)  # its header, what the loop walks
                if not isinstance(statement, ast.Assign) or statement.lineno >= line or statement.lineno != statement.end_lineno:
                    continue
                for name in (n for t in statement.targets for n in ast.walk(t)):
                    if isinstance(name, ast.Name) and name.id in read:
                        last[name.id] = max(last.get(name.id, 0), statement.lineno)
    # a name given a value later in a branch beside the path may hold either: neither line is said
    later = {n.id for n in _own_nodes(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
             and last.get(n.id, line) < n.lineno < line}
    return sorted({at for name, at in last.items() if name not in later})


def _filled(loop: ast.For) -> set[str]:
    """The names whose entries a loop's body writes (`counts[a, b] += 1`, `out[i] = ...`)."""
    targets = [t for n in ast.walk(loop) for t in (n.targets if isinstance(n, ast.Assign) else
                                                    [n.target] if isinstance(n, ast.AugAssign) else [])]
    return {t.value.id for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)}


def _own_nodes(fdef: ast.AST) -> list[ast.AST]:
    """The nodes of a function, those of the functions and classes it defines left out."""
    found, stack = [], list(ast.iter_child_nodes(fdef))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def return_line(function, parts: bool = False) -> int | None:
    """The file's line of the function's one `return` (not a nested function's); None if it has
    none or several. parts: the output has several parts, so the line is given only where one
    expression makes them all (`return vjp(...)`), not where each part has its own (`return a, b`),
    since the calls of a right part would be said of the wrong one."""
    code = getattr(function, "__code__", None)
    fdef = function_def(code) if code is not None else None
    returns = [n for n in _own_nodes(fdef) if isinstance(n, ast.Return)] if fdef is not None else []
    if len(returns) != 1 or (parts and isinstance(returns[0].value, (ast.Tuple, ast.List))):
        return None
    return returns[0].lineno


@lru_cache(maxsize=8)
def _parsed(source: str) -> ast.Module | None:
    """A learner's file parsed once for all its calls that raise or part (None: it does not parse)."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _file_tree(file) -> ast.Module | None:
    return _parsed("".join(linecache.getlines(str(file))))


def line_calls(learner: Path, line: int | None, reference: ModuleType | None, function: str) -> dict[str, str] | None:
    """{call: its words} for the calls on `line` of the learner's file, and on its last setters (in
    the innermost function holding it), that the reference's `function` never makes; None when
    there are none."""
    if reference is None or not line:
        return None
    try:
        tree = _file_tree(learner)
        holders = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and n.lineno <= line <= (n.end_lineno or n.lineno)]
        setters = last_setters(max(holders, key=lambda n: n.lineno), line) if holders else []
        return described([linecache.getline(str(learner), n).strip() for n in [line, *setters]], reference, function) or None
    except Exception:  # noqa: BLE001 - words about a call only add to a hint
        return None


def span_body(file: str, start: int, end: int) -> list[int]:
    """The lines of a span past its first and last: those between them, and the body of a loop
    whose header is its last line; at most SPAN_LINES of them."""
    inside = list(range(start + 1, end))
    tree = _file_tree(file)
    if tree is None:
        return inside[:SPAN_LINES]
    loop = next((n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and n.lineno == end), None)
    return (inside + (list(range(end + 1, loop.end_lineno + 1)) if loop else []))[:SPAN_LINES]
