"""The wire format between the lab checker and its child process: values as JSON.

The child (child.py) calls a learner's functions and sends back what they returned; the
checker sends it the arguments to call them with. Both go through `encode` and `decode`:
tensors and NumPy arrays keep their dtype, shape and numbers (NaN and infinities as strings,
since JSON has neither), the few nn.Module types the checker passes keep their weights, and
anything else arrives as what it is (`Foreign`, `Oversized`, `NumpyArray`), so the judge can say
what the learner returned instead of failing to read it.

Left out: the process itself (child.py), what the calls are and how they are judged.
"""

from __future__ import annotations

import math

__all__ = ["encode", "decode", "NumpyArray", "Oversized", "Foreign", "MAX_ELEMENTS", "MAX_TEXT", "VALUE_PAIRS"]

# Enough for every output a lab function returns (the largest is a (30, 30) count table) and
# small enough that a wrong output of a million numbers cannot flood the results file.
MAX_ELEMENTS = 100_000
MAX_TEXT = 300  # characters kept of a string or an exception message

_DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
# The modules the checker passes as arguments, rebuilt from their constructor arguments and state.
_MODULES = ("Linear", "LayerNorm", "Embedding", "Sequential", "GELU", "ReLU")


class NumpyArray:
    """A learner's output that was a NumPy array (decoded to a tensor, kept apart to say so)."""

    def __init__(self, tensor):
        self.tensor = tensor


class Oversized:
    """A learner's tensor too large to send back: only its shape is kept (the judge reports it)."""

    def __init__(self, shape: tuple[int, ...]):
        self.shape = shape


class Foreign:
    """A learner's output of a type the checker does not read: only its type name is kept."""

    def __init__(self, name: str):
        self.name = name


def _number(v: float) -> float | str:
    """JSON has no NaN or infinity; they travel as strings."""
    return v if math.isfinite(v) else repr(v)  # 'nan', 'inf', '-inf'


def _encode_array(kind: str, dtype: str, shape: list[int], size: int, flatten) -> dict:
    """One tensor or array; `flatten()` gives its numbers as a flat list, called only if few enough."""
    if size > MAX_ELEMENTS:
        return {"type": kind, "dtype": dtype, "shape": shape, "data": None}
    flat = flatten()
    if dtype.startswith(("float", "bfloat")):
        flat = [_number(v) for v in flat]
    return {"type": kind, "dtype": dtype, "shape": shape, "data": flat}


# the calls whose named tuple is (values, indices) (pair_mends.py mends them used as a tensor);
# `aminmax`, `frexp` and `linalg.qr` return other pairs
VALUE_PAIRS = ("min", "max", "sort", "topk", "kthvalue", "mode", "median", "nanmedian", "cummax", "cummin")


def encode(value, depth: int = 0) -> dict:
    """Any value -> a JSON-able dict. Tensors and NumPy arrays keep dtype, shape and numbers."""
    import torch
    import torch.nn as nn

    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        dtype = str(t.dtype).removeprefix("torch.")
        if dtype not in _DTYPES:
            return {"type": "other", "name": f"tensor of {dtype}"}
        return _encode_array("tensor", dtype, list(t.shape), t.numel(), lambda: t.flatten().tolist())
    if type(value).__module__ == "numpy" and hasattr(value, "shape") and hasattr(value, "dtype"):
        dtype = str(value.dtype)
        if dtype not in _DTYPES:
            return {"type": "other", "name": f"NumPy array of {dtype}"}
        return _encode_array("ndarray", dtype, list(value.shape), value.size, lambda: value.ravel().tolist())
    if isinstance(value, nn.Module):
        try:
            return _encode_module(value)
        except TypeError:  # a module (or a child of one) the checker never sends: name it only
            return {"type": "other", "name": type(value).__name__}
    if isinstance(value, bool) or value is None:
        return {"type": "scalar", "value": value}
    if isinstance(value, int):
        return {"type": "scalar", "value": value if abs(value) < 2**53 else float(value)}
    if isinstance(value, float):
        return {"type": "scalar", "value": _number(value)}
    if isinstance(value, str):
        return {"type": "str", "value": value[:MAX_TEXT]}
    if type(value).__module__ == "torch.return_types":  # `torch.min(x, 0)`'s pair: a tuple, named for its call
        kind = "(values, indices) pair" if type(value).__name__ in VALUE_PAIRS else "tuple"
        return {"type": "other", "name": f"{kind}, torch.return_types.{type(value).__name__}"}
    if isinstance(value, (tuple, list)) and depth < 3:
        return {"type": type(value).__name__, "length": len(value), "items": [encode(v, depth + 1) for v in value[:8]]}
    return {"type": "other", "name": type(value).__name__}


def _encode_module(module) -> dict:
    import torch.nn as nn

    name = type(module).__name__
    if name not in _MODULES:
        raise TypeError(f"cannot send a {name} to the learner's file")
    if isinstance(module, nn.Linear):
        init = {"in_features": module.in_features, "out_features": module.out_features, "bias": module.bias is not None}
    elif isinstance(module, nn.LayerNorm):
        init = {"normalized_shape": list(module.normalized_shape), "eps": module.eps}
    elif isinstance(module, nn.Embedding):
        init = {"num_embeddings": module.num_embeddings, "embedding_dim": module.embedding_dim}
    else:
        init = {}
    children = [_encode_module(child) for child in module.children()] if isinstance(module, nn.Sequential) else []
    state = {k: encode(v) for k, v in module.state_dict().items()} if not children else {}
    return {"type": "module", "class": name, "init": init, "children": children, "state": state}


def decode(spec: dict):
    """The inverse of `encode`: tensors, modules, scalars, strings, tuples and lists come back."""
    import torch

    kind = spec.get("type")
    if kind in ("tensor", "ndarray"):
        if spec["data"] is None:
            return Oversized(tuple(spec["shape"]))
        data = [float(v) if isinstance(v, str) else v for v in spec["data"]]
        dtype = getattr(torch, spec["dtype"])
        tensor = torch.tensor(data, dtype=dtype).reshape(spec["shape"])
        return tensor if kind == "tensor" else NumpyArray(tensor)
    if kind == "module":
        return _decode_module(spec)
    if kind == "scalar":
        value = spec["value"]
        return float(value) if isinstance(value, str) else value
    if kind == "str":
        return spec["value"]
    if kind in ("tuple", "list"):
        items = [decode(item) for item in spec["items"]]
        if spec["length"] > len(items):
            return Foreign(f"{kind} of {spec['length']} items")
        return tuple(items) if kind == "tuple" else items
    return Foreign(spec.get("name", "unknown"))


def _decode_module(spec: dict):
    import torch.nn as nn

    if spec["class"] not in _MODULES:
        raise ValueError(f"not a module the checker sends: {spec['class']}")
    cls = getattr(nn, spec["class"])
    if spec["class"] == "Sequential":
        return cls(*[_decode_module(child) for child in spec["children"]])
    module = cls(**spec["init"])
    if spec["state"]:
        module.load_state_dict({k: decode(v) for k, v in spec["state"].items()})
    return module
