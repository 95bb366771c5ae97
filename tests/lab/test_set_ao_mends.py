"""Mistakes of the kinds the retired set AO held, each written here another way than set AO's file: a
one-hot table filled with `put`, which indexes the flattened table; a sparse table read through
`coalesce().values()`; a key "transposed" with `conj`; the positions made with `new_tensor(T)`; flat
cells made with `unravel_index`, which goes the other way; a 0/1 mask multiplied by -inf; a piece of a
fused tensor started where another piece starts, not where it stops; a head zeroed by `index_fill` along
another axis than the heads'. And four of the kinds set AN held that its round left: a log taken of a
sum where it belonged on one term, the targets read with the contexts' slice, a histogram whose bins
follow the data, and positions made a column with `[:, None]` where they are wanted 1-D."""

from __future__ import annotations

import ast

from labhelpers import failed_hints

from attention_by_hand.lab.axis_arguments import axis_argument
from attention_by_hand.lab.first_nan import inf_product

# `put` writes every 1 at a flat position: index i is cell i of the flattened (n, V) table, all in row 0
ONE_HOT_BY_PUT = '''
def one_hot_lookup(ids, weight):
    table = torch.zeros(ids.numel(), weight.shape[0], dtype=weight.dtype)
    table = table.put(ids, torch.ones_like(ids, dtype=weight.dtype))
    return table @ weight
'''


def test_ao_put_is_said_to_index_the_flattened_tensor(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ONE_HOT_BY_PUT, "one_hot_lookup")
    assert found and all("`put`, which the reference does not call" in h and "flattened tensor" in h for h in found)


# the sparse table's stored entries returned, one per distinct pair, not the (V, V) table
SPARSE_VALUES_RETURNED = '''
def bigram_counts(ids, vocab_size):
    where = torch.vstack([ids[:-1], ids[1:]])
    table = torch.sparse_coo_tensor(where, torch.ones(where.shape[1]), (vocab_size, vocab_size))
    merged = table.coalesce()
    return merged.values().float()
'''


def test_ao_coalesce_is_said_to_leave_the_table_sparse(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", SPARSE_VALUES_RETURNED, "bigram_counts")
    assert found and all("`coalesce`, which the reference does not call" in h and "`to_dense()`" in h for h in found)


# the conjugate of a real key is the key itself: q @ k, not q @ k^T
KEY_CONJUGATED = '''
def attention_weights(x, query, key):
    q = query(x)
    scores = q.matmul(key(x).conj()) / math.sqrt(q.shape[1])
    hidden = torch.triu(torch.ones(x.shape[0], x.shape[0], dtype=torch.bool), 1)
    return torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=1)
'''


def test_ao_conj_is_said_to_transpose_nothing_beside_a_change_of_the_reference(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", KEY_CONJUGATED, "attention_weights")
    assert found and all("`conj` takes the complex conjugate and transposes nothing" in h for h in found)


# one number copied into a tensor: position T, out of the table's range, not positions 0..T-1
POSITIONS_AS_ONE_NUMBER = '''
def embed(tokens, token_embedding, position_embedding):
    where = torch.zeros(1, dtype=torch.long).new_tensor(tokens.size(-1))
    return token_embedding(tokens) + position_embedding(where)
'''


def test_ao_new_tensor_of_one_number_is_said_to_hold_that_number(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_AS_ONE_NUMBER, "embed")
    assert found and any("`new_tensor`, which the reference does not call" in h and "0-d tensor" in h for h in found)


# coordinates handed to unravel_index as if it made flat indices of them
CELLS_UNRAVELLED = '''
def previous_token_score(pattern):
    n = pattern.size(-1)
    below = torch.arange(n - 1)
    cells = torch.unravel_index(torch.stack([below + 1, below], dim=0), (n, n))[0]
    taken = pattern.reshape(*pattern.shape[:2], n * n)[:, :, cells]
    return taken.mean(dim=-1).mean(dim=0)
'''


def test_ao_unravel_index_is_said_to_go_from_flat_indices_to_coordinates(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", CELLS_UNRAVELLED, "previous_token_score")
    assert found and any("`unravel_index`, which the reference does not call" in h and "`i * n + j`" in h for h in found)


# a bool mask (True = hidden) made float and multiplied by -inf: its zeros become nan
MASK_TIMES_MINUS_INF = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    n = x.shape[0]
    hidden = torch.ones(n, n).triu(diagonal=1)
    scores = q @ k.T / k.shape[-1] ** 0.5 + float("-inf") * hidden
    return scores.softmax(dim=-1)
'''


def test_ao_a_mask_multiplied_by_inf_is_said_to_make_nan_of_its_zeros(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_TIMES_MINUS_INF, "attention_weights")
    assert found and all("0 * inf is nan" in h for h in found)


def test_ao_a_fill_with_inf_or_a_power_of_inf_is_no_product():
    assert [inf_product(c) for c in ("s.masked_fill(m, -math.inf)", "y = x ** -torch.inf", "z = a * b")] == ["", "", ""]


# the keys' piece started at 0, where the queries' piece starts: it takes both, twice as wide
KEYS_CUT_FROM_THE_START = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    b, one, d = x_new.shape
    hs = d // n_heads
    fused = qkv(x_new)
    q = fused[:, :, :d].view(b, one, n_heads, hs).transpose(1, 2)
    k = fused[:, :, 0:2 * d].view(b, one, n_heads, hs).transpose(1, 2)
    v = fused[:, :, 2 * d:].view(b, one, n_heads, hs).transpose(1, 2)
    keys, values = append_to_cache(cache, k, v)
    w = torch.softmax(q @ keys.transpose(-2, -1) / hs ** 0.5, dim=-1)
    return proj((w @ values).transpose(1, 2).reshape(b, one, d)), (keys, values)
'''


def test_ao_a_piece_started_where_another_starts_is_mended_to_start_where_it_stops(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", KEYS_CUT_FROM_THE_START, "decode_step")
    assert found and all("`fused[:, :, d:2 * d]` for `fused[:, :, 0:2 * d]`" in h and "start where the one before stops" in h
                         for h in found)


# the head zeroed along the last axis, the channels, as torch's function: axis 1 holds the heads
HEAD_ZEROED_ALONG_THE_CHANNELS = '''
def ablate_head(scores, values, head):
    written = torch.softmax(scores, dim=-1) @ values
    kept = torch.index_fill(written, -1, torch.tensor([head]), 0.0)
    return kept.sum(dim=1)
'''


def test_ao_the_axis_of_an_indexing_call_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", HEAD_ZEROED_ALONG_THE_CHANNELS, "ablate_head")
    assert found and all("the wrong axis" in h and "`torch.index_fill(written, 1, ...` for `torch.index_fill(written, -1, ...`" in h
                         for h in found)


def test_ao_only_the_first_argument_of_an_indexing_method_is_an_axis():
    call = ast.parse("x.index_fill(1, ids, 0)", mode="eval").body
    assert [axis_argument(call, a) for a in call.args] == [True, False, False]


def test_ao_a_count_given_to_torchs_function_is_no_axis():
    call = ast.parse("torch.chunk(x, 2, -1)", mode="eval").body
    assert [axis_argument(call, a) for a in call.args[1:]] == [False, True]  # asked of the numbers alone


def test_ao_a_queues_put_is_not_described_as_a_tensors():
    from attention_by_hand.lab.call_words import called

    assert "put" not in called(ast.parse("jobs.put(item)"), as_learners=True)
    assert "put_" in called(ast.parse("rows.put_(ids, ones)"), as_learners=True)


def test_ao_a_fill_then_a_product_or_a_comment_is_no_product_by_inf():
    lines = ("w = (q @ k.T).masked_fill(hidden, float('-inf')) * scale", "w = s.masked_fill(h, -math.inf)  # not h * -math.inf")
    assert [inf_product(c) for c in lines] == ["", ""]


def test_ao_a_product_by_an_inf_tensor_or_by_mul_is_one():
    lines = ("s = s + hidden * torch.tensor(-math.inf)", "s = s + hidden.mul(float('-Inf'))")
    assert all(inf_product(c) for c in lines)


# the running maximum added inside the log, as if log(m + s) were m + log(s)
MAXIMUM_INSIDE_THE_LOG = '''
def softmax(scores):
    m = scores.max(-1, keepdim=True).values
    lse = torch.log(m + torch.exp(scores - m).sum(-1, keepdim=True))
    return torch.exp(scores - lse)
'''


def test_ao_a_log_of_a_sum_is_mended_onto_one_term(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", MAXIMUM_INSIDE_THE_LOG, "softmax")
    assert found and all("the log taken of the whole" in h and "with `m + torch.log(" in h for h in found)


# the targets read with the same slice as the contexts: each pair's first, twice
TARGETS_FROM_THE_FIRST_SIDE = '''
def average_nll(probs, ids):
    here, after = ids[:-1], ids[:-1]
    return -probs[here, after].log().mean()
'''


def test_ao_the_other_side_of_each_neighbouring_pair_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", TARGETS_FROM_THE_FIRST_SIDE, "average_nll")
    assert found and all("neighbouring pair's first entry" in h and "`ids[1:]` for the second `ids[:-1]`" in h for h in found)


# a 2-D histogram of the pairs, its bins spread over the ids that occur, not over the vocabulary
PAIRS_BINNED_OVER_THE_IDS_SEEN = '''
def bigram_counts(ids, vocab_size):
    pairs = torch.column_stack((ids[:-1], ids[1:])).to(torch.float32)
    return torch.histogramdd(pairs, bins=[vocab_size, vocab_size]).hist
'''


def test_ao_a_histogram_without_a_range_is_said_to_follow_the_data(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", PAIRS_BINNED_OVER_THE_IDS_SEEN, "bigram_counts")
    assert found and any("`histogramdd`, which the reference does not call" in h and "follow the data" in h for h in found)


# the positions made a column before rope, which takes them 1-D
POSITIONS_AS_A_COLUMN = '''
def rope_attention(q, k, v):
    n = q.size(-2)
    where = torch.arange(n)[..., None]
    qr, kr = rope(q, where), rope(k, where)
    hidden = torch.ones(n, n, dtype=torch.bool).triu(1)
    w = torch.softmax((qr @ kr.transpose(-2, -1) / q.size(-1) ** 0.5).masked_fill(hidden, float("-inf")), dim=-1)
    return w @ v
'''


def test_ao_a_new_axis_on_a_call_is_mended_by_leaving_it_out(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", POSITIONS_AS_A_COLUMN, "rope_attention")
    assert found and all("an axis of size 1 added" in h and "`torch.arange(n)` for `torch.arange(n)[..., None]`" in h for h in found)
