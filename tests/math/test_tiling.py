"""Online softmax and tiled attention, each against PyTorch or an independent formula.

Tolerances: float64 on both sides with N(0, 1) inputs, so TOL = 1e-12 leaves room only for a
different summation order (the noise is of order 1e-15 at these sizes).
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_by_hand.math.mechanism import attention, causal_mask, softmax
from attention_by_hand.math.tiling import (
    DIAGONAL,
    FULL,
    SKIPPED,
    block_kind,
    log_sum_exp,
    online_softmax,
    score_matrix_bytes,
    tile_grid,
    tiled_attention,
    tiled_working_bytes,
)

TOL = 1e-12

finite = st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False)
score_row = arrays(np.float64, st.integers(1, 12), elements=finite)
seeds = st.integers(0, 2**32 - 1)


def t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


def random_qkv(seed: int, n_q: int, n_k: int, d_k: int, d_v: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n_q, d_k)), rng.standard_normal((n_k, d_k)), rng.standard_normal((n_k, d_v))


def full_scores(Q: np.ndarray, K: np.ndarray, causal: bool) -> np.ndarray:
    scores = Q @ K.T / math.sqrt(Q.shape[1])  # (n_q, n_k)
    return np.where(causal_mask(len(Q)), -np.inf, scores) if causal else scores


@st.composite
def heads(draw):
    """A random head: lengths, a block that need not divide them, head sizes, causal on or off."""
    causal = draw(st.booleans())
    n_q = draw(st.integers(1, 40))
    n_k = n_q if causal else draw(st.integers(1, 40))
    return dict(
        seed=draw(seeds),
        n_q=n_q,
        n_k=n_k,
        d_k=draw(st.integers(1, 16)),
        d_v=draw(st.integers(1, 8)),
        block=draw(st.integers(1, 17)),
        causal=causal,
    )


# --- online softmax ------------------------------------------------------------------------------


@settings(deadline=None, max_examples=60)
@given(score_row)
def test_online_softmax_matches_mechanism_softmax(scores):
    weights, _ = online_softmax(scores)
    assert np.allclose(weights, softmax(scores), rtol=0, atol=TOL)


@settings(deadline=None, max_examples=60)
@given(score_row)
def test_online_softmax_ends_with_the_row_maximum_and_the_shifted_sum(scores):
    _, trace = online_softmax(scores)
    assert trace[-1].m == scores.max()
    assert trace[-1].l == pytest.approx(np.exp(scores - scores.max()).sum(), rel=TOL)


@settings(deadline=None, max_examples=60)
@given(score_row)
def test_online_softmax_rescales_only_when_the_maximum_grows(scores):
    _, trace = online_softmax(scores)
    for before, step in zip(trace, trace[1:]):
        if step.m == before.m:
            assert step.rescale == 1.0
        else:
            # <= 1, not < 1: a maximum that grows by a subnormal step rescales by exactly 1.0.
            assert step.rescale == pytest.approx(math.exp(before.m - step.m), rel=TOL) and step.rescale <= 1.0


def test_online_softmax_traces_one_step_per_score():
    _, trace = online_softmax(np.array([0.0, 0.54, 0.99]))
    assert [step.score for step in trace] == [0.0, 0.54, 0.99]
    assert [step.m for step in trace] == [0.0, 0.54, 0.99]


def test_online_softmax_of_huge_scores_does_not_overflow():
    with np.errstate(over="raise", invalid="raise"):
        weights, _ = online_softmax(np.array([1e4, 1e4 - 1.0, 0.0]))
    assert np.all(np.isfinite(weights)) and weights.sum() == pytest.approx(1.0, abs=TOL)


@pytest.mark.parametrize("bad", [np.array([]), np.array([[0.1, 0.2]]), np.array([0.0, np.inf]), np.array([np.nan])])
def test_online_softmax_refuses_anything_but_one_row_of_finite_scores(bad):
    with pytest.raises(ValueError, match="one non-empty row of finite scores"):
        online_softmax(bad)


@settings(deadline=None, max_examples=40)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 9)), elements=finite))
def test_log_sum_exp_matches_torch(scores):
    assert np.allclose(log_sum_exp(scores), torch.logsumexp(t(scores), dim=-1).numpy(), rtol=0, atol=TOL)


def test_log_sum_exp_ignores_masked_scores():
    assert log_sum_exp(np.array([0.3, -np.inf, 1.2])) == pytest.approx(np.log(np.exp(0.3) + np.exp(1.2)), rel=TOL)


# --- tiled attention -----------------------------------------------------------------------------


@settings(deadline=None, max_examples=80)
@given(heads())
def test_tiled_attention_matches_torch_sdpa(h):
    Q, K, V = random_qkv(h["seed"], h["n_q"], h["n_k"], h["d_k"], h["d_v"])
    out, _ = tiled_attention(Q, K, V, h["block"], causal=h["causal"])
    theirs = F.scaled_dot_product_attention(t(Q), t(K), t(V), is_causal=h["causal"]).numpy()
    assert np.allclose(out, theirs, rtol=0, atol=TOL)


@settings(deadline=None, max_examples=80)
@given(heads())
def test_tiled_log_sum_exp_matches_torch_logsumexp_of_the_full_scores(h):
    Q, K, V = random_qkv(h["seed"], h["n_q"], h["n_k"], h["d_k"], h["d_v"])
    _, lse = tiled_attention(Q, K, V, h["block"], causal=h["causal"])
    theirs = torch.logsumexp(t(full_scores(Q, K, h["causal"])), dim=-1).numpy()
    assert np.allclose(lse, theirs, rtol=0, atol=TOL)


@settings(deadline=None, max_examples=40)
@given(seeds, st.integers(1, 30), st.booleans())
def test_tiled_attention_matches_mechanism_attention(seed, n_words, causal):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_words, 5))
    W_q, W_k, W_v = (rng.standard_normal((5, 3)) for _ in range(3))
    ours, _ = attention(X, W_q, W_k, W_v, causal=causal)
    tiled, _ = tiled_attention(X @ W_q, X @ W_k, X @ W_v, block=4, causal=causal)
    assert np.allclose(tiled, ours, rtol=0, atol=TOL)


@pytest.mark.parametrize("n_words, block", [(10, 4), (7, 3), (5, 5), (3, 8)])
def test_a_length_that_is_not_a_multiple_of_the_block_still_matches(n_words, block):
    Q, K, V = random_qkv(1, n_words, n_words, 4, 2)
    out, _ = tiled_attention(Q, K, V, block, causal=True)
    theirs = F.scaled_dot_product_attention(t(Q), t(K), t(V), is_causal=True).numpy()
    assert np.allclose(out, theirs, rtol=0, atol=TOL)


def test_the_trace_has_one_tile_per_query_block_and_key_block_none_larger_than_the_block():
    Q, K, V = random_qkv(2, 10, 10, 3, 2)
    trace = []
    tiled_attention(Q, K, V, 4, trace=trace)
    assert len(trace) == 3 * 3
    assert all(r1 - r0 <= 4 and c1 - c0 <= 4 for (r0, r1), (c0, c1) in ((s.rows, s.keys) for s in trace))


def test_the_last_partial_output_of_each_query_block_is_its_output():
    Q, K, V = random_qkv(3, 9, 9, 3, 2)
    trace = []
    out, _ = tiled_attention(Q, K, V, 4, trace=trace)
    for step in trace:
        if step.keys[1] == 9:  # the last key block
            assert np.allclose(step.partial, out[step.rows[0] : step.rows[1]], rtol=0, atol=TOL)


def test_causal_tiling_skips_every_tile_above_the_diagonal_and_computes_the_rest():
    Q, K, V = random_qkv(4, 16, 16, 3, 2)
    trace = []
    tiled_attention(Q, K, V, 4, causal=True, trace=trace)
    kinds = {(s.rows[0] // 4, s.keys[0] // 4): s.kind for s in trace}
    assert kinds == {(i, j): SKIPPED if j > i else DIAGONAL if j == i else FULL for i in range(4) for j in range(4)}
    assert all(s.m is None for s in trace if s.kind == SKIPPED)


@pytest.mark.parametrize(
    "r0, r1, c0, c1, causal, kind",
    [
        (4, 8, 0, 4, True, FULL),  # keys 0..3 before queries 4..7
        (4, 8, 4, 8, True, DIAGONAL),
        (0, 4, 4, 8, True, SKIPPED),  # keys 4..7 after queries 0..3
        (4, 8, 3, 5, True, FULL),  # key 4 is query 4 itself: visible
        (4, 8, 3, 6, True, DIAGONAL),  # key 5 is after query 4
        (0, 4, 4, 8, False, FULL),
    ],
)
def test_block_kind(r0, r1, c0, c1, causal, kind):
    assert block_kind(r0, r1, c0, c1, causal) == kind


def test_tile_grid_counts_the_causal_tiles():
    grid = tile_grid(4096, 512, causal=True)
    counts = {kind: sum(row.count(kind) for row in grid) for kind in (FULL, DIAGONAL, SKIPPED)}
    assert counts == {FULL: 28, DIAGONAL: 8, SKIPPED: 28}


def test_a_causal_head_needs_as_many_queries_as_keys():
    Q, K, V = random_qkv(5, 3, 4, 2, 2)
    with pytest.raises(ValueError, match="as many queries as keys"):
        tiled_attention(Q, K, V, 2, causal=True)


def test_a_block_must_hold_a_word():
    Q, K, V = random_qkv(5, 3, 3, 2, 2)
    with pytest.raises(ValueError, match="block must be at least 1"):
        tiled_attention(Q, K, V, 0)


# --- counting: bytes and multiply-adds -----------------------------------------------------------


@pytest.mark.parametrize("n_words, dtype", [(16, np.float32), (33, np.float16), (8, np.float64)])
def test_score_matrix_bytes_are_the_bytes_of_the_arrays(n_words, dtype):
    per_head = np.zeros((n_words, n_words), dtype=dtype).nbytes
    assert score_matrix_bytes(n_words, np.dtype(dtype).itemsize, heads=12, layers=12) == 144 * per_head


def test_tiled_working_bytes_are_one_tile_and_two_numbers_per_row():
    tile, stats = np.zeros((8, 8), np.float32), np.zeros((2, 100), np.float32)  # m and l of 100 rows
    assert tiled_working_bytes(100, 8, 4) == tile.nbytes + stats.nbytes
