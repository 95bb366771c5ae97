"""Outputs that several test files read, made once per test session for both xdist workers.

`make test` runs two workers, and a session fixture is per worker: the same part run, site
build or wheel would be made once on each. `made_once` puts the folder beside the workers' own
temporary folders (in the session's), and a file lock lets the first worker that asks make it
while the other waits, then reads it. Without xdist the folder is in the session's own
temporary folder. The folders are read-only for the tests: a test that changes outputs works
on a copy of its own.

Leaves out: anything a test's behaviour needs fresh (a run that a test interrupts or changes).
"""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock


def _session_folder(tmp_path_factory) -> Path:
    base = Path(tmp_path_factory.getbasetemp())
    # Under xdist each worker's basetemp is <the session's folder>/popen-gwN.
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name: str, make: Callable[[Path], object]):
    """(folder, what make returned): `make(folder)` called once per session for `name`.

    What `make` returns is pickled beside the folder for the other worker. A make that fails
    leaves no mark: the next to ask tries again (and fails the same way, with its own error).
    """
    folder = _session_folder(tmp_path_factory) / f"shared-{name}"
    done = folder.with_name(f"{folder.name}.pickle")
    with FileLock(f"{folder}.lock"):
        if not done.exists():
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir()
            made = make(folder)
            tmp = done.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(made))
            tmp.replace(done)
        return folder, pickle.loads(done.read_bytes())

