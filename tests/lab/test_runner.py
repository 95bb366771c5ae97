"""`lab check` in a child process: a file that misbehaves is stopped and reported (exit 2),
never crashing the checker, and nothing a file does in its own process can make a check pass.

The fixtures here are the ones not named lab*: files that loop, allocate, print, exit, start
processes or cheat (patch torch's comparisons, print a fake summary and leave). Each child
spends about a second importing torch, so the runs are made once per module, three at a time.
"""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from attention_by_hand.lab.registry import checks_for, lab_numbered
from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.runner import OUTPUT_LIMIT, Limits, _wait_ready, check_file
from labhelpers import FIXTURES_DIR, expectation, learner_file

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

MISBEHAVING = sorted(p for p in FIXTURES_DIR.glob("*.py") if not p.name.startswith("lab"))
# Two files of typical mistakes too: the child and the in-process judge must agree on them.
THROUGH_THE_CHILD = MISBEHAVING + [FIXTURES_DIR / "lab04-mask-wrong-side.py", FIXTURES_DIR / "lab02-softmax-wrong-axis.py"]
CANNOT_RUN = [p for p in MISBEHAVING if expectation(p)[1] == 2]
TIMEOUT = 20.0  # the default of `lab check`
SHORT_TIMEOUT = 6.0  # for the file that loops forever: the test waits this long


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every misbehaving fixture (and the reference lab 02) checked once: path -> (run, seconds)."""
    learners = tmp_path_factory.mktemp("learners")
    jobs = [(LABS[1].reference(), LABS[1].reference(), 2)]
    jobs += [(path, learner_file(path.name, learners), expectation(path)[0]) for path in THROUGH_THE_CHILD]

    def check(job):
        key, path, number = job
        timeout = SHORT_TIMEOUT if path.name == "loops-forever.py" else TIMEOUT
        started = time.monotonic()
        run = check_file(path, lab_numbered(number), limits=Limits(timeout=timeout))
        return key, (run, time.monotonic() - started)

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(check, jobs))


def test_a_reference_lab_passes_every_check_through_the_child(runs):
    run, _ = runs[LABS[1].reference()]
    assert run.failure is None and run.exit_code == 0 and len(run.results) == len(checks_for(2))


@pytest.mark.parametrize("name", ["lab04-mask-wrong-side.py", "lab02-softmax-wrong-axis.py"])
def test_a_typical_mistake_gets_its_hint_through_the_child(runs, name):
    run, _ = runs[FIXTURES_DIR / name]
    hint = expectation(FIXTURES_DIR / name)[2]
    assert run.exit_code == 1 and any(hint in r.hint for r in run.results if not r.passed)


@pytest.mark.parametrize("path", CANNOT_RUN, ids=lambda p: p.stem)
def test_a_file_that_cannot_run_exits_2_and_says_why_in_one_line(runs, path):
    run, _ = runs[path]
    assert run.exit_code == 2 and expectation(path)[2] in run.failure and "\n" not in run.failure


def test_patching_torchs_comparisons_in_the_learners_process_changes_no_verdict(runs):
    run, _ = runs[FIXTURES_DIR / "patches-allclose.py"]
    assert run.exit_code == 1 and any("the mask is on the wrong side" in r.hint for r in run.results if r.hint)


def test_printing_all_passed_and_a_fake_summary_is_not_a_verdict(runs):
    run, _ = runs[FIXTURES_DIR / "prints-all-passed.py"]
    assert run.exit_code == 1 and run.failed >= 1


def test_leaving_early_with_exit_code_0_and_a_fake_summary_never_passes(runs):
    run, _ = runs[FIXTURES_DIR / "fake-summary.py"]
    assert run.exit_code == 2 and run.results == [] and "stopped early (exit code 0)" in run.failure


def test_an_endless_loop_is_stopped_at_the_time_limit_and_named(runs):
    run, seconds = runs[FIXTURES_DIR / "loops-forever.py"]
    assert run.failure.startswith(f"time limit: still running after {SHORT_TIMEOUT:g} s in attention_weights()")
    # Stopped by the clock (not by a crash or a limit of another kind), and no sooner than it says:
    # the time limit counts from the moment the checker's child is ready, so a slow or busy
    # machine gives the file its whole time, and the check as a whole takes at least that long.
    assert run.ending.timed_out and run.ending.started and run.ending.returncode == -signal.SIGKILL
    assert seconds >= SHORT_TIMEOUT


def test_the_checks_that_ran_before_an_endless_loop_are_still_reported(runs):
    run, _ = runs[FIXTURES_DIR / "loops-forever.py"]
    assert [r.label.split(":")[0] for r in run.results] == ["causal_mask"] and run.results[0].passed


def test_unbounded_allocation_is_stopped_by_the_memory_limit_not_the_clock(runs):
    run, _ = runs[FIXTURES_DIR / "allocates-forever.py"]
    assert run.failure.startswith("memory limit")
    # The cause, not a race against the clock: the child met its address-space limit, reported it
    # and left on its own, before the time limit ran out and without being killed.
    assert not run.ending.timed_out and run.ending.returncode == 0


def test_printing_megabytes_is_stopped_soon_after_the_output_limit(runs):
    run, _ = runs[FIXTURES_DIR / "prints-megabytes.py"]
    assert f"printed more than {OUTPUT_LIMIT // 2**20} MB in attention_weights()" in run.failure
    # Stopped at 1 MB, not after printing all 100 MB: what came through is the limit and what was
    # already in the pipe, however fast the file printed; and by the cap, not the clock.
    assert OUTPUT_LIMIT < run.ending.printed < 2 * OUTPUT_LIMIT
    assert not run.ending.timed_out and run.ending.returncode == -signal.SIGKILL


def test_a_child_that_is_ready_ended_or_late_is_told_apart():
    for write, close, expected in [(b"1", True, "ready"), (b"", True, "ended"), (b"", False, "late")]:
        ready, end = os.pipe()
        try:
            os.write(end, write)
            if close:
                os.close(end)
            assert _wait_ready(ready, 0.0 if expected == "late" else 60.0) == expected
        finally:
            os.close(ready)
            if not close:
                os.close(end)


def _ended(pid: int, within: float = 5.0) -> bool:
    """True once `pid` is gone (a zombie counts as gone: only its parent's reaping is left)."""
    deadline = time.monotonic() + within
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (OSError, IndexError):
            pass  # gone between the two looks, or no /proc: ask again
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_processes_the_file_started_do_not_outlive_the_check(runs, tmp_path_factory):
    run, _ = runs[FIXTURES_DIR / "starts-a-process.py"]
    assert run.exit_code == 0
    pid_files = list(Path(tmp_path_factory.getbasetemp()).rglob("starts-a-process.py.pids"))
    pids = [int(line) for f in pid_files for line in f.read_text().split()]
    assert pids and [pid for pid in pids if not _ended(pid)] == []


def test_a_child_that_said_done_is_stopped_a_little_later_without_timing_out(tmp_path):
    # after "done" a child only looks for mends (repair.py): it may not hold the check up to the limit
    import subprocess
    import sys
    import time

    from attention_by_hand.lab.runner import MEND_GRACE, _wait

    results = tmp_path / "results.jsonl"
    script = f"import time; f = open({str(results)!r}, 'w'); f.write('{{\"event\": \"done\"}}\\n'); f.flush(); time.sleep(60)"
    process = subprocess.Popen([sys.executable, "-c", script])
    try:
        started = time.monotonic()
        timed_out = _wait(process, results, 30.0)
        assert not timed_out and time.monotonic() - started < MEND_GRACE + 3
    finally:
        process.kill()
        process.wait()


def test_tensors_read_before_they_are_written_hold_nan_in_the_child_and_the_mend_says_zeros(tmp_path):
    # torch.empty_like hands out whatever memory held, so the hint would change from run to run;
    # the child fills empty tensors with nan, and the accumulators made with zeros are the mend
    source = LABS[9].reference().read_text(encoding="utf-8")
    path = tmp_path / "lab10-empty.py"
    path.write_text(source.replace("torch.zeros_like(", "torch.empty_like("), encoding="utf-8")
    run = check_file(path, lab_numbered(10), limits=Limits(timeout=TIMEOUT))
    hints = [r.hint for r in run.results if not r.passed]
    assert hints and all(r.label.startswith("tiled_attention_backward") for r in run.results if not r.passed)
    assert all("got nan" in h and "`zeros_like(...)` for `empty_like(...)`" in h for h in hints)
    assert not any("never reach your output" in h for h in hints)


def test_a_gradient_all_nan_from_an_empty_accumulator_names_no_change_of_the_reference(tmp_path):
    # dq and dk from torch.empty_like (nan in the child), dv right: a change of the reference that
    # also makes nan there (a square root of a negative) fits by nan alone and says a slip not made
    source = LABS[9].reference().read_text(encoding="utf-8")
    path = tmp_path / "lab10-empty-two.py"
    path.write_text(source.replace("torch.zeros_like(", "torch.empty_like(", 2), encoding="utf-8")
    run = check_file(path, lab_numbered(10), limits=Limits(timeout=TIMEOUT))
    hints = [r.hint for r in run.results if not r.passed]
    assert hints and not any("yours equals the reference with" in h for h in hints)
