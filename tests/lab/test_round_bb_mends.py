"""What the reading of set BK left only observed, each written here another way than its files: a
tensor's method named without its brackets, and what `dot` and `mv` refuse."""

from __future__ import annotations

from labhelpers import failed_hints

LAB02, LAB04 = "lab-02-embeddings-softmax.py", "lab-04-attention.py"

# the mask's size passed as the method `size`, where one length was meant
SIZE_UNCALLED = '''
def attention_weights(x, query, key):
    s = query(x) @ key(x).transpose(-2, -1) / math.sqrt(query.out_features)
    return torch.softmax(s.masked_fill(causal_mask(x.size), -math.inf), dim=-1)
'''


def test_a_size_named_without_its_brackets_is_called_with_its_axis(tmp_path):
    found = failed_hints(tmp_path, LAB04, SIZE_UNCALLED, "attention_weights")
    assert found and all("the brackets left off: `x.size` is the method itself" in h and "`x.size(0)`, the length of its axis 0, calls it" in h
                         for h in found)


# the one-hot rows cast by the method `float` named, not called
FLOAT_UNCALLED = '''
def one_hot_lookup(ids, weight):
    return F.one_hot(ids, weight.shape[0]).float @ weight
'''


def test_a_cast_named_without_its_brackets_is_called(tmp_path):
    found = failed_hints(tmp_path, LAB02, FLOAT_UNCALLED, "one_hot_lookup")
    assert found and all("the brackets left off" in h and "`F.one_hot(ids, weight.shape[0]).float()` for" in h
                         for h in found)


# the scores by torch.dot, which takes two vectors
SCORES_BY_DOT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = torch.dot(q, k.T) / math.sqrt(q.shape[-1])
    return torch.softmax(s.masked_fill(causal_mask(x.shape[0]), -math.inf), dim=-1)
'''


def test_what_dot_refuses_is_said(tmp_path):
    found = failed_hints(tmp_path, LAB04, SCORES_BY_DOT, "attention_weights")
    assert found and all("`dot`, which the reference does not call, is, on torch's tensors, the dot product of two 1-D vectors alone" in h
                         for h in found)
