"""Mistakes of the kinds the retired set AP held, each written here another way than set AP's file: a
ratio written with `//`, which floors it; the places where two things are equal read off a difference
with `.bool()`; two steps nested in the other order; an index that starts with `:` where `...` was
meant; `topk` taken for a tensor; `permute` given two axes of a 3-D tensor; and a mend's note that
describes a call the mend keeps."""

from __future__ import annotations

from labhelpers import failed_hints

from attention_by_hand.lab.call_words import kept_calls

# the exponents 2i / d written with `//`: every one below d floors to 0, so every pair turns at speed 1
EXPONENTS_FLOORED = '''
def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    half = d // 2
    theta = 1.0 / base ** (torch.arange(half) * 2 // d)
    angles = positions.float()[:, None] * theta
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * angles.cos() - x2 * angles.sin(), x1 * angles.sin() + x2 * angles.cos()], dim=-1)
'''


def test_ap_a_ratio_floored_by_a_double_slash_is_mended_to_a_division(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", EXPONENTS_FLOORED, "rope")
    assert found and all("`//` is floor division" in h and "rounds" in h and "`torch.arange(half) * 2 / d`" in h for h in found)


# a one-hot row read off the difference of each id and every column number: `.bool()` is True where they differ
ONE_HOT_WHERE_THEY_DIFFER = '''
def one_hot_lookup(ids, weight):
    hot = (ids[:, None] - torch.arange(weight.shape[0])[None, :]).bool().to(weight.dtype)
    return hot @ weight
'''


def test_ap_the_bool_of_a_difference_is_mended_to_its_logical_not(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ONE_HOT_WHERE_THEY_DIFFER, "one_hot_lookup")
    assert found and all("`.bool()` is True wherever the value is not 0" in h and ".logical_not()` for `" in h for h in found)


# the heads projected before they are merged: the projection takes d_model columns, a head has head_size
PROJECTED_BEFORE_THE_MERGE = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    q, k, v = (split_heads(f(x), n_heads) for f in (query, key, value))
    n = x.shape[0]
    s = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
    w = torch.softmax(s.masked_fill(torch.ones(n, n).triu(1).bool(), float("-inf")), dim=-1)
    heads = w @ v
    out = merge_heads(proj(heads))
    return out, w
'''


def test_ap_two_steps_nested_in_the_other_order_are_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", PROJECTED_BEFORE_THE_MERGE, "multi_head_attention")
    assert found and all("two steps in the other order" in h and "`proj(merge_heads(heads))` for `merge_heads(proj(heads))`" in h
                         for h in found)


# the norm after the attention in a pre-norm block: a change of the reference says it, the mend adds nothing
NORM_AFTER_THE_BRANCH = '''
def block_forward(x, ln1, attn, ln2, mlp):
    h = x + ln1(attn(x))
    return h + mlp(ln2(h))
'''


def test_ap_steps_in_the_other_order_are_said_once_where_a_change_of_the_reference_says_them(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", NORM_AFTER_THE_BRANCH, "block_forward")
    assert found and all("the two layers applied in the other order" in h and "two steps in the other order" not in h for h in found)


# the rows from 1 and the columns but the last, cut with `:` first: the cuts fall on the heads and the rows
DIAGONAL_CUT_FROM_THE_FRONT = '''
def previous_token_score(pattern):
    below = torch.diagonal(pattern[:, 1:, :-1], dim1=-2, dim2=-1)
    return below.mean(dim=-1).mean(dim=0)
'''


def test_ap_an_index_that_starts_with_a_colon_is_mended_to_an_ellipsis(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", DIAGONAL_CUT_FROM_THE_FRONT, "previous_token_score")
    assert found and all("`...`, which stands for every axis before them" in h and "`pattern[..., 1:, :-1]`" in h for h in found)


# topk's (values, indices) pair subtracted as if it were the row maxima
TOPK_PAIR_SUBTRACTED = '''
def softmax(scores):
    top = torch.topk(scores, k=1, dim=-1)
    e = torch.exp(scores - top)
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_ap_topk_is_said_to_return_a_pair(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", TOPK_PAIR_SUBTRACTED, "softmax")
    assert found and all("`topk` returns a PAIR, (values, indices)" in h and "`torch.topk(scores, k=1, dim=-1).values`" in h
                         for h in found)


# the heads' and the tokens' axes swapped with permute given two of three axes: it raises
MERGED_WITH_TWO_AXES = '''
def merge_heads(t):
    n_heads, T, hs = t.shape
    return t.permute(1, 0).reshape(T, n_heads * hs)
'''


def test_ap_permute_given_fewer_axes_is_said_to_take_every_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", MERGED_WITH_TWO_AXES, "merge_heads")
    assert found and all("`permute`, which the reference does not call, takes, for each place of the result, the axis" in h for h in found)


def test_ap_a_mend_keeps_the_calls_it_leaves_as_they_were():
    assert kept_calls("`(a.view(-1, 1) - r).logical_not()` for `(a.view(-1, 1) - r).bool()`") == {"view"}
    assert kept_calls("`(ids.view(-1, 1) - torch.aran ... ]).logical_not()` for `(ids.view(-1, 1) - torch.aran ... ).bool()`") == {"view"}


def test_ap_a_call_whose_arguments_a_mend_changes_is_not_kept():
    assert kept_calls("`pattern.flatten(-2, -1)` for `pattern.flatten(1)`") == set()
    assert kept_calls("the line `x = y` left out") == set()
