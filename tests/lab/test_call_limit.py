"""outcomes.call's time limit: a call past it comes back as one that raised, even when the stop
falls inside a garbage collector's callback, where a raised exception would be lost."""

from __future__ import annotations

import gc
import time

from attention_by_hand.lab.outcomes import RAISED, call


def test_a_stop_that_falls_in_a_gc_callback_still_stops_the_call():
    def slow_callback(phase, info):  # a library's gc callback that takes its time
        if phase == "start":
            deadline = time.perf_counter() + 0.3
            while time.perf_counter() < deadline:
                pass

    def collects_then_spins():
        gc.collect()  # the timer runs out inside slow_callback
        deadline = time.perf_counter() + 3.0  # far past the limit: a lost stop lets it finish
        while time.perf_counter() < deadline:
            pass
        return "finished"

    gc.callbacks.append(slow_callback)
    try:
        assert call(collects_then_spins, (), seconds=0.1) is RAISED
    finally:
        gc.callbacks.remove(slow_callback)
