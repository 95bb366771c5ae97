"""foreign_words.py: names and keywords from NumPy, TensorFlow and JAX, said with torch's own, read
off torch's error (and a learner's file end to end)."""

from __future__ import annotations

from attention_by_hand.lab.foreign_words import foreign_words
from labhelpers import failed_hints


def test_a_tensorflow_reduction_is_said_with_torchs():
    said = foreign_words("module 'torch' has no attribute 'reduce_sum'")
    assert "TensorFlow" in said and "`x.sum(dim=..., keepdim=...)`" in said


def test_a_functional_asked_of_torch_nn_is_found_in_torch_nn_functional():
    assert "`F.softmax(...)`" in foreign_words("module 'torch.nn' has no attribute 'softmax'")


def test_a_torch_function_asked_of_a_tensor_is_said_as_torchs():
    assert "`torch.cat(...)`" in foreign_words("'Tensor' object has no attribute 'cat'")


def test_a_name_torch_has_nowhere_gets_no_words():
    assert foreign_words("module 'torch' has no attribute 'frobnicate'") == ""


def test_an_objects_missing_attribute_outside_torch_is_not_sent_to_torch():
    assert foreign_words("'int' object has no attribute 'exp'") == ""


def test_numpys_k_is_said_as_torchs_diagonal():
    assert "`diagonal`" in foreign_words("triu() got an unexpected keyword argument 'k'")


def test_an_unknown_keyword_gets_no_words():
    assert foreign_words("triu() got an unexpected keyword argument 'banana'") == ""


def test_numpys_size_indexed_is_said_as_a_method():
    assert "`x.size(0)`" in foreign_words("'builtin_function_or_method' object is not subscriptable")


NUMPY_ASTYPE = '''
def softmax(scores):
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).astype(torch.float32)
'''


def test_a_numpy_method_in_a_learners_file_is_said_with_torchs(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", NUMPY_ASTYPE, "softmax")
    assert found and all("`astype` is NumPy's `astype`" in h and "`x.to(dtype)`" in h for h in found)
