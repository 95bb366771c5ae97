"""outcomes.call's time limit: a call past it comes back as one that raised, even when the stop
falls in code whose exceptions Python cannot raise (a garbage collector's callback, a weakref's
callback, a `__del__`), where the stop would be lost and reported as unraisable."""

from __future__ import annotations

import gc
import signal
import sys
import time
import weakref

from attention_by_hand.lab.outcomes import RAISED, call


# The limit leaves the set-up before the callback a wide margin (a loaded machine may stall it),
# and the callback runs well past the limit, so the stop lands inside it.
LIMIT, SPIN = 0.3, 0.8


def _spin(seconds: float) -> None:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        pass


BEGUN: list[str] = []  # the callbacks that began: a stop can only be lost in one that ran


def _spins_in_a_weakref_callback_then_runs_on():
    class Held:
        pass

    def slow(_):
        BEGUN.append("weakref")
        _spin(SPIN)  # the timer runs out in here

    held = Held()
    ref = weakref.ref(held, slow)
    del held  # the callback runs here, from the reference count, outside any garbage collection
    _spin(3.0)  # far past the limit: a lost stop lets it finish
    return ref, "finished"


def _spins_in_a_finalizer_then_runs_on():
    class Slow:
        def __del__(self):
            BEGUN.append("finalizer")
            _spin(SPIN)

    Slow()  # dropped at once: its __del__ runs here
    _spin(3.0)
    return "finished"


def test_a_stop_that_falls_in_a_gc_callback_still_stops_the_call():
    def slow_callback(phase, info):  # a library's gc callback that takes its time
        if phase == "start":
            _spin(SPIN)

    def collects_then_spins():
        gc.collect()  # the timer runs out inside slow_callback
        _spin(3.0)
        return "finished"

    gc.callbacks.append(slow_callback)
    try:
        assert call(collects_then_spins, (), seconds=LIMIT) is RAISED
    finally:
        gc.callbacks.remove(slow_callback)


def test_a_stop_that_falls_in_a_weakref_callback_still_stops_the_call():
    BEGUN.clear()
    assert call(_spins_in_a_weakref_callback_then_runs_on, (), seconds=LIMIT) is RAISED and BEGUN == ["weakref"]


def test_a_stop_that_falls_in_a_finalizer_still_stops_the_call():
    BEGUN.clear()
    assert call(_spins_in_a_finalizer_then_runs_on, (), seconds=LIMIT) is RAISED and BEGUN == ["finalizer"]


def test_a_lost_stop_is_not_reported_as_unraisable():
    reported = []
    previous, sys.unraisablehook = sys.unraisablehook, reported.append
    try:
        call(_spins_in_a_weakref_callback_then_runs_on, (), seconds=LIMIT)
    finally:
        sys.unraisablehook = previous
    assert reported == []


def test_another_unraisable_exception_still_reaches_the_hook_that_was_there():
    class Failing:
        def __del__(self):
            raise ValueError("from a finalizer")

    def drops_a_failing_object():
        Failing()
        return "done"

    reported = []
    previous, sys.unraisablehook = sys.unraisablehook, reported.append
    try:
        call(drops_a_failing_object, (), seconds=1.0)
    finally:
        sys.unraisablehook = previous
    assert [r.exc_type for r in reported] == [ValueError]


def test_the_hook_and_the_handler_are_put_back_after_a_call_that_ran_out():
    hook, handler = sys.unraisablehook, signal.getsignal(signal.SIGALRM)
    call(_spin, (1.0,), seconds=0.05)
    assert sys.unraisablehook is hook and signal.getsignal(signal.SIGALRM) is handler


def test_a_call_inside_another_keeps_the_outer_limit():
    def outer():
        call(_spin, (0.01,), seconds=1.0)  # its own limit, longer than what the outer call has left
        _spin(1.5)
        return "finished"

    started = time.perf_counter()
    assert call(outer, (), seconds=0.2) is RAISED and time.perf_counter() - started < 1.0
