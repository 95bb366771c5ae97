"""The lab registry: every lab's reference ships with the package and defines, with a
docstring, every function the registry leaves to the learner; and the checks call exactly those."""

from __future__ import annotations

import ast

import pytest

from attention_by_hand.errors import UserError
from attention_by_hand.lab.registry import checks_for, lab_numbered
from attention_by_hand.lab import registry
from attention_by_hand.lab.registry import LABS, Lab, get_lab, reference_path

NUMBERS = [lab.number for lab in LABS]


@pytest.mark.parametrize("number", NUMBERS)
def test_every_registered_function_is_defined_with_a_docstring_in_its_reference(number):
    lab = lab_numbered(number)
    tree = ast.parse(reference_path(lab).read_text(encoding="utf-8"))
    documented = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and ast.get_docstring(n)}
    assert set(lab.functions) <= documented


@pytest.mark.parametrize("number", NUMBERS)
def test_every_hint_says_what_to_compute_in_a_sentence(number):
    assert all(len(hint) > 30 for hint in lab_numbered(number).functions.values())


@pytest.mark.parametrize("number", NUMBERS)
def test_the_checker_calls_exactly_the_functions_the_learner_writes(number):
    assert {c.function for c in checks_for(number)} == set(lab_numbered(number).functions)


def test_labs_are_numbered_from_one_each_number_once_and_named_after_their_file():
    numbers = [lab.number for lab in LABS]
    assert numbers[0] == 1 and numbers == sorted(set(numbers))
    assert LABS[3].filename == "lab-04-attention.py" and LABS[3].stem == "lab-04-attention"


@pytest.mark.parametrize("text", ["4", "04"])
def test_a_lab_is_found_by_its_number_with_or_without_the_zero(text):
    assert get_lab(text) is LABS[3]


@pytest.mark.parametrize("text", ["0", "99", "four"])
def test_a_number_that_is_no_lab_is_a_one_line_error_listing_the_range(text):
    with pytest.raises(UserError, match=rf"^no lab '{text}': the labs are numbered {registry.numbers()} "):
        get_lab(text)


@pytest.mark.parametrize(
    "found, said", [([1, 2, 3], "1 to 3"), ([1, 2, 3, 5], "1 to 3 and 5"), ([1, 3, 4, 6], "1, 3 to 4 and 6"), ([1], "1")]
)
def test_the_lab_numbers_are_said_as_runs_around_a_gap(monkeypatch, found, said):
    monkeypatch.setattr(registry, "LABS", tuple(Lab(n, "x", "x", "x", {}, "x") for n in found))
    assert registry.numbers() == said


def test_a_new_lab_folder_is_found_without_editing_any_list(tmp_path, monkeypatch):
    import sys

    from attention_by_hand.lab import labs, registry

    folder = tmp_path / "lab99"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        "from attention_by_hand.lab.labs import Lab\n"
        f"LAB = Lab(number={LABS[-1].number + 1}, slug='new', title='new', summary='a new lab', functions={{}}, package=__name__)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(labs, "__path__", [*labs.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "attention_by_hand.lab.labs.lab99", raising=False)
    found = registry._discover()
    assert [lab.number for lab in found] == [*NUMBERS, LABS[-1].number + 1]
    assert found[-1].reference() == folder / f"lab-{LABS[-1].number + 1:02d}-new.py"
    sys.modules.pop("attention_by_hand.lab.labs.lab99", None)
