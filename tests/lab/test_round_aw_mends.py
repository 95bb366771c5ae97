"""What the reading of set BF left unnamed or said beside a rival, each written here another way than
its files: `!=` where an order was meant; a size typed where `-1` belongs in a reshape; a shape spread
into `arange`; an einsum of one operand whose output letters were left as its input's; an einsum's
output letters beside a transpose before `reshape` that mends it too (but not blamed where two
variables exchanged mend as well); a size worked out wrongly upstream, not said as a `-1` in the view;
a loop's range ending one block early beside its condition taken as never true; and a tile's mask
named by hand where other checks raised, with the mend of the learner's own line said on each."""

from __future__ import annotations

from labhelpers import failed_hints

# `!=` compares both ways: the past hidden as well as the future
UNEQUAL_MASK = '''
def causal_mask(T):
    later = torch.arange(T).view(1, -1)
    now = torch.arange(T).view(-1, 1)
    return later.ne(now)
'''


def test_inequality_where_an_order_was_meant_is_mended_to_the_order(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", UNEQUAL_MASK, "causal_mask")
    assert found and all("inequality where an order was meant" in h and "`later.gt(now)` for `later.ne(now)`" in h
                         for h in found)


# the number of heads typed where each head's size belongs
HEADS_FOR_HEAD_SIZE = '''
def split_heads(t, n_heads):
    T, d = t.shape
    return t.view((T, n_heads, n_heads)).permute(1, 0, 2)
'''


def test_a_size_typed_for_another_in_a_view_is_mended_to_minus_one(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_FOR_HEAD_SIZE, "split_heads")
    assert found and all("a size typed for another: `n_heads`, written 2 times in the sizes, is not the size of axis 2" in h
                         and "`t.view((T, n_heads, -1))` for `t.view((T, n_heads, n_heads))`" in h for h in found)


# the head's size typed where the merged width (every head side by side) belongs
HEAD_SIZE_FOR_WIDTH = '''
def merge_heads(t):
    h, T, hs = t.shape
    return t.transpose(0, 1).contiguous().view(T, hs)
'''


def test_a_size_typed_for_another_of_two_is_mended_too(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEAD_SIZE_FOR_WIDTH, "merge_heads")
    assert found and all("a size typed for another: `hs` is not the size of axis 1" in h for h in found)


# the batch's shape spread into arange: arange(B, T), the numbers B .. T - 1
SPREAD_SHAPE = '''
def embed(tokens, token_embedding, position_embedding):
    where = torch.arange(*tokens.size())
    return token_embedding(tokens) + position_embedding(where)
'''


def test_a_shape_spread_into_arange_is_mended_to_its_last_size(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", SPREAD_SHAPE, "embed")
    assert found and all("a shape spread into `arange`" in h
                         and "`torch.arange(tokens.size(-1))` for `torch.arange(*tokens.size())`" in h for h in found)


# one operand, its output letters left as written for the input: nothing moves
UNMOVED = '''
def merge_heads(t):
    return torch.einsum("htd->htd", t).reshape(t.shape[1], -1)
'''


def test_an_einsum_of_one_operand_is_mended_in_its_output_letters(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", UNMOVED, "merge_heads")
    assert found and all("einsum's output letters in another order" in h and '`"htd->thd"` for `"htd->htd"`' in h
                         for h in found)


# the head's channels put last before the heads are merged: `reshape` interleaves them
CHANNELS_LAST = '''
def merge_heads(t):
    return torch.einsum("htd->tdh", t).reshape(t.shape[1], -1)
'''


def test_an_einsums_output_letters_are_said_without_the_transpose_before_reshape_as_a_rival(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", CHANNELS_LAST, "merge_heads")
    assert found and all('`"htd->thd"` for `"htd->tdh"`' in h and "no transpose before `reshape`" not in h for h in found)


# the right letters, with the queries made by the key layer and the keys by the query layer: the
# scores come out transposed as if the letters were, and the outputs cannot tell the two slips apart
LAYERS_EXCHANGED = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q = split_heads(key(x), n_heads)
    k = split_heads(query(x), n_heads)
    v = split_heads(value(x), n_heads)
    scores = torch.einsum("hqc,hkc->hqk", q, k) / math.sqrt(q.shape[-1])
    later = torch.ones(T, T, dtype=torch.bool).triu(1)
    weights = scores.masked_fill(later, float("-inf")).softmax(-1)
    return proj(merge_heads(weights @ v)), weights
'''


def test_right_einsum_letters_are_not_blamed_where_two_variables_exchanged_mend_as_well(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", LAYERS_EXCHANGED, "multi_head_attention")
    assert found and not any("einsum's output letters" in h for h in found)


# the head's size worked out from the wrong count two lines up: the variable, not the view, is the slip
SIZE_FROM_T = '''
def split_heads(t, n_heads):
    T, d = t.shape
    hs = d // T
    return t.view(T, n_heads, hs).transpose(0, 1)
'''


def test_a_size_worked_out_wrongly_upstream_is_named_there_and_not_as_minus_one(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", SIZE_FROM_T, "split_heads")
    assert found and all("`d // n_heads` for `d // T`" in h and "a size typed for another" not in h for h in found)


# a tiled forward; `stop` is where a query block's walk over the key blocks ends, `rows` its positions
# (a key block left empty past the end adds nothing: its maximum is taken beside the running one)
TILES = '''
def tiled_attention(q, k, v, block, causal):
    n = q.shape[-2]
    outs, lses = [], []
    for a in range(0, n, block):
        b = min(a + block, n)
        qa = q[..., a:b, :]
        m = qa.new_full((*qa.shape[:-1], 1), -math.inf)
        l = torch.zeros_like(m)
        acc = qa.new_zeros(*qa.shape[:-1], v.shape[-1])
        for c in range(0, {stop}, block):
            e = min(c + block, k.shape[-2])
            s = qa @ k[..., c:e, :].transpose(-2, -1) * q.shape[-1] ** -0.5
            if causal:
                rows = torch.arange(a, b){rows}
                s = s.masked_fill(torch.arange(c, e) > rows, -math.inf)
            m_new = torch.cat((m, s), -1).amax(-1, keepdim=True)
            p = torch.exp(s - m_new)
            l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
            acc = acc * torch.exp(m - m_new) + p @ v[..., c:e, :]
            m = m_new
        outs.append(acc / l)
        lses.append((m + l.log()).squeeze(-1))
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_the_tiles_written_the_right_way_pass(tmp_path):
    right = TILES.format(stop="b if causal else k.shape[-2]", rows=".unsqueeze(-1)")
    assert failed_hints(tmp_path, "lab-09-flash-attention.py", right, "tiled_attention") == []


def test_a_range_ending_one_block_early_is_said_without_its_condition_as_a_rival(tmp_path):
    early = TILES.format(stop="a if causal else k.shape[-2]", rows=".unsqueeze(-1)")
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", early, "tiled_attention")
    assert any("off by one" in h and "`(a if causal else k.shape[-2]) + 1`" in h for h in found)
    assert not any("taken as never true" in h for h in found)


def test_a_row_of_positions_named_by_hand_is_mended_on_the_checks_that_raised_too(tmp_path):
    row = TILES.format(stop="b if causal else k.shape[-2]", rows=".unsqueeze(0)")
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", row, "tiled_attention")
    raised = [h for h in found if h.startswith("raised ")]
    assert raised and len(raised) < len(found)
    assert all("`... b).unsqueeze(-1)` for `... b).unsqueeze(0)`" in h for h in found)
