"""Running other people's code where it can harm nothing: bubblewrap (Debian's `bubblewrap`).

A room check (room.py) runs thirty learners' files with the instructor's rights. Each child
process (child.py) then runs inside `bwrap` with:

    the whole filesystem read-only        --ro-bind / /
    a private /tmp, and the check's own temporary folder as the only writable place, which is
    also the working folder and HOME      --tmpfs /tmp --bind TMP TMP --chdir TMP/home
    no network (its own empty namespace)  --unshare-net
    its own process and IPC namespaces    --unshare-pid --unshare-ipc
    no capabilities, even as root         --cap-drop ALL
    ended with the checker                --die-with-parent

The time, memory and output limits stay the checker's own (runner.py, child.py), as for one file.
A write outside, a deletion or a connection then fails inside the learner's file with
"Read-only file system" or "Network is unreachable", and that is what its row says.

Left out: other systems (macOS, Windows): `available()` says why there is no sandbox, and the room
check runs without one only when asked (`--no-sandbox`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["available", "wrap", "attempt"]


def _bwrap() -> str | None:
    return shutil.which("bwrap")


def _python_paths() -> set[Path]:
    """Where this Python and its packages live: the child runs the same interpreter, so a venv or
    a checkout under /tmp (a CI's clone) must be seen inside the sandbox too."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    return paths | {Path(p) for p in sys.path if p and Path(p).is_dir()}


def _under_tmp(paths) -> list[Path]:
    """The folders of `paths` that the private /tmp would hide, outermost only, in order."""
    inside = sorted({p.resolve() for p in paths if p.resolve().is_relative_to("/tmp") and p.resolve() != Path("/tmp")})
    return [p for i, p in enumerate(inside) if not any(p.is_relative_to(q) for q in inside[:i])]


def _options(tmp: Path, home: Path, readable: tuple[Path, ...] = ()) -> list[str]:
    # The private /tmp hides the real one: what must be read from there (a room folder, this
    # Python's venv or the package's checkout under /tmp) is bound again, read-only.
    again = [arg for path in _under_tmp({*readable, *_python_paths()}) for arg in ("--ro-bind", str(path), str(path))]
    return [
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        *again,
        "--bind", str(tmp), str(tmp),
        "--unshare-net", "--unshare-pid", "--unshare-ipc",
        "--cap-drop", "ALL",
        "--die-with-parent",
        "--setenv", "HOME", str(home),
        "--setenv", "TMPDIR", str(home),
        "--chdir", str(home),
    ]  # fmt: skip


def available() -> str | None:
    """None when the sandbox works here; else why not, in a few words."""
    bwrap = _bwrap()
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
    try:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="lab-sandbox-") as tmp:
            home = Path(tmp) / "home"
            home.mkdir()
            done = subprocess.run(
                [bwrap, *_options(Path(tmp), home), "true"], capture_output=True, timeout=30, stdin=subprocess.DEVNULL
            )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap cannot run here ({error})"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap cannot make a sandbox here ({said[-1] if said else f'exit code {done.returncode}'})"
    return None


def wrap(command: list[str], tmp: Path, readable: tuple[Path, ...] = ()) -> list[str]:
    """`command` to run inside the sandbox, writing only into `tmp` (its home: tmp/home), reading
    everything but the real /tmp, and the folders `readable` there."""
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    return [_bwrap() or "bwrap", *_options(tmp, home, readable), *command]


_ATTEMPTS = (
    ("Read-only file system", "it tried to write or delete outside its own folder, and the sandbox refused"),
    ("Network is unreachable", "it tried to reach the network, and the sandbox has none"),
    ("Temporary failure in name resolution", "it tried to reach the network, and the sandbox has none"),
    ("Name or service not known", "it tried to reach the network, and the sandbox has none"),
    ("Connection refused", "it tried to open a connection, and the sandbox has no network to open one on"),
    ("Permission denied", "it tried to touch what the sandbox does not allow"),
)


def attempt(text: str) -> str | None:
    """What a failure message shows the file tried to do that the sandbox stopped, if anything."""
    for sign, said in _ATTEMPTS:
        if sign in text:
            return said
    return None


if __name__ == "__main__":  # pragma: no cover - a manual probe: python -m attention_by_hand.lab.sandbox
    print(available() or f"the sandbox works here ({_bwrap()}, as uid {os.getuid()})")
