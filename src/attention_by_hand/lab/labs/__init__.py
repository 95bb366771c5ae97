"""The labs, one folder each: `labNN/` holds the reference lab, its checks, and its `LAB`.

    labNN/__init__.py       LAB = Lab(number, slug, title, summary, functions, package=__name__):
                            the functions a learner writes, each with the hint their version raises
    labNN/lab-NN-<slug>.py  the reference lab, a jupytext percent-format script (`# %%` cells):
                            the only copy; the learner's version is generated from it (exercise.py)
    labNN/checks.py         `checks(seed) -> list[Check]`: the inputs each function is called on, and
                            the judges that compare its outputs with the reference's and name mistakes

The registry (registry.py) finds every folder here: adding a lab is a folder, and its tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module, resources
from pathlib import Path

__all__ = ["Lab"]


@dataclass(frozen=True, eq=False)  # eq=False: each lab is one object, hashed by identity
class Lab:
    """One lab: its folder's reference script, and the functions its learner writes."""

    number: int
    slug: str
    title: str
    summary: str
    functions: dict[str, str]  # name -> the hint the learner's version raises in its place
    package: str  # the lab's folder, as a package name (`__name__` in its __init__)

    @property
    def stem(self) -> str:
        return f"lab-{self.number:02d}-{self.slug}"

    @property
    def filename(self) -> str:
        return f"{self.stem}.py"

    def reference(self) -> Path:
        """The reference script, as installed with the package (a wheel or the source tree alike)."""
        return Path(str(resources.files(self.package) / self.filename))

    def checks(self, seed: int = 0):
        """The lab's checks; random inputs come from `seed`, fixed ones never change.

        Imported here, not with the lab: the checks import torch, and `lab list` or the command
        line's help must not wait for it.
        """
        import torch

        with torch.no_grad():
            return import_module(f"{self.package}.checks").checks(seed)
