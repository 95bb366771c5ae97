"""An output that is one of the function's own inputs as it was given (input_relations.py)."""

from __future__ import annotations

import torch

from attention_by_hand.lab.input_relations import returned_unchanged
from attention_by_hand.lab.judging import close


def _agree(a, b) -> bool:
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and close(a, b)


X, Y = torch.arange(6.0).reshape(2, 3), torch.ones(2, 3)


def test_an_input_returned_as_it_came_is_named():
    said = returned_unchanged(["x", "y"], [(X, Y)], [X.clone()], [X + Y], _agree)
    assert said == "yours returns its input unchanged (`x`, as it was given): nothing it computes reaches what it returns"


def test_inputs_where_the_output_is_right_do_not_count():
    z = torch.zeros(2, 3)
    said = returned_unchanged(["x", "y"], [(z, z), (X, Y)], [z, X], [z, X + Y], _agree)
    assert said is not None and "`x`" in said


def test_another_input_returned_on_another_call_is_no_one_input():
    said = returned_unchanged(["x", "y"], [(X, Y), (X, Y * 2)], [X, Y * 2], [X + Y, X + 2 * Y], _agree)
    assert said is None


def test_an_output_that_equals_two_inputs_names_neither():
    assert returned_unchanged(["x", "y"], [(X, X.clone())], [X], [X * 2], _agree) is None


def test_an_output_that_is_no_input_is_not_said():
    assert returned_unchanged(["x", "y"], [(X, Y)], [X * 3], [X + Y], _agree) is None
