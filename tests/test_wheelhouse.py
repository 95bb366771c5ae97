"""An offline room: a fresh venv installs the package from a wheelhouse alone, with every package
index refused, and `attention-by-hand run` and `check` work there (README, "Teaching it to a room").

The wheelhouse here is made without downloading anything, so that the test stays under a minute:
- `make wheelhouse` itself (from a copy of the project, with LOCK narrowed to the torch pin) puts
  the torch wheel in, taken from this machine's own package sources (the local folders and file://
  indexes that `pip config list` names; torch would otherwise be a ~1 GB download), and builds the
  project's own wheel;
- every other runtime pin is repacked from this venv's installed files (its RECORD and its WHEEL
  tags): the local package sources do not hold all of them at the lock's versions (filelock,
  packaging, pillow, ... came from the package index), and pip keeps no cache here.
The test cannot prove that the whole lock downloads (that needs the index); it proves that the
package and its runtime pins install with the network refused, and run and check from there.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / ("requirements.lock" if sys.version_info >= (3, 11) else "requirements-py310.lock")
REFUSED = "http://127.0.0.1:9/"  # the discard port: nothing answers there
PROJECT = "attention-by-hand"

pytestmark = pytest.mark.slow


def runtime_names() -> set[str]:
    """The project's runtime dependencies, all the way down, as this venv's metadata says (no extras)."""
    seen: set[str] = set()
    todo = [PROJECT]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return seen - {PROJECT}


def pins() -> dict[str, str]:
    """{canonical name: the lock's line} for every runtime dependency."""
    found = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            found[canonicalize_name(line.split("==")[0])] = line.strip()
    return {name: found[name] for name in runtime_names()}


def local_sources() -> dict[str, str]:
    """pip's settings naming only the package sources on this machine's disk, as environment variables."""
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    indexes, links = [], []
    for key, value in re.findall(r"^\S*?\.((?:extra-)?index-url|find-links)='(.*)'$", listed, re.M):
        for source in value.split():
            local = source.startswith("file:") or (os.path.isabs(source) and Path(source).exists())
            if local and source not in indexes + links:
                (links if key == "find-links" else indexes).append(source)
    if not indexes and not links:
        pytest.skip("pip has no package source on this machine's disk (pip config list): torch would be downloaded")
    env = {"PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": " ".join(links)}
    if indexes:
        env.update(PIP_INDEX_URL=indexes[0], PIP_EXTRA_INDEX_URL=" ".join(indexes[1:]))
    else:
        env["PIP_NO_INDEX"] = "1"
    return env


def without_pip_settings() -> dict[str, str]:
    """This process's environment with no PIP_* variable, no PYTHONPATH and no thread count (the
    suite's one thread, tests/conftest.py: a laptop runs on all its cores)."""
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", "OMP_NUM_THREADS")
    return {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k not in dropped}


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack(name: str, folder: Path) -> Path:
    """A wheel of the installed distribution `name`, from the files its RECORD lists, named with the
    tags of its WHEEL file. Files outside site-packages (console scripts, man pages) are left out:
    pip writes the scripts again from entry_points.txt."""
    dist = metadata.distribution(name)
    info = f"{canonicalize_name(name).replace('-', '_')}-{dist.version}"
    tags = [line.split(": ", 1)[1].split("-") for line in dist.read_text("WHEEL").splitlines() if line.startswith("Tag: ")]
    # A wheel's name holds its tags compressed, each of the three parts a dotted set: py2.py3-none-any.
    tag = "-".join(".".join(dict.fromkeys(tag[i] for tag in tags)) for i in range(3))
    base = Path(dist.locate_file(""))
    path = folder / f"{info}-{tag}.whl"
    record = []
    # Stored, not compressed: a wheel may be either, and these are made and unpacked once, here.
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as wheel:
        dist_info = None
        for file in dist.files:
            parts = file.parts
            if parts[0] == ".." or "__pycache__" in parts:
                continue
            if parts[0].endswith(".dist-info"):
                dist_info = parts[0]
                if parts[-1] in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json"):
                    continue  # pip's records of this install, not part of the wheel
            data = (base / file).read_bytes()
            wheel.writestr(file.as_posix(), data)
            record.append(f"{file.as_posix()},{record_hash(data)},{len(data)}")
        record.append(f"{dist_info}/RECORD,,")
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    runtime = pins()
    assert "torch" in runtime
    # `make wheelhouse` in a copy of the project: the checkout's build/ and wheelhouse/ stay as they are.
    project = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("Makefile", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, project / name)
    (project / "torch.lock").write_text(runtime["torch"] + "\n", encoding="utf-8")
    folder = project / "wheelhouse"
    made = subprocess.run(
        ["make", "-o", ".venv/.installed", "wheelhouse", f"PY={sys.executable}", f"PYTHON={sys.executable}", "LOCK=torch.lock"],
        cwd=project, env={**without_pip_settings(), **local_sources()}, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    for name in runtime:
        if name != "torch":
            repack(name, folder)
    return folder


@dataclass
class Laptop:
    """A learner's laptop after the offline install."""

    venv: Path
    env: dict[str, str]  # a shell's environment there, the venv's commands first on PATH


@pytest.fixture(scope="module")
def laptop(wheelhouse, tmp_path_factory) -> Laptop:
    """A learner's laptop: a fresh venv, with the README's offline install done."""
    laptop = tmp_path_factory.mktemp("laptop")
    subprocess.run([sys.executable, "-m", "venv", str(laptop / ".venv")], check=True, timeout=300)
    env = without_pip_settings()
    # --no-index alone could still meet a find-links of pip's configuration: no configuration, and
    # an index that refuses every connection, so that only the wheelhouse can answer.
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL=REFUSED)
    done = subprocess.run(
        [str(laptop / ".venv" / "bin" / "pip"), "install", "--no-index", "--find-links", str(wheelhouse), PROJECT],
        cwd=laptop, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    env["PATH"] = f"{laptop / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return Laptop(laptop / ".venv", env)


@pytest.fixture(scope="module")
def ran(laptop, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """`attention-by-hand run` on the laptop, in an empty folder: (the folder, how it went)."""
    folder = tmp_path_factory.mktemp("learner")
    done = subprocess.run(["attention-by-hand", "run", "--quiet"], cwd=folder, env=laptop.env, capture_output=True, text=True, timeout=300)
    return folder, done


def test_the_wheelhouse_holds_the_projects_wheel_and_one_wheel_per_runtime_pin(wheelhouse):
    held = {}
    for wheel in wheelhouse.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        held[canonicalize_name(name)] = version
    expected = {name: line.split("==")[1] for name, line in pins().items()}
    assert held.pop(canonicalize_name(PROJECT)) == metadata.version(PROJECT)
    # The local label (torch's "+cpu") is part of the wheel's version, not of the pin.
    assert {name: version.split("+")[0] for name, version in held.items()} == expected


def test_the_package_and_torch_are_installed_in_the_laptops_venv(laptop, tmp_path):
    done = subprocess.run(
        ["python", "-c", "import attention_by_hand, torch; print(attention_by_hand.__file__); print(torch.__file__)"],
        cwd=tmp_path, env=laptop.env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for module in done.stdout.splitlines():
        assert Path(module).is_relative_to(laptop.venv)


def test_run_succeeds_on_the_offline_laptop(ran):
    folder, done = ran
    assert done.returncode == 0, done.stderr
    assert (folder / "captures" / "results.log").is_file()


def test_check_finds_the_laptops_log_equal_to_the_canonical_capture(laptop, ran):
    folder, _ = ran
    checked = subprocess.run(["attention-by-hand", "check"], cwd=folder, env=laptop.env, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
