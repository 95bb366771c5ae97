"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Every output of the project goes through `write_atomic`: the bytes land in a temporary
file in the same folder (so the rename never crosses a file system) and are renamed into
place only once they are complete and flushed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` via a temporary sibling file and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp creates the file 0600; give it the permissions an ordinary write would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        # Interrupted or failed: remove the partial temporary file, leave `path` untouched.
        Path(tmp).unlink(missing_ok=True)
        raise
