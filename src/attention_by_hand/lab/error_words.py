"""torch's and Python's own words for a common slip, said as the slip: a table read by judging.py.

Each entry is a piece of an error's message and what it means for a learner's code. torch says
"Boolean value of Tensor with more than one value is ambiguous"; the slip is a Python `max`, `if`
or `and` given a tensor of several values. Nothing of the learner's runs again: the words are read
off the message alone, so each names the ways of reaching those words, or the one they have.

The sizes `index_add_` and its kin print (`self.shape = [...] source.shape = [...]`) are read too,
where the source's are the target's with one axis left out.

Left out: the other errors whose sizes or types tell more (judging.py reads those: sizes that do not
match, an invalid combination of arguments, a dtype), and a name or keyword torch lacks
(foreign_words.py).
"""

from __future__ import annotations

import math
import re

__all__ = ["error_words"]

_WORDS = (
    ("Boolean value of Tensor with more than one value is ambiguous",
     "a tensor of several values where Python needs one True or False: an `if`, `and`, `or`, `not`, or Python's "
     "`max` or `min` of two tensors; `torch.maximum(a, b)` and `torch.where(mask, a, b)` work entry by entry, and "
     "`&`, `|`, `~` combine masks"),
    ("only one element tensors can be converted to Python scalars",
     "a tensor of several values made one Python number: `math.exp`, `math.sqrt` or `math.log` of a tensor, "
     "`float(x)`, `int(x)`, or a list of tensors given to `torch.tensor`; torch's own (`torch.exp`, "
     "`torch.sqrt`) work entry by entry, and `torch.stack` joins tensors"),
    ("slice indices must be integers or None",
     "a slice's bound that is not an int: `/` gives a float even where it divides exactly (8 / 2 is 4.0); "
     "`//` keeps an int"),
    ('"histogram_cpu" not implemented for',
     "`histc` counts floats only: integer ids need `.float()` first, and `torch.bincount(ids, minlength=n)` counts "
     "them as they are"),
    ("expected BoolTensor for mask",
     "a mask must be a bool tensor: one of 0s and 1s in another dtype needs `.bool()` (a comparison gives bool "
     "already)"),
    ("invalid type: '",
     "`.type(...)` takes a torch dtype (`torch.float32`) or a tensor type's full name (`'torch.FloatTensor'`), not "
     "Python's or NumPy's names for a type; `.float()` casts to float32"),
    ("cannot be converted to Scalar",
     "`.item()` reads the one number of a tensor of one entry; this tensor has more"),
    ("Can't call numpy() on Tensor that requires grad",
     "a NumPy function given a tensor that records gradients: use torch's own (`torch.exp` for `np.exp`), which "
     "keeps the tensor and its gradients"),
    ("must be tuple of Tensors, not Tensor",
     "`torch.stack` and `torch.cat` take a list or a tuple of tensors, `torch.cat([a, b], dim=...)`: one tensor "
     "is no list of them"),
    ("view size is not compatible with input tensor's size and stride",
     "`view` needs the memory laid out in order, which a transpose, a permute, an expand or a slice of part of an "
     "axis leaves otherwise: `.reshape(...)` copies where it must"),
    ("must be a 3D tensor",
     "a batched matrix product (`torch.bmm`, `baddbmm`) takes exactly three axes, (b, n, m) and (b, m, p); `@` "
     "takes any number and broadcasts"),
    ("must be a matrix",
     "`torch.mm` (and `addmm`) takes matrices of exactly two axes; `@` takes batches"),
    ("which does not broadcast with previously seen size",
     "one of einsum's letters names axes of different lengths: a letter must stand for axes of one length in every "
     "operand; read each operand's letters against its shape"),
    ("Expected target size",
     "`F.nll_loss` and `F.cross_entropy` want the classes on axis 1, (N, C) or (N, C, d1, ...), and a target of "
     "the input's shape with axis 1 taken out, (N, d1, ...): either the classes are elsewhere (a (batch, "
     "sequence, classes) input reads its sequence as the classes; `.transpose(1, 2)` it, or flatten both), or the "
     "target is not that shape (a length off by one, an axis too many)"),
    (tuple(f"'tuple' object has no attribute '{m}'" for m in ("pop", "remove")),
     "a tuple cannot be changed, and `unbind`, `split`, `chunk` and a function's several results are tuples: "
     "`list(...)` makes a list that can, or two slices joined by `+` make a new tuple without the entry"),
    (tuple(f"'tuple' object has no attribute '{m}'" for m in ("append", "insert", "extend")),
     "a tuple cannot be changed, and `unbind`, `split`, `chunk` and a function's several results are tuples: "
     "`list(...)` makes a list that can, or `+ (entry,)` makes a new tuple with it"),
    ("Could not run 'aten::dot' with arguments from the 'Sparse",
     "torch's `dot` is the dot product of two dense 1-D tensors, with no sparse version, unlike NumPy's and SciPy's "
     "`.dot`, a matrix product: a sparse matrix times a dense one is `torch.sparse.mm(a, b)`, or `a @ b`"),
    (("for @: 'Tensor' and 'Linear'", "for @: 'Linear' and 'Tensor'"),
     "a layer is called on a tensor, `layer(x)`, not multiplied with `@`: `@` takes tensors (a Linear's own matrix "
     "is `layer.weight`, (out_features, in_features))"),
    (("of a 0-d tensor", "iteration over a 0-d tensor"),
     "a tensor of no axes, one number (a reduction over every axis, or an index on each): it has no length and "
     "cannot be walked"),
)

# a Python or NumPy container handed where torch takes a tensor (an embedding's indices) -> what makes one
_NOT_TENSOR = {
    "range": "a Python `range` is no tensor: `torch.arange(start, end)` makes the same numbers as one",
    "list": "a Python list is no tensor: `torch.tensor(...)` makes one of numbers, `torch.stack(...)` of tensors",
    "tuple": "a Python tuple is no tensor: `torch.tensor(...)` makes one of numbers, `torch.stack(...)` of tensors",
    "numpy.ndarray": "a NumPy array is no tensor: torch's own function (`torch.arange`, ...) makes one, or "
                     "`torch.from_numpy(...)` wraps the array",
}
_CONTAINER = re.compile(r"must be Tensor, not (range|list|tuple|numpy\.ndarray)\b")
_NUMBER_GIVEN = re.compile(r"(\w+)\(\): argument 'input' \(position 1\) must be Tensor, not (int|float|bool)\b")
_ENTRYWISE_PAIRS = ("maximum", "minimum")  # entrywise functions of two tensors that math lacks
# NumPy's transpose takes every axis in its new order; torch's exchanges two (the method's count is 2, the function's 3)
_AXES_ORDER = re.compile(r"\btranspose\(\) takes [23] positional arguments but \d+ were given")
_KEEPDIM_INT = re.compile(r"argument 'keepdim' \(position \d\) must be bool, not int")  # `x.sum(0, 2)`, `torch.amax(x, 0, 2)`

# an empty tensor made to fill a shape that has entries: the axis that does not match is 0 long in it
_EMPTY_SOURCE = re.compile(r"must match the existing size \(0\)")
_NO_AXIS = re.compile(r"(\w+)\(\) missing 1 required positional arguments?: \"dim\"")
_INDEX_NUMBER = re.compile(r"(\w+?)_?\(\): argument 'index' \(position \d\) must be Tensor, not int")
# an axis named by a string (pandas' `axis='columns'`): "got (dim=str, )", "argument 'dim' must be int, not str"
_AXIS_STRING = re.compile(r"got \([^)]*\b(?:dim|axis)=str\b|argument '(?:dim|axis)' (?:\(position \d\) )?must be (?:int|tuple of ints), not str")
# TensorFlow's and Keras' pooling padding, `padding='valid'`, given to torch's (a number of places each side)
_PADDING_STRING = re.compile(r"argument 'padding' (?:\(position \d\) )?must be tuple of ints, not str")
_ONE_VALUE = re.compile(r"(\w+?)_? only supports a 0-dimensional value tensor")
_ALONG_ROWS = ("softmax", "log_softmax", "cumsum", "cumprod", "logcumsumexp")  # each row's own: dim=-1
# index_add_ and its kin: the source's sizes against those of the tensor it is written into
_SHAPES = re.compile(r"self\.shape = \[([\d, ]*)\] source\.shape = \[([\d, ]*)\]")


def _sizes(text: str) -> list[int]:
    """The sizes torch prints as `[2, 3, 4]`, without the brackets."""
    return [int(n) for n in text.split(",") if n.strip()]


def _dropped_at(longer: list[int], shorter: list[int], size: int | None = None) -> list[int]:
    """The axes of `longer` whose removal gives `shorter` (only those of `size`, where given)."""
    if len(longer) != len(shorter) + 1:
        return []
    return [k for k in range(len(longer)) if longer[:k] + longer[k + 1:] == shorter and size in (None, longer[k])]


def _axis_short(message: str) -> str:
    """" (...)" where the source's sizes are the target's with exactly one axis left out (one place
    only): said as that, with what the call needs. Else ""."""
    found = _SHAPES.search(message)
    if not found:
        return ""
    target, source = (_sizes(part) for part in found.groups())
    places = _dropped_at(target, source)
    if len(places) != 1:
        return ""
    k = places[0]
    return (f" (the source has one axis fewer than the tensor it is written into: its sizes {source} are the "
            f"target's {target} without axis {k}; it needs every axis of the target, with one entry per index along "
            f"the axis written into)")


# an entrywise function of two tensors handed ONE list or tuple of them (Keras' `Add()([x, y])`): the
# functions whose message lists their forms (torch.mul and torch.maximum say "must be Tensor, not list")
_LISTED = re.compile(r"\b(add|sub|subtract|multiply|div|true_divide)\(\) received an invalid combination of "
                     r"arguments - got \((list|tuple)(?:, |\))")
# what joins a list of tensors by that function, where one reduction does
_LISTED_REDUCED = {"add": "`torch.stack(...).sum(0)`, or Python's `sum(...)`", "multiply": "`torch.stack(...).prod(0)`"}
# stack's sizes: "but got [2, 3, 4] at entry 0 and [2, 3, 1, 4] at entry 1"
_STACKED = re.compile(r"stack expects each tensor to be equal size, but got \[([\d, ]*)\] at entry (\d+) and \[([\d, ]*)\] at entry (\d+)")


def _kept_axis(message: str) -> str:
    """" (...)" where one entry stack was given has the other's sizes and one more axis of size 1 (one
    place only): that entry kept an axis the other lost. Else ""."""
    found = _STACKED.search(message)
    if not found:
        return ""
    sizes = [_sizes(found.group(1)), _sizes(found.group(3))]
    entries = (found.group(2), found.group(4))
    for long, short in ((1, 0), (0, 1)):
        places = _dropped_at(sizes[long], sizes[short], size=1)
        if places:
            return (f" (entry {entries[long]} has the sizes of entry {entries[short]} with an axis of size 1 more, "
                    f"axis {places[0]} (counted from 0): it kept an axis that the other lost; an integer index, `select` and `unbind` "
                    f"take an axis away, a slice `a:b` of one entry keeps it)")
    return ""


def error_words(message: str) -> str:
    """" (...)" for a message the table knows, else ""."""
    if kept := _kept_axis(message):
        return kept
    listed = _LISTED.search(message)
    if listed:
        op, kind = listed.groups()
        joined = f"; a {kind} of tensors is reduced by {_LISTED_REDUCED[op]}" if op in _LISTED_REDUCED else ""
        return f" (`torch.{op}` takes its two operands one by one, `torch.{op}(a, b)`, not one {kind} of them{joined})"
    no_axis = _NO_AXIS.search(message)
    if no_axis:
        op = no_axis.group(1)
        rows = ", `dim=-1` for each row's own" if op in _ALONG_ROWS else ""
        return f" (torch's `{op}` has no default axis: give `dim=`{rows})"
    container = _CONTAINER.search(message)
    if container:
        return f" ({_NOT_TENSOR[container.group(1)]})"
    number = _NUMBER_GIVEN.search(message)
    # `torch.sqrt(head_size)`: a Python number where an entrywise function of torch takes a tensor; said
    # only of those (math's twins, and maximum and minimum), for which a number made a tensor is meant
    # (`torch.diag(n)` wanted another call, `torch.eye(n)`)
    if number and (callable(getattr(math, number.group(1), None)) or number.group(1) in _ENTRYWISE_PAIRS):
        op, kind = number.groups()
        twin = f"`math.{op}(n)` works on a number, and " if callable(getattr(math, op, None)) else ""
        return f" (`torch.{op}` works on tensors, and this is a plain Python {kind}: {twin}`torch.tensor(n)` makes a tensor of it)"
    if _AXES_ORDER.search(message):  # Python says "takes" only of too many: more axes than two, an order of every axis
        return (" (torch's `transpose` exchanges TWO axes, `transpose(0, 1)`; every axis listed in its new order, as "
                "NumPy's `transpose(1, 0, 2)` takes them, is torch's `permute(1, 0, 2)`)")
    if _KEEPDIM_INT.search(message):
        return (" (the argument after `dim` is `keepdim`, a bool: several axes go in ONE argument, a tuple such as "
                "`dim=(0, 2)`)")
    if _AXIS_STRING.search(message):
        return (" (an axis given as a string: torch numbers its axes, `dim=1`, or `dim=-1` for the last; pandas' "
                "`axis='columns'` is axis 1 and `axis='index'` axis 0)")
    if _PADDING_STRING.search(message):
        return (" (torch's pooling takes `padding` as a number of places added on each side, not TensorFlow's and "
                "Keras' `'valid'` or `'same'`: `'valid'` is `padding=0`)")
    one_value = _ONE_VALUE.search(message)
    if one_value:  # masked_fill, index_fill: one value for every cell they fill
        return (f" (`{one_value.group(1)}` puts ONE value in every cell it fills: a number, or a tensor of no axes "
                f"(`torch.tensor(...)` of one number); a value per cell is `torch.where(mask, other, x)`)")
    if _EMPTY_SOURCE.search(message):
        return (" (a tensor of no entries, a 0 among its sizes, made to fill a shape that has some: written into a "
                "slice, or expanded; an empty slice of a range that runs the wrong way gives one, and so does "
                "`torch.tensor([])`; an assignment never deletes entries: to leave some out, index the others)")
    index_number = _INDEX_NUMBER.search(message)
    if index_number:  # `index_select(0, T)`: a count or one position where a tensor of positions belongs
        return (f" (`{index_number.group(1)}` takes its positions as a tensor of ints, `torch.arange(n)` for "
                f"the first n or `torch.tensor([i])` for one, not a plain number)")
    if short := _axis_short(message):
        return short
    # a piece, or a tuple of pieces that mean one slip
    return next((f" ({words})" for pieces, words in _WORDS
                 if any(p in message for p in ((pieces,) if isinstance(pieces, str) else pieces))), "")
