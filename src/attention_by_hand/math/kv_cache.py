"""The key/value cache, by hand: a decoder computes each word's key and value once.

A model decoding word by word would otherwise recompute every earlier word's keys and values at
each step. The cache keeps each word's key and value row; a new word's query meets them all.
With it, the arithmetic that says what it saves and what it costs: bytes of the cache (for
multi-head, grouped-query and multi-query attention) and multiply-adds per new word.

Shapes: n_words words decoded, d_k query/key channels, d_v value width. Left out: batches,
paged or quantised caches, and times (the benchmarks measure them).
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.math.mechanism import softmax

__all__ = ["KVCache", "decode_with_cache", "kv_cache_bytes", "decode_multiply_adds"]


class KVCache:
    """The keys and values of the words decoded so far, one row per word.

    Room for `max_words` rows is set aside up front, as real decoders do, which is why a
    cache's size is counted at its full length (`kv_cache_bytes`).
    """

    def __init__(self, max_words: int, d_k: int, d_v: int):
        self._K = np.zeros((max_words, d_k))  # (max_words, d_k)
        self._V = np.zeros((max_words, d_v))  # (max_words, d_v)
        self.length = 0

    @property
    def keys(self) -> np.ndarray:
        """The cached keys. (length, d_k)"""
        return self._K[: self.length]

    @property
    def values(self) -> np.ndarray:
        """The cached values. (length, d_v)"""
        return self._V[: self.length]

    def append(self, k: np.ndarray, v: np.ndarray) -> None:
        """Add one word's key k: (d_k,) and value v: (d_v,)."""
        if self.length == len(self._K):
            raise ValueError(f"the cache is full ({self.length} words)")
        self._K[self.length] = k
        self._V[self.length] = v
        self.length += 1

    def attend(self, q: np.ndarray) -> np.ndarray:
        """The newest word's output: its query against every cached key.   q: (d_k,) -> (d_v,)

        No mask is needed: the cache holds exactly the words at or before the new one, which is
        the newest row of the causal mask.
        """
        scores = self.keys @ q / np.sqrt(len(q))  # (length,)
        return softmax(scores) @ self.values  # (d_v,)


def decode_with_cache(
    X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray
) -> tuple[np.ndarray, KVCache]:
    """Run a causal head word by word, computing each word's key and value once.

    X: (n_words, d_model), W_q and W_k: (d_model, d_k), W_v: (d_model, d_v)
    -> outputs: (n_words, d_v), equal to mechanism.attention(..., causal=True), and the cache.
    """
    cache = KVCache(len(X), W_k.shape[1], W_v.shape[1])
    outputs = np.empty((len(X), W_v.shape[1]))  # (n_words, d_v)
    for t, x in enumerate(X):  # x: (d_model,), the word arriving at step t
        cache.append(x @ W_k, x @ W_v)  # its key and value, the only ones computed this step
        outputs[t] = cache.attend(x @ W_q)
    return outputs, cache


# --- counting: bytes and multiply-adds ---------------------------------------------------------


def kv_cache_bytes(n_words: int, layers: int, kv_heads: int, d_k: int, dtype_bytes: int) -> int:
    """Bytes of a key/value cache: 2 (keys and values) * layers * kv_heads * d_k * n * bytes.

    kv_heads = the query heads for multi-head attention, the number of groups for grouped-query
    attention, 1 for multi-query attention.
    """
    return 2 * layers * kv_heads * d_k * n_words * dtype_bytes


def decode_multiply_adds(n_words: int, d_model: int, d_k: int, heads: int, layers: int, cached: bool) -> int:
    """Multiply-adds of the attention heads for the newest of n_words words (d_v = d_k).

    with a cache:    heads * layers * (3 * d_model * d_k  +  n * d_k  +  n * d_k)
                     (q, k, v of the new word; its scores against n keys; its blend of n values)
    without a cache: heads * layers * (3 * n * d_model * d_k  +  n * n * d_k  +  n * n * d_k)
                     (the head run again on all n words, the full n x n matrix as
                     mechanism.attention forms it: the earlier words' keys and values depend on
                     the layers below, so nothing can be kept)

    Output projections and the MLP are left out: they cost the same per word either way.
    """
    new_word = 3 * d_model * d_k + 2 * n_words * d_k  # one row: projections, scores, blend
    # Without a cache all n rows are redone, and n * new_word is exactly the formula above.
    return heads * layers * (new_word if cached else n_words * new_word)
