"""Fixtures shared by the tests (the helpers behind them live in labhelpers.py)."""

from __future__ import annotations

import pytest

from labhelpers import lab_main


@pytest.fixture
def lab_cli(capsys):
    """`attention-by-hand lab ...` in-process, returning (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = lab_main(*argv)
        out, err = capsys.readouterr()
        return code, out, err

    return run
