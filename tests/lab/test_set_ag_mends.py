"""Mistakes of the kinds the retired set AG held, each written here another way than set AG's file:
a position table's index error matched by a change in a call the learner never makes, a list's
`remove` whose None is kept, an in-place call used for its value with its tensor read after, a
matrix product where entry by entry was meant, a term added to a lookup's result where it belonged
on its input, a diagonal's offset written as a difference the other way round, two indexings in a
row where one index of both was meant (read, and written through a copy), and a bool mask used as
the positions 0 and 1 of a small table; and torch's words for a matrix transpose of a batch
(`torch.t`), a Python number given to `torch.log`, and NumPy's transpose of every axis."""

from __future__ import annotations

import ast

import pytest
import torch

from attention_by_hand.lab.judging import hint_for_exception
from attention_by_hand.lab.made_pitfalls import changed_then_read, none_kept
from labhelpers import failed_hints

# every position read as -1 (a row the table does not have): no `arange` anywhere
NO_POSITIONS = '''
def embed(tokens, token_embedding, position_embedding):
    where = torch.full_like(tokens, -1)
    return token_embedding(tokens) + position_embedding(where)
'''


def test_an_index_error_without_sizes_names_no_change_of_a_call_the_learner_never_makes(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", NO_POSITIONS, "embed")
    assert found and all("IndexError" in h for h in found)
    assert not any("shifted by one" in h or "yours equals the reference" in h for h in found)


# the same error, from the call the change is made in: the positions from -1
FROM_MINUS_ONE = '''
def embed(tokens, token_embedding, position_embedding):
    where = torch.arange(-1, tokens.size(-1) - 1)
    return token_embedding(tokens) + position_embedding(where)
'''


def test_the_same_error_from_the_changed_call_itself_still_names_the_shift(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", FROM_MINUS_ONE, "embed")
    assert found and all("shifted by one" in h for h in found)


# sorted makes a new list, remove changes it and returns None: `others` is None
REMOVED_FROM_A_NEW_LIST = '''
def ablate_head(scores, values, head):
    each = torch.softmax(scores, dim=-1) @ values
    others = sorted(range(scores.size(1))).remove(head)
    return each[:, others].sum(dim=1)
'''


def test_a_new_lists_remove_kept_as_its_value_is_said_as_none_kept(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", REMOVED_FROM_A_NEW_LIST, "ablate_head")
    assert found and all("keeps None in `others`" in h and "returns None" in h for h in found)


def test_an_output_equal_to_an_intermediate_value_allows_steps_that_change_nothing(tmp_path):
    # `each[:, None].sum(dim=1)` is `each`: the steps are there, and leave the value as it was
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", REMOVED_FROM_A_NEW_LIST, "ablate_head")
    assert found and all("intermediate value `writes`" in h for h in found)
    assert all("the steps after it are missing or leave it as it was, or another variable is returned" in h for h in found)


def test_a_new_lists_change_alone_is_not_said():
    code = "def f(h):\n    kept = list(range(4))\n    kept.remove(h)\n    [1, 2].append(3)\n    return kept\n"
    assert none_kept(ast.parse(code).body[0]) == []


def test_list_remove_returns_none_and_changes_the_list():
    heads = list(range(4))
    assert heads.remove(2) is None and heads == [0, 1, 3]


# the centred vector squared in place on its way into the variance, then divided
SQUARED_IN_PLACE = '''
def layer_norm(x, weight, bias, eps=1e-5):
    centred = x - x.mean(-1, keepdim=True)
    var = torch.mean(centred.square_(), dim=-1, keepdim=True)
    return centred / torch.sqrt(var + eps) * weight + bias
'''


def test_an_in_place_call_used_for_its_value_is_said_with_its_twin(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", SQUARED_IN_PLACE, "layer_norm")
    assert found and all("`centred.square_()` changes `centred` itself (`square_` works in place)" in h for h in found)
    assert all("with `centred.square()` for `centred.square_()`" in h for h in found)


# exp_ in place on purpose (its tensor is not read again), and the maximum along the wrong axis
IN_PLACE_ON_PURPOSE = '''
def softmax(scores):
    shifted = scores - scores.max(dim=0, keepdim=True).values
    total = shifted.exp_().sum(dim=-1, keepdim=True)
    return shifted / total
'''


def test_an_in_place_call_that_is_right_is_not_said(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", IN_PLACE_ON_PURPOSE, "softmax")
    assert found and not any("works in place" in h for h in found)


def test_an_in_place_call_whose_result_is_kept_under_one_name_alone_is_no_pitfall():
    code = "def f(x):\n    c = x.clone()\n    total = c.exp_().sum()\n    return c / total\n"
    assert changed_then_read(ast.parse(code).body[0]) == []


def test_square_underscore_changes_its_tensor():
    centred = torch.tensor([1.0, -2.0])
    centred.square_()
    assert torch.equal(centred, torch.tensor([1.0, 4.0]))


# ds = (dp - D) matmul p, where each entry times its own was meant
MATRIX_PRODUCT = '''
def softmax_backward(p, dp):
    D = torch.sum(p * dp, dim=-1, keepdim=True)
    return (dp - D).matmul(p)
'''


def test_a_matrix_product_where_entry_by_entry_was_meant_is_said_as_the_product_of_entries(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", MATRIX_PRODUCT, "softmax_backward")
    assert found and all("`(dp - D).matmul(p)` is a matrix product" in h for h in found)
    assert all("with `(dp - D) * p` for `(dp - D).matmul(p)`" in h for h in found)


# the start added to the rows looked up (F.embedding's function form), not to the positions
START_ON_THE_ROWS = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    where = torch.arange(tokens.size(1))
    return token_embedding(tokens) + (F.embedding(where, position_embedding.weight) + start)
'''


def test_a_term_added_to_a_lookups_result_is_said_as_belonging_on_its_input(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", "import torch.nn.functional as F\n" + START_ON_THE_ROWS, "embed_at")
    assert found and all("`+ start` applied to what `embedding` returns, where it belongs on its input" in h for h in found)
    assert all("`F.embedding(where + start, position_embedding.weight)`" in h for h in found)


# every tile masked by its diagonal offset, written j - i where i - j was meant
OFFSET_THE_OTHER_WAY = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in range(0, T_q, block):
        q_block = q[..., i : i + block, :]
        m = torch.full(q_block.shape[:-1], float("-inf"), dtype=q.dtype)
        l = torch.zeros(q_block.shape[:-1], dtype=q.dtype)
        acc = torch.zeros(*q_block.shape[:-1], v.shape[-1], dtype=q.dtype)
        end = min(i + q_block.shape[-2], T_k) if causal else T_k
        for j in range(0, end, block):
            s = q_block @ k[..., j : j + block, :].transpose(-2, -1) * scale
            if causal:
                keep = torch.ones(s.shape[-2], s.shape[-1]).tril(diagonal=j - i).bool()
                s = s.masked_fill(~keep, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - m_new[..., None])
            rescale = torch.exp(m - m_new)
            l = rescale * l + p.sum(dim=-1)
            acc = rescale[..., None] * acc + p @ v[..., j : j + block, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_a_diagonal_offset_written_as_a_difference_the_other_way_is_said_with_its_sides_exchanged(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", OFFSET_THE_OTHER_WAY, "tiled_attention")
    assert found and all("`j - i` and `i - j` lie on opposite sides of it" in h for h in found)
    assert all("with `i - j` for `j - i`" in h for h in found)


# the pairs' probabilities picked by two named indices in a row
TWO_NAMED_INDICES = '''
def average_nll(probs, ids):
    rows, cols = ids[:-1], ids[1:]
    return -torch.log(probs[rows][cols]).mean()
'''


def test_two_indexings_in_a_row_are_said_as_one_index_of_both(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", TWO_NAMED_INDICES, "average_nll")
    assert found and all("`probs[rows][cols]` indexes twice" in h for h in found)
    assert all("with `probs[rows, cols]` for `probs[rows][cols]`" in h for h in found)


# the ones written through a tensor-indexed copy: the table looked up stays zeros
WRITTEN_THROUGH_A_COPY = '''
def one_hot_lookup(ids, weight):
    rows = torch.arange(ids.numel())
    hot = weight.new_zeros(ids.numel(), weight.shape[0])
    hot[rows][ids] = 1
    return hot @ weight
'''


def test_a_write_through_two_indexings_is_said_as_landing_in_a_copy(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", WRITTEN_THROUGH_A_COPY, "one_hot_lookup")
    assert found and all("a write to `hot[rows][ids]` lands in what `hot[rows]` returned, which is a copy" in h for h in found)
    assert all("with `hot[rows, ids]` for `hot[rows][ids]`" in h for h in found)


def test_indexing_by_a_tensor_copies_and_by_a_slice_gives_a_view():
    table = torch.zeros(3, 3)
    table[torch.arange(3)][0] = 1.0
    assert not table.any()
    table[0:3][0] = 1.0
    assert torch.equal(table[0], torch.ones(3))


# the causal caps looked up with a comparison, read as positions 0 (keep) and 1 (hide)
CAPS_BY_A_COMPARISON = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = q @ k.T / k.shape[1] ** 0.5
    T = x.shape[0]
    caps = torch.tensor([0.0, float("-inf")])[torch.ones(T, T).triu(1) > 0]
    return torch.softmax(scores + caps, dim=-1)
'''


def test_a_bool_mask_read_as_positions_is_said_with_its_long(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", CAPS_BY_A_COMPARISON, "attention_weights")
    assert found and all("a bool tensor SELECTS" in h for h in found)
    assert all("`(torch.ones(T, T).triu(1) > 0).long()`" in h for h in found)


def test_a_bool_index_selects_and_a_float_one_is_refused():
    caps = torch.tensor([0.0, float("-inf")])
    assert torch.equal(caps[torch.tensor([False, True])], torch.tensor([float("-inf")]))
    assert torch.equal(caps[torch.tensor([False, True]).long()], torch.tensor([0.0, float("-inf")]))
    with pytest.raises(IndexError):
        caps[torch.tensor([0.0, 1.0])]


# the gradient of v through torch.t of a batch of weights (the function's form, not the method's)
TRANSPOSE_OF_A_BATCH = '''
def attention_backward(q, k, v, d_out, causal):
    head_size = q.shape[-1]
    s = q @ k.transpose(-2, -1) / math.sqrt(head_size)
    if causal:
        T = q.shape[-2]
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    p = torch.softmax(s, dim=-1)
    dv = torch.t(p) @ d_out
    dp = d_out @ v.transpose(-2, -1)
    ds = softmax_backward(p, dp) / math.sqrt(head_size)
    return ds @ k, ds.transpose(-2, -1) @ q, dv
'''


def test_torchs_t_of_a_batch_is_said_as_the_last_two_axes(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", TRANSPOSE_OF_A_BATCH, "attention_backward")
    assert found and all("`torch.t(p)` is a matrix's transpose and refuses more than two axes" in h for h in found)
    assert all("with `p.transpose(-2, -1)` for `torch.t(p)`" in h for h in found)


def _message(make) -> tuple[str, str]:
    with pytest.raises(Exception) as raised:
        make()
    return type(raised.value).__name__, str(raised.value)


def test_a_python_number_given_to_torchs_log_is_said_with_maths_own():
    said = hint_for_exception(*_message(lambda: torch.log(10)))
    assert "`torch.log` works on tensors, and this is a plain Python int: `math.log(n)` works on a number" in said


def test_a_python_number_given_to_torchs_maximum_names_no_function_math_lacks():
    said = hint_for_exception(*_message(lambda: torch.maximum(float("-inf"), torch.zeros(2))))
    assert "`torch.maximum` works on tensors, and this is a plain Python float: `torch.tensor(n)` makes a tensor of it" in said
    assert "math." not in said


def test_numpys_transpose_of_every_axis_is_said_as_permute():
    said = hint_for_exception(*_message(lambda: torch.transpose(torch.zeros(2, 3, 4), 2, 0, 1)))
    assert "is torch's `permute(1, 0, 2)`" in said


def test_permute_orders_every_axis_as_numpys_transpose_does():
    batch = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(0))
    assert torch.equal(batch.permute(2, 0, 1), torch.from_numpy(batch.numpy().transpose(2, 0, 1)))


def test_a_python_list_given_to_torchs_exp_gets_the_words_of_a_list_not_of_a_number():
    said = hint_for_exception(*_message(lambda: torch.exp([1.0, 2.0])))
    assert "a Python list is no tensor" in said
    assert "Python's `math` module" not in said


def test_an_arange_on_a_line_that_feeds_nothing_raised_does_not_let_the_shift_be_named(tmp_path):
    unrelated = NO_POSITIONS.replace("    where = ", "    width = torch.arange(3).numel()\n    where = ")
    found = failed_hints(tmp_path, "lab-06-transformer.py", unrelated, "embed")
    assert found and not any("shifted by one" in h for h in found)


def test_the_calls_that_made_a_lines_values_are_those_of_the_lines_feeding_it(tmp_path):
    from attention_by_hand.lab.raised_where import called_names

    path = tmp_path / "f.py"
    path.write_text("def f(x):\n    n = x.numel()\n    w = torch.arange(n)\n    spare = torch.ones(3)\n    return table(w)\n",
                    encoding="utf-8")
    assert called_names(str(path), [5]) == {"table", "arange", "numel"}


# a right matrix product, the scale forgotten: no entrywise product is offered
RIGHT_PRODUCT_NO_SCALE = '''
def attention_weights(x, query, key):
    scores = torch.mm(query(x), key(x).T)
    T = x.shape[0]
    return torch.softmax(scores.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf")), dim=-1)
'''


def test_a_right_matrix_product_is_not_said_as_one_meant_entry_by_entry(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", RIGHT_PRODUCT_NO_SCALE, "attention_weights")
    assert found and not any("is a matrix product (MATLAB's `*`)" in h for h in found)


# the distances stay whole numbers, and a float slope is written into them in place
SLOPE_INTO_INTEGERS = '''
def alibi_bias(T, slope):
    gap = torch.arange(T)[None, :] - torch.arange(T)[:, None]
    clipped = gap.clamp(max=0)
    return clipped.mul_(slope)
'''


def test_an_in_place_product_on_whole_numbers_is_said_with_its_dtype(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", SLOPE_INTO_INTEGERS, "alibi_bias")
    assert found and all("its result keeps `clipped`'s dtype (an integer tensor cannot take a float result)" in h for h in found)
    assert all("with `clipped.mul(slope)` for `clipped.mul_(slope)`" in h for h in found)


def test_a_python_number_given_to_a_function_that_wants_a_shape_gets_no_words_of_making_a_tensor():
    said = hint_for_exception(*_message(lambda: torch.diag(3)))
    assert "`torch.tensor(n)` makes a tensor of it" not in said


# a row times a column where the column times the row (an outer product) was meant
INNER_FOR_OUTER = '''
def softmax_backward(p, dp):
    outer = p[..., None, :] @ p[..., :, None]
    jacobian = torch.diag_embed(p) - outer
    return (dp[..., None, :] @ jacobian).squeeze(-2)
'''


def test_operands_the_other_way_round_are_not_said_as_an_entrywise_product(tmp_path):
    # `a * b` broadcasts a row and a column to the outer product too: it says no why where the swap mends
    found = failed_hints(tmp_path, "lab-10-gradients.py", INNER_FOR_OUTER, "softmax_backward")
    assert found and not any("MATLAB's `.*`" in h for h in found)


# half the exponent in the rescale of a tiled softmax, in a long function: its own change comes late
HALF_THE_RESCALE = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in range(0, T_q, block):
        q_block = q[..., i : i + block, :]
        m = torch.full(q_block.shape[:-1], float("-inf"), dtype=q.dtype)
        l = torch.zeros(q_block.shape[:-1], dtype=q.dtype)
        acc = torch.zeros(*q_block.shape[:-1], v.shape[-1], dtype=q.dtype)
        end = min(i + q_block.shape[-2], T_k) if causal else T_k
        for j in range(0, end, block):
            s = q_block @ k[..., j : j + block, :].transpose(-2, -1) * scale
            if causal and j == i:
                rows = torch.arange(i, i + s.shape[-2])[:, None]
                columns = torch.arange(j, j + s.shape[-1])[None, :]
                s = s.masked_fill(columns > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - m_new[..., None])
            rescale = torch.exp((m - m_new) * 0.5)
            l = rescale * l + p.sum(dim=-1)
            acc = rescale[..., None] * acc + p @ v[..., j : j + block, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_a_long_functions_own_change_is_reached_after_the_learner_only_kinds(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", HALF_THE_RESCALE, "tiled_attention")
    assert found and all("with `* 0.5` removed from `rescale = ...`" in h for h in found)
