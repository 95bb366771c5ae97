"""Mistakes of the kinds the retired set AH held, each written here another way than set AH's file:
one result returned twice (no swap to say), `len` of a batch taken for the number of tokens, a
scatter's result thrown away, a count one too many as one factor of a divisor, a slice's stop
written as a length, a function put for its mirror under a catalogued effect, slices counted from
1, a `*_like` tensor that copied an integer dtype, a finfo field taken for the most negative
number, an index that dropped the axis a running maximum needed, a share written over a slice
where it was to be added, a triangle put for its mirror, and `reduce` with no start; and the
words said of calls (`pdist`, `entr`) and of torch's errors (an argument given under NumPy's
name, an empty tensor written into a slice)."""

from __future__ import annotations

import ast

import pytest
import torch

from attention_by_hand.lab.call_pitfalls import call_pitfalls
from attention_by_hand.lab.dropped_pitfalls import no_effect
from attention_by_hand.lab.judging import hint_for_exception, reversed_of
from labhelpers import failed_hints


def _raised(action) -> str:
    """torch's own message for what `action` does."""
    with pytest.raises((RuntimeError, TypeError)) as caught:
        action()
    return str(caught.value)


def test_a_pair_is_swapped_only_where_neither_half_holds_its_own_value():
    a, b = torch.ones(2), torch.zeros(3)
    swapped = reversed_of(a, b)
    assert swapped(b, a) and swapped(b, torch.full((3,), 7.0))
    assert not swapped(a, a) and not swapped(b, b) and not swapped(a, b)


# the weights returned twice where (out, weights) was meant: the second half is right, nothing is swapped
WEIGHTS_TWICE = '''
def self_attention(x, query, key, value):
    T = x.shape[0]
    scores = query(x) @ key(x).T / key.out_features ** 0.5
    weights = torch.softmax(scores.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf")), dim=-1)
    return weights, weights
'''


def test_one_result_returned_twice_is_not_said_as_swapped(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", WEIGHTS_TWICE, "self_attention")
    assert found and not any("look swapped" in h for h in found)


# the number of tokens as len(x): the batch's size for a (B, T, d_model) input
LENGTH_OF_BATCH = '''
def add_positions(x, table):
    n = len(x)
    return x + table[:n]
'''


def test_len_of_a_batch_taken_for_the_tokens_is_mended_with_the_tokens_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", LENGTH_OF_BATCH, "add_positions")
    assert found and all("FIRST axis only" in h and "`x.shape[-2]` for `len(x)`" in h for h in found)


def test_len_of_a_tensor_is_its_first_axis():
    assert len(torch.zeros(2, 5, 3)) == 2


@pytest.mark.parametrize("call", ["diagonal_scatter(k, 0)", "as_strided_scatter(k, (2,), (1,))",
                                  "index_reduce(0, i, k, 'prod')", "scatter_reduce(0, i, k, 'sum')"])
def test_each_scatter_and_reduction_alone_on_its_line_is_said(call):
    code = f"def f(k, i):\n    out = torch.zeros(3, 4)\n    out.{call}\n    return out\n"
    found = no_effect(ast.parse(code).body[0])
    assert len(found) == 1 and "returns a new tensor" in found[0][1]


def test_a_scatter_called_as_a_statement_is_said_to_throw_its_result_away():
    code = ("def f(cache, k):\n    out = torch.zeros(3, 4)\n    torch.slice_scatter(out, k, dim=0, start=1)\n"
            "    out.select_scatter(k[0], 0, 0)\n    return out\n")
    found = no_effect(ast.parse(code).body[0])
    assert [line for line, _, _ in found] == [3, 4]
    assert all("returns a new tensor and changes nothing" in words for _, words, _ in found)


def test_slice_scatter_leaves_its_tensor_as_it_was():
    out = torch.zeros(3)
    made = out.slice_scatter(torch.ones(1), start=1, end=2)
    assert out.sum() == 0 and made.tolist() == [0.0, 1.0, 0.0]


# the rows 1 .. T-1 summed, divided by T * B: row 0 counted in the number of rows
ROWS_OVERCOUNTED = '''
def first_token_score(pattern):
    B, H, T, _ = pattern.shape
    total = pattern[..., 1:, 0].sum(dim=(0, 2))
    return total / (T * B)
'''


def test_a_count_one_too_many_as_one_factor_of_a_divisor_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", ROWS_OVERCOUNTED, "first_token_score")
    assert found and all("`T - 1` for `T`" in h for h in found)


def test_a_count_one_too_many_among_three_factors_is_mended(tmp_path):
    three = ROWS_OVERCOUNTED.replace("total / (T * B)", "total / (B * T * 1)")
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", three, "first_token_score")
    assert found and all("`T - 1` for `T`" in h for h in found)


# the stop of the position rows written as the number of tokens, read off `size`
STOP_AS_LENGTH = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    rows = position_embedding.weight[start : tokens.size(-1)]
    return token_embedding(tokens) + rows
'''


def test_a_slices_stop_written_as_a_length_is_mended_from_its_start(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", STOP_AS_LENGTH, "embed_at")
    assert found and all("a slice's stop is a position" in h and "`start:start + tokens.size(-1)`" in h for h in found)


def test_a_slice_from_a_start_ends_at_its_stop_not_after_that_many():
    assert torch.arange(10)[3:2].numel() == 0 and torch.arange(10)[3:3 + 2].tolist() == [3, 4]


# the heads stacked one under another (vstack) where side by side was meant
STACKED_UNDER = '''
def merge_heads(t):
    return torch.vstack([head for head in t])
'''


def test_a_function_put_for_its_mirror_is_named_after_the_catalogued_effect(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", STACKED_UNDER, "merge_heads")
    assert found and all("in your code" in h and "`hstack(...)` for `vstack(...)`" in h for h in found)


# the sines from column 1, the cosines from column 2: MATLAB's 1:2:end and 2:2:end
COUNTED_FROM_ONE = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    p = torch.arange(n_positions).float().unsqueeze(1)
    angle = p * torch.pow(base, -torch.arange(0, d_model, 2).float() / d_model)
    table = torch.zeros(n_positions, d_model)
    table[:, 1:d_model:2] = angle.sin()
    table[:, 2:d_model:2] = angle.cos()
    return table
'''


def test_slices_counted_from_one_on_two_lines_are_mended_together(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", COUNTED_FROM_ONE, "sinusoidal_table")
    assert found and all("Python counts from 0" in h and "`table[:, 0:d_model:2]` for `table[:, 1:d_model:2]`" in h
                         and "the same once more" in h for h in found)


def test_a_slice_counted_from_one_is_said_with_its_stop_kept(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", COUNTED_FROM_ONE, "sinusoidal_table")
    assert found and all("one entry earlier is `0:d_model:2`" in h for h in found)


# the pair counts added as ones made like the ids: integers, which a float table refuses
ONES_LIKE_IDS = '''
def bigram_counts(ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size)
    ones = torch.full_like(ids[1:], 1)
    return counts.index_put_((ids[:-1], ids[1:]), ones, accumulate=True)
'''


def test_a_like_tensor_that_copied_an_integer_dtype_is_mended_with_a_float_dtype(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ONES_LIKE_IDS, "bigram_counts")
    assert found and all("copies the dtype of `ids[1:]`" in h and "dtype=torch.float32" in h for h in found)


def test_a_zeros_like_tensor_is_not_said_to_make_ones(tmp_path):
    zeros = ONES_LIKE_IDS.replace("torch.full_like(ids[1:], 1)", "torch.zeros_like(ids[1:]) + 1")
    found = failed_hints(tmp_path, "lab-03-bigram.py", zeros, "bigram_counts")
    assert found and all("makes a float tensor" in h and "float ones" not in h for h in found)


def test_a_like_tensor_copies_the_dtype():
    assert torch.ones_like(torch.arange(3)).dtype == torch.int64


# the future hidden with finfo's eps, small and positive: nothing is hidden
HIDDEN_WITH_EPS = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T, d_model = x.shape
    hs = d_model // n_heads
    q, k, v = (f(x).view(T, n_heads, hs).transpose(0, 1) for f in (query, key, value))
    s = q @ k.transpose(-2, -1) / hs ** 0.5
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    w = torch.softmax(s.masked_fill(future, torch.finfo(s.dtype).eps), dim=-1)
    return proj((w @ v).transpose(0, 1).reshape(T, d_model)), w
'''


def test_a_finfo_field_taken_for_the_most_negative_number_is_mended_with_min(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HIDDEN_WITH_EPS, "multi_head_attention")
    assert found and all("is the gap between 1 and the next number" in h and "`torch.finfo(s.dtype).min` for" in h
                         for h in found)


def test_finfo_tiny_and_eps_are_positive_and_min_is_negative():
    info = torch.finfo(torch.float32)
    assert 0 < info.tiny < info.eps < 1 and info.min < 0


# the running maximum started from an index, which drops the axis the later columns keep
MAX_WITHOUT_ITS_AXIS = '''
def online_softmax(scores):
    m = scores[..., 0]
    l = torch.zeros_like(scores[..., :1])
    for j in range(scores.shape[-1]):
        s = scores[..., j : j + 1]
        m_new = torch.maximum(m, s)
        l = l * torch.exp(m - m_new) + torch.exp(s - m_new)
        m = m_new
    return torch.exp(scores - m) / l
'''


def test_an_index_that_dropped_an_axis_is_mended_with_a_one_wide_slice(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", MAX_WITHOUT_ITS_AXIS, "online_softmax")
    assert found and all("drops its last axis" in h and "`scores[..., 0:1]` for `scores[..., 0]`" in h for h in found)


# the head's writes taken away by an index on axis 1 of a 4-D tensor: the axis named is 1, not the last
HEAD_WITHOUT_ITS_AXIS = '''
def ablate_head(scores, values, head):
    writes = torch.softmax(scores, dim=-1) @ values
    return torch.cat([writes, -writes[:, head]], dim=1).sum(dim=1)
'''


def test_an_index_that_dropped_a_middle_axis_is_said_with_that_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", HEAD_WITHOUT_ITS_AXIS, "ablate_head")
    assert found and all("`writes[:, head]` drops axis 1" in h and "last axis" not in h for h in found)


def test_an_index_drops_its_axis_and_a_one_wide_slice_keeps_it():
    scores = torch.zeros(3, 5)
    assert scores[..., 0].shape == (3,) and scores[..., 0:1].shape == (3, 1)


def test_reduce_without_a_start_over_a_range_is_said_where_the_state_is_unpacked():
    code = ("def f(xs):\n    from functools import reduce\n\n    def step(acc, i):\n        total, count = acc\n"
            "        return total + xs[i], count + 1\n\n    return reduce(step, range(len(xs)))\n")
    found = call_pitfalls(ast.parse(code).body[0])
    assert len(found) == 1 and "has no start" in found[0][1] and "FIRST item of `range(len(xs))`" in found[0][1]


def test_reduce_given_its_start_is_not_said():
    code = ("def f(xs):\n    from functools import reduce\n\n    def step(acc, i):\n        total, count = acc\n"
            "        return total + xs[i], count + 1\n\n    return reduce(step, range(len(xs)), (0, 0))\n")
    assert call_pitfalls(ast.parse(code).body[0]) == []


def test_reduce_without_a_start_passes_the_first_item_as_the_state():
    from functools import reduce

    seen = []
    reduce(lambda state, item: seen.append(state) or item, range(3))
    assert seen == [0, 1]


# the distances of every pair as torch.nn.functional's pdist: the condensed vector
CONDENSED_DISTANCES = '''
def alibi_bias(T, slope):
    where = torch.arange(T, dtype=torch.float32).unsqueeze(-1)
    far = torch.nn.functional.pdist(where)
    return -slope * torch.tril(far)
'''


def test_pdist_is_said_to_return_the_condensed_vector(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", CONDENSED_DISTANCES, "alibi_bias")
    assert found and all("one flat vector of n (n - 1) / 2" in h for h in found)


def test_pdist_returns_one_distance_per_pair():
    assert torch.pdist(torch.zeros(5, 1)).shape == (10,)


# each pair's probability weighted by itself: entr(p) = -p log p
ENTROPY_TERMS = '''
def average_nll(probs, ids):
    picked = probs[ids[:-1], ids[1:]]
    return torch.special.entr(picked).sum() / picked.numel()
'''


def test_entr_is_said_as_one_term_of_an_entropy(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ENTROPY_TERMS, "average_nll")
    assert found and all("-x * log(x), one term of an entropy" in h for h in found)


def test_entr_is_minus_p_log_p():
    p = torch.tensor([0.25, 0.5])
    torch.testing.assert_close(torch.special.entr(p), -p * p.log(), rtol=0, atol=1e-7)


def test_an_argument_under_numpys_name_is_said_as_not_read():
    message = _raised(lambda: torch.zeros(2, 3).permute(axes=(1, 0)))
    words = hint_for_exception("TypeError", message)
    assert "`permute` needs `dims`, by position or under that name, and got it neither way" in words and "`axes=`" in words


def test_a_call_given_no_arguments_is_said_as_getting_none():
    message = _raised(lambda: torch.zeros(2, 3).transpose())
    words = hint_for_exception("TypeError", message)
    assert "`transpose` needs `dim0`, `dim1`, by position or under those names, and got them neither way" in words


def test_a_missing_axis_keeps_its_own_words():
    message = _raised(lambda: torch.softmax(torch.zeros(3)))
    words = hint_for_exception("TypeError", message)
    assert "has no default axis" in words and "got no" not in words


def test_an_empty_tensor_written_into_a_slice_is_said_as_no_deletion():
    def write():
        x = torch.zeros(2, 3, 4)
        x[:, 1] = torch.zeros(0)

    words = hint_for_exception("RuntimeError", _raised(write))
    assert "an assignment never deletes" in words


def test_an_empty_tensor_of_several_axes_written_into_a_slice_is_said_too():
    def write():
        x = torch.zeros(2, 3, 4)
        x[:, 1] = torch.zeros(0, 4)

    words = hint_for_exception("RuntimeError", _raised(write))
    assert "a tensor of no entries" in words


# each query block's share written over the last one with torch.slice_scatter, where it was to be added
SHARE_WRITTEN_OVER = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    T, scale = q.shape[-2], q.shape[-1] ** -0.5
    D = (d_out * out).sum(dim=-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for j in range(0, T, block):
        k_j, v_j = k[..., j : j + block, :], v[..., j : j + block, :]
        for i in range(j if causal else 0, T, block):
            q_i, d_out_i = q[..., i : i + block, :], d_out[..., i : i + block, :]
            s = q_i @ k_j.transpose(-2, -1) * scale
            if causal and i == j:
                later = torch.arange(j, j + s.shape[-1])[None, :] > torch.arange(i, i + s.shape[-2])[:, None]
                s = s.masked_fill(later, float("-inf"))
            p = torch.exp(s - lse[..., i : i + block, None])
            dv[..., j : j + block, :] += p.transpose(-2, -1) @ d_out_i
            ds = p * (d_out_i @ v_j.transpose(-2, -1) - D[..., i : i + block, None])
            dq = torch.slice_scatter(dq, ds @ k_j * scale, dim=-2, start=i, end=i + s.shape[-2])
            dk[..., j : j + block, :] += ds.transpose(-2, -1) @ q_i * scale
    return dq, dk, dv
'''


def test_a_share_written_over_the_slice_is_mended_by_adding_it(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", SHARE_WRITTEN_OVER, "tiled_attention_backward")
    assert found and all("IN PLACE of the slice" in h and "`dq.index_add(-2, torch.arange(i, " in h for h in found)


# the hidden cells made with tril, the lower triangle, where the upper was meant
LOWER_FOR_UPPER = '''
def causal_mask(T):
    return torch.tril(torch.full((T, T), True), diagonal=1)
'''


def test_a_triangle_for_its_mirror_is_said_with_what_each_keeps(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", LOWER_FOR_UPPER, "causal_mask")
    assert found and all("`tril(...)` for `triu(...)`" in h and "tril keeps the LOWER triangle" in h for h in found)


def test_a_slice_scatter_without_its_end_is_not_read_as_an_add():
    # a missing end runs to the tensor's end: that raises unless the source is as long, its own slip
    from attention_by_hand.lab.mend_edits import scatter_parts

    assert scatter_parts(ast.parse("dq.slice_scatter(share, -2, i)", mode="eval").body) is None
    assert scatter_parts(ast.parse("dq.slice_scatter(share, -2, i, i + 4)", mode="eval").body) is not None


def test_an_empty_target_is_not_said_as_an_empty_tensor_filling_one():
    words = hint_for_exception("RuntimeError", _raised(lambda: torch.zeros(0, 2).expand(0, 3)))
    assert "a tensor of no entries" not in words


def test_an_index_after_an_ellipsis_anywhere_drops_the_last_axis():
    from attention_by_hand.lab.habit_mends import habit_words
    from attention_by_hand.lab.mutant_edits import Change

    node = ast.parse("x[:, ..., j]", mode="eval").body
    words = habit_words(node, Change("f", 0, "keep_axis", None, "slice", ""))
    assert "drops its last axis" in words
