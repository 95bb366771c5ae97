"""Where a learner's function first made a nan: the line of the learner's file, and the name it
was stored in.

A function that returns nan where the reference returns numbers tells a learner little by its
output: every number after the first nan is nan. So, when a call's output holds a nan its inputs
did not, the call is made again (same inputs, same seed) while a tracer watches the learner's own
frames; after each line it runs, the frame's tensors are looked at, and the first local that
holds a nan names the line that made it. Lines of other files (torch, the checker) are not
watched, and the tracer stops at the first nan.

calls.py asks `first_nan` after a call whose output holds a nan; verdict.py says it in the hint.
A local that the function reads only through `nan_to_num` (`hide.nan_to_num(0.0)`, `torch.nan_to_num(hide)`)
is cleaned wherever it is used: its nan is made on purpose and reaches nothing, so the tracer looks on.

Left out: inf (a mask's -inf is no mistake), and nans a learner stored nowhere (returned at once).
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
import sys
from collections.abc import Callable
from pathlib import Path

from attention_by_hand.lab.code_layout import code_only, parents
from attention_by_hand.lab.wire import MAX_TEXT

__all__ = ["has_nan", "first_nan", "nan_literal", "written_nan", "skips_nan", "inf_product"]

# a nan typed into the code: float("nan"), math.nan, torch.nan, np.nan, numpy.nan
_NAN_LITERAL = re.compile(r"""float\(\s*['"][+-]?nan['"]\s*\)|\b(?:math|torch|np|numpy)\.nan\b""", re.IGNORECASE)


def has_nan(value) -> bool:
    """Whether a value (a tensor, or tuples and lists of them) holds a nan."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.is_floating_point() and bool(value.isnan().any())
    if isinstance(value, (tuple, list)):
        return any(has_nan(v) for v in value)
    return isinstance(value, float) and value != value


# calls that fill chosen entries of a tensor with the value given: a nan there marks those entries
_FILLS = re.compile(r"\b(masked_fill_?|where|index_fill_?|fill_diagonal_|masked_scatter_?)\s*\(")


# the reductions that skip a nan, as a table tool's sums skip a missing value
_SKIPPING = re.compile(r"\bnan(sum|mean|median|quantile|_to_num)\b")


def skips_nan(code: str) -> bool:
    """Whether a function's code calls a reduction that skips a nan (`nansum`, `nanmean`, ...): a nan
    typed there may be meant as a missing mark, and written_nan's words would blame one used rightly."""
    return _SKIPPING.search(code) is not None


def nan_literal(code: str) -> bool:
    """Whether a piece of code is a NaN written out and nothing else: `float("nan")`, `math.nan`, ..."""
    return _NAN_LITERAL.fullmatch(code.strip()) is not None


def written_nan(code: str) -> str:
    """What a nan typed as the fill of chosen entries does, on the line that first made one ("" when
    the line types none, or types it as a tensor's start, `torch.full(..., nan)`, which later lines
    may overwrite): the nan is no "missing" mark that a softmax or a sum skips, as a table tool's
    is; it spreads."""
    if not _NAN_LITERAL.search(code):
        return ""
    # a fill call, or an assignment into entries: `s[mask] = math.nan`
    if not (_FILLS.search(code) or re.match(r"^[\w.]+\[.*\]\s*=[^=]", code)):
        return ""
    return ("; the nan is typed there by hand: a softmax or a sum does not skip a nan as a missing "
            "value, it makes its whole row nan (a score is hidden by `float('-inf')`, whose exp is 0)")


def _inf(node: ast.AST) -> bool:
    """An inf written in: `float("-inf")` (any case), `math.inf`, `torch.inf`, `np.inf`, `np.NINF`, signed or
    not, or a tensor made of one (`torch.tensor(-math.inf)`, `torch.tensor([float("inf")])`)."""
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(_inf(e) for e in node.elts)
    if isinstance(node, ast.Attribute):
        owner = node.value.id if isinstance(node.value, ast.Name) else None
        return (node.attr == "inf" and owner in ("math", "torch", "np", "numpy")) or (node.attr == "NINF" and owner in ("np", "numpy"))
    if isinstance(node, ast.Call) and node.args:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name == "float":
            text = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
            return isinstance(text, str) and text.strip().lower().lstrip("+-") in ("inf", "infinity")
        return name in ("tensor", "as_tensor") and _inf(node.args[0])
    return False


def inf_product(code: str) -> str:
    """What multiplying by a typed inf does, on the line that first made a nan ("" when the line
    multiplies by none, as `*` or `mul`): 0 * inf is nan in floating point, so a 0/1 mask times
    -inf is nan wherever the mask holds 0, not 0 as on paper."""
    try:
        tree = ast.parse(code_only(code))
    except SyntaxError:  # a loop's header, a line cut short: no product read
        return ""
    products = [(n.left, n.right) for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)]
    products += [n.args + ([n.func.value] if isinstance(n.func, ast.Attribute) else []) for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name))
                 and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) in ("mul", "mul_", "multiply")]
    if not any(_inf(factor) for factors in products for factor in factors):
        return ""
    return ("; that line multiplies by inf, and in floating point 0 * inf is nan, not 0: every entry whose other "
            "factor is 0 turns nan (a score is hidden by filling it with -inf, `masked_fill`, not by a product)")


def _cleaning(parent: ast.AST | None, node: ast.Name) -> bool:
    """Whether `parent` reads `node` only to clean it: `node.nan_to_num(...)` or `torch.nan_to_num(node, ...)`."""
    if isinstance(parent, ast.Attribute) and parent.attr == "nan_to_num":
        return True
    return (isinstance(parent, ast.Call) and bool(parent.args) and parent.args[0] is node
            and isinstance(parent.func, ast.Attribute) and parent.func.attr == "nan_to_num")


@functools.lru_cache(maxsize=8)  # one parse per learner file, however many of its calls make a nan
def cleaned_names(source: str) -> dict[int, frozenset[str]]:
    """Per function, by its first line (a decorator's, if it has one, as its code object counts it),
    the locals it reads and only ever through `nan_to_num` (the module's docstring)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    modules = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
               if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}  # `torch.nan_to_num`'s owner
    found: dict[int, frozenset[str]] = {}
    for fdef in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        parent = parents(fdef)
        reads: dict[str, bool] = {}  # name -> whether every read so far cleans it
        for node in ast.walk(fdef):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                reads[node.id] = reads.get(node.id, True) and _cleaning(parent.get(id(node)), node)
        first = min([fdef.lineno, *(d.lineno for d in fdef.decorator_list)])
        found[first] = frozenset(name for name, clean in reads.items() if clean and name not in modules)
    return found


def first_nan(call: Callable[[], object], learner: Path) -> tuple[int, str, str] | None:
    """(line, name, text): the first line of the learner's file after which one of its locals
    held a nan, that local, and the line's code; None when no local ever did (or the call raised)."""
    learner = learner.resolve()
    files: dict[str, bool] = {}  # filename -> whether it is the learner's (resolved once each)
    known: dict[int, set[str]] = {}  # frame -> its locals that held a nan on entry (given so)
    last: dict[int, int] = {}  # frame -> the line it is running
    found: list[tuple[int, str]] = []
    try:
        cleaned = cleaned_names(learner.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        cleaned = {}

    def mine(code) -> bool:
        if code.co_filename not in files:
            files[code.co_filename] = Path(code.co_filename).resolve() == learner
        return files[code.co_filename]

    def look(frame) -> None:
        given = known.setdefault(id(frame), set(cleaned.get(frame.f_code.co_firstlineno, ())))
        for name, value in frame.f_locals.items():
            if name in given or not has_nan(value):
                continue
            if id(frame) in last:  # made by the line the frame just ran
                found.append((last[id(frame)], name))
                return
            given.add(name)  # an argument that came with a nan: not this function's doing

    def local(frame, event, arg):
        if found:
            return None
        if event in ("line", "return"):
            look(frame)
            last[id(frame)] = frame.f_lineno
        return local

    def tracer(frame, event, arg):
        if found or event != "call" or not mine(frame.f_code):
            return None
        return local

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    except Exception:  # noqa: BLE001 - the call was made once already; this run only looks
        pass
    finally:
        sys.settrace(previous)
    if not found:
        return None
    line, name = found[0]
    return line, name, linecache.getline(str(learner), line).strip()[:MAX_TEXT]
