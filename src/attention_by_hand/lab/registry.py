"""Which labs there are: every folder of `labs/`, found by discovery, in the order of their numbers.

A lab is one folder (labs/__init__.py says what it holds); nothing here lists them, so a new lab
is found as soon as its folder exists.

Left out: generating the learner's version (exercise.py), judging it (verdict.py, each lab's checks).
"""

from __future__ import annotations

import importlib.util
import pkgutil
from importlib import import_module
from pathlib import Path
from types import ModuleType

from attention_by_hand.errors import UserError
from attention_by_hand.lab import labs as _labs
from attention_by_hand.lab.labs import Lab

__all__ = ["Lab", "LABS", "get_lab", "lab_numbered", "numbers", "reference_path", "load_reference", "checks_for"]


def _discover() -> tuple[Lab, ...]:
    found = [import_module(f"{_labs.__name__}.{info.name}").LAB for info in pkgutil.iter_modules(_labs.__path__) if info.ispkg]
    found.sort(key=lambda lab: lab.number)
    taken = [lab.number for lab in found]
    # A gap is allowed (a lab written on one branch may arrive before the one numbered below it);
    # a number used twice, or below 1, is not.
    if len(set(taken)) != len(taken) or taken[:1] != [1]:
        raise RuntimeError(f"the labs must be numbered from 1, each number once; found {taken}")
    return tuple(found)


LABS: tuple[Lab, ...] = _discover()


def get_lab(text: str) -> Lab:
    """The lab numbered `text` ("4" or "04"), or a UserError listing the numbers there are."""
    try:
        number = int(text)
    except ValueError:
        number = None
    for lab in LABS:
        if lab.number == number:
            return lab
    raise UserError(f"no lab {text!r}: the labs are numbered {numbers()} (see: attention-by-hand lab list)")


def lab_numbered(number: int) -> Lab:
    """The lab with this number (a UserError when there is none, as `get_lab`)."""
    return get_lab(str(number))


def numbers() -> str:
    """The labs' numbers as a reader says them: "1 to 9", or "1 to 9 and 11" around a gap."""
    runs: list[list[int]] = []
    for lab in LABS:
        if runs and lab.number == runs[-1][-1] + 1:
            runs[-1].append(lab.number)
        else:
            runs.append([lab.number])
    texts = [f"{run[0]} to {run[-1]}" if len(run) > 1 else str(run[0]) for run in runs]
    return " and ".join(texts) if len(texts) < 3 else ", ".join(texts[:-1]) + " and " + texts[-1]


def reference_path(lab: Lab) -> Path:
    """The reference script of `lab`; a UserError when the installed package lacks it."""
    path = lab.reference()
    if not path.is_file():
        raise UserError(f"{path}: missing; the package's labs are incomplete (reinstall attention-by-hand)")
    return path


def load_reference(path: Path) -> ModuleType:
    """Import a reference lab by path; its steps stay behind `if __name__ == "__main__":`."""
    spec = importlib.util.spec_from_file_location(f"reference_{path.stem.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def checks_for(number: int, seed: int = 0) -> list:
    """The checks of lab `number` (see Lab.checks)."""
    return lab_numbered(number).checks(seed)
