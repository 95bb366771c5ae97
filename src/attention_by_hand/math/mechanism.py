"""Self-attention built up in four steps, as plain NumPy functions a learner can read.

    dot product -> softmax -> raw-embedding attention -> wired query/key head -> general head

Each function takes and returns arrays whose shapes are named in its docstring:
n_words is the sentence length, d_model the number of embedding axes, d_k the number of
query/key channels and d_v the width of the values. Nothing here knows about logs, files or
figures; the run and the labs call these functions, and the workshop pages quote them.

Left out on purpose: batches, several heads and learned weights (the labs add them in PyTorch).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "dot",
    "softmax",
    "causal_mask",
    "raw_attention",
    "wired_attention",
    "attention",
]


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """Agreement of two vectors: a . b = sum_i a_i * b_i.   a, b: (d,)

    Large when both are large on the same axes, zero when they share no axis,
    negative when they point opposite ways.
    """
    return float(a @ b)


def softmax(scores: np.ndarray) -> np.ndarray:
    """Turn scores into weights that are positive and sum to 1, along the last axis.

        softmax(s)_i = exp(s_i) / sum_j exp(s_j)

    scores: (..., n) -> weights: (..., n). A matrix is softmaxed row by row.
    """
    # exp(s_i - m) / sum_j exp(s_j - m) is the same fraction for any m (exp(-m) cancels), and
    # m = the row maximum keeps every exponent <= 0, so exp cannot overflow on large scores.
    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=-1, keepdims=True)


def causal_mask(n_words: int) -> np.ndarray:
    """True where word i would look at a LATER word j > i.   mask: (n_words, n_words)"""
    # k=1 keeps the diagonal visible: a word may always look at itself.
    return np.triu(np.ones((n_words, n_words), dtype=bool), k=1)


def raw_attention(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Attention with no learned parts: every word asks "who looks like me?".

    X: (n_words, d_model) -> output: (n_words, d_model), weights: (n_words, n_words)
    """
    scores = X @ X.T  # (n_words, n_words); scores[i, j] = X[i] . X[j], so symmetric
    weights = softmax(scores)  # each ROW sums to 1: how word i splits its attention
    return weights @ X, weights  # output row i = weights[i]-blend of all embedding rows


def wired_attention(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hand-wired query/key head; the values are the raw embeddings (W_V = identity).

    X: (n_words, d_model), W_Q and W_K: (d_model, d_k)
    -> output: (n_words, d_model), weights: (n_words, n_words), scores: (n_words, n_words)

    Keeping the values raw keeps every output readable on the named axes; the scores are
    returned unscaled so the log can show them before the division by sqrt(d_k).
    """
    Q = X @ W_Q  # (n_words, d_k): what each word asks for
    K = X @ W_K  # (n_words, d_k): what each word advertises
    scores = Q @ K.T  # (n_words, n_words); scores[i, j] = Q[i] . K[j], no longer symmetric
    d_k = W_K.shape[1]
    weights = softmax(scores / np.sqrt(d_k))  # the scale S5 measures
    return weights @ X, weights, scores


def attention(
    X: np.ndarray,
    W_q: np.ndarray,
    W_k: np.ndarray,
    W_v: np.ndarray,
    causal: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """One general head of self-attention:  softmax(Q K^T / sqrt(d_k)) V.

    X: (n_words, d_model), W_q and W_k: (d_model, d_k), W_v: (d_model, d_v)
    -> output: (n_words, d_v), weights: (n_words, n_words)
    """
    Q = X @ W_q  # (n_words, d_k)
    K = X @ W_k  # (n_words, d_k)
    V = X @ W_v  # (n_words, d_v): what each word hands over when attended to
    scores = Q @ K.T / np.sqrt(W_k.shape[1])  # (n_words, n_words)
    if causal:
        # exp(-inf) = 0: a future word gets exactly zero weight, and the row still sums to 1.
        scores = np.where(causal_mask(len(X)), -np.inf, scores)
    weights = softmax(scores)  # (n_words, n_words)
    return weights @ V, weights
