"""The key/value cache against the causal head, and its counts against the arrays they count.

Tolerances: float64 on both sides with N(0, 1) inputs, so TOL = 1e-12 leaves room only for a
different summation order.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_by_hand.math.kv_cache import KVCache, decode_multiply_adds, decode_with_cache, kv_cache_bytes
from attention_by_hand.math.mechanism import attention, softmax

TOL = 1e-12
seeds = st.integers(0, 2**32 - 1)


def random_head(seed: int, n_words: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n_words, 5)), *(rng.standard_normal((5, 3)) for _ in range(3))


@settings(deadline=None, max_examples=40)
@given(seeds, st.integers(1, 12))
def test_decoding_with_a_cache_equals_the_causal_head(seed, n_words):
    X, W_q, W_k, W_v = random_head(seed, n_words)
    outputs, _ = decode_with_cache(X, W_q, W_k, W_v)
    ours, _ = attention(X, W_q, W_k, W_v, causal=True)
    assert np.allclose(outputs, ours, rtol=0, atol=TOL)


@settings(deadline=None, max_examples=30)
@given(seeds, st.integers(1, 10))
def test_each_decoded_word_equals_the_last_row_of_the_head_recomputed_on_the_words_so_far(seed, n_words):
    # The mask's offset: the newest word is at position t and sees positions 0..t, itself included.
    X, W_q, W_k, W_v = random_head(seed, n_words)
    outputs, _ = decode_with_cache(X, W_q, W_k, W_v)
    for step in range(n_words):
        again, _ = attention(X[: step + 1], W_q, W_k, W_v, causal=True)
        assert np.allclose(outputs[step], again[-1], rtol=0, atol=TOL)


def test_a_decoded_word_is_neither_the_unmasked_row_nor_the_row_that_leaves_itself_out():
    # The two off-by-ones a cache can make: seeing later words, or attending before appending.
    X, W_q, W_k, W_v = random_head(6, 5)
    outputs, _ = decode_with_cache(X, W_q, W_k, W_v)
    step = 2
    unmasked, _ = attention(X, W_q, W_k, W_v)
    earlier = softmax((X[:step] @ W_k) @ (X[step] @ W_q) / np.sqrt(3)) @ (X[:step] @ W_v)  # (d_v,)
    assert not np.allclose(outputs[step], unmasked[step], atol=1e-6)
    assert not np.allclose(outputs[step], earlier, atol=1e-6)


def test_the_cache_keeps_every_row_it_was_given_in_order():
    X, W_q, W_k, W_v = random_head(7, 4)
    _, cache = decode_with_cache(X, W_q, W_k, W_v)
    assert cache.length == 4
    # Row by row vs one matrix product: equal up to the summation order.
    assert np.allclose(cache.keys, X @ W_k, rtol=0, atol=TOL) and np.allclose(cache.values, X @ W_v, rtol=0, atol=TOL)


def test_appending_leaves_earlier_rows_untouched():
    cache = KVCache(3, 2, 1)
    cache.append(np.array([1.0, 2.0]), np.array([3.0]))
    before = cache.keys.copy()
    cache.append(np.array([4.0, 5.0]), np.array([6.0]))
    assert np.array_equal(cache.keys[:1], before) and cache.keys.shape == (2, 2)


def test_a_full_cache_refuses_another_word():
    cache = KVCache(1, 2, 2)
    cache.append(np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="the cache is full"):
        cache.append(np.zeros(2), np.zeros(2))


# --- counting: bytes and multiply-adds -----------------------------------------------------------


@pytest.mark.parametrize("kv_heads", [12, 4, 1])
def test_kv_cache_bytes_are_the_bytes_of_the_cache_arrays(kv_heads):
    cache = np.zeros((12, 2, kv_heads, 100, 64), np.float16)  # layers, (keys, values), kv_heads, words, d_k
    assert kv_cache_bytes(100, 12, kv_heads, 64, 2) == cache.nbytes


def matmul_cost(*shapes) -> int:
    """Multiply-adds of (a, b) @ (b, c) for each pair: a * b * c."""
    return sum(a * b * c for a, b, c in shapes)


def test_decode_multiply_adds_count_the_matmuls_of_one_new_word():
    n, d_model, d_k = 10, 6, 4
    one_head = matmul_cost((1, d_model, d_k), (1, d_model, d_k), (1, d_model, d_k), (1, d_k, n), (1, n, d_k))
    assert decode_multiply_adds(n, d_model, d_k, heads=3, layers=2, cached=True) == 6 * one_head


def test_decode_multiply_adds_without_a_cache_count_the_whole_head_again():
    n, d_model, d_k = 10, 6, 4
    one_head = matmul_cost((n, d_model, d_k), (n, d_model, d_k), (n, d_model, d_k), (n, d_k, n), (n, n, d_k))
    assert decode_multiply_adds(n, d_model, d_k, heads=3, layers=2, cached=False) == 6 * one_head
