"""`attention-by-hand lab check N FILE`: run a learner's lab file safely and judge its functions.

The learner's file runs in a child process (`labharness`), never in this one: it may loop
forever, allocate without bound, print megabytes, raise at import or call `sys.exit`. The child
gets a wall-clock limit (`timeout`), an address-space budget (`memory_mb`, set by the child
itself once torch is imported, see `labharness._limit_memory`) and an output cap (`OUTPUT_LIMIT`,
read by a thread here and enforced by killing the child's process group). Once the run is over,
however it ended, the group is killed: nothing the file started outlives the check. Whatever
happens, the result is a `CheckRun`: the checks that ran, each passed or failed with a hint,
and, when the file could not be checked to the end, one line saying why.

The child starts importing torch at once; meanwhile this process imports torch too, builds the
inputs and sends them, so the two imports overlap (about a second saved on every check).

Left out: what each lab checks and the hints (labjudge.py); command-line parsing (labs.py).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

__all__ = ["CheckResult", "CheckRun", "check_file", "load_reference", "OUTPUT_LIMIT", "report_lines"]

OUTPUT_LIMIT = 1024 * 1024  # bytes a learner's file may print before it is stopped
_RESULTS_LIMIT = 32 * 1024 * 1024  # bytes of the results file read back (the harness caps its outputs)


@dataclass(frozen=True)
class CheckResult:
    """One reported check: its label, and None when it passed or the hint when it failed."""

    label: str
    hint: str | None

    @property
    def passed(self) -> bool:
        return self.hint is None


@dataclass
class CheckRun:
    """Everything one `lab check` found. `failure` is set when the file could not be checked."""

    results: list[CheckResult] = field(default_factory=list)
    failure: str | None = None

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    @property
    def exit_code(self) -> int:
        """0 all passed, 1 some failed, 2 the file could not be checked."""
        if self.failure:
            return 2
        return 0 if self.failed == 0 else 1


def load_reference(path: Path) -> ModuleType:
    """Import a reference lab by path; its steps stay behind `if __name__ == "__main__":`."""
    spec = importlib.util.spec_from_file_location(f"reference_{path.stem.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _OutputCap(threading.Thread):
    """Reads the child's output as it comes; past `limit` bytes, kills the child and keeps reading.

    Reading as it comes (never communicate(), which buffers everything) is what keeps a file
    that prints gigabytes from filling this process's memory.
    """

    def __init__(self, pipe, limit: int, kill):
        super().__init__(daemon=True)
        self.pipe, self.limit, self.kill = pipe, limit, kill
        self.total, self.overflowed, self.tail = 0, False, b""

    def run(self) -> None:
        fd = self.pipe.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.total += len(chunk)
            self.tail = (self.tail + chunk)[-2048:]
            if self.total > self.limit and not self.overflowed:
                self.overflowed = True
                self.kill()

    def last_line(self) -> str:
        lines = self.tail.decode("utf-8", "replace").strip().splitlines()
        return lines[-1][:200] if lines else ""


def _send(pipe, data: bytes) -> None:
    """Write the request to the child's stdin from a thread: a stuck child cannot block us."""

    def write():
        try:
            pipe.write(data)
            pipe.close()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the child died or was killed; its results file says why

    threading.Thread(target=write, daemon=True).start()


def _kill_group(process: subprocess.Popen) -> None:
    # The child leads its own session, so its group id is its pid: this ends the child and any
    # process it started, and nothing else. Also called once the child is reaped, to end what it
    # left running: the kernel keeps the group's id from new processes while any member lives.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _child_env() -> dict[str, str]:
    """The child must import this package even if it was found through a relative PYTHONPATH."""
    env = dict(os.environ)
    package_parent = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH", "")) if p)
    return env


def _read_events(path: Path) -> list[dict]:
    """The harness's JSON lines; a last line cut short by a kill is dropped."""
    try:
        with open(path, "rb") as f:
            data = f.read(_RESULTS_LIMIT)
    except OSError:
        return []
    events = []
    for line in data.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            break
    return events


def _at(line) -> str:
    return f", line {line}" if line else ""


def _fatal_message(event: dict, where: str, memory_mb: int) -> str:
    reason = event.get("reason")
    if reason == "syntax":
        return f"syntax error{_at(event.get('line'))}: {event.get('message')}"
    if reason == "import":
        return f"error while importing the file{_at(event.get('line'))}: {event.get('message')}"
    if reason == "exit":
        keep = 'keep the steps under if __name__ == "__main__":'
        return f"the file called sys.exit() {where}{_at(event.get('line'))}; {keep}"
    if reason == "memory":
        return (
            f"memory limit: used more than {memory_mb} MB beyond torch {where}{_at(event.get('line'))} "
            "(a list or tensor that grows without end?)"
        )
    if reason == "missing":
        names = ", ".join(event.get("names", []))
        return f"missing function(s): {names}; the checker calls them by name, keep the names of the exercise"
    return f"the checker's helper stopped: {reason}"


def check_file(
    learner: Path,
    reference: Path,
    number: int,
    *,
    timeout: float = 20.0,
    memory_mb: int = 1024,
    seed: int = 0,
) -> CheckRun:
    """Run `learner` in a child with limits, call its functions, judge them against `reference`."""
    with tempfile.TemporaryDirectory(prefix="lab-check-") as tmp:
        results_path = Path(tmp) / "results.jsonl"
        started = time.monotonic()
        process = subprocess.Popen(
            [
                sys.executable,
                "-B",
                "-m",
                "attention_by_hand.labharness",
                str(learner.resolve()),
                str(results_path),
                str(memory_mb),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=tmp,  # whatever the learner's file writes lands in the temporary folder
            env=_child_env(),
            start_new_session=True,
        )
        reader = _OutputCap(process.stdout, OUTPUT_LIMIT, lambda: _kill_group(process))
        reader.start()
        try:
            checks, calls, request = _prepare(number, seed)
            _send(process.stdin, request)
            reference_module = load_reference(reference)
            timed_out = False
            try:
                process.wait(timeout=max(0.0, timeout - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                timed_out = True
            # Always, not only on a time-out: a child that ended normally may leave processes it
            # started (a `subprocess.Popen(["sleep", "1000"])`) running after the check is over.
            _kill_group(process)
            process.wait()
            # With the group killed, nobody holds the pipe: end of file comes at once.
            reader.join(timeout=5)
            return _make_run(
                _read_events(results_path),
                checks,
                calls,
                reference_module,
                timed_out=timed_out,
                overflowed=reader.overflowed,
                returncode=process.returncode,
                last_output=reader.last_line(),
                timeout=timeout,
                memory_mb=memory_mb,
            )
        finally:
            # Also when building the inputs or loading the reference raised: no child outlives us.
            _kill_group(process)
            process.wait()
            process.stdout.close()


def _prepare(number: int, seed: int):
    """The checks of the lab, the flat list of calls, and the request the child reads on stdin."""
    from attention_by_hand.labharness import encode
    from attention_by_hand.labjudge import checks_for

    checks = checks_for(number, seed)
    calls = [(check, args) for check in checks for args in check.cases]
    request = {
        "functions": sorted({check.function for check in checks}),
        "calls": [
            {"id": i, "function": check.function, "args": [encode(a) for a in args]}
            for i, (check, args) in enumerate(calls)
        ],
    }
    return checks, calls, json.dumps(request).encode("utf-8")


def _verdict(check, args, event: dict, reference: ModuleType) -> str | None:
    """None when this call passed, else its hint. A judge that fails is reported, not raised."""
    import torch

    from attention_by_hand.labharness import decode
    from attention_by_hand.labjudge import hint_for_exception

    if event["event"] == "raised":
        if event["type"] == "NotImplementedError":
            # The function checked may be written and call one that is not: name the one to write.
            other = event.get("function")
            who = f"{other}() is " if other and other != check.function else ""
            return f"{who}not written yet: {event['message']}"
        where = f" (line {event['line']})" if event.get("line") else ""
        return f"raised {event['type']}: {event['message']}{where}" + hint_for_exception(
            event["type"], event["message"]
        )
    if event.get("changed"):
        return _changed_inputs(getattr(reference, check.function), event["changed"])
    try:
        with torch.no_grad():
            expected = getattr(reference, check.function)(*args)
            return check.judge(decode(event["value"]), expected, args)
    except Exception as error:  # noqa: BLE001 - the checker never crashes on a learner's output
        return f"the checker could not judge this output ({type(error).__name__}: {error}); please report it"


def _changed_inputs(function, positions: list[int]) -> str:
    """The hint for a call that modified its arguments in place, named as the reference names them.

    Reported before the output is judged: a function that zeroes x and then computes from it
    gives a wrong output whose cause is the change, and the right output does not excuse it.
    """
    names = list(inspect.signature(function).parameters)
    changed = [names[i] if i < len(names) else f"argument {i + 1}" for i in positions]
    inputs, it = ("inputs", "them") if len(changed) > 1 else ("input", "it")
    return (
        f"your function changed its {inputs} {' and '.join(changed)} in place; its caller still needs {it}: "
        "compute new tensors (y = x * 2), not x.mul_(2), x *= 2 or x[...] = ..."
    )


def _make_run(
    events: list[dict],
    checks: list,
    calls: list[tuple],
    reference: ModuleType,
    *,
    timed_out: bool,
    overflowed: bool,
    returncode: int | None,
    last_output: str,
    timeout: float,
    memory_mb: int,
) -> CheckRun:
    """The child's events and the way it ended -> the checks that ran, and why it stopped if it did."""
    by_id = {e["id"]: e for e in events if e.get("event") in ("result", "raised")}
    started = [e["id"] for e in events if e.get("event") == "start"]
    running = started[-1] if started and started[-1] not in by_id else None
    if running is not None:
        check, _ = calls[running]
        where = f"in {check.function}() on {check.label}"
    else:
        where = "while importing the file" if not started else "after the last call"

    run = CheckRun()
    # Report every check whose calls all came back, in order, up to the first that did not.
    for check in checks:
        ids = [i for i, (c, _) in enumerate(calls) if c is check]
        if not all(i in by_id for i in ids):
            break
        hint = next((h for i in ids if (h := _verdict(check, calls[i][1], by_id[i], reference))), None)
        run.results.append(CheckResult(f"{check.function}: {check.label}", hint))

    fatal = next((e for e in events if e.get("event") == "fatal"), None)
    done = any(e.get("event") == "done" for e in events)
    if overflowed:
        run.failure = f"printed more than {OUTPUT_LIMIT // (1024 * 1024)} MB {where} (a print inside a loop?); stopped"
    elif timed_out:
        run.failure = f"time limit: still running after {timeout:g} s {where} (a loop that never ends?)"
    elif fatal:
        run.failure = _fatal_message(fatal, where, memory_mb)
    elif not done:
        if returncode is not None and returncode < 0:
            try:
                name = signal.Signals(-returncode).name
            except ValueError:
                name = str(-returncode)
            run.failure = f"stopped by signal {name} {where}" + (" (out of memory?)" if name == "SIGKILL" else "")
        else:
            tail = f": {last_output}" if last_output else ""
            run.failure = f"stopped early (exit code {returncode}) {where}{tail}"
    return run


def report_lines(run: CheckRun) -> list[str]:
    """The report as printed: one line per check, then the count (or nothing, if it could not run)."""
    lines = []
    for result in run.results:
        lines.append(f"  ok    {result.label}" if result.passed else f"  FAIL  {result.label}: {result.hint}")
    if not run.failure:
        lines.append(f"{run.passed} passed, {run.failed} failed")
    return lines
