"""Mistakes of the kinds the retired set AQ held, each written here another way than set AQ's file: a
wrong axis in a long tiled backward; a constant of the file read where the function's own argument
belongs; a bracket closed too early, and one closed too late; a positional argument read as another
(`unbiased` for `keepdim`, one axis swapped with itself, a pool's kernel for its output, `msort`'s
axis); a tensor made to be filled and then replaced in a loop; a row times a column with one side
shaped; a diagonal's offset turned; and torch's messages for a source one axis short, a float slice
bound and a number given as `index`."""

from __future__ import annotations

import ast

import pytest
import torch
from labhelpers import failed_hints

from attention_by_hand.lab.argument_mends import argument_mends
from attention_by_hand.lab.bracket_mends import bracket_mends
from attention_by_hand.lab.code_layout import function_form, is_method
from attention_by_hand.lab.error_words import error_words
from attention_by_hand.lab.pitfalls import pitfalls
from attention_by_hand.lab.reading_pitfalls import reading_pitfalls

# the log-sum-exp given its axis of size 1 in front of the keys (-2), where each query's row needs it last (-1)
TILED_BACKWARD_LSE_AXIS = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    head = q.shape[-1]
    root = head ** 0.5
    inv = 1.0 / root
    rowdot = torch.einsum("...td,...td->...t", d_out, out)
    grad_q = torch.zeros_like(q)
    grad_k = torch.zeros_like(k)
    grad_v = torch.zeros_like(v)
    for a in range(0, n_q, block):
        b = min(a + block, n_q)
        qa, ga = q[..., a:b, :], d_out[..., a:b, :]
        la = lse[..., a:b].unsqueeze(-2)
        da = rowdot[..., a:b].unsqueeze(-1)
        query_ids = torch.arange(a, b)
        for c in range(0, n_k, block):
            e = min(c + block, n_k)
            if causal and c >= b:
                break
            kc, vc = k[..., c:e, :], v[..., c:e, :]
            key_ids = torch.arange(c, e)
            logits = torch.einsum("...qd,...kd->...qk", qa, kc) * inv
            if causal:
                later = key_ids[None, :] > query_ids[:, None]
                logits = logits.masked_fill(later, float("-inf"))
            w = torch.exp(logits - la)
            dv_part = torch.einsum("...qk,...qd->...kd", w, ga)
            dw = torch.einsum("...qd,...kd->...qk", ga, vc)
            dlogits = w * (dw - da)
            dq_part = torch.einsum("...qk,...kd->...qd", dlogits, kc) * inv
            dk_part = torch.einsum("...qk,...qd->...kd", dlogits, qa) * inv
            grad_v[..., c:e, :] += dv_part
            grad_q[..., a:b, :] += dq_part
            grad_k[..., c:e, :] += dk_part
    return grad_q, grad_k, grad_v
'''


def test_aq_a_wrong_axis_is_found_among_a_long_functions_many_changes(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", TILED_BACKWARD_LSE_AXIS, "tiled_attention_backward")
    assert found and all("`lse[..., a:b].unsqueeze(-1)` for `lse[..., a:b].unsqueeze(-2)`" in h for h in found)


# the lab's own probe period read in place of the argument `period`, at two places
PROBE_PERIOD_FOR_PERIOD = '''
def induction_score(pattern, period):
    T = pattern.shape[-1]
    rows = torch.arange(PROBE_PERIOD + 1, T)
    picked = pattern[..., rows, rows - PROBE_PERIOD + 1]
    return picked.mean(dim=(0, 2))
'''


def test_aq_an_outside_name_read_where_an_unread_argument_belongs_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", PROBE_PERIOD_FOR_PERIOD, "induction_score")
    assert found and all("never reads its argument `period`" in h and "`period` for `PROBE_PERIOD`" in h for h in found)


# `+ start` written after the lookup's bracket: the number start is added to every value looked up
START_AFTER_THE_BRACKET = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    return token_embedding(tokens) + position_embedding(torch.arange(tokens.shape[-1])) + start
'''


def test_aq_a_term_written_after_a_calls_bracket_is_moved_inside_it(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", START_AFTER_THE_BRACKET, "embed_at")
    assert found and all("a bracket closed too early" in h and "`position_embedding(torch.arange(tokens.shape[-1]) + start)`" in h
                         for h in found)


# the residual added inside the attention branch's bracket, where it belongs on what the branch returns
RESIDUAL_INSIDE_THE_BRACKET = '''
def block_forward(x, ln1, attn, ln2, mlp):
    h = attn(ln1(x) + x)
    return h + mlp(ln2(h))
'''


def test_aq_a_term_written_inside_a_calls_bracket_is_moved_out_of_it(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", RESIDUAL_INSIDE_THE_BRACKET, "block_forward")
    assert found and all("a bracket closed too late" in h and "`attn(ln1(x)) + x` for `attn(ln1(x) + x)`" in h for h in found)


# var_mean's third positional argument taken for keepdim: it is `unbiased` (n - 1), and the axis is dropped
VAR_MEAN_POSITIONAL = '''
def layer_norm(x, weight, bias, eps=1e-5):
    var, mu = torch.var_mean(x, -1, True)
    return (x - mu) * torch.rsqrt(var + eps) * weight + bias
'''


def test_aq_a_positional_flag_after_the_axis_of_var_mean_is_said_to_be_unbiased(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", VAR_MEAN_POSITIONAL, "layer_norm")
    assert found and all("`torch.var_mean(x, -1, True)`" in h and "is `unbiased`" in h and "not `keepdim`" in h for h in found)


def test_aq_one_axis_swapped_with_itself_is_said_to_change_nothing():
    fdef = ast.parse("def f(k):\n    return k.swapaxes(-2, -2)\n").body[0]
    (found,) = reading_pitfalls(fdef)
    assert "names one axis twice" in found[1] and "changes nothing" in found[1]


def test_aq_two_different_axes_are_no_swap_of_one_axis():
    fdef = ast.parse("def f(k):\n    return k.swapaxes(-2, -1)\n").body[0]
    assert reading_pitfalls(fdef) == []


# a pool's kernel of 1 read as one output per row: each entry is its own window
POOLED_ONE_BY_ONE = '''
def softmax(scores):
    flat = scores.reshape(-1, 1, scores.shape[-1])
    top = F.max_pool1d(flat, 1).view(*scores.shape[:-1], 1)
    e = torch.exp(scores - top)
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_aq_a_pools_kernel_of_one_is_said_to_give_every_entry_back(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", POOLED_ONE_BY_ONE, "softmax")
    assert found and all("its kernel size" in h and "every entry comes back as it was" in h for h in found)


def test_aq_msort_of_a_tensor_joined_along_the_last_axis_is_said_to_sort_the_first():
    fdef = ast.parse("def f(a, b):\n    return torch.msort(torch.cat([a, b], dim=-1))[..., -1]\n").body[0]
    (found,) = reading_pitfalls(fdef)
    assert "sorts along the FIRST axis" in found[1]


def test_aq_msort_of_a_tensor_stacked_on_the_first_axis_is_not_said():
    fdef = ast.parse("def f(a, b):\n    return torch.msort(torch.stack((a, b)))[1]\n").body[0]
    assert reading_pitfalls(fdef) == []


# the output made to be filled, then replaced by each block's rows: only the last block's are returned
OUT_REPLACED_IN_THE_LOOP = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    out = torch.empty(*q.shape[:-1], v.shape[-1])
    lse = torch.empty(q.shape[:-1])
    for i in range(0, T_q, block):
        s = q[..., i:i + block, :] @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if causal:
            rows = torch.arange(i, min(i + block, T_q))[:, None]
            s = s.masked_fill(torch.arange(T_k)[None, :] > rows, float("-inf"))
        lse[..., i:i + block] = torch.logsumexp(s, dim=-1)
        out = torch.softmax(s, dim=-1) @ v
    return out, lse
'''


def test_aq_a_tensor_made_to_be_filled_and_replaced_in_a_loop_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", OUT_REPLACED_IN_THE_LOOP, "tiled_attention")
    assert found and all("`out` is made at line" in h and "holds the last pass's value alone" in h for h in found)


# a row times a column with only the row shaped: dp stays (..., n), so every row meets every column
ROW_WITHOUT_ITS_COLUMN = '''
def softmax_backward(p, dp):
    D = torch.matmul(p.unsqueeze(-2), dp).squeeze(-2)
    return p * (dp - D)
'''


def test_aq_a_product_with_one_side_shaped_is_given_the_other_sides_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", ROW_WITHOUT_ITS_COLUMN, "softmax_backward")
    assert found and all("a row times a column" in h and "`torch.matmul(p.unsqueeze(-2), dp.unsqueeze(-1))`" in h for h in found)


def test_aq_a_call_in_torchs_linalg_namespace_takes_its_tensor_first():
    call = ast.parse("torch.linalg.matmul(a, b)", mode="eval").body
    assert function_form(call) and not is_method(call)


# the offset of each tile's mask with its difference turned: past keys hidden on tiles left of the diagonal
TILE_OFFSET_TURNED = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    outs, lses = [], []
    for i0 in range(0, T_q, block):
        qi = q[..., i0:i0 + block, :]
        tiles = []
        for j0 in range(0, T_k, block):
            s = qi @ k[..., j0:j0 + block, :].transpose(-2, -1) / q.shape[-1] ** 0.5
            if causal:
                hidden = torch.ones(s.shape[-2:], dtype=torch.bool).triu(j0 - i0 + 1)
                s = s.masked_fill(hidden, float("-inf"))
            tiles.append(s)
        s = torch.cat(tiles, dim=-1)
        lses.append(torch.logsumexp(s, dim=-1))
        outs.append(torch.softmax(s, dim=-1) @ v)
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_aq_a_shifted_difference_as_a_diagonals_offset_is_turned(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", TILE_OFFSET_TURNED, "tiled_attention")
    assert found and all("`i0 - j0 + 1` for `j0 - i0 + 1`" in h for h in found)


def test_aq_a_source_one_axis_short_is_said_to_lack_that_axis():
    # torch's own message: four indices, and a source whose axis 2 (its last) happens to hold four
    with pytest.raises(RuntimeError) as raised:
        torch.zeros(2, 3, 5, 4).index_add_(2, torch.arange(4), torch.zeros(2, 3, 4))
    assert "are the target's [2, 3, 5, 4] without axis 2; it needs every axis of the target" in error_words(str(raised.value))


def test_aq_a_source_short_of_an_axis_at_two_places_is_not_placed():
    message = "Got self.shape = [2, 2, 4] source.shape = [2, 4]"  # axis 0 or axis 1 left out: either fits
    assert error_words(message) == ""


# the heads' width divided with `/`: a float, which no slice takes as a bound
HEAD_WIDTH_AS_A_FLOAT = '''
def split_heads(t, n_heads):
    width = t.shape[-1] / n_heads
    return torch.stack([t[:, h * width:(h + 1) * width] for h in range(n_heads)])
'''


def test_aq_a_float_slice_bound_is_said_to_come_from_a_true_division(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEAD_WIDTH_AS_A_FLOAT, "split_heads")
    assert found and all("`/` gives a float even where it divides exactly" in h for h in found)


# index_select given the count of rows where a tensor of the row numbers belongs
COUNT_AS_INDEX = '''
def add_positions(x, table):
    return x + torch.index_select(table, 0, x.shape[-2])
'''


def test_aq_a_number_given_as_index_selects_index_is_said_to_need_a_tensor(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", COUNT_AS_INDEX, "add_positions")
    assert found and all("takes its positions as a tensor of ints" in h for h in found)


def _message(make) -> str:
    """torch's own message for what make() does."""
    with pytest.raises(Exception) as raised:
        make()
    return str(raised.value)


def test_aq_histc_of_integer_ids_is_said_to_count_floats_only():
    message = _message(lambda: torch.histc(torch.tensor([0, 2, 2]), bins=3, min=0, max=2))
    assert "`histc` counts floats only" in error_words(message)


def test_aq_a_mask_of_integers_given_to_masked_select_is_said_to_need_bool():
    message = _message(lambda: torch.ones(3).masked_select(torch.tensor([1, 0, 1])))
    assert "a mask must be a bool tensor" in error_words(message)


def test_aq_a_python_type_name_given_to_type_is_said_to_need_a_torch_dtype():
    message = _message(lambda: torch.ones(3).type("float"))
    assert "takes a torch dtype" in error_words(message)


def _changes(find, code: str) -> list[str]:
    """The texts of the changes `find` (a learner-only family) makes of the function in `code`."""
    fdef = ast.parse(code).body[0]
    return [c.text for c in find(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))})]


def test_aq_a_term_after_a_bracketed_sum_is_not_moved_into_its_last_call():
    # `(a + f(x)) * s` scales the whole sum: no bracket of `f` closed early
    assert _changes(bracket_mends, "def g(a, x, s):\n    return (a + f(x)) * s\n") == []


def test_aq_an_exceptions_name_is_no_outside_name_for_an_unread_argument():
    code = "def g(x, period):\n    try:\n        return x[0]\n    except IndexError as e:\n        raise ValueError(e)\n"
    assert _changes(argument_mends, code) == []


def test_aq_a_population_variance_asked_by_position_is_no_pitfall():
    fdef = ast.parse("def f(x):\n    return x.var(-1, False)\n").body[0]
    assert reading_pitfalls(fdef) == []


def test_aq_a_pool_of_kernel_one_with_a_stride_of_two_is_no_pitfall():
    fdef = ast.parse("def f(x):\n    return F.max_pool1d(x, 1, 2)\n").body[0]
    assert reading_pitfalls(fdef) == []


def _pitfalls_of(tmp_path, code: str) -> list:
    """pitfalls() of the function `f` in `code`, written to a module of its own."""
    import importlib.util

    path = tmp_path / "learner_code.py"
    path.write_text("import torch\n\n" + code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("learner_code", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return pitfalls(module.f)


def test_aq_a_search_that_stops_at_a_break_is_no_tensor_replaced_in_a_loop(tmp_path):
    code = ("def f(x):\n    found = torch.zeros(())\n    for i in range(len(x)):\n        found = x[i]\n"
            "        if x[i] > 0:\n            break\n    return found\n")
    assert not any("to be filled" in words for _, words, _ in _pitfalls_of(tmp_path, code))


def test_aq_a_sum_kept_by_plus_equals_is_no_tensor_replaced_in_a_loop(tmp_path):
    code = ("def f(xs):\n    total = torch.zeros(3)\n    for x in xs:\n        total = x.clone()\n"
            "        total += x\n    return total\n")
    assert not any("to be filled" in words for _, words, _ in _pitfalls_of(tmp_path, code))


def test_aq_a_break_of_an_inner_loop_does_not_hide_a_tensor_replaced_in_the_outer_one(tmp_path):
    code = ("def f(xs):\n    last = torch.zeros(3)\n    for row in xs:\n        for x in row:\n            if x > 0:\n"
            "                break\n        last = row * 2\n    return last\n")
    assert any("`last` is made at" in words for _, words, _ in _pitfalls_of(tmp_path, code))
