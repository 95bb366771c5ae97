"""Mistakes of the kinds set X held (benchmarks/hints/tuning-x), each written here another way
than set X's file: a slice's colon on the wrong side, a slice one `, :` short, a running total
where the row's was meant, a layer's missing bias, calls whose defaults read otherwise, and an
error that another op's error must not explain."""

from __future__ import annotations

from labhelpers import failed_hints

COUNTS_FROM_THE_FIRST_ALONE = '''
def bigram_counts(ids, vocab_size):
    table = torch.zeros(vocab_size, vocab_size)
    nexts = ids[:1]
    for i, a in enumerate(ids[:-1].tolist()):
        if i < len(nexts):
            table[a, nexts[i]] += 1.0
    return table
'''


def test_a_slice_with_its_colon_on_the_other_side_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", COUNTS_FROM_THE_FIRST_ALONE, "bigram_counts")
    assert found and all("`ids[1:]` for `ids[:1]` (the colon on the other side of `1`)" in h for h in found)


TILES_OF_CHANNELS = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k, hs = q.shape[-2], k.shape[-2], q.shape[-1]
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    lse = torch.zeros(q.shape[:-1], dtype=q.dtype)
    for start in range(0, T_q, block):
        rows = q[..., start:start + block, :]
        best = torch.full(rows.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(rows.shape[:-1], dtype=q.dtype)
        acc = torch.zeros(*rows.shape[:-1], v.shape[-1], dtype=q.dtype)
        for s in range(0, T_k, block):
            keys = k[..., s:s + block]
            vals = v[..., s:s + block, :]
            sc = torch.matmul(rows, keys.mT) / hs ** 0.5
            if causal:
                later = torch.arange(s, s + sc.shape[-1]) > torch.arange(start, start + sc.shape[-2])[:, None]
                sc = sc.masked_fill(later, float("-inf"))
            new = torch.maximum(best, sc.amax(-1))
            fade = torch.exp(best - new)
            p = torch.exp(sc - new[..., None])
            total = fade * total + p.sum(-1)
            acc = fade[..., None] * acc + p @ vals
            best = new
        out[..., start:start + block, :] = acc / total[..., None]
        lse[..., start:start + block] = best + torch.log(total)
    return out, lse
'''


def test_a_key_slice_one_colon_short_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", TILES_OF_CHANNELS, "tiled_attention")
    assert found and all("(one `, :` short: the slice falls on the last axis)" in h for h in found)


LSE_WITH_ITS_AXIS_KEPT = '''
def tiled_attention(q, k, v, block, causal):
    hs = q.shape[-1]
    outs, lses = [], []
    for start in range(0, q.shape[-2], block):
        rows = q[..., start:start + block, :]
        sc = rows @ k.transpose(-2, -1) / hs ** 0.5
        if causal:
            later = torch.arange(k.shape[-2]) > torch.arange(start, start + rows.shape[-2])[:, None]
            sc = sc.masked_fill(later, float("-inf"))
        top = sc.amax(-1, keepdim=True)
        e = torch.exp(sc - top)
        total = e.sum(-1, keepdim=True)
        outs.append((e / total) @ v)
        lses.append(top + torch.log(total))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_an_error_of_cat_is_not_explained_by_stack_raising_in_other_words(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", LSE_WITH_ITS_AXIS_KEPT, "tiled_attention")
    assert found and not any("stack" in h for h in found)


SOFTMAX_OVER_A_RUNNING_SUM = '''
def softmax(scores):
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    out = torch.empty_like(e)
    for j in range(e.shape[-1]):
        out[..., j] = e[..., j] / e[..., : j + 1].sum(dim=-1)
    return out
'''


def test_a_softmax_whose_loop_sums_each_row_up_to_its_entry_is_said_as_a_running_total(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SOFTMAX_OVER_A_RUNNING_SUM, "softmax")
    assert found and all("equals the reference's on the first j + 1 entries alone" in h for h in found)


SOFTMAX_OF_HALF_THE_SCORES = '''
def softmax(scores):
    e = torch.exp(scores / 2 - (scores / 2).amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_a_wrong_softmax_that_sums_its_whole_row_is_no_running_total(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SOFTMAX_OF_HALF_THE_SCORES, "softmax")
    assert found and not any("running total" in h for h in found)


PROJECTION_BY_HAND = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    scores = torch.einsum("hqd,hkd->hqk", q, k) / q.shape[-1] ** 0.5
    scores = torch.where(torch.ones(T, T).tril().bool(), scores, float("-inf"))
    weights = scores.softmax(dim=-1)
    joined = merge_heads(weights @ v)
    return joined @ proj.weight.T + proj.bias, weights
'''


def test_a_layer_made_without_a_bias_is_said_to_have_none_when_its_bias_is_added(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", PROJECTION_BY_HAND, "multi_head_attention")
    assert found and all("`proj.bias` is None: `proj` was made without a bias (`bias=False`)" in h for h in found)


PRODUCT_BY_TENSORDOT = '''
def self_attention(x, query, key, value):
    w = attention_weights(x, query, key)
    return torch.tensordot(w, value(x)), w
'''


def test_tensordot_is_said_to_contract_two_axes_unless_given_dims(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", PRODUCT_BY_TENSORDOT, "self_attention")
    assert found and all("contracts, unless given `dims`, the last TWO axes of the first tensor" in h for h in found)


ABLATION_BY_A_PLAIN_INDEX = '''
def ablate_head(scores, values, head):
    per_head = torch.einsum("bhqk,bhkd->bhqd", scores.softmax(-1), values)
    return torch.index_fill(per_head, 1, head, 0.0).sum(1)
'''


def test_an_int_for_a_tensor_index_names_the_argument_and_cuts_torchs_list_of_forms(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", ABLATION_BY_A_PLAIN_INDEX, "ablate_head")
    assert found and all("index_fill() takes `index`, argument 3, as a Tensor, not an int" in h
                         and "expected one of: ..." in h and "didn't match" not in h for h in found)


ROPE_WITH_ONE_HALF_TWICE = '''
def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    speeds = 1.0 / base ** (torch.arange(0, d, 2).float() / d)
    turn = torch.outer(positions.float(), speeds)
    lo, hi = x[..., : d // 2], x[..., : d // 2]
    c, s = turn.cos(), turn.sin()
    return torch.cat((lo * c - hi * s, hi * c + lo * s), dim=-1)
'''


def test_a_colon_on_the_other_side_in_one_part_of_several_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", ROPE_WITH_ONE_HALF_TWICE, "rope")
    assert found and all("(the colon on the other side of `half`)" in h for h in found)
