"""Two Python pitfalls read off a learner's function, said when its check fails: they are facts of
its code that no output shows, and each breaks a function that reads right line by line.

- A generator used twice: `heads = (attend(h) for h in range(n))` can be gone through once;
  its second use finds it empty (`torch.cat` of nothing, a sum of 0).
- A function made in a loop that reads the loop's variable (`lambda x: x[h]`, a `def` in the
  loop's body) and is kept for after the loop: Python looks the variable up when the function
  runs, so every one of them sees its last value (every head computes the last head).

Each is said only where the code shows it for certain: the generator's name read two or more
times after it was made and never made again; the function stored (appended, put in a list or
a dict, or the `def`'s own name) in something read after the loop, and the variable not bound
as a default (`lambda x, h=h: ...`). The child (calls.py) reads the learner's source; verdict.py
puts the words before a failed check's hint (learner_notes.with_notes).

Left out: iterators made other ways (`iter(...)`, a generator function), and loops in helpers
the function calls.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

__all__ = ["pitfalls"]

_LAZY = ("map", "filter", "zip", "reversed", "enumerate")  # calls that give a one-pass iterator


def _loads(tree: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]


def _stores(tree: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]


def _apart(fdef: ast.FunctionDef, a: ast.AST, b: ast.AST) -> bool:
    """Whether a and b sit in the two branches of one `if` (only one of them runs)."""
    for node in ast.walk(fdef):
        if isinstance(node, ast.If):
            inside = [{id(n) for s in branch for n in ast.walk(s)} for branch in (node.body, node.orelse)]
            if (id(a) in inside[0] and id(b) in inside[1]) or (id(a) in inside[1] and id(b) in inside[0]):
                return True
    return False


def _generators(fdef: ast.FunctionDef, offset: int) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        lazy = isinstance(value, ast.GeneratorExp) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _LAZY)
        name = node.targets[0].id
        if not lazy or len(_stores(fdef, name)) != 1:
            continue
        uses = sorted((n for n in _loads(fdef, name) if n.lineno > node.end_lineno), key=lambda n: (n.lineno, n.col_offset))
        if len(uses) >= 2 and not _apart(fdef, uses[0], uses[1]):
            made, again = node.lineno + offset, uses[1].lineno + offset
            found.append((made, f"`{name}` (line {made}) is a generator: it can be gone through once, so its next use "
                                f"(line {again}) finds it already empty"))
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


def _late_bound(fdef: ast.FunctionDef, offset: int) -> list[tuple[int, str]]:
    found = []
    for loop in (n for n in ast.walk(fdef) if isinstance(n, ast.For)):
        variables = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for made in (n for n in ast.walk(loop) if isinstance(n, (ast.Lambda, ast.FunctionDef)) and n is not loop):
            bound = {a.arg for a in made.args.args + made.args.kwonlyargs + made.args.posonlyargs}
            body = made.body if isinstance(made, ast.Lambda) else ast.Module(made.body, [])
            read = sorted({v for v in variables - bound if _loads(body, v)})
            after = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                     and n.lineno > loop.end_lineno}
            if read and _holders(loop, made) & after:
                line = made.lineno + offset
                found.append((line, f"the function made in the loop at line {line} reads `{read[0]}` when "
                                           f"it is called, not when it was made: called after the loop, every one of "
                                           f"them sees the last `{read[0]}`"))
    return found


def pitfalls(function) -> list[list]:
    """[[line, words], ...] for the pitfalls of `function`'s own code (lines of its file)."""
    try:
        lines, start = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return []
    fdef = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
    if fdef is None:
        return []
    # the lines of the parsed text count from 1 at the `def`: the file's lines count from `start`
    return [[line, words] for line, words in sorted(_generators(fdef, start - 1) + _late_bound(fdef, start - 1))]
