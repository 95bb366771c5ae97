"""The lab checker's child process, and the JSON wire format both sides of it speak.

`labcheck` never imports a learner's file itself: a file may loop forever, allocate without
bound, print megabytes or call `sys.exit`. It starts this module in a fresh interpreter,

    python -B -m attention_by_hand.labharness LEARNER_FILE RESULTS_FILE MEMORY_MB

which, in order: imports torch; reads the calls to make (one JSON document on stdin); caps its
own address space at what torch already maps plus MEMORY_MB; imports the learner's file by path
under the name `learner_lab` (so its `if __name__ == "__main__":` steps do not run); calls each
function on its arguments; and appends one JSON line per event to RESULTS_FILE:

    {"event": "fatal", "reason": "syntax" | "import" | "exit" | "memory" | "missing", ...}
    {"event": "start", "id": 3}                      a call begins (so a time-out can name it)
    {"event": "result", "id": 3, "value": <encoded>, "changed": [0]}   changed: the arguments
                                                     the call modified in place, by position
    {"event": "raised", "id": 3, "type": "IndexError", "message": "...", "line": 41, "function": "dot"}
    {"event": "done"}

The learner's own prints go to stdout/stderr, which the parent reads with a cap; the results
file is written only by this module. Limits on time and output are the parent's job.

Left out: judging. This module reports what the learner's functions returned and which
arguments they changed, nothing more.
"""

from __future__ import annotations

import gc
import json
import math
import os
import sys
import traceback
from pathlib import Path

__all__ = ["encode", "decode", "NumpyArray", "Oversized", "Foreign", "MAX_ELEMENTS"]

# Enough for every output a lab function returns (the largest is a (30, 30) count table) and
# small enough that a wrong output of a million numbers cannot flood the results file.
MAX_ELEMENTS = 100_000
_MAX_TEXT = 300  # characters kept of a string or an exception message

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
        return {"type": "str", "value": value[:_MAX_TEXT]}
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


# --- the child process ---------------------------------------------------------------------


class _Results:
    """Appends one JSON line per event to the results file, flushed at once (the parent may kill us)."""

    def __init__(self, path: str):
        self._file = open(path, "a", encoding="utf-8")

    def write(self, **event) -> None:
        self._file.write(json.dumps(event) + "\n")
        self._file.flush()


def _learner_frame(tb, learner: Path) -> tuple[int | None, str | None]:
    """(line, function) of the learner's file nearest to where an exception was raised."""
    line = function = None
    for frame in traceback.extract_tb(tb):
        if Path(frame.filename).resolve() == learner:
            line, function = frame.lineno, frame.name
    return line, function


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:_MAX_TEXT]


def _address_space_kib() -> int | None:
    """VmSize of this process in KiB (Linux), or None where /proc is not there."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _limit_memory(budget_mb: int) -> None:
    """Cap the address space at what the process maps now plus the learner's budget.

    Measured, not guessed: `import torch` alone maps about 0.6 GB of address space on the
    workshop machines (and more with other builds), so a fixed RLIMIT_AS either starves torch
    or lets a runaway list grow for gigabytes. Set here, after torch, the budget is the
    learner's own, whatever torch needs. Hard and soft limit alike, so it cannot be raised.
    """
    import resource

    current = _address_space_kib()
    if current is None:
        return
    limit = current * 1024 + budget_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _same(before, after) -> bool:
    """Whether an argument is as it was before the call: tensors, modules' weights, lists, values."""
    import torch
    import torch.nn as nn

    if isinstance(before, torch.Tensor):
        if not isinstance(after, torch.Tensor) or before.shape != after.shape or before.dtype != after.dtype:
            return False
        equal = before == after
        if before.is_floating_point():
            equal |= before.isnan() & after.isnan()  # NaN != NaN, yet an input's NaN left alone is unchanged
        return bool(equal.all())
    if isinstance(before, nn.Module):
        old, new = before.state_dict(), after.state_dict()
        return old.keys() == new.keys() and all(_same(old[k], new[k]) for k in old)
    if isinstance(before, (tuple, list)):
        return len(before) == len(after) and all(_same(b, a) for b, a in zip(before, after))
    return before == after


def _is_out_of_memory(error: BaseException) -> bool:
    # torch reports a failed allocation as RuntimeError "... can't allocate memory ...".
    return isinstance(error, MemoryError) or (isinstance(error, RuntimeError) and "allocate" in str(error))


def main(argv: list[str]) -> int:
    learner, results_path, budget_mb = Path(argv[0]).resolve(), argv[1], int(argv[2])
    results = _Results(results_path)
    # Freed on MemoryError, so that reporting it has room to allocate.
    reserve = bytearray(8 * 1024 * 1024)

    import torch

    torch.set_num_threads(1)  # the calls are tiny; one thread is faster to start and deterministic
    request = json.loads(sys.stdin.read())
    # A learner's input() gets end-of-file, never the checker's request.
    sys.stdin = open(os.devnull, encoding="utf-8")
    _limit_memory(budget_mb)

    import importlib.util

    sys.path.insert(0, str(learner.parent))  # as `python FILE` would: the file's folder first
    module = None
    try:
        spec = importlib.util.spec_from_file_location("learner_lab", learner)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except SyntaxError as error:
        results.write(event="fatal", reason="syntax", line=error.lineno, message=str(error.msg)[:_MAX_TEXT])
        return 0
    except BaseException as error:  # noqa: BLE001 - anything the learner's top level does is reported
        if _is_out_of_memory(error):
            del reserve  # first of all: room to write the report
            line, _ = _learner_frame(error.__traceback__, learner)
            del module, error  # the module's globals hold what filled the memory
            gc.collect()
            results.write(event="fatal", reason="memory", line=line)
            return 0
        line, _ = _learner_frame(error.__traceback__, learner)
        reason = "exit" if isinstance(error, SystemExit) else "import"
        results.write(event="fatal", reason=reason, line=line, message=_describe(error))
        return 0

    missing = [name for name in request["functions"] if not callable(getattr(module, name, None))]
    if missing:
        results.write(event="fatal", reason="missing", names=missing)
        return 0

    for call in request["calls"]:
        results.write(event="start", id=call["id"])
        args = [decode(a) for a in call["args"]]
        # A function that changes its input in place (x.mul_(0), x *= 2) can return the right
        # answer and still break its caller, who needs x afterwards: compare with a copy.
        originals = [decode(a) for a in call["args"]]
        try:
            torch.manual_seed(0)  # a function that draws random numbers draws the same ones each run
            with torch.no_grad():
                value = getattr(module, call["function"])(*args)
            encoded = encode(value)
        except BaseException as error:  # noqa: BLE001 - reported per call, the next call still runs
            if _is_out_of_memory(error):
                del reserve  # first of all: room to write the report
                line, _ = _learner_frame(error.__traceback__, learner)
                del error
                gc.collect()
                results.write(event="fatal", reason="memory", id=call["id"], line=line)
                return 0
            line, function = _learner_frame(error.__traceback__, learner)
            if isinstance(error, SystemExit):
                results.write(event="fatal", reason="exit", id=call["id"], line=line, message=_describe(error))
                return 0
            results.write(
                event="raised",
                id=call["id"],
                type=type(error).__name__,
                message=str(error)[:_MAX_TEXT],
                line=line,
                function=function,  # may be a helper the checked function called
            )
            continue
        changed = [i for i, (before, after) in enumerate(zip(originals, args)) if not _same(before, after)]
        results.write(event="result", id=call["id"], value=encoded, changed=changed)
    results.write(event="done")
    return 0


if __name__ == "__main__":
    # os._exit: skip the interpreter's teardown, which would run the learner's atexit hooks and
    # finalizers after the results are written (and could hang or print).
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
