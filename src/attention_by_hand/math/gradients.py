"""How attention learns: its gradients by hand, from the softmax's Jacobian to the tiled backward pass.

    softmax_jacobian           dp/ds = diag(p) - p p^T, one row of weights
    softmax_backward           ds = p * (dp - p . dp): the Jacobian product without the Jacobian
    attention_backward         dV, dP, D, dS, dQ, dK of one head, from the whole weight matrix P
    head_weight_gradients      the wired head's dW_Q and dW_K (values are the raw embeddings)
    tiled_attention_backward   dQ, dK, dV from O and the log-sum-exp, one tile of P at a time
    saved_weights_bytes, saved_lse_bytes   what each backward keeps from the forward pass

Shapes: n_q queries and n_k keys (both n_words in self-attention), d_k query/key channels, d_v
value channels, d_model embedding axes, b the block size. Upstream gradients are written dX for
"d loss / d X", the shape of X. Every function is plain NumPy in float64; the run and the tests
compare each result with torch.autograd.

The chain, read backwards through O = P V, P = softmax(S), S = Q K^T / sqrt(d_k):

    dV = P^T dO        dP = dO V^T        dS = P * (dP - D),  D = rowsum(dO * O) = rowsum(P * dP)
    dQ = dS K / sqrt(d_k)                 dK = dS^T Q / sqrt(d_k)

Left out: dropout, batches and several heads (each head's backward is this one), the gradient
with respect to the embeddings X, and GPU memory levels. The backward in plain PyTorch, fast
enough to time, is `tiling_torch.tiled_attention_backward`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_by_hand.math.mechanism import causal_mask, softmax
from attention_by_hand.math.tiling import DIAGONAL, SKIPPED, block_kind

__all__ = [
    "softmax_jacobian",
    "softmax_backward",
    "AttentionBackward",
    "attention_backward",
    "head_weight_gradients",
    "BackwardTile",
    "tiled_attention_backward",
    "saved_weights_bytes",
    "saved_lse_bytes",
]


# --- the softmax --------------------------------------------------------------------------------


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    """How each weight moves with each score.   p: (n,) softmax weights -> J: (n, n)

        J_ij = dp_i / ds_j = p_i (1[i = j] - p_j),   J = diag(p) - p p^T

    Every row sums to 0: adding the same number to every score leaves the weights unchanged.
    J is symmetric, so the backward J^T dp is J dp.
    """
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"softmax_jacobian takes one row of weights, shape (n,), not {p.shape}")
    return np.diag(p) - np.outer(p, p)  # (n, n)


def softmax_backward(p: np.ndarray, dp: np.ndarray) -> np.ndarray:
    """The gradient at the scores from the gradient at the weights, row by row, without J.

    p, dp: (..., n) -> ds: (..., n)

        ds_j = sum_i dp_i J_ij = p_j (dp_j - sum_i p_i dp_i) = p_j (dp_j - p . dp)

    The short form costs two passes over the row instead of an n x n matrix per row.
    """
    return p * (dp - np.sum(p * dp, axis=-1, keepdims=True))  # (..., n)


# --- one head, from the whole weight matrix -----------------------------------------------------


@dataclass(frozen=True)
class AttentionBackward:
    """Every stage of one head's backward pass, and the forward values it used.

    P: (n_q, n_k) the weights; O: (n_q, d_v) the output; dV: (n_k, d_v); dP, dS: (n_q, n_k);
    D: (n_q,) = rowsum(dO * O); dQ: (n_q, d_k); dK: (n_k, d_k).
    """

    P: np.ndarray
    O: np.ndarray
    dV: np.ndarray
    dP: np.ndarray
    D: np.ndarray
    dS: np.ndarray
    dQ: np.ndarray
    dK: np.ndarray


def attention_backward(Q: np.ndarray, K: np.ndarray, V: np.ndarray, dO: np.ndarray, causal: bool = False) -> AttentionBackward:
    """The gradients of one head, O = softmax(Q K^T / sqrt(d_k)) V, holding the whole matrix P.

    Q: (n_q, d_k), K: (n_k, d_k), V: (n_k, d_v), dO: (n_q, d_v) -> AttentionBackward

    The forward is recomputed here; a framework keeps P from it instead, n_q x n_k numbers per
    head (what `tiled_attention_backward` avoids). causal: word i sees words 0..i.
    """
    d_k = Q.shape[1]
    S = Q @ K.T / np.sqrt(d_k)  # (n_q, n_k)
    if causal:
        S = np.where(causal_mask(len(Q)), -np.inf, S)  # exp(-inf) = 0: a later word gets no weight
    P = softmax(S)  # (n_q, n_k)
    O = P @ V  # (n_q, d_v)
    dV = P.T @ dO  # (n_k, d_v): value j collects dO_i in the share P_ij that row i took from it
    dP = dO @ V.T  # (n_q, n_k): dP_ij = dO_i . v_j
    # D_i = sum_j P_ij dP_ij = dO_i . (sum_j P_ij v_j) = dO_i . O_i: one number per row, from O alone.
    D = np.sum(dO * O, axis=1)  # (n_q,)
    dS = P * (dP - D[:, None])  # (n_q, n_k): softmax_backward, row by row; 0 wherever P is (the mask)
    dQ = dS @ K / np.sqrt(d_k)  # (n_q, d_k): S_ij = q_i . k_j / sqrt(d_k), so dq_i = sum_j dS_ij k_j / sqrt(d_k)
    dK = dS.T @ Q / np.sqrt(d_k)  # (n_k, d_k): dk_j = sum_i dS_ij q_i / sqrt(d_k)   (dS transposed, not Q)
    return AttentionBackward(P=P, O=O, dV=dV, dP=dP, D=D, dS=dS, dQ=dQ, dK=dK)


def head_weight_gradients(
    X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, dO: np.ndarray, causal: bool = False
) -> tuple[AttentionBackward, np.ndarray, np.ndarray]:
    """The wired head's backward down to its weights; its values are the raw embeddings (V = X).

    X: (n_words, d_model), W_Q, W_K: (d_model, d_k), dO: (n_words, d_model)
    -> (the head's stages, dW_Q: (d_model, d_k), dW_K: (d_model, d_k))

        Q = X W_Q  ->  dW_Q = X^T dQ          K = X W_K  ->  dW_K = X^T dK
    """
    stages = attention_backward(X @ W_Q, X @ W_K, X, dO, causal)
    return stages, X.T @ stages.dQ, X.T @ stages.dK  # (d_model, d_k) each


# --- one head, one tile at a time ---------------------------------------------------------------


@dataclass(frozen=True)
class BackwardTile:
    """One tile of `tiled_attention_backward`, for the log: which rows and keys, and its numbers.

    S, P, dP, dS: (rows, keys) of this tile; P recomputed as exp(S - lse). A skipped tile has
    no numbers (None).
    """

    rows: tuple[int, int]
    keys: tuple[int, int]
    kind: str
    S: np.ndarray | None = None
    P: np.ndarray | None = None
    dP: np.ndarray | None = None
    dS: np.ndarray | None = None


def tiled_attention_backward(
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    O: np.ndarray,
    lse: np.ndarray,
    dO: np.ndarray,
    block: int,
    causal: bool = False,
    trace: list[BackwardTile] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dQ, dK, dV of softmax(Q K^T / sqrt(d_k)) V from the forward's O and lse, never holding P.

    Q: (n_q, d_k), K: (n_k, d_k), V: (n_k, d_v), O: (n_q, d_v), lse: (n_q,), dO: (n_q, d_v)
    -> dQ: (n_q, d_k), dK: (n_k, d_k), dV: (n_k, d_v)

    lse_i = log sum_j exp(S_ij) is the forward's m + log(l) (`tiling.tiled_attention` returns
    it), so one tile of weights comes back exactly:  P_ij = exp(S_ij - lse_i).  D = rowsum(dO * O)
    needs only O. Then, tile by tile (the loop of FlashAttention-2's backward, Algorithm 2: key
    blocks outside, so each block's dK and dV are finished before the next; query blocks inside):

        dV_j += P_ij^T dO_i      dP_ij = dO_i V_j^T      dS_ij = P_ij * (dP_ij - D_i)
        dQ_i += dS_ij K_j / sqrt(d_k)                     dK_j += dS_ij^T Q_i / sqrt(d_k)

    Memory beyond the inputs and the three gradients: one (b, b) tile of S, P, dP, dS, and D.
    causal: tiles wholly above the diagonal are skipped, the diagonal ones masked. Pass a list
    as `trace` to get one BackwardTile per tile, in order.
    """
    n_q, d_k = Q.shape
    n_k, d_v = V.shape
    if causal and n_q != n_k:
        raise ValueError(f"a causal head needs as many queries as keys (got {n_q} and {n_k})")
    if block < 1:
        raise ValueError(f"block must be at least 1 (got {block})")
    D = np.sum(dO * O, axis=1)  # (n_q,): rowsum(dO * O), from the output the forward kept
    dQ = np.zeros((n_q, d_k))  # (n_q, d_k)
    dK = np.zeros((n_k, d_k))  # (n_k, d_k)
    dV = np.zeros((n_k, d_v))  # (n_k, d_v)
    for c0 in range(0, n_k, block):
        c1 = min(c0 + block, n_k)
        for r0 in range(0, n_q, block):
            r1 = min(r0 + block, n_q)
            kind = block_kind(r0, r1, c0, c1, causal)
            if kind == SKIPPED:  # every key after every query: P is 0 there, and so is every term
                if trace is not None:
                    trace.append(BackwardTile((r0, r1), (c0, c1), kind))
                continue
            S = Q[r0:r1] @ K[c0:c1].T / np.sqrt(d_k)  # (b_q, b_k): the forward's tile, recomputed
            if kind == DIAGONAL:
                later = np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]  # (b_q, b_k)
                S = np.where(later, -np.inf, S)  # the backward needs the mask as much as the forward
            P = np.exp(S - lse[r0:r1, None])  # (b_q, b_k): the weights themselves, already normalised
            dV[c0:c1] += P.T @ dO[r0:r1]  # (b_k, d_v)
            dP = dO[r0:r1] @ V[c0:c1].T  # (b_q, b_k)
            dS = P * (dP - D[r0:r1, None])  # (b_q, b_k)
            dQ[r0:r1] += dS @ K[c0:c1] / np.sqrt(d_k)  # (b_q, d_k)
            dK[c0:c1] += dS.T @ Q[r0:r1] / np.sqrt(d_k)  # (b_k, d_k)
            if trace is not None:
                trace.append(BackwardTile((r0, r1), (c0, c1), kind, S, P, dP, dS))
    return dQ, dK, dV


# --- what each backward keeps -------------------------------------------------------------------


def saved_weights_bytes(n_words: int, dtype_bytes: int, heads: int = 1, layers: int = 1) -> int:
    """Bytes of P a plain head keeps for its backward: n * n numbers per head."""
    return n_words * n_words * dtype_bytes * heads * layers


def saved_lse_bytes(n_words: int, d_v: int, dtype_bytes: int, heads: int = 1, layers: int = 1) -> int:
    """Bytes a tiled head keeps instead: its output O (n * d_v) and one lse per row (n), per head."""
    return (n_words * d_v + n_words) * dtype_bytes * heads * layers
