"""Mistakes of the kinds the retired set AS held, each written here another way than set AS's file:
a number where torch takes a tensor, a matrix product's factor left untransposed, `...` read as
'up to this axis', a running product for a running total, `xlog1py` for `xlogy`, a 1-D vector of
ones for a column, a sign taken for whether a value is 0, `searchsorted` for a count, NumPy's
`ravel_multi_index`, an axis named by a string, Keras' pooling padding, and heaviside given two dtypes."""

from __future__ import annotations

import ast

import torch
from labhelpers import failed_hints

from attention_by_hand.lab.layout_mends import layout_mends
from attention_by_hand.lab.number_mends import _entrywise, number_mends
from attention_by_hand.lab.operand_mends import operand_mends


def _index(fdef: ast.FunctionDef) -> dict[int, int]:
    return {id(n): i for i, n in enumerate(ast.walk(fdef))}


def _said(mends, source: str) -> list[str]:
    fdef = ast.parse(source).body[0]
    return [c.said for c in mends(fdef, _index(fdef))]


# NumPy's heaviside takes its value at zero as a number; torch's wants a tensor, and raises. relu
# in heaviside's place also gives the mask here (`.bool()` of relu(d) is d > 0), by evading the type.
MASK_NUMBER_AT_ZERO = '''
def causal_mask(T):
    d = torch.arange(T).unsqueeze(0) - torch.arange(T).unsqueeze(1)
    return torch.heaviside(d.to(torch.float32), 0.0) > 0
'''


def test_a_number_given_where_torch_takes_a_tensor_is_named_with_its_tensor(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_NUMBER_AT_ZERO, "causal_mask")
    assert found and all("`torch.tensor(0.0)` for `0.0`" in h and "`0.0` is a plain Python number" in h for h in found)


def test_a_function_swapped_only_to_evade_the_numbers_type_is_not_said(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_NUMBER_AT_ZERO, "causal_mask")
    assert found and not any("relu" in h for h in found)


# the scale as an entrywise function of torch given the head size, a Python int
SCALE_OF_AN_INT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = (q @ k.T) * torch.reciprocal(torch.sqrt(k.shape[-1]))
    s = s.masked_fill(causal_mask(x.shape[0]), float("-inf"))
    return torch.softmax(s, dim=-1)
'''


def test_an_int_handed_to_an_entrywise_function_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SCALE_OF_AN_INT, "attention_weights")
    assert found and all("torch.tensor(" in h and "takes a tensor there" in h for h in found)


def test_only_entrywise_functions_a_tensor_also_has_are_called_to_find_out():
    assert _entrywise("torch.rsqrt") and _entrywise("torch.special.expit")
    assert not _entrywise("torch.sum")  # keeps no shape
    assert not _entrywise("torch.manual_seed")  # no tensor method: never called


def test_finding_out_whether_a_function_is_entrywise_draws_no_random_number():
    _entrywise.cache_clear()
    state = torch.get_rng_state()
    _entrywise("torch.bernoulli")  # called on ones: it draws from the generator, forked
    assert torch.get_rng_state().equal(state)


def test_numbers_of_a_call_that_makes_a_tensor_from_numbers_are_not_tried():
    source = "def f(x, T):\n    return torch.full((T, T), 0.0) + torch.arange(0, T) + torch.clamp(x, 0.5)\n"
    assert _said(number_mends, source) == ["`torch.tensor(0.5)` for `0.5`"]


def test_the_axis_of_max_and_min_is_not_made_a_tensor():
    source = "def f(x):\n    return torch.max(x, 0).values + torch.min(x, 1, True).values\n"
    assert _said(number_mends, source) == ["`torch.tensor(True)` for `True`"] or _said(number_mends, source) == []


# `torch.min(d, 0)` reduces along axis 0 where the entrywise minimum with 0 was meant; made
# `torch.tensor(0)`, it would compare entry by entry and mend, but no number was refused
CAP_BY_REDUCTION = '''
def causal_mask(T):
    d = torch.arange(T)[None, :] - torch.arange(T)[:, None]
    return torch.max(d, 0) > 0
'''


def test_a_number_mend_is_kept_only_where_torch_refused_a_number(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", CAP_BY_REDUCTION, "causal_mask")
    assert found and not any("torch.tensor(0)" in h or "plain Python number" in h for h in found)


# addmm's second matrix taken as transposed, as F.linear takes its weight
SCORES_UNTRANSPOSED = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = torch.matmul(q, k) / math.sqrt(k.shape[-1])
    s = s.masked_fill(causal_mask(x.shape[0]), float("-inf"))
    return torch.softmax(s, dim=-1)
'''


def test_a_factor_left_untransposed_in_a_matrix_product_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SCORES_UNTRANSPOSED, "attention_weights")
    assert found and all("`k.transpose(-2, -1)` for `k`" in h and "as it is" in h for h in found)


def test_a_factor_that_is_a_transpose_already_is_not_transposed_again():
    source = "def f(a, b, c):\n    return torch.matmul(a, b.T) + torch.addmm(c, a.t(), b) + a @ b\n"
    transposed = [said for said in _said(layout_mends, source) if ".transpose(-2, -1)` for" in said]
    assert sorted(transposed) == ["`a.transpose(-2, -1)` for `a`", "`b.transpose(-2, -1)` for `b`"]


def test_the_factors_of_a_method_and_of_a_namespaced_function_are_found():
    source = "def f(a, b, c):\n    return a.matmul(b) + c.addmm(a, b) + torch.linalg.matmul(c, a)\n"
    said = sorted(s for s in _said(layout_mends, source) if "transpose(-2, -1)" in s)  # q.matmul(k): k; b.addmm(q, k): q and k
    assert said == ["`a.transpose(-2, -1)` for `a`"] * 2 + ["`b.transpose(-2, -1)` for `b`"] * 2 + ["`c.transpose(-2, -1)` for `c`"]


# the old values written with `...` taken to mean 'every axis up to time'
VALUES_AFTER_ELLIPSIS = '''
def append_to_cache(cache, k_new, v_new):
    keys, values = cache
    T, n = keys.shape[2], k_new.shape[2]
    out_v = values.new_zeros(values.shape[0], values.shape[1], T + n, values.shape[3])
    out_v[..., :T] = values
    out_v[..., T:, :] = v_new
    return torch.cat([keys, k_new], dim=2), out_v
'''


def test_a_cut_after_an_ellipsis_that_belonged_on_an_earlier_axis_is_named():
    source = "def f(x, T):\n    x[..., :T] = 0\n    return x[..., None] + x[..., 0] + x[..., :T, :]\n"
    fdef = ast.parse(source).body[0]
    said = [c.said for c in layout_mends(fdef, _index(fdef)) if c.op == "ellipsis_as_axes"]  # not after `None`, `0`, `:`
    assert said == ["`x[:, :T]` for `x[..., :T]`", "`x[:, :, :T]` for `x[..., :T]`", "`x[:, :, :, :T]` for `x[..., :T]`"]


def test_an_ellipsis_written_into_by_its_cut_on_the_last_axis_is_named_in_a_hint(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", VALUES_AFTER_ELLIPSIS, "append_to_cache")
    assert found and all("`...` in `[..., :T]` stands for every axis before the cuts after it" in h for h in found)


# a running product of ones for the positions: every position is 0
POSITIONS_BY_PRODUCT = '''
def embed(tokens, token_embedding, position_embedding):
    places = torch.cumprod(torch.ones(tokens.shape[-1], dtype=torch.long), 0) - 1
    return token_embedding(tokens) + position_embedding(places)
'''


def test_a_running_product_for_a_running_total_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_BY_PRODUCT, "embed")
    assert found and all("with `cumsum(...)` for `cumprod(...)`" in h and "cumsum ADDS" in h for h in found)


# the causal bias as xlog1py(hidden, 0): log(1 + 0) is 0, so no future is hidden
BIAS_BY_XLOG1PY = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    hidden = causal_mask(x.shape[0]).double()
    s = q @ k.T / k.shape[-1] ** 0.5 + torch.special.xlog1py(hidden, torch.zeros((), dtype=torch.float64)).float()
    return s.softmax(-1)
'''


def test_xlog1py_for_xlogy_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", BIAS_BY_XLOG1PY, "attention_weights")
    assert found and all("with `xlogy(...)` for `xlog1py(...)`" in h for h in found)


# the row sums as a product with a 1-D vector of ones: the axis is dropped
ROW_SUMS_BY_VECTOR = '''
def softmax(scores):
    e = (scores - scores.amax(-1, keepdim=True)).exp()
    return e / torch.matmul(e, torch.ones(e.shape[-1]))
'''


def test_a_product_with_a_vector_of_ones_for_row_sums_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ROW_SUMS_BY_VECTOR, "softmax")
    assert found and all("`torch.ones(e.shape[-1], 1)` for `torch.ones(e.shape[-1])`" in h for h in found)


def test_a_vector_given_as_a_tuple_of_sizes_or_on_the_left_is_not_made_a_column():
    source = "def f(e, n):\n    return torch.ones(n) @ e + e @ torch.ones((n,)) + e @ torch.zeros(n)\n"
    assert _said(operand_mends, source) == ["`torch.zeros(n, 1)` for `torch.zeros(n)`"]


# one-hot rows as 1 - sign of the distance to each column, the abs left out
ONE_HOT_BY_SIGN = '''
def one_hot_lookup(ids, weight):
    cols = torch.arange(weight.shape[0])
    return (1 - torch.sign(cols - ids[:, None])).to(weight.dtype) @ weight
'''


def test_a_sign_taken_for_whether_a_value_is_zero_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ONE_HOT_BY_SIGN, "one_hot_lookup")
    assert found and all("with `torch.sign(...).abs()` for `torch.sign(...)`" in h for h in found)


# each cell's count as the place of the next cell in the sorted codes: a running count
COUNTS_BY_SEARCH = '''
def bigram_counts(ids, vocab_size):
    codes = torch.sort(ids[1:] + ids[:-1] * vocab_size).values
    edges = torch.arange(1, vocab_size * vocab_size + 1)
    return torch.searchsorted(codes, edges).float().reshape(vocab_size, vocab_size)
'''


def test_searchsorted_is_said_to_give_a_running_count(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", COUNTS_BY_SEARCH, "bigram_counts")
    assert found and all("`searchsorted`, which the reference does not call" in h and "a running count" in h for h in found)


# NumPy's flat index of (row, column) pairs, asked of torch
COUNTS_BY_RAVEL = '''
def bigram_counts(ids, vocab_size):
    flat = torch.ravel_multi_index(torch.stack([ids[:-1], ids[1:]]), (vocab_size, vocab_size))
    return torch.bincount(flat, minlength=vocab_size ** 2).float().view(vocab_size, vocab_size)
'''


def test_numpys_ravel_multi_index_is_said_with_the_flat_index_written_out(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", COUNTS_BY_RAVEL, "bigram_counts")
    assert found and all("NumPy's `np.ravel_multi_index`" in h and "`i * n + j`" in h for h in found)


def test_an_axis_named_by_a_string_is_said_to_be_numbered_in_torch():
    from attention_by_hand.lab.error_words import error_words

    x = torch.ones(2, 3)
    messages = []
    for call in (lambda: x.mean(axis="columns"), lambda: torch.softmax(x, dim="rows"), lambda: x.amax(dim="rows")):
        try:
            call()
        except TypeError as error:
            messages.append(str(error))
    assert len(messages) == 3 and all("torch numbers its axes" in error_words(m) for m in messages)
    assert error_words("sum(): argument 'keepdim' (position 2) must be bool, not str") == ""  # a flag, not an axis


def test_a_pooling_padding_given_as_kerass_string_is_said_to_be_a_number():
    from attention_by_hand.lab.error_words import error_words

    try:
        torch.nn.functional.avg_pool1d(torch.ones(1, 1, 4), 2, 1, "same")
    except TypeError as error:
        message = str(error)
    assert "`'valid'` is `padding=0`" in error_words(message)


# heaviside's value at zero made float32 while the inputs are float64 in one check
GRADIENT_MASK_OF_ANOTHER_DTYPE = '''
def causal_mask(T):
    ahead = torch.arange(T)[None, :] - torch.arange(T)[:, None]
    return torch.heaviside(ahead.double(), torch.zeros((), dtype=torch.float32)).bool()
'''


def test_two_dtypes_given_to_heaviside_are_said_to_differ(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", GRADIENT_MASK_OF_ANOTHER_DTYPE, "causal_mask")
    assert found and all("takes its tensors in ONE dtype" in h for h in found)


def test_numpys_sign_is_quoted_as_written():
    from attention_by_hand.lab.reading_mends import reading_mends

    source = "def f(d):\n    return 1 - np.sign(d) + d.sign()\n"
    assert sorted(s for s in _said(reading_mends, source) if "abs" in s) == ["`.sign().abs()` for `.sign()`",
                                                                             "`np.sign(...).abs()` for `np.sign(...)`"]


# the one-hot rows hold a half where the id's column should hold 1
HALF_HOT = '''
def one_hot_lookup(ids, weight):
    hot = torch.where(ids[:, None] == torch.arange(weight.shape[0]), 0.5, 0.0)
    return hot @ weight
'''


def test_a_half_where_a_whole_was_meant_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", HALF_HOT, "one_hot_lookup")
    assert found and all("`1.0` for `0.5`" in h for h in found)
