"""The labs ship with the package: from a wheel installed into a fresh virtual environment, the
five `lab` commands work in an empty folder, with no project checkout in sight.

The fresh environment gets the package from the wheel alone; its dependencies (torch, numpy,
jupytext, ...) are borrowed from this test run's own environment through a .pth file, since
installing torch again would take minutes and prove nothing about the labs.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from attention_by_hand.lab.registry import LABS
from labhelpers import ROOT, solve
from patience import HUNG

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # Built from a copy of the sources: setuptools' build/ folder in the checkout may hold files
    # of an earlier build that the wheel would pick up.
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        timeout=HUNG,
    )
    (path,) = out.glob("attention_by_hand-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict[str, str]:
    """The environment variables of a shell in a fresh venv with the wheel installed."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=HUNG)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()] or [sysconfig.get_paths()["purelib"]]
    (Path(purelib) / "borrowed-dependencies.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-index", str(wheel)], check=True, timeout=HUNG
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(installed, folder: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["attention-by-hand", *argv], cwd=folder, env=installed, capture_output=True, text=True, timeout=HUNG
    )


def test_the_wheel_holds_every_reference_lab(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for lab in LABS:
        assert f"attention_by_hand/lab/labs/lab{lab.number:02d}/{lab.filename}" in names


def test_the_installed_package_is_the_wheels_not_the_checkout(installed, tmp_path):
    done = subprocess.run(
        ["python", "-c", "import attention_by_hand; print(attention_by_hand.__file__)"],
        cwd=tmp_path, env=installed, capture_output=True, text=True, check=True,
    )
    assert str(ROOT) not in done.stdout and "site-packages" in done.stdout


def test_the_five_lab_commands_work_in_an_empty_folder(installed, tmp_path):
    listed = _run(installed, tmp_path, "lab", "list")
    assert listed.returncode == 0 and "lab-04-attention.py" in listed.stdout
    assert _run(installed, tmp_path, "lab", "start", "4").returncode == 0
    ran = _run(installed, tmp_path, "lab", "run", "4")
    assert ran.returncode == 0 and "SELF-CHECK: PASS" in ran.stdout
    assert _run(installed, tmp_path, "lab", "check", "4").returncode == 1  # nothing written yet

    # The learner pastes the reference's bodies: the same file, solved.
    solved = _run(installed, tmp_path, "lab", "notebook", "4")
    assert solved.returncode == 0 and (tmp_path / "lab-04-attention-solved.ipynb").is_file()
    reference = subprocess.run(
        ["python", "-c", "from attention_by_hand.lab.registry import LABS, reference_path; "
         "print(reference_path(LABS[3]).read_text(), end='')"],
        cwd=tmp_path, env=installed, capture_output=True, text=True, check=True,
    ).stdout
    mine = tmp_path / "lab-04-attention.py"
    mine.write_text(solve(mine.read_text(encoding="utf-8"), reference, LABS[3].functions), encoding="utf-8")
    checked = _run(installed, tmp_path, "lab", "check", "4")
    assert checked.returncode == 0 and checked.stdout.splitlines()[-1].endswith("passed, 0 failed")
