"""Mistakes of the kinds the retired set AZ held, each written here another way than set AZ's file:
a one-hot row set in every row's columns, MATLAB's `min(A, 0)` read into torch, a colon doubled
into a step, einsum's implicit output order, D summed from letters that never meet, a key block's
range where the query block's belongs (found through the lines feeding the raise), a tile's rows
numbered from 0, the raw exponentials beside their shifted twin, and a `swapdims` of the wrong axes; and
what set BA's audit found, read after it was reported: a max-shift added, a NaN filled in as a missing value,
a count of axes taken for a length, positions that met the batch size said by what met, two arguments
exchanged said after a transposed output, a one-hot target where the class numbers belong, a branch given an
earlier branch's output alone, and positions counted from 1."""

from __future__ import annotations

import ast

from attention_by_hand.lab.shifted_mends import shifted_mends
from labhelpers import failed_hints


def _changes(mends, source: str, op: str) -> list:
    fdef = ast.parse(source).body[0]
    return [c for c in mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == op]


# every row given a 1 in each id's column, where row i's column ids[i] was meant
ONES_IN_EVERY_ROW = '''
def one_hot_lookup(ids, weight):
    rows = torch.zeros(len(ids), weight.shape[0])
    rows[:, ids] = 1
    return rows @ weight
'''


def test_columns_set_in_every_row_are_mended_one_per_row(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ONES_IN_EVERY_ROW, "one_hot_lookup")
    assert found and all("`rows[torch.arange(len(ids)), ids]` for `rows[:, ids]`" in h and "in EVERY row" in h for h in found)


# MATLAB's min(A, 0), the entrywise bound, written as torch.min: torch reads the 0 as an axis
BOUND_AS_MATLAB_WRITES_IT = '''
def alibi_bias(T, slope):
    pos = torch.arange(T).float()
    return slope * torch.min(pos[None, :] - pos[:, None], 0)
'''


def test_a_matlab_min_with_a_number_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", BOUND_AS_MATLAB_WRITES_IT, "alibi_bias")
    assert found and all("`torch.clamp(pos[None, :] - pos[:, None], max=0)` for" in h and "as an AXIS" in h for h in found)


# the positions' rows cut with a doubled colon: every n-th row from start
ROWS_EVERY_NTH = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    n = tokens.shape[1]
    return token_embedding(tokens) + position_embedding.weight[start::n]
'''


def test_a_doubled_colon_is_mended_into_a_stop(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", ROWS_EVERY_NTH, "embed_at")
    assert found and all("`position_embedding.weight[start:start + n]` for `position_embedding.weight[start::n]`" in h
                         and "a colon doubled" in h for h in found)


# einsum with no arrow, read as "keep the order": it spells the output alphabetically
HEADS_MERGED_BY_IMPLICIT_EINSUM = '''
def merge_heads(t):
    return torch.einsum("ntd", t).reshape(t.shape[1], -1)
'''


def test_an_implicit_einsum_output_is_said_to_be_alphabetical(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_MERGED_BY_IMPLICIT_EINSUM, "merge_heads")
    assert found and all("ALPHABETICAL" in h and '`"ntd->tnd"` for `"ntd"`' in h for h in found)


# D's two operands given letters of their own: each is summed apart, rowsum(p) * rowsum(dp)
D_SUMMED_APART = '''
def softmax_backward(p, dp):
    D = torch.einsum("...a,...b->...", p, dp)[..., None]
    return p * (dp - D)
'''


def test_the_einsum_mend_is_said_after_the_effect_of_d(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", D_SUMMED_APART, "softmax_backward")
    assert found and all("D without the weights p" in h and "in your code, einsum's operand" in h for h in found)


# the key block's log-sum-exp where each query row's own belongs, in a backward that raises on a short last tile
LSE_OF_THE_KEY_BLOCK = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    T = q.shape[-2]
    c = q.shape[-1] ** -0.5
    D = (d_out * out).sum(-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for a in range(0, T, block):
        b = min(a + block, T)
        for x in range(0, T, block):
            y = min(x + block, T)
            s = q[..., x:y, :] @ k[..., a:b, :].mT * c
            if causal:
                s = s.masked_fill(torch.arange(a, b)[None, :] > torch.arange(x, y)[:, None], float("-inf"))
            p = torch.exp(s - lse[..., a:b].unsqueeze(-1))
            dv[..., a:b, :] += p.mT @ d_out[..., x:y, :]
            ds = p * (d_out[..., x:y, :] @ v[..., a:b, :].mT - D[..., x:y].unsqueeze(-1))
            dq[..., x:y, :] += ds @ k[..., a:b, :] * c
            dk[..., a:b, :] += ds.mT @ q[..., x:y, :] * c
    return dq, dk, dv
'''


def test_one_range_for_another_is_found_where_no_span_was(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", LSE_OF_THE_KEY_BLOCK, "tiled_attention_backward")
    assert found and all("`lse[..., x:y]` for `lse[..., a:b]`" in h for h in found)


# the diagonal's mask compares the keys' places with the tile's own row numbers, from 0
ROWS_FROM_ZERO = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k, hs = q.shape[-2], k.shape[-2], q.shape[-1]
    outs, lses = [], []
    for i in range(0, T_q, block):
        qb = q[..., i:i + block, :]
        bq = qb.shape[-2]
        m = torch.full(qb.shape[:-1], float("-inf"))
        l = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        for j in range(0, T_k, block):
            if causal and j > i + bq - 1:
                break
            s = qb @ k[..., j:j + block, :].transpose(-2, -1) / math.sqrt(hs)
            if causal:
                keys = torch.arange(j, j + s.shape[-1])
                s = s.masked_fill(keys[None, :] > torch.arange(bq)[:, None], float("-inf"))
            m_new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - m_new[..., None])
            r = torch.exp(m - m_new)
            l = r * l + p.sum(-1)
            acc = r[..., None] * acc + p @ v[..., j:j + block, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_a_tiles_rows_numbered_from_zero_are_started_at_the_tile(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ROWS_FROM_ZERO, "tiled_attention")
    assert found and all("`torch.arange(i, i + bq)` for `torch.arange(bq)`" in h for h in found)


# the running sum given the raw exponentials, beside their shifted twin `e`
RAW_EXP_IN_THE_SUM = '''
def online_softmax(scores):
    m = torch.full(scores.shape[:-1], float("-inf"))
    l = torch.zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        s = scores[..., j]
        m_new = torch.maximum(m, s)
        e = torch.exp(s - m_new)
        l = l * torch.exp(m - m_new) + torch.exp(s)
        m = m_new
    return torch.exp(scores - m[..., None]) / l[..., None]
'''


def test_raw_exponentials_beside_their_shifted_twin_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", RAW_EXP_IN_THE_SUM, "online_softmax")
    assert found and all("`e` for `torch.exp(s)`" in h and "unshifted" in h for h in found)


def test_only_an_exp_whose_shifted_twin_came_before_it_is_mended():
    source = ("def f(s, m):\n    a = s.exp()\n    p = (s - m).exp()\n    b = torch.exp(s) + s.exp()\n"
              "    c = torch.exp(m)\n    return a, b, c\n")
    assert [c.arg for c in _changes(shifted_mends, source, "shifted_twin")] == ["p", "p"]


# the heads put first with the wrong pair of axes swapped
HEADS_SWAPPED_WITH_THE_SIZE = '''
def split_heads(t, n_heads):
    T = t.shape[0]
    return t.view(T, n_heads, -1).swapdims(1, 2)
'''


def test_the_wrong_axes_of_swapdims_are_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_SWAPPED_WITH_THE_SIZE, "split_heads")
    assert found and all("swapdims(1, 0)` for `" in h and "the wrong axis" in h for h in found)


def test_einsum_is_said_alphabetical_only_where_that_moved_the_letters():
    from attention_by_hand.lab.einsum_words import subscripts_words

    # written d then i, which is the alphabetical order too: what is wrong is the order meant
    assert "ALPHABETICAL" not in subscripts_words("jd,ij", "jd,ij->id")
    assert "ALPHABETICAL" not in subscripts_words("ij,ij", "ij,ij->i")
    assert "ALPHABETICAL" in subscripts_words("ntd", "ntd->tnd")


def test_a_named_tuple_is_called_a_values_indices_pair_only_where_it_is_one():
    import torch

    from attention_by_hand.lab.wire import decode, encode

    pair, other = torch.min(torch.ones(2, 2), 0), torch.aminmax(torch.ones(2, 2))
    assert decode(encode(pair)).name == "(values, indices) pair, torch.return_types.min"
    assert decode(encode(other)).name == "tuple, torch.return_types.aminmax"


# a max-shift added where it is subtracted: softmax's values kept, its overflow not
SHIFT_ADDED = '''
def softmax(scores):
    top = scores.amax(-1, keepdim=True)
    e = torch.add(scores, top).exp()
    return e / e.sum(-1, keepdim=True)
'''


def test_a_shift_added_is_mended_and_not_called_no_shift(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SHIFT_ADDED, "softmax")
    assert found and all("`sub(...)` for `add(...)`" in h and "no max-shift" not in h for h in found)


# the removed head's outputs filled with NaN, as pandas' sums would skip them
HEAD_FILLED_WITH_NAN = '''
def ablate_head(scores, values, head):
    outs = torch.softmax(scores, dim=-1) @ values
    outs[:, head] = torch.nan
    return outs.sum(dim=1)
'''


def test_a_nan_filled_in_as_missing_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", HEAD_FILLED_WITH_NAN, "ablate_head")
    assert found and all("`0.0` for `torch.nan`" in h and "pandas" in h and "set to -inf" not in h for h in found)


# the count of the tokens' axes taken for their length, as R's dim(x) gives the sizes
LENGTH_AS_AXES_COUNT = '''
def embed(tokens, token_embedding, position_embedding):
    positions = torch.arange(tokens.dim())
    return token_embedding(tokens) + position_embedding(positions)
'''


def test_a_count_of_axes_taken_for_a_length_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", LENGTH_AS_AXES_COUNT, "embed")
    assert found and all("`tokens.shape[-1]` for `tokens.dim()`" in h and "counts the tensor's AXES" in h for h in found)


# the batch size taken for the positions' count: what met is said, not guessed at
POSITIONS_BY_THE_BATCH = '''
def embed(tokens, token_embedding, position_embedding):
    return token_embedding(tokens) + position_embedding(torch.arange(len(tokens)))
'''


def test_positions_meeting_the_batch_size_are_said_by_what_met(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_BY_THE_BATCH, "embed")
    assert any("(T) met one of 2, as many as the batch size" in h for h in found)


# F.linear given the blend's two factors the wrong way round: the output comes out transposed
BLEND_ARGUMENTS_EXCHANGED = '''
def self_attention(x, query, key, value):
    w = attention_weights(x, query, key)
    return F.linear(value(x).mT, w), w
'''


def test_two_arguments_exchanged_are_said_after_a_transposed_output(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", BLEND_ARGUMENTS_EXCHANGED, "self_attention")
    assert found and all("axes in another order" in h and "`F.linear(w, value(x).mT)` for `F.linear(value(x).mT, w)`" in h
                         for h in found)


# a one-hot target where the loss takes the class numbers
ONE_HOT_TARGET = '''
def average_nll(probs, ids):
    return F.nll_loss(probs.log()[ids[:-1]], F.one_hot(ids[1:]))
'''


def test_a_one_hot_target_is_mended_to_the_class_numbers(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ONE_HOT_TARGET, "average_nll")
    assert found and all("`ids[1:]` for `F.one_hot(ids[1:])`" in h for h in found)


# the MLP's branch given the attention branch's output alone, where the stream after it belongs
MLP_READS_THE_BRANCH = '''
def block_forward(x, ln1, attn, ln2, mlp):
    branch = attn(ln1(x))
    out = x + branch + mlp(ln2(branch))
    return out
'''


def test_a_branch_given_the_earlier_branch_alone_is_mended_to_the_stream(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", MLP_READS_THE_BRANCH, "block_forward")
    assert found and all("`mlp(ln2(x + branch))` for `mlp(ln2(branch))`" in h and "running sum" in h for h in found)


def test_only_a_later_terms_name_is_made_the_stream():
    from attention_by_hand.lab.residual_mends import residual_mends

    source = "def f(x, g, h):\n    a = g(x)\n    return x + a + h(a) + h(x)\n"
    assert [c.arg for c in _changes(residual_mends, source, "stream_read")] == ["h(x + a)"]


def test_only_a_range_from_one_to_a_number_plus_one_is_read_as_rs():
    from attention_by_hand.lab.reading_mends import reading_mends

    source = ("def f(T, n):\n    a = [i for i in range(1, T + 1)]\n    b = torch.arange(1, n + 1)\n"
              "    c = range(1, T)\n    d = range(0, T + 1)\n    return a, b, c, d\n")
    assert [c.arg for c in _changes(reading_mends, source, "one_based_range")] == ["range(T)", "torch.arange(n)"]
