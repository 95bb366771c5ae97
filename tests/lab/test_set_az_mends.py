"""Mistakes of the kinds the retired set AZ held, each written here another way than set AZ's file:
a one-hot row set in every row's columns, MATLAB's `min(A, 0)` read into torch, a colon doubled
into a step, einsum's implicit output order, D summed from letters that never meet, a key block's
range where the query block's belongs (found through the lines feeding the raise), a tile's rows
numbered from 0, the raw exponentials beside their shifted twin, and a `swapdims` of the wrong axes."""

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
