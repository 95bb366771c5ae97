"""The lab checker's child process: the only place a learner's file is imported by `lab check`.

A learner's file may loop forever, allocate without bound, print megabytes or call `sys.exit`,
so the checker (runner.py) starts this module in a fresh interpreter,

    python -B -m attention_by_hand.lab.child LEARNER_FILE RESULTS_FILE MEMORY_MB READY_FD

which, in order: imports torch; reads the calls to make (one JSON document on stdin); caps its
own address space at what torch already maps plus MEMORY_MB; writes one byte to the pipe READY_FD
and closes it (the learner's time starts there: the parent's clock leaves out the checker's own
start, which takes seconds on a slow laptop); imports the learner's file by path
under the name `learner_lab` (so its `if __name__ == "__main__":` steps do not run); makes the
calls (calls.py); and appends one JSON line per event to RESULTS_FILE, flushed at once, since
the parent may kill it at any moment. Besides the events of calls.py, importing can end it:

    {"event": "fatal", "reason": "syntax" | "import" | "exit" | "memory" | "missing", ...}

The learner's own prints go to stdout/stderr, which the parent reads with a cap. Limits on time
and output are the parent's job.

Left out: judging. This process reports what the functions returned, nothing more.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import warnings
from pathlib import Path

from attention_by_hand.lab.calls import call_all, describe, is_out_of_memory, learner_frame, missing_functions
from attention_by_hand.lab.wire import MAX_TEXT


class _Results:
    """Appends one JSON line per event to the results file, flushed at once."""

    def __init__(self, path: str):
        self._file = open(path, "a", encoding="utf-8")

    def write(self, **event) -> None:
        self._file.write(json.dumps(event) + "\n")
        self._file.flush()


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


def main(argv: list[str]) -> int:
    learner, results_path, budget_mb, ready_fd = Path(argv[0]).resolve(), argv[1], int(argv[2]), int(argv[3])
    results = _Results(results_path)
    # Freed on MemoryError, so that reporting it has room to allocate.
    reserve = [bytearray(8 * 1024 * 1024)]

    import torch

    torch.set_num_threads(1)  # the calls are tiny; one thread is faster to start and deterministic
    # torch.empty and empty_like then hand out NaN (integers their largest value), not whatever the
    # memory held: a tensor read before it is written gives the same output on every run, and on
    # every change repair.py tries. Only a warning where an op has no deterministic form (a CPU
    # has almost none), and that warning is not the learner's business. The public switch
    # (torch.use_deterministic_algorithms) also imports the compiler's settings, 1.1 s here, for
    # nothing a CPU check uses; the flag itself is set directly where torch has it.
    direct = getattr(torch._C, "_set_deterministic_algorithms", None)
    if direct is not None:
        direct(True, warn_only=True)
    else:
        torch.use_deterministic_algorithms(True, warn_only=True)
    warnings.filterwarnings("ignore", message=".*does not have a deterministic implementation")
    request = json.loads(sys.stdin.read())
    # A learner's input() gets end-of-file, never the checker's request.
    sys.stdin = open(os.devnull, encoding="utf-8")
    _limit_memory(budget_mb)
    import importlib.util

    reference = None
    if request.get("reference"):
        from attention_by_hand.lab.registry import load_reference

        try:
            reference = load_reference(Path(request["reference"]))
        except Exception:  # noqa: BLE001 - without it the check runs as before, only without blame
            reference = None

    os.write(ready_fd, b"1")  # all the checker's own setup is done: the learner's file comes next
    os.close(ready_fd)

    sys.path.insert(0, str(learner.parent))  # as `python FILE` would: the file's folder first
    module = None
    try:
        spec = importlib.util.spec_from_file_location("learner_lab", learner)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except SyntaxError as error:
        results.write(event="fatal", reason="syntax", line=error.lineno, message=str(error.msg)[:MAX_TEXT])
        return 0
    except BaseException as error:  # noqa: BLE001 - anything the learner's top level does is reported
        if is_out_of_memory(error):
            reserve.clear()  # first of all: room to write the report
            line, _ = learner_frame(error.__traceback__, learner)
            del module, error  # the module's globals hold what filled the memory
            gc.collect()
            results.write(event="fatal", reason="memory", line=line)
            return 0
        line, _ = learner_frame(error.__traceback__, learner)
        reason = "exit" if isinstance(error, SystemExit) else "import"
        results.write(event="fatal", reason=reason, line=line, message=describe(error))
        return 0

    missing = missing_functions(module, request["functions"])
    if missing:
        results.write(event="fatal", reason="missing", names=missing)
        return 0

    def out_of_memory() -> None:
        reserve.clear()
        gc.collect()

    call_all(module, request["calls"], learner, results.write, on_out_of_memory=out_of_memory, reference=reference)
    return 0


if __name__ == "__main__":
    # os._exit: skip the interpreter's teardown, which would run the learner's atexit hooks and
    # finalizers after the results are written (and could hang or print).
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
