"""How a learner's function is read line by line (blame.py watches it so): which statement starts
on each line, the statement after it, which names a statement reads the numbers of, and which
lines a loop holds. A loop is one statement at its first line: blame.py reads its values as it
ends, never on its way.

Small readings of written code that several readers share sit here too: a whole `:` in a subscript
(`whole_slice`), a `None` and a part that keeps its axis whole (`none_part`, `kept_part`), what
`.T`, `.t()` or `.mT` turns (`transposed_of`), an int as written, a minus sign taken with it
(`signed_int`), a line without its comment (`code_only`), a side of a count (`count_side`: a name
or a size, not a number), a name read as a factor or a divisor (`a_factor`), and whether a call
takes its tensor as its first argument (`function_form`: `torch.f(x)`, `torch.linalg.f(x)`) or is a
tensor's method (`is_method`), and the sum a `log` takes (`log_of_sum`).

Left out: running anything (blame.py); the reference's values (intermediates.py).
"""

from __future__ import annotations

import ast
import functools
import io
import linecache
import sys
import tokenize
from dataclasses import dataclass, field

__all__ = ["FUNCTION_OWNERS", "LOOPS", "Layout", "a_factor", "bound_once", "call_name", "code_only", "compared_sides", "count_side", "function_def", "function_form", "inlined",
           "is_method", "kept_part", "layout_of", "log_of_sum", "new_axes_only", "none_part", "number_of", "parents", "reads_of", "signed_int",
           "size_read", "subscript_of", "subscript_parts", "tensor_and_args", "transposed_of", "whole_slice"]


LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass(frozen=True)
class Layout:
    """statements: line -> the innermost statement of the function that starts there, a loop's
    lines left out (a loop is one statement, at its first line); after: line -> the line of the
    statement after it in the same block; loop: a line inside a loop -> the loop's first line."""

    statements: dict[int, ast.stmt] = field(default_factory=dict)
    after: dict[int, int] = field(default_factory=dict)
    loop: dict[int, int] = field(default_factory=dict)


@functools.lru_cache(maxsize=64)
def function_def(code) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The definition of the function whose code object is `code`, parsed from its file, with the
    file's line numbers; None when the file does not parse or holds no such definition. Shared
    between its readers: never to be changed (copy it first)."""
    try:
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except SyntaxError:
        return None
    return next((node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name
                 and code.co_firstlineno in {node.lineno, *(d.lineno for d in node.decorator_list)}), None)


@functools.lru_cache(maxsize=64)  # a search reads the same functions again for every call it tries
def layout_of(code) -> Layout:
    """How the lines of the function whose code object is `code` group into the statements its
    values are read after."""
    node = function_def(code)
    if node is None:
        return Layout()
    found: dict[int, ast.stmt] = {}
    after: dict[int, int] = {}
    loop: dict[int, int] = {}
    outermost: dict[int, ast.stmt] = {}  # first line -> the loop
    for inner in ast.walk(node):  # breadth first: a deeper statement on the same line wins
        if isinstance(inner, LOOPS) and inner.lineno not in loop:  # an outermost loop
            loop.update((n, inner.lineno) for n in range(inner.lineno, inner.end_lineno + 1))
            outermost[inner.lineno] = inner
        # a statement inside a loop, even on the loop's own line (`for r in x: t = t + r`), is the loop's
        if isinstance(inner, ast.stmt) and inner is not node and (inner.lineno not in loop or outermost.get(inner.lineno) is inner):
            found[inner.lineno] = inner
        for block in ("body", "orelse", "finalbody"):
            body = getattr(inner, block, None)
            if isinstance(body, list):
                after.update((a.lineno, b.lineno) for a, b in zip(body, body[1:]))
    return Layout(found, after, loop)


# Reading only these of a tensor takes its shape, not its numbers: a right value made so (a mask
# from ones_like(scores)) vouches for nothing.
SHAPE_ONLY = {"shape", "dtype", "device", "ndim", "size", "dim", "numel"}


def statement_lines(fdef: ast.FunctionDef, header: bool = True) -> dict[int, int]:
    """The line of the innermost statement around each node of `fdef`, by the node's id.

    With `header`, the nodes of the `def` line itself (arguments, defaults, annotations) map to that line;
    without it they are left out, so nothing in the header can be taken for a name the body reads."""
    lines: dict[int, int] = {}
    for statement in (n for n in ast.walk(fdef) if isinstance(n, ast.stmt) and (header or n is not fdef)):
        lines.update({id(n): statement.lineno for n in ast.walk(statement)})  # outer first: the innermost wins
    return lines


def reads_of(statement: ast.stmt | None) -> set[str]:
    """The names a statement reads the numbers of (for a condition: its header only; a loop, one
    statement, reads what its body reads);
    a name read only for its shape (`x.shape`, `len(x)`, `zeros_like(x)`) is left out."""
    if statement is None:
        return set()
    if isinstance(statement, ast.If):
        parts = [statement.test]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        parts = [item.context_expr for item in statement.items]
    elif isinstance(statement, (ast.FunctionDef, ast.ClassDef, ast.Try)):
        return set()
    else:
        parts = [statement]
    names = set()
    for part in parts:
        shape_only = set()
        for node in ast.walk(part):
            if isinstance(node, ast.Attribute) and node.attr in SHAPE_ONLY and isinstance(node.value, ast.Name):
                shape_only.add(id(node.value))
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if called == "len" or called.endswith("_like"):
                    shape_only.add(id(node.args[0]))
        for node in ast.walk(part):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in shape_only:
                names.add(node.id)
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


def inlined(statements: dict[int, ast.stmt], version: tuple = sys.version_info[:2]) -> bool:
    """Whether a comprehension runs in the function's own frame, a loop on one line: a list, set
    or dict comprehension from Python 3.12 on (PEP 709). Before, each runs in a frame of its own,
    and a generator expression always does: the watched frame sees only what it makes."""
    if tuple(version) < (3, 12):
        return False
    return any(isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp)) for t in statements.values() for n in ast.walk(t))


def parents(tree: ast.AST) -> dict[int, ast.AST]:
    """Each node's parent in `tree`, by the child's id."""
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def subscript_parts(node: ast.Subscript) -> list[ast.expr]:
    """The parts of a subscript, one per axis it names (`x[a, b]`: a and b; `x[a]`: a)."""
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def subscript_of(node: ast.Subscript, parts: list[ast.expr]) -> ast.Subscript:
    """`node`'s tensor indexed by `parts` (one part alone, not a tuple of one)."""
    return ast.Subscript(node.value, parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load()), node.ctx)


def size_read(node: ast.AST) -> bool:
    """`x.shape` or a call `x.size(...)`: a tensor's sizes read, whose axes no mend of a step's axis should take."""
    return ((isinstance(node, ast.Attribute) and node.attr == "shape")
            or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"))


def whole_slice(part: ast.expr) -> bool:
    """A subscript's part that is a bare `:`: every entry of its axis."""
    return isinstance(part, ast.Slice) and part.lower is None and part.upper is None and part.step is None


def none_part(part: ast.AST) -> bool:
    """A part of an index that is `None`: a new axis of size 1."""
    return isinstance(part, ast.Constant) and part.value is None


def kept_part(part: ast.AST) -> bool:
    """A part of an index that keeps its axis or axes as they are: a bare `:` or `...`."""
    return whole_slice(part) or (isinstance(part, ast.Constant) and part.value is Ellipsis)


def transposed_of(node: ast.AST, *also: str) -> ast.expr | None:
    """What `x.T` or `x.t()` (or an attribute named in `also`, `x.mT`) transposes; else None."""
    if isinstance(node, ast.Attribute) and node.attr in ("T", *also) and isinstance(node.ctx, ast.Load):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "t" and not node.args \
            and not node.keywords:
        return node.func.value
    return None


def picked_ids(sub: ast.Subscript) -> ast.expr | None:
    """The name of the ids a subscript picks by, whole: rows (`hot[ids]`) or, in every row, columns
    (`hot[:, ids]`); None for another subscript."""
    index = sub.slice
    if isinstance(index, ast.Tuple) and len(index.elts) == 2 and whole_slice(index.elts[0]):
        index = index.elts[1]
    return index if isinstance(index, ast.Name) else None


def new_axes_only(index: ast.expr) -> bool:
    """An index that only adds axes of size 1: `None`s among bare `:` and `...` (`[:, None]`, `[None]`)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(map(none_part, parts)) and all(none_part(p) or kept_part(p) for p in parts)


def signed_int(value: ast.expr) -> int | None:
    """`2` or `-2` as written; None for anything else (a float, a bool, a name)."""
    negated = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub)
    number = value.operand if negated else value
    if isinstance(number, ast.Constant) and type(number.value) is int:
        return -number.value if negated else number.value
    return None


def code_only(line: str) -> str:
    """A line of code without its comment (`x.mul_(0)  # done with x`: `x.mul_(0)`), stripped."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, SyntaxError):  # a line that opens a bracket it closes later: kept whole
        return line.strip()
    comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
    return (line[:comment.start[1]] if comment else line).strip()


def number_of(node: ast.AST):
    """The value of a numeric literal (-1 included), else None. Booleans are not numbers here."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = number_of(node.operand)
        return -inner if inner is not None else None
    return None


def count_side(node: ast.AST) -> bool:
    """A side of a count: a name, an attribute, a size (`x.shape[0]`, `len(x)`), not a number."""
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def call_name(node: ast.Call) -> str | None:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def a_factor(name: ast.Name, parents: dict) -> bool:
    """Whether this read of a name multiplies or divides: `x * s`, `x / s`, `s / x`, `x *= s` (not
    `x + s` or `torch.add(x, s)`)."""
    parent = parents.get(id(name))
    if isinstance(parent, ast.BinOp):
        return isinstance(parent.op, (ast.Mult, ast.Div))
    return isinstance(parent, ast.AugAssign) and isinstance(parent.op, (ast.Mult, ast.Div)) and parent.value is name


FUNCTION_OWNERS = ("torch", "F")  # `torch.softmax(x, ...)`, `F.relu(x)`: functions whose first argument is the input
# torch's namespaces of functions: `torch.linalg.matmul(a, b)` takes its tensor first, as `torch.matmul` does
_NAMESPACES = ("torch.linalg", "torch.special", "torch.fft", "torch.nn.functional", "nn.functional")


def function_form(node: ast.Call, owners: tuple[str, ...] = FUNCTION_OWNERS) -> bool:
    """`torch.softmax(x, ...)`, `torch.linalg.matmul(a, b)`, `F.relu(x)` or `f(x)`: the first argument is the
    input (a method's is not)."""
    if isinstance(node.func, ast.Name):
        return True
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    return (isinstance(owner, ast.Name) and owner.id in owners) or (
        "torch" in owners and isinstance(owner, ast.Attribute) and ast.unparse(owner) in _NAMESPACES)


def tensor_and_args(call: ast.Call) -> tuple[ast.expr | None, list[ast.expr]]:
    """(the tensor, the other positional arguments) of `t.f(a, b)` or `torch.f(t, a, b)`."""
    if function_form(call):
        return (call.args[0] if call.args else None), call.args[1:]
    return call.func.value, call.args


def bound_once(fdef: ast.FunctionDef) -> dict[str, ast.expr]:
    """The names `fdef` binds once, by a plain `name = ...`, each to what it is bound to: no other store of
    the name anywhere (a loop's variable, `+=`, `as`, `:=`, a tuple's part), so every read holds that value."""
    stores = [n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    return {n.targets[0].id: n.value for n in ast.walk(fdef) if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and stores.count(n.targets[0].id) == 1}


def compared_sides(node: ast.Compare | ast.Call) -> list[ast.expr]:
    """The sides of `a < b`, `torch.lt(a, b)` or `a.lt(b)`, in their order."""
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    tensor, rest = tensor_and_args(node)
    return [tensor, *rest]


def is_method(node: ast.Call) -> bool:
    """`x.f(...)`, not `torch.f(x, ...)`, `F.f(x, ...)`, NumPy's or math's: the tensor is no argument."""
    return isinstance(node.func, ast.Attribute) and not function_form(node, (*FUNCTION_OWNERS, "np", "math"))


def log_of_sum(node: ast.AST) -> ast.BinOp | None:
    """The sum (or difference) a `log` call takes, as `(a + b).log()` or `torch.log(a + b)`; None for any other node."""
    if not (isinstance(node, ast.Call) and call_name(node) == "log" and isinstance(node.func, ast.Attribute)):
        return None
    owner = node.func.value
    taken = node.args[0] if isinstance(owner, ast.Name) and owner.id == "torch" and node.args else owner
    return taken if isinstance(taken, ast.BinOp) and isinstance(taken.op, (ast.Add, ast.Sub)) else None


# the binary operators as written, and how tightly each binds (Python's order of operations: higher first)
OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitOr: "|", ast.BitAnd: "&"}
BINDING = {ast.Pow: 4, ast.Mult: 3, ast.Div: 3, ast.FloorDiv: 3, ast.Mod: 3, ast.MatMult: 3, ast.Add: 2, ast.Sub: 2}


def regrouped(node: ast.BinOp, side: str) -> ast.BinOp | None:
    """`a o (b p c)` grouped as `(a o b) p c` (side "right"), or `(a o b) p c` as `a o (b p c)` ("left");
    None where that side is no operation."""
    inner = getattr(node, side)
    if not isinstance(inner, ast.BinOp):
        return None
    if side == "right":
        return ast.BinOp(ast.BinOp(node.left, node.op, inner.left), inner.op, inner.right)
    return ast.BinOp(inner.left, inner.op, ast.BinOp(inner.right, node.op, node.right))
