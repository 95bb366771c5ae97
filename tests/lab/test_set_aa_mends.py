"""Mistakes of the kinds the retired set AA held, each written here another way than set AA's file:
a layer's `apply` taken for running it, an error raised at another step than a change of the
reference's, a running value started again at every pass, a no-op transpose offered beside the
transpose taken away, a helper the learner never calls, the habits of other tools (an augmented
assignment, `+` for joining, a factor inside a call, F.pad's order) and calls easily misread."""

from __future__ import annotations

from attention_by_hand.lab.call_words import call_words
from attention_by_hand.lab.judging import hint_for_exception
from labhelpers import REFERENCES, failed_hints, load_lab

LAYER_APPLIED = '''
def block_forward(x, ln1, attn, ln2, mlp):
    normed = ln1(x)
    h = x + attn.apply(normed)
    return h + mlp(ln2(h))
'''


def test_a_layers_apply_taken_for_running_it_is_named_with_the_call_that_runs_it(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", LAYER_APPLIED, "block_forward")
    assert found and all("`attn.apply(normed)` does not run the layer" in h and "`attn(normed)`" in h for h in found)


# the weights come first and run; the values' line then calls a tensor, as a change of the
# reference that puts `x` for `query` would inside attention_weights
TENSOR_CALLED_AT_A_LATER_STEP = '''
def self_attention(x, query, key, value):
    weights = attention_weights(x, query, key)
    v = value.weight.T(x) + value.bias
    return weights @ v, weights
'''


def test_an_error_raised_at_a_later_step_is_not_named_as_a_change_inside_a_helper(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", TENSOR_CALLED_AT_A_LATER_STEP, "self_attention")
    assert found and all("not callable" in h for h in found)
    assert not any("swapped" in h for h in found)


# the sum of exponentials starts again for every column: it reads the column for its shape
SUM_STARTED_EACH_PASS = '''
def online_softmax(scores):
    top = torch.full(scores.shape[:-1] + (1,), -math.inf)
    for j in range(scores.shape[-1]):
        col = scores[..., j:j + 1]
        total = torch.zeros_like(col)
        new_top = torch.maximum(top, col)
        total = total * torch.exp(top - new_top) + torch.exp(col - new_top)
        top = new_top
    return torch.exp(scores - top) / total
'''


def test_a_running_sum_started_at_every_pass_is_named_and_not_as_a_term_dropped(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", SUM_STARTED_EACH_PASS, "online_softmax")
    assert found and all("starts `total` again at every pass" in h and "done once, on the first pass" in h for h in found)
    assert all("on the loop's first pass, or before the loop from a shape known there" in h for h in found)
    assert not any("dropped" in h for h in found)


# the running state of one query block restarted for every key block, inside the inner loop
STATE_STARTED_PER_KEY_BLOCK = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k, c = q.shape[-2], k.shape[-2], 1 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in range(0, n_q, block):
        qi = q[..., i:i + block, :]
        rows = qi.shape[-2]
        for j in range(0, min(n_k, i + rows) if causal else n_k, block):
            peak = torch.full(qi.shape[:-1] + (1,), -math.inf)
            mass = torch.zeros(qi.shape[:-1] + (1,))
            acc = torch.zeros(qi.shape[:-1] + (v.shape[-1],))
            s = qi @ k[..., j:j + block, :].transpose(-2, -1) * c
            if causal:
                ahead = torch.arange(j, j + s.shape[-1]) > torch.arange(i, i + rows)[:, None]
                s = s.masked_fill(ahead, -math.inf)
            new_peak = torch.maximum(peak, s.amax(-1, keepdim=True))
            p = torch.exp(s - new_peak)
            fade = torch.exp(peak - new_peak)
            mass = mass * fade + p.sum(-1, keepdim=True)
            acc = acc * fade + p @ v[..., j:j + block, :]
            peak = new_peak
        outs.append(acc / mass)
        lses.append((peak + torch.log(mass)).squeeze(-1))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_running_state_started_inside_the_inner_loop_is_moved_before_it(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", STATE_STARTED_PER_KEY_BLOCK, "tiled_attention")
    assert found and all("moved before the loop over `j`" in h and "start them once, before the loop" in h for h in found)


TWO_TRANSPOSES = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    kt, vt = k.transpose(-2, -1), v.transpose(-2, -1)
    weights = torch.softmax(q @ kt / math.sqrt(q.shape[-1]) + torch.full((q.shape[1],) * 2, -math.inf).triu(1), dim=-1)
    return proj(merge_heads(weights @ vt)), weights
'''


def test_an_axis_that_makes_a_transpose_do_nothing_is_not_offered_beside_taking_it_away(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", TWO_TRANSPOSES, "multi_head_attention")
    assert found and all("transposed once too often" in h for h in found)
    assert not any("the wrong axis" in h for h in found)


# the learner reads its mask off the bias, which is 0 on the diagonal too; the reference's helper is never called
DIAGONAL_HIDDEN_BY_A_COMPARISON = '''
def alibi_attention(q, k, v, slope):
    n = q.shape[-2]
    bias = alibi_bias(n, slope)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + bias
    s = s.masked_fill(~(bias < 0), -math.inf)
    return s.softmax(-1) @ v
'''


def test_a_change_in_a_helper_the_learner_never_calls_is_said_as_the_references_and_what_it_does(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", DIAGONAL_HIDDEN_BY_A_COMPARISON, "alibi_attention")
    named = [h for h in found if "yours equals the reference with" in h]
    assert named and all("which the reference's alibi_attention() calls" in h for h in named)
    assert all("takes in the main diagonal too" in h for h in named)


AUGMENTED_FOLD = '''
def online_softmax(scores):
    m = scores[..., :1].clone()
    l = torch.ones_like(m)
    for j in range(1, scores.shape[-1]):
        s = scores[..., j:j + 1]
        m_new = torch.maximum(m, s)
        l *= torch.exp(m - m_new) + torch.exp(s - m_new)
        m = m_new
    return torch.exp(scores - m) / l
'''


def test_an_augmented_assignment_read_as_a_statement_in_two_steps_is_unfolded(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", AUGMENTED_FOLD, "online_softmax")
    assert found and all("applies `*` to the whole right side" in h for h in found)
    assert all("`l = l * torch.exp(m - m_new) + torch.exp(s - m_new)`" in h for h in found)


SLICES_ADDED = '''
def ablate_head(scores, values, head):
    w = torch.softmax(scores, dim=-1)
    per_head = w @ values
    kept = per_head[:, 0:head, :, :] + per_head[:, head + 1:, :, :]
    return kept.sum(dim=1)
'''


def test_two_slices_added_where_they_were_to_be_joined_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", SLICES_ADDED, "ablate_head")
    assert found and all("adds the two slices entry by entry" in h and "torch.cat((" in h for h in found)


LOG_OF_A_QUOTIENT = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    where = torch.arange(n_positions, dtype=torch.float32)[:, None]
    pair = torch.arange(0, d_model, 2, dtype=torch.float32)
    rate = torch.exp(pair * -math.log(base / d_model))
    table = torch.zeros(n_positions, d_model)
    table[:, 0::2] = torch.sin(where * rate)
    table[:, 1::2] = torch.cos(where * rate)
    return table
'''


def test_a_division_moved_inside_a_log_is_taken_back_out(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", LOG_OF_A_QUOTIENT, "sinusoidal_table")
    assert found and all("`math.log(base) / d_model` for `math.log(base / d_model)`" in h for h in found)
    assert all("divided inside `math.log(...)`" in h for h in found)


PAD_ON_THE_LAST_AXIS = '''
def append_to_cache(cache, k_new, v_new):
    keys, values = cache
    n, extra = keys.shape[-2], k_new.shape[-2]
    grown_k = F.pad(keys, [0, extra])
    grown_k[..., n:, :] = k_new
    return grown_k, torch.cat([values, v_new], dim=-2)
'''


def test_f_pads_pairs_given_for_the_wrong_axis_are_moved_one_axis_back(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", PAD_ON_THE_LAST_AXIS, "append_to_cache")
    assert found and all("F.pad's pairs start at the LAST axis" in h and "`[0, 0, 0, extra]` for `[0, extra]`" in h
                         for h in found)


def test_an_output_with_no_graph_is_explained_with_the_checks_gradient_mode():
    said = hint_for_exception("RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn")
    assert "torch.no_grad()" in said and "torch.enable_grad()" in said


def test_torch_funcs_grad_is_described_by_the_argument_it_differentiates():
    lab = load_lab(REFERENCES["lab-10-gradients.py"])
    said = call_words(["ds = torch.func.grad(f)(p, dp)"], lab, "softmax_backward") or ""
    assert "FIRST argument alone" in said and "argnums" in said


def test_autograds_grad_is_not_described_as_torch_funcs():
    lab = load_lab(REFERENCES["lab-10-gradients.py"])
    said = call_words(["g, = torch.autograd.grad(out, [x])"], lab, "softmax_backward") or ""
    assert "argnums" not in said


def test_gathers_index_is_said_not_to_broadcast():
    lab = load_lab(REFERENCES["lab-11-induction-heads.py"])
    said = call_words(["picked = pattern.gather(-1, idx)"], lab, "previous_token_score") or ""
    assert "not broadcast" in said and "the index's shape" in said


def test_a_norm_with_no_axis_is_said_to_give_one_number():
    lab = load_lab(REFERENCES["lab-03-bigram.py"])
    said = call_words(["p = c / c.norm(p=1)"], lab, "counts_to_probs") or ""
    assert "one number for the whole tensor" in said


def test_nonzero_is_said_to_give_positions_not_a_mask():
    lab = load_lab(REFERENCES["lab-04-attention.py"])
    said = call_words(["hidden = causal_mask(T).nonzero()"], lab, "attention_weights") or ""
    assert "positions" in said and "not a mask" in said


def test_addcmul_is_described_only_where_given_a_value():
    lab = load_lab(REFERENCES["lab-06-transformer.py"])
    assert call_words(["return torch.addcmul(bias, normed, weight)"], lab, "layer_norm") is None
    assert "one number" in (call_words(["return torch.addcmul(bias, normed, weight, value=g)"], lab, "layer_norm") or "")
