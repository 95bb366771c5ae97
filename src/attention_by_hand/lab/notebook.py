"""A lab as a Jupyter notebook, and a notebook back as a script the checker can import.

A lab script is in jupytext's percent format, so each `# %%` cell becomes a notebook cell. In the
script the steps sit under `if __name__ == "__main__":` (the checker imports the functions
without running them); in a notebook every cell is meant to run, so a cell that is all guard
becomes its body, and is tagged `steps`. Checking a notebook reverses that: its code cells, in
order, with the `steps` cells put back under the guard (and IPython's `%magic` and `!shell` lines
turned into comments), make the script the checker runs; `line_name` maps a line of that script
back to its cell.

Left out: the learner's version of the source (exercise.py); running or judging (runner.py).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["notebook_text", "script_from_notebook", "needs_labs_extra", "STEPS_TAG"]

_GUARD = 'if __name__ == "__main__":'
STEPS_TAG = "steps"
_MAX_NOTEBOOK = 16 * 1024 * 1024  # bytes: a lab notebook is tens of KB, outputs included


def _unwrap_guard(source: str) -> str | None:
    """The body of a cell that is all `if __name__ == "__main__":` block, dedented; else None."""
    lines = source.split("\n")
    if lines[0].rstrip() != _GUARD:
        return None
    body = lines[1:]
    if any(line.strip() and not line.startswith("    ") for line in body):
        return None  # something after the block: leave the cell as written
    return "\n".join(line[4:] for line in body).strip("\n")


def notebook_text(source: str) -> str:
    """A lab script (jupytext percent format) -> the text of an .ipynb notebook, validated.

    Same source, same bytes: cell ids are numbered, not random, and only the kernel metadata and
    the `steps` tags are kept (no jupytext bookkeeping).
    """
    try:
        import jupytext
        import nbformat
    except ImportError:
        raise UserError(needs_labs_extra()) from None
    notebook = jupytext.reads(source, fmt="py:percent")
    notebook.metadata = nbformat.from_dict(
        {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        }
    )
    for i, cell in enumerate(notebook.cells):
        cell.id = f"cell-{i:02d}"
        cell.metadata = nbformat.from_dict({})
        if cell.cell_type == "code":
            body = _unwrap_guard(cell.source)
            if body is not None:
                cell.source = body
                cell.metadata = nbformat.from_dict({"tags": [STEPS_TAG]})
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


def needs_labs_extra() -> str:
    """One line: notebooks need the labs extra, and the two commands that install it into this
    Python, from the package index and, in an offline room, from a wheelhouse folder (README)."""
    python = os.path.relpath(sys.executable)
    if python.startswith(os.pardir):
        python = sys.executable  # a relative path that climbs is harder to read than the whole one
    pip = f"{shlex.quote(python)} -m pip install"
    extra = '"attention-by-hand[labs]"'
    return (
        "making notebooks needs the package's labs extra (jupytext, nbformat, JupyterLab and its Python kernel): "
        f"{pip} {extra}, or offline, beside a wheelhouse folder: {pip} --no-index --find-links wheelhouse {extra}"
    )


def _cells(path: Path) -> list[dict]:
    """The notebook's cells, or a UserError saying in one line why it is not a notebook."""
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_NOTEBOOK + 1)
    except OSError as error:
        raise UserError(f"{path}: cannot read it ({error.strerror})") from None
    if len(data) > _MAX_NOTEBOOK:
        raise UserError(f"{path}: larger than {_MAX_NOTEBOOK // 2**20} MB; is it a lab notebook?")
    try:
        notebook = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise UserError(f"{path}: not a Jupyter notebook (not JSON: {error})") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise UserError(f"{path}: not a Jupyter notebook (no list of cells)")
    return [c for c in cells if isinstance(c, dict)]


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def _code_line(line: str) -> str:
    # IPython's own syntax is no Python: a script keeps it as a comment.
    stripped = line.lstrip()
    return line[: len(line) - len(stripped)] + "# " + stripped if stripped.startswith(("%", "!")) else line


def script_from_notebook(path: Path) -> tuple[str, Callable[[int], str]]:
    """(the script the checker runs, line n of it -> "cell 5, line 3") for a notebook file."""
    parts: list[str] = []
    origin: list[tuple[int, int]] = []  # per script line: (cell number from 1, line in the cell)
    for number, cell in enumerate(_cells(path), start=1):
        if cell.get("cell_type") != "code":
            continue
        lines = [_code_line(line) for line in _text(cell.get("source")).split("\n")]
        tags = (cell.get("metadata") or {}).get("tags") or []
        if STEPS_TAG in tags:
            if not any(line.strip() for line in lines):
                continue
            parts.append(_GUARD)
            origin.append((number, 1))
            lines = ["    " + line if line.strip() else line for line in lines]
        parts.extend(lines)
        origin.extend((number, i) for i in range(1, len(lines) + 1))
        parts.extend(["", ""])
        origin.extend([(number, len(lines))] * 2)

    def line_name(n: int) -> str:
        if 1 <= n <= len(origin):
            cell, line = origin[n - 1]
            return f"cell {cell}, line {line}"
        return f"line {n}"

    return "\n".join(parts) + "\n", line_name
