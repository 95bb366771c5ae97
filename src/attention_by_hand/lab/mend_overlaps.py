"""How two mends of one function stand to each other, for repair.py to say the one that reads most like
the slip and never two that say one slip.

- One slip said two ways (`_one_slip`): one node changed two ways (`dim=-1` or `dim=1` added), or one
  number changed inside what another change changes (`range(0, T)` and `range(1 - 1, T - 1)` for
  `range(1, T)`), or a change inside what another takes out (`exp(s.mean(...))` for the term
  `s.mean(...)` dropped): the outputs cannot tell them apart.
- What a removal takes out (`taken_out`): the line, the side of an operation that goes, the part of
  `a | b` not kept, the arguments of a call taken away; the names it takes out (`names_removed`).
- A change that undoes a removal (`undoes`): a transpose of the very transpose taken away cancels it.
- A size read off another axis inside a line whose removal mends too (`size_read_first`): `arange(keys.shape[-1])`
  for `arange(keys.shape[-2])` in a mask a decode step needs none of (every cached key is in the past). Read
  right, the line hides nothing, so taking it out mends alike; but the learner meant the step, and the axis
  read is the slip, so the size is said, not the removal. Only where the line calls what the reference calls
  too (`arange`, a mask's step it takes): a crop the reference never makes, `w[:, :k.shape[-1]]`, read off
  the other axis only does nothing, and the removal says the slip.
- A shape's slice made empty (`shape_emptied`): `scores.shape[:0]` (or `[0 - 1:1 - 1]`) for `scores.shape[:1]`
  makes the sizes `()`, a tensor of one number that broadcasts against any other, so it mends a size slip
  by chance; never said (where another mend holds, `scores.shape[:-1]`, the minus sign, says the slip).
- A mend that mends any slip of its kind wherever it was made (`alone_if_catch_all`): a size written
  `-1`, which reshape works out whatever wrong size was computed on the way (`d // T` for
  `d // n_heads` two lines up), is kept only where no other mend holds.

Left out: changes of two functions, which are never one slip.
"""

from __future__ import annotations

import ast
import copy
from types import ModuleType

from attention_by_hand.lab.code_layout import parents, size_read
from attention_by_hand.lab.mutant_edits import TRANSPOSES, call_name, edit, replace_node
from attention_by_hand.lab.mutants import Change, definition

__all__ = ["CATCH_ALLS", "REMOVALS", "SIDE_REMOVALS", "UNIT_SAID", "alone_if_catch_all", "inside_removed", "names_removed", "one_slip",
           "shape_emptied", "size_read_first", "taken_out", "undoes"]

_NUMBERS = {"constant", "offset", "factor", "term"}
REMOVALS = ("left", "right", "drop", "unwrap")  # a term or factor dropped, a line left out, a call taken away
# a removal says what it takes out, and a number made 1 says "a factor too many" (mend_words._made_one)
UNIT_SAID = (*REMOVALS, "const")
SIDE_REMOVALS = ("left", "right", "keep_part")  # a factor, a term or a part of a condition taken out
CATCH_ALLS = ("inferred_for", "slice_taken")  # mends of any slip of their kind (inferred_mends.py, slice_taken_mends.py)


def one_slip(a: Change, b: Change, nodes: dict[str, list[ast.AST]]) -> bool:
    """Whether two mends say one slip two ways: one changes a number inside what the other changes
    (`range(0, T)` and `range(1 - 1, T - 1)` for `range(1, T)`; `// 1` for `// 2` and `// 2`
    removed). Changes apart (the slice's `+ 1` and a term subtracted after it) are two slips."""
    if a.text == b.text or (a.function, a.index) == (b.function, b.index):
        return True  # one node changed two ways (`dim=-1` or `dim=1` added) is one slip
    if a.function == b.function and any(inside_removed(r, o, nodes[a.function]) for r, o in ((a, b), (b, a))):
        return True  # a change inside what the other takes out only makes it harmless: the removal says it
    # brackets moved around a number change it too (`T + (1 // 2)`), and a line left out whose
    # only work is a term or a factor (`out = out + proj.bias`) is that term dropped: one slip
    kinds = {a.kind, b.kind}
    if a.function != b.function or not all(c.kind in _NUMBERS or c.op == "regroup" or c.op == "drop" for c in (a, b)) or (
            "step" in kinds and not kinds & {"term", "factor"}):
        return False
    first, second = nodes[a.function][a.index], nodes[b.function][b.index]
    return any(n is second for n in ast.walk(first)) or any(n is first for n in ast.walk(second))


def names_removed(module: ModuleType, function: str, mends: list[Change]) -> set[str]:
    """The names that mends taking out one side of an operation take out (`/ past` removed:
    past; `a` for `a | b`: b)."""
    nodes, found = list(ast.walk(definition(module, function))), set()
    for change in (c for c in mends if c.op in SIDE_REMOVALS and c.function == function):
        gone = taken_out(change, nodes[change.index])
        if isinstance(gone, ast.Name):
            found.add(gone.id)
    return found


def taken_out(removal: Change, node: ast.AST) -> ast.AST | None:
    """What a removal at `node` takes out: the line (`drop`), the side that goes (`left` keeps the
    left side: the right one goes), the part of `a | b` that is not kept, the arguments of a call
    taken away."""
    if removal.op == "drop":
        return node
    if removal.op == "keep_part":
        parts = node.values if isinstance(node, ast.BoolOp) else [node.left, node.right]
        return parts[1 - removal.arg]
    if removal.op == "unwrap" and isinstance(node, ast.Call):  # the call taken away: what it was told (its axes)
        kept = edit(node, removal)
        return ast.Tuple([a for a in [*node.args, *(k.value for k in node.keywords)] if a is not kept], ast.Load())
    return getattr(node, "right" if removal.op == "left" else "left", None)


def inside_removed(removal: Change, other: Change, nodes: list[ast.AST]) -> bool:
    """Whether `other` changes a node inside what `removal` takes out (`exp(s.mean(...))` for
    `s.mean(...)`, where the term `s.mean(...)` dropped mends it too; `transpose(2, -1)`, on three
    axes no transpose at all, where the transpose taken away mends it)."""
    if removal.op not in ("left", "right", "drop", "keep_part", "unwrap") or other.op in REMOVALS:
        return False
    gone = taken_out(removal, nodes[removal.index])
    return gone is not None and any(n is nodes[other.index] for n in ast.walk(gone))


def undoes(change: Change, removal: Change, nodes: list[ast.AST]) -> bool:
    """Whether `change` transposes the very transpose that `removal` takes away (`k.transpose(-2,
    -1).transpose(-2, -1)` for `k.transpose(-2, -1)`): the two cancel, so it mends only as the
    removal does, which says the slip."""
    node = nodes[removal.index]
    return (removal.op == "unwrap" and change.op == "transpose" and nodes[change.index] is node
            and isinstance(node, ast.Call) and call_name(node) in TRANSPOSES)


def alone_if_catch_all(mends: list[Change]) -> list[Change]:
    """The mends, without the catch-alls where any other mend holds (the module's docstring)."""
    others = [c for c in mends if c.op not in CATCH_ALLS]
    return others or mends


def shape_emptied(change: Change, nodes: list[ast.AST]) -> bool:
    """Whether `change` makes a shape's slice of whole numbers empty (`x.shape[:0]` or `x.shape[0 - 1:1 - 1]`
    for `x.shape[:1]`; the module's docstring)."""
    node = nodes[change.index]
    if change.op in REMOVALS:
        return False
    up, whole = parents(nodes[0]), node
    while whole is not None and not (isinstance(whole, ast.Subscript) and size_read(whole.value)):
        whole = up.get(id(whole))
    if whole is None or not isinstance(whole.slice, ast.Slice) or not any(n is node for n in ast.walk(whole.slice)):
        return False
    made = edit(node, change)
    if made is None:
        return False
    place = next(k for k, n in enumerate(ast.walk(whole)) if n is node)
    cut = copy.deepcopy(whole)  # the node replaced in a copy, where its place in the walk is the same
    old = list(ast.walk(cut))[place]
    replace_node(parents(cut)[id(old)], old, made)
    if not isinstance(cut.slice, ast.Slice) or cut.slice.step is not None:
        return False
    bounds = [None if b is None else _whole_number(b) for b in (cut.slice.lower, cut.slice.upper)]
    if any(b is None for b, written in zip(bounds, (cut.slice.lower, cut.slice.upper)) if written is not None):
        return False  # a bound that is no whole number written out: what it keeps is not known here
    return len(range(6)[bounds[0]:bounds[1]]) == 0  # six sizes: as many axes as any lab's tensor has, and more


def _whole_number(node: ast.AST) -> int | None:
    """A whole number written out with `+`, `-` and brackets (`0 - 1`, `-(1 - 1)`); None for anything else."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _whole_number(node.operand)
        return None if inner is None else -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left, right = _whole_number(node.left), _whole_number(node.right)
        return None if left is None or right is None else left + right if isinstance(node.op, ast.Add) else left - right
    return None


def _size_index(node: ast.AST, statement: ast.AST) -> bool:
    """Whether `node` is the axis of a size read in `statement`: `x.shape[node]` or `x.size(node)`."""
    for outer in ast.walk(statement):
        if isinstance(outer, ast.Subscript) and size_read(outer.value):
            inside = [outer.slice]
        elif isinstance(outer, ast.Call) and size_read(outer):
            inside = outer.args
        else:
            continue
        if any(n is node for part in inside for n in ast.walk(part)):
            return True
    return False


# calls that read a size or make a number: no step of their own
_NO_STEP = {"size", "float", "int", "len", "math.sqrt", "sqrt"}


def size_read_first(best: Change, mends: list[Change], nodes: dict[str, list[ast.AST]], made: set[str]) -> Change:
    """The mend said of `mends` where `best` leaves a line out (the module's docstring): a size read off another
    axis inside that line, where one mends and the line calls one of `made` (the reference's calls); else `best`."""
    if best.op != "drop":
        return best
    line = nodes[best.function][best.index]
    if not {call_name(n) for n in ast.walk(line) if isinstance(n, ast.Call)} & (made - _NO_STEP):
        return best
    return next((c for c in mends if c.op == "const" and c.function == best.function
                 and _size_index(nodes[c.function][c.index], line)), best)
