"""Attention over long texts in plain PyTorch: the whole score matrix, or one tile of it at a time.

    naive_attention:  softmax(Q K^T / sqrt(d_k), future masked) V, holding all T x T scores per head
    tiled_attention:  the same output from (block x block) tiles of scores and an online softmax,
                      so the memory grows with T, not with T^2 (the idea of FlashAttention,
                      Dao et al. 2022, written as ordinary PyTorch operations)
    tiled_attention_backward:  dq, dk, dv from the output and the lse, one tile of weights
                      recomputed at a time (FlashAttention-2's backward, Dao 2023, Algorithm 2)
    TiledAttention:   the two as one autograd Function, so `.backward()` runs the tiled backward

Shapes: B texts in the batch, H heads, T words, d_k query/key channels and d_v value channels
per head; q, k: (B, H, T, d_k), v: (B, H, T, d_v).

The online softmax. A row's softmax needs its maximum m and its sum l = sum_j exp(s_j - m),
but the tiles arrive one after another. So each row keeps a running maximum m, a running sum l
and a running weighted sum acc = sum_j exp(s_j - m) v_j of the values. When a tile raises the
maximum to m', everything gathered so far was counted on the old scale and is multiplied by
exp(m - m'); at the end, out = acc / l, and log sum_j exp(s_j) = m + log l (the lse).

The backward. With lse kept, one tile of the weights comes back as P = exp(s - lse), already
normalised; D = rowsum(dO * O) needs only the output; and per tile dv += P^T dO, dP = dO v^T,
dS = P * (dP - D), dq += dS k / sqrt(d_k), dk += dS^T q / sqrt(d_k) (math/gradients.py derives
each line in NumPy).

Left out: dropout, masks other than the causal one, and fusion: each step below is a separate
PyTorch operation, so each tile makes several passes over memory that a compiled kernel such as
`F.scaled_dot_product_attention` makes once.
"""

from __future__ import annotations

import math

import torch

__all__ = ["naive_attention", "tiled_attention", "tiled_attention_backward", "TiledAttention", "DEFAULT_BLOCK"]

# Words per tile side. One head's tile is then 256 x 256 fp32 = 256 KiB, small enough to stay in
# a core's cache between the passes over it, and a tile for GPT-2 small's 12 heads 3 MiB. In a
# trial at 4,096 words on a 2-core CPU, 256 beat 128, 512 and 1,024; benchmarks/attention_scale.py
# measures the function at this size.
DEFAULT_BLOCK = 256


def naive_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = True) -> torch.Tensor:
    """Attention as a learner first writes it: the whole score matrix at once.

    q, k: (B, H, T, d_k), v: (B, H, T, d_v) -> out: (B, H, T, d_v)
    Memory: scores, the masked scores and the weights are each (B, H, T, T).
    """
    T, d_k = q.shape[-2], q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (B, H, T, T): s_ij = q_i . k_j / sqrt(d_k)
    if causal:
        future = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)  # (T, T): key j after query i
        scores = scores.masked_fill(future, -math.inf)  # exp(-inf) = 0: no weight on a later word
    weights = torch.softmax(scores, dim=-1)  # (B, H, T, T), each row sums to 1
    return weights @ v  # (B, H, T, d_v)


def _check(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block) -> None:
    """Refuse a block that is not a whole number >= 1, and q, k, v that are not one self-attention head's."""
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise ValueError(f"block must be a whole number of words >= 1, not {block!r}")
    if q.shape != k.shape or q.shape[:-1] != v.shape[:-1] or q.dim() != 4:
        raise ValueError(f"q, k must be (B, H, T, d_k) and v (B, H, T, d_v); got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")  # fmt: skip


@torch.no_grad()  # inference only: the in-place updates below would break autograd's graph
def tiled_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block: int = DEFAULT_BLOCK, causal: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q K^T / sqrt(d_k)) V computed tile by tile, never holding more than one tile of scores.

    q, k: (B, H, T, d_k), v: (B, H, T, d_v), block: words per tile side
    -> out: (B, H, T, d_v), lse: (B, H, T) with lse_i = log sum_j exp(s_ij), s_ij = q_i . k_j / sqrt(d_k)

    With causal=True, query i sees keys j <= i: the tiles wholly above the diagonal are
    skipped (about half the work), and only the tiles on the diagonal are masked.
    """
    _check(q, k, v, block)
    B, H, T, d_k = q.shape
    d_v = v.shape[-1]
    BH = B * H
    scale = 1.0 / math.sqrt(d_k)
    # Every head of every text is an independent attention problem: fold the heads into the
    # batch, so each step below is ONE batched operation for all of them (views of contiguous inputs).
    q = q.reshape(BH, T, d_k)
    k = k.reshape(BH, T, d_k)
    v = v.reshape(BH, T, d_v)
    out = q.new_empty(BH, T, d_v)  # also the accumulators: each query tile's rows are built in place
    lse = q.new_empty(BH, T)
    # The only tile-sized memory: one buffer, written by every tile's matmul in turn, so no tile
    # allocates (a fresh multi-MiB allocation costs page faults every time).
    side = min(block, T)  # no tile is longer than the text
    tile = q.new_empty(BH, side, side)
    future = torch.ones(side, side, dtype=torch.bool, device=q.device).triu(1)  # diagonal tile: j > i

    for q0 in range(0, T, block):
        q1 = min(q0 + block, T)
        q_tile = q[:, q0:q1]  # (BH, bq, d_k)
        m = q.new_full((BH, q1 - q0, 1), -math.inf)  # running maximum of each row's scores
        l = q.new_zeros(BH, q1 - q0, 1)  # noqa: E741 - running sum_j exp(s_j - m), the paper's l
        acc = out[:, q0:q1]  # (BH, bq, d_v): running sum_j exp(s_j - m) v_j
        acc.zero_()
        last = q1 if causal else T  # causal: the keys after this query tile are all in the future
        for k0 in range(0, last, block):
            k1 = min(k0 + block, last)
            s = tile[:, : q1 - q0, : k1 - k0]  # (BH, bq, bk)
            # s_ij = q_i . k_j / sqrt(d_k); the matmul applies the scale as it writes (alpha), and
            # beta=0 ignores whatever the buffer held from the previous tile.
            s.baddbmm_(q_tile, k[:, k0:k1].transpose(1, 2), beta=0.0, alpha=scale)
            if causal and k0 == q0:  # the diagonal tile: hide the keys after each query
                s.masked_fill_(future[: q1 - q0, : k1 - k0], -math.inf)
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # m' = max(m, max_j s_ij)
            rescale = torch.exp(m - m_new)  # exp(m - m'): the old sums on the new scale (0 at the first tile)
            p = s.sub_(m_new).exp_()  # p_ij = exp(s_ij - m'), in place in the tile buffer
            l.mul_(rescale).add_(p.sum(dim=-1, keepdim=True))  # l' = l exp(m - m') + sum_j p_ij
            acc.mul_(rescale).baddbmm_(p, v[:, k0:k1])  # acc' = acc exp(m - m') + p V_tile
            m = m_new
        acc.div_(l)  # out_i = acc_i / l_i: the weights now sum to 1
        lse[:, q0:q1] = (m + l.log()).squeeze(-1)  # log sum_j exp(s_ij) = m + log l
    return out.reshape(B, H, T, d_v), lse.reshape(B, H, T)


@torch.no_grad()
def tiled_attention_backward(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    out: torch.Tensor,
    lse: torch.Tensor,
    d_out: torch.Tensor,
    block: int = DEFAULT_BLOCK,
    causal: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The gradients of `tiled_attention`'s output, never holding more than one tile of weights.

    q, k: (B, H, T, d_k), v: (B, H, T, d_v); out: (B, H, T, d_v) and lse: (B, H, T) from the
    forward; d_out: (B, H, T, d_v), the gradient at the output
    -> dq: (B, H, T, d_k), dk: (B, H, T, d_k), dv: (B, H, T, d_v)

    Key blocks outside, query blocks inside, as FlashAttention-2's Algorithm 2: a key block's
    dk and dv are finished before the next one starts, and dq gathers from every key block.
    Causal: a key block only meets the query blocks from its own (the diagonal, masked) down.
    """
    _check(q, k, v, block)
    B, H, T, d_k = q.shape
    d_v = v.shape[-1]
    BH = B * H
    scale = 1.0 / math.sqrt(d_k)
    q, k, v = q.reshape(BH, T, d_k), k.reshape(BH, T, d_k), v.reshape(BH, T, d_v)
    d_out = d_out.reshape(BH, T, d_v)
    lse = lse.reshape(BH, T, 1)
    D = (d_out * out.reshape(BH, T, d_v)).sum(dim=-1, keepdim=True)  # (BH, T, 1): rowsum(dO * O)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    # Two tile buffers for every tile in turn: the weights p, and dP which becomes dS in place.
    side = min(block, T)
    p_tile, ds_tile = q.new_empty(BH, side, side), q.new_empty(BH, side, side)
    future = torch.ones(side, side, dtype=torch.bool, device=q.device).triu(1)  # diagonal tile: j > i

    for k0 in range(0, T, block):
        k1 = min(k0 + block, T)
        k_tile, v_tile = k[:, k0:k1], v[:, k0:k1]  # (BH, bk, d_k), (BH, bk, d_v)
        dk_tile, dv_tile = dk[:, k0:k1], dv[:, k0:k1]  # views: accumulated in place
        first = k0 if causal else 0  # causal: the query blocks before this key block see none of it
        for q0 in range(first, T, block):
            q1 = min(q0 + block, T)
            q_tile, do_tile = q[:, q0:q1], d_out[:, q0:q1]  # (BH, bq, d_k), (BH, bq, d_v)
            p = p_tile[:, : q1 - q0, : k1 - k0]  # (BH, bq, bk)
            p.baddbmm_(q_tile, k_tile.transpose(1, 2), beta=0.0, alpha=scale)  # s_ij = q_i . k_j / sqrt(d_k)
            if causal and q0 == k0:  # the diagonal tile: the keys after each query get no weight
                p.masked_fill_(future[: q1 - q0, : k1 - k0], -math.inf)
            p.sub_(lse[:, q0:q1]).exp_()  # p_ij = exp(s_ij - lse_i): the weights, already normalised
            dv_tile.baddbmm_(p.transpose(1, 2), do_tile)  # dv_j += p^T dO_i
            ds = ds_tile[:, : q1 - q0, : k1 - k0]
            ds.baddbmm_(do_tile, v_tile.transpose(1, 2), beta=0.0)  # dP = dO_i v_j^T
            ds.sub_(D[:, q0:q1]).mul_(p)  # dS = p * (dP - D)
            dq[:, q0:q1].baddbmm_(ds, k_tile, alpha=scale)  # dq_i += dS k_j / sqrt(d_k)
            dk_tile.baddbmm_(ds.transpose(1, 2), q_tile, alpha=scale)  # dk_j += dS^T q_i / sqrt(d_k)
    return dq.reshape(B, H, T, d_k), dk.reshape(B, H, T, d_k), dv.reshape(B, H, T, d_v)


class TiledAttention(torch.autograd.Function):
    """`TiledAttention.apply(q, k, v, block, causal)`: the tiled forward, and the tiled backward for autograd.

    What it keeps for the backward: q, k, v, the output and one lse per row, never the weights.
    """

    @staticmethod
    def forward(ctx, q, k, v, block: int = DEFAULT_BLOCK, causal: bool = True):
        out, lse = tiled_attention(q, k, v, block=block, causal=causal)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.block, ctx.causal = block, causal
        return out

    @staticmethod
    def backward(ctx, d_out):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = tiled_attention_backward(q, k, v, out, lse, d_out.contiguous(), ctx.block, ctx.causal)
        return dq, dk, dv, None, None  # block and causal take no gradient
