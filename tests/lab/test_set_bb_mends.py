"""What the reader of set BB found, read after it was reported, each written here another way than set
BB's file: `.values` read off a plain tensor, `take_along_dim` given no axis, a bracket closed one name
too early before a product, a colon left out of an index, a cache's words that named both tensors where
one was wrong, and `fmax`'s words said where its result was never read as a pair."""

from __future__ import annotations

import ast

from labhelpers import failed_hints


# `.values` carried onto a sum, as onto max's pair (or pandas' df.values)
VALUES_OF_A_SUM = '''
def counts_to_probs(counts, smoothing=1.0):
    smoothed = counts + smoothing
    return smoothed / smoothed.sum(dim=1, keepdim=True).values
'''


def test_values_read_off_a_plain_tensor_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", VALUES_OF_A_SUM, "counts_to_probs")
    assert found and all("`smoothed.sum(dim=1, keepdim=True)` for `smoothed.sum(dim=1, keepdim=True).values`" in h
                         and "is a METHOD" in h for h in found)


# take_along_dim without its axis: it reads the rows flat
PICKED_FLAT = '''
def average_nll(probs, ids):
    rows = probs[ids[:-1]]
    p = torch.take_along_dim(rows, ids[1:].unsqueeze(-1))
    return -p.log().mean()
'''


def test_take_along_dim_without_an_axis_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", PICKED_FLAT, "average_nll")
    assert found and all("left out: `take_along_dim` then works on the tensor flattened to one row" in h
                         and "one flat row" in h for h in found)


# the root's bracket closed before eps, which then multiplies the weight
EPS_OUTSIDE_THE_ROOT = '''
def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return (x - mu) / torch.sqrt(var) + eps * weight + bias
'''


def test_a_bracket_closed_before_a_products_first_factor_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", EPS_OUTSIDE_THE_ROOT, "layer_norm")
    assert found and all("`torch.sqrt(var + eps)` for `torch.sqrt(var) + eps`" in h and "closed too early" in h for h in found)


# the rows from 1 on written as row 1 alone: a colon left out
ROW_ONE_ALONE = '''
def first_token_score(pattern):
    return pattern[..., 1, 0].mean(dim=(0, 2))
'''


def test_a_colon_left_out_of_an_index_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", ROW_ONE_ALONE, "first_token_score")
    assert found and all("`pattern[..., 1:, 0]` for `pattern[..., 1, 0]`" in h and "a colon left out" in h for h in found)


# only the values put in front of the cache: the words name the tensor that shows it, not both
VALUES_FIRST = '''
def append_to_cache(cache, k_new, v_new):
    keys, values = cache
    return torch.cat([keys, k_new], dim=2), torch.cat([v_new, values], dim=2)
'''


def test_one_tensor_put_in_front_is_said_of_that_tensor_alone(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", VALUES_FIRST, "append_to_cache")
    assert found and all("values: the new words went in front" in h and "torch.cat([values, v_new], dim=2)" in h
                         and "key and value" not in h for h in found)


def test_fmax_is_said_to_give_no_pair_only_where_its_pair_is_read():
    from attention_by_hand.lab.call_words import called

    assert [called(ast.parse(code), as_learners=True) for code in (
        "m = torch.fmax(m, s)", "m = torch.fmax(m, s).values", "m = s.fmax(m).indices", "m = torch.maximum(a, b)[0]")] == [
        [], ["fmax"], ["fmax"], []]
