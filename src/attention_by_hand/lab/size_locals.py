"""Sizes a learner's function took otherwise than the reference, on the same input.

A size unpacked from the wrong tensor or in the wrong order (`T_q, T_k = q.shape[-2:]`, where
k's length was meant) leaves every tensor line right and makes a loop run to the wrong bound:
blame.py finds the values parting over the whole loop, and nothing says why. The learner and the
reference often name their sizes alike (the stubs' docstrings name them), so the numbers a
learner's local bound from a shape holds as the function ends are set beside the reference's
local of the same name. A name may rightly mean another size in the learner's code (lab 8's `T`,
the one new word, where the reference's is the cache's length), so a difference is said only
where it is the mistake: the learner's function, run again with the reference's number put into
that name right after the line that bound it, gives the reference's output.

Only names bound by a one-line assignment whose value reads a shape (`.shape`, `.size(...)`,
`len(...)`) are compared, and only whole numbers on both sides. calls.py asks once per function,
after a wrong call's span was found; parting.py says it.

Left out: sizes named otherwise than the reference's, and sizes of helpers the function calls.

The module also says which written expressions read a size (is_size, one_size, reads_shape,
size_names), for the changes that put a size for a number or move one by one.
"""

from __future__ import annotations

import ast
import copy
import linecache
import sys

from attention_by_hand.lab.code_layout import function_def
from attention_by_hand.lab.outcomes import CALL_SECONDS, call

__all__ = ["is_size", "one_size", "reads_shape", "size_names", "sizes_apart"]


def reads_shape(value: ast.AST) -> bool:
    """Whether an expression reads a size: `.shape`, `.size(...)` or `len(...)`."""
    return any((isinstance(n, ast.Attribute) and n.attr == "shape")
               or (isinstance(n, ast.Call) and ((isinstance(n.func, ast.Attribute) and n.func.attr == "size")
                                                or (isinstance(n.func, ast.Name) and n.func.id == "len")))
               for n in ast.walk(value))


def is_size(node: ast.AST) -> bool:
    """x.shape[i], x.size(i), x.size(-1), len(x): a size read from a tensor."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and node.args:
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def one_size(node: ast.AST) -> bool:
    """A size read from a tensor (is_size) or its count of entries, `x.numel()`: one whole number,
    not a slice of a shape."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Slice, ast.Tuple)):
        return False
    return is_size(node) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numel")


def size_names(fdef: ast.AST) -> set[str]:
    """The names a function binds from a size (`B, H, T, _ = x.shape`, `n = len(ids)`)."""
    return {t.id for n in ast.walk(fdef) if isinstance(n, ast.Assign) and reads_shape(n.value)
            for target in n.targets for t in ast.walk(target) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}


def _shape_bound(fdef: ast.AST, file: str) -> dict[str, tuple[int, str]]:
    """{name: (line, code)}: the names the function binds from a shape, each at its first such line
    (the file's line, and the line's code)."""
    found: dict[str, tuple[int, str]] = {}
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Assign) or node.lineno != node.end_lineno:
            continue
        if not reads_shape(node.value):
            continue
        for target in node.targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    if name.id not in found or node.lineno < found[name.id][0]:
                        found[name.id] = (node.lineno, linecache.getline(file, node.lineno).split("#")[0].strip())
    return found


def _ends_with(function, args: tuple) -> dict[str, object]:
    """The locals of the function's own frame as it ends (returns or raises), on these inputs."""
    code, seen = function.__code__, {}

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None
        if event == "return" and not seen:
            seen.update(frame.f_locals)
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        function(*args)
    except Exception:  # noqa: BLE001 - a call that raises still ends with its locals
        pass
    finally:
        sys.settrace(previous)
    return seen


def _whole(value) -> bool:
    """A whole number, not a bool (True is 1 to Python, but no size)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _with_number(function, fdef: ast.AST, name: str, line: int, number: int):
    """The function again, from a copy of its definition `fdef`, with `name = number` put right
    after the statement at the file's `line` (in the function's own globals); None when the
    statement is not found."""
    fdef = copy.deepcopy(fdef)  # the parsed definition is shared (code_layout.function_def)
    for node in ast.walk(fdef):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, statement in enumerate(block):
                if isinstance(statement, ast.Assign) and statement.lineno == line:
                    put = ast.Assign([ast.Name(name, ast.Store())], ast.Constant(number))
                    block.insert(i + 1, ast.copy_location(put, statement))
                    fdef.decorator_list = []
                    namespace = dict(function.__globals__)
                    module = ast.fix_missing_locations(ast.Module([fdef], []))
                    exec(compile(module, function.__code__.co_filename, "exec"), namespace)
                    return namespace[fdef.name]
    return None


def sizes_apart(function, reference_function, make_args, right) -> list[list]:
    """[[name, yours, the reference's, line, code], ...]: the learner's sizes bound from a shape that
    end unlike the reference's same-named locals on the input `make_args()` makes (fresh each run),
    each one that, set to the reference's number, makes the output right (`right(output)`)."""
    fdef = function_def(function.__code__)
    bound = _shape_bound(fdef, function.__code__.co_filename) if fdef is not None else {}
    if not bound:
        return []
    mine = _ends_with(function, make_args())
    theirs = _ends_with(reference_function, make_args())
    apart = [[name, mine[name], theirs[name], line, code] for name, (line, code) in bound.items()
             if _whole(mine.get(name)) and _whole(theirs.get(name)) and mine[name] != theirs[name]]
    said = []
    for name, yours, number, line, code in sorted(apart, key=lambda a: a[3]):
        mended = _with_number(function, fdef, name, line, number)
        # within a call's time limit: a loop run to the reference's bound may run long (an error or
        # running out of time comes back as a Raised, which is no right output)
        if mended is not None and right(call(mended, make_args(), CALL_SECONDS)):
            said.append([name, yours, number, line, code])
    return said
