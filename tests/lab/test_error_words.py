"""error_words.py: torch's words for a common slip, said as the slip."""

from __future__ import annotations

from attention_by_hand.lab.error_words import error_words
from labhelpers import failed_hints


def test_a_tensor_where_python_needs_one_truth_value_names_pythons_max_and_torchs():
    said = error_words("Boolean value of Tensor with more than one value is ambiguous")
    assert "Python's `max`" in said and "`torch.maximum(a, b)`" in said


def test_a_softmax_given_no_axis_is_told_to_give_one():
    assert "`dim=-1`" in error_words('softmax() missing 1 required positional arguments: "dim"')


def test_a_message_the_table_does_not_know_gets_no_words():
    assert error_words("something else went wrong") == ""


def test_a_view_after_a_transpose_is_sent_to_reshape():
    said = error_words("view size is not compatible with input tensor's size and stride (at least one dimension spans "
                       "across two contiguous subspaces). Use .reshape(...) instead.")
    assert "transpose" in said and "`.reshape(...)`" in said


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
