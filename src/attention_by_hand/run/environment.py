"""Line 3 of every log: the versions of the packages that made it.

A part names the packages its outputs depend on; the line is read from their installed
metadata, so asking what a run would write costs no import of torch or Matplotlib. `check`
reports this line and never judges it: a learner on other versions can still match the rest.

Left out: which packages each part names (its `Part`), and comparing lines (`check.py`).
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

__all__ = ["installed_version", "versions_line"]


def installed_version(name: str) -> str:
    """The installed distribution's version, from its metadata (no import), or "missing"."""
    try:
        return version(name)
    except PackageNotFoundError:
        return "missing"


def versions_line(packages: tuple[str, ...], seed: int | None = None) -> str:
    """'torch 2.13.0+cpu | numpy 2.4.6 | matplotlib 3.11.2 | python 3.11.7 | seed 0'.

    packages: in the order the line names them; seed: the run's one seed, if it draws at random.
    """
    fields = [f"{name} {installed_version(name)}" for name in packages]
    fields.append(f"python {platform.python_version()}")
    if seed is not None:
        fields.append(f"seed {seed}")
    return " | ".join(fields)
