"""Attention a tile at a time, by hand: online softmax and tiled attention.

A head of length n forms an n x n score matrix. The two tricks that never hold it whole, as
plain NumPy in the style of `mechanism.py`:

    online softmax    a row's maximum m and sum l in one pass, every earlier term rescaled by
                      exp(m_old - m_new) when the maximum grows; the division is a second pass
                      (Milakov and Gimelshein 2018: two passes where the plain softmax takes three)
    tiled attention   the same running m and l for a block of queries against one block of keys
                      at a time; the n x n matrix is never held, only one block x block tile
                      (Dao et al. 2022, "FlashAttention"; the block loop order of FlashAttention-2)

and the arithmetic that says what they save: bytes of the score matrix and of a tiled head.

Shapes: n_q queries and n_k keys (both n_words in self-attention), d_k query/key channels,
d_v value width, b the block size. Left out on purpose: the backward pass (FlashAttention keeps
the log-sum-exp of each row for it, which is why `tiled_attention` returns it), GPU memory
levels, dropout and batches. Times and measured memory are not here: they change with the
machine, so the benchmarks measure them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


__all__ = [
    "OnlineStep",
    "online_softmax",
    "log_sum_exp",
    "TileStep",
    "FULL",
    "DIAGONAL",
    "SKIPPED",
    "block_kind",
    "tile_grid",
    "tiled_attention",
    "score_matrix_bytes",
    "tiled_working_bytes",
]


# --- online softmax ----------------------------------------------------------------------------


@dataclass(frozen=True)
class OnlineStep:
    """The running state after one score: its maximum m, the rescale exp(m_old - m_new), the sum l."""

    score: float
    m: float
    rescale: float
    l: float  # noqa: E741 - the name the FlashAttention paper and the page use


def online_softmax(scores: np.ndarray) -> tuple[np.ndarray, list[OnlineStep]]:
    """Softmax of one row: its maximum and sum in one pass, then the division.   scores: (n,) -> weights: (n,)

        m_j = max(m_{j-1}, s_j)
        l_j = l_{j-1} * exp(m_{j-1} - m_j) + exp(s_j - m_j)     so l_n = sum_j exp(s_j - m_n)
        weights_j = exp(s_j - m_n) / l_n

    The plain softmax reads the row twice before dividing (once for the maximum, once for the
    sum); here the sum is kept relative to the maximum SO FAR, and when a larger score arrives
    the sum is rescaled by exp(m_old - m_new) <= 1. No weight is final before the last score:
    the division needs the final m and l (tiled attention removes that pass by blending the
    values as it goes). The trace lists every step's m, rescale, l.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1 or len(scores) == 0 or not np.all(np.isfinite(scores)):
        raise ValueError("online_softmax takes one non-empty row of finite scores")
    # Nothing seen yet: m = -inf makes the first rescale exp(-inf) = 0, which l = 0 does not mind.
    m, l = -math.inf, 0.0  # noqa: E741
    trace = []
    for s in scores:
        m_new = max(m, float(s))
        rescale = math.exp(m - m_new)  # 1.0 when the maximum did not move
        l = l * rescale + math.exp(s - m_new)  # noqa: E741
        m = m_new
        trace.append(OnlineStep(score=float(s), m=m, rescale=rescale, l=l))
    return np.exp(scores - m) / l, trace  # (n,)


def log_sum_exp(scores: np.ndarray) -> np.ndarray:
    """log sum_j exp(s_j) of each row, shifted by the row maximum.   scores: (..., n) -> (...)

    The reference for `tiled_attention`'s second result; -inf entries (masked) add nothing.
    """
    m = np.max(scores, axis=-1)  # (...)
    return m + np.log(np.sum(np.exp(scores - m[..., None]), axis=-1))


# --- tiled attention ---------------------------------------------------------------------------

# What a causal head does with one (query block, key block) tile.
FULL, DIAGONAL, SKIPPED = "full", "diagonal", "skipped"


def block_kind(r0: int, r1: int, c0: int, c1: int, causal: bool) -> str:
    """FULL, DIAGONAL or SKIPPED for queries r0..r1-1 against keys c0..c1-1."""
    if not causal or c1 - 1 <= r0:
        return FULL  # every key is at or before every query: nothing to mask
    if c0 > r1 - 1:
        return SKIPPED  # every key is after every query: the mask would zero the whole tile
    return DIAGONAL  # the tile straddles the diagonal: mask the part above it


def tile_grid(n_words: int, block: int, causal: bool) -> list[list[str]]:
    """The kind of every tile of a self-attention head, query blocks down, key blocks across."""
    starts = range(0, n_words, block)
    return [[block_kind(r0, min(r0 + block, n_words), c0, min(c0 + block, n_words), causal) for c0 in starts] for r0 in starts]


@dataclass(frozen=True)
class TileStep:
    """One tile of `tiled_attention`, for the log: which rows and keys, and the state after it.

    m, l, rescale: (rows,); partial: (rows, d_v) = acc / l, the output if the keys ended here.
    A skipped tile has no numbers (None).
    """

    rows: tuple[int, int]
    keys: tuple[int, int]
    kind: str
    m: np.ndarray | None = None
    l: np.ndarray | None = None  # noqa: E741
    rescale: np.ndarray | None = None
    partial: np.ndarray | None = None


def tiled_attention(
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    block: int,
    causal: bool = False,
    trace: list[TileStep] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """softmax(Q K^T / sqrt(d_k)) V, one block x block tile of scores at a time.

    Q: (n_q, d_k), K: (n_k, d_k), V: (n_k, d_v) -> output: (n_q, d_v), lse: (n_q,)
    where lse_i = log sum_j exp(score_ij), the normaliser of row i.

    For each block of queries, walk the blocks of keys keeping, per query row, the running
    maximum m, the running sum l = sum exp(s - m) and the running output acc = sum exp(s - m) v.
    When m grows, l and acc were summed relative to the old maximum: multiply both by
    exp(m_old - m_new). At the end output = acc / l. Memory beyond Q, K, V and the output: one
    (b, b) tile and m, l, acc for b rows; never (n_q, n_k).

    causal: queries and keys are the same n_words (self-attention), word i sees words 0..i.
    Tiles wholly above the diagonal are skipped without computing them, the diagonal tile is
    masked. Pass a list as `trace` to get one TileStep per tile, in order.
    """
    n_q, d_k = Q.shape
    n_k, d_v = V.shape
    if causal and n_q != n_k:
        raise ValueError(f"a causal head needs as many queries as keys (got {n_q} and {n_k})")
    if block < 1:
        raise ValueError(f"block must be at least 1 (got {block})")
    out = np.empty((n_q, d_v))  # (n_q, d_v)
    lse = np.empty(n_q)  # (n_q,)
    for r0 in range(0, n_q, block):
        r1 = min(r0 + block, n_q)
        Q_i = Q[r0:r1]  # (b_q, d_k): this block of queries
        m = np.full(r1 - r0, -np.inf)  # (b_q,) running maximum; -inf: no key seen yet
        l = np.zeros(r1 - r0)  # noqa: E741  (b_q,) running sum of exp(s - m)
        acc = np.zeros((r1 - r0, d_v))  # (b_q, d_v) running sum of exp(s - m) * v
        for c0 in range(0, n_k, block):
            c1 = min(c0 + block, n_k)
            kind = block_kind(r0, r1, c0, c1, causal)
            if kind == SKIPPED:
                if trace is not None:
                    trace.append(TileStep((r0, r1), (c0, c1), kind))
                continue
            S = Q_i @ K[c0:c1].T / np.sqrt(d_k)  # (b_q, b_k): one tile of the score matrix
            if kind == DIAGONAL:
                later = np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]  # (b_q, b_k)
                S = np.where(later, -np.inf, S)
            # Key block 0 is never skipped and its key 0 is visible to every row, so m is finite
            # from the first tile on and m - m_new is never -inf - (-inf).
            m_new = np.maximum(m, S.max(axis=1))  # (b_q,)
            rescale = np.exp(m - m_new)  # (b_q,) exp(m_old - m_new) <= 1; 0 at the first tile
            P = np.exp(S - m_new[:, None])  # (b_q, b_k) unnormalised weights, each <= 1
            l = l * rescale + P.sum(axis=1)  # noqa: E741
            acc = acc * rescale[:, None] + P @ V[c0:c1]  # (b_q, d_v)
            m = m_new
            if trace is not None:
                trace.append(TileStep((r0, r1), (c0, c1), kind, m.copy(), l.copy(), rescale, acc / l[:, None]))
        out[r0:r1] = acc / l[:, None]
        lse[r0:r1] = m + np.log(l)  # log sum exp(s) = m + log sum exp(s - m)
    return out, lse


# --- counting: bytes and multiply-adds ---------------------------------------------------------


def score_matrix_bytes(n_words: int, dtype_bytes: int, heads: int = 1, layers: int = 1) -> int:
    """Bytes of the n x n score matrices: n * n * bytes, per head, times heads and layers."""
    return n_words * n_words * dtype_bytes * heads * layers


def tiled_working_bytes(n_words: int, block: int, dtype_bytes: int) -> int:
    """Bytes a tiled head holds beyond Q, K, V and the output: b * b + 2 * n numbers.

    One (b, b) tile of scores, and a running maximum and sum per query row (kept for every row,
    as FlashAttention keeps the log-sum-exp for the backward pass): O(n), not O(n * n).
    """
    return (block * block + 2 * n_words) * dtype_bytes
