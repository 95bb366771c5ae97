"""A name or a keyword torch does not have, said as where it comes from and what torch calls it.

A learner who knows NumPy, TensorFlow or JAX writes their names: `torch.reduce_max`, `x.astype`,
`tril(..., k=1)`. torch answers "module 'torch' has no attribute 'reduce_max'", which names the
word but not what to write instead. The names here are read off torch's own words (nothing of the
learner's runs again): an attribute a module, a tensor or a layer does not have, and a keyword a
call does not take. Each is said with its home and torch's way where a table below knows it; else,
where torch has the name elsewhere (`F.gelu` for `torch.gelu`, `F.one_hot` for `torch.nn.one_hot`),
where it is.

A call that got none of a required argument (`x.reshape(newshape=...)`, NumPy's keyword, or
`x.transpose()` with no axes) is said with the argument's name and how torch reads it.

Two of NumPy's attributes read as torch's are said the same way: `x.size[0]` indexes a method (as
any method indexed for called does), `x.shape()` calls a torch.Size.

Where torch lists a call's forms ("invalid combination of arguments") and none of them names a keyword
the call was given, that keyword is said; pandas' `axis` on `div` and its kin with what torch does instead.

Left out: names torch accepts as NumPy's (`axis` in most reductions, `keepdims`, `np.newaxis`'s
`torch.newaxis`), which raise nothing, and a call's forms otherwise, which judging.py reads from torch's
"invalid combination of arguments".
"""

from __future__ import annotations

import re

__all__ = ["foreign_words"]

# a name torch does not have -> (where a learner knows it from, what torch writes)
_NAMES = {
    "reduce_max": ("TensorFlow's `tf.reduce_max`", "`x.amax(dim=..., keepdim=...)`"),
    "reduce_min": ("TensorFlow's `tf.reduce_min`", "`x.amin(dim=..., keepdim=...)`"),
    "reduce_sum": ("TensorFlow's `tf.reduce_sum`", "`x.sum(dim=..., keepdim=...)`"),
    "reduce_mean": ("TensorFlow's `tf.reduce_mean`", "`x.mean(dim=..., keepdim=...)`"),
    "reduce_logsumexp": ("TensorFlow's `tf.reduce_logsumexp`", "`torch.logsumexp(x, dim=...)`"),
    "band_part": ("TensorFlow's `tf.linalg.band_part`", "`torch.tril(x, diagonal=...)` and `torch.triu`"),
    "cast": ("TensorFlow's `tf.cast`", "`x.to(dtype)`, or `x.float()`, `x.bool()`"),
    "GradientTape": ("TensorFlow's `tf.GradientTape`",
                     "`loss.backward()` or `torch.autograd.grad(loss, inputs)`: torch records the graph as it computes"),
    "expand_dims": ("NumPy's and TensorFlow's `expand_dims`", "`x.unsqueeze(dim)`, or `x[:, None]`"),
    "astype": ("NumPy's `astype`", "`x.to(dtype)`"),
    "take_along_axis": ("NumPy's `np.take_along_axis`", "`torch.take_along_dim`, or `gather`"),
    "get_shape": ("TensorFlow's `get_shape`", "`x.shape`"),
    "assign": ("TensorFlow's `Variable.assign`", "indexing, `x[...] = value`, or `x.copy_(value)`"),
    "at": ("JAX's `x.at[i].set(...)`", "indexing, `x[i] = value`, or `x.index_add_(...)` to add"),
    "in_proj_weight": ("`nn.MultiheadAttention`'s fused weight", "a Linear's own `.weight`, (out_features, in_features)"),
    "apply_gradients": ("a Keras optimizer's `apply_gradients`", "`optimizer.step()` after `loss.backward()`"),
    "segment_sum": ("JAX's `jax.ops.segment_sum` and TensorFlow's `tf.math.segment_sum`",
                    "`torch.zeros(n).index_add_(0, segment_ids, values)`, or `scatter_add_`"),
    "units": ("Keras' `Dense(units)`", "a Linear's `out_features` (its input's size is `in_features`)"),
    "ravel_multi_index": ("NumPy's `np.ravel_multi_index`", "the flat index written out: `i * n + j` in an (m, n) "
                          "table, row by row"),
}

# a name of NumPy's or TensorFlow's own module, asked of torch itself (`torch.nn.identity` means nn.Identity)
_TOP_NAMES = {
    "identity": ("NumPy's `np.identity`", "`torch.eye(n)`"),
    "tri": ("NumPy's `np.tri`", "`torch.tril(torch.ones(n, n))`, ones on and below the diagonal"),
    "delete": ("NumPy's `np.delete`", "indexing by what is kept, `x[:, keep]` with `keep = torch.arange(n) != i`, or "
               "`torch.cat` of the slices before and after `i`"),
    "average": ("NumPy's `np.average`", "`x.mean(dim=...)`; with weights, `(x * w).sum(dim) / w.sum(dim)`"),
    "array_split": ("NumPy's `np.array_split`", "`torch.tensor_split(x, n, dim=...)` for n pieces, or `torch.split(x, "
                    "size, dim=...)` for pieces of one size"),
    "tensor_scatter_nd_add": ("TensorFlow's `tf.tensor_scatter_nd_add`", "`x.index_put_(indices, values, accumulate=True)`, "
                              "or `x.index_add_(dim, index, values)`"),
}

# a name meant otherwise of a module than of a tensor: `torch.append` is NumPy's, `x.append` a list's
_MODULE_NAMES = {"append": ("NumPy's `np.append`", "`torch.cat([a, b], dim=...)`")}
_TENSOR_NAMES = {"append": ("a Python list's `append`", "a list of pieces joined once by `torch.cat`: a tensor never grows"),
                 "mask": ("pandas' `DataFrame.mask(cond, other)`, which puts `other` where `cond` holds",
                          "`x.masked_fill(cond, value)`, or `torch.where(cond, value, x)`"),
                 "drop": ("pandas' `DataFrame.drop(labels, axis=...)`, which leaves the named rows or columns out",
                          "indexing by what is kept, `x[:, keep]` with `keep = torch.arange(n) != i`")}

# a method of NumPy's ufuncs asked of one of torch's functions: `torch.gt.outer(a, b)` as `np.greater.outer`
_UFUNC = re.compile(r"'builtin_function_or_method' object has no attribute '(outer|reduce|accumulate|reduceat)'")
_UFUNC_WAYS = {"outer": "every pair is a column against a row, the same function given `a[:, None]` and `b[None, :]`",
               "reduce": "the reduction itself along an axis, `x.sum(dim=...)`, `x.amax(dim=...)`",
               "accumulate": "the running version, `torch.cumsum(x, dim=...)`, `torch.cummax(x, dim=...).values`",
               "reduceat": "a reduction of each slice, `torch.segment_reduce` or a loop over `tensor_split`"}

# a keyword a torch call does not take -> (the calls it is said of, what torch calls it); a call of
# the learner's own with that name says nothing of torch's, so only torch's calls are named here
_KEYWORDS = {
    "k": (("tril", "triu", "diag"), "NumPy's `k`: torch's `tril`, `triu` and `diag` call it `diagonal`"),
    "keep_dim": (("sum", "mean", "amax", "amin", "max", "min", "logsumexp", "norm", "var", "std", "prod", "argmax",
                  "argmin", "all", "any", "median"), "torch's flag is `keepdim`"),
    "causal": (("scaled_dot_product_attention",), "flash-attn's `causal`: torch's flag is `is_causal`"),
    "need_weights": (("scaled_dot_product_attention",), "`nn.MultiheadAttention`'s `need_weights`: "
                     "F.scaled_dot_product_attention returns the output alone, never the weights"),
    "transpose_a": (("matmul", "mm", "bmm"), "TensorFlow's `transpose_a`: torch transposes the operand itself, "
                    "`a.transpose(-2, -1) @ b`"),
    "transpose_b": (("matmul", "mm", "bmm"), "TensorFlow's `transpose_b`: torch transposes the operand itself, "
                    "`a @ b.transpose(-2, -1)`"),
    "axis": (("split", "chunk", "unbind", "squeeze", "unsqueeze", "narrow", "select", "index_select", "gather",
              "roll", "movedim", "tensor_split", "repeat_interleave"), "NumPy's `axis`: this call takes `dim`"),
}

# torch's words for a call given none of its required arguments by their names: `x.reshape(newshape=(T, d))`
# (NumPy's keyword) reads no `shape`, as `x.permute(axes=...)` reads no `dims`
_MISSING = re.compile(r'(\w+)\(\) missing \d+ required positional arguments?: ((?:"\w+"(?:, )?)+)')
_MODULE = re.compile(r"module '(torch(?:\.\w+)*)' has no attribute '(\w+)'")
_OBJECT = re.compile(r"'(\w+)' object has no attribute '(\w+)'")
_KEYWORD = re.compile(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'")


# NumPy's attributes read as torch's: `x.size[0]` (NumPy's size is a number, torch's a method), `x.shape()`
_MISREAD = {
    "'builtin_function_or_method' object is not subscriptable": (
        " (a method or a function indexed where it was to be called: round brackets call it, `x.size(0)` or "
        "`x.transpose(-2, -1)`; square brackets index a tensor or its `shape`)"),
    "'torch.Size' object is not callable": " (`shape` is no method in torch: `x.shape`, or the method `x.size()`)",
}


# a string given where a reduction takes its axis: `x.mean("all")` (MATLAB's `mean(A, 'all')`), `x.mean("-1")`
_STRING_AXIS = re.compile(r"(\w+)\(\) received an invalid combination of arguments - got \(str[,)]")
_REDUCTIONS = ("mean", "sum", "amax", "amin", "max", "min", "prod", "std", "var", "median", "all", "any", "logsumexp")

# torch's list of a call's forms: "div() received an invalid combination of arguments - got (Tensor, axis=int), but
# expected one of:\n * (Tensor other)\n * (Tensor other, *, str rounding_mode)"
_FORMS = re.compile(r"(\w+)\(\) received an invalid combination of arguments - got \(([^)]*)\)")
_FORM = re.compile(r"^\s*\* \(([^)]*)\)", re.MULTILINE)
# the entrywise functions of two tensors that pandas gives an `axis` (`df.div(s, axis=0)` divides each row by its own entry)
_ENTRYWISE = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide")


def _keyword_no_form_takes(message: str) -> str:
    """" (...)" where a call was given a keyword that none of the forms torch lists names: `s.div(t, axis=0)`."""
    found = _FORMS.search(message)
    forms = _FORM.findall(message)
    if not found or not forms:
        return ""
    op = found.group(1)
    given = re.findall(r"(\w+)=\w+", found.group(2))
    # `bool keepdim = False`: the name stands before its default
    named = {part.split("=")[0].split()[-1] for form in forms for part in form.split(",") if part.strip() not in ("", "*")}
    unknown = next((name for name in given if name not in named), None)
    if unknown is None:
        return ""
    if unknown == "axis" and op in _ENTRYWISE:
        return _pandas_axis(op)
    return f" ({op}() takes no argument named `{unknown}` in any of its forms)"


def _pandas_axis(op: str) -> str:
    return (f" (`axis=` is pandas' `df.{op}(other, axis=...)`, which lines `other` up with the rows (0) or the columns "
            f"(1); torch's `{op}` takes no axis and lines two tensors up by their shapes, from the last axis back: "
            f"one value per row needs an axis of size 1 after it, `s.sum(dim=-1, keepdim=True)` or `[:, None]`)")


def foreign_words(message: str) -> str:
    """" (...)" for a name or a keyword torch's error says it lacks, where it is known; else ""."""
    misread = next((words for text, words in _MISREAD.items() if text in message), None)
    if misread:
        return misread
    if ufunc := _UFUNC.search(message):
        method = ufunc.group(1)
        return (f" (`.{method}` is a method of NumPy's ufuncs, as in `np.less.{method}(...)`; torch's functions have none: "
                f"{_UFUNC_WAYS[method]})")
    if (named := _STRING_AXIS.search(message)) and named.group(1) in _REDUCTIONS:
        return (f" (a string where an axis belongs: torch reads it as a dimension's NAME (of a named tensor), never "
                f"as an axis number or as MATLAB's `{named.group(1)}(A, 'all')`; an axis is an int, `dim=-1`, and over "
                f"every entry is the call without one, `x.{named.group(1)}()`)")
    if unknown := _keyword_no_form_takes(message):
        return unknown
    missing = _MISSING.search(message)
    if missing and missing.group(2) != '"dim"':  # no axis given at all: error_words.py says that
        call, names = missing.group(1), missing.group(2).replace('"', "`")
        one = "," not in names
        return (f" (`{call}` needs {names}, by position or under {'that name' if one else 'those names'}, and got "
                f"{'it' if one else 'them'} neither way: a keyword under another name, as NumPy's `newshape=` "
                "or `axes=`, is not read as one)")
    keyword = _KEYWORD.search(message)
    # `f.<locals>.div()`: a function of the learner's own, whatever its name
    own = keyword is not None and message[max(0, keyword.start() - 1):keyword.start()] in (".", ">")
    if keyword and not own and keyword.group(2) == "axis" and keyword.group(1) in _ENTRYWISE:
        return _pandas_axis(keyword.group(1))
    if keyword and not own and keyword.group(1) in _KEYWORDS.get(keyword.group(2), ((), ""))[0]:
        return f" ({_KEYWORDS[keyword.group(2)][1]})"
    found = _MODULE.search(message) or _OBJECT.search(message)
    if not found:
        return ""
    owner, name = found.groups()
    if not _torchs(owner):
        return ""  # a None, a number or a list: what lacks the name is no torch object, whatever its name means
    names = {**_NAMES, **(_TOP_NAMES if owner == "torch" else {}), **(_MODULE_NAMES if owner.startswith("torch") else
                          _TENSOR_NAMES if owner in ("Tensor", "Parameter") else {})}
    if name in names:
        home, torch_way = names[name]
        return f" (`{name}` is {home}; torch's way is {torch_way})"
    return _elsewhere(owner, name)


def _torchs(owner: str) -> bool:
    """A torch module, a tensor, or a layer torch.nn makes (`Linear`): an object torch's names belong to."""
    import torch

    return owner.startswith("torch") or owner in ("Tensor", "Parameter") or isinstance(getattr(torch.nn, owner, None), type)


def _elsewhere(owner: str, name: str) -> str:
    """Where torch has the name, if not where it was asked for: `F.gelu`, `torch.cat`, `x.unsqueeze`."""
    import torch
    import torch.nn.functional as F

    if name.startswith("_"):
        return ""
    if owner != "torch.nn.functional" and hasattr(F, name):
        return f" (`{name}` is in `torch.nn.functional`: `F.{name}(...)`, with `import torch.nn.functional as F`)"
    if owner != "torch" and hasattr(torch, name):
        return f" (`{name}` is torch's own: `torch.{name}(...)`)"
    if owner.startswith("torch") and hasattr(torch.Tensor, name):
        return f" (`{name}` is a tensor's method: `x.{name}(...)`)"
    return ""
