"""`lab check`'s parent side: run a learner's file in a child process, within limits.

The learner's file runs in a child process (child.py), never in this process. The child gets a
wall-clock limit (`timeout`) for the learner's own part of the run (importing the file and the
calls), counted from the moment the child says it is ready, so that the checker's own start
(importing torch: seconds on a slow or busy laptop) never eats into it; that start has a bound of
its own, STARTUP_LIMIT, for a child that hangs before it is ready. It gets an address-space
budget (`memory_mb`, set by the child itself once torch is imported) and an output cap
(`OUTPUT_LIMIT`, read by a thread here and enforced by killing the child's process group). Once
the run is over, however it ended, the group is killed: nothing the file started outlives the check.

The child starts importing torch at once; meanwhile this process imports torch too, builds the
inputs and sends them, so the two imports overlap (about a second saved on every check).

Left out: what is called and how it is judged (verdict.py, each lab's checks.py); the command line (cli/lab.py).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from attention_by_hand.lab.registry import Lab, reference_path
from attention_by_hand.lab.verdict import CheckRun, Ending, check_run, load_reference, plan

__all__ = ["OUTPUT_LIMIT", "STARTUP_LIMIT", "check_file"]

OUTPUT_LIMIT = 1024 * 1024  # bytes a learner's file may print before it is stopped
# Seconds for the child to get ready (start Python, import torch, read the request): about 1 s on
# the README's machine, 3 s on one three times slower; a bound for a child that hangs, not a pace.
STARTUP_LIMIT = 300.0
_RESULTS_LIMIT = 32 * 1024 * 1024  # bytes of the results file read back (the wire format caps outputs)


class _OutputCap(threading.Thread):
    """Reads the child's output as it comes; past `limit` bytes, kills the child and keeps reading.

    Reading as it comes (never communicate(), which buffers everything) is what keeps a file
    that prints gigabytes from filling this process's memory.
    """

    def __init__(self, pipe, limit: int, kill: Callable[[], None]):
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
    package_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH", "")) if p)
    return env


def _read_events(path: Path) -> list[dict]:
    """The child's JSON lines; a last line cut short by a kill is dropped."""
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


@dataclass(frozen=True)
class Limits:
    timeout: float = 20.0  # seconds for the whole run of the file
    memory_mb: int = 1024  # beyond what torch itself maps


def _wait_ready(ready: int, within: float) -> str:
    """"ready" when the child wrote its ready byte within `within` seconds, "ended" when it closed
    the pipe first (it died while starting), "late" when neither happened in time."""
    readable, _, _ = select.select([ready], [], [], max(0.0, within))
    if not readable:
        return "late"
    return "ready" if os.read(ready, 1) == b"1" else "ended"


# After "done" the child only looks for the arguments a wrong function never reads (unused.py) and
# a mend of it (repair.py), which add to a hint and decide nothing: it gets this long more, then is
# stopped like any child. One second more than the two guards together (calls.UNUSED_SECONDS,
# repair.SECONDS), so that on a busy machine they stop themselves first.
MEND_GRACE = 7.0
DONE = b'{"event": "done"}'


def _wait(process: subprocess.Popen, results: Path, seconds: float) -> bool:
    """Wait for the child to end, at most `seconds`, and at most MEND_GRACE after it wrote "done".
    True when the time ran out before "done": every call had not come back."""
    deadline, done_at, read, tail = time.monotonic() + seconds, None, 0, b""
    while True:
        left = deadline - time.monotonic()
        if done_at is not None:
            left = min(left, done_at + MEND_GRACE - time.monotonic())
        if left <= 0:
            return done_at is None
        try:
            process.wait(timeout=min(left, 0.1))
            return False
        except subprocess.TimeoutExpired:
            pass
        if done_at is None and results.exists():
            with open(results, "rb") as f:  # only what was written since the last look
                f.seek(read)
                new = f.read()
            read += len(new)
            tail = (tail + new)[-(len(new) + len(DONE)):]
            if DONE in tail:
                done_at = time.monotonic()
            tail = tail[-len(DONE):]


def check_file(
    learner: Path,
    lab: Lab,
    *,
    limits: Limits = Limits(),
    seed: int = 0,
    line_name=None,
    engine: bool = True,
    sandboxed: bool = False,
) -> CheckRun:
    """Run `learner` in a child with limits, call its functions, judge them against the reference.

    line_name(n) -> how to call line n of `learner` in a message (a notebook names its cell).
    sandboxed: run the child inside bubblewrap (sandbox.py), as a room check does.
    """
    with tempfile.TemporaryDirectory(prefix="lab-check-") as tmp:
        results_path = Path(tmp) / "results.jsonl"
        started = time.monotonic()
        command = [sys.executable, "-B", "-m", "attention_by_hand.lab.child"]
        ready, ready_end = os.pipe()
        command += [str(learner.resolve()), str(results_path), str(limits.memory_mb), str(ready_end)]
        if sandboxed:
            from attention_by_hand.lab.sandbox import wrap

            command = wrap(command, Path(tmp), readable=(learner.resolve().parent, Path(__file__).resolve().parents[2]))
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=tmp,  # whatever the learner's file writes lands in the temporary folder
                env=_child_env(),
                start_new_session=True,
                pass_fds=(ready_end,),
            )
        finally:
            os.close(ready_end)  # the child's copy is the only one left: its end of file is ours
        reader = _OutputCap(process.stdout, OUTPUT_LIMIT, lambda: _kill_group(process))
        reader.start()
        try:
            the_plan = plan(lab.number, seed)
            _send(process.stdin, the_plan.request)
            reference = load_reference(reference_path(lab))
            start = _wait_ready(ready, STARTUP_LIMIT - (time.monotonic() - started))
            # The learner's time starts once the child is ready; one that died while starting is
            # on its way out (it closed the pipe as it exited); one that hangs there gets no time.
            wait = {"ready": limits.timeout, "ended": STARTUP_LIMIT, "late": 0.0}[start]
            timed_out = _wait(process, results_path, wait)
            # Always, not only on a time-out: a child that ended normally may leave processes it
            # started (a `subprocess.Popen(["sleep", "1000"])`) running after the check is over.
            _kill_group(process)
            process.wait()
            # With the group killed, nobody holds the pipe: end of file comes at once.
            reader.join(timeout=5)
            ending = Ending(
                timed_out=timed_out,
                started=start != "late",
                printed=reader.total,
                overflowed=reader.overflowed,
                returncode=process.returncode,
                last_output=reader.last_line(),
                timeout=limits.timeout,
                memory_mb=limits.memory_mb,
                output_limit=OUTPUT_LIMIT,
            )
            return check_run(_read_events(results_path), the_plan, reference, ending, line_name=line_name, engine=engine)
        finally:
            # Also when building the inputs or loading the reference raised: no child outlives us.
            _kill_group(process)
            process.wait()
            process.stdout.close()
            os.close(ready)
