"""The PyTorch tiled attention and the naive one, against `F.scaled_dot_product_attention`; the
tiled backward against torch.autograd through it.

Tolerances: float64 1e-10 (both sides exact to about 1e-15; the margin covers a different order
of summation over up to a few hundred words); float32 1e-5 (float32 keeps about 7 digits, and
the outputs and the lse are of order 1 to 10).
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_by_hand.math.tiling_torch import TiledAttention, naive_attention, tiled_attention, tiled_attention_backward

TOL = {torch.float64: 1e-10, torch.float32: 1e-5}
# 50 random problems per property (Hypothesis draws 100 by default): each runs several tiles of
# small PyTorch ops, and 50 keep the file at a few seconds. No deadline: the first call pays torch's warm-up.
EXAMPLES = settings(deadline=None, max_examples=50)


@st.composite
def problems(draw, dtype=torch.float64):
    """Random q, k, v with a length that is never a whole number of blocks, a block and causal on/off."""
    block = draw(st.integers(2, 48))
    # T = whole tiles + a part tile: the last tile (and, causally, the last diagonal tile) is short.
    length = draw(st.integers(0, 4)) * block + draw(st.integers(1, block - 1))
    batch, heads = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    d_k, d_v = draw(st.integers(1, 40)), draw(st.integers(1, 40))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**32 - 1)))
    q, k = (torch.randn(batch, heads, length, d_k, generator=generator, dtype=dtype) for _ in range(2))
    v = torch.randn(batch, heads, length, d_v, generator=generator, dtype=dtype)
    return q, k, v, block, draw(st.booleans())


def reference_lse(q: torch.Tensor, k: torch.Tensor, causal: bool) -> torch.Tensor:
    """log sum_j exp(q_i . k_j / sqrt(d_k)) over the visible keys, from the whole score matrix."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, T)
    if causal:
        scores = scores.masked_fill(torch.ones_like(scores, dtype=torch.bool).triu(1), -math.inf)
    return torch.logsumexp(scores, dim=-1)  # (B, H, T)


@EXAMPLES
@given(problems(torch.float64))
def test_tiled_output_matches_sdpa_in_float64(problem):
    q, k, v, block, causal = problem
    out, _ = tiled_attention(q, k, v, block=block, causal=causal)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert (out - expected).abs().max().item() <= TOL[torch.float64]


@EXAMPLES
@given(problems(torch.float64))
def test_tiled_lse_matches_torch_logsumexp_in_float64(problem):
    q, k, v, block, causal = problem
    _, lse = tiled_attention(q, k, v, block=block, causal=causal)
    assert (lse - reference_lse(q, k, causal)).abs().max().item() <= TOL[torch.float64]


@EXAMPLES
@given(problems(torch.float32))
def test_tiled_output_matches_sdpa_in_float32(problem):
    q, k, v, block, causal = problem
    out, _ = tiled_attention(q, k, v, block=block, causal=causal)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert (out - expected).abs().max().item() <= TOL[torch.float32]


@EXAMPLES
@given(problems(torch.float32))
def test_tiled_lse_matches_torch_logsumexp_in_float32(problem):
    q, k, v, block, causal = problem
    _, lse = tiled_attention(q, k, v, block=block, causal=causal)
    assert (lse - reference_lse(q, k, causal)).abs().max().item() <= TOL[torch.float32]


@EXAMPLES
@given(problems(torch.float64))
def test_naive_output_matches_sdpa_in_float64(problem):
    q, k, v, _, causal = problem
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert (naive_attention(q, k, v, causal=causal) - expected).abs().max().item() <= TOL[torch.float64]


def test_tiled_output_keeps_the_input_dtype_and_shape():
    q, k = torch.randn(2, 3, 10, 8), torch.randn(2, 3, 10, 8)
    out, lse = tiled_attention(q, k, torch.randn(2, 3, 10, 5), block=4)
    assert (out.shape, out.dtype, lse.shape, lse.dtype) == ((2, 3, 10, 5), torch.float32, (2, 3, 10), torch.float32)


def test_a_block_longer_than_the_text_is_one_tile():
    q, k, v = (torch.randn(1, 2, 7, 4, dtype=torch.float64) for _ in range(3))
    out, _ = tiled_attention(q, k, v, block=100)
    assert (out - F.scaled_dot_product_attention(q, k, v, is_causal=True)).abs().max().item() <= TOL[torch.float64]


def test_causal_output_ignores_every_later_word():
    q, k, v = (torch.randn(1, 2, 40, 8, dtype=torch.float64) for _ in range(3))
    k2, v2 = k.clone(), v.clone()
    k2[:, :, 25:], v2[:, :, 25:] = 100.0, -100.0  # change only words 25..39
    before, after = tiled_attention(q, k, v, block=8)[0], tiled_attention(q, k2, v2, block=8)[0]
    assert torch.equal(before[:, :, :25], after[:, :, :25])


def test_tiled_attention_leaves_its_inputs_unchanged():
    q, k, v = (torch.randn(1, 2, 20, 8) for _ in range(3))
    copies = [t.clone() for t in (q, k, v)]
    tiled_attention(q, k, v, block=6)
    assert all(torch.equal(t, c) for t, c in zip((q, k, v), copies))


def test_huge_scores_do_not_overflow():
    # Scores near 1e4: exp would overflow without the running maximum.
    q = torch.full((1, 1, 30, 4), 100.0)
    k, v = torch.full((1, 1, 30, 4), 100.0), torch.randn(1, 1, 30, 4)
    out, lse = tiled_attention(q, k, v, block=7)
    assert torch.isfinite(out).all() and torch.isfinite(lse).all()


def test_tiled_attention_never_allocates_the_score_matrix():
    heads, length, block = 2, 512, 32
    q, k, v = (torch.randn(1, heads, length, 16) for _ in range(3))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        tiled_attention(q, k, v, block=block)
    largest = max(event.cpu_memory_usage for event in prof.events())
    score_matrix = heads * length * length * 4  # bytes of the (H, T, T) fp32 scores the naive head holds
    assert 0 < largest < score_matrix / 16


@pytest.mark.parametrize("block", [0, -3, 2.5, True, "64"])
def test_a_block_that_is_not_a_positive_whole_number_is_refused(block):
    q = torch.randn(1, 1, 4, 2)
    with pytest.raises(ValueError, match="block must be a whole number of words >= 1"):
        tiled_attention(q, q, q, block=block)


def test_keys_of_another_length_are_refused():
    q, k = torch.randn(1, 1, 4, 2), torch.randn(1, 1, 5, 2)
    with pytest.raises(ValueError, match=r"q, k must be \(B, H, T, d_k\)"):
        tiled_attention(q, k, k)


# --- the tiled backward -------------------------------------------------------------------------


def autograd_gradients(q, k, v, d_out, causal):
    """dq, dk, dv from torch.autograd through SDPA."""
    leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
    F.scaled_dot_product_attention(*leaves, is_causal=causal).backward(d_out)
    return [x.grad for x in leaves]


@EXAMPLES
@given(problems(torch.float64))
def test_tiled_backward_matches_autograd_through_sdpa_in_float64(problem):
    q, k, v, block, causal = problem
    d_out = torch.randn_like(v)
    out, lse = tiled_attention(q, k, v, block=block, causal=causal)
    ours = tiled_attention_backward(q, k, v, out, lse, d_out, block=block, causal=causal)
    for a, b in zip(ours, autograd_gradients(q, k, v, d_out, causal)):
        assert (a - b).abs().max().item() <= TOL[torch.float64]


@EXAMPLES
@given(problems(torch.float32))
def test_tiled_backward_matches_autograd_through_sdpa_in_float32(problem):
    q, k, v, block, causal = problem
    d_out = torch.randn_like(v)
    out, lse = tiled_attention(q, k, v, block=block, causal=causal)
    ours = tiled_attention_backward(q, k, v, out, lse, d_out, block=block, causal=causal)
    for a, b in zip(ours, autograd_gradients(q, k, v, d_out, causal)):
        assert (a - b).abs().max().item() <= 1e-4  # sums of up to a few hundred float32 terms of order 1


@pytest.mark.parametrize("causal", [False, True])
def test_the_autograd_function_passes_torchs_finite_difference_gradcheck(causal):
    q, k, v = (torch.randn(1, 2, 9, 3, dtype=torch.float64, requires_grad=True) for _ in range(3))
    assert torch.autograd.gradcheck(lambda q, k, v: TiledAttention.apply(q, k, v, 4, causal), (q, k, v))


def test_the_autograd_function_keeps_one_lse_per_row_and_never_the_weights():
    q, k, v = (torch.randn(1, 2, 40, 8, requires_grad=True) for _ in range(3))
    out = TiledAttention.apply(q, k, v, 8, True)
    shapes = sorted(tuple(x.shape) for x in out.grad_fn.saved_tensors)
    assert shapes == [(1, 2, 40), (1, 2, 40, 8), (1, 2, 40, 8), (1, 2, 40, 8), (1, 2, 40, 8)]


def test_tiled_backward_never_allocates_the_weight_matrix():
    heads, length, block = 2, 512, 32
    q, k, v, d_out = (torch.randn(1, heads, length, 16) for _ in range(4))
    out, lse = tiled_attention(q, k, v, block=block)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        tiled_attention_backward(q, k, v, out, lse, d_out, block=block)
    largest = max(event.cpu_memory_usage for event in prof.events())
    weights = heads * length * length * 4  # bytes of the (H, T, T) fp32 weights autograd would keep
    assert 0 < largest < weights / 16


def test_tiled_backward_refuses_a_bad_block():
    q = torch.randn(1, 1, 4, 2)
    with pytest.raises(ValueError, match="block must be a whole number of words >= 1"):
        tiled_attention_backward(q, q, q, q, q[..., 0], q, block=0)
