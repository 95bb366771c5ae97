"""How a learner's output is compared with the reference, and how a wrong one is explained.

A bare "wrong" teaches nothing, so a judge recomputes the answer with each usual mistake
(softmax over the wrong axis, the mask on the wrong side, ...) and lists every mistake whose
output equals the learner's: a `Miss`. One check calls a function on several inputs, and a
mistake explains the check only if it explains every input that failed (verdict.py): on a
single token, hiding the diagonal and inverting the mask give the same (1, 1) answer, and only
the other inputs tell them apart. When no known mistake explains the output, the Miss says what
was observed (which cell, which value, what was expected) and guesses no cause.

Outputs are compared in float64 with rtol = 1e-4, atol = 1e-5: learners' float32 code adds the
same products in other orders (differences near 1e-7), while the mistakes the checks know move
some values by 1e-2 or more on their inputs.

Left out: the checks of each lab (its checks.py), running the learner's file (runner.py, child.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import torch

from attention_by_hand.lab.error_words import error_words
from attention_by_hand.lab.foreign_words import foreign_words
from attention_by_hand.lab.wire import Foreign, NumpyArray, Oversized

__all__ = [
    "RTOL",
    "ATOL",
    "Check",
    "Probe",
    "Miss",
    "close",
    "equals",
    "judge_tensor",
    "judge_number",
    "judge_pair",
    "reversed_of",
    "hint_for_exception",
    "matmul_sizes",
    "mismatched_sizes",
    "difference",
    "brief",
    "shape_text",
]

RTOL, ATOL = 1e-4, 1e-5

# A known mistake: its hint, and the output it produces (or a function computing it).
Variant = tuple[str, "torch.Tensor | Callable[[], torch.Tensor | None] | None"]


@dataclass(frozen=True)
class Miss:
    """A wrong output: what was observed, and the known mistakes whose output equals it.

    lead: said before an explanation (e.g. the wrong shape); prefix: which part of a pair
    (e.g. "weights: "). Both are part of the observation too.
    """

    observed: str
    explanations: tuple[str, ...] = ()
    lead: str = ""
    prefix: str = ""
    # What the judge compared against: the hint of every known mistake that could be made on this
    # input (`tried`), and of those that give the reference's own output here (`moot`: ignoring a
    # `base` argument changes nothing when the default was passed). verdict.py uses `tried` so that
    # a mistake one input rules out is never named for another; mistakes.py lists tried - moot.
    tried: tuple[str, ...] = ()
    moot: tuple[str, ...] = ()
    # those whose output here holds a nan or an inf: an edge where a learner's code that makes the
    # mistake may still be right (row -1 of a mask wraps round to its last row)
    broken: tuple[str, ...] = ()

    def text(self, explanation: str | None = None) -> str:
        """The hint: `explanation` (default: the first known one), or else what was observed."""
        explanation = explanation if explanation is not None else next(iter(self.explanations), None)
        if explanation is None:
            return self.prefix + self.observed
        return self.prefix + (f"{self.lead}: {explanation}" if self.lead else explanation)

    def under(self, prefix: str) -> Miss:
        return replace(self, prefix=prefix + self.prefix)


# judge(got, expected, args) -> None when got is right, a Miss (or a plain hint) when it is not.
Judge = Callable[[object, object, tuple], "Miss | str | None"]
# explain_error(type_name, message, args, shapes) -> a hint for an exception on these inputs, or None;
# shapes: {name: shape} of the tensors the raising line read (read_shapes.py), {} where not known.
ExplainError = Callable[[str, str, tuple, dict], "str | None"]


@dataclass(frozen=True)
class Probe:
    """An input chosen to separate causes (one tile covering every key, q = 0, ...): called like a
    case, never judged pass or fail; it only helps to say where an error is (diagnosis.py)."""

    label: str  # what the input isolates, e.g. "one tile covering every key"
    args: tuple


@dataclass(frozen=True)
class Check:
    """One line of the report: `function` called on every case; it passes when each case does."""

    function: str
    label: str
    cases: tuple[tuple, ...]
    judge: Judge
    explain_error: ExplainError | None = None
    probes: tuple[Probe, ...] = ()


# --- comparing and describing outputs -------------------------------------------------------


def shape_text(shape) -> str:
    return "(" + ", ".join(str(n) for n in shape) + (",)" if len(shape) == 1 else ")")


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape and equal within the tolerance; NaN equals NaN (a mistake may produce NaN)."""
    if tuple(a.shape) != tuple(b.shape):
        return False
    return bool(torch.allclose(a.double(), b.double(), rtol=RTOL, atol=ATOL, equal_nan=True))


def equals(got, expected: torch.Tensor) -> bool:
    """Whether a learner's output (of any type) is a tensor equal to `expected`."""
    return isinstance(got, torch.Tensor) and close(got, expected)


def _index(flat: int, shape) -> str:
    """A flat position as [i, j] in `shape`."""
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return "[" + ", ".join(str(i) for i in reversed(index)) + "]" if index else ""


def difference(got: torch.Tensor, expected: torch.Tensor) -> str:
    """The largest difference and where it is: what was observed, when no mistake matched."""
    g, e = got.double().flatten(), expected.double().flatten()
    distance = (g - e).abs()
    # A NaN or an infinity where the reference has a number is the worst difference there is.
    distance[torch.isnan(distance)] = math.inf
    distance[(g == e)] = 0.0  # equal infinities (a -inf both sides) differ by nothing, not NaN
    worst = int(distance.argmax())
    where = _index(worst, expected.shape)
    where = f" at {where}" if where else ""
    return f"largest difference{where}: expected {e[worst]:.4g}, got {g[worst]:.4g}"


def brief(value) -> str:
    """What a non-tensor output was, in a few words."""
    if value is None:
        return "None (is a `return` missing?)"
    if isinstance(value, NumpyArray):
        return "a NumPy array (return a torch tensor: stay in torch, or torch.from_numpy)"
    if isinstance(value, Foreign):
        return f"a {value.name}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    if isinstance(value, bool):
        return f"the bool {value}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return f"a {type(value).__name__}"


@dataclass(frozen=True)
class _Compared:
    matching: tuple[str, ...]
    tried: tuple[str, ...]
    moot: tuple[str, ...]
    broken: tuple[str, ...]


def _matching(got, expected, variants: Iterable[Variant]) -> _Compared:
    """Every known mistake whose output equals `got` (in the order given), every one that could be
    made on these inputs, and those whose output is the reference's own."""
    hints, tried, moot, broken = [], [], [], []
    for hint, output in variants:
        try:
            output = output() if callable(output) else output
        except (RuntimeError, IndexError, ValueError):
            continue  # this mistake cannot even be made on these inputs: it does not match
        if output is None:
            continue
        tried.append(hint)
        if isinstance(output, torch.Tensor) and close(output, expected):
            moot.append(hint)
        if isinstance(output, torch.Tensor) and output.is_floating_point() and not bool(torch.isfinite(output).all()):
            broken.append(hint)
        if isinstance(got, torch.Tensor) and close(got, output) and hint not in hints:
            hints.append(hint)
    return _Compared(tuple(hints), tuple(tried), tuple(moot), tuple(broken))


def judge_tensor(got, expected: torch.Tensor, names: str, variants: Iterable[Variant] = (), observe=None):
    """None when `got` equals `expected`; otherwise a Miss with every mistake that explains it.

    names: the expected shape in named dimensions, e.g. "(T, T)", for the shape message.
    observe(got) -> what is wrong with `got`, in facts (which cell, which value), or None; used
    when no known mistake matches, before the plain largest difference.
    """
    if not isinstance(got, (torch.Tensor, Oversized)):
        return Miss(f"returned {brief(got)}, expected a tensor of shape {names}")
    if tuple(got.shape) != tuple(expected.shape):
        named = f"{names} = {shape_text(expected.shape)}" if names != shape_text(expected.shape) else names
        message = f"wrong output shape: expected {named}, got {shape_text(got.shape)}"
        compared = _matching(got, expected, variants)
        return Miss(message, compared.matching, lead=message, tried=compared.tried, moot=compared.moot,
                    broken=compared.broken)
    if close(got, expected):
        return None
    compared = _matching(got, expected, variants)
    observed = _coarser(got, expected) or _truth_values(got, expected) or (observe(got) if observe else None) or difference(got, expected)
    return Miss(observed, compared.matching, tried=compared.tried, moot=compared.moot, broken=compared.broken)


def _truth_values(got, expected: torch.Tensor) -> str | None:
    """True and False where the reference returns float numbers: what a comparison returns."""
    if not (isinstance(got, torch.Tensor) and got.dtype == torch.bool and expected.is_floating_point()):
        return None
    if bool(((expected == 0) | (expected == 1)).all()):
        return None  # a table of 0 and 1 is compared as True and False: what differs there is which, not the type
    return (f"yours returns True and False (torch.bool), the reference's {expected.dtype} numbers: a comparison (`>`, "
            f"`==`) or a `.bool()` where the number itself was meant; {difference(got, expected)}")


def _coarser(got, expected: torch.Tensor) -> str | None:
    """A float type with fewer digits than the reference's, and numbers that agree to its digits:
    the numbers differ because of a cast."""
    if not (isinstance(got, torch.Tensor) and got.is_floating_point() and expected.is_floating_point()):
        return None
    eps = torch.finfo(got.dtype).eps
    if eps <= torch.finfo(expected.dtype).eps:
        return None
    # the cast explains the numbers only where they agree to its digits (a few units of its eps)
    g, e = got.double(), expected.double()
    if not (torch.isfinite(g).all() and torch.isfinite(e).all()):
        return None
    if bool(((g - e).abs() > 8 * eps * e.abs().clamp(min=1.0)).any()):  # each number, to a few units of its eps
        return None
    digits = round(-math.log10(eps))
    method = {torch.float16: ".half(), ", torch.bfloat16: ".bfloat16(), "}.get(got.dtype, "")
    return (f"yours is {got.dtype}, the reference's {expected.dtype}: a cast on the way ({method}"
            f".to({got.dtype}), or an input of that type) keeps about {digits} significant digits; keep {expected.dtype}")


def judge_number(got, expected: torch.Tensor, variants: Iterable[Variant] = ()):
    """A 0-d result: a 0-d tensor or a plain Python number are both fine."""
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        got = torch.tensor(float(got), dtype=torch.float64)
    return judge_tensor(got, expected, "()", variants)


def reversed_of(first: torch.Tensor, second: torch.Tensor) -> Callable[[object, object], bool]:
    """swapped(a, b) for judge_pair: a half holds the OTHER half's expected value and neither holds
    its own. One result returned twice (`out, out`) holds its own value in one half: nothing there
    is swapped, so that is not said."""

    def swapped(a, b) -> bool:
        if equals(a, first) or equals(b, second):
            return False
        return equals(a, second) or equals(b, first)

    return swapped


def judge_pair(got, names: str, swapped: Callable[[object, object], bool] | None = None) -> Miss | None:
    """None when got is a pair; else what it is instead. swapped(a, b): whether (a, b) is the pair reversed."""
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        return Miss(f"returned {brief(got)}, expected a pair {names}")
    if swapped and swapped(*got):
        swap = f"the two results look swapped: return them in the order {names}"
        return Miss(swap, (swap,))
    return None


_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
# torch's words for a float where a tuple of ints belongs (reshape, view, a size); its message for
# an invalid combination of arguments lists "tuple of ints" in signatures too, and is not this.
_FLOAT_SIZE = re.compile(r"must be tuple of ints,\s*but got float|must be tuple of ints, not float")
_MATMUL = re.compile(r"shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


def mismatched_sizes(message: str) -> tuple[int, int] | None:
    """The two sizes of torch's broadcasting error "the size of tensor a (4) must match ... b (8)"."""
    found = _SIZES.search(message)
    return (int(found.group(1)), int(found.group(2))) if found else None


def matmul_sizes(message: str) -> tuple[int, int, int, int] | None:
    """(n, k, k2, m) of torch's error "mat1 and mat2 shapes cannot be multiplied (nxk and k2xm)"."""
    found = _MATMUL.search(message)
    return tuple(int(v) for v in found.groups()) if found else None


def hint_for_exception(type_name: str, message: str) -> str:
    """What torch's error says, in the learner's terms: a cause only where the words name it (a
    name torch lacks, a slip that alone raises those words: foreign_words.py, error_words.py)."""
    found = matmul_sizes(message)
    if found:
        n, k, k2, m = found
        return (
            f" (a matrix product ({n}, {k}) @ ({k2}, {m}): the inner sizes {k} and {k2} must be equal; "
            "print the shapes of both sides)"
        )
    sizes = mismatched_sizes(message)
    if sizes:
        return f" (two tensors of sizes {sizes[0]} and {sizes[1]} on one axis were combined; print their shapes)"
    if _FLOAT_SIZE.search(message):
        return (" (a size or an axis given as a float: `/` divides to a float even when the result is whole; "
                "sizes take `//`)")
    if "boolean mask" in message or "to be a boolean tensor" in message:
        return " (a mask must be a bool tensor: made with a comparison, or converted with .bool())"
    if _COMBINATION.search(message):  # torch's list of a call's forms: it names dtypes of its own
        return foreign_words(message) or _argument_words(message) or error_words(message)
    if any(w in message for w in ("scalar type", "dtype", "used as indices", "can't be cast")):
        return _dtype_words(message)
    too_many = re.search(r"too many indices for tensor of dimension (\d+)", message)
    if too_many:
        return f" (indexed with more axes than the tensor has: it has {too_many.group(1)}; print its shape)"
    axis = re.search(r"Dimension out of range \(expected to be in range of \[(-\d+), (-?\d+)\], but got (-?\d+)\)", message)
    if axis:
        # an axis number, not a position; the range is the call's (a 0-d tensor is given [-1, 0],
        # unsqueeze one more than the tensor has), so it is said, not a count of the tensor's axes
        low, high, got = (int(g) for g in axis.groups())
        past = f": {got} is one past the last, {high} (or -1)" if got == high + 1 else ""
        return (f" (axis {got} asked where the axis numbers allowed run from {low} to {high}, -1 being the last"
                f"{past}; print the tensor's shape)")
    vector = re.search(r"(\w+)\(\): Index is supposed to be a vector", message)
    if vector:
        # the op's own words: the index it was given has more than one axis
        plain = ", or index with `weight[ids]`, which keeps the ids' shape" if vector.group(1) == "index_select" else ""
        return (f" ({vector.group(1)} takes a 1-D index; given ids of more axes, such as a batch, it refuses: "
                f"flatten the ids first{plain})")
    if "bitwise_xor" in message:
        # `^` on floats reaches torch as bitwise_xor, which only integers and bools have
        return (" (bitwise exclusive or, Python's `^`, which floats do not have; a power is `**`, and e to a power "
                "`torch.exp`)")
    if "~ (operator.invert) is only implemented on integer and Boolean-type tensors" in message:
        return (" (`~` is a bitwise not, which float tensors do not have, and `torch.ones(...)` makes floats unless "
                "given a dtype: make the tensor bool first, `dtype=torch.bool` or a comparison such as `== 0`)")
    if "refer to a single memory location" in message:
        # cat(..., out=x) with x among the inputs, or an in-place step whose argument overlaps the tensor written
        return (" (the tensor written to is also read by the same step: an `out=` that names one of the inputs, or "
                "an in-place step on a tensor that overlaps what it reads; write the result into a new tensor "
                "instead, or `.clone()` what is read)")
    pair = re.search(r"contracted dimensions need to match, but first has size \d+ in dim (-?\d+) and second has size "
                     r"\d+ in dim (-?\d+)", message)  # torch.tensordot's own words, naming the pair of axes that failed
    if pair and pair.groups() == ("-1", "0"):  # one axis contracted, `dims=1`: the default's words would blame a default not left
        return (" (torch.tensordot with `dims=1` pairs the LAST axis of the first tensor with the FIRST axis of "
                "the second, as a matrix product does: their sizes must agree)")
    if pair and pair.groups() in (("-2", "0"), ("-1", "1")):  # a pair of the default's two, `dims=2`
        return (" (torch.tensordot contracts, unless given `dims`, the last TWO axes of the first tensor with the "
                "first two of the second; a matrix product is `a @ b`, or `dims=1`)")
    if pair:  # axes named in `dims`
        return (" (torch.tensordot pairs the axes its `dims` names, the first tensor's with the second's in order: "
                "the sizes of each pair must agree)")
    if "for sparse tensors" in message or "sparse tensors do not" in message.lower():
        return " (a sparse tensor where an ordinary one is needed: `.to_dense()` makes it one)"
    shape_given = re.search(r"normalized_shape = \[([^\]]*)\]", message)
    if shape_given and "same shape as normalized_shape" in message:  # the weight against what it was given
        negative = any(part.strip().startswith("-") for part in shape_given.group(1).split(","))
        axis = ", not an axis number like `dim=-1`" if negative else ""
        return (f" (layer_norm's `normalized_shape` is the SHAPE of the trailing axes it normalises over, "
                f"`(d_model,)`{axis}; the weight and the bias must have that shape)")
    if "normalized_shape" in message and "expected input with shape" in message:
        return " (the input's trailing axes must have the shape `normalized_shape` names; print the input's shape)"
    itself = re.search(r"must be Tensor, not (function|method|builtin_function_or_method|Linear|LayerNorm|Sequential)\b", message)
    if itself:  # the layer or function given is named by its type alone: the example names none of the learner's
        kind = "function" if "function" in itself.group(1) or itself.group(1) == "method" else f"layer ({itself.group(1)})"
        return (f" (a {kind} itself where its result was meant: a call's brackets are missing or misplaced, "
                "`f` for `f(x)`)")
    if "does not require grad and does not have a grad_fn" in message:
        # the checks call a function under torch.no_grad(), as a caller that only wants values may
        return (" (what `.backward()` or `autograd.grad` was given has no graph behind it: no input it was made from "
                "requires grad, or it was made while gradients were switched off, as they are when the checks call "
                "your function (under `torch.no_grad()`); build it inside `with torch.enable_grad():`, from inputs "
                "made `.requires_grad_()`)")
    if "'Tensor' object is not callable" in message:
        return (" (a tensor was called as a function is: round brackets after a name or an attribute that holds a "
                "tensor, `t(...)` or `x.values()`, or a tensor handed where a function belongs; a tensor is indexed "
                "with square brackets, and `.values` or `.T` is read without brackets)")
    known = foreign_words(message) or error_words(message)  # a foreign name, or a slip torch's words always mean
    if known:
        return known
    coo = re.search(r"len\(size\) = (\d+), sparse_dim = (\d+)", message)  # torch.sparse_coo_tensor's own words
    if coo and int(coo.group(2)) > int(coo.group(1)):
        # said of what the first argument was, not of how it came to be so: pairs in rows, or the values given first
        return (f" (sparse_coo_tensor(indices, values, size) reads one axis per entry of its FIRST argument's first "
                f"axis: that had {coo.group(2)}, for a size of {coo.group(1)} axes; the indices come first, one row per "
                "axis, (2, number of entries) for a matrix: print the shape of what you gave first)")
    if "The shape of the mask" in message and "does not match the shape of the indexed tensor" in message:
        return " (a bool mask used as an index must have the shape of the axes it indexes, from the first; print both shapes)"
    if "out of range" in message or "out of bounds" in message:
        return " (an index out of range: print the shape of what you index)"
    return ""


_COMBINATION = re.compile(r"(\w+)\(\) received an invalid combination of arguments")
_SIGNATURE = re.compile(r"\* \(([^)]*)\)\s*didn't match because some of the arguments have invalid types: \(([^)]*)\)")


def _argument_words(message: str) -> str:
    """torch's "invalid combination of arguments", said as the first argument that does not fit
    the forms that match furthest: its name, its place, and every type those forms take there."""
    op = _COMBINATION.search(message)
    forms = []
    for parameters, given in _SIGNATURE.findall(message) if op else ():
        params, types = [p.strip() for p in parameters.split(",")], [t.strip() for t in given.split(",")]
        wrong = next((i for i, t in enumerate(types) if t.startswith("!")), None)
        if wrong is not None and wrong < len(params) and len(params[wrong].split()) == 2:
            got = types[wrong].strip("!").split("=")[-1]  # `index=int`: a keyword's name is no type
            forms.append((wrong, *params[wrong].split(), got))
    axes = re.search(r"got \(Tensor, int, int[,)]", message)
    if op and axes and re.search(r"tuple of ints\?? dim, bool", message):  # `torch.mean(x, 0, 2)`: axes listed one by one
        return (f" ({op.group(1)}() takes several axes as ONE argument, a tuple such as `dim=(0, 2)`: the argument after "
                "`dim` is a flag, a bool)")
    if not forms:
        return ""
    at = max(f[0] for f in forms)
    kinds = list(dict.fromkeys(f[1] for f in forms if f[0] == at))
    name, got = next((f[2], f[3]) for f in forms if f[0] == at)
    advice = ""
    if got == "float" and "int" in kinds:
        advice = " (`/` makes a float even where the result is whole; `//` keeps an int)"
    elif kinds == ["Tensor"] and got in ("int", "float", "bool", "list"):
        advice = f" (wrap the {got}: `torch.tensor([...])`)"
    return f" ({op.group(1)}() takes `{name}`, argument {at + 1}, as {' or '.join(_an(k) for k in kinds)}, not {_an(got)}{advice})"


def _an(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


_INTEGER = {"long", "int", "int64", "int32", "int16", "byte", "uint8", "short", "char"}
_FLOAT = {"float", "double", "half", "float16", "float32", "float64", "bfloat16"}


def _dtype_words(message: str) -> str:
    """torch's complaint about dtypes, said by the dtypes it names: an index or a target that must
    be integers, integers met by floats, or float64 met by float32 (both floats: no integer
    is involved, and `.float()` on an integer is no mend there)."""
    low = message.lower()
    given = re.search(r"(\w+)\(\): argument '\w+' \(position \d+\) must be torch\.dtype, not (Tensor|Parameter)", message)
    if given:  # torch.finfo(x): the tensor itself where its dtype was meant
        return f" ({given.group(1)}() takes a dtype, not a tensor: give it the tensor's `.dtype`, `{given.group(1)}(x.dtype)`)"
    if "attn_mask" in low:  # scaled_dot_product_attention's mask
        return (" (attn_mask must be a bool tensor, True = may attend, or a float one of the query's dtype, "
                "added to the scores)")
    if "for index" in low:  # index_select, gather, scatter: positions, never a mask
        return (" (this index must hold integer positions (int64): not floats (convert with .long()) nor a bool "
                "mask (a mask's positions are mask.nonzero()))")
    if "'indices'" in low:  # nn.Embedding, F.embedding, F.one_hot: the ids
        return " (the ids must be integers (int64), not floats: convert with .long())"
    if "used as indices" in low:
        # integers pick entries by number, bools pick cells: a mask of 0s and 1s wants .bool(), not .long()
        return (" (a tensor used as an index must hold integers or bools, not floats: .long() for positions, "
                ".bool() for a mask of 0s and 1s)")
    if "target dtype" in low:
        return " (the targets must be integer class ids (int64): convert with .long())"
    if "for tensors with different dtypes" in low:  # heaviside's values of another dtype than its input
        return " (this call takes its tensors in ONE dtype, and they differ: make the other as the first is, `.to(x.dtype)`)"
    words = set(re.findall(r"[a-z]+\d*", low.replace("tensor", " tensor")))  # torch.FloatTensor: float
    if "can't be cast" in low and words & _INTEGER and words & _FLOAT:
        return (" (a float result that an integer tensor was to hold: an in-place step on an integer tensor, or an "
                "integer tensor given to a call that computes in floats; make it float)")
    if "bool" in words and words & (_INTEGER | _FLOAT):
        return " (a bool tensor where numbers belong: convert it with .float(), or use it as a mask (masked_fill, torch.where))"
    if words & _INTEGER and words & _FLOAT:
        return " (integer and float tensors mixed: convert with .float() or .to(other.dtype))"
    if words & {"double", "float64"} and words & {"float", "float32"}:
        return (" (a float64 (double) tensor met a float32 one: find what made float64, a dtype=torch.float64, "
                "a .double() or a tensor from NumPy, and keep float32, like the inputs)")
    return " (a dtype this call does not take: print each tensor's .dtype)"

