"""What a library call in a quoted line does, in words, when the reference never makes that call.

A hint quotes the learner's line where the values part from the reference's (parting.py) or the
change that mends it (repair.py). When that line calls something the reference does not, the call
is often the mistake, and the learner often misreads what it does: `cumsum` taken for a sum,
`split(2)` for two pieces, `reshape` for a transpose, `F.dropout` left on. The hint then says what
the call does. It says it as a fact about the call, never as the cause: the call may be right and
the mistake elsewhere in the line.

Only calls whose meaning is easy to misread are described; a call the reference's function makes
(or a function of the reference's it calls) is never described: the reference's own calls are not
the mistake. A call the reference makes only told how to count (`x.var(..., unbiased=False)`) is
described where the learner's is not told (a bare `x.var(...)` divides by n - 1).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from types import ModuleType

from attention_by_hand.lab.call_meanings import CALLS
from attention_by_hand.lab.code_layout import call_name, count_side, function_form, number_of

__all__ = ["LAYOUT_CALLS", "called", "call_words", "described", "kept_calls", "mended_calls", "reference_makes"]

# the calls that place, cut or join axes: said beside a change of the reference of where axes go (engine.py)
LAYOUT_CALLS = frozenset({"reshape", "view", "squeeze", "conj", "inner", "outer", "tensor_split", "split", "chunk",
                          "flatten", "movedim", "diagonal", "diag", "unfold", "hstack", "vstack", "dstack", "column_stack",
                          "block_diag", "tensordot", "expand", "repeat", "repeat_interleave", "narrow", "rot90",
                          "unravel_index", "bmm", "mm", "dsplit", "hsplit", "vsplit", "take", "put", "linear",
                          "permute", "stack"})

# a call given one of these keywords, or a True or False among its arguments, says how it counts:
# nothing to misread
_SETTLED = {"var": {"unbiased", "correction"}, "std": {"unbiased", "correction"}, "dropout": {"training", "train"},
            "diagonal": {"dim1", "dim2"}, "histc": {"min", "max"}, "binary_cross_entropy": {"reduction"},
            "binary_cross_entropy_with_logits": {"reduction"}, "index_put": {"accumulate"}, "index_put_": {"accumulate"},
            "scatter": {"reduce"}, "scatter_": {"reduce"}, "histogramdd": {"range"}, "histogram": {"range"}, "nonzero": {"as_tuple"}, "squeeze": {"dim"},
            "hardtanh": {"min_val", "max_val"}, "tensordot": {"dims"}}

# a call whose words are about adding into places (`scatter` writes, and does not add): described only
# where the reference adds into places itself (a count); where it makes a one-hot row, say, no place
# is written twice, and the words would name a fault not made
_ADDING_WORDS = ("scatter",)
_ADDS_INTO = {"index_put", "index_put_", "index_add", "index_add_", "bincount", "scatter_add", "scatter_add_",
              "scatter_reduce", "scatter_reduce_", "histc"}

# a call described only where given one of these keywords: its words are about that keyword alone
_ONLY_WITH = {"addcdiv": {"value"}, "addcmul": {"value"}, "add": {"alpha"}, "sub": {"alpha"}}

# a call given a bare True or False by position right after its axis, and nothing after it, reads
# it as `unbiased`, which the learner may take for `keepdim` (`x.var(-1, True)`, as `x.mean(-1,
# True)` keeps the axis); its name then gets FLAG and the flag after it, "var(flag)True", and it
# is described only where the reference counts the other way (`x.std(-1, False)` counts as a
# layer norm does; where the reference computes no variance, what was meant is not known)
FLAGGED = ("var", "std")
FLAG = "(flag)"

# a name whose call, made of these owners, is another function (`F.unfold` cuts image patches)
_NOT_OF = {"unfold": {"F", "functional", "nn"}, "trace": {"jit"}}

# the names whose functions or methods are not described: a NumPy function or an object's own
# layer means something else by the same name
_OTHERS = {"np", "numpy", "math", "self", "str", "random", "itertools"}


def called(tree: ast.AST, as_learners: bool = False) -> list[str]:
    """The names of the calls in `tree`, in the order they are written, each once.

    as_learners reads them as a learner's are read: it leaves out a call given a keyword or a True/False
    that says how it counts (`var(..., unbiased=False)`), a bare function (not torch's: a learner's
    own helper), and a method of NumPy, math or `self`."""
    names = []
    # the calls read as a pair (`.values`, `.indices`): `fmax` and `maximum` are said (no pair) only there; not
    # `[0]`, which may as well pick a row of the one tensor they return
    paired = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in ("values", "indices")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == "grad" and isinstance(func, ast.Attribute):  # torch.func's and torch.autograd's differ
                owner = getattr(func.value, "attr", getattr(func.value, "id", None))
                name = f"{owner}.grad" if owner in ("func", "autograd") else name
            if as_learners and not _torch_like(func):
                continue
            owner = getattr(func, "value", None)
            if as_learners and getattr(owner, "attr", getattr(owner, "id", None)) in _NOT_OF.get(name, ()):
                continue
            if as_learners and _of_a_function(owner):  # `torch.gt.outer(a, b)`: NumPy's ufunc method, no torch call
                continue
            if as_learners and _meant(name) in _ONLY_WITH and not {k.arg for k in node.keywords} & _ONLY_WITH[_meant(name)]:
                continue
            flags = any(isinstance(a, ast.Constant) and isinstance(a.value, bool) for a in node.args)
            flag = _flag_after_axis(node) if as_learners and name in FLAGGED else None
            if flag is not None and f"{name}{FLAG}{flag}" not in names:
                names.append(f"{name}{FLAG}{flag}")  # a flag by position: read as `unbiased`, whatever was meant
            if as_learners and name in _SETTLED and ({k.arg for k in node.keywords} & _SETTLED[name] or flags
                                                     or _told_by_position(node, name)):
                continue
            if as_learners and (_sized_as_meant(node, name) or _counted_as_meant(node, name) or _not_as_described(node, name)):
                continue
            if as_learners and name in _NO_PAIR and id(node) not in paired:
                continue
            if name and name not in names:
                names.append(name)
    return names


def _of_a_function(owner: ast.AST | None) -> bool:
    """`torch.gt` in `torch.gt.outer(...)`: a method asked of one of torch's functions, as of NumPy's ufuncs."""
    import torch

    return (isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "torch"
            and callable(getattr(torch, owner.attr, None)) and not isinstance(getattr(torch, owner.attr), type))


# calls whose words say they return no (values, indices) pair: said where the code reads one of them
_NO_PAIR = ("fmax", "maximum")

# the place, counting the tensor itself, from which a call's positional arguments say how it counts:
# torch.diagonal(x, offset, dim1, dim2), torch.histc(x, bins, min, max), torch.squeeze(x, dim),
# torch.tensordot(a, b, dims)
_TOLD_FROM = {"diagonal": 3, "histc": 3, "squeeze": 1, "tensordot": 2}


def _flag_after_axis(node: ast.Call) -> bool | None:
    """The True or False of `x.var(-1, True)` or `torch.var(x, -1, True)`: right after the axis, the
    last positional argument, and no `keepdim=`; None for another call."""
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    at = 2 if isinstance(owner, ast.Name) and owner.id == "torch" else 1
    last = node.args[at] if len(node.args) == at + 1 else None
    told = isinstance(last, ast.Constant) and isinstance(last.value, bool) and "keepdim" not in {k.arg for k in node.keywords}
    return last.value if told else None


def _counts_of(tree: ast.AST) -> set[bool]:
    """How the `var` and `std` calls in `tree` count, by keyword: True for n - 1 (`unbiased=True`,
    `correction=1`), False for n."""
    return {bool(k.value.value) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in FLAGGED for k in n.keywords if k.arg in ("unbiased", "correction")
            and isinstance(k.value, ast.Constant) and type(k.value.value) in (bool, int)}


def _told_by_position(node: ast.Call, name: str) -> bool:
    """Whether the call's positional arguments reach what _SETTLED's keywords would say (`x.diagonal(0,
    -2, -1)`); a method's tensor is the object it is called on, a function's its first argument."""
    if name not in _TOLD_FROM:
        return False
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    function_form = isinstance(owner, ast.Name) and owner.id == "torch"
    return len(node.args) + (0 if function_form else 1) > _TOLD_FROM[name]


def _first_told(node: ast.Call, keywords: tuple[str, ...]) -> ast.AST | None:
    """What a call is told right after its tensor (`x.split(2)`, `torch.split(x, 2)`), or by one of
    `keywords`; None where it is told neither."""
    at = 1 if function_form(node) else 0
    return node.args[at] if len(node.args) > at else next((k.value for k in node.keywords if k.arg in keywords), None)


def _sized_as_meant(node: ast.Call, name: str) -> bool:
    """A `split` given a size worked out (`d // 2`, `d / 2`) or a list of sizes: the learner counted
    a piece's size, as `split` reads it, so there is nothing to misread. A bare number or name
    (`split(2)`, `split(n_heads)`: meant as that many pieces?) is described."""
    if name != "split":
        return False
    given = _first_told(node, ("split_size_or_sections", "split_size"))
    worked_out = isinstance(given, ast.BinOp) and isinstance(given.op, (ast.FloorDiv, ast.Div))
    return worked_out or isinstance(given, (ast.List, ast.Tuple))


def _counted_as_meant(node: ast.Call, name: str) -> bool:
    """A `chunk` given a count by a name that says it is one (`n_heads`, `num_blocks`): the learner
    counted pieces, as `chunk` reads them, so its words (not pieces of that size) would name a
    misreading not made. A number or another name (`chunk(2)`, `chunk(head_size)`, `chunk(n)`) is described."""
    if name != "chunk":
        return False
    given = _first_told(node, ("chunks",))
    return isinstance(given, ast.Name) and given.id.startswith(("n_", "num_"))


def _one_wide(index: ast.AST | None) -> bool:
    """An index one wide along its last axis (`ids[:, None]`, `ids.unsqueeze(-1)`, `ids.view(-1, 1)`): a
    scatter along it writes one place of each row, never one place twice. Arithmetic on one (`ids[:, None] % V`)
    keeps it so."""
    if isinstance(index, ast.BinOp):
        return _one_wide(index.left) or _one_wide(index.right)
    if isinstance(index, ast.Subscript) and isinstance(index.slice, ast.Tuple) and index.slice.elts:
        last = index.slice.elts[-1]
        return isinstance(last, ast.Constant) and last.value is None
    if isinstance(index, ast.Call) and call_name(index) == "unsqueeze" and len(index.args) == 1:
        return number_of(index.args[0]) in (-1, 1)
    if isinstance(index, ast.Call) and call_name(index) in ("view", "reshape") and len(index.args) == 2:
        return number_of(index.args[1]) == 1
    return False


def _not_as_described(node: ast.Call, name: str) -> bool:
    """A call its words may not fit: a `scatter` whose index is one wide along its axis (_one_wide), so that
    no place is written twice; a `combinations` given `with_replacement`, or an `r` that is not
    the number 2 (by keyword, or by position after the tensor), whose words say pairs, i < j; a
    `put` or `put_` not given a tensor's two (the index, the source): a queue's `put(item)` is no
    tensor's; a `new_tensor` given anything but one count (`new_tensor(T)`, read as a range):
    `new_tensor(float("-inf"))` is a number meant as one."""
    if _meant(name) == "put":
        return len(node.args) + len(node.keywords) != 2
    if _meant(name) == "scatter":  # scatter(dim, index, src), or torch.scatter(t, dim, index, src)
        at = 2 if function_form(node) else 1
        return _one_wide(node.args[at] if len(node.args) > at else next((k.value for k in node.keywords if k.arg == "index"), None))
    if name == "new_tensor":
        one = node.args[0] if len(node.args) == 1 and not node.keywords else None
        return not (one is not None and (count_side(one) or (isinstance(one, ast.Call) and call_name(one) == "size")))
    if name != "combinations":
        return False
    given = {k.arg: k.value for k in node.keywords}
    r = given.get("r", node.args[1] if len(node.args) > 1 else None)
    return "with_replacement" in given or not (r is None or (isinstance(r, ast.Constant) and r.value == 2))


def _torch_like(func: ast.expr) -> bool:
    """A call of torch's, or a method of a tensor as far as the code shows: `torch.cumsum`,
    `F.dropout`, `x.split`; not `np.split`, `self.norm` or a bare `norm`."""
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    while isinstance(owner, ast.Attribute):
        owner = owner.value
    return not (isinstance(owner, ast.Name) and owner.id in _OTHERS) and not isinstance(owner, ast.Constant)


def _parsed(code: str) -> ast.AST | None:
    """A quoted piece of code as a tree: a statement, an expression, a loop's header or a
    fragment such as `* torch.eye(V)`, or the first line of a call that goes on over more lines
    (`return F.scaled_dot_product_attention(`); None when no reading parses."""
    for text in (code, code + "\n    pass", "_" + code, code.rstrip(":") + ":\n    pass", _closed(code)):
        try:
            return ast.parse(text)
        except SyntaxError:
            continue
    return None


def _closed(code: str) -> str:
    """The code with the brackets it left open closed, innermost first (strings are not read)."""
    pairs, opened = {"(": ")", "[": "]", "{": "}"}, []
    for char in code:
        if char in pairs:
            opened.append(pairs[char])
        elif opened and char == opened[-1]:
            opened.pop()
    return code + "".join(reversed(opened))


def reference_makes(reference: ModuleType, function: str, as_learners: bool = False) -> set[str]:
    """The names of the calls the reference's `function`, and the functions of the reference it
    calls, make (read as `called` reads them)."""
    from attention_by_hand.lab.mutants import definition, reachable

    return {name for f in reachable(reference, function) for name in called(definition(reference, f), as_learners)}


def _reference_counts(reference: ModuleType, function: str) -> bool | None:
    """How the reference's var and std count, where they count one way (_counts_of); else None."""
    from attention_by_hand.lab.mutants import definition, reachable

    ways = {c for f in reachable(reference, function) for c in _counts_of(definition(reference, f))}
    return next(iter(ways)) if len(ways) == 1 else None


def call_words(quoted: Iterable[str], reference: ModuleType, function: str, said: Iterable[str] = ()) -> str | None:
    """What each described call in the `quoted` code does, for calls the reference's `function`
    (and the functions of the reference it calls) never makes, leaving out those `said` (their
    names); None when there is none. `quoted` may hold hint text: its backticked code is read."""
    words = described(quoted, reference, function)
    parts = [text for name, text in words.items() if name not in set(said)]
    return "; ".join(parts) if parts else None


def kept_calls(mend: str) -> set[str]:
    """The names of the calls a mend's "`new` for `old`" leaves as they were: made in its new code with
    the very arguments the old code gives them (`view(-1, 1)` in both); a call whose arguments the mend
    changes (`flatten(-2, -1)` for `flatten(1)`) is not kept. Read off the text, since a quote cut
    short with "..." parses as no code; none where the mend reads no such text."""
    found = re.match(r"^`([^`]+)` for `([^`]+)`", mend)
    if not found:
        return set()
    new, old = (_calls_written(code) for code in found.groups())
    return {name for name, text in new if (name, text) in old}


def mended_calls(mend: str, innermost: bool = False) -> set[str]:
    """The names of the calls a mend changes: the call it says it is in or takes an argument out of
    (`dim=0` for `dim=-1` in `stack(...)`, `dim=-1` left out of `stack(...)`), or those the old code of
    its "`new` for `old`" writes and its new code does not keep. innermost: of the latter, only those
    that hold no other changed call (`size` of `reshape(t.size(-1), -1)`: the reshape changes through it)."""
    inside = re.match(r"^`[^`]+` (?:for `[^`]+` in|left out of) `(\w+)\(\.\.\.\)`", mend)
    if inside:
        return {inside.group(1)}
    found = re.match(r"^`([^`]+)` for `([^`]+)`", mend)
    if not found:
        return set()
    kept = kept_calls(mend)
    changed = {(name, text) for name, text in _calls_written(found.group(2)) if name not in kept}
    return {name for name, text in changed if not innermost or not any(
        inner != text and inner in text[len(name):] for _, inner in changed)}


def _calls_written(code: str) -> set[tuple[str, str]]:
    """(name, the call as written up to its closing bracket) of each call in a piece of code."""
    calls = set()
    for start in re.finditer(r"(\w+)\s*\(", code):
        depth, end = 0, None
        for i in range(start.end() - 1, len(code)):
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            if depth == 0:
                end = i + 1
                break
        calls.add((start.group(1), code[start.start():end] if end else code[start.start():] + "<cut>"))
    return calls


def described(quoted: Iterable[str], reference: ModuleType, function: str) -> dict[str, str]:
    """{name: its words} for call_words, in the order the calls are first written."""
    # read as the learner's are: a `var` the reference only makes told how to count
    # (`unbiased=False`) leaves the learner's bare `var` described
    reference_calls = reference_makes(reference, function, as_learners=True)
    told = reference_makes(reference, function) - reference_calls
    counts = _reference_counts(reference, function)
    adds = bool(reference_makes(reference, function) & _ADDS_INTO)
    names: list[str] = []
    for text in quoted:
        # a mend's "`new` for `old`": the new code is the reference's way, not the learner's
        text = re.sub(r"^`[^`]+` for ", "", text)
        # a mend's "in `stack(...)`" names the call it changes with its owner dropped: read as a tensor's
        # where the call's words are about where its axis goes (a mend in it names the axis), never
        # about a count its `...` hides (`chunk`, `split`: the mend left the count alone)
        text = re.sub(r"in `(\w+)\(\.\.\.\)`", lambda m: f"in `_.{m[1]}(...)`" if "`dim`" in CALLS.get(m[1], "") else m[0], text)
        for code in re.findall(r"`([^`]+)`", text) or [text]:
            tree = _parsed(code)
            for name in called(tree, as_learners=True) if tree is not None else []:
                if FLAG in name and name not in names and counts is not None and str(counts) != name.partition(FLAG)[2]:
                    names.append(name)
                elif _meant(name) in CALLS and {name, _meant(name)}.isdisjoint(reference_calls) and name not in names \
                        and (adds or _meant(name) not in _ADDING_WORDS):
                    names.append(name)
    how = {name: "calls only told how to count" if name in told else "does not call" for name in names}
    return {name: _flag_words(name.partition(FLAG)[0]) if FLAG in name
            else f"`{name}`, which the reference {how[name]}, {CALLS[_meant(name)]}" for name in names}


def _flag_words(name: str) -> str:
    return (f"`{name}` reads a True or False given by position right after `dim` as `unbiased` (`keepdim` comes "
            f"after it): True divides by n - 1, and without `keepdim=True` the axis is dropped")


def _meant(name: str) -> str:
    """The call an in-place method does (`index_fill_` is `index_fill`, written into its tensor)."""
    return name[:-1] if name not in CALLS and name.endswith("_") and not name.startswith("_") and name[:-1] in CALLS else name

