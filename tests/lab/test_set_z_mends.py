"""Mistakes of the kinds the retired set Z held, each written here another way than set Z's file:
the remainder for the quotient, a number added to a shape, a slice of an axis of length 1, an error
matched at another step, a check whose inputs both raise and part, a block's number for its start,
one bound slipped in both slices of a line, one taken away where one per sequence was, and calls
whose meaning is easily misread."""

from __future__ import annotations

from attention_by_hand.lab.call_words import call_words
from attention_by_hand.lab.outcomes import agree, raised
from attention_by_hand.lab.raised_where import assigned_at
from labhelpers import REFERENCES, failed_hints, load_lab

REMAINDER_FOR_QUOTIENT = '''
def split_heads(t, n_heads):
    return t.unflatten(-1, (n_heads, t.shape[-1] % n_heads)).movedim(1, 0)
'''


def test_the_remainder_typed_for_the_quotient_is_named_and_no_wildcard_size_is_offered(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", REMAINDER_FOR_QUOTIENT, "split_heads")
    assert found and all("with `t.shape[-1] // n_heads` for `t.shape[-1] % n_heads`" in h and "a remainder" in h for h in found)
    assert not any("off by one" in h for h in found)


NUMBER_ADDED_TO_A_SHAPE = '''
def online_softmax(scores):
    best = scores.new_full(scores.shape[:-1] + 1, -math.inf)
    acc = best.new_zeros(best.shape)
    for column in scores.unbind(-1):
        column = column.unsqueeze(-1)
        new_best = torch.where(column > best, column, best)
        acc = acc * (best - new_best).exp() + (column - new_best).exp()
        best = new_best
    return (scores - best).exp() / acc
'''


def test_a_number_added_to_a_shape_is_mended_where_it_was_added(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", NUMBER_ADDED_TO_A_SHAPE, "online_softmax")
    assert found and all("`scores.shape[:-1] + (1,)`" in h for h in found)
    assert not any("a call too many" in h for h in found)


# D keeps its last axis, and the query block's rows are then cut from that axis of length 1
UNIT_AXIS_SLICED = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    c = q.shape[-1] ** -0.5
    D = torch.sum(out * d_out, dim=-1, keepdim=True)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for a in range(0, n, block):
        for b in range(a if causal else 0, n, block):
            s = q[..., b:b + block, :] @ k[..., a:a + block, :].mT * c
            if causal:
                later = torch.arange(a, a + s.shape[-1]) > torch.arange(b, b + s.shape[-2])[:, None]
                s = s.masked_fill(later, -math.inf)
            p = (s - lse[..., b:b + block, None]).exp()
            dv[..., a:a + block, :] += p.mT @ d_out[..., b:b + block, :]
            dp = d_out[..., b:b + block, :] @ v[..., a:a + block, :].mT
            ds = p * (dp - D[..., b:b + block])
            dq[..., b:b + block, :] += ds @ k[..., a:a + block, :] * c
            dk[..., a:a + block, :] += ds.mT @ q[..., b:b + block, :] * c
    return dq, dk, dv
'''


def test_a_slice_of_an_axis_of_length_1_is_said_on_the_raising_line(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", UNIT_AXIS_SLICED, "tiled_attention_backward")
    raised_ = [h for h in found if h.startswith("raised")]
    assert raised_ and all("`D[..., b:b + block]` cuts the last axis of `D`" in h for h in raised_)


def test_a_change_of_the_reference_that_raises_alike_is_not_named_beside_the_slice(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", UNIT_AXIS_SLICED, "tiled_attention_backward")
    assert found and not any("yours equals the reference with" in h for h in found)


def test_errors_raised_at_another_step_of_the_learners_function_do_not_agree():
    mine = raised("RuntimeError", "sizes 4 and 12", None, frozenset({"ds"}), frozenset({"ds", "dv"}))
    assert not agree(mine, raised("RuntimeError", "sizes 4 and 12", None, frozenset({"dv"})))
    assert agree(mine, raised("RuntimeError", "sizes 4 and 12", None, frozenset({"ds", "dk"})))


def test_a_step_the_learner_never_assigns_tells_nothing():
    mine = raised("RuntimeError", "sizes 4 and 12", None, frozenset({"q"}), frozenset({"q", "k"}))
    assert agree(mine, raised("RuntimeError", "sizes 4 and 12", None, frozenset({"scores"})))


# every row's D where the block's was meant: the `ds` line raises, and a change of the reference
# that raises the same words at its `dv` line (the keys of every block) is no match
EVERY_ROWS_D = UNIT_AXIS_SLICED.replace("D[..., b:b + block]", "D[..., None]").replace(", keepdim=True", "")


def test_a_change_that_raises_alike_at_a_step_the_learner_passed_is_not_named(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", EVERY_ROWS_D, "tiled_attention_backward")
    assert found and not any("`k` for `k[" in h or "`v` for `v[" in h for h in found)


NAMED_STEP = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    {0} = q @ k / math.sqrt(k.shape[-1])
    return torch.softmax({0}.masked_fill(causal_mask(x.shape[-2]), -math.inf), dim=-1)
'''


def test_the_learners_own_name_for_a_step_leaves_the_diagnosis_as_it_is(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    as_theirs = failed_hints(tmp_path / "a", "lab-04-attention.py", NAMED_STEP.format("scores"), "attention_weights")
    as_mine = failed_hints(tmp_path / "b", "lab-04-attention.py", NAMED_STEP.format("q"), "attention_weights")
    assert as_theirs and all("yours equals the reference with" in h for h in as_theirs)
    assert [h.split("yours equals", 1)[1] for h in as_mine] == [h.split("yours equals", 1)[1] for h in as_theirs]


def test_the_names_an_assignment_assigns_are_read_from_its_target(tmp_path):
    path = tmp_path / "f.py"
    path.write_text("def f(a, b):\n    x, y[0] = a, b\n    z.w[1] += (\n        a)\n    return a\n", encoding="utf-8")
    assert (assigned_at(str(path), 2), assigned_at(str(path), 4), assigned_at(str(path), 5)) == (
        frozenset({"x", "y"}), frozenset({"z"}), None)


# dp from the keys: wrong where d_v equals head_size, raising where it does not
KEYS_FOR_VALUES = '''
def attention_backward(q, k, v, d_out, causal):
    c = 1 / math.sqrt(q.shape[-1])
    s = q @ k.mT * c
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), -math.inf)
    p = s.softmax(-1)
    dv = p.mT @ d_out
    dp = d_out @ k.mT
    ds = softmax_backward(p, dp)
    return ds @ k * c, ds.mT @ q * c, dv
'''


def test_a_check_whose_calls_part_and_raise_gets_the_mend_that_holds_on_both(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", KEYS_FOR_VALUES, "attention_backward")
    assert found and all("the wrong variable" in h and "`d_out @ v.mT`" in h for h in found)


BLOCK_NUMBER_AS_START = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    c = q.shape[-1] ** -0.5
    outs, lses = [], []
    for first in range(0, n_q, block):
        qb = q[..., first:first + block, :]
        m = torch.full(qb.shape[:-1], -math.inf)
        l = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        for number in range((n_k + block - 1) // block):
            start = number
            if causal and start > first + qb.shape[-2] - 1:
                break
            s = qb @ k[..., start:start + block, :].mT * c
            if causal:
                s = s.masked_fill(torch.arange(start, start + s.shape[-1]) > torch.arange(first, first + s.shape[-2])[:, None], -math.inf)
            top = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - top[..., None])
            shrink = torch.exp(m - top)
            l = l * shrink + p.sum(-1)
            acc = acc * shrink[..., None] + p @ v[..., start:start + block, :]
            m = top
        outs.append(acc / l[..., None])
        lses.append(m + l.log())
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_a_blocks_number_taken_for_its_start_is_mended_by_the_block_size(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", BLOCK_NUMBER_AS_START, "tiled_attention")
    assert found and all("with `number * block` for `number`" in h and "the blocks start one apart" in h for h in found)


OWN_VALUE_LEFT_OUT = '''
def self_attention(x, query, key, value):
    w = attention_weights(x, query, key)
    vals = value(x)
    return torch.stack([w[t, :t] @ vals[:t] for t in range(len(x))]), w
'''


def test_one_bound_slipped_in_both_slices_of_a_line_is_mended_in_both(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", OWN_VALUE_LEFT_OUT, "self_attention")
    assert found and all("the same once more on that line" in h and ":t + 1" in h for h in found)


ONE_TAKEN_FOR_EACH_SEQUENCE = '''
def first_token_score(pattern):
    n = pattern.shape[0]
    column = pattern[:, :, :, 0]
    return (column.sum(2).sum(0) - 1) / (n * (pattern.shape[-1] - 1))
'''


def test_one_taken_away_where_one_per_sequence_was_is_named_by_the_size(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", ONE_TAKEN_FOR_EACH_SEQUENCE, "first_token_score")
    assert found and all("a fixed number, `1`, where the size `n` is meant" in h for h in found)


FLAT_SELECTION = '''
def ablate_head(scores, values, head):
    writes = scores.softmax(-1) @ values
    others = torch.ones(writes.shape[1], dtype=torch.bool)
    others[head] = False
    return writes.masked_select(others.view(1, -1, 1, 1)).sum(1)
'''


def test_a_selection_that_flattens_is_described_where_it_raised(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", FLAT_SELECTION, "ablate_head")
    assert found and all("`masked_select`, which the reference does not call, returns the entries the mask picks as one flat" in h
                         for h in found)


COLUMNS_FILLED = '''
def one_hot_lookup(ids, weight):
    picks = weight.new_zeros(len(ids), len(weight)).index_fill_(1, ids, 1)
    return picks @ weight
'''


def test_an_in_place_call_is_described_by_the_call_it_makes(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", COLUMNS_FILLED, "one_hot_lookup")
    assert found and all("`index_fill_`, which the reference does not call, fills whole slices" in h for h in found)


ACCUMULATORS_AS_NUMBERS = UNIT_AXIS_SLICED.replace(
    "dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)", "dq, dk, dv = 0.0, 0.0, 0.0").replace(
    "D[..., b:b + block]", "D[..., b:b + block, :]")


def test_a_plain_number_indexed_on_the_raising_line_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", ACCUMULATORS_AS_NUMBERS, "tiled_attention_backward")
    assert found and all("`dv` is the number 0.0 here, not a tensor" in h for h in found)


SIZE_INDEXED = '''
def split_heads(t, n_heads):
    T = t.shape[0]
    return t.reshape(T[0], n_heads, -1).transpose(0, 1)
'''


def test_a_size_indexed_is_named_without_advice_on_zeros(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", SIZE_INDEXED, "split_heads")
    raised_ = [h for h in found if h.startswith("raised")]
    assert raised_ and all("`T` is the number" in h and "zeros" not in h for h in raised_)


def test_a_rescale_by_norm_and_a_gather_are_described_on_a_quoted_line():
    reference = load_lab(REFERENCES["lab-02-embeddings-softmax.py"])
    said = call_words(["return e.renorm(1, 0, 1.0).gather(1, ids)"], reference, "softmax")
    assert said is not None and "no slice is made to sum to 1" in said and "an index below 0 is refused" in said
