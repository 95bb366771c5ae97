"""Mistakes that are no edit of one token of the reference, named all the same: statistics over the
whole tensor, the average for a maximum, a size read from another variable, an argument used after
the reference updated it, blocks of columns added up, a running maximum started at 0. Each learner
function here is written its own way, unlike the reference's code."""

from __future__ import annotations

import inspect

import pytest
import torch

from attention_by_hand.lab.intermediates import intermediate
from attention_by_hand.lab.registry import LABS
from labhelpers import REFERENCES, check_untimed, failed_checks, failed_hints, load_lab


LAYER_NORM_OVER_EVERYTHING = '''
def layer_norm(x, weight, bias, eps=1e-5):
    centre = x.mean()
    spread = ((x - centre) ** 2).mean()
    return weight * (x - centre) / (spread + eps) ** 0.5 + bias
'''


def test_a_layer_norm_over_the_whole_tensor_is_named_as_both_statistics_over_everything(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", LAYER_NORM_OVER_EVERYTHING, "layer_norm")
    assert found and all(f"`x.{f}(...)` over the whole tensor, not along one axis (`dim=-1, keepdim=True` left out)" in h
                         for h in found for f in ("mean", "var"))


RESIDUAL_FROM_THE_INPUT = '''
def block_forward(x, ln1, attn, ln2, mlp):
    attended = attn(ln1(x))
    after_attention = x + attended
    thought = mlp(ln2(after_attention))
    return x + thought
'''


def test_a_second_residual_added_to_the_blocks_input_is_named_as_the_x_it_was_given(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", RESIDUAL_FROM_THE_INPUT, "block_forward")
    assert found and all("the original x (as the function was given it)" in h for h in found)


SOFTMAX_SHIFTED_BY_THE_MEAN = '''
def softmax(scores):
    centre = scores.sum(-1, keepdim=True) / scores.shape[-1]
    e = (scores - centre).exp()
    return e / e.sum(-1, keepdim=True)
'''


def test_a_softmax_shifted_by_its_rows_average_is_named_and_not_as_a_minimum(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SOFTMAX_SHIFTED_BY_THE_MEAN, "softmax")
    assert found and all("the average, not the maximum" in h and "min(" not in h for h in found)


SOFTMAX_SHIFTED_BY_THE_FIRST_OF_A_SORT = '''
def softmax(scores):
    ordered, _ = torch.sort(scores, dim=-1)
    e = torch.exp(scores - ordered[..., :1])
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_a_softmax_shifted_by_the_first_of_an_ascending_sort_is_mended_with_the_last_not_an_index_off_by_one(tmp_path):
    # softmax ignores every finite shift, so the second smallest score (`1:2`) gives the reference's
    # values wherever nothing overflows: only a row whose second smallest is far below its largest
    # tells it apart from the maximum, which the sort puts last
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", SOFTMAX_SHIFTED_BY_THE_FIRST_OF_A_SORT, "softmax")
    assert found and all("takes the FIRST entry" in h and "`-1:` for `:1`" in h and "off by one" not in h for h in found)


HEADS_ADDED = '''
def merge_heads(t):
    total = t[0]
    for head in t[1:]:
        total = total + head
    return total
'''


def test_heads_added_instead_of_placed_side_by_side_is_said_as_blocks_summed(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_ADDED, "merge_heads")
    assert found and all("blocks summed into one" in h for h in found)


RUNNING_MAXIMUM_FROM_ZERO = '''
def online_softmax(scores):
    top = scores.new_zeros(scores.shape[:-1])
    total = scores.new_zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        column = scores[..., j]
        bigger = torch.where(column > top, column, top)
        total = total * torch.exp(top - bigger) + torch.exp(column - bigger)
        top = bigger
    return torch.exp(scores - top.unsqueeze(-1)) / total.unsqueeze(-1)
'''


def test_a_running_maximum_started_at_zero_fails_on_scores_far_below_zero_and_is_named(tmp_path):
    found = failed_checks(tmp_path, "lab-09-flash-attention.py", RUNNING_MAXIMUM_FROM_ZERO, "online_softmax")
    (label, hint), = found.items()
    assert label.endswith("near -300") and "`0.0` for `float('-inf')`" in hint


def test_tiles_scaled_by_their_width_are_named_as_another_size(tmp_path):
    reference = REFERENCES["lab-09-flash-attention.py"].read_text(encoding="utf-8")
    assert reference.count("1 / math.sqrt(q.shape[-1])") == 1
    path = tmp_path / "lab-09-flash-attention.py"
    path.write_text(reference.replace("1 / math.sqrt(q.shape[-1])", "block ** -0.5"), encoding="utf-8")
    run = check_untimed(load_lab(path), LABS[8])
    found = [r.hint for r in run.results if not r.passed]
    assert found and all("`block` for `q.shape[-1]` (a wrong size" in h for h in found)


NO_OUTPUT_PROJECTION = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    batch, _, width = x_new.shape
    size = width // n_heads
    def heads_first(t):
        return t.reshape(batch, 1, n_heads, size).permute(0, 2, 1, 3)
    q, k, v = (heads_first(t) for t in qkv(x_new).chunk(3, dim=-1))
    keys = torch.cat([cache[0], k], dim=2)
    values = torch.cat([cache[1], v], dim=2)
    w = torch.softmax(q @ keys.transpose(2, 3) * size ** -0.5, dim=-1)
    mixed = (w @ values).permute(0, 2, 1, 3).reshape(batch, 1, width)
    return mixed, (keys, values)
'''


def test_an_output_projection_never_applied_is_named_as_the_layer_left_out(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", NO_OUTPUT_PROJECTION, "decode_step")
    assert found and all("(the layer `proj` left out)" in h for h in found)


def _reference_blend(x, w):
    """A stand-in reference for intermediates.py: three steps, one name rebound."""
    scores = x @ w  # (T, T)
    scores = scores - scores.amax(dim=-1, keepdim=True)
    weights = torch.softmax(scores, dim=-1)
    return weights @ x


@pytest.fixture(scope="module")
def blended():
    """(the reference's lines by number, two inputs, its shifted scores on each)."""
    lines, first = inspect.getsourcelines(_reference_blend)
    numbered = [""] * (first - 1) + [line.rstrip("\n") for line in lines]
    inputs = [(torch.randn(4, 4), torch.randn(4, 4)), (torch.randn(6, 6), torch.randn(6, 6))]
    shifted = [(x @ w) - (x @ w).amax(dim=-1, keepdim=True) for x, w in inputs]
    return numbered, inputs, shifted


def test_an_output_that_is_one_of_the_references_intermediate_values_is_said_with_its_line(blended):
    numbered, inputs, shifted = blended
    said = intermediate(_reference_blend, inputs, shifted, numbered)
    assert "intermediate value `scores` as `scores = scores - scores.amax(dim=-1, keepdim=True)` leaves it" in said


def test_an_argument_returned_unchanged_is_said_as_such(blended):
    numbered, inputs, _ = blended
    said = intermediate(_reference_blend, inputs, [x for x, _ in inputs], numbered)
    assert said.startswith("yours returns the argument `x` unchanged")


def test_an_output_equal_to_no_intermediate_value_gets_no_such_words(blended):
    numbered, inputs, shifted = blended
    assert intermediate(_reference_blend, inputs, [2 * s for s in shifted], numbered) is None




IDS_OFF_BY_ONE = '''
def one_hot_lookup(ids, weight):
    rows = [weight[i + 1] for i in ids.tolist()]
    return torch.stack(rows)
'''


def test_every_id_off_by_one_is_said_as_the_references_output_on_ids_plus_one(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", IDS_OFF_BY_ONE, "one_hot_lookup")
    assert found and any("`ids + 1` for `ids` in `F.one_hot(ids, num_classes=weight.shape[0])`: off by one there" in h
                         for h in found)


# the values' gradient taken with the forward's output where the gradient at it belongs
TILED_BACKWARD_OUT_FOR_D_OUT = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    c = q.shape[-1] ** -0.5
    rowdot = (out * d_out).sum(-1)
    grads = [torch.zeros_like(t) for t in (q, k, v)]
    for start in range(0, n, block):
        stop = min(start + block, n)
        for a in range(start if causal else 0, n, block):
            b = min(a + block, n)
            s = torch.einsum("...qd,...kd->...qk", q[..., a:b, :], k[..., start:stop, :]) * c
            if causal and a == start:
                s = s.masked_fill(torch.ones(b - a, stop - start, dtype=torch.bool).triu(1), float("-inf"))
            p = (s - lse[..., a:b].unsqueeze(-1)).exp()
            grads[2][..., start:stop, :] += p.transpose(-1, -2) @ out[..., a:b, :]
            ds = p * (d_out[..., a:b, :] @ v[..., start:stop, :].transpose(-1, -2) - rowdot[..., a:b].unsqueeze(-1))
            grads[0][..., a:b, :] += ds @ k[..., start:stop, :] * c
            grads[1][..., start:stop, :] += ds.transpose(-1, -2) @ q[..., a:b, :] * c
    return tuple(grads)
'''


def test_a_tile_of_the_wrong_input_is_named_as_the_same_slice_of_it(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", TILED_BACKWARD_OUT_FOR_D_OUT, "tiled_attention_backward")
    assert found and all("`out[..., i:i + block, :]` for `d_out_i` (the same slice of `out` as `d_out_i` takes of `d_out`)" in h
                         for h in found)


# log1p taken for a more accurate log: log(1 + p) of each pair's probability
NLL_WITH_LOG1P = '''
def average_nll(probs, ids):
    picked = torch.stack([probs[a, b] for a, b in zip(ids[:-1].tolist(), ids[1:].tolist())])
    return -picked.log1p().mean()
'''


def test_log1p_for_log_is_named_as_log_of_one_plus(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", NLL_WITH_LOG1P, "average_nll")
    assert found and all("`log1p(...)` for `log(...)` (log1p(x) is log(1 + x), not a more accurate log(x))" in h for h in found)


# the rescale of the running sum bracketed around the new score's term as well
ONLINE_SOFTMAX_RESCALE_AROUND_NEW_TERM = '''
def online_softmax(scores):
    best = torch.full(scores.shape[:-1], float("-inf"))
    total = torch.zeros(scores.shape[:-1])
    for column in scores.unbind(-1):
        raised = torch.maximum(best, column)
        total = (total + torch.exp(column - raised)) * torch.exp(best - raised)
        best = raised
    return torch.exp(scores - best.unsqueeze(-1)) / total.unsqueeze(-1)
'''


def test_a_factor_bracketed_around_the_added_term_too_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ONLINE_SOFTMAX_RESCALE_AROUND_NEW_TERM, "online_softmax")
    assert found and all("multiplies the added term too in `l = ...`" in h for h in found)


# a slice of dq added to as `x = x + y`: dq itself stays zeros (no write goes back into it)
TILED_BACKWARD_DQ_NEVER_WRITTEN = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    c = q.shape[-1] ** -0.5
    rowdot = (out * d_out).sum(-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for start in range(0, n, block):
        k_j, v_j = k[..., start:start + block, :], v[..., start:start + block, :]
        for a in range(start if causal else 0, n, block):
            q_i, g_i = q[..., a:a + block, :], d_out[..., a:a + block, :]
            s = q_i @ k_j.transpose(-1, -2) * c
            if causal and a == start:
                s = s.masked_fill(torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool).triu(1), float("-inf"))
            p = (s - lse[..., a:a + block, None]).exp()
            dv[..., start:start + block, :] += p.transpose(-1, -2) @ g_i
            ds = p * (g_i @ v_j.transpose(-1, -2) - rowdot[..., a:a + block, None])
            dq_i = dq[..., a:a + block, :]
            dq_i = dq_i + ds @ k_j * c
            dk[..., start:start + block, :] += ds.transpose(-1, -2) @ q_i * c
    return dq, dk, dv
'''


def test_a_slice_of_a_tensor_the_function_fills_is_not_offered_for_an_input(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", TILED_BACKWARD_DQ_NEVER_WRITTEN, "tiled_attention_backward")
    assert found and not any("the same slice of `dq`" in h for h in found)
