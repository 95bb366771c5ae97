"""What the reader of set BC found and the last round left, each written here another way than set BC's
file: a mask of whole numbers (or of floats) used as an index, where only a bool one picks cells; and a
comparison of two position vectors whose SECOND side lacks the axis of size 1 (keys against queries),
said also after the catalogued "the diagonal block is not masked" (and, where both sides count positions,
with the same table turned round). And a reference's change in a call the learner wrote as the reference
did (`dim=-1` in softmax), which gives way to the learner's own mend, and the whole position table added,
which now fails."""

from __future__ import annotations

from labhelpers import failed_hints


# the future cells marked with a mask of int64 ones, bound to a name first: it indexes rows 0 and 1
INT_MASK_BY_NAME = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    T = x.shape[0]
    future = torch.triu(torch.full((T, T), 1), 1)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    s[:, future] = float("-inf")
    w = s.softmax(-1)
    return proj(merge_heads(w @ v)), w
'''


def test_a_mask_of_whole_numbers_bound_to_a_name_is_mended_where_it_is_made(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", INT_MASK_BY_NAME, "multi_head_attention")
    made = "torch.triu(torch.full((T, T), 1), 1)"
    assert found and all(f"`{made}.bool()` for `{made}`" in h and "(line 77)" in h and "fills int64" in h for h in found)


# the mask written inside the index, of float ones: an index takes whole numbers or bools only
FLOAT_MASK_IN_INDEX = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    q, k, v = split_heads(query(x), n_heads), split_heads(key(x), n_heads), split_heads(value(x), n_heads)
    n = x.size(0)
    s = torch.einsum("hid,hjd->hij", q, k) * q.size(-1) ** -0.5
    s[..., torch.ones(n, n).triu(1)] = -math.inf
    w = torch.softmax(s, dim=-1)
    return proj(merge_heads(torch.einsum("hij,hjd->hid", w, v))), w
'''


def test_a_mask_of_floats_in_an_index_is_said_as_floats(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", FLOAT_MASK_IN_INDEX, "multi_head_attention")
    assert found and all("`torch.ones(n, n).triu(1).bool()` for `torch.ones(n, n).triu(1)`" in h
                         and "holds floats (`ones` fills floats)" in h for h in found)


# keys against queries, both 1-D: the queries need the axis of size 1 to run down the rows
KEYS_AGAINST_FLAT_QUERIES = '''
def causal_mask(T):
    later = torch.arange(T)
    now = torch.arange(T)
    return later > now
'''


def test_a_comparison_whose_second_side_lacks_its_axis_is_mended_there(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", KEYS_AGAINST_FLAT_QUERIES, "causal_mask")
    assert found and all("`later > now.unsqueeze(-1)` for `later > now`" in h and "`now.unsqueeze(-1)` gives it an axis" in h
                         for h in found)


# both sides count positions: one table either way round, so the words give the learner's roles too
TWO_COUNTS_BY_CALL = '''
def causal_mask(T):
    return torch.gt(torch.arange(T), torch.arange(T))
'''


def test_two_position_counts_compared_are_said_either_way_round(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", TWO_COUNTS_BY_CALL, "causal_mask")
    assert found and all("the same table is `torch.arange(T).unsqueeze(-1) < torch.arange(T)`" in h for h in found)


# ids against every row number: the ids go down the rows, and they count no positions
NUMBERS_AGAINST_FLAT_IDS = '''
def one_hot_lookup(ids, weight):
    picks = torch.arange(weight.shape[0]) == ids
    return picks.to(weight.dtype) @ weight
'''


def test_a_second_side_that_counts_no_positions_is_mended_without_the_turned_table(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", NUMBERS_AGAINST_FLAT_IDS, "one_hot_lookup")
    assert found and all("`ids.unsqueeze(-1)` gives it an axis" in h and "the same table" not in h for h in found)


# a tiled loop whose diagonal block compares the key positions with the query positions entry by entry
TILED_FLAT_COMPARISON = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    outs, lses = [], []
    for start in range(0, n_q, block):
        qb = q[..., start:start + block, :] / math.sqrt(q.shape[-1])
        best = torch.full(qb.shape[:-1], -math.inf)
        total = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        for first in range(0, min(start + qb.shape[-2], n_k) if causal else n_k, block):
            s = qb @ k[..., first:first + block, :].mT
            if causal and first == start:
                ahead = torch.arange(first, first + s.shape[-1]).gt(torch.arange(start, start + s.shape[-2]))
                s = s.masked_fill(ahead, -math.inf)
            new = torch.maximum(best, s.amax(-1))
            p = (s - new.unsqueeze(-1)).exp()
            shrink = (best - new).exp()
            total = shrink * total + p.sum(-1)
            acc = shrink.unsqueeze(-1) * acc + p @ v[..., first:first + block, :]
            best = new
        outs.append(acc / total.unsqueeze(-1))
        lses.append(best + total.log())
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_a_flat_comparison_in_the_diagonal_block_is_mended_after_the_catalogued_effect(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", TILED_FLAT_COMPARISON, "tiled_attention")
    named = [h for h in found if "the diagonal block is not masked" in h]
    assert named and all("torch.arange(start, start + s.shape[-2]).unsqueeze(-1)" in h and "compared entry by entry" in h
                         for h in named)


# rows picked by float ids: the error's note says which conversion fits which index
ROWS_BY_FLOAT_IDS = '''
def one_hot_lookup(ids, weight):
    return weight[ids.to(torch.float32)]
'''


def test_the_note_on_a_float_index_tells_positions_from_masks(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ROWS_BY_FLOAT_IDS, "one_hot_lookup")
    assert found and all(".long() for positions, .bool() for a mask of 0s and 1s" in h for h in found)


# the whole position table added: right only where the text is exactly as long as the table
WHOLE_POSITION_TABLE = '''
def embed(tokens, token_embedding, position_embedding):
    table = position_embedding.weight
    return token_embedding(tokens) + table
'''


def test_the_whole_position_table_added_fails_where_the_table_is_longer_than_the_text(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", WHOLE_POSITION_TABLE, "embed")
    assert found and all("as many as the position table has rows" in h for h in found)


# the new word's key alone scored, not the cache's: one weight of 1, spread over every cached value,
# which the reference's softmax taken over its axis of size 1 gives too; the learner's softmax is right
NEW_KEY_ALONE = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = (t.reshape(B, 1, n_heads, hs).permute(0, 2, 1, 3) for t in qkv(x_new).chunk(3, dim=-1))
    keys, values = append_to_cache(cache, k, v)
    scores = q @ k.transpose(-2, -1) * hs ** -0.5
    weights = scores.softmax(dim=-1)
    mixed = (weights.transpose(-2, -1) * values).sum(dim=2, keepdim=True)
    return proj(mixed.permute(0, 2, 1, 3).reshape(B, 1, C)), (keys, values)
'''


def test_a_reference_change_in_a_call_the_learner_wrote_as_it_did_gives_way_to_their_own_mend(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", NEW_KEY_ALONE, "decode_step")
    assert found and all("the wrong variable" in h and "keys" in h and "dim=-2" not in h for h in found)


# the new key alone scored inside the softmax call itself: its row of ones is no sum the learner made
NEW_KEY_INSIDE_SOFTMAX = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = (t.reshape(B, 1, n_heads, hs).permute(0, 2, 1, 3) for t in qkv(x_new).chunk(3, dim=-1))
    keys, values = append_to_cache(cache, k, v)
    weights = torch.softmax(q @ k.transpose(-2, -1) * hs ** -0.5, dim=-1)
    mixed = (weights.transpose(-2, -1) * values).sum(dim=2, keepdim=True)
    return proj(mixed.permute(0, 2, 1, 3).reshape(B, 1, C)), (keys, values)
'''


def test_a_reference_change_given_way_leaves_no_relation_of_its_coincidence(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", NEW_KEY_INSIDE_SOFTMAX, "decode_step")
    assert found and all("the wrong variable" in h and "summed" not in h for h in found)


# a vector "turned" with `.t()`, MATLAB's way to a column: the transpose is said, not an axis added beside it
TURNED_VECTOR_FIRST = '''
def causal_mask(T):
    pos = torch.arange(T)
    return pos.t() < pos
'''


def test_a_transposed_side_of_a_comparison_is_said_as_the_transpose_alone(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", TURNED_VECTOR_FIRST, "causal_mask")
    assert found and all("`pos[:, None]` for `pos.t()`" in h and "either of two" not in h for h in found)


# the angles' rates cut to whole numbers (1, then 0s): the reference with `/ x.shape[-1]` taken out makes its
# rates tiny, near enough to 0 within tolerance, but the learner wrote that operation as the reference did
RATES_CUT_TO_INTEGERS = '''
def rope(x, positions, base=10000.0):
    half = x.shape[-1] // 2
    theta = (base ** (-torch.arange(half, dtype=torch.float32) * 2 / x.shape[-1])).int()
    turn = torch.outer(positions.to(torch.float32), theta)
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * turn.cos() - b * turn.sin(), a * turn.sin() + b * turn.cos()), -1)
'''


def test_a_reference_change_of_an_operation_the_learner_wrote_as_it_did_gives_way_to_their_own_mend(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", RATES_CUT_TO_INTEGERS, "rope")
    assert found and all("a call too many" in h and "removed from" not in h for h in found)


# the keys contracted along their positions: `dims=1` given, so the default's words (two axes) do not apply
KEYS_UNTURNED_IN_TENSORDOT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = torch.tensordot(q, k, dims=1) / k.shape[-1] ** 0.5
    scores = scores.masked_fill(causal_mask(len(x)), -torch.inf)
    return F.softmax(scores, -1)
'''


def test_tensordot_given_dims_gets_no_words_of_its_default(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", KEYS_UNTURNED_IN_TENSORDOT, "attention_weights")
    assert found and not any("unless given `dims`" in h for h in found)


# a one-hot row written with the ids as its values: no place is written twice, so scatter's "does not add"
# names no fault of this code
ONE_HOT_OF_IDS = '''
def one_hot_lookup(ids, weight):
    rows = torch.zeros(ids.numel(), weight.size(0)).scatter(-1, ids[:, None], ids[:, None].float())
    return rows @ weight
'''


def test_scatter_is_not_said_not_to_add_where_the_reference_adds_nothing(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ONE_HOT_OF_IDS, "one_hot_lookup")
    assert found and not any("does not add" in h for h in found)


# Python's identity test for a mask of heads: one True, so no head is removed
HEADS_KEPT_BY_IDENTITY = '''
def ablate_head(scores, values, head):
    heads = torch.arange(scores.size(1))
    weights = scores.softmax(-1) * (heads[:, None, None] is not head)
    return (weights @ values).sum(1)
'''


def test_is_not_between_a_tensor_and_a_number_is_mended_to_a_comparison_of_entries(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", HEADS_KEPT_BY_IDENTITY, "ablate_head")
    assert found and all("`heads[:, None, None] != head` for `heads[:, None, None] is not head`" in h
                         and "the same OBJECT" in h for h in found)


# the log-odds taken for the log of the probability
LOG_ODDS_FOR_LOG = '''
def average_nll(probs, ids):
    p = probs[ids[:-1], ids[1:]]
    return p.logit().neg().mean()
'''


def test_logit_taken_for_the_log_is_described(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", LOG_ODDS_FOR_LOG, "average_nll")
    assert found and all("log-odds" in h for h in found)


# the first T position rows cut with a `None` beside the cut: an axis too many, which broadcasts
POSITIONS_WITH_A_NEW_AXIS = '''
def embed(tokens, token_embedding, position_embedding):
    n = tokens.shape[-1]
    return token_embedding(tokens) + position_embedding.weight[None, :n]
'''


def test_a_none_beside_a_cut_is_taken_out(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_WITH_A_NEW_AXIS, "embed")
    assert found and any("`position_embedding.weight[:n]` for `position_embedding.weight[None, :n]`" in h
                         and "adds an axis of size 1" in h for h in found)


# the heads merged with a comma where their sizes multiply
HEADS_MERGED_WITH_A_COMMA = '''
def merge_heads(t):
    h, T, hs = t.shape
    return t.permute(1, 0, 2).contiguous().view(T, h, hs)
'''


def test_a_comma_typed_for_a_product_of_sizes_is_joined(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_MERGED_WITH_A_COMMA, "merge_heads")
    assert found and all("`t.permute(1, 0, 2).contiguous().view(T, h * hs)`" in h and "a comma where `*` belongs" in h
                         for h in found)


# the layers swapped where q and k are made; the scores' line is the reference's own, word for word, and the
# learner's mend that rewrites it is no reason to set the reference's words aside
LAYERS_SWAPPED_ABOVE_A_KEPT_LINE = '''
def attention_weights(x, query, key):
    k = query(x)
    q = key(x)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return scores.masked_fill(causal_mask(len(x)), float("-inf")).softmax(-1)
'''


def test_a_mend_that_rewrites_the_word_for_word_text_does_not_set_the_reference_change_aside(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", LAYERS_SWAPPED_ABOVE_A_KEPT_LINE, "attention_weights")
    assert found and all(h.startswith("yours equals the reference with q and k exchanged") for h in found)


# a scatter that writes one place of each row (its index one wide), the rows then summed: the count is
# made by the sum, and scatter's "does not add" names no fault of it
ONE_PLACE_PER_ROW_THEN_SUMMED = '''
def bigram_counts(ids, vocab_size):
    flat = ids[1:] + ids[:-1] * vocab_size
    hot = torch.zeros(flat.numel(), vocab_size ** 2).scatter_(1, flat.unsqueeze(-1) // 2, 1.0)
    return hot.sum(dim=0).reshape(vocab_size, vocab_size)
'''


# the same, the places wrapped round a wrong count (no mend of the learner's line is found)
ONE_PLACE_PER_ROW_WRAPPED = '''
def bigram_counts(ids, vocab_size):
    flat = ids[1:] + ids[:-1] * vocab_size
    hot = torch.zeros(flat.numel(), vocab_size ** 2).scatter_(1, flat.unsqueeze(-1) % 7, 1.0)
    return hot.sum(dim=0).reshape(vocab_size, vocab_size)
'''


def test_scatter_one_place_per_row_is_not_said_not_to_add(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ONE_PLACE_PER_ROW_WRAPPED, "bigram_counts")
    assert found and not any("does not add" in h for h in found)


# tensordot left at its default on 3-D tensors: the second pair of its two fails, not a `dims=1` pair
DEFAULT_TENSORDOT_ON_HEADS = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    q, k, v = split_heads(query(x), n_heads), split_heads(key(x), n_heads), split_heads(value(x), n_heads)
    s = torch.tensordot(q, k.transpose(0, 1)) / math.sqrt(q.shape[-1])
    w = s.masked_fill(torch.ones(len(x), len(x), dtype=torch.bool).triu(1), -math.inf).softmax(-1)
    return proj(merge_heads(w @ v)), w
'''


def test_tensordot_at_its_default_is_not_said_to_have_dims_1(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", DEFAULT_TENSORDOT_ON_HEADS, "multi_head_attention")
    assert found and not any("with `dims=1`" in h for h in found) and any("unless given `dims`" in h for h in found)


def test_a_bracket_moved_onto_a_number_it_leaves_as_it_is_is_not_said(tmp_path):
    # `flat.unsqueeze(-1 // 2)` is `flat.unsqueeze(-1)`: the moved `// 2` mends only by doing nothing
    found = failed_hints(tmp_path, "lab-03-bigram.py", ONE_PLACE_PER_ROW_THEN_SUMMED, "bigram_counts")
    assert found and not any("a bracket closed too early" in h for h in found)
