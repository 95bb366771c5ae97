"""Mistakes of the kinds the retired set AJ held, each written here another way than set AJ's file:
MATLAB's `end` typed as `-1` in a slice, two indices of a subscript in each other's places, the
pieces of a `cat` in the other order, a triangle that marks the cells to keep where the hidden ones
were meant, `heaviside` for a ramp, a write's offset left out, a softmax shifted by something that
is not the row's maximum; and the inputs two checks lacked (a character the text never uses, a
prompt of several new words)."""

from __future__ import annotations

from labhelpers import failed_hints

# MATLAB's `s(i, i+1:end)` typed as `i + 1:-1`: Python's -1 as a slice's end stops before the last key
LAST_KEY_LEFT_VISIBLE = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = q @ k.T / k.shape[-1] ** 0.5
    for i in range(s.shape[0]):
        s[i, i + 1:-1] = float("-inf")
    return s.softmax(dim=-1)
'''


def test_a_slices_end_typed_as_minus_one_is_mended_by_leaving_it_open(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", LAST_KEY_LEFT_VISIBLE, "attention_weights")
    assert found and all("`s[i, i + 1:]` for `s[i, i + 1:-1]`" in h and "leaves out the last" in h for h in found)


# the query's row and the key's column in each other's places: weights read above the diagonal
ROW_AND_COLUMN_SWAPPED = '''
def induction_score(pattern, period):
    T = pattern.shape[-1]
    picked = [pattern[:, :, i - period + 1, i] for i in range(period + 1, T)]
    return torch.stack(picked, dim=-1).mean(dim=(0, -1))
'''


def test_two_indices_in_each_others_places_are_mended_by_exchanging_them(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", ROW_AND_COLUMN_SWAPPED, "induction_score")
    assert found and all("`pattern[:, :, i, i - period + 1]` for `pattern[:, :, i - period + 1, i]`" in h
                         for h in found)


# the rotated halves joined second half first: each pair's two channels in each other's places
HALVES_SWAPPED = '''
def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    angle = positions.float().unsqueeze(-1) * base ** (-torch.arange(0, d, 2).float() / d)
    c, s = angle.cos(), angle.sin()
    lo, hi = x.chunk(2, dim=-1)
    return torch.cat((lo * s + hi * c, lo * c - hi * s), dim=-1)
'''


def test_the_pieces_of_a_cat_in_the_other_order_are_named_as_such(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", HALVES_SWAPPED, "rope")
    # the reference's own pieces, in the order yours joined them
    assert found and all("`first * sin + second * cos` first, then `first * cos - second * sin`" in h for h in found)


# the lower triangle, the cells a query may see, used as the cells to push down
KEPT_FOR_HIDDEN = '''
def attention_backward(q, k, v, d_out, causal):
    scale = q.shape[-1] ** -0.5
    s = q @ k.transpose(-2, -1) * scale
    if causal:
        n = s.shape[-1]
        hidden = torch.tril(torch.ones(n, n)).bool()
        s = s - 1e9 * hidden
    p = s.softmax(dim=-1)
    ds = softmax_backward(p, d_out @ v.transpose(-2, -1))
    return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, p.transpose(-2, -1) @ d_out
'''


def test_a_triangle_marking_the_cells_to_keep_is_named_an_inverted_mask(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", KEPT_FOR_HIDDEN, "attention_backward")
    assert found and all("mask inverted" in h for h in found)


# heaviside, a step, where the ramp max(d, 0) was meant: every earlier key gets the same penalty
STEP_FOR_RAMP = '''
def alibi_bias(T, slope):
    pos = torch.arange(T, dtype=torch.float32)
    back = pos[:, None] - pos[None, :]
    return -slope * back.heaviside(torch.zeros(()))
'''


def test_heaviside_for_a_ramp_is_mended_with_relu_and_called_a_step(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", STEP_FOR_RAMP, "alibi_bias")
    assert found and all("`relu(...)` for `heaviside(...)`" in h and "STEP" in h for h in found)


# the new words written from place 0 of the grown tensor, over the cached ones
NO_OFFSET = '''
def append_to_cache(cache, k_new, v_new):
    both, new = torch.stack(cache), torch.stack((k_new, v_new))  # (2, B, H, T, hs), (2, B, H, T_new, hs)
    n_old = cache[0].shape[2]
    out = both.new_zeros(*both.shape[:3], n_old + new.shape[3], both.shape[4])
    out[:, :, :, :n_old] = both
    for j in range(new.shape[3]):
        out[:, :, :, j] = new[:, :, :, j]
    return out[0], out[1]
'''


def test_a_write_without_its_offset_is_mended_by_adding_the_size_before_it(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", NO_OFFSET, "append_to_cache")
    assert found and all("`n_old + j` for `j`" in h and "the offset `n_old` left out" in h for h in found)


# a shift by the position of the row's largest score, not by the score: large rows still overflow
SHIFTED_BY_A_POSITION = '''
def softmax(scores):
    lowered = scores - scores.argmax(dim=-1, keepdim=True)
    e = lowered.exp()
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_an_overflow_after_a_wrong_shift_says_no_row_was_shifted_by_its_own_maximum(tmp_path):
    found = [h for h in failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SHIFTED_BY_A_POSITION, "softmax") if "NaN" in h]
    assert found and all("did not shift each row by its own maximum" in h for h in found)


# histogramdd's bins spread over the data's own smallest and largest ids when no range is given
BINS_FROM_THE_DATA = '''
def bigram_counts(ids, vocab_size):
    pairs = torch.stack((ids[:-1], ids[1:]), dim=1).float()
    return torch.histogramdd(pairs, bins=[vocab_size, vocab_size]).hist
'''


def test_counts_binned_over_the_datas_own_span_fail_on_a_text_that_leaves_a_character_out(tmp_path):
    assert failed_hints(tmp_path, "lab-03-bigram.py", BINS_FROM_THE_DATA, "bigram_counts")


# only the last of the new words kept: right for a decoder's one word at a time, wrong for a prompt
LAST_NEW_WORD_ONLY = '''
def append_to_cache(cache, k_new, v_new):
    keys, values = cache
    return torch.cat([keys, k_new[:, :, -1:]], dim=2), torch.cat([values, v_new[:, :, -1:]], dim=2)
'''


def test_a_cache_that_keeps_only_the_last_new_word_fails_on_a_prompt_of_three_with_the_shape_it_should_have(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", LAST_NEW_WORD_ONLY, "append_to_cache")
    assert found and all("(B, heads, T + T_new, head_size) = (2, 3, 7, 2)" in h for h in found)
