"""The house by role: the rules the package's layout keeps, read from the source itself.

- beside its subpackages the package folder holds at most eight modules of its own;
- every subpackage's docstring says what its one idea is;
- no module outside the reference labs is over 500 lines;
- imports run one way, down the floors: the math imports nothing of the package, the shared run
  machinery only the errors, the parts and the lab kit what lies below them, the site all of those,
  and only the command line (and the package's face) imports everything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from runhelpers import ROOT

PACKAGE = ROOT / "src" / "attention_by_hand"

# A room may import a room on a lower floor or on its own, never one above it. The math and the
# errors sit on the ground; nothing else does.
FLOOR = {"errors": 0, "math": 0, "run": 1, "parts": 2, "lab": 3, "site": 4, "cli": 5, "__main__": 6, "__init__": 6}


def modules() -> list[Path]:
    """Every module of the package except the learners' reference labs (lab-NN-*.py), which are
    teaching text and keep the length their lesson needs."""
    return sorted(p for p in PACKAGE.rglob("*.py") if not p.name.startswith("lab-"))


def room_of(path: Path) -> str:
    inside = path.relative_to(PACKAGE).parts
    return inside[0] if len(inside) > 1 else path.stem


def imported_rooms(path: Path) -> set[str]:
    """The package's top-level rooms that `path` imports, relative imports resolved."""
    here = list(path.relative_to(PACKAGE).parts[:-1])
    rooms = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
            target = base + (node.module.split(".") if node.module else [])
            if not target:  # `from . import x` at the top: x is itself a room
                rooms.update(alias.name for alias in node.names)
            else:
                rooms.add(target[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("attention_by_hand."):
            rooms.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            rooms.update(a.name.split(".")[1] for a in node.names if a.name.startswith("attention_by_hand."))
    return rooms - {room_of(path)}


def test_the_package_folder_holds_at_most_eight_modules_beside_its_subpackages():
    own = [p.name for p in PACKAGE.glob("*.py")]
    assert len(own) <= 8, own


@pytest.mark.parametrize(
    "folder", sorted(p.parent.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE)
)
def test_every_subpackage_says_its_idea_in_its_docstring(folder):
    doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 4, f"{folder}/__init__.py has no docstring that names its idea"


def test_no_module_outside_the_reference_labs_is_over_500_lines():
    long = {p.relative_to(PACKAGE).as_posix(): n for p in modules() if (n := len(p.read_text().splitlines())) > 500}
    assert long == {}


def test_every_top_level_room_has_a_floor():
    assert {room_of(p) for p in modules()} <= set(FLOOR)


def test_no_import_runs_back_up_the_floors():
    upward = sorted(
        f"{p.relative_to(PACKAGE).as_posix()} -> {room}"
        for p in modules()
        for room in imported_rooms(p)
        if room in FLOOR and FLOOR[room] > FLOOR[room_of(p)]
    )
    assert upward == []


def test_the_math_imports_nothing_of_the_package():
    assert {room for p in (PACKAGE / "math").rglob("*.py") for room in imported_rooms(p)} == set()
