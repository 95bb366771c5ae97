"""The learner's version is generated from the reference: only the registered functions'
bodies change, each to a NotImplementedError with its hint; and it says how it is run."""

from __future__ import annotations

import ast

import pytest

from attention_by_hand.lab.exercise import HOW_TO_RUN, learner_source
from attention_by_hand.lab.registry import LABS, Lab, reference_path, lab_numbered

NUMBERS = [lab.number for lab in LABS]


def _source(number: int) -> str:
    return reference_path(lab_numbered(number)).read_text(encoding="utf-8")


def _skeleton(source: str, functions) -> str:
    """The module's syntax tree with the bodies of `functions` cut down to their docstrings."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            node.body = node.body[:1]
    return ast.dump(tree)


@pytest.mark.parametrize("number", NUMBERS)
def test_a_learner_version_is_its_reference_with_only_the_registered_bodies_emptied(number):
    lab = lab_numbered(number)
    assert _skeleton(learner_source(_source(number), lab), lab.functions) == _skeleton(_source(number), lab.functions)


@pytest.mark.parametrize("number", NUMBERS)
def test_every_emptied_function_raises_not_implemented_with_its_registered_hint(number):
    lab = lab_numbered(number)
    tree = ast.parse(learner_source(_source(number), lab))
    bodies = {n.name: n.body for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in lab.functions}
    for name, (docstring, statement) in bodies.items():
        assert isinstance(statement, ast.Raise) and statement.exc.func.id == "NotImplementedError"
        assert statement.exc.args[0].value == lab.functions[name]


def test_the_same_reference_gives_the_same_bytes():
    assert learner_source(_source(4), LABS[3]) == learner_source(_source(4), LABS[3])


def test_the_title_says_it_is_the_learners_version():
    assert "# # Lab 04 (your version): one head of self-attention\n" in learner_source(_source(4), LABS[3])


def test_a_script_version_says_how_to_run_and_check_it_by_its_own_name():
    text = learner_source(_source(4), LABS[3], filename="mine.py")
    cell = text[text.index(HOW_TO_RUN) : text.index("\n# %%\n", text.index(HOW_TO_RUN))]
    flat = " ".join(line.removeprefix("# ") for line in cell.splitlines()[1:])
    assert "`attention-by-hand lab run 4 mine.py`" in flat and "`attention-by-hand lab check 4 mine.py`" in flat
    assert "This is the reference lab" not in text


def test_a_notebook_version_says_to_run_its_cells_and_check_the_notebook():
    text = learner_source(_source(4), LABS[3], filename="mine.ipynb", notebook=True)
    cell = text[text.index(HOW_TO_RUN) : text.index("\n# %%\n", text.index(HOW_TO_RUN))]
    flat = " ".join(line.removeprefix("# ") for line in cell.splitlines()[1:])
    assert "Run the cells in order" in flat and "`attention-by-hand lab check 4 mine.ipynb`" in flat
    assert "lab run 4 mine" not in flat


def test_a_registered_function_the_reference_lacks_is_an_error_naming_it():
    lab = Lab(9, "x", "x", "x", {"missing_one": "hint"}, package="unused")
    with pytest.raises(ValueError, match="does not define: missing_one"):
        learner_source("def other():\n    return 1\n", lab)


def test_a_function_without_a_docstring_cannot_be_emptied():
    lab = Lab(9, "x", "x", "x", {"f": "hint"}, package="unused")
    with pytest.raises(ValueError, match=r"f\(\) needs a docstring"):
        learner_source("def f():\n    return 1\n", lab)
