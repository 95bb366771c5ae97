"""none_words.none_read: the one name or attribute that is None on the learner's line that raised,
read off its values; a layer's missing bias said as such."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from attention_by_hand.lab.none_words import none_read

HERE = Path(__file__).resolve()


def _raised_here(make):
    with pytest.raises(TypeError) as raised:
        make()
    return raised.value


def test_a_layer_made_without_a_bias_is_said_to_have_none():
    proj, merged = torch.nn.Linear(4, 4, bias=False), torch.ones(2, 4)
    error = _raised_here(lambda: merged @ proj.weight + proj.bias)
    said = none_read(error.__traceback__, HERE, str(error))
    assert said.startswith("`proj.bias` is None: `proj` was made without a bias (`bias=False`)")


def test_a_plain_name_that_is_none_is_named():
    scale, x = None, torch.ones(3)
    error = _raised_here(lambda: x * scale)
    assert none_read(error.__traceback__, HERE, str(error)) == "`scale` is None on this line"


def test_two_operands_that_are_none_are_said_nothing():
    a, b = None, None
    error = _raised_here(lambda: a * b)
    assert none_read(error.__traceback__, HERE, str(error)) is None


def test_a_none_given_to_a_call_that_allows_it_is_not_blamed():
    weight, bias = torch.ones(2, 3), None

    def merged():
        return None  # a helper that forgot its return

    error = _raised_here(lambda: torch.nn.functional.linear(merged(), weight, bias))
    assert none_read(error.__traceback__, HERE, str(error)) is None


def test_only_the_operand_on_the_side_torch_names_is_suspected():
    x, scale, unused = torch.ones(3), None, None
    error = _raised_here(lambda: (x * scale, unused))
    assert none_read(error.__traceback__, HERE, str(error)) == "`scale` is None on this line"


def test_an_error_raised_outside_the_learners_file_is_said_nothing():
    scale, x = None, torch.ones(3)
    error = _raised_here(lambda: x * scale)
    assert none_read(error.__traceback__, Path(sys.executable).resolve(), str(error)) is None


def test_a_type_error_of_no_none_is_said_nothing():
    x = torch.ones(3)
    error = _raised_here(lambda: x + "a")
    assert none_read(error.__traceback__, HERE, str(error)) is None


def test_an_attribute_that_raises_when_read_again_is_said_nothing():
    class Odd:
        reads = 0

        @property
        def bias(self):
            Odd.reads += 1
            if Odd.reads > 1:
                raise ValueError("no")
            return None

    layer, x = Odd(), torch.ones(3)
    error = _raised_here(lambda: x + layer.bias * 2)
    assert none_read(error.__traceback__, HERE, str(error)) is None and Odd.reads == 2
