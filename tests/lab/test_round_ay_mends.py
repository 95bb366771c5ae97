"""What the reading of set BH found false or only observed, each written here another way than its files:
a size error read as a dropped `keepdim` where the line read no such vector; a slice's bound without its
minus sign; Python's `not` and `and` on tensors; `^` for a power; a slice that keeps the last entries
where the reference takes none; a norm of order 2 where a sum was meant; a bracket mend of a float64
table; a size read off another axis inside a mask that a decode step could leave out; a catalogued change
that raises the learner's error with other numbers, where the learner's line mends; a tensor of zeros that
a product made nan; what `isin` and `scatter_add_` do."""

from __future__ import annotations

from labhelpers import failed_hints

LAB02, LAB04, LAB07, LAB08, LAB09 = ("lab-02-embeddings-softmax.py", "lab-04-attention.py", "lab-07-positions.py",
                                      "lab-08-kv-cache.py", "lab-09-flash-attention.py")

# the sorted scores' last entry is the row's largest: `[..., 1:]` keeps all but the smallest instead
SORTED_PEAK = '''
def softmax(scores):
    peak = scores.sort(dim=-1).values[..., {cut}]
    e = torch.exp(scores - peak)
    return e / e.sum(dim=-1, keepdim=True)
'''

KEEPDIM_WORDS = "keepdim=True keeps it"


def test_a_sorted_rows_peak_sliced_from_one_is_mended_with_the_minus_sign(tmp_path):
    found = failed_hints(tmp_path, LAB02, SORTED_PEAK.format(cut="1:"), "softmax")
    assert found and all("a slice's bound without its minus sign: `1:` drops the first entry" in h
                         and "`scores.sort(dim=-1).values[..., -1:]` for" in h for h in found)


def test_a_size_error_from_a_sliced_tensor_is_not_read_as_a_dropped_keepdim(tmp_path):
    found = failed_hints(tmp_path, LAB02, SORTED_PEAK.format(cut="1:"), "softmax")
    assert found and not any(KEEPDIM_WORDS in h for h in found)


# each row's maximum without keepdim: (rows,) meets the columns, and the note says so
DROPPED_KEEPDIM = '''
def softmax(scores):
    e = torch.exp(scores - scores.amax(dim=-1))
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_a_dropped_keepdim_is_still_read_as_one(tmp_path):
    found = failed_hints(tmp_path, LAB02, DROPPED_KEEPDIM, "softmax")
    assert any(KEEPDIM_WORDS in h for h in found)


# Python's `not` on the table of seen cells: one bool, or an error for more than one cell
NOT_SEEN = '''
def causal_mask(T):
    seen = torch.arange(T)[:, None] >= torch.arange(T)[None, :]
    return not seen
'''


def test_pythons_not_on_a_mask_is_mended_to_the_entrywise_not(tmp_path):
    found = failed_hints(tmp_path, LAB04, NOT_SEEN, "causal_mask")
    assert found and all("Python's `not` asks for the truth of the WHOLE tensor" in h and "`~seen` for `not seen`" in h
                         for h in found)


# two conditions joined with `and`: the truth of the first whole tensor, an error for more than one cell
AND_JOINED = '''
def causal_mask(T):
    rows, cols = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return (cols > rows) and (cols < T)
'''


def test_pythons_and_of_two_masks_is_mended_to_the_entrywise_and(tmp_path):
    found = failed_hints(tmp_path, LAB04, AND_JOINED, "causal_mask")
    assert found and all("Python's `and` asks for the truth of a WHOLE tensor" in h
                         and "`(cols > rows) & (cols < T)` for" in h for h in found)


# `^` for the power of the head size: Python's exclusive or, which floats do not have
CARET_ROOT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = q @ k.T / k.shape[-1] ^ 0.5
    T = x.shape[0]
    return scores.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf")).softmax(-1)
'''


def test_a_caret_for_a_power_is_mended_to_two_stars(tmp_path):
    found = failed_hints(tmp_path, LAB04, CARET_ROOT, "attention_weights")
    assert found and all("`^` is the power in R and MATLAB, but in Python the bitwise exclusive or" in h
                         and "`q @ k.T / k.shape[-1] ** 0.5` for" in h for h in found)


# the values' cache cut back to its old length after appending: the oldest values are lost
WINDOWED_VALUES = '''
def append_to_cache(cache, k_new, v_new):
    keys, values = cache
    return torch.cat((keys, k_new), dim=2), torch.cat((values, v_new), dim=2)[:, :, -values.size(2):]
'''


def test_a_slice_keeping_the_last_entries_is_taken_away(tmp_path):
    found = failed_hints(tmp_path, LAB08, WINDOWED_VALUES, "append_to_cache")
    assert found and all("a slice the reference does not take: `[:, :, -values.size(2):]` keeps only the LAST" in h
                         and "with `torch.cat((values, v_new), dim=2)` for" in h for h in found)


# a float64 table whose rates lost their brackets: base ** -i, then / d, where base ** (-i / d) was meant
FLOAT64_RATES = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]
    rates = base ** -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    angle = pos * rates
    return torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2)
'''


def test_a_mend_of_a_float64_table_counts_as_right(tmp_path):
    found = failed_hints(tmp_path, LAB07, FLOAT64_RATES, "sinusoidal_table")
    assert found and all("brackets: Python computes" in h and "yours gives the reference's values on every input tried" in h
                         for h in found)


DECODE_STEP = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = (t.view(B, 1, n_heads, hs).transpose(1, 2) for t in qkv(x_new).chunk(3, dim=-1))
    keys, values = append_to_cache(cache, k, v)
    s = (q @ keys.transpose(-2, -1)) * hs ** -0.5
    s = s.masked_fill(torch.arange(keys.size({axis}))[None, :] > position, float("-inf"))
    out = (s.softmax(-1) @ values).transpose(1, 2).reshape(B, 1, C)
    return proj(out), (keys, values)
'''


def test_a_decode_mask_sized_by_the_keys_length_passes(tmp_path):
    assert failed_hints(tmp_path, LAB08, DECODE_STEP.format(axis=-2), "decode_step") == []


def test_a_size_read_off_another_axis_in_a_mask_is_said_not_the_masks_removal(tmp_path):
    found = failed_hints(tmp_path, LAB08, DECODE_STEP.format(axis=-1), "decode_step")
    assert found and all("`keys.size(-2)` for `keys.size(-1)`" in h and "left out" not in h for h in found)


# the positions counted by the batch axis: the reference's T read off that axis raises with the very same sizes
BATCH_COUNTED = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    where = torch.arange(start, start + tokens.size(0))
    return token_embedding(tokens) + position_embedding(where)
'''


def test_a_change_raising_with_the_learners_very_words_is_still_said(tmp_path):
    found = failed_hints(tmp_path, LAB08, BATCH_COUNTED, "embed_at")
    assert found and all("yours equals the reference with `tokens.shape[-2]` for `tokens.shape[-1]`" in h for h in found)


# a running maximum started as -inf times new zeros: 0 * inf is nan in every entry
NAN_START = '''
def online_softmax(scores):
    m = scores.new_zeros(scores.shape[:-1]) * -math.inf
    l = torch.zeros_like(m)
    for s in scores.unbind(-1):
        top = torch.maximum(m, s)
        l = l * torch.exp(m - top) + torch.exp(s - top)
        m = top
    return torch.exp(scores - m[..., None]) / l[..., None]
'''


def test_zeros_times_infinity_is_mended_by_the_ones_maker_alone(tmp_path):
    found = failed_hints(tmp_path, LAB09, NAN_START, "online_softmax")
    assert found and all("`new_ones(...)` for `new_zeros(...)`" in h and "the outputs cannot tell them apart" not in h
                         for h in found)


# the ids looked up among the vocabulary: one True per vocabulary entry, no one-hot rows
ISIN_ROWS = '''
def one_hot_lookup(ids, weight):
    hot = torch.isin(torch.arange(weight.shape[0]), ids).to(weight.dtype)
    return hot @ weight
'''


def test_what_isin_answers_is_said_where_it_is_used(tmp_path):
    found = failed_hints(tmp_path, LAB02, ISIN_ROWS, "one_hot_lookup")
    assert found and all("`isin`, which the reference does not call, asks of each entry" in h for h in found)


# whole one-hot rows added at the previous characters' row numbers with scatter_add_'s 1-D index
SCATTERED_ROWS = '''
def bigram_counts(ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size)
    nexts = torch.eye(vocab_size)[ids[1:]]
    return counts.scatter_add_(0, ids[:-1], nexts)
'''


def test_what_scatter_add_wants_of_its_index_is_said_where_it_raises(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", SCATTERED_ROWS, "bigram_counts")
    assert found and all("`scatter_add_`, which the reference does not call, adds each entry of `src`" in h for h in found)


# the positions counted by the number of axes, `dim()`: two of them for one new word, an error elsewhere
AXES_COUNTED = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    where = torch.arange(start, start + tokens.dim())
    return token_embedding(tokens) + position_embedding(where)
'''


def test_a_change_matching_other_inputs_by_the_kind_of_error_alone_yields_to_the_learners_mend(tmp_path):
    found = failed_hints(tmp_path, LAB08, AXES_COUNTED, "embed_at")
    assert found and all("`tokens.dim()` counts the tensor's AXES" in h and "off by one" not in h for h in found)


# each row brought to length 1 (normalize's default, p=2), where its total was meant
ROWS_OF_LENGTH_ONE = '''
def counts_to_probs(counts, smoothing=1.0):
    return F.normalize(counts.add(smoothing), dim=-1)
'''


def test_a_norm_of_order_two_where_a_rows_sum_was_meant_is_mended_to_order_one(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ROWS_OF_LENGTH_ONE, "counts_to_probs")
    assert found and all("here the default p=2, the vector's length" in h
                         and "`F.normalize(counts.add(smoothing), p=1, dim=-1)` for" in h for h in found)


# the diagonal key block left out of a causal tile loop, every block masked: a flag read with Python's `not`
FLAG_NOT = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    outs, lses = [], []
    for i in range(0, T_q, block):
        qb = q[..., i : i + block, :]
        m = torch.full(qb.shape[:-1], -math.inf, dtype=q.dtype)
        l = torch.zeros_like(m)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=q.dtype)
        stop = T_k if not causal else i
        for j in range(0, stop, block):
            s = qb @ k[..., j : j + block, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal:
                later = torch.arange(j, j + s.shape[-1])[None, :] > torch.arange(i, i + s.shape[-2])[:, None]
                s = s.masked_fill(later, -math.inf)
            top = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - top[..., None])
            factor = torch.exp(m - top)
            l = factor * l + p.sum(dim=-1)
            acc = factor[..., None] * acc + p @ v[..., j : j + block, :]
            m = top
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_pythons_not_on_a_flag_is_never_read_as_a_tensors(tmp_path):
    found = failed_hints(tmp_path, LAB09, FLAG_NOT, "tiled_attention")
    assert found and not any("Python's `not`" in h or "`~causal`" in h for h in found)


# a crop the reference never makes, its width read off the head size: taking the line away says the slip
NEEDLESS_CROP = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    w = torch.softmax((q @ k.T / q.size(1) ** 0.5).masked_fill(causal_mask(x.size(0)), -math.inf), dim=-1)
    w = w[:, : q.size(1)]
    return w
'''


def test_a_size_inside_a_line_the_reference_has_no_such_step_for_is_not_said_over_its_removal(tmp_path):
    found = failed_hints(tmp_path, LAB04, NEEDLESS_CROP, "attention_weights")
    assert found and all("left out" in h and "`q.size(0)` for" not in h for h in found)


# each row's total without keepdim, beside a right (rows, 1) maximum on the same line
TOTAL_WITHOUT_KEEPDIM = '''
def softmax(scores):
    top = scores.amax(dim=-1, keepdim=True)
    return (scores - top).exp() / (scores - top).exp().sum(-1)
'''


def test_a_dropped_keepdim_beside_a_kept_one_is_still_read_as_one(tmp_path):
    found = failed_hints(tmp_path, LAB02, TOTAL_WITHOUT_KEEPDIM, "softmax")
    assert any(KEEPDIM_WORDS in h for h in found)


# the batch size for the number of positions, the two sides of the sum written the other way round: the
# reference's change raises the same sizes in the other order, which is no other number
BATCH_COUNTED_TURNED = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    where = torch.arange(start, start + tokens.shape[0])
    return position_embedding(where) + token_embedding(tokens)
'''


def test_a_change_raising_the_learners_sizes_in_the_other_order_is_still_said(tmp_path):
    found = failed_hints(tmp_path, LAB08, BATCH_COUNTED_TURNED, "embed_at")
    assert found and all("yours equals the reference with `tokens.shape[-2]` for `tokens.shape[-1]`" in h for h in found)
