"""The gradients by hand (math/gradients.py), each against torch.autograd or an independent formula.

Tolerances: float64 on both sides with inputs of order 1, so TOL = 1e-12 leaves room only for a
different order of summation (the noise is of order 1e-15 at these sizes).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_by_hand.math.gradients import (
    attention_backward,
    head_weight_gradients,
    saved_lse_bytes,
    saved_weights_bytes,
    softmax_backward,
    softmax_jacobian,
    tiled_attention_backward,
)
from attention_by_hand.math.mechanism import softmax
from attention_by_hand.math.tiling import SKIPPED, tile_grid, tiled_attention

TOL = 1e-12
# Each example runs a few small torch graphs: 50 keep the file at a few seconds. No deadline:
# the first call pays torch's warm-up.
EXAMPLES = settings(deadline=None, max_examples=50)

finite = st.floats(min_value=-20, max_value=20, allow_nan=False, allow_infinity=False)
rows = st.integers(1, 10).flatmap(lambda n: st.tuples(arrays(np.float64, n, elements=finite), arrays(np.float64, n, elements=finite)))
seeds = st.integers(0, 2**32 - 1)


def t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


@st.composite
def heads(draw):
    """A random head: n words (the same for queries and keys), d_k, d_v, causal or not, and dO."""
    n, d_k, d_v = draw(st.integers(1, 12)), draw(st.integers(1, 6)), draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(seeds))
    Q, K = rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k))
    V, dO = rng.standard_normal((n, d_v)), rng.standard_normal((n, d_v))
    return Q, K, V, dO, draw(st.booleans())


def autograd_head(Q, K, V, dO, causal):
    """torch.autograd's dQ, dK, dV through scaled_dot_product_attention, in float64."""
    q, k, v = (t(a).requires_grad_() for a in (Q, K, V))
    F.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(t(dO))
    return q.grad.numpy(), k.grad.numpy(), v.grad.numpy()


# --- the softmax ----------------------------------------------------------------------------------


@EXAMPLES
@given(rows)
def test_the_jacobian_equals_torch_autograds(row):
    scores, _ = row
    expected = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, dim=-1), t(scores))
    assert np.abs(softmax_jacobian(softmax(scores)) - expected.numpy()).max() <= TOL


@EXAMPLES
@given(rows)
def test_every_row_of_the_jacobian_sums_to_zero(row):
    scores, _ = row
    assert np.abs(softmax_jacobian(softmax(scores)).sum(axis=1)).max() <= TOL


@EXAMPLES
@given(rows)
def test_the_jacobian_is_symmetric(row):
    J = softmax_jacobian(softmax(row[0]))
    assert np.array_equal(J, J.T)


@EXAMPLES
@given(rows)
def test_the_short_form_equals_the_jacobian_product(row):
    scores, dp = row
    p = softmax(scores)
    assert np.abs(softmax_backward(p, dp) - softmax_jacobian(p) @ dp).max() <= TOL * (1 + np.abs(dp).max())


@EXAMPLES
@given(rows)
def test_the_short_form_equals_torch_autograd(row):
    scores, dp = row
    s = t(scores).requires_grad_()
    (torch.softmax(s, dim=-1) * t(dp)).sum().backward()
    assert np.abs(softmax_backward(softmax(scores), dp) - s.grad.numpy()).max() <= TOL * (1 + np.abs(dp).max())


@EXAMPLES
@given(rows, finite)
def test_adding_a_constant_to_dp_changes_nothing(row, shift):
    scores, dp = row
    p = softmax(scores)
    assert np.abs(softmax_backward(p, dp + shift) - softmax_backward(p, dp)).max() <= TOL * (1 + abs(shift) + np.abs(dp).max())


@EXAMPLES
@given(rows)
def test_the_gradient_at_the_scores_sums_to_zero(row):
    scores, dp = row
    assert abs(softmax_backward(softmax(scores), dp).sum()) <= TOL * (1 + np.abs(dp).max())


def test_the_short_form_works_row_by_row_on_a_matrix():
    rng = np.random.default_rng(1)
    P, dP = softmax(rng.standard_normal((4, 5))), rng.standard_normal((4, 5))
    expected = np.stack([softmax_jacobian(p) @ dp for p, dp in zip(P, dP)])
    assert np.abs(softmax_backward(P, dP) - expected).max() <= TOL


def test_the_jacobian_takes_one_row_only():
    with pytest.raises(ValueError, match=r"one row of weights, shape \(n,\)"):
        softmax_jacobian(np.full((2, 2), 0.5))


# --- one head ---------------------------------------------------------------------------------------


@EXAMPLES
@given(heads())
def test_the_heads_gradients_equal_torch_autograd(head):
    Q, K, V, dO, causal = head
    ours = attention_backward(Q, K, V, dO, causal)
    for a, b in zip((ours.dQ, ours.dK, ours.dV), autograd_head(Q, K, V, dO, causal)):
        assert np.abs(a - b).max() <= TOL


@EXAMPLES
@given(heads())
def test_every_stage_equals_torch_autograds_gradient_at_that_tensor(head):
    Q, K, V, dO, causal = head
    q, k, v = (t(a).requires_grad_() for a in (Q, K, V))
    s = q @ k.T / math.sqrt(Q.shape[1])
    if causal:
        s = s.masked_fill(torch.ones(len(Q), len(Q), dtype=torch.bool).triu(1), -math.inf)
    p = torch.softmax(s, dim=-1)
    for tensor in (s, p):
        tensor.retain_grad()
    (p @ v).backward(t(dO))
    ours = attention_backward(Q, K, V, dO, causal)
    assert np.abs(ours.dP - p.grad.numpy()).max() <= TOL
    assert np.abs(ours.dS - s.grad.numpy()).max() <= TOL


@EXAMPLES
@given(heads())
def test_D_from_the_output_equals_D_from_the_weights(head):
    Q, K, V, dO, causal = head
    ours = attention_backward(Q, K, V, dO, causal)
    assert np.abs(ours.D - np.sum(ours.P * ours.dP, axis=1)).max() <= TOL


def test_causal_dS_is_zero_wherever_a_word_looks_ahead():
    rng = np.random.default_rng(2)
    Q, K, V, dO = (rng.standard_normal((6, 3)) for _ in range(4))
    dS = attention_backward(Q, K, V, dO, causal=True).dS
    assert np.all(dS[np.triu_indices(6, 1)] == 0.0)


@EXAMPLES
@given(st.integers(1, 8), seeds, st.booleans())
def test_the_weight_gradients_equal_torch_autograd(n, seed, causal):
    rng = np.random.default_rng(seed)
    X, dO = rng.standard_normal((n, 4)), rng.standard_normal((n, 4))  # (n_words, d_model); V = X
    W_Q, W_K = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))  # (d_model, d_k)
    wq, wk = t(W_Q).requires_grad_(), t(W_K).requires_grad_()
    x = t(X)
    F.scaled_dot_product_attention(x @ wq, x @ wk, x, is_causal=causal).backward(t(dO))
    _, dW_Q, dW_K = head_weight_gradients(X, W_Q, W_K, dO, causal)
    assert np.abs(dW_Q - wq.grad.numpy()).max() <= TOL and np.abs(dW_K - wk.grad.numpy()).max() <= TOL


# --- one head, a tile at a time ---------------------------------------------------------------------


@EXAMPLES
@given(heads(), st.integers(1, 13))
def test_the_tiled_backward_equals_the_whole_matrix_backward_for_any_block(head, block):
    Q, K, V, dO, causal = head
    O, lse = tiled_attention(Q, K, V, block, causal=causal)
    whole = attention_backward(Q, K, V, dO, causal)
    tiled = tiled_attention_backward(Q, K, V, O, lse, dO, block, causal)
    for a, b in zip(tiled, (whole.dQ, whole.dK, whole.dV)):
        assert np.abs(a - b).max() <= TOL


@EXAMPLES
@given(heads(), st.integers(1, 13))
def test_the_tiled_backward_equals_torch_autograd(head, block):
    Q, K, V, dO, causal = head
    O, lse = tiled_attention(Q, K, V, block, causal=causal)
    for a, b in zip(tiled_attention_backward(Q, K, V, O, lse, dO, block, causal), autograd_head(Q, K, V, dO, causal)):
        assert np.abs(a - b).max() <= TOL


def test_each_tile_recomputes_exactly_its_part_of_the_weights():
    rng = np.random.default_rng(3)
    Q, K, V, dO = (rng.standard_normal((7, 3)) for _ in range(4))
    O, lse = tiled_attention(Q, K, V, 3, causal=True)
    trace = []
    tiled_attention_backward(Q, K, V, O, lse, dO, 3, causal=True, trace=trace)
    P = attention_backward(Q, K, V, dO, causal=True).P
    computed = [tile for tile in trace if tile.kind != SKIPPED]
    assert computed and all(np.abs(tile.P - P[slice(*tile.rows), slice(*tile.keys)]).max() <= TOL for tile in computed)


def test_the_trace_skips_the_tiles_above_the_diagonal_like_the_forward():
    rng = np.random.default_rng(4)
    Q, K, V, dO = (rng.standard_normal((10, 2)) for _ in range(4))
    O, lse = tiled_attention(Q, K, V, 3, causal=True)
    trace = []
    tiled_attention_backward(Q, K, V, O, lse, dO, 3, causal=True, trace=trace)
    skipped = sum(row.count(SKIPPED) for row in tile_grid(10, 3, causal=True))
    assert sum(tile.kind == SKIPPED for tile in trace) == skipped > 0 and all(tile.P is None for tile in trace if tile.kind == SKIPPED)


def test_an_lse_from_another_head_gives_other_gradients():
    # The weights come back only from this head's own lse: the backward really uses it.
    rng = np.random.default_rng(5)
    Q, K, V, dO = (rng.standard_normal((6, 3)) for _ in range(4))
    O, lse = tiled_attention(Q, K, V, 2)
    right = tiled_attention_backward(Q, K, V, O, lse, dO, 2)
    wrong = tiled_attention_backward(Q, K, V, O, lse + 0.5, dO, 2)
    assert np.abs(right[1] - wrong[1]).max() > 1e-3


@pytest.mark.parametrize("block", [0, -1])
def test_a_block_below_one_is_refused(block):
    Q = np.ones((3, 2))
    with pytest.raises(ValueError, match="block must be at least 1"):
        tiled_attention_backward(Q, Q, Q, Q, np.zeros(3), Q, block)


def test_a_causal_head_with_fewer_queries_than_keys_is_refused():
    Q, K = np.ones((2, 2)), np.ones((3, 2))
    with pytest.raises(ValueError, match="as many queries as keys"):
        tiled_attention_backward(Q, K, K, Q, np.zeros(2), Q, 1, causal=True)


# --- what each backward keeps -----------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 1024, 8192])
def test_kept_bytes_are_n_squared_against_n_times_d_v_plus_one(n):
    assert saved_weights_bytes(n, 4, heads=12, layers=12) == 144 * n * n * 4
    assert saved_lse_bytes(n, 64, 4, heads=12, layers=12) == 144 * n * 65 * 4
