"""Mistakes of the kinds the retired set AC held, each written here another way than set AC's file:
a name that shares its tensor with another and is then written into, roll's shift and a diagonal's
offset read the other way, roll without its axis, `numel()` for one axis's length, `.t()` on a
batch, two axes of a permute exchanged, one index where the second axis was meant, a slice one wide
where an index was meant; and the words of a mend whose step is written as a sum."""

from __future__ import annotations

import ast

from attention_by_hand.lab.api_mends import api_mends
from attention_by_hand.lab.mend_edits import mend_edit
from labhelpers import failed_hints

# `before = top` names the running maximum twice; `copy_` then writes the new maximum into both,
# so the rescale is always exp(0): the catalogued "not rescaled" effect, with another cause
ALIAS_WRITTEN_THROUGH = '''
def online_softmax(scores):
    top = torch.full_like(scores[..., 0], -math.inf)
    total = torch.zeros_like(top)
    for j in range(scores.shape[-1]):
        col = scores[..., j]
        before = top
        top.copy_(torch.maximum(top, col))
        total = total * torch.exp(before - top) + torch.exp(col - top)
    return torch.exp(scores - top.unsqueeze(-1)) / total.unsqueeze(-1)
'''


def test_a_name_that_shares_its_tensor_is_said_as_the_cause_after_the_catalogued_effect(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ALIAS_WRITTEN_THROUGH, "online_softmax")
    assert found and all("`before = top` copies nothing" in h and "`top.clone()`" in h for h in found)
    assert all("writing into `top` in place (line" in h and "changes `before` too" in h for h in found)


# the whole table rolled as one long row: without dims, roll shifts the flattened tensor
ROLL_WITHOUT_DIMS = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    rows = torch.roll(position_embedding.weight, -start)
    return token_embedding(tokens) + rows[: tokens.shape[-1]]
'''


def test_roll_without_its_axis_is_named_with_the_axis_it_needed(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", ROLL_WITHOUT_DIMS, "embed_at")
    assert found and all("`dims=0` left out: `roll` then works on the tensor flattened to one row" in h for h in found)


# a positive shift moves row r to r + start: the first rows are then the table's last ones
ROLL_THE_WRONG_WAY = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    rows = torch.roll(position_embedding.weight, shifts=start, dims=0)
    return token_embedding(tokens) + rows[: tokens.shape[-1]]
'''


def test_a_shift_rolled_the_wrong_way_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", ROLL_THE_WRONG_WAY, "embed_at")
    assert found and all("`start` moves them towards the END, `-start` the other way" in h
                         and "`-start` for `start`" in h for h in found)


# diagonal=-1 starts below the main diagonal: the mask hides each token from itself and its
# predecessor too
OFFSET_BELOW = '''
def causal_mask(T):
    return torch.ones(T, T, dtype=torch.bool).triu(-1)
'''


def test_a_diagonal_offset_of_the_wrong_sign_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", OFFSET_BELOW, "causal_mask")
    assert found and all("the diagonal's offset counts from the main diagonal upwards" in h and "`1` for `-1`" in h
                         for h in found)


# numel is V * V: the one-hot rows come out V times too wide, and the product raises
NUMEL_FOR_A_LENGTH = '''
def one_hot_lookup(ids, weight):
    hot = torch.zeros(ids.shape[0], weight.numel())
    hot[torch.arange(ids.shape[0]), ids] = 1.0
    return hot @ weight
'''


def test_numel_for_one_axis_length_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", NUMEL_FOR_A_LENGTH, "one_hot_lookup")
    assert found and all("`weight.numel()` counts every entry of `weight`" in h and "`weight.shape[0]`" in h for h in found)


# .t() is the transpose of a matrix; on a batch of heads it raises
MATRIX_TRANSPOSE_ON_A_BATCH = '''
def rope_attention(q, k, v):
    T = q.shape[-2]
    where = torch.arange(T)
    scores = rope(q, where) @ rope(k, where).t() / q.shape[-1] ** 0.5
    return scores.masked_fill(hidden_future(T), -math.inf).softmax(-1) @ v
'''


def test_a_matrix_transpose_on_a_batch_is_named_as_the_last_two_axes(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", MATRIX_TRANSPOSE_ON_A_BATCH, "rope_attention")
    assert found and any("is a matrix's transpose and refuses more than two axes" in h and "`transpose(-2, -1)`" in h
                         for h in found)
    assert not any("exchanges the FIRST two axes" in h for h in found)


# two transposes of the batch's first axes, and a third of a matrix, where (0, 1) is (-2, -1)
TRANSPOSES_OF_A_BATCH_AND_OF_A_MATRIX = '''
def rope_attention(q, k, v):
    T = q.shape[-2]
    where = torch.arange(T)
    hidden = torch.ones(T, T).triu().transpose(0, 1) == 0
    kt = rope(k, where).transpose(0, 1)
    qt = rope(q, where).transpose(0, 1)
    scores = (kt.transpose(-2, -1) @ qt).transpose(-2, -1) / q.shape[-1] ** 0.5
    return scores.masked_fill(hidden, -math.inf).softmax(-1) @ v
'''


def test_a_repeated_mend_leaves_out_the_place_where_it_changes_nothing(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", TRANSPOSES_OF_A_BATCH_AND_OF_A_MATRIX, "rope_attention")
    assert found and all("and the same once more" in h for h in found)
    assert not any("triu().transpose(-2, -1)" in h for h in found)


# the heads' axes put in the order (head_size, T, heads): permute names, for each place, the axis
# that goes there
AXES_EXCHANGED = '''
def split_heads(t, n_heads):
    T, width = t.shape
    return t.view(T, n_heads, width // n_heads).permute(2, 0, 1)
'''


def test_two_axes_of_a_permute_exchanged_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", AXES_EXCHANGED, "split_heads")
    assert found and all("two axes exchanged in `permute(...)`" in h for h in found)


# `[0]` picks the first row of the gathered column, not the column
FIRST_ROW_FOR_A_COLUMN = '''
def average_nll(probs, ids):
    rows = probs[ids[:-1]]
    picked = rows.gather(1, ids[1:].unsqueeze(1))[0]
    return -picked.log().mean()
'''


def test_one_index_where_the_second_axis_was_meant_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", FIRST_ROW_FOR_A_COLUMN, "average_nll")
    assert found and all("picks along the FIRST axis" in h and "[:, 0]" in h for h in found)


# a column kept as (..., 1): it broadcasts against the (...,) running maximum
ONE_WIDE_SLICE = '''
def online_softmax(scores):
    top = torch.full(scores.shape[:-1], -math.inf)
    total = torch.zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        col = scores[..., j : j + 1]
        higher = torch.maximum(top, col)
        total = total * torch.exp(top - higher) + torch.exp(col - higher)
        top = higher
    return torch.exp(scores - top.unsqueeze(-1)) / total.unsqueeze(-1)
'''


def test_a_slice_one_wide_where_an_index_was_meant_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ONE_WIDE_SLICE, "online_softmax")
    assert found and all("is a slice: it keeps its axis" in h and "`j` for `j:j + 1`" in h for h in found)


# the mean taken after the root: the root of the sum, in the mend's words, keeps its brackets
ROOT_BEFORE_THE_MEAN = '''
def layer_norm(x, weight, bias, eps=1e-5):
    centred = x - x.mean(-1, keepdim=True)
    spread = torch.sqrt(centred ** 2 + eps).mean(-1, keepdim=True)
    return centred / spread * weight + bias
'''


def test_a_step_moved_inside_a_call_of_a_sum_is_quoted_with_its_brackets(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", ROOT_BEFORE_THE_MEAN, "layer_norm")
    assert found and any("`torch.sqrt((centred ** 2 + eps).mean(...))`" in h for h in found)


def _mends(code: str):
    fdef = ast.parse(code).body[0]
    nodes = list(ast.walk(fdef))
    return fdef, nodes, api_mends(fdef, {id(n): i for i, n in enumerate(nodes)})


def test_an_alias_never_written_into_gets_no_copy_mend():
    _, _, found = _mends("def f(a):\n    b = a\n    b = b + 1\n    return a + b\n")
    assert [c.op for c in found if c.op == "alias_copy"] == []


def test_the_exchanged_entries_of_a_function_form_view_keep_the_tensor_first():
    fdef, nodes, found = _mends("def f(x, n):\n    return torch.reshape(x, (2, n, 3))\n")
    swaps = [c for c in found if c.op == "swap_entries"]
    assert len(swaps) == 3
    made = mend_edit(nodes[swaps[0].index], swaps[0])
    assert ast.unparse(made) == "(n, 2, 3)"


# hypot squares both: the root of var + eps ** 2, where var + eps was meant
HYPOT_FOR_THE_ROOT = '''
def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    sd = torch.hypot((x - mu).pow(2).mean(-1, keepdim=True).sqrt(), torch.full_like(mu, eps))
    return (x - mu) / sd * weight + bias
'''


def test_hypot_for_a_root_of_a_sum_is_said_to_square_both(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", HYPOT_FOR_THE_ROOT, "layer_norm")
    assert found and all("it squares BOTH arguments" in h for h in found)


# q and the cache are (B, heads, T, head_size); both read as (B, T, heads, head_size)
EINSUM_LAYOUT_OF_ANOTHER_LIBRARY = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = (t.reshape(B, 1, n_heads, hs).permute(0, 2, 1, 3) for t in qkv(x_new).chunk(3, dim=-1))
    keys, values = append_to_cache(cache, k, v)
    scores = torch.einsum("bthd,bshd->bhts", q, keys) / hs ** 0.5
    mixed = torch.einsum("bhts,bhsd->bthd", scores.softmax(-1), values).reshape(B, 1, C)
    return proj(mixed), (keys, values)
'''


def test_an_einsum_layout_read_as_another_librarys_in_every_operand_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", EINSUM_LAYOUT_OF_ANOTHER_LIBRARY, "decode_step")
    assert found and all("letters 2 and 3 exchanged in each, a layout read as another library keeps it" in h for h in found)


# the cache read heads-second in both einsums: one slip, on two lines
EINSUM_OPERAND_READ_TWICE = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = qkv(x_new).view(B, 1, 3, n_heads, hs).unbind(2)
    keys, values = append_to_cache(cache, k.transpose(1, 2), v.transpose(1, 2))
    weights = (torch.einsum("bqhd,bkhd->bhqk", q, keys) * hs ** -0.5).softmax(-1)
    return proj(torch.einsum("bhqk,bkhd->bqhd", weights, values).flatten(2)), (keys, values)
'''


def test_one_einsum_operand_read_otherwise_on_two_lines_is_named_once_with_both_lines(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", EINSUM_OPERAND_READ_TWICE, "decode_step")
    assert found and all("einsum reads operand 2 as `bkhd` where `bhkd` is meant" in h and "the same once more" in h
                         for h in found)


# cross_entropy given (batch, sequence, classes): it wants the classes on axis 1
CLASSES_LAST_FOR_THE_LOSS = '''
def average_nll(probs, ids):
    logits = probs.log()[ids[:-1]][None]
    return torch.nn.functional.cross_entropy(logits, ids[None, 1:])
'''


def test_a_loss_given_its_classes_last_is_said_to_want_them_on_axis_1(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", CLASSES_LAST_FOR_THE_LOSS, "average_nll")
    assert found and all("want the classes on axis 1" in h for h in found)


# q, k and v lie side by side in each row of the fused output, not one after another
COUNT_PUT_FIRST = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    q, k, v = qkv(x_new).reshape(3, B, 1, n_heads, C // n_heads)
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    keys, values = append_to_cache(cache, k, v)
    attn = (q @ keys.transpose(-2, -1) / math.sqrt(C // n_heads)).softmax(dim=-1)
    return proj((attn @ values).transpose(1, 2).reshape(B, 1, C)), (keys, values)
'''


def test_the_count_of_a_fused_output_put_first_in_a_view_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", COUNT_PUT_FIRST, "decode_step")
    assert found and all("puts the 3 first, as if the 3 parts lay one after another in memory" in h
                         and ".unbind(-3)`" in h for h in found)
