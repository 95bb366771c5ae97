"""Mistakes of the kinds the retired set Y held, each written here another way than set Y's file:
outputs matched by their nan or their zeros alone, a nan typed as a fill, a size taken from the
wrong tensor, and calls misread on the line that raised or returned, or inside the loop where the
values part."""

from __future__ import annotations

from labhelpers import failed_hints

SUMS_SWAPPED_IN_WHERE = '''
def online_softmax(scores):
    top = torch.full_like(scores[..., 0], -math.inf)
    total = torch.zeros_like(top)
    for s in scores.unbind(-1):
        higher = s > top
        # the two branches the wrong way round: a new maximum does not rescale the sum
        total = torch.where(higher, total + torch.exp(s - top), total * torch.exp(top - s) + 1)
        top = torch.maximum(top, s)
    return torch.exp(scores - top[..., None]) / total[..., None]
'''


def test_outputs_matched_by_their_zeros_alone_give_way_to_the_mend_of_the_learners_line(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", SUMS_SWAPPED_IN_WHERE, "online_softmax")
    assert found and all("two arguments swapped" in h and "yours equals the reference with" not in h for h in found)


NAN_FILL = '''
def attention_weights(x, query, key):
    s = query(x) @ key(x).mT / key.out_features ** 0.5
    s[causal_mask(len(x))] = math.nan
    return s.softmax(-1)
'''


def test_a_nan_typed_as_the_fill_is_said_where_it_is_typed_and_no_sign_slip_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", NAN_FILL, "attention_weights")
    assert found and all("typed there by hand" in h and "yours equals the reference with" not in h for h in found)


INDEX_PAIRS_AS_MASK = '''
def causal_mask(T):
    return torch.triu_indices(T, T, offset=1)
'''


def test_a_call_on_the_returning_line_is_described_when_no_span_is_found(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", INDEX_PAIRS_AS_MASK, "causal_mask")
    assert found and all("`triu_indices`, which the reference does not call, returns the row and the column numbers" in h
                         for h in found)


ROW_DOTS_AS_ALL_PAIRS = '''
def softmax_backward(p, dp):
    weighted = torch.inner(dp, p)
    return p * dp - p * weighted
'''


def test_a_call_on_a_line_feeding_the_raising_line_is_described(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", ROW_DOTS_AS_ALL_PAIRS, "softmax_backward")
    raised = [h for h in found if h.startswith("raised")]
    assert raised and all("`inner`, which the reference does not call" in h for h in raised)


COUNTS_ROW_REPLACED = '''
def bigram_counts(ids, vocab_size):
    table = torch.zeros(vocab_size, vocab_size)
    for a, b in zip(ids[:-1].tolist(), ids[1:].tolist()):
        row = F.one_hot(torch.tensor([b]), vocab_size).float()
        table.index_copy_(0, torch.tensor([a]), row)
    return table
'''


def test_a_call_inside_the_loop_where_the_values_part_is_described(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", COUNTS_ROW_REPLACED, "bigram_counts")
    assert found and all("`index_copy_`, which the reference does not call" in h for h in found)


KEY_LENGTH_FROM_THE_QUERIES = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], min(k.shape[-2], 8)  # capped, as if a tile held every key
    outs, lses = [], []
    for i in range(0, T_q, block):
        qi = q[..., i:i + block, :] / q.shape[-1] ** 0.5
        m = torch.full(qi.shape[:-1], -math.inf)
        l = torch.zeros(qi.shape[:-1])
        acc = torch.zeros(*qi.shape[:-1], v.shape[-1])
        for j in range(0, T_k, block):
            s = qi @ k[..., j:j + block, :].mT
            if causal:
                s = s.masked_fill(torch.arange(j, j + s.shape[-1]) > torch.arange(i, i + s.shape[-2])[:, None], -math.inf)
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


def test_a_size_taken_from_the_wrong_tensor_is_said_beside_the_reference_s(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", KEY_LENGTH_FROM_THE_QUERIES, "tiled_attention")
    assert found and any("`T_k` is 8 in yours" in h for h in found)
