"""foreign_words.py: names and keywords from NumPy, TensorFlow and JAX, said with torch's own, read
off torch's error (raised by torch itself here, not typed), and a learner's file end to end."""

from __future__ import annotations

import pytest
import torch

from attention_by_hand.lab.foreign_words import foreign_words
from labhelpers import failed_hints


def _words(make) -> str:
    """The words for the error that make() raises."""
    with pytest.raises(Exception) as raised:
        make()
    return foreign_words(str(raised.value))


def test_a_tensorflow_reduction_is_said_with_torchs():
    said = _words(lambda: torch.reduce_sum(torch.ones(2)))
    assert "TensorFlow" in said and "`x.sum(dim=..., keepdim=...)`" in said


def test_a_functional_asked_of_torch_nn_is_found_in_torch_nn_functional():
    assert "`F.one_hot(...)`" in _words(lambda: torch.nn.one_hot(torch.tensor([1]), 3))


def test_a_torch_function_asked_of_a_tensor_is_said_as_torchs():
    assert "`torch.cat(...)`" in _words(lambda: torch.ones(2).cat(torch.ones(2)))


def test_a_name_torch_has_nowhere_gets_no_words():
    assert _words(lambda: torch.frobnicate(torch.ones(2))) == ""


def test_an_objects_missing_attribute_outside_torch_is_not_sent_to_torch():
    assert _words(lambda: (3).exp()) == ""


def test_numpys_k_is_said_as_torchs_diagonal():
    assert "`diagonal`" in _words(lambda: torch.triu(torch.ones(2, 2), k=1))


def test_an_unknown_keyword_gets_no_words():
    assert _words(lambda: torch.triu(torch.ones(2, 2), banana=1)) == ""


def test_numpys_size_indexed_is_said_as_a_method():
    assert "`x.size(0)`" in _words(lambda: torch.ones(2).size[0])


NUMPY_ASTYPE = '''
def softmax(scores):
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).astype(torch.float32)
'''


def test_a_numpy_method_in_a_learners_file_is_said_with_torchs(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", NUMPY_ASTYPE, "softmax")
    assert found and all("`astype` is NumPy's `astype`" in h and "`x.to(dtype)`" in h for h in found)


def test_a_none_without_a_lists_method_is_not_told_about_tensors():
    assert _words(lambda: None.append(1)) == ""


def test_a_keyword_given_to_a_function_of_the_learners_own_is_not_said_as_torchs():
    def causal_mask(T):  # the learner's own, called with NumPy's `k`
        return torch.ones(T, T).triu(1)

    assert _words(lambda: causal_mask(3, k=1)) == ""


def test_a_method_indexed_for_called_is_told_round_brackets_call_it():
    said = _words(lambda: torch.ones(2, 3).transpose[0])
    assert "round brackets call it" in said


def test_torchs_missing_append_is_said_as_numpys_and_a_tensors_as_a_lists():
    assert "`np.append`" in _words(lambda: torch.append(torch.ones(2), torch.ones(2)))
    assert "Python list's" in _words(lambda: torch.ones(2).append(1))
