"""Leftovers of earlier sets' audits (sets AT, AV, AZ and BB), built in one round, each written here another
way than the set's file: pandas' `axis=` given to an entrywise division; a joining call's words said beside
rows that are only scaled; a pair read off a `max` given no axis; `index_add` given the old rows as well; a
sum written as a mean times a tile's width; a vector transposed for a column; a transpose too many on a
table added; `cumsum` typed for `cummax`. And what a review of those found, each a hint that must not be
said: pandas' words of a function of the learner's own, a keyword with a default called unknown, a joining
call's words dropped where its result is summed, a running maximum offered where the whole running sum is used."""

from __future__ import annotations

from labhelpers import failed_hints


# pandas' `df.div(row_sums, axis=0)`: each row divided by its own entry, written as a tensor's div
ROWS_DIVIDED_THE_PANDAS_WAY = '''
def counts_to_probs(counts, smoothing=1.0):
    table = torch.add(counts, smoothing)
    return torch.div(table, table.sum(1), axis=0)
'''


def test_pandas_axis_given_to_an_entrywise_division_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ROWS_DIVIDED_THE_PANDAS_WAY, "counts_to_probs")
    assert found and all("`axis=` is pandas' `df.div(other, axis=...)`" in h and "takes no axis" in h for h in found)


# each row's denominator short of the smoothing added to every entry, the rows joined by vstack rightly
ROWS_JOINED_RIGHTLY_DIVIDED_WRONGLY = '''
def counts_to_probs(counts, smoothing=1.0):
    rows = [(c + smoothing) / (c.sum() + 1) for c in counts]
    return torch.vstack(rows)
'''


def test_a_call_that_joins_axes_is_not_glossed_beside_rows_scaled(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ROWS_JOINED_RIGHTLY_DIVIDED_WRONGLY, "counts_to_probs")
    assert found and all("times a factor of its own" in h and "vstack" not in h for h in found)


# the sum taken over the table joined to itself three times: the join, then summed, is what scales the rows
SUM_OVER_A_JOIN = '''
def counts_to_probs(counts, smoothing=1.0):
    table = counts + smoothing
    total = torch.cat([table, table.flip(1), table.roll(1, 1)], dim=1).sum(1, keepdim=True)
    return table / total
'''


def test_a_joining_call_whose_result_is_summed_is_still_said_beside_a_scale(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", SUM_OVER_A_JOIN, "counts_to_probs")
    assert found and all("multiplied by 0.3333" in h and "`flip`" in h for h in found)


# the pair's first entry read off a max given no axis: one number, a 0-d tensor, has no entry 0
PAIR_OF_A_WHOLE_MAX = '''
def softmax(scores):
    biggest = torch.max(scores)[0]
    w = torch.exp(scores - biggest)
    return w / w.sum(dim=-1, keepdim=True)
'''


def test_a_pair_read_off_a_max_given_no_axis_is_given_the_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", PAIR_OF_A_WHOLE_MAX, "softmax")
    assert found and all("`torch.max(scores, dim=-1, keepdim=True)[0]` for `torch.max(scores)[0]`" in h
                         and "`max` given no axis returns the whole tensor's maximum" in h for h in found)


# index_add given the row as it was plus the new count, as if it wrote the sum in place: the old counts double
COUNTS_ADDED_TWICE = '''
def bigram_counts(ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size)
    for a, b in zip(ids[:-1].tolist(), ids[1:].tolist()):
        row = torch.tensor([a])
        counts = torch.index_add(counts, 0, row, F.one_hot(torch.tensor([b]), vocab_size).float() + counts.index_select(0, row))
    return counts
'''


def test_index_add_given_the_old_rows_too_is_given_the_share_alone(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", COUNTS_ADDED_TWICE, "bigram_counts")
    assert found and all("`index_add` ADDS its source" in h and "each old value counts twice" in h
                         and "`F.one_hot(torch.tensor([b]), vocab_size).float()` for" in h for h in found)


# a tile's row sum written as the width times its mean: the last, shorter tile gets entries it does not have
SUM_AS_WIDTH_TIMES_MEAN = '''
def tiled_attention(q, k, v, block, causal):
    scale = q.shape[-1] ** -0.5
    outs, lses = [], []
    for i in range(0, q.shape[-2], block):
        qb = q[..., i:i + block, :]
        m = torch.full(qb.shape[:-1], -math.inf)
        l = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        for j in range(0, min(i + qb.shape[-2], k.shape[-2]) if causal else k.shape[-2], block):
            s = qb @ k[..., j:j + block, :].transpose(-2, -1) * scale
            if causal and j == i:
                s = s.masked_fill(torch.arange(j, j + s.shape[-1]) > torch.arange(i, i + s.shape[-2])[:, None], -math.inf)
            m_new = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - m_new[..., None])
            l = torch.exp(m - m_new) * l + block * torch.mean(p, dim=-1)
            acc = torch.exp(m - m_new)[..., None] * acc + p @ v[..., j:j + block, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + l.log())
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_a_sum_written_as_a_mean_times_the_tile_width_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", SUM_AS_WIDTH_TIMES_MEAN, "tiled_attention")
    assert found and all("`torch.sum(p, dim=-1)` for `block * torch.mean(p, dim=-1)`" in h
                         and "a mean times `block` is the sum only where the mean averaged exactly `block` entries" in h for h in found)


# MATLAB's `p'`, a row turned into a column, written `.t()` on a vector: it comes back as it was
VECTOR_TURNED_WITH_T = '''
def causal_mask(T):
    places = torch.arange(T)
    return places > places.t()
'''


def test_a_vector_transposed_for_a_column_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", VECTOR_TURNED_WITH_T, "causal_mask")
    assert found and all("`places[:, None]` for `places.t()`" in h and "of a vector is the vector as it was" in h for h in found)


# the penalty table turned with `.mT` before it is added: the penalties land above the diagonal, under the mask
PENALTY_TURNED = '''
def alibi_attention(q, k, v, slope):
    n = q.size(-2)
    penalty = alibi_bias(n, slope)
    s = torch.matmul(q, k.mT) / q.size(-1) ** 0.5 + penalty.mT
    s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    return s.softmax(-1) @ v
'''


def test_a_transpose_too_many_on_a_table_added_is_taken_away(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", PENALTY_TURNED, "alibi_attention")
    assert found and all("`penalty` for `penalty.mT`" in h and "a transpose too many" in h for h in found)


# the row's largest score taken as the last entry of a running call: cumsum typed for cummax
SHIFT_BY_A_RUNNING_SUM = '''
def softmax(scores):
    top = scores.cumsum(-1)[..., -1, None]
    shifted = (scores - top).exp()
    return shifted / shifted.sum(-1, keepdim=True)
'''


def test_cumsum_typed_for_cummax_is_mended_to_the_running_maximum(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SHIFT_BY_A_RUNNING_SUM, "softmax")
    assert found and all("`scores.cummax(-1).values` for `scores.cumsum(-1)`" in h and "`cumsum` is a running sum" in h
                         for h in found)


# pandas' axis on a division of the learner's own, whose divisor already keeps its axis: no pandas words
OWN_DIV_GIVEN_AXIS = '''
def counts_to_probs(counts, smoothing=1.0):
    def div(a, b):
        return a / b
    table = counts + smoothing
    return div(table, table.sum(1, keepdim=True), axis=0)
'''


def test_an_axis_given_to_a_function_of_the_learners_own_gets_no_pandas_words(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", OWN_DIV_GIVEN_AXIS, "counts_to_probs")
    assert found and all("unexpected keyword argument 'axis'" in h and "pandas" not in h for h in found)


# a keyword with a default (`keepdim`), given where the axis is missing: no call lacks it
KEEPDIM_WITHOUT_DIM = '''
def softmax(scores):
    top = scores.max(keepdim=True).values
    e = torch.exp(scores - top)
    return e / e.sum(-1, keepdim=True)
'''


def test_a_keyword_a_form_takes_with_a_default_is_not_called_unknown(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", KEEPDIM_WITHOUT_DIM, "softmax")
    assert found and all("invalid combination" in h and "takes no argument named" not in h for h in found)


# a running sum whose whole row is used (a count of places so far), compared with 1: no maximum was meant
RUNNING_SUM_USED_WHOLE = '''
def causal_mask(T):
    return torch.ones(T, T).triu(1).cumsum(-1) == 1
'''


def test_a_running_sum_used_whole_is_not_mended_to_a_running_maximum(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", RUNNING_SUM_USED_WHOLE, "causal_mask")
    assert found and all("cummax" not in h for h in found)
