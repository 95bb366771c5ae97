"""The mutation engine inside the labs' checks: what a learner is told when no hand-written hint
fits, that a diagnosis holds on every input, and that a right solution written otherwise passes."""

from __future__ import annotations

import json

import pytest

from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.verdict import check_in_process, plan
from labhelpers import REFERENCES, failed_hints, load_lab, patch_lab, untimed


def judged(tmp_path, filename: str, patch: str):
    """The run of the lab `filename` with `patch` applied, with the searches' time guards lifted: a busy
    machine (the suite's two workers beside other work) would otherwise leave a mend unsaid (labhelpers.untimed)."""
    path = tmp_path / filename
    path.write_text(patch_lab(REFERENCES[filename].read_text(encoding="utf-8"), patch), encoding="utf-8")
    number = int(filename[4:6])
    with untimed():
        return check_in_process(load_lab(path), LABS[number - 1])


def failing(run, function: str) -> list[str]:
    return [r.hint for r in run.results if not r.passed and r.label.startswith(function + ":")]


DOUBLED_EXPONENT = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    p = torch.arange(n_positions, dtype=torch.float32)[:, None]
    i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angle = p / base ** (2 * i / d_model)  # i already steps by two: the exponent is doubled
    out = torch.zeros(n_positions, d_model)
    out[:, 0::2], out[:, 1::2] = torch.sin(angle), torch.cos(angle)
    return out
'''


def test_a_doubled_exponent_is_named_on_every_check_and_never_as_an_ignored_base(tmp_path):
    hints = failing(judged(tmp_path, "lab-07-positions.py", DOUBLED_EXPONENT), "sinusoidal_table")
    assert len(hints) == 2
    assert all("doubled" in h for h in hints) and not any("ignored" in h for h in hints)


UNSCALED_TILES = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in range(0, T_q, block):
        q_block = q[..., i : i + block, :]
        m = torch.full(q_block.shape[:-1], float("-inf"), dtype=q.dtype)
        l = torch.zeros(q_block.shape[:-1], dtype=q.dtype)
        acc = torch.zeros(*q_block.shape[:-1], v.shape[-1], dtype=q.dtype)
        end = min(i + q_block.shape[-2], T_k) if causal else T_k
        for j in range(0, end, block):
            s = q_block @ k[..., j : j + block, :].transpose(-2, -1) * scale
            if causal and j == i:
                rows = torch.arange(i, i + s.shape[-2])[:, None]
                columns = torch.arange(j, j + s.shape[-1])[None, :]
                s = s.masked_fill(columns > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - m_new[..., None])
            rescale = torch.exp(m - m_new)
            # the root of the rescale, taken twice in two ways: no one change of the code mends both
            l = torch.sqrt(rescale) * l + p.sum(dim=-1)
            acc = rescale[..., None] ** 0.5 * acc + p @ v[..., j : j + block, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_where_nothing_explains_the_output_the_probes_say_where_it_is_right_and_where_wrong(tmp_path):
    hints = failing(judged(tmp_path, "lab-09-flash-attention.py", UNSCALED_TILES), "tiled_attention")
    first = hints[0]
    assert "right with one tile covering every key (block 16, not causal)" in first
    assert "wrong with" in first and "5 queries x 11 keys (T_q != T_k)" in first.split("wrong with")[1]


SHORT_LAST_TILE_DROPPED = '''
def tiled_attention(q, k, v, block, causal):
    T_q = q.shape[-2]
    scale = q.shape[-1] ** -0.5
    k_tiles = k.unfold(-2, block, block)  # (..., n_tiles, head_size, block): unfold keeps whole tiles only
    v_tiles = v.unfold(-2, block, block)  # (..., n_tiles, d_v, block)
    outs, lses = [], []
    for start in range(0, T_q, block):
        qb = q[..., start:start + block, :]
        top = torch.full(qb.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros_like(top)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=q.dtype)
        for t in range(k_tiles.shape[-3]):
            j = t * block
            if causal and j > start + qb.shape[-2] - 1:
                break
            s = qb @ k_tiles[..., t, :, :] * scale
            if causal:
                later = torch.arange(j, j + s.shape[-1])[None, :] > torch.arange(start, start + s.shape[-2])[:, None]
                s = s.masked_fill(later, float("-inf"))
            new_top = torch.maximum(top, s.amax(dim=-1))
            shrink = torch.exp(top - new_top)
            e = torch.exp(s - new_top[..., None])
            total = shrink * total + e.sum(dim=-1)
            acc = shrink[..., None] * acc + e @ v_tiles[..., t, :, :].transpose(-2, -1)
            top = new_top
        outs.append(acc / total[..., None])
        lses.append(top + total.log())
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_keys_of_a_short_last_tile_dropped_are_right_only_on_the_probe_of_whole_tiles(tmp_path):
    hints = failing(judged(tmp_path, "lab-09-flash-attention.py", SHORT_LAST_TILE_DROPPED), "tiled_attention")
    assert hints and "right with 8 queries x 8 keys in two whole tiles (block 4, no short last tile)" in hints[0]
    assert "one tile covering every key (block 16, not causal)" in hints[0].split("wrong with")[1]


def test_probes_are_called_after_every_case_and_are_no_checks_of_their_own():
    the_plan = plan(9, 0)
    calls = json.loads(the_plan.request)["calls"]
    assert the_plan.probes and len(calls) == len(the_plan.calls) + len(the_plan.probes)
    assert [c["id"] for c in calls] == list(range(len(calls)))


ALSO_RIGHT = {
    "lab-04-attention.py": '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = torch.einsum("id,jd->ij", q, k) * k.shape[-1] ** -0.5
    visible = torch.ones(len(x), len(x), dtype=torch.bool).tril()
    return F.softmax(torch.where(visible, scores, torch.tensor(float("-inf"))), dim=1)
''',
    "lab-02-embeddings-softmax.py": '''
def softmax(scores):
    return torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
''',
    "lab-06-transformer.py": '''
def layer_norm(x, weight, bias, eps=1e-5):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps)
''',
}


@pytest.mark.parametrize("filename", sorted(ALSO_RIGHT))
def test_a_right_solution_written_otherwise_passes(tmp_path, filename):
    run = judged(tmp_path, filename, ALSO_RIGHT[filename])
    assert run.exit_code == 0, [r.hint for r in run.results if not r.passed]


ONE_HOT_BY_WIDTH = '''
def one_hot_lookup(ids, weight):
    return F.one_hot(ids, num_classes=weight.shape[1]).float() @ weight
'''


def test_a_function_that_raised_on_every_case_is_diagnosed_by_the_change_that_raises_there_too(tmp_path):
    # It raises on the (6, 3) table and runs on the probe's square one: only the width mix-up does both.
    from attention_by_hand.lab.diagnosis import diagnose
    from attention_by_hand.lab.outcomes import Tried, call

    path = tmp_path / "lab-02-embeddings-softmax.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), ONE_HOT_BY_WIDTH), encoding="utf-8")
    learner, reference = load_lab(path), load_lab(REFERENCES[path.name])
    the_plan = plan(2, 0)
    args = [a for c, a in the_plan.calls if c.function == "one_hot_lookup"]
    args += [p.args for c, p in the_plan.probes if c.function == "one_hot_lookup"]
    found = diagnose(reference, "one_hot_lookup", [Tried(a, call(learner.one_hot_lookup, a)) for a in args])
    assert found is not None and found.hint.startswith("yours equals the reference with `weight.shape[-1]` for `weight.shape[0]`")
    assert "`weight.shape[1]` for `weight.shape[0]`" in found.hint  # the same numbers on a (rows, width) table
    assert found.raised_only


def test_a_change_that_matched_by_its_error_alone_gives_way_to_the_mend_of_the_learners_line(tmp_path):
    hints = failing(judged(tmp_path, "lab-02-embeddings-softmax.py", ONE_HOT_BY_WIDTH), "one_hot_lookup")
    assert len(hints) == 1 and hints[0].startswith("raised RuntimeError")
    assert "the wrong axis (line " in hints[0] and "with `weight.shape[-2]` for `weight.shape[1]` in `return ...`" in hints[0]


MEAN_OVER_EVERY_ID = '''
def average_nll(probs, ids):
    return -torch.log(probs[ids[:-1], ids[1:]]).sum() / len(ids)
'''


def test_a_mean_over_the_wrong_count_is_said_as_a_ratio_of_the_references_lengths(tmp_path):
    hints = failing(judged(tmp_path, "lab-03-bigram.py", MEAN_OVER_EVERY_ID), "average_nll")
    assert hints and all("multiplied by len(p_next) / len(ids)" in h for h in hints)


HALF_PRECISION = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = (q @ k.T / math.sqrt(k.shape[-1])).half()  # the mistake: float16 keeps 3 digits
    hidden = torch.ones(len(x), len(x), dtype=torch.bool).triu(1)
    return torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
'''


def test_weights_cast_to_fewer_digits_are_said_as_the_cast_with_both_types(tmp_path):
    hints = failing(judged(tmp_path, "lab-04-attention.py", HALF_PRECISION), "attention_weights")
    assert hints and all("yours is torch.float16, the reference's torch.float32: a cast on the way" in h for h in hints)


EARLIER_WORDS_MASKED = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    size = C // n_heads
    q, k, v = (t.view(B, 1, n_heads, size).transpose(1, 2) for t in qkv(x_new).split(C, dim=-1))
    keys, values = append_to_cache(cache, k, v)
    scores = q @ keys.transpose(-2, -1) / math.sqrt(size)
    earlier = torch.arange(keys.shape[2]) < position  # the mistake: the past hidden, not the future
    weights = torch.softmax(scores.masked_fill(earlier, float("-inf")), dim=-1)
    return proj((weights @ values).transpose(1, 2).reshape(B, 1, C)), (keys, values)
'''


def test_a_new_word_that_sees_only_itself_with_the_cache_kept_is_not_told_the_cache_is_not_kept(tmp_path):
    hints = failing(judged(tmp_path, "lab-08-kv-cache.py", EARLIER_WORDS_MASKED), "decode_step")
    assert hints and all("or the mask hides the earlier words" in h and "not kept" not in h for h in hints)


def test_a_coarser_type_is_not_blamed_when_the_numbers_differ_past_its_digits():
    import torch

    from attention_by_hand.lab.judging import judge_tensor

    expected = torch.rand(4, 4, dtype=torch.float64)
    miss = judge_tensor((expected * 2).float(), expected, "(T, T)")
    assert "a cast" not in miss.text() and "largest difference" in miss.text()


MASK_KEPT_WHERE_TRUE = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = q @ k.T / math.sqrt(k.shape[-1])
    future = torch.ones(len(x), len(x), dtype=torch.bool).triu(1)
    return torch.softmax(torch.where(future, scores, float("-inf")), dim=-1)  # the branches swapped
'''


def test_a_mask_that_keeps_what_it_should_hide_is_named_as_the_mask_inverted(tmp_path):
    hints = failing(judged(tmp_path, "lab-04-attention.py", MASK_KEPT_WHERE_TRUE), "attention_weights")
    assert hints and all("the mask inverted: it hides what it should keep" in h for h in hints)


SIZE_AS_FLOAT = '''
def split_heads(t, n_heads):
    size = t.shape[-1] / n_heads  # the mistake: true division makes a float
    return t.reshape(t.shape[0], n_heads, size).transpose(0, 1)
'''


def test_a_size_made_by_true_division_is_said_to_be_a_float(tmp_path):
    hints = failing(judged(tmp_path, "lab-05-multihead.py", SIZE_AS_FLOAT), "split_heads")
    assert hints and all("a size or an axis given as a float: `/` divides to a float" in h for h in hints)


def test_an_invalid_combination_of_arguments_is_not_said_to_be_a_float_size():
    import torch

    from attention_by_hand.lab.judging import hint_for_exception

    try:
        torch.zeros(2, 4).var(-1, keepdim=1.0, unbiased=0.5)
    except TypeError as error:
        message = str(error)
    assert "tuple of ints" in message and "given as a float" not in hint_for_exception("TypeError", message)


SCALED_NOT_SHIFTED = '''
def softmax(scores):
    top = scores.amax(dim=-1, keepdim=True)
    e = torch.exp(scores / top)
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_a_row_divided_by_its_max_where_it_is_shifted_is_named_divided_not_subtracted(tmp_path):
    hints = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SCALED_NOT_SHIFTED, "softmax")
    assert hints and all("divided instead of subtracted, in `shifted = ...`" in h for h in hints)


ROW_TERM_WITHOUT_ITS_AXIS = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    T = q.shape[-2]
    scale = q.shape[-1] ** -0.5
    D = torch.einsum("...td,...td->...t", d_out, out)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for j in range(0, T, block):
        for i in range(j if causal else 0, T, block):
            s = q[..., i : i + block, :] @ k[..., j : j + block, :].transpose(-2, -1) * scale
            if causal and i == j:
                s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
            p = torch.exp(s - lse[..., i : i + block, None])
            dv[..., j : j + block, :] += p.transpose(-2, -1) @ d_out[..., i : i + block, :]
            dp = d_out[..., i : i + block, :] @ v[..., j : j + block, :].transpose(-2, -1)
            ds = p * (dp - D[..., i : i + block])  # one number per query row, not lined up with the rows
            dq[..., i : i + block, :] += ds @ k[..., j : j + block, :] * scale
            dk[..., j : j + block, :] += ds.transpose(-2, -1) @ q[..., i : i + block, :] * scale
    return dq, dk, dv
'''


def test_a_row_term_without_its_new_axis_is_named_as_the_none_left_out(tmp_path):
    hints = failing(judged(tmp_path, "lab-10-gradients.py", ROW_TERM_WITHOUT_ITS_AXIS), "tiled_attention_backward")
    assert hints and all("`D[..., i:i + block]` for `D[..., i:i + block, None]` (the new axis, `None`, left out" in h
                         for h in hints)


HEADS_AFTER_THE_REMOVED_ONE_DROPPED = '''
def ablate_head(scores, values, head):
    out = None
    for h, (s, v) in enumerate(zip(scores.unbind(1), values.unbind(1))):
        if h == head:
            break  # meant: skip this head only
        term = torch.softmax(s, dim=-1) @ v
        out = term if out is None else out + term
    return out if out is not None else torch.zeros_like(values[:, 0])
'''


def test_a_break_where_continue_was_meant_is_said_in_the_learners_code_and_no_other_head_is_blamed(tmp_path):
    hints = failing(judged(tmp_path, "lab-11-induction-heads.py", HEADS_AFTER_THE_REMOVED_ONE_DROPPED), "ablate_head")
    assert hints and all(h.startswith("`break` where `continue` is needed") and "with `continue` for `break`" in h
                         for h in hints)
    # removing a head in the middle (a probe) tells "every head after it" from "the last head"; the
    # mend of the learner's own line is said alone, with no change of the reference beside it
    assert not any("shape[1] - 1" in h or "yours equals the reference" in h for h in hints)


FUSED_WITHOUT_THE_MASK = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    q, k, v = split_heads(query(x), n_heads), split_heads(key(x), n_heads), split_heads(value(x), n_heads)
    mixed = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    future = torch.ones(x.shape[0], x.shape[0], dtype=torch.bool).triu(1)
    weights = (q @ k.mT / q.shape[-1] ** 0.5).masked_fill(future, float("-inf")).softmax(-1)
    return proj(merge_heads(mixed)), weights
'''


def test_the_fused_attention_without_its_causal_flag_is_mended_by_the_flag(tmp_path):
    hints = failing(judged(tmp_path, "lab-05-multihead.py", FUSED_WITHOUT_THE_MASK), "multi_head_attention")
    assert hints and all("`is_causal=True` left out" in h and "is_causal=True)` for `" in h for h in hints)


def test_a_scale_read_off_the_values_width_is_named_as_the_size_of_the_wrong_tensor(tmp_path):
    # the values' width d_v for the head size: the same wherever d_v == head_size, so one check fails
    patch = (UNSCALED_TILES.replace("1 / math.sqrt(q.shape[-1])", "1 / math.sqrt(v.shape[-1])")
             .replace("torch.sqrt(rescale) * l", "rescale * l").replace("rescale[..., None] ** 0.5", "rescale[..., None]"))
    hints = failing(judged(tmp_path, "lab-09-flash-attention.py", patch), "tiled_attention")
    assert hints and all("`math.sqrt(v.shape[-1])` for `math.sqrt(q.shape[-1])` (d_v, not head_size)" in h for h in hints)


LOG2_NORMALISER = '''
def softmax(scores):
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    return torch.exp(shifted - torch.log2(torch.exp(shifted).sum(dim=-1, keepdim=True)))
'''


def test_a_relation_between_outputs_is_followed_by_the_mend_that_names_the_function(tmp_path):
    hints = failing(judged(tmp_path, "lab-02-embeddings-softmax.py", LOG2_NORMALISER), "softmax")
    assert hints and all("times a factor of its own" in h and "with `log(...)` for `log2(...)`" in h for h in hints)


RESCALED_ONLY_WHEN_EVERY_ROW_GROWS = '''
def online_softmax(scores):
    top = torch.full_like(scores[..., :1], float("-inf"))
    total = torch.zeros_like(top)
    for j in range(scores.shape[-1]):
        col = scores[..., j : j + 1]
        if bool((col > top).all()):  # meant for each row on its own
            total = total * torch.exp(top - col)
        top = torch.maximum(top, col)
        total = total + torch.exp(col - top)
    return torch.exp(scores - top) / total
'''


def test_another_variable_that_happens_to_mend_it_is_not_said_after_a_relation(tmp_path):
    # `torch.maximum(top, scores)` gives the right numbers too, but the mistake is the `.all()`:
    # a variable's mend names no concept, so only the relation is said
    hints = failing(judged(tmp_path, "lab-09-flash-attention.py", RESCALED_ONLY_WHEN_EVERY_ROW_GROWS), "online_softmax")
    assert hints and all("times a factor of its own" in h and "the wrong variable" not in h for h in hints)


NEXT_ID_AS_ID_PLUS_ONE = '''
def bigram_counts(ids, vocab_size):
    table = torch.zeros(vocab_size, vocab_size)
    for t in range(len(ids) - 1):
        here, after = ids[t], ids[t] + 1  # meant: the id that comes after
        table[here, after % vocab_size] += 1
    return table
'''


def test_one_added_to_an_entry_where_it_belongs_in_the_index_is_mended_by_moving_it(tmp_path):
    hints = failing(judged(tmp_path, "lab-03-bigram.py", NEXT_ID_AS_ID_PLUS_ONE), "bigram_counts")
    assert hints and all("1 added to the entry, not added to its index" in h and "with `ids[t + 1]` for `ids[t] + 1`" in h
                         for h in hints)


STANDARDISED_FIRST = '''
def softmax(scores):
    z = (scores - scores.mean(dim=-1, keepdim=True)) / scores.std(dim=-1, keepdim=True)  # "keeps exp tame"
    e = torch.exp(z - z.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_scores_standardised_before_the_softmax_are_said_as_the_reference_on_a_changed_input(tmp_path):
    hints = failing(judged(tmp_path, "lab-02-embeddings-softmax.py", STANDARDISED_FIRST), "softmax")
    assert hints and all(h.startswith("yours is the reference's output on `scores` standardised along its last axis")
                         for h in hints)


def test_a_size_is_read_off_another_tensor_only_of_as_many_axes():
    import torch

    from attention_by_hand.lab.diagnosis import _plausible
    from attention_by_hand.lab.mutant_edits import Change

    seen = {"f": {"q": torch.zeros(2, 3, 4), "v": torch.zeros(2, 3, 5), "w": torch.zeros(4, 5)}}
    assert _plausible(Change("f", 0, "shape_of", ("q", "v"), "variable", ""), seen)
    assert not _plausible(Change("f", 0, "shape_of", ("q", "w"), "variable", ""), seen)


# the rows' mean taken after the mask: every row with a masked score becomes nan, and so does the
# reference with the mask's fill made +inf; nan matches nan whatever made it
CENTRED_AFTER_THE_MASK = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    s = s.masked_fill(causal_mask(x.shape[-2]), float("-inf"))
    s = s - s.mean(dim=-1, keepdim=True)
    return torch.softmax(s, dim=-1)
'''


def test_a_change_of_the_reference_that_matches_only_by_nan_where_the_learners_is_nan_is_not_said(tmp_path):
    hints = failed_hints(tmp_path, "lab-04-attention.py", CENTRED_AFTER_THE_MASK, "attention_weights")
    assert hints and not any("float('inf')" in h for h in hints)
    assert all("the first nan was made at line" in h and "a term too many (`s.mean(dim=-1, keepdim=True)`)" in h for h in hints)


def test_a_fill_of_plus_inf_that_no_mend_of_the_learners_line_explains_is_still_said(tmp_path):
    patch = CENTRED_AFTER_THE_MASK.replace('float("-inf")', 'float("inf")').replace(
        "    s = s - s.mean(dim=-1, keepdim=True)\n", "")
    hints = failed_hints(tmp_path, "lab-04-attention.py", patch, "attention_weights")
    assert hints and all(h == "yours equals the reference with `float('inf')` for `float('-inf')` in `scores = ...`" for h in hints)


ROWS_BY_A_MATRIX_PRODUCT = '''
def softmax_backward(p, dp):
    D = torch.matmul(p, dp.T)
    return p * (dp - D)
'''


def test_a_change_that_raises_a_size_error_in_other_words_is_never_said_where_the_learners_only_raised(tmp_path):
    # `keepdim=False` raises a size error too, of other sizes: no evidence of that slip
    hints = failing(judged(tmp_path, "lab-10-gradients.py", ROWS_BY_A_MATRIX_PRODUCT), "softmax_backward")
    assert hints and not any("yours equals the reference with" in h for h in hints)
    assert all("`D = torch.matmul(p, dp.T)`" in h for h in hints)


BUFFER_LIKE_THE_KEYS = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    T = q.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    D = (d_out * out).sum(dim=-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(k)
    for j in range(0, T, block):
        k_j, v_j = k[..., j : j + block, :], v[..., j : j + block, :]
        for i in range(j if causal else 0, T, block):
            q_i, d_out_i = q[..., i : i + block, :], d_out[..., i : i + block, :]
            s = q_i @ k_j.transpose(-2, -1) * scale
            if causal and i == j:
                rows = torch.arange(i, i + s.shape[-2])[:, None]
                columns = torch.arange(j, j + s.shape[-1])[None, :]
                s = s.masked_fill(columns > rows, float("-inf"))
            p = torch.exp(s - lse[..., i : i + block, None])
            dv[..., j : j + block, :] += p.transpose(-2, -1) @ d_out_i
            ds = p * (d_out_i @ v_j.transpose(-2, -1) - D[..., i : i + block, None])
            dq[..., i : i + block, :] += ds @ k_j * scale
            dk[..., j : j + block, :] += ds.transpose(-2, -1) @ q_i * scale
    return dq, dk, dv
'''


def test_a_buffer_made_like_another_tensor_is_mended_on_its_own_line_not_said_as_two_buffers_swapped(tmp_path):
    # swapping dq and dv raises the same error, before the swapped dq is ever used: only dv was wrong
    hints = failing(judged(tmp_path, "lab-10-gradients.py", BUFFER_LIKE_THE_KEYS), "tiled_attention_backward")
    assert hints and not any("swapped" in h for h in hints)
    assert all("with `torch.zeros_like(v)` for `torch.zeros_like(k)`" in h for h in hints)


def test_a_mask_of_another_dtype_is_told_to_be_bool_not_to_be_converted_to_float():
    from attention_by_hand.lab.judging import hint_for_exception

    for message in ("masked_fill_ only supports boolean masks, but got mask with dtype float",
                    "where expected condition to be a boolean tensor, but got a tensor with dtype Long"):
        said = hint_for_exception("RuntimeError", message)
        assert "bool" in said and ".float()" not in said


DIVIDED_BY_THE_FIRST_ROWS_SUM = '''
def softmax(scores):
    shifted = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return shifted / shifted.sum(-1, keepdim=True)[0]
'''


def test_an_index_of_habit_is_said_after_the_rows_factors_that_show_it(tmp_path):
    hints = failing(judged(tmp_path, "lab-02-embeddings-softmax.py", DIVIDED_BY_THE_FIRST_ROWS_SUM), "softmax")
    assert hints and all("a factor of its own" in h for h in hints)
    assert all("only the first entry along the first axis, `shifted.sum(" in h and "keepdim=True)[0]` in `return ...`" in h for h in hints)


COUNTS_FROM_ONE = '''
def bigram_counts(ids, vocab_size):
    counts = torch.ones(vocab_size, vocab_size)
    for a, b in zip(ids[:-1].tolist(), ids[1:].tolist()):
        counts[a, b] += 1
    return counts
'''


def test_ones_for_zeros_in_the_reference_is_said_with_words_that_take_no_side(tmp_path):
    # the reference's zeros are right: the words must not argue for ones
    hints = failing(judged(tmp_path, "lab-03-bigram.py", COUNTS_FROM_ONE), "bigram_counts")
    assert hints and all("`ones(...)` for `zeros(...)` (zeros start a sum or a count at 0; ones start it at 1)" in h for h in hints)


SOFTMAX_ALONG_AXIS_ONE = '''
def softmax(scores):
    return torch.nn.functional.softmax(scores, dim=1)
'''


def test_a_change_that_matched_by_its_error_alone_stays_where_two_mends_of_the_learners_line_name_two_slips(tmp_path):
    # `dim=-1` for `dim=1`, or `dim=1` left out (softmax's implicit axis): the change says one slip
    hints = failing(judged(tmp_path, "lab-02-embeddings-softmax.py", SOFTMAX_ALONG_AXIS_ONE), "softmax")
    assert hints and all("yours equals the reference with `dim=1` for `dim=-1`" in h and "either of two" not in h for h in hints)
