"""An offline room: a fresh venv installs the package from a wheelhouse alone, with every package
index refused, and `attention-by-hand run` and `check` work there (README, "Teaching it to a room");
then, in the same venv, the labs extra from the same wheelhouse, as the message of `lab start
--notebook` without it says, and a lab notebook runs headless through the installed kernel and
opens in the installed JupyterLab.

The wheelhouse here is made without downloading anything (torch alone is ~1 GB from the index):
- `make wheelhouse` itself (from a copy of the project, with LOCK narrowed to the torch pin) puts
  the torch wheel in, taken from this machine's own package sources (the local folders and file://
  indexes that `pip config list` names; torch would otherwise be a ~1 GB download), and builds the
  project's own wheel;
- every other pin the package and its labs extra need is repacked from this venv's installed files
  (its RECORD and its WHEEL tags): the local package sources do not hold all of them at the lock's
  versions (filelock, packaging, pillow, ... came from the package index), and pip keeps no cache here.
The test cannot prove that the whole lock downloads (that needs the index); it proves that the
package, its labs extra and their pins install with the network refused, and work from there.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from patience import HUNG

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / ("requirements.lock" if sys.version_info >= (3, 11) else "requirements-py310.lock")
REFUSED = "http://127.0.0.1:9/"  # the discard port: nothing answers there
PROJECT = "attention-by-hand"

pytestmark = pytest.mark.slow(first=True)  # one long chain of fixtures: it starts before every other file


def needed_names(extra: str | None = None) -> set[str]:
    """What the project needs, all the way down, as this venv's metadata says: its runtime
    dependencies, and with `extra` those of that extra too (and of the extras they ask for)."""
    seen: set[tuple[str, str]] = set()
    todo = [(PROJECT, extra or "")]
    while todo:
        name, wanted = todo.pop()
        name = canonicalize_name(name)
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": wanted}):
                todo.append((requirement.name, ""))
                todo.extend((requirement.name, more) for more in requirement.extras)
    return {name for name, _ in seen} - {PROJECT}


def pins(extra: str | None = None) -> dict[str, str]:
    """{canonical name: the lock's line} for every package the project (with `extra`) needs."""
    found = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            found[canonicalize_name(line.split("==")[0])] = line.strip()
    return {name: found[name] for name in needed_names(extra)}


def local_sources() -> dict[str, str]:
    """pip's settings naming only the package sources on this machine's disk, as environment variables."""
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True, timeout=HUNG
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
    tags of its WHEEL file. Files outside site-packages go back to the wheel's data folder
    (`<name>.data/data/share/jupyter/kernels/...`: a kernel's spec, JupyterLab's own files), except
    the console scripts, which pip writes again from entry_points.txt."""
    dist = metadata.distribution(name)
    info = f"{canonicalize_name(name).replace('-', '_')}-{dist.version}"
    tags = [line.split(": ", 1)[1].split("-") for line in dist.read_text("WHEEL").splitlines() if line.startswith("Tag: ")]
    # A wheel's name holds its tags compressed, each of the three parts a dotted set: py2.py3-none-any.
    tag = "-".join(".".join(dict.fromkeys(tag[i] for tag in tags)) for i in range(3))
    base = Path(dist.locate_file(""))
    scripts = {entry.name for entry in dist.entry_points if entry.group in ("console_scripts", "gui_scripts")}
    path = folder / f"{info}-{tag}.whl"
    record = []
    # Stored, not compressed: a wheel may be either, and these are made and unpacked once, here.
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as wheel:
        dist_info = None
        for file in dist.files:
            parts = file.parts
            if "__pycache__" in parts:
                continue
            if parts[0] == "..":
                # Relative to the venv's root: bin/jupyter-lab, share/jupyter/..., etc/jupyter/...
                where = Path(os.path.normpath(base / file)).relative_to(sys.prefix)
                if where.parts[0] == "bin" and where.name in scripts:
                    continue
                arcname = f"{info}.data/data/{where.as_posix()}"
            else:
                arcname = file.as_posix()
            if parts[0].endswith(".dist-info"):
                dist_info = parts[0]
                if parts[-1] in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json"):
                    continue  # pip's records of this install, not part of the wheel
            data = (base / file).read_bytes()
            wheel.writestr(arcname, data)
            record.append(f"{arcname},{record_hash(data)},{len(data)}")
        record.append(f"{dist_info}/RECORD,,")
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    runtime = pins("labs")
    assert "torch" in runtime and "jupyterlab" in runtime
    # `make wheelhouse` in a copy of the project: the checkout's build/ and wheelhouse/ stay as they are.
    project = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("Makefile", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, project / name)
    (project / "torch.lock").write_text(runtime["torch"] + "\n", encoding="utf-8")
    folder = project / "wheelhouse"
    made = subprocess.run(
        ["make", "-o", ".venv/.installed", "wheelhouse", f"PY={sys.executable}", f"PYTHON={sys.executable}", "LOCK=torch.lock"],
        cwd=project, env={**without_pip_settings(), **local_sources()}, capture_output=True, text=True, timeout=HUNG,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    for name in runtime:
        if name != "torch":
            repack(name, folder)
    return folder


@dataclass
class Laptop:
    """A learner's laptop after the offline install."""

    root: Path  # the folder that holds wheelhouse/ and .venv/, as the README has it
    venv: Path
    env: dict[str, str]  # a shell's environment there, the venv's commands first on PATH


@pytest.fixture(scope="module")
def laptop(wheelhouse, tmp_path_factory) -> Laptop:
    """A learner's laptop: a fresh venv, with the README's offline install done."""
    laptop = tmp_path_factory.mktemp("laptop")
    (laptop / "wheelhouse").symlink_to(wheelhouse, target_is_directory=True)  # the USB stick's folder
    subprocess.run([sys.executable, "-m", "venv", str(laptop / ".venv")], check=True, timeout=HUNG)
    env = without_pip_settings()
    # --no-index alone could still meet a find-links of pip's configuration: no configuration, and
    # an index that refuses every connection, so that only the wheelhouse can answer.
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL=REFUSED)
    # No byte-compiling of every installed module (torch's thousands): a minute of the test's time
    # spent on no claim of it; the modules a command imports are compiled as it imports them.
    env["PIP_NO_COMPILE"] = "1"
    done = subprocess.run(
        [".venv/bin/pip", "install", "--no-index", "--find-links", "wheelhouse", PROJECT],
        cwd=laptop, env=env, capture_output=True, text=True, timeout=HUNG,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    env["PATH"] = f"{laptop / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return Laptop(laptop, laptop / ".venv", env)


@pytest.fixture(scope="module")
def ran(laptop, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """`attention-by-hand run` on the laptop, in an empty folder: (the folder, how it went)."""
    folder = tmp_path_factory.mktemp("learner")
    done = subprocess.run(["attention-by-hand", "run", "--quiet"], cwd=folder, env=laptop.env, capture_output=True, text=True, timeout=HUNG)
    return folder, done


def test_the_wheelhouse_holds_the_projects_wheel_and_one_wheel_per_pin_of_the_package_and_its_labs(wheelhouse):
    held = {}
    for wheel in wheelhouse.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        held[canonicalize_name(name)] = version
    expected = {name: line.split("==")[1] for name, line in pins("labs").items()}
    assert held.pop(canonicalize_name(PROJECT)) == metadata.version(PROJECT)
    # The local label (torch's "+cpu") is part of the wheel's version, not of the pin.
    assert {name: version.split("+")[0] for name, version in held.items()} == expected


def test_the_package_and_torch_are_installed_in_the_laptops_venv(laptop, tmp_path):
    done = subprocess.run(
        ["python", "-c", "import attention_by_hand, torch; print(attention_by_hand.__file__); print(torch.__file__)"],
        cwd=tmp_path, env=laptop.env, capture_output=True, text=True, timeout=HUNG,
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
    checked = subprocess.run(["attention-by-hand", "check"], cwd=folder, env=laptop.env, capture_output=True, text=True, timeout=HUNG)
    assert checked.returncode == 0, checked.stdout + checked.stderr


# ---- the labs extra: notebooks in an offline room ------------------------------------------------


@pytest.fixture(scope="module")
def without_labs(laptop) -> subprocess.CompletedProcess:
    """`lab start 4 --notebook` on the laptop before the labs extra is installed, where the
    README's install left the learner (the folder that holds wheelhouse/ and .venv/)."""
    return subprocess.run(
        ["attention-by-hand", "lab", "start", "4", "--notebook"], cwd=laptop.root, env=laptop.env, capture_output=True, text=True, timeout=HUNG
    )


@pytest.fixture(scope="module")
def with_labs(laptop, without_labs) -> Laptop:
    """The same laptop after the offline install that the message of `without_labs` names, run
    as it is printed, with every package index still refused; its Jupyter folders are its own."""
    command = re.search(r"(\S+ -m pip install --no-index --find-links wheelhouse \S+)", without_labs.stderr)
    assert command, without_labs.stderr
    done = subprocess.run(shlex.split(command.group(1)), cwd=laptop.root, env=laptop.env, capture_output=True, text=True, timeout=HUNG)
    assert done.returncode == 0, done.stdout + done.stderr
    env = dict(laptop.env)
    # Jupyter reads and writes settings, kernels and runtime files under the user's home: this
    # laptop gets folders of its own, so that only the venv's kernel can be found.
    for variable in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[variable] = str(laptop.root / "home" / variable.lower())
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    return Laptop(laptop.root, laptop.venv, env)


def test_without_the_labs_extra_a_notebook_is_refused_in_one_line_naming_the_offline_install(laptop, without_labs):
    assert without_labs.returncode == 2 and "Traceback" not in without_labs.stderr
    (line,) = without_labs.stderr.splitlines()
    assert f'--no-index --find-links wheelhouse "{PROJECT}[labs]"' in line
    assert not list(laptop.root.glob("lab-04*"))


@pytest.fixture(scope="module")
def started(with_labs, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """`lab start 4 --notebook` on the laptop once the labs extra is in: (its folder, how it went)."""
    folder = tmp_path_factory.mktemp("notebook")
    done = subprocess.run(["attention-by-hand", "lab", "start", "4", "--notebook"], cwd=folder, env=with_labs.env, capture_output=True, text=True, timeout=HUNG)
    return folder, done


def test_after_the_offline_install_of_the_labs_extra_a_notebook_is_written(started):
    folder, done = started
    assert done.returncode == 0, done.stderr
    assert (folder / "lab-04-attention.ipynb").is_file()


def test_the_notebooks_kernel_is_the_laptops_venv(with_labs, tmp_path):
    listed = subprocess.run(["jupyter", "kernelspec", "list", "--json"], cwd=tmp_path, env=with_labs.env, capture_output=True, text=True, timeout=HUNG)
    assert listed.returncode == 0, listed.stderr
    specs = json.loads(listed.stdout)["kernelspecs"]
    assert list(specs) == ["python3"]
    assert Path(specs["python3"]["resource_dir"]).is_relative_to(with_labs.venv)


def test_a_lab_notebook_runs_headless_through_the_installed_kernel_to_a_passing_self_check(with_labs, tmp_path):
    env = with_labs.env
    made = subprocess.run(["attention-by-hand", "lab", "notebook", "4"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HUNG)
    assert made.returncode == 0, made.stderr
    (notebook,) = tmp_path.glob("*.ipynb")
    done = subprocess.run(
        ["jupyter", "execute", "--output", "executed", notebook.name], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HUNG
    )
    assert done.returncode == 0, done.stderr
    cells = json.loads((tmp_path / "executed.ipynb").read_text(encoding="utf-8"))["cells"]
    printed = "".join("".join(out.get("text", "")) for cell in cells for out in cell.get("outputs", []))
    assert printed.strip().splitlines()[-1].startswith("SELF-CHECK: PASS")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _answering(server: subprocess.Popen, port: int, within: float = HUNG) -> bool:
    """Whether the server takes connections on `port` before it stops or `within` seconds pass: a
    bound for a server that hangs, not a speed it must reach (it says where it serves before it
    listens, so its log cannot tell)."""
    deadline = time.monotonic() + within
    while server.poll() is None and time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=60):
                return True
        except ConnectionRefusedError:
            time.sleep(0.2)
    return False


def test_jupyterlab_opens_the_notebook_on_the_offline_laptop(with_labs, started):
    folder, _ = started
    port, token = _free_port(), "offline-room"
    log = (folder / "jupyter-lab.log").open("w")  # a file, not a pipe: nobody has to keep reading it
    server = subprocess.Popen(
        # --allow-root: CI runs as root, which JupyterLab refuses unless told; a learner never is.
        ["jupyter", "lab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}"],
        cwd=folder, env=with_labs.env, stdout=subprocess.DEVNULL, stderr=log, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        assert _answering(server, port), (folder / "jupyter-lab.log").read_text()
        status, page = _get(f"{base}/lab/tree/lab-04-attention.ipynb?token={token}")
        assert status == 200 and b"JupyterLab" in page
        # The application itself (its scripts) is served from the laptop, not fetched from outside.
        scripts = re.findall(rb'<script[^>]+src="([^"]+)"', page)
        assert scripts and all(src.startswith(b"/") for src in scripts)
        assert {_get(f"{base}{src.decode()}")[0] for src in scripts} == {200}
        status, content = _get(f"{base}/api/contents/lab-04-attention.ipynb?token={token}")
        assert status == 200 and json.loads(content)["type"] == "notebook"
    finally:
        server.terminate()
        server.wait(timeout=HUNG)
        log.close()
