"""Fixtures shared by the tests (the helpers behind them live in labhelpers.py)."""

from __future__ import annotations

import os

# One thread for each process of the suite: the test workers and every run, lab and check they
# start. `make test` puts two workers on two cores; with torch's and BLAS's threads as well, the
# processes fight over the cores and their idle threads spin (the suite spent about a fifth more
# CPU). Set before numpy and torch load, which read it then. The outputs are the same bytes with
# any thread count: test_wheelhouse.py runs and checks the canonical part on the default threads.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402 - after the thread count, which must come first
from hypothesis import settings  # noqa: E402

from labhelpers import lab_main  # noqa: E402
from runhelpers import ROOT  # noqa: E402
from shared import made_once  # noqa: E402

# No time limit per example: Hypothesis's default (200 ms) fails a test whose example happens to
# run while the machine is busy, which says nothing about the code (the suite runs on a machine
# three times slower than the README's, beside other work). A test that wants fewer examples
# still says so with its own @settings.
settings.register_profile("any-machine", deadline=None)
settings.load_profile("any-machine")


def pytest_collection_modifyitems(config, items):
    """The test files marked slow first, in collection order, then the rest; a file marked
    slow(first=True) before them all.

    `make test` hands whole files to two workers in this order (--no-loadscope-reorder), each
    taking the next file when it is nearly done: the long files start early and the short ones
    fill the end, so the two workers finish close together. Otherwise a long file started last
    runs alone on one core at the end. first=True is for a file that is one long chain of
    fixtures (test_wheelhouse.py: an install after a build after a download), which no other
    file can fill in for. The sort is stable: the order within a file stays.
    """

    def rank(item) -> int:
        slow = item.get_closest_marker("slow")
        return 2 if slow is None else 0 if slow.kwargs.get("first") else 1

    items.sort(key=rank)


@pytest.fixture
def lab_cli(capsys):
    """`attention-by-hand lab ...` in-process, returning (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = lab_main(*argv)
        out, err = capsys.readouterr()
        return code, out, err

    return run


# --- outputs made once per session for every test file and both workers (shared.py) -------------


@pytest.fixture(scope="session")
def part_run(tmp_path_factory):
    """part_run(name): the run of that part into a folder of its own, with the defaults of
    `attention-by-hand run` (read-only)."""
    from attention_by_hand import parts
    from attention_by_hand.run.part import RunContext

    def get(name: str):
        def make(out: Path):
            return parts.get_part(name).run(RunContext(out=out))

        return made_once(tmp_path_factory, f"part-{name}", make)[1]

    return get


@pytest.fixture(scope="session")
def run_all(tmp_path_factory) -> Path:
    """The folder that `run all` wrote, every part's outputs in one place (read-only)."""
    from attention_by_hand.cli import main

    def make(out: Path) -> None:
        assert main(["run", "all", "--out", str(out), "-q"]) == 0

    return made_once(tmp_path_factory, "run-all", make)[0]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> tuple[Path, int, str]:
    """The workshop site from workshop/ and the committed captures: (its folder, Sphinx's exit
    code, what Sphinx printed), for the tests that read it (read-only)."""
    from attention_by_hand.site.website import build_site

    def make(folder: Path) -> tuple[int, str]:
        return build_site(ROOT / "workshop", folder / "site", ROOT / "captures")

    folder, (code, printed) = made_once(tmp_path_factory, "site", make)
    return folder / "site", code, printed
