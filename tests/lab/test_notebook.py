"""Labs as notebooks, and notebooks back as the script the checker runs."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import nbformat
import pytest

from attention_by_hand.errors import UserError
from attention_by_hand.lab.exercise import learner_source
from attention_by_hand.lab.notebook import STEPS_TAG, notebook_text, script_from_notebook
from attention_by_hand.lab.registry import LABS, lab_numbered, reference_path
from patience import HUNG

NUMBERS = [lab.number for lab in LABS]


def _reference(number: int) -> str:
    return reference_path(lab_numbered(number)).read_text(encoding="utf-8")


@pytest.mark.parametrize("exercise", [False, True], ids=["solved", "learner"])
@pytest.mark.parametrize("number", NUMBERS)
def test_every_lab_makes_a_valid_notebook_without_main_guards(number, exercise):
    source = _reference(number)
    if exercise:
        source = learner_source(source, lab_numbered(number), notebook=True)
    notebook = nbformat.reads(notebook_text(source), as_version=4)
    nbformat.validate(notebook)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert not any("__main__" in source for source in code)
    for source in code:
        ast.parse(source)
    assert notebook.cells[0].cell_type == "markdown" and notebook.cells[0].source.startswith(f"# Lab {number:02d}")


def test_the_cells_that_were_steps_are_tagged_as_steps():
    notebook = nbformat.reads(notebook_text(_reference(4)), as_version=4)
    tagged = [c for c in notebook.cells if STEPS_TAG in c.metadata.get("tags", [])]
    assert tagged and all(c.cell_type == "code" for c in tagged)
    assert not any("def " in c.source for c in tagged)


def test_without_jupytext_a_notebook_is_refused_in_one_line_naming_the_offline_install_too(monkeypatch):
    monkeypatch.setitem(sys.modules, "jupytext", None)  # as if not installed: importing it fails
    with pytest.raises(UserError) as refused:
        notebook_text(_reference(4))
    message = str(refused.value)
    assert "\n" not in message
    assert '-m pip install "attention-by-hand[labs]"' in message  # from the package index
    assert '-m pip install --no-index --find-links wheelhouse "attention-by-hand[labs]"' in message  # offline


def test_a_notebook_is_the_same_bytes_every_time():
    assert notebook_text(_reference(4)) == notebook_text(_reference(4))


def test_the_lab04_notebook_runs_cell_by_cell_to_a_passing_self_check(tmp_path):
    # The code cells in order, in one namespace, as a kernel runs them (no __file__, __name__ "__main__").
    notebook = json.loads(notebook_text(_reference(4)))
    program = "\n\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    script = tmp_path / "cells.txt"
    script.write_text(program, encoding="utf-8")
    runner = "import sys; exec(compile(open(sys.argv[1]).read(), 'notebook', 'exec'), {'__name__': '__main__'})"
    done = subprocess.run(
        [sys.executable, "-c", runner, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=HUNG
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("SELF-CHECK: PASS")


def test_a_notebook_back_as_a_script_keeps_its_steps_under_the_guard(tmp_path):
    path = tmp_path / "lab.ipynb"
    path.write_text(notebook_text(_reference(4)), encoding="utf-8")
    script, _ = script_from_notebook(path)
    tree = ast.parse(script)
    top = [type(n).__name__ for n in tree.body]
    assert "If" in top and not any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) for n in tree.body)
    assert {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} >= set(LABS[3].functions)


def test_a_line_of_the_script_is_named_by_its_cell_and_line(tmp_path):
    path = tmp_path / "lab.ipynb"
    path.write_text(notebook_text(_reference(4)), encoding="utf-8")
    script, line_name = script_from_notebook(path)
    line = script.split("\n").index("def causal_mask(T: int) -> torch.Tensor:") + 1
    cells = json.loads(path.read_text())["cells"]
    cell = next(i for i, c in enumerate(cells, start=1) if "def causal_mask" in "".join(c["source"]))
    assert line_name(line) == f"cell {cell}, line 1"


def test_ipython_magics_and_shell_lines_become_comments(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%matplotlib inline\n!ls\nx = 1")])
    path = tmp_path / "magic.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    script, _ = script_from_notebook(path)
    assert script.startswith("# %matplotlib inline\n# !ls\nx = 1\n")


@pytest.mark.parametrize(
    "content, says",
    [(b"not json at all", "not a Jupyter notebook (not JSON"), (b'{"cells": 3}', "no list of cells"), (b"\xff\xfe", "not JSON")],
    ids=["text", "no-cells", "binary"],
)
def test_a_file_that_is_not_a_notebook_is_one_line_naming_it(tmp_path, content, says):
    path = tmp_path / "bad.ipynb"
    path.write_bytes(content)
    with pytest.raises(UserError) as error:
        script_from_notebook(path)
    assert str(error.value).startswith(f"{path}: ") and says in str(error.value) and "\n" not in str(error.value)
