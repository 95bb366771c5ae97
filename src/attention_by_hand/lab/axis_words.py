"""The sizes a reference function's docstring names, read off the arguments it is given.

Every lab function's docstring gives its arguments' shapes in words the learner reads:
"pattern: (batch, heads, T, T)", "q, k: (..., T, head_size)". A factor or a size the learner
got wrong is best named in those words: an induction score batch times too large is "multiplied
by batch = 2", not "multiplied by len(pattern) = 2", which is the same number under a name the
learner never saw. `docstring_sizes` gives {axis word: size} on one call's arguments, for
outcomes.known_numbers to add after the reference's own locals.

Left out: axes written as expressions ("T - period + 1", "3 * d_model") and the output's shape
(after "->"), which is no argument.
"""

from __future__ import annotations

import ast
import inspect
import re
from functools import lru_cache

import torch

__all__ = ["docstring_sizes", "size_words"]

# "q, k: (..., T, head_size)": the names, then the shape in brackets
_SHAPED = re.compile(r"(\w+(?:\s*,\s*\w+)*)\s*:\s*\(([^()]*)\)")
_WORD = re.compile(r"[A-Za-z_]\w*")


@lru_cache(maxsize=64)
def _axes(doc: str) -> dict[str, list[str]]:
    """{argument: its axis words, '...' kept} as the docstring states them, before any '->'; read
    once per docstring (asked for every input and every size read in the reference). Not to be
    changed by its callers: the dict is shared."""
    found: dict[str, list[str]] = {}
    for line in doc.splitlines():
        line = line.split("->")[0]
        for names, shape in _SHAPED.findall(line):
            axes = [a.strip() for a in shape.split(",") if a.strip()]
            for name in re.split(r"\s*,\s*", names):
                found.setdefault(name, axes)
    return found


def docstring_sizes(function, args: tuple) -> dict[str, float]:
    """{axis word: its size} on these arguments, for each axis word the docstring gives a tensor
    argument; a word whose sizes disagree on one call (T and T of different tensors) is left out."""
    doc = inspect.getdoc(function) or ""
    try:
        parameters = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return {}
    sizes: dict[str, float] = {}
    clashing: set[str] = set()
    for name, axes in _axes(doc).items():
        if name not in parameters or parameters.index(name) >= len(args):
            continue
        value = args[parameters.index(name)]
        if not isinstance(value, torch.Tensor):
            continue
        # "..." holds any number of leading axes: the words after it count from the right
        named = axes[axes.index("...") + 1:] if "..." in axes else axes
        if ("..." not in axes and len(axes) != value.dim()) or len(named) > value.dim():
            continue
        for word, size in zip(named, value.shape[value.dim() - len(named):]):
            if _WORD.fullmatch(word):
                if sizes.get(word, size) != size:
                    clashing.add(word)
                sizes[word] = float(size)
    return {w: s for w, s in sizes.items() if w not in clashing}


def _word_at(axes: list[str] | None, index: int) -> str | None:
    """The docstring's word for axis `index` of a tensor whose axes it gives ('...' for any)."""
    if not axes:
        return None
    if index < 0:  # counted from the right: only past the last '...', which may stand for any number of axes
        dots = max((k for k, a in enumerate(axes) if a == "..."), default=-1)
        word = axes[index] if len(axes) >= -index and len(axes) + index > dots else None
    else:
        word = axes[index] if index < len(axes) and "..." not in axes[: index + 1] else None
    return word if word and _WORD.fullmatch(word) else None


def size_words(fdef: ast.FunctionDef, old: str, new: str, at: ast.AST | None) -> str:
    """" (d_v, not head_size)": the docstring's words for the axis that `new.shape[i]` reads where
    the reference reads `old.shape[i]`, when it names both and they differ; else ""."""
    index = at.slice.value if isinstance(at, ast.Subscript) and isinstance(at.slice, ast.Constant) else None
    if isinstance(at, ast.Subscript) and isinstance(at.slice, ast.UnaryOp) and isinstance(at.slice.operand, ast.Constant):
        index = -at.slice.operand.value if isinstance(at.slice.op, ast.USub) else None
    if type(index) is not int:
        return ""
    axes = _axes(ast.get_docstring(fdef) or "")
    mine, theirs = _word_at(axes.get(new), index), _word_at(axes.get(old), index)
    return f" ({mine}, not {theirs})" if mine and theirs and mine != theirs else ""
