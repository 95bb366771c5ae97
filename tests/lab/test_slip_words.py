"""error_words.py: torch's words for a common slip, said as the slip. Each error is raised by torch
or Python itself here (not typed), so a change of their wording shows up."""

from __future__ import annotations

import math

import pytest
import torch

from attention_by_hand.lab.error_words import error_words
from labhelpers import failed_hints


def _words(make) -> str:
    """The words for the error that make() raises."""
    with pytest.raises(Exception) as raised:
        make()
    return error_words(str(raised.value))


def test_a_tensor_where_python_needs_one_truth_value_names_pythons_max_and_torchs():
    said = _words(lambda: max(torch.ones(3), torch.zeros(3)))
    assert "Python's `max`" in said and "`torch.maximum(a, b)`" in said


def test_a_softmax_given_no_axis_is_told_to_give_one():
    assert "`dim=-1`" in _words(lambda: torch.softmax(torch.ones(2, 3)))


def test_a_message_the_table_does_not_know_gets_no_words():
    assert error_words("something else went wrong") == ""


def test_a_view_after_a_transpose_is_sent_to_reshape():
    said = _words(lambda: torch.ones(3, 4).T.view(12))
    assert "transpose" in said and "`.reshape(...)`" in said


def test_a_batched_product_of_two_axes_is_told_bmm_takes_three():
    said = _words(lambda: torch.bmm(torch.ones(2, 3), torch.ones(3, 2)))
    assert "three axes" in said and "`@`" in said


def test_a_tensor_given_as_masked_fills_value_is_sent_to_where():
    said = _words(lambda: torch.ones(2, 2).masked_fill(torch.eye(2, dtype=torch.bool), torch.zeros(2, 2)))
    assert "ONE value" in said and "`torch.where(mask, other, x)`" in said


def test_maths_exp_of_a_tensor_is_said_with_torchs():
    said = _words(lambda: math.exp(torch.ones(3)))
    assert "`math.exp`" in said and "`torch.exp`" in said


MATH_ON_A_TENSOR = '''
def softmax(scores):
    import math

    top = scores.amax(dim=-1, keepdim=True)
    e = math.exp(scores - top)
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_maths_exp_of_a_tensor_in_a_learners_file_is_said_with_torchs(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", MATH_ON_A_TENSOR, "softmax")
    raised = [h for h in found if h.startswith("raised")]
    assert raised and all("`math.exp`" in h and "`torch.exp`" in h for h in raised)


def test_index_fill_given_a_tensor_of_values_is_named_as_index_fill():
    said = _words(lambda: torch.ones(2, 2).index_fill(0, torch.tensor([0]), torch.ones(2)))
    assert "`index_fill` puts ONE value" in said and "masked_fill" not in said


def test_a_value_of_one_entry_but_one_axis_is_told_it_needs_no_axes():
    said = _words(lambda: torch.ones(2, 2).masked_fill(torch.eye(2, dtype=torch.bool), torch.tensor([-math.inf])))
    assert "a tensor of no axes" in said


def test_an_axis_missing_from_unsqueeze_is_not_told_about_rows():
    said = _words(lambda: torch.ones(2).unsqueeze())
    assert "`dim=`" in said and "row" not in said
