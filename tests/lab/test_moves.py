"""Mistakes that move something: two layers in the other order, a layer or a factor applied at
another place, a slice made from another variable, a pair index made a grid, cat for stack, .T
on a batch; and what errors may count as evidence. Each learner function here is written its own
way, unlike the reference's code."""

from __future__ import annotations

import warnings

import torch

from attention_by_hand.lab.outcomes import RAISED, Tried, agree, raised
from attention_by_hand.lab.registry import LABS
from labhelpers import REFERENCES, check_untimed, failed_checks, failed_hints, load_lab


POST_NORM_BRANCHES = '''
def block_forward(x, ln1, attn, ln2, mlp):
    mixed = ln1(attn(x))
    y = x + mixed
    return y + ln2(mlp(y))
'''


def test_each_branch_normalised_on_the_way_out_is_named_as_the_layers_in_the_other_order(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POST_NORM_BRANCHES, "block_forward")
    assert found and all("`ln1(attn(x))` for `attn(ln1(x))`: the two layers applied in the other order" in h
                         and "`ln2(mlp(x))`" in h for h in found)


PROJECTION_ON_THE_VALUES = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T, width = x.shape
    size = width // n_heads
    def heads(t):
        return t.reshape(T, n_heads, size).permute(1, 0, 2)
    q, k, v = heads(query(x)), heads(key(x)), heads(proj(value(x)))
    s = torch.einsum("hid,hjd->hij", q, k) / size ** 0.5
    s = s.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf"))
    w = s.softmax(-1)
    return (w @ v).permute(1, 0, 2).reshape(T, width), w
'''


def test_the_output_projection_applied_to_the_values_is_named_as_a_layer_at_the_wrong_place(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", PROJECTION_ON_THE_VALUES, "multi_head_attention")
    assert found and all(h.startswith("yours applies the layer proj at the wrong place") and "`value(x)`" in h
                         and "not to `merge_heads(heads)`" in h for h in found)


SCALE_AFTER_THE_SOFTMAX = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    T = q.shape[-2]
    raw = torch.einsum("...id,...jd->...ij", q, k)
    future = torch.arange(T)[None, :] > torch.arange(T)[:, None]
    w = torch.softmax(raw.masked_fill(future, -float("inf")), dim=-1)
    return w / q.shape[-1] ** 0.5
'''


def test_a_scale_applied_to_the_weights_after_the_softmax_is_named_as_a_factor_moved_to_the_end(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SCALE_AFTER_THE_SOFTMAX, "attention_weights")
    # the probes' head sizes 1 and 16 are among the inputs: no one value of sqrt(head_size) is said
    assert found and all("`/ math.sqrt(head_size)` removed" in h and "then divided by sqrt(head_size):" in h
                         and "the factor applied at the end" in h for h in found)


PAIRS_AS_A_GRID = '''
def average_nll(probs, ids):
    chosen = probs[ids[:-1]][:, ids[1:]]
    return -chosen.log().mean()
'''


def test_a_pair_index_done_in_two_steps_is_named_as_a_grid(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", PAIRS_AS_A_GRID, "average_nll")
    assert found and all("every row paired with every column (a grid)" in h for h in found)


STACKED_CACHE = '''
def append_to_cache(cache, k_new, v_new):
    old_k, old_v = cache
    return torch.stack((old_k, k_new), 2), torch.stack((old_v, v_new), 2)
'''


def test_stack_for_cat_on_both_halves_of_the_cache_is_named_once(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", STACKED_CACHE, "append_to_cache")
    assert found and all("`stack(...)` for `cat(...)` (stack puts the tensors on a NEW axis" in h
                         and "both times it is done there" in h for h in found)


def test_keys_transposed_with_dot_t_on_a_batch_are_mended_with_dot_mt(tmp_path):
    reference = REFERENCES["lab-07-positions.py"].read_text(encoding="utf-8")
    line = "    scores = q @ k.transpose(-2, -1) / math.sqrt(head_size)  # (..., T, T)\n"
    assert reference.count(line) == 1
    path = tmp_path / "lab-07-positions.py"
    path.write_text(reference.replace(line, "    scores = torch.matmul(q, k.T) * head_size ** -0.5\n"), encoding="utf-8")
    with warnings.catch_warnings():  # torch warns of .T on a batch; a learner's run does not stop for it
        warnings.simplefilter("ignore", UserWarning)
        run = check_untimed(load_lab(path), LABS[6])
    found = [r.hint for r in run.results if not r.passed and r.label.startswith("rope_attention:")]
    assert found and all("`k.mT` for `k.T`" in h and "reverses the order of EVERY axis" in h for h in found)


ANGLES_TRANSPOSED = '''
def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    h = d // 2
    inv = 1.0 / base ** (torch.arange(h).float() * 2 / d)
    table = inv[:, None] * positions.float()[None, :]
    lo, hi = x[..., :h], x[..., h:]
    return torch.cat([lo * table.cos() - hi * table.sin(), lo * table.sin() + hi * table.cos()], -1)
'''


def test_an_outer_product_with_its_sides_exchanged_is_named_as_transposed(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", ANGLES_TRANSPOSED, "rope")
    assert found and all("exchanged: the outer product comes out transposed" in h for h in found)


VALUES_OF_THE_QUERY_TILE = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    outs, lses = [], []
    for a in range(0, T_q, block):
        qb = q[..., a:a + block, :]
        m = torch.full(qb.shape[:-1], -float("inf"))
        l = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        stop = min(a + qb.shape[-2], T_k) if causal else T_k
        for b in range(0, stop, block):
            s = torch.einsum("...id,...jd->...ij", qb, k[..., b:b + block, :]) * scale
            if causal and a == b:
                i = torch.arange(a, a + s.shape[-2])
                j = torch.arange(b, b + s.shape[-1])
                s = s.masked_fill(j[None, :] > i[:, None], -float("inf"))
            new = torch.maximum(m, s.amax(-1))
            p = (s - new[..., None]).exp()
            keep = (m - new).exp()
            l = keep * l + p.sum(-1)
            acc = keep[..., None] * acc + p @ v[..., a:a + block, :]
            m = new
        outs.append(acc / l[..., None])
        lses.append(m + l.log())
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_values_sliced_with_the_query_tiles_index_are_named_as_a_slice_of_another_variable(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", VALUES_OF_THE_QUERY_TILE, "tiled_attention")
    # it raises on the checks' own inputs, but the probe of whole square tiles runs it: the change of
    # the reference is matched by values there, and by the error on the rest
    assert found and all("yours equals the reference with `v[..., i:i + block, :]` for `v[..., j:j + block, :]` (the slice "
                         "made from `i`, not `j`)" in h for h in found)


ONE_ROW_OF_PYTHON_NUMBERS = '''
def online_softmax(scores):
    values = scores.tolist()
    top, total = float("-inf"), 0.0
    for s in values:
        if s > top:
            total = total * math.exp(top - s)
            top = s
        total += math.exp(s - top)
    return torch.tensor([math.exp(s - top) / total for s in values])
'''


def test_a_function_for_one_row_only_is_told_that_it_is_right_on_one_row(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ONE_ROW_OF_PYTHON_NUMBERS, "online_softmax")
    assert found and all(h.startswith("raised TypeError") and "right on every probe (one row of scores alone, 1-D" in h
                         for h in found)


def test_two_errors_agree_only_with_the_same_type_and_words():
    assert agree(raised("IndexError", "index 5 is out of bounds"), raised("IndexError", "index 5 is out of bounds"))
    assert not agree(raised("IndexError", "index 5 is out of bounds"), raised("IndexError", "index out of range in self"))
    assert not agree(raised("RuntimeError", "x"), raised("IndexError", "x"))
    assert not agree(RAISED, RAISED)  # an error nobody knows (a call that ran out of time) is no evidence


def test_a_single_change_may_raise_an_error_of_the_same_family_in_other_words_a_pair_may_not():
    from attention_by_hand.lab.diagnosis import _matches

    def change(x):
        return x[5]  # IndexError: index 5 is out of bounds for dimension 0 with size 3

    tried = [Tried((torch.zeros(3),), raised("RuntimeError", "index out of range in self"))]
    assert _matches(change, tried, [0], single=True)[0]
    assert not _matches(change, tried, [0], single=False)[0]


LOG_SUM_EXP_UNSHIFTED = '''
def softmax(scores):
    lse = torch.log(torch.exp(scores).sum(dim=-1, keepdim=True))
    return torch.exp(scores - lse)
'''


def test_an_exp_that_overflows_only_on_large_scores_is_named_as_such(tmp_path):
    found = failed_checks(tmp_path, "lab-02-embeddings-softmax.py", LOG_SUM_EXP_UNSHIFTED, "softmax")
    assert found and all(label.startswith("softmax: large scores") for label in found)
    assert all("right on every input whose numbers stay small" in h and "must already have its row's maximum subtracted" in h
               for h in found.values())


NUMERATOR_SHIFTED_ONLY = '''
def softmax(scores):
    top = (scores - scores.max(dim=-1, keepdim=True).values).exp()
    return top / scores.exp().sum(dim=-1, keepdim=True)
'''


def test_a_numerator_and_denominator_that_do_not_match_are_said_as_rows_scaled(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", NUMERATOR_SHIFTED_ONLY, "softmax")
    assert found and all("each row of yours is the reference's row times a factor of its own" in h for h in found)


def test_every_tile_visited_under_causal_is_named_as_the_condition_taken_as_never_true(tmp_path):
    reference = REFERENCES["lab-10-gradients.py"].read_text(encoding="utf-8")
    line = "for i in range(j if causal else 0, T, block):"
    assert reference.count(line) == 1
    path = tmp_path / "lab-10-gradients.py"
    path.write_text(reference.replace(line, "for i in range(0, T, block):"), encoding="utf-8")
    run = check_untimed(load_lab(path), LABS[9])
    found = [r.hint for r in run.results if not r.passed]
    assert found and all("the condition `causal` taken as never true" in h for h in found)


LOG_OF_THE_AVERAGE = '''
def average_nll(probs, ids):
    chosen = torch.stack([probs[a, b] for a, b in zip(ids[:-1].tolist(), ids[1:].tolist())])
    return -(chosen.mean()).log()
'''


def test_the_log_of_the_average_is_named_as_the_average_taken_first(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", LOG_OF_THE_AVERAGE, "average_nll")
    assert found and all("the log of the mean, not the mean of the log" in h for h in found)


SIGMOID_WEIGHTS = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    size = q.shape[-1]
    s = torch.einsum("id,jd->ij", q, k) / size ** 0.5
    later = torch.ones_like(s, dtype=torch.bool).triu(1)
    return s.masked_fill(later, -float("inf")).sigmoid()
'''


def test_sigmoid_for_softmax_is_named_with_what_a_softmax_does(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SIGMOID_WEIGHTS, "attention_weights")
    assert found and all("`sigmoid(...)` for `softmax(...)` (each weight squashed on its own" in h for h in found)


SMOOTHING_FIXED_AT_ONE = '''
def counts_to_probs(counts, smoothing=1.0):
    padded = counts + 1
    return padded / padded.sum(-1, keepdim=True)
'''


def test_a_number_given_and_never_used_is_said_with_the_value_used_instead(tmp_path):
    found = failed_checks(tmp_path, "lab-03-bigram.py", SMOOTHING_FIXED_AT_ONE, "counts_to_probs")
    (label, hint), = found.items()  # the check whose smoothing is 1 passes
    assert "smoothing 0.5" in label
    assert hint.startswith("yours is the reference's output with `smoothing` = 1.0 (its default): the `smoothing` you were given is not used")


LINEAR_BY_HAND = '''
def attention_weights(x, query, key):
    q = x @ query.weight
    k = x @ key.weight
    s = q @ k.transpose(0, 1) / q.shape[-1] ** 0.5
    s = s.masked_fill(torch.ones_like(s).triu(1).bool(), -float("inf"))
    return s.softmax(-1)
'''


def test_nn_linear_written_by_hand_without_its_transpose_is_named_for_both_layers(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", LINEAR_BY_HAND, "attention_weights")
    assert found and all("`x @ query.weight` for `query(x)` (nn.Linear keeps its weight as (out, in)" in h
                         and "`x @ key.weight` for `key(x)`" in h for h in found)


POSITIONS_FROM_THE_END = '''
def embed(tokens, token_embedding, position_embedding):
    T = tokens.shape[-1]
    where = torch.arange(T - 1, -1, -1)
    return token_embedding(tokens) + position_embedding(where)
'''


def test_positions_counted_from_the_end_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_FROM_THE_END, "embed")
    assert found and all("counted from the end (`.flip(0)`), not from the start" in h for h in found)


POSITIONS_MULTIPLIED = '''
def embed(tokens, token_embedding, position_embedding):
    rows = position_embedding.weight[: tokens.shape[-1]]
    return token_embedding(tokens) * rows
'''


def test_positions_multiplied_in_where_they_are_added_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_MULTIPLIED, "embed")
    assert found and all("`token_embedding(tokens) * ...` for `token_embedding(tokens) + ...`: multiplied, not added" in h for h in found)


def test_keys_rotated_one_position_later_are_named_in_that_call_only(tmp_path):
    reference = REFERENCES["lab-07-positions.py"].read_text(encoding="utf-8")
    line = "    q, k = rope(q, positions), rope(k, positions)  # (..., T, head_size) each\n"
    assert reference.count(line) == 1
    path = tmp_path / "lab-07-positions.py"
    path.write_text(reference.replace(line, "    q, k = rope(q, positions), rope(k, positions + 1)\n"), encoding="utf-8")
    run = check_untimed(load_lab(path), LABS[6])
    found = [r.hint for r in run.results if not r.passed and r.label.startswith("rope_attention:")]
    assert found and all("off by one there" in h and ("`positions + 1` for `positions` in `rope(k, positions)`" in h
                                                      or "`positions - 1` for `positions` in `rope(q, positions)`" in h)
                         for h in found)


def test_a_size_error_is_not_put_down_to_t_when_t_equals_the_head_size():
    from attention_by_hand.lab.attention_judges import explain_size_error

    message = "The size of tensor a (4) must match the size of tensor b (8) at non-singleton dimension 1"
    assert "T is x.shape[-2]" in explain_size_error(message, 4, 8)
    assert explain_size_error(message, 4, 8, others=(4,)) is None


SUMMED_OVER_THE_ROWS = '''
def first_token_score(pattern):
    col0 = pattern[..., 1:, 0]
    return col0.mean(dim=0).sum(dim=-1)
'''


def test_a_sum_for_a_mean_is_said_by_the_learners_own_mend_not_as_a_factor_moved_to_the_end(tmp_path):
    # the reference's `sum` for `mean`, then divided by the batch, gives it too: two steps, where one of yours says it
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", SUMMED_OVER_THE_ROWS, "first_token_score")
    assert found and all("with `mean(...)` for `sum(...)` in `return ...`" in h and "applied at the end" not in h for h in found)


# a float mask handed to scaled_dot_product_attention is added to the scores: the future is not hidden
ROPE_ATTENTION_FLOAT_MASK = '''
def rope_attention(q, k, v):
    T = q.shape[-2]
    positions = torch.arange(T)
    return torch.nn.functional.scaled_dot_product_attention(
        rope(q, positions), rope(k, positions), v, attn_mask=hidden_future(T).float())
'''


def test_a_checked_function_that_passed_its_checks_is_not_offered_as_where_the_mistake_may_be(tmp_path):
    # `rope` passed its own checks, and `hidden_future` is the lab's own, left as given (given_helpers.py)
    found = failed_hints(tmp_path, "lab-07-positions.py", ROPE_ATTENTION_FLOAT_MASK, "rope_attention")
    assert found and all("the mistake may be in there" not in h and "`rope`" not in h for h in found)
