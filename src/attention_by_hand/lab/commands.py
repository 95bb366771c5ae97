"""What each `attention-by-hand lab` subcommand does: list, start, run, check, notebook.

    lab list                          the labs, and the functions each leaves to write
    lab start N [FILE] [--notebook]   write your version of lab N (default ./lab-NN-<name>.py)
    lab run N [FILE] [ARGS...]        run the reference lab N, or your FILE, as a script
    lab check N [FILE]                judge your functions against the reference, with hints
    lab check N --room FOLDER         every learner's file in FOLDER, sandboxed: one table (room.py)
    lab notebook N [--exercise]       the solved lab (or your version) as a Jupyter notebook

The labs ship inside the package, so every command works in any folder after `pip install`.
Your files are read and written in the current folder unless you name another path.

Left out: the command-line parsing (cli/lab.py); how a file is run and judged (runner.py, verdict.py).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from attention_by_hand.run.atomic import write_atomic
from attention_by_hand.errors import UserError
from attention_by_hand.lab.exercise import learner_source
from attention_by_hand.lab.registry import LABS, Lab, get_lab, reference_path

__all__ = ["list_labs", "start", "run", "check", "check_learner", "notebook", "default_file"]


def _write_new(path: Path, text: str, force: bool) -> None:
    """Write `text` to `path` atomically; refuse to replace a learner's work unless forced."""
    if path.is_dir():
        raise UserError(f"{path}: is a folder; name a file")
    if path.exists() and not force:
        raise UserError(f"{path}: already exists; --force replaces it (your edits in it would be lost)")
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError as error:
        raise UserError(f"{path}: cannot write it ({error.strerror})") from None


def default_file(lab: Lab) -> Path:
    """The learner's file `lab check N` takes when none is named: the .py, else the .ipynb."""
    script, notebook = Path(lab.filename), Path(lab.stem + ".ipynb")
    if not script.exists() and notebook.exists():
        return notebook
    return script


def list_labs() -> int:
    width = max(len(lab.filename) for lab in LABS)
    digits = max(len(str(lab.number)) for lab in LABS)  # lab 11 beside lab 9: the numbers right-aligned
    print("The labs (they come with the package; your files go in the current folder):")
    for lab in LABS:
        print(f"  {lab.number:>{digits}}  {lab.filename:<{width}}  {lab.summary}")
        print(f"  {'':>{digits}}  {'':<{width}}  you write: {', '.join(lab.functions)}")
    print("Watch one run:    attention-by-hand lab run N")
    print("Your version:     attention-by-hand lab start N      (writes lab-NN-<name>.py here; --notebook for .ipynb)")
    print("Check yours:      attention-by-hand lab check N [FILE]")
    return 0


def _source(lab: Lab, exercise: bool, filename: str, notebook: bool) -> str:
    reference = reference_path(lab).read_text(encoding="utf-8")
    return learner_source(reference, lab, filename, notebook) if exercise else reference


def start(number: str, file: str | None, as_notebook: bool, force: bool) -> int:
    lab = get_lab(number)
    as_notebook = as_notebook or (file is not None and file.endswith(".ipynb"))
    path = Path(file) if file else Path(lab.stem + (".ipynb" if as_notebook else ".py"))
    if as_notebook and path.suffix != ".ipynb":
        raise UserError(f"{path}: a notebook's name must end in .ipynb")
    source = _source(lab, True, path.name, as_notebook)
    if as_notebook:
        from attention_by_hand.lab.notebook import notebook_text

        source = notebook_text(source)
    _write_new(path, source, force)
    how = "open it in JupyterLab or any editor that reads .ipynb" if as_notebook else "fill in what raises NotImplementedError"
    print(f"wrote {path}: your version of lab {lab.number} ({lab.title}); {how}")
    named = file is not None or as_notebook  # `lab check N` alone takes the .py first
    print(f"check it:  attention-by-hand lab check {lab.number}" + (f" {path}" if named else ""))
    return 0


def run(number: str, file: str | None, script_args: list[str]) -> int:
    lab = get_lab(number)
    path = Path(file) if file else reference_path(lab)
    if not path.is_file():
        raise UserError(f"{path}: no such file" + ("" if path.exists() else f" (attention-by-hand lab start {lab.number} writes one)"))
    if path.suffix == ".ipynb":
        raise UserError(f"{path}: a notebook runs in Jupyter, cell by cell; `lab run` runs scripts (check it: lab check {lab.number} {path})")
    sys.stdout.flush()
    code = subprocess.run([sys.executable, str(path), *script_args]).returncode
    return code if code in (0, 1) else 1  # a crash or a signal is a failed lab, not bad input


def check(number: str, file: str | None, timeout: float, memory_mb: int, seed: int) -> int:
    from attention_by_hand.lab.runner import Limits
    from attention_by_hand.lab.verdict import report_lines

    lab = get_lab(number)
    learner = Path(file) if file else default_file(lab)
    if not learner.exists():
        start_it = f"attention-by-hand lab start {lab.number}" + (f" {learner}" if file else "")
        raise UserError(f"{learner}: no such file ({start_it} writes your version)")
    if not learner.is_file():
        raise UserError(f"{learner}: not a file")
    print(f"Checking {learner} against lab {lab.number} ({lab.title}):", flush=True)
    result = check_learner(learner, lab, limits=Limits(timeout=timeout, memory_mb=memory_mb), seed=seed)
    for line in report_lines(result):
        print(line)
    if result.failure:
        sys.stdout.flush()
        raise UserError(f"{learner}: cannot be checked: {result.failure}")
    return result.exit_code


def check_learner(learner: Path, lab: Lab, *, limits, seed: int, sandboxed: bool = False):
    """`check_file` for a script or a notebook (checked as the script its cells make)."""
    from attention_by_hand.lab.runner import check_file

    if learner.suffix != ".ipynb":
        return check_file(learner, lab, limits=limits, seed=seed, sandboxed=sandboxed)
    from attention_by_hand.lab.notebook import script_from_notebook

    script, line_name = script_from_notebook(learner)
    with tempfile.TemporaryDirectory(prefix="lab-notebook-") as tmp:
        as_script = Path(tmp) / (learner.stem + ".py")
        as_script.write_text(script, encoding="utf-8")
        return check_file(as_script, lab, limits=limits, seed=seed, line_name=line_name, sandboxed=sandboxed)


def notebook(number: str, exercise: bool, out: str | None, force: bool) -> int:
    from attention_by_hand.lab.notebook import notebook_text

    lab = get_lab(number)
    name = lab.stem + (".ipynb" if exercise else "-solved.ipynb")
    path = Path(out) if out else Path(name)
    if path.is_dir():
        path = path / name
    if path.suffix != ".ipynb":
        raise UserError(f"{path}: a notebook's name must end in .ipynb (or give a folder)")
    if path.exists() and not force:  # before the conversion: nothing to do, nothing computed
        raise UserError(f"{path}: already exists; --force replaces it (your edits in it would be lost)")
    _write_new(path, notebook_text(_source(lab, exercise, path.name, True)), force)
    kind = "your version" if exercise else "the solved lab"
    print(f"wrote {path}: lab {lab.number} as a notebook, {kind}")
    if exercise:
        print(f"check it:  attention-by-hand lab check {lab.number} {path}")
    return 0
