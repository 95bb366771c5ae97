"""Fixtures shared by the tests (the helpers behind them live in labhelpers.py)."""

from __future__ import annotations

import os

# One thread for each process of the suite: the test workers and every run, lab and check they
# start. `make test` puts two workers on two cores; with torch's and BLAS's threads as well, the
# processes fight over the cores and their idle threads spin (the suite spent about a fifth more
# CPU). Set before numpy and torch load, which read it then. The outputs are the same bytes with
# any thread count: test_wheelhouse.py runs and checks the canonical part on the default threads.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402 - after the thread count, which must come first
from hypothesis import settings  # noqa: E402

from labhelpers import lab_main  # noqa: E402

# No time limit per example: Hypothesis's default (200 ms) fails a test whose example happens to
# run while the machine is busy, which says nothing about the code (the suite runs on a machine
# three times slower than the README's, beside other work). A test that wants fewer examples
# still says so with its own @settings.
settings.register_profile("any-machine", deadline=None)
settings.load_profile("any-machine")


def pytest_collection_modifyitems(config, items):
    """The test files marked slow first, in collection order, then the rest.

    `make test` hands whole files to two workers in this order (--no-loadscope-reorder), each
    taking the next file when it is nearly done: the long files start early and the short ones
    fill the end, so the two workers finish close together. Otherwise a long file started last
    runs alone on one core at the end. The sort is stable: the order within a file stays.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def lab_cli(capsys):
    """`attention-by-hand lab ...` in-process, returning (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = lab_main(*argv)
        out, err = capsys.readouterr()
        return code, out, err

    return run
