"""Calls whose arguments mean something else than they seem to, read off a learner's function
(pitfalls.py says them with the rest, when its check fails).

- `torch.std_mean(x, -1, True)`, `x.var(-1, True)`: the positional argument after the axis of
  `std`, `var`, `std_mean` and `var_mean` is `unbiased` (divide by n - 1), not `keepdim` as it
  is for `mean` and `sum`; the axis is dropped. Said where the axis is written as a whole number,
  that argument as True, and no `keepdim` is given (False is the population's spread, which a
  layer norm takes on purpose).
- `k.transpose(-1, -1)`: one axis named twice in `transpose`, `swapaxes`, `swapdims`, `movedim` or
  `moveaxis`, written as the same number: the axis is swapped with (or moved onto) itself, and the
  call changes nothing.
- `F.max_pool1d(rows, 1)`: a pool's second argument is its kernel size, the width of each window,
  not the size of the output (that is what `adaptive_max_pool1d` takes); a window of 1 holds one
  entry, so the call gives back its input. Said for a kernel size written as 1, with no stride
  given (a stride of 2 would keep every other entry).
- `torch.msort(torch.stack((m, s), -1))[..., 1]`: `msort` sorts along the FIRST axis, each column on
  its own; `sort` (and `t.sort()`) sorts along the last. Said where what it sorts was joined along
  the last axis (`stack` or `cat` given -1) or its result is read along the last axis (`[..., i]`):
  there the last axis was meant.
- `torch.quantile(s, torch.tensor([1.0]), dim=-1)`: `q` given as a tensor of one or more entries puts
  a new FIRST axis in front of the result, one entry per q, even for a single q; a plain number
  (`1.0`) adds none.
- `x.view(torch.float64)`: `view` given a dtype does not convert: it reads each entry's bytes as the
  other dtype (two float32 entries become one float64, or the call raises); `.to(dtype)` converts.
- `pattern[..., [0]].mean(-1)`: an index by a list of one number picks that entry and KEEPS its axis
  (of size 1), so a reduction over the last axis right after it spends that axis, not the one before
  it. Said where a `...` stands before the list, which then indexes the last axis for certain.
- `keep = torch.ones(H, dtype=torch.long)`, then `x[:, keep]`: a tensor of integers used as an index
  picks by position (0 and 1, again and again), where a tensor of bools keeps the entries where it is
  True. Said where a name made only as ones of an integer dtype, or as a comparison made `.long()` or
  `.int()`, is an index (zeros, a `full` and a filled tensor are positions as often as not).

Each is a fact about the call as written, said beside the check's hint: the call may not be where
the mistake is.
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import call_name, is_method, parents as parents_in

__all__ = ["reading_pitfalls"]

_SPREADS = ("std", "var", "std_mean", "var_mean")
_SWAPS = ("transpose", "swapaxes", "swapdims", "movedim", "moveaxis")
_REDUCTIONS = ("mean", "sum", "amax", "amin", "max", "min", "prod", "logsumexp", "nansum", "nanmean")
_INTEGER_DTYPES = ("long", "int64", "int", "int32", "int16", "int8")
_MAKERS = ("ones",)
_POOLS = {"max_pool1d": "maximum", "max_pool2d": "maximum", "avg_pool1d": "average", "avg_pool2d": "average"}


def _given(node: ast.Call) -> list[ast.expr]:
    """The positional arguments after the tensor: `torch.f(x, a, b)` and `x.f(a, b)` both give [a, b]."""
    return list(node.args if is_method(node) else node.args[1:])


def _constant(node: ast.expr):
    """A number or a bool written in the code (`-1`, `True`), else None."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):  # not written as a constant
        return None
    return value if type(value) in (int, bool) else None


def _along_last(node: ast.Call, parent: ast.AST | None) -> bool:
    """Whether `msort`'s tensor was joined along the last axis, or its result is read along it."""
    joined = node.args[0] if node.args else None
    if isinstance(joined, ast.Call) and call_name(joined) in ("stack", "cat"):
        axis = next((k.value for k in joined.keywords if k.arg == "dim"), joined.args[1] if len(joined.args) > 1 else None)
        if axis is not None and _constant(axis) == -1:
            return True
    index = parent.slice if isinstance(parent, ast.Subscript) and parent.value is node else None
    first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else None
    return isinstance(first, ast.Constant) and first.value is Ellipsis


def _words(node: ast.Call, parent: ast.AST | None) -> str | None:
    name, given, code = call_name(node), _given(node), ast.unparse(node)
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    if isinstance(owner, ast.Name) and owner.id in ("np", "numpy"):
        return None  # NumPy's arguments come in another order
    keywords = {k.arg for k in node.keywords}
    if (name in _SPREADS and len(given) == 2 and "keepdim" not in keywords and type(_constant(given[0])) is int
            and _constant(given[1]) is True):
        return (f"`{code}` ({{0}}): the positional argument after the axis of `{name}` is `unbiased` (divide by n - 1 "
                f"when True), not `keepdim` as it is for `mean` and `sum`, so the axis is dropped")
    if (name in _SWAPS and len(given) == 2 and not node.keywords
            and type(_constant(given[0])) is int and _constant(given[0]) == _constant(given[1])):
        return f"`{code}` ({{0}}) names one axis twice: an axis swapped with itself stays where it is, so the call changes nothing"
    kernel = next((k.value for k in node.keywords if k.arg == "kernel_size"), node.args[1] if len(node.args) > 1 else None)
    stride = next((k.value for k in node.keywords if k.arg == "stride"), node.args[2] if len(node.args) > 2 else None)
    if (name in _POOLS and kernel is not None and _constant(kernel) == 1 and type(_constant(kernel)) is int
            and (stride is None or _constant(stride) == 1)):
        return (f"`{code}` ({{0}}): a pool's second argument is its kernel size, the width of each window it takes the "
                f"{_POOLS[name]} of, not the size of the output (that is what `adaptive_{name}` takes); a window of 1 "
                f"holds one entry, so every entry comes back as it was")
    q = next((k.value for k in node.keywords if k.arg == "q"), given[0] if given else None)
    if (name in ("quantile", "nanquantile") and isinstance(q, ast.Call) and call_name(q) == "tensor" and q.args
            and isinstance(q.args[0], (ast.List, ast.Tuple))):
        return (f"`{code}` ({{0}}): `q` given as a tensor of entries, `{ast.unparse(q)}`, puts a new FIRST axis in front "
                f"of the result, one entry per q, even for a single q; a plain number (`{ast.unparse(q.args[0].elts[0]) if q.args[0].elts else '0.5'}`) adds none")
    if (name == "view" and is_method(node) and len(node.args) == 1 and isinstance(node.args[0], ast.Attribute)
            and isinstance(node.args[0].value, ast.Name) and node.args[0].value.id == "torch"):
        return (f"`{code}` ({{0}}): `view` given a dtype does not convert the numbers: it reads each entry's bytes as "
                f"`{ast.unparse(node.args[0])}` (entries of another size are paired up or split, or the call raises); "
                f"`.to({ast.unparse(node.args[0])})` converts")
    if name == "msort" and _along_last(node, parent):
        return f"`{code}` ({{0}}) sorts along the FIRST axis (axis 0), each column on its own; `sort` sorts along the last"
    return None


def _kept_by_list(node: ast.Call) -> str | None:
    """`x[..., [0]].mean(-1)`: the list's kept axis spent by the reduction right after it."""
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    if call_name(node) not in _REDUCTIONS or not isinstance(owner, ast.Subscript) or not is_method(node):
        return None
    axis = next((k.value for k in node.keywords if k.arg == "dim"), node.args[0] if node.args else None)
    index = owner.slice.elts if isinstance(owner.slice, ast.Tuple) else [owner.slice]
    last = index[-1] if index else None
    # after a `...`, the index's last entry stands on the tensor's last axis, whatever its rank
    on_last = any(isinstance(part, ast.Constant) and part.value is Ellipsis for part in index[:-1])
    if axis is None or _constant(axis) != -1 or not (on_last and isinstance(last, ast.List) and len(last.elts) == 1
                                                     and type(_constant(last.elts[0])) is int):
        return None
    return (f"`{ast.unparse(owner)}` ({{0}}): an index by a list, `{ast.unparse(last)}`, picks that entry and keeps its "
            f"axis, of size 1, so `.{call_name(node)}(-1)` after it runs over that one entry, not over the axis before "
            f"it; a plain `{ast.unparse(last.elts[0])}` takes the axis away")


def _whole_numbers(value: ast.expr) -> bool:
    """A tensor of whole numbers made to look like a mask: ones, zeros or full of an integer dtype, or a
    comparison made `.long()` or `.int()`."""
    if not isinstance(value, ast.Call):
        return False
    name = call_name(value)
    dtype = next((k.value for k in value.keywords if k.arg == "dtype"), None)
    if name in _MAKERS and isinstance(dtype, ast.Attribute) and dtype.attr in _INTEGER_DTYPES:
        return True
    owner = value.func.value if isinstance(value.func, ast.Attribute) else None
    return name in ("long", "int") and not value.args and isinstance(owner, ast.Compare)


def _integer_masks(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """Each index by a name the function made of whole numbers and nothing else (the module's docstring)."""
    nested = {id(n) for inner in ast.walk(fdef) if inner is not fdef and isinstance(inner, (ast.FunctionDef, ast.Lambda))
              for n in ast.walk(inner)}
    own = [n for n in ast.walk(fdef) if id(n) not in nested]
    stores: dict[str, int] = {}  # every binding of a name: an assignment, a loop, `+=`, an unpacking
    for node in own:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
    made: dict[str, int] = {}  # the bindings that make whole numbers
    for node in own:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and _whole_numbers(node.value)):
            made[node.targets[0].id] = made.get(node.targets[0].id, 0) + 1
    masks = {name for name, count in made.items() if count == stores.get(name)}
    found = []
    for node in own:
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
            continue
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        used = next((part.id for part in index if isinstance(part, ast.Name) and part.id in masks), None)
        if used:
            words = (f"`{ast.unparse(node)}` ({{0}}): `{used}` holds whole numbers, so as an index it picks entries by "
                     f"position (entry 0, entry 1, again and again), not where it is 1; a mask that keeps entries is "
                     f"a tensor of bools (`{used}.bool()`, or `dtype=torch.bool`)")
            found.append((node.lineno, words, [node.lineno]))
    return found


def reading_pitfalls(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """[(line, words with {0} for the line, [line]), ...] for each call of `fdef` the module's docstring lists."""
    found, parents = [], parents_in(fdef)
    for node in ast.walk(fdef):
        words = (_words(node, parents.get(id(node))) or _kept_by_list(node)) if isinstance(node, ast.Call) else None
        if words is not None:
            found.append((node.lineno, words, [node.lineno]))
    return found + _integer_masks(fdef)
