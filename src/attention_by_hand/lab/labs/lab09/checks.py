"""Lab 09's checks: the online softmax, and attention by tiles with a running max and sum.

The right answers come from PyTorch on the whole row or matrix, in float64: torch.softmax,
F.scaled_dot_product_attention and torch.logsumexp. The known mistakes are recomputed in float32
as a learner's code runs them, since some of them only show as an overflow (exp past 88).

Which inputs tell which mistake apart:
- scores that GROW from block to block (keys whose dot product with every query rises along
  the sequence): a sum or an accumulator that is not rescaled is then wrong, by a different
  amount each;
- scores in the hundreds that FALL from block to block: a maximum that is not carried over
  (each block's own maximum) rescales by exp(m_old - m_new) > 1 and overflows; with the
  maximum carried, every exp sees a number <= 0;
- for the online softmax, three rows that each break one shortcut alone: a large fall (the
  maximum not carried), a large rise from the first score (the maximum never updated), scores
  past 88 (no running maximum at all);
- lengths 7, 13 and 10 with blocks 4 and 3: several blocks, the last one shorter;
- causal and not: the causal mistakes (the diagonal block skipped, the blocks above it kept,
  the diagonal block not masked, masked with its diagonal, or every block masked) change the
  causal answers only.

Left out: the lab's own comparisons (the lab prints them), timing and memory.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from attention_by_hand.lab.inputs import fixed, randn, seeded
from attention_by_hand.lab.judging import Check, Probe, judge_pair, judge_tensor, reversed_of

# One mistake, one hint: the online softmax and the tiles name a shared mistake in the same words.
SUM_NOT_RESCALED = (
    "the running sum is not rescaled when the maximum grows: multiply the sum so far by "
    "exp(m_old - m_new) before adding the new terms"
)
ACC_NOT_RESCALED = (
    "the accumulator is not rescaled when the maximum grows: multiply acc by exp(m_old - m_new), "
    "as the sum, before adding p @ v_block"
)
NEITHER_RESCALED = (
    "neither the sum nor the accumulator is rescaled when the maximum grows: multiply both by "
    "exp(m_old - m_new) before adding the new block"
)
MAX_NOT_CARRIED = (
    "the maximum is not carried over: m_new must be max(m_old, the new scores' maximum), not the new "
    "scores' own maximum; when the scores fall, exp(m_old - m_new) overflows"
)
MAX_FROZEN = (
    "the maximum is never updated after the first score: m = max(m, s) at every step; when a score "
    "rises far above the first, exp(s - m) overflows"
)
# Said of every way to take exp of a raw score: no maximum at all, or one kept but used only as
# exp(m_old) / exp(m_new). Their outputs are the same (right, until a score passes 88).
NO_MAX = (
    "exp is taken of a raw score, not of a score minus the running maximum: exp(score) overflows past "
    "88 in float32, whatever it is divided by afterwards; take exp only of differences, exp(score - m), "
    "and rescale by exp(m_old - m_new) when the maximum m grows"
)
DIVIDED_IN_LOOP = (
    "the accumulator was divided by the running sum inside the loop: keep acc unnormalised and "
    "divide by l once, after the last block"
)
BLOCKS_ALONE = (
    "each block was normalised on its own and the blocks added up: the blocks share one softmax; "
    "carry m, l and acc across them and divide by l once at the end"
)
SKIP_DIAGONAL = (
    "causal: the diagonal block was skipped: a query sees the keys of its own block up to itself; "
    "go up to AND including the diagonal block, masked"
)
KEEP_ABOVE = (
    "causal: the blocks after the diagonal block were used, unmasked: their keys are all in the "
    "future for every query of the block; stop at the diagonal block"
)
DIAGONAL_UNMASKED = (
    "causal: the diagonal block is not masked: inside it, a key j > query i is in the future; set "
    "those scores to -inf"
)
DIAGONAL_HIDES_SELF = (
    "causal: the mask inside the diagonal block hides the diagonal too: a query sees its own key; "
    "hide j > i, not j >= i"
)
EVERY_BLOCK_MASKED = (
    "causal: every block was masked like the diagonal one: a block before the diagonal holds only "
    "past keys and needs no mask; mask by position (key j > query i), not by the place in the block"
)
LAST_BLOCK_DROPPED = (
    "the last, shorter block is left out: a length that is not a multiple of the block has "
    "ceil(T / block) blocks; range(0, T, block) gives them all"
)
LSE_WITHOUT_M = "lse is m + log(l): l was summed after subtracting m, so add m back"
LSE_NO_LOG = "lse is m + log(l), the log of the sum: take the log of l"

# The mistakes `_tiled` can make, each with its hint.
TILE_MISTAKES = {
    "acc": ACC_NOT_RESCALED,
    "sum": SUM_NOT_RESCALED,
    "acc+sum": NEITHER_RESCALED,
    "max": MAX_NOT_CARRIED,
    "divide": DIVIDED_IN_LOOP,
    "alone": BLOCKS_ALONE,
    "skip_diagonal": SKIP_DIAGONAL,
    "keep_above": KEEP_ABOVE,
    "unmasked": DIAGONAL_UNMASKED,
    "hides_self": DIAGONAL_HIDES_SELF,
    # The same mistake where the mask is applied only when some key is later than some query:
    # a last block of one query and one key is then left unmasked, and its query sees itself.
    "hides_self_where_needed": DIAGONAL_HIDES_SELF,
    "every_block": EVERY_BLOCK_MASKED,
    "drop_last": LAST_BLOCK_DROPPED,
}


# --- the online softmax -----------------------------------------------------------------------


def _online(scores: torch.Tensor, mistake: str | None) -> torch.Tensor:
    """The online softmax with one usual mistake, in the scores' dtype.   scores: (..., n)"""
    m = torch.full(scores.shape[:-1], float("-inf"), dtype=scores.dtype)  # (...,)
    l = torch.zeros(scores.shape[:-1], dtype=scores.dtype)  # (...,)
    for j in range(scores.shape[-1]):
        s = scores[..., j]
        if mistake == "no_max":
            m_new = torch.zeros_like(s)
        elif mistake == "max":
            m_new = s
        elif mistake == "frozen":
            m_new = s if j == 0 else m
        else:
            m_new = torch.maximum(m, s)
        rescale = 1.0 if mistake in ("sum", "no_max") else torch.exp(m - m_new)
        l = l * rescale + torch.exp(s - m_new)
        m = m_new
    return torch.exp(scores - m[..., None]) / l[..., None]


_ONLINE_MISTAKES = {"sum": SUM_NOT_RESCALED, "max": MAX_NOT_CARRIED, "frozen": MAX_FROZEN, "no_max": NO_MAX}


def _judge_online_softmax(got, expected, args):
    (scores,) = args
    truth = torch.softmax(scores.double(), dim=-1)  # the whole row at once, in float64
    variants = [
        (hint, lambda mistake=mistake: _online(scores, mistake)) for mistake, hint in _ONLINE_MISTAKES.items()
    ]
    unnormalised = torch.exp(scores - scores.amax(dim=-1, keepdim=True))  # (..., n)
    variants.append(("the weights are not divided by the sum: weights = exp(scores - m) / l", unnormalised))
    return judge_tensor(got, truth, "the shape of scores", variants)


# --- tiled attention --------------------------------------------------------------------------


def _tiled(q, k, v, block: int, causal: bool, mistake: str | None = None):
    """Tiled attention with one usual mistake (TILE_MISTAKES), in float32 as a learner runs it.

    q: (..., T_q, hs); k, v: (..., T_k, hs | d_v)  ->  (out: (..., T_q, d_v), lse: (..., T_q))
    """
    T_q, T_k = q.shape[-2], k.shape[-2]
    if mistake == "drop_last":
        T_q, T_k = T_q // block * block, T_k // block * block
    scale = 1 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in range(0, T_q, block):
        q_block = q[..., i : min(i + block, T_q), :]  # (..., bq, hs)
        bq = q_block.shape[-2]
        m = torch.full(q_block.shape[:-1], float("-inf"), dtype=q.dtype)
        l = torch.zeros(q_block.shape[:-1], dtype=q.dtype)
        acc = torch.zeros(*q_block.shape[:-1], v.shape[-1], dtype=q.dtype)
        alone = torch.zeros_like(acc)
        if not causal or mistake == "keep_above":
            end = T_k
        elif mistake == "skip_diagonal":
            end = i
        else:
            end = min(i + bq, T_k)
        for j in range(0, end, block):
            k_block, v_block = k[..., j : min(j + block, T_k), :], v[..., j : min(j + block, T_k), :]
            s = q_block @ k_block.transpose(-2, -1) * scale  # (..., bq, bk)
            rows = torch.arange(i, i + bq)[:, None]
            columns = torch.arange(j, j + s.shape[-1])[None, :]
            if causal and mistake == "every_block":
                s = s.masked_fill((columns - j) > (rows - i), float("-inf"))
            elif causal and mistake == "hides_self" and j == i:
                s = s.masked_fill(columns >= rows, float("-inf"))
            elif causal and mistake == "hides_self_where_needed" and j + s.shape[-1] - 1 > i:
                s = s.masked_fill(columns >= rows, float("-inf"))
            elif causal and mistake not in ("unmasked", "hides_self_where_needed") and j == i:
                s = s.masked_fill(columns > rows, float("-inf"))
            m_new = s.amax(dim=-1) if mistake == "max" else torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - m_new[..., None])
            rescale = torch.exp(m - m_new)
            l = (1.0 if mistake in ("sum", "acc+sum") else rescale) * l + p.sum(dim=-1)
            acc = (1.0 if mistake in ("acc", "acc+sum") else rescale[..., None]) * acc + p @ v_block
            if mistake == "divide":
                acc = acc / l[..., None]
            alone = alone + (p / p.sum(dim=-1, keepdim=True)) @ v_block
            m = m_new
        if mistake == "divide":
            outs.append(acc)
        elif mistake == "alone":
            outs.append(alone)
        else:
            outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)


def _scores(q, k, causal: bool) -> torch.Tensor:
    """The whole matrix of scores in float64, the future at -inf when causal.   -> (..., T_q, T_k)"""
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        T = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(diagonal=1), float("-inf"))
    return scores


def _judge_tiled_attention(got, expected, args):
    q, k, v, block, causal = args
    # The right answer from the whole matrix, in float64: SDPA and torch.logsumexp.
    out_right = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal)
    lse_right = torch.logsumexp(_scores(q, k, causal), dim=-1)  # (..., T_q)
    problem = judge_pair(got, "(out, lse)", reversed_of(out_right, lse_right))
    if problem:
        return problem
    out, lse = got
    tiled = {}  # mistake -> (out, lse): out and lse of one mistake come from one run

    def run(mistake):
        if mistake not in tiled:
            tiled[mistake] = _tiled(q, k, v, block, causal, mistake)
        return tiled[mistake]

    variants = [(hint, lambda mistake=mistake: run(mistake)[0]) for mistake, hint in TILE_MISTAKES.items()]
    miss = judge_tensor(out, out_right, "(..., T_q, d_v)", variants)
    if miss:
        return miss.under("out: ")
    scores = _scores(q, k, causal)  # (..., T_q, T_k)
    m = scores.amax(dim=-1)  # (..., T_q): each row's maximum, what the loop ends with
    l = torch.exp(scores - m[..., None]).sum(dim=-1)  # (..., T_q): and its sum
    lse_variants = [
        *((hint, lambda mistake=mistake: run(mistake)[1]) for mistake, hint in TILE_MISTAKES.items()),
        (LSE_WITHOUT_M, torch.log(l)),
        (LSE_NO_LOG, m + l),
    ]
    miss = judge_tensor(lse, lse_right, "(..., T_q)", lse_variants)
    return miss.under("lse: ") if miss else None


# --- inputs -----------------------------------------------------------------------------------


def _rising(g: torch.Generator, lead: tuple, T_q: int, T_k: int, d: int = 8, spread: float = 6.0):
    """(q, k, v) whose scores rise along the keys for every query: the maximum grows block by block.

    Every key gets a component along one direction that grows with its position, and every
    query points along that direction; the rest is noise of unit size, so the rows are not all
    alike and no weight is exactly 0 or 1.
    """
    direction = torch.zeros(d)
    direction[0] = 1.0
    q = randn(g, *lead, T_q, d) * 0.5 + direction * 2.0  # (..., T_q, d)
    rise = torch.linspace(0, spread, T_k)[:, None] * direction  # (T_k, d)
    k = randn(g, *lead, T_k, d) * 0.5 + rise  # (..., T_k, d)
    return q, k, randn(g, *lead, T_k, d)


def _falling(g: torch.Generator, lead: tuple, T_q: int, T_k: int, block: int, d: int = 4):
    """(q, k, v) whose scores are in the hundreds and FALL by about 120 from each block of keys
    to the next, the same for every query: each block's own maximum is far below the one before."""
    direction = torch.zeros(d)
    direction[0] = 1.0
    q = randn(g, *lead, T_q, d) * 0.3 + direction * 4.0  # (..., T_q, d)
    # 120, 60, 0, ... by block of keys; the scores are about 4 * level / sqrt(4) = 240, 120, 0, ...
    level = 60.0 * (2 - torch.arange(T_k) // block)  # (T_k,)
    k = randn(g, *lead, T_k, d) * 0.3 + level[:, None] * direction  # (..., T_k, d)
    return q, k, randn(g, *lead, T_k, d)


def _online_probes() -> tuple[Probe, ...]:
    """One row alone, 1-D (never judged): a function written for a single row of Python numbers
    is right there and fails on a matrix, which says what it cannot handle."""
    return (Probe("one row of scores alone, 1-D ([0.5, 2, -1, 3])", (torch.tensor([0.5, 2.0, -1.0, 3.0]),)),)


def _probes() -> tuple[Probe, ...]:
    """Inputs that tell causes apart (never judged; diagnosis.py says where the error shows)."""
    p = torch.Generator().manual_seed(22)  # their own generator: the checks' inputs stay as they were
    q, k, v = randn(p, 1, 9, 4), randn(p, 1, 9, 4), randn(p, 1, 9, 4)
    return (
        Probe("one tile covering every key (block 16, not causal)", (q, k, v, 16, False)),
        Probe("one tile covering every key, causal (block 16)", (q, k, v, 16, True)),
        Probe("q = 0, so every weight is uniform (block 4, not causal)", (torch.zeros_like(q), k, v, 4, False)),
        Probe("5 queries x 11 keys (T_q != T_k), block 4, not causal", (randn(p, 1, 5, 4), randn(p, 1, 11, 4), randn(p, 1, 11, 4), 4, False)),
        # drawn last, so that the probes above keep their numbers: the only probe whose key
        # tiles are all whole (every other one ends in a short tile, or is one short tile)
        Probe("8 queries x 8 keys in two whole tiles (block 4, no short last tile), not causal",
              (randn(p, 1, 8, 4), randn(p, 1, 8, 4), randn(p, 1, 8, 4), 4, False)),
    )


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)
    rising_rows = torch.linspace(0, 6, 8) + randn(f, 3, 8)  # (3, 8): each row's maximum grows along it
    # Four rows, each breaking one shortcut alone: a fall of 100 (below 88 in absolute value: no
    # overflow without a maximum), a rise of 150 from the first score, scores near 300, and scores
    # near -300 (a running maximum started at 0, not -inf, makes every exp 0 there: 0 / 0).
    large_rows = torch.tensor(
        [
            [80.0, -20.0, 0.0, 10.0, -15.0, 5.0],
            [-70.0, 30.0, 80.0, 60.0, 75.0, 20.0],
            [300.0, 290.0, 310.0, 305.0, 280.0, 302.0],
            [-300.0, -310.0, -290.0, -305.0, -320.0, -298.0],
        ]
    )
    return [
        Check(
            "online_softmax",
            "a fixed (3, 8): scores that grow along each row",
            ((rising_rows,),),
            _judge_online_softmax,
            probes=_online_probes(),
        ),
        Check(
            "online_softmax",
            "random (2, 3, 9) and (4, 5)",
            ((randn(g, 2, 3, 9, scale=3.0),), (randn(g, 4, 5, scale=3.0),)),
            _judge_online_softmax,
        ),
        Check(
            "online_softmax",
            "scores in the hundreds: a fall of 100, a rise of 150, scores near 300 and near -300",
            ((large_rows,),),
            _judge_online_softmax,
        ),
        Check(
            "tiled_attention",
            "7 queries x 13 keys, block 4, not causal: scores that grow block by block",
            ((*_rising(f, (2,), 7, 13), 4, False),),
            _judge_tiled_attention,
            probes=_probes(),
        ),
        Check(
            "tiled_attention",
            "causal, T = 13, block 4: scores that grow block by block",
            ((*_rising(f, (2,), 13, 13), 4, True),),
            _judge_tiled_attention,
        ),
        Check(
            "tiled_attention",
            "random, (B, heads) = (2, 3): causal T = 7 with block 4, not causal 10 x 10 with block 3",
            (
                (randn(g, 2, 3, 7, 4), randn(g, 2, 3, 7, 4), randn(g, 2, 3, 7, 5), 4, True),
                (randn(g, 2, 3, 10, 4), randn(g, 2, 3, 10, 4), randn(g, 2, 3, 10, 5), 3, False),
            ),
            _judge_tiled_attention,
        ),
        Check(
            "tiled_attention",
            "scores in the hundreds that fall block by block: causal T = 10 and 6 x 10 not causal, block 4",
            ((*_falling(f, (1,), 10, 10, 4), 4, True), (*_falling(f, (1,), 6, 10, 4), 4, False)),
            _judge_tiled_attention,
        ),
    ]
