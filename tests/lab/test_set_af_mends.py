"""Mistakes of the kinds the retired set AF held, each written here another way than set AF's file:
a count read from a tensor one too many (never mended by a 1-D tensor's first entry), two chained
calls in the wrong order, a product cast to half precision, a float 0/1 mask handed to
scaled_dot_product_attention, a loop that never carries its result back into the name it reads,
and the words of calls and of torch's errors a learner misreads (softmin, cosine_similarity, a
positional flag of var, add's alpha, flatten, exp2, a range or a NumPy array for a tensor, a
tuple's pop)."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_by_hand.lab.call_words import described
from attention_by_hand.lab.judging import hint_for_exception
from attention_by_hand.lab.loop_starts import loop_carries
from labhelpers import REFERENCES, failed_hints, load_lab

# one 1 per character where there is one per neighbouring pair; the pairs stacked as rows first
ONE_PER_CHARACTER = '''
def bigram_counts(ids, vocab_size):
    pairs = torch.stack((ids[:-1], ids[1:]))
    grid = torch.zeros(vocab_size, vocab_size)
    grid.index_put_(tuple(pairs), torch.ones(ids.shape[0]), accumulate=True)
    return grid
'''


def test_a_count_one_too_many_is_said_as_one_less(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ONE_PER_CHARACTER, "bigram_counts")
    assert found and all("with `ids.shape[0] - 1` for `ids.shape[0]`" in h for h in found)


def test_a_one_axis_tensors_first_entry_is_never_offered_as_the_slice_meant(tmp_path):
    # `ids[0].numel()` is 1: a single 1 that broadcasts over every pair mends the numbers, not the mistake
    every_entry = ONE_PER_CHARACTER.replace("ids.shape[0]", "ids.numel()")
    found = failed_hints(tmp_path, "lab-03-bigram.py", every_entry, "bigram_counts")
    assert found and all("with `ids.numel() - 1` for `ids.numel()`" in h for h in found)
    assert not any("`ids[0]`" in h for h in found)


# the log taken of the mean, the two methods chained the other way round
LOG_OF_THE_MEAN = '''
def average_nll(probs, ids):
    chosen = probs[ids[:-1], ids[1:]]
    return chosen.mean().log().neg()
'''


def test_two_chained_calls_in_the_wrong_order_are_said_as_the_chain_exchanged(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", LOG_OF_THE_MEAN, "average_nll")
    assert found and all("runs `mean` first and `log` on its result" in h for h in found)
    assert all("with `chosen.log().mean()` for `chosen.mean().log()`" in h for h in found)


# the blend computed in half precision, cast back to the weights' dtype
BLEND_IN_HALF = '''
def self_attention(x, query, key, value):
    weights = attention_weights(x, query, key)
    blended = torch.matmul(weights.half(), value(x).half())
    return blended.to(weights.dtype), weights
'''


def test_a_product_cast_to_half_precision_is_said_with_every_cast_taken_off(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", BLEND_IN_HALF, "self_attention")
    assert found and all("`weights.half()`, `value(x).half()` cast to a float of half the width" in h for h in found)
    assert all("with `weights` for `weights.half()` and `value(x)` for `value(x).half()` in `blended = ...`" in h for h in found)


# the causal mask cast to half precision: masked_fill refuses it; nothing is said of rounding
MASK_IN_HALF = '''
def attention_weights(x, query, key):
    hide = causal_mask(x.shape[0]).half()
    scores = (query(x) @ key(x).transpose(0, 1) / math.sqrt(key.out_features)).masked_fill(hide, float("-inf"))
    return torch.softmax(scores, dim=-1)
'''


def test_a_mask_cast_to_half_precision_is_mended_without_words_of_rounding(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_IN_HALF, "attention_weights")
    assert found and all("with `causal_mask(x.shape[0])` for `causal_mask(x.shape[0]).half()`" in h for h in found)
    assert not any("significant digits" in h for h in found)


def test_half_precision_keeps_about_three_significant_digits():
    third = torch.tensor(1 / 3, dtype=torch.float64)
    error = abs(third.half().double() - third) / third
    assert 1e-5 < error < 1e-3  # about 3.3 digits: float16 has a 10-bit fraction


# the visible cells as a float 0/1 mask, which scaled_dot_product_attention adds to the scores
FLOAT_KEEP_MASK = '''
def rope_attention(q, k, v):
    T = q.shape[-2]
    where = torch.arange(T)
    seen = (where[:, None] >= where[None, :]).to(q.dtype)
    return F.scaled_dot_product_attention(rope(q, where), rope(k, where), v, attn_mask=seen)
'''


def test_a_float_keep_mask_given_to_sdpa_is_said_as_its_bool(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", FLOAT_KEEP_MASK, "rope_attention")
    assert found and all("with `attn_mask=seen.bool()` for `attn_mask=seen`" in h for h in found)
    assert all("a float one is ADDED to the scores" in h for h in found)


def test_a_whole_number_mask_given_to_sdpa_is_said_as_its_bool_too(tmp_path):
    refused = FLOAT_KEEP_MASK.replace(".to(q.dtype)", ".long()")
    found = failed_hints(tmp_path, "lab-07-positions.py", refused, "rope_attention")
    assert found and all("with `attn_mask=seen.bool()` for `attn_mask=seen`" in h for h in found)
    assert all("one of whole numbers is refused" in h for h in found)


def test_sdpa_adds_a_float_mask_and_keeps_the_true_cells_of_a_bool_one():
    q, k, v = (torch.randn(4, 3, generator=torch.Generator().manual_seed(s)) for s in (1, 2, 3))
    keep = torch.ones(4, 4).tril()
    scores = q @ k.T / math.sqrt(3)
    added = torch.softmax(scores + keep, dim=-1) @ v
    hidden = torch.softmax(scores.masked_fill(keep == 0, float("-inf")), dim=-1) @ v
    assert torch.allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=keep), added, atol=1e-6)
    assert torch.allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=keep.bool()), hidden, atol=1e-6)


# each residual step written to a new name, the input never moved on: the first step is lost
INPUT_NEVER_MOVED_ON = '''
def block_forward(x, ln1, attn, ln2, mlp):
    for normalise, inner in [(ln1, attn), (ln2, mlp)]:
        y = inner(normalise(x)) + x
    return y
'''


def test_a_loop_that_never_moves_its_input_on_is_said_as_the_assignment_it_lacks(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", INPUT_NEVER_MOVED_ON, "block_forward")
    assert found and all("never carries `y` on into `x`" in h for h in found)
    assert all("with `x = y` added at the end of the loop" in h for h in found)


def _carries(code: str) -> list[tuple[str, str]]:
    fdef = ast.parse(code).body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    return [c.arg for c in loop_carries(fdef, index)]


def test_a_given_name_is_carried_only_into_from_a_result_read_after_the_loop():
    kept_inside = '''
def f(x, layers):
    total = 0
    for layer in layers:
        y = layer(x)
        total = total + y
    return total
'''
    assert _carries(kept_inside) == []  # y is read only inside the loop: no result of it
    assert _carries(kept_inside.replace("return total", "return total + y")) == [("x", "y")]


def _words(code: str, lab: str, function: str) -> dict[str, str]:
    return described([code], load_lab(REFERENCES[lab]), function)


def test_the_words_of_softmin_and_cosine_similarity_hold_in_torch():
    s = torch.tensor([[1.0, 3.0, -2.0]])
    assert torch.allclose(F.softmin(s, dim=-1), F.softmax(-s, dim=-1))
    assert F.softmin(s, dim=-1).argmax().item() == s.argmin().item()  # the smallest weighs most
    a, b = torch.tensor([[3.0, 4.0]]), torch.tensor([[6.0, 8.0]])
    assert torch.allclose(F.cosine_similarity(a, b, dim=-1), (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1)))
    assert "softmax(-x)" in _words("w = F.softmin(s, dim=-1)", "lab-04-attention.py", "attention_weights")["softmin"]
    assert "cosine" in _words("D = F.cosine_similarity(p, dp, dim=-1)", "lab-10-gradients.py", "softmax_backward")[
        "cosine_similarity"]


def test_var_given_a_flag_by_position_reads_it_as_unbiased():
    x = torch.tensor([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]])
    assert torch.equal(x.var(-1, True), x.var(dim=-1, unbiased=True))  # n - 1, and the axis dropped
    assert x.var(-1, True).shape == (2,)
    words = _words("v = x.var(-1, True)", "lab-06-transformer.py", "layer_norm")
    assert "`unbiased`" in words["var(flag)True"] and "var" not in words
    assert "std(flag)True" in _words("s = torch.std(x, -1, True)", "lab-06-transformer.py", "layer_norm")


def test_a_flag_by_position_that_counts_as_the_reference_does_is_not_described():
    # lab 06's layer norm divides by n (`unbiased=False`): a False read as `unbiased` counts the same
    assert _words("v = x.var(-1, False)", "lab-06-transformer.py", "layer_norm") == {}


def test_flags_that_reach_keepdim_or_are_named_are_not_said_as_read_for_unbiased():
    for code in ("v = x.var(-1, False, True)", "v = x.var(-1, True, keepdim=True)", "v = x.var(-1, keepdim=True)"):
        assert not any("(flag)" in k for k in _words(code, "lab-06-transformer.py", "layer_norm")), code
    assert x_var_keeps_its_axis_with_a_third_flag()


def x_var_keeps_its_axis_with_a_third_flag() -> bool:
    x = torch.arange(6.0).view(2, 3)
    return x.var(-1, False, True).shape == (2, 1)


@settings(max_examples=40, deadline=None)
@given(st.floats(-4, 4), st.lists(st.floats(-10, 10), min_size=1, max_size=5))
def test_adds_alpha_scales_only_the_tensor_added(alpha, entries):
    a, b = torch.tensor(entries, dtype=torch.float64), torch.tensor(entries[::-1], dtype=torch.float64)
    assert torch.allclose(a.add(b, alpha=alpha), a + alpha * b)
    assert torch.allclose(a.sub(b, alpha=alpha), a - alpha * b)


def test_add_is_described_only_where_given_alpha():
    where = ("lab-07-positions.py", "alibi_attention")
    assert "add" in _words("s = q.matmul(k.mT).add(bias, alpha=0.5)", *where)
    assert "add_" in _words("s.add_(bias, alpha=0.5)", *where)
    for code in ("s = q.matmul(k.mT).add(bias)", "s.add_(bias)", "s.sub_(bias)"):
        assert not {"add", "add_", "sub_"} & _words(code, *where).keys(), code


def test_the_words_of_flatten_and_exp2_hold_in_torch():
    assert torch.zeros(2, 3, 4, 5).flatten(1).shape == (2, 60)  # axis 1 and every axis after it
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    assert torch.allclose(torch.exp2(x), torch.exp(x * math.log(2)))
    assert torch.allclose(torch.exp2(torch.log2(x.abs())), x.abs())
    assert "through the LAST axis unless `end_dim` is given" in _words("s = p.flatten(1).mean(0)", "lab-11-induction-heads.py", "first_token_score")[
        "flatten"]


def _message(make) -> tuple[str, str]:
    with pytest.raises(Exception) as raised:
        make()
    return type(raised.value).__name__, str(raised.value)


@pytest.mark.parametrize(("make", "said"), [
    (lambda: F.embedding(range(2), torch.zeros(3, 2)), "`torch.arange(start, end)`"),
    (lambda: F.embedding(np.arange(2), torch.zeros(3, 2)), "a NumPy array is no tensor"),
])
def test_a_container_where_torch_takes_a_tensor_is_said_with_what_makes_one(make, said):
    assert said in hint_for_exception(*_message(make))


def test_a_tuples_pop_is_said_as_a_tuple_that_cannot_change():
    heads = torch.ones(2, 3).unbind(0)
    assert "a new tuple without the entry" in hint_for_exception(*_message(lambda: heads.pop(0)))
    assert "`+ (entry,)` makes a new tuple with it" in hint_for_exception(*_message(lambda: heads.append(heads[0])))


@pytest.mark.parametrize("reduce", [lambda x: torch.mean(x, 0, 2), lambda x: torch.std(x, 0, 2), lambda x: x.sum(0, 2),
                                    lambda x: torch.amax(x, 0, 2), lambda x: x.mean(0, 2)])
def test_axes_listed_one_by_one_are_said_as_one_tuple(reduce):
    said = hint_for_exception(*_message(lambda: reduce(torch.ones(2, 3, 4))))
    assert "several axes" in said and "ONE argument, a tuple" in said
    assert torch.ones(2, 3, 4).mean(dim=(0, 2)).shape == (3,)  # the tuple the words ask for


def test_tensorflows_transpose_keyword_is_said_as_torchs_transpose():
    a = torch.ones(2, 3)
    assert "torch transposes the operand itself" in hint_for_exception(*_message(lambda: torch.matmul(a, a, transpose_a=True)))


# one smoothing per outcome counted for two outcomes, whatever the table's width; divided, not multiplied
TWO_OUTCOMES = '''
def counts_to_probs(counts, smoothing=1.0):
    return torch.div(counts + smoothing, counts.sum(dim=-1, keepdim=True) + smoothing * 2)
'''


def test_a_count_fixed_at_a_number_is_said_as_the_inputs_size(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", TWO_OUTCOMES, "counts_to_probs")
    assert found and all("with `counts.shape[-1]` for `2` in `smoothing * 2`" in h for h in found)


# heads and channels joined by a span one axis early: the flatten mend says what flatten joins, once
SPAN_ONE_EARLY = '''
def merge_heads(t):
    return t.swapaxes(0, 1).flatten(0, 1)
'''


def test_flattens_words_are_not_said_again_after_its_own_mend(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", SPAN_ONE_EARLY, "merge_heads")
    assert found and all("with `t.swapaxes(0, 1).flatten(1, 2)`" in h for h in found)
    assert not any("`flatten`, which the reference does not call" in h for h in found)


def test_a_statement_that_is_one_cast_is_left_to_the_dtypes_words():
    from attention_by_hand.lab.api_mends import half_casts

    assert half_casts(ast.parse("s = (q @ k.T).half()").body[0]) == []
    assert len(half_casts(ast.parse("s = (q @ k.T).half().float()").body[0])) == 1
