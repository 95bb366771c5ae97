"""The hand-written attention functions, each against PyTorch or an independent formula.

Tolerances: float64 on both sides, so 1e-12 leaves room only for a different summation order.
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_by_hand.math.mechanism import attention, causal_mask, dot, raw_attention, softmax, wired_attention

TOL = 1e-12

finite = st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False)
score_rows = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 9)), elements=finite)


def t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


def random_head(seed: int, n_words: int, d_model: int, d_k: int, d_v: int):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((n_words, d_model)),
        rng.standard_normal((d_model, d_k)),
        rng.standard_normal((d_model, d_k)),
        rng.standard_normal((d_model, d_v)),
    )


def test_dot_matches_the_sum_of_products():
    a, b = np.array([0.3, 0.3, 0.9, 0.0]), np.array([0.9, 0.0, 0.3, 0.0])
    assert dot(a, b) == pytest.approx(0.3 * 0.9 + 0.9 * 0.3, abs=TOL)


@given(score_rows)
def test_softmax_rows_sum_to_one(scores):
    assert np.allclose(softmax(scores).sum(axis=-1), 1.0, atol=1e-12)


@given(score_rows)
def test_softmax_weights_are_between_zero_and_one(scores):
    weights = softmax(scores)
    assert np.all(weights >= 0.0) and np.all(weights <= 1.0)


@given(score_rows, finite)
def test_softmax_ignores_a_constant_added_to_a_row(scores, shift):
    assert np.allclose(softmax(scores + shift), softmax(scores), atol=1e-12)


@given(score_rows)
def test_softmax_matches_torch(scores):
    assert np.allclose(softmax(scores), torch.softmax(t(scores), dim=-1).numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("big", [1e4, -1e4, 1e300])
def test_softmax_of_huge_scores_does_not_overflow(big):
    # A naive exp(1e4) is inf, and inf/inf is NaN; the max-shift keeps every exponent <= 0.
    with np.errstate(over="raise", invalid="raise"):
        weights = softmax(np.array([big, big - 1.0, 0.0]))
    assert np.all(np.isfinite(weights))
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)


def test_softmax_gives_zero_weight_to_minus_infinity():
    weights = softmax(np.array([[0.5, -np.inf, 0.1]]))
    assert weights[0, 1] == 0.0
    assert weights.sum() == pytest.approx(1.0, abs=1e-15)


@given(st.integers(1, 12))
def test_causal_mask_hides_exactly_the_future(n):
    mask = causal_mask(n)
    for i in range(n):
        for j in range(n):
            assert mask[i, j] == (j > i)


@settings(max_examples=50)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 6), st.integers(1, 5), st.integers(1, 5), st.booleans())
def test_attention_matches_torch_scaled_dot_product_attention(seed, n_words, d_model, d_k, d_v, causal):
    X, W_q, W_k, W_v = random_head(seed, n_words, d_model, d_k, d_v)
    ours, _ = attention(X, W_q, W_k, W_v, causal=causal)
    theirs = F.scaled_dot_product_attention(t(X @ W_q), t(X @ W_k), t(X @ W_v), is_causal=causal).numpy()
    assert ours.shape == (n_words, d_v)
    assert np.allclose(ours, theirs, rtol=0, atol=1e-12)


@settings(max_examples=50)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_causal_attention_puts_no_weight_on_a_later_word(seed, n_words):
    X, W_q, W_k, W_v = random_head(seed, n_words, 4, 3, 3)
    _, weights = attention(X, W_q, W_k, W_v, causal=True)
    assert np.all(weights[causal_mask(n_words)] == 0.0)
    assert np.allclose(weights.sum(axis=-1), 1.0, atol=1e-12)


@settings(max_examples=30)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8))
def test_causal_output_of_a_word_does_not_change_when_later_words_change(seed, n_words):
    X, W_q, W_k, W_v = random_head(seed, n_words, 4, 3, 3)
    changed = X.copy()
    changed[-1] += 10.0  # rewrite the last word only
    before, _ = attention(X, W_q, W_k, W_v, causal=True)
    after, _ = attention(changed, W_q, W_k, W_v, causal=True)
    assert np.allclose(before[:-1], after[:-1], rtol=0, atol=1e-12)


@settings(max_examples=50, deadline=None)  # a loaded machine must not fail it: no clock in this test
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 6), st.integers(1, 5), st.integers(1, 5), st.randoms())
def test_general_head_without_a_mask_reorders_its_output_rows_as_its_input_rows(seed, n_words, d_model, d_k, d_v, rnd):
    """Module 3's order-blindness, for the general head and every row (S6 checks one row of the raw head)."""
    X, W_q, W_k, W_v = random_head(seed, n_words, d_model, d_k, d_v)
    order = list(range(n_words))
    rnd.shuffle(order)
    before, _ = attention(X, W_q, W_k, W_v)
    after, _ = attention(X[order], W_q, W_k, W_v)
    assert np.allclose(after, before[order], rtol=0, atol=1e-12)


@settings(max_examples=50)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 6))
def test_raw_attention_matches_torch_on_random_shapes(seed, n_words, d_model):
    X = random_head(seed, n_words, d_model, 1, 1)[0]
    out, weights = raw_attention(X)
    # Raw attention is unscaled: torch's kernel divides by sqrt(d), so scale q up to cancel it.
    theirs = F.scaled_dot_product_attention(t(X * math.sqrt(d_model)), t(X), t(X)).numpy()
    assert out.shape == (n_words, d_model) and weights.shape == (n_words, n_words)
    assert np.allclose(out, theirs, rtol=0, atol=1e-12)


@settings(max_examples=50)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 6), st.integers(1, 5))
def test_wired_attention_matches_torch_on_random_shapes(seed, n_words, d_model, d_k):
    X, W_Q, W_K, _ = random_head(seed, n_words, d_model, d_k, 1)
    out, weights, scores = wired_attention(X, W_Q, W_K)
    theirs = F.scaled_dot_product_attention(t(X @ W_Q), t(X @ W_K), t(X)).numpy()
    assert out.shape == (n_words, d_model)
    assert np.allclose(out, theirs, rtol=0, atol=1e-12)
    assert np.allclose(weights.sum(axis=-1), 1.0, atol=1e-12)


def test_raw_attention_is_the_general_head_with_identity_weights_and_no_scale():
    X = random_head(1, 4, 5, 5, 5)[0]
    out, weights = raw_attention(X)
    # attention() divides by sqrt(d_k); scaling W_q by sqrt(d_model) cancels that.
    eye = np.eye(5)
    ref_out, ref_weights = attention(X, eye * math.sqrt(5), eye, eye)
    assert np.allclose(weights, ref_weights, atol=TOL)
    assert np.allclose(out, ref_out, atol=TOL)


def test_raw_attention_scores_are_symmetric_so_weights_follow_similarity():
    X = random_head(2, 3, 4, 4, 4)[0]
    _, weights = raw_attention(X)
    expected = torch.softmax(t(X @ X.T), dim=-1).numpy()
    assert np.allclose(weights, expected, atol=TOL)


def test_wired_attention_matches_torch_with_identity_values():
    X, W_Q, W_K, _ = random_head(3, 3, 4, 2, 4)
    out, weights, scores = wired_attention(X, W_Q, W_K)
    theirs = F.scaled_dot_product_attention(t(X @ W_Q), t(X @ W_K), t(X)).numpy()
    assert np.allclose(scores, (X @ W_Q) @ (X @ W_K).T, atol=TOL)
    assert np.allclose(out, theirs, atol=TOL)
    assert np.allclose(weights.sum(axis=-1), 1.0, atol=TOL)
