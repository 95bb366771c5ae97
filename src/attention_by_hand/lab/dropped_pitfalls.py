"""Values a learner's function computes and drops: said when its check fails, as pitfalls.py says
its other Python pitfalls.

- A statement that computes a value and keeps it nowhere: `scores[hidden] == float("-inf")` (a
  test where `=` was meant), an arithmetic expression, or `x.masked_fill(...)` whose new tensor
  nobody keeps (`masked_fill_` changes the tensor itself), or `x.slice_scatter(...)`, read as a write
  into the slice.
- A call of another function of the same file, alone on its line, where that function returns
  what it makes and its text shows it changes none of its arguments (`append_to_cache(cache, k, v)`).

Said only where the code shows it for certain: a method that Python's own containers have too
(`add`, which a set has and changes) only of a receiver that is plainly a tensor: a view or a
slice made by torch (`dq.narrow(...)`, `dq[..., rows, :]`), an argument annotated as a Tensor, or
a name bound only to torch's calls and to products, quotients or powers; never a call given
`out=`. Left out: names a layer or a logger has (`float` and `to` change a layer, `log` writes a
line).
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import torch

__all__ = ["no_effect", "result_dropped"]


# methods and torch functions that return a new tensor and change nothing: called as a statement,
# their work is lost. Names that nn.Module or a logger use too (`float` and `to` of a layer, which
# change it, `log` of a logger) are left out: the code alone cannot tell. `add`, which a set has, is
# said only of a receiver that is plainly a tensor (_SHARED).
_PURE = {"masked_fill", "clamp", "clip", "softmax", "log_softmax", "transpose", "reshape", "view", "sub", "mul", "div",
         "exp", "sqrt", "neg", "unsqueeze", "squeeze", "flip", "roll", "tril", "triu", "cumsum", "contiguous", "permute",
         "expand", "repeat", "maximum", "minimum", "matmul", "pow", "scatter", "index_put", "index_add", "masked_scatter",
         "scatter_add", "zeros_like", "clone", "detach", "add", "abs", "sigmoid", "tanh", "index_fill",
         "index_copy", "addcmul", "addcdiv", "lerp", "square", "rsqrt", "reciprocal", "addmm", "baddbmm", "log1p", "expm1",
         # the scatters into a slice, a row or a diagonal, and the reductions into indexed rows: each returns a
         # copy with the part written, as its name (read as "write into the slice") does not say
         "slice_scatter", "select_scatter", "diagonal_scatter", "as_strided_scatter", "index_reduce", "scatter_reduce"}


def no_effect(fdef: ast.FunctionDef) -> list[tuple[int, str, list[int]]]:
    """A statement whose value is computed and dropped: a comparison (`==` where `=` was meant),
    an arithmetic expression, or a call that returns a new tensor (`x.masked_fill(...)`, not
    `masked_fill_`)."""
    found = []
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Expr) or isinstance(node.value, ast.Constant):
            continue
        value, code = node.value, ast.unparse(node.value)
        code = code if len(code) <= 60 else code[:57] + "..."
        if isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], ast.Eq):
            words = f"`{code}` ({{0}}) compares and throws the answer away: `==` asks, `=` stores"
        elif isinstance(value, (ast.Compare, ast.BinOp, ast.UnaryOp)):
            words = f"`{code}` ({{0}}) computes a value and throws it away: nothing stores it"
        elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _PURE
              and (value.func.attr not in _SHARED or _tensor_receiver(value.func.value, fdef))
              and not any(k.arg == "out" for k in value.keywords)  # out= writes its result: not lost
              and not (isinstance(value.func.value, ast.Name) and value.func.value.id in ("math", "np", "numpy"))):
            name = value.func.attr
            in_place = f" (`{name}_` changes the tensor itself)" if hasattr(torch.Tensor, name + "_") else ""
            functional = isinstance(value.func.value, ast.Name) and value.func.value.id in ("F", "functional")
            if functional and any(k.arg == "inplace" for k in value.keywords):
                continue  # F's functions that take `inplace=` do change their input
            if any(k.arg == "inplace" for k in value.keywords):  # pandas' habit: tensors' methods take none
                words = (f"`{code}` ({{0}}): torch's `{name}` takes no `inplace=` (pandas' methods do); it returns a new "
                         f"tensor{in_place.replace(' (', ', and ').rstrip(')') if in_place else ''}")
            else:
                words = f"`{code}` ({{0}}) returns a new tensor and changes nothing, and its result is thrown away{in_place}"
        else:
            continue
        found.append((node.lineno, words, [node.lineno]))
    return found


# methods that Python's own containers have too, changing them in place (`seen.add(i)` on a set)
_SHARED = {"add"}


def _tensor_receiver(receiver: ast.expr, fdef: ast.FunctionDef) -> bool:
    """Whether a method's receiver is plainly a tensor: a view made by a tensor's method or by torch
    (`dq.narrow(...)`), a slice (`dq[..., rows, :]`: a list's slice has no such methods), an
    argument annotated as a Tensor, or a name bound only to torch's calls and arithmetic no set
    has. `groups[k]` or `index.get(k)` may be a set."""
    if isinstance(receiver, ast.Call):
        func = receiver.func
        return isinstance(func, ast.Attribute) and (func.attr in _VIEWS or ast.unparse(func).startswith("torch."))
    if isinstance(receiver, ast.Subscript):
        parts = receiver.slice.elts if isinstance(receiver.slice, ast.Tuple) else [receiver.slice]
        return any(isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value is Ellipsis) for p in parts)
    if not isinstance(receiver, ast.Name):
        return False
    given = [a for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs if a.arg == receiver.id]
    if given:  # `Tensor` itself: `set[torch.Tensor]` is a set
        return given[0].annotation is not None and ast.unparse(given[0].annotation) in ("Tensor", "torch.Tensor")
    bound = [n.value for n in ast.walk(fdef) if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == receiver.id for t in n.targets)]
    return bool(bound) and all(_tensor_made(b) for b in bound)


def _tensor_made(value: ast.expr) -> bool:
    """A torch call (`torch.zeros(...)`), or a product, quotient, power or matrix product: a set
    has none of those (its `-`, `|`, `&` and `^` are left out)."""
    if isinstance(value, ast.Call):
        return ast.unparse(value.func).startswith("torch.")
    return isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mult, ast.Div, ast.Pow, ast.MatMult))


# a tensor's methods that give a view of it (or a new tensor), never a container
_VIEWS = {"narrow", "select", "view", "reshape", "transpose", "permute", "unsqueeze", "squeeze", "flatten", "expand",
          "diagonal", "movedim", "contiguous", "clone", "detach", "t", "float", "double"}


def _plainly_pure(fdef: ast.FunctionDef) -> bool:
    """Whether a function's own text shows it changes nothing it was given and does nothing but
    compute: no store into an item or attribute, no augmented assignment, no `del`, `assert`,
    `raise`, `global`, no `out=` or `inplace=`, and every call one of torch's (`torch.cat`,
    `F.pad`) or a method that returns a new tensor (`.transpose`): a call of anything else (a helper
    of its own, `xs.sort()`, `random.shuffle`, `print`) may change its arguments, or be the point."""
    for node in ast.walk(fdef):
        if isinstance(node, (ast.AugAssign, ast.Delete, ast.Assert, ast.Raise, ast.Global, ast.Nonlocal)):
            return False
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(not isinstance(n, (ast.Name, ast.Tuple, ast.List)) for t in targets for n in ast.walk(t)
                   if isinstance(n, ast.expr) and not isinstance(n, ast.expr_context)):
                return False
        if isinstance(node, ast.Call):
            if any(k.arg in ("out", "inplace") for k in node.keywords):
                return False
            func = node.func
            torch_call = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("torch", "F")
            method = isinstance(func, ast.Attribute) and (func.attr in _PURE or func.attr in _NEW_TENSOR) and (
                func.attr not in _SHARED or _tensor_receiver(func.value, fdef))  # `seen.add(i)` changes a set
            if not (torch_call or method) or (isinstance(func, ast.Attribute) and func.attr.endswith("_")):
                return False
    return True


# methods that return a new tensor (or tensors) and change nothing, beside _PURE's
_NEW_TENSOR = {"cat", "stack", "split", "chunk", "unbind", "sum", "mean", "amax", "amin", "max", "min", "t", "float",
               "double", "to", "narrow", "select", "index_select", "gather", "new_zeros", "new_ones", "new_full", "size"}


def result_dropped(fdef: ast.FunctionDef, function) -> list[tuple[int, str, list[int]]]:
    """`append_to_cache(cache, k, v)` alone on its line, where `append_to_cache` is a function of
    the same file that returns a value and whose text shows it computes only (_plainly_pure): the
    call is lost."""
    found = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)):
            continue
        name = node.value.func.id
        called = getattr(function, "__globals__", {}).get(name)
        if not (inspect.isfunction(called) and called.__module__ == function.__module__):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(called)))
        except (OSError, TypeError, SyntaxError, IndentationError):
            continue
        own = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
        returns = own is not None and any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(own))
        if returns and _plainly_pure(own):
            found.append((node.lineno, f"`{name}(...)` ({{0}}) returns what it makes and changes none of its arguments, "
                                       f"and its result is thrown away here: the call changes nothing; keep what it "
                                       f"returns", [node.lineno]))
    return found

