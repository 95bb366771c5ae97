"""Lab 10's checks: the softmax's backward, one head's backward, and the tiled backward.

The right answers come from torch.autograd in float64: the softmax's through torch.softmax, the
head's through F.scaled_dot_product_attention. Every input is float64, so a right formula agrees
with autograd to about 1e-15 and the checks ask for 1e-9 (TIGHT). An output that misses that but
agrees to float32's rounding (judging.py's tolerance) is named as precision, not as a mistake:
something was computed in float32. Each known mistake is recomputed here in float64 and matched
against the learner's output.

Which inputs tell which mistake apart:
- self-attention shapes (as many queries as keys), so that p where p^T belongs and the paper's
  "dK = Q dS^T" (computed as ds @ q) give an answer of the right shape, wrong in its numbers;
- causal and not: a mask forgotten in the backward changes the causal answers only;
- a value width that differs from the head size in some cases: q's and v's roles cannot be swapped;
- lengths 12 and 13 in blocks of 4 (whole tiles, then a last tile of one word), 10 in blocks of 3,
  and one block longer than the text: a log-sum-exp taken from one tile is right only there;
- bank's own softmax row with dp = (0, -1, 0): each shortcut of the softmax's backward gives
  another vector.

Left out: the lab's own comparisons (the lab prints them), timing and memory.
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch
import torch.nn.functional as F

from attention_by_hand.lab.inputs import fixed, randn, seeded
from attention_by_hand.lab.judging import Check, Miss, brief, difference, equals, judge_tensor
from attention_by_hand.run.world import RIVER_BANK

TIGHT = 1e-9  # float64 on both sides: a right formula is off by about 1e-15

# One mistake, one hint, in the same words for every function that can make it.
PRECISION = (
    "float32 precision, not a wrong formula: this matches autograd to float32's rounding (about 1e-7), "
    "not to float64's; keep the inputs' dtype in every tensor you make (torch.zeros_like(q), or "
    "dtype=q.dtype)"
)
NO_D = (
    "the -D term is missing: ds = p * (dp - D) with D = rowsum(p * dp); p * dp alone is only the "
    "diagonal of the Jacobian diag(p) - p p^T"
)
# said by its effect: the plain rowsum(dp) comes from `dp.sum(-1)` and from an einsum that sums p and dp apart alike
D_FROM_DP = "D without the weights p: D = rowsum(p * dp), dp weighted by p; rowsum(dp) leaves the weights out"
D_FROM_V = (
    "D taken from the wrong tensors: D = rowsum(d_out * out), the output's gradient times the output, "
    "not times v"
)
D_WRONG_AXIS = "D summed over the wrong axis: each row has its own D, the sum of p * dp along the LAST axis"
SIGN = "the sign is flipped: ds = p * (dp - D), not p * (D - dp)"
P_NOT_TRANSPOSED = (
    "dv = p @ d_out: p where p^T belongs; value j gathers from every row i that used it, "
    "dv = p^T @ d_out"
)
DK_MISPRINT = (
    "dk = ds @ q: the FlashAttention-2 paper's misprint \"dK = Q dS^T\" (flash-attention issue #373); "
    "key j gathers from every row that looked at it: dk = ds^T @ q / sqrt(head_size)"
)
DQ_TRANSPOSED = "dq = ds^T @ k: ds transposed where it is not; dq = ds @ k / sqrt(head_size)"
NO_SCALE = (
    "the scale is missing from dq and dk: s = q @ k^T / sqrt(head_size), so both gradients are divided "
    "by sqrt(head_size) too"
)
DQ_UNSCALED = "the scale is missing from dq: dq = ds @ k / sqrt(head_size), divided like dk"
DK_UNSCALED = "the scale is missing from dk: dk = ds^T @ q / sqrt(head_size), divided like dq"
SCALE_TWICE = "the scale is applied twice: divide dq and dk by sqrt(head_size) once"
SCORES_UNSCALED = "the recomputed scores are not scaled: s = q @ k^T / sqrt(head_size), as in the forward"
MASK_FORGOTTEN = (
    "the causal mask is forgotten in the backward: the recomputed weights must hide the keys after "
    "each query (-inf before exp or softmax), as the forward did"
)
LSE_PER_TILE = (
    "lse recomputed from a single tile: p = exp(s - lse) with the forward's lse, the whole row's; a tile's "
    "own log-sum-exp makes each tile sum to 1 alone"
)
DQ_OVERWRITTEN = "dq is overwritten by each block of keys: add every block's ds @ k_j / sqrt(head_size) to it (+=)"
SWAPPED = "the three gradients are in another order: return (dq, dk, dv)"


# --- judging a gradient -------------------------------------------------------------------------


def judge_gradient(got, truth: torch.Tensor, names: str, variants=()):
    """None when `got` equals autograd's `truth` to TIGHT; a Miss naming a mistake, or precision.

    PRECISION is listed with the mistakes (no output of its own: it is any float32 rounding) so
    that the catalogue names it; it is told when the output is off by float32's rounding only and
    its values are float32's. A float64 output off by as little was computed in float64 by a
    formula that only approximates (a finite difference): that is said as observed.
    """
    miss = judge_tensor(got, truth, names, [*variants, (PRECISION, None)])
    if miss is not None:
        return miss
    if torch.allclose(got.double(), truth, rtol=TIGHT, atol=TIGHT):
        return None
    if _float32_valued(got):
        return Miss(difference(got, truth), (PRECISION,))
    # Float64 values off by 1e-7: no float32 tensor holds them, so the near miss is the formula's
    # own (a finite difference, an eps added); what it is cannot be told from the numbers.
    off = (got.double() - truth).abs().max().item()
    return Miss(
        f"{difference(got, truth)}; off by at most {off:.1e}, in float64 values: near, but a right "
        "formula in float64 agrees to about 1e-15"
    )


def _float32_valued(got: torch.Tensor) -> bool:
    """Whether every value is one float32 can hold: the output passed through a float32 tensor."""
    if got.dtype in (torch.float32, torch.float16, torch.bfloat16):
        return True
    return bool((got.double() == got.double().float().double()).all())


def _judge_three(got, truth, names: tuple[str, str, str], mistakes: dict[str, str], run):
    """(dq, dk, dv): each against autograd; run(mistake) -> that mistake's (dq, dk, dv) or raises."""
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        return Miss(f"returned {brief(got)}, expected three tensors (dq, dk, dv)")
    if not equals(got[0], truth[0]) and equals(got[0], truth[1]) and equals(got[1], truth[0]):
        return Miss(SWAPPED)
    done = {}

    def outputs(mistake):
        if mistake not in done:
            done[mistake] = run(mistake)
        return done[mistake]

    def whole(mistake) -> bool:
        """Whether the mistake gives each of the learner's gradients that is wrong: one that explains
        dq but leaves dv right is not what made a dv that is wrong too (every gradient negated,
        say). A gradient the learner got right may differ from the mistake's: the mistake made in
        one place only (p left unmasked for dv, masked for ds)."""
        try:
            made = outputs(mistake)
        except Exception:  # noqa: BLE001 - a mistake that cannot be made here is judged as before
            return True
        return all(equals(g, m) or equals(g, t) for g, m, t in zip(got, made, truth))

    def exact(mistake) -> bool:
        """Whether the mistake gives all three of the learner's gradients."""
        try:
            return all(equals(g, m) for g, m in zip(got, outputs(mistake)))
        except Exception:  # noqa: BLE001 - a mistake that cannot be made here
            return False

    misses = []
    for i, (label, shape) in enumerate(zip(("dq", "dk", "dv"), names)):
        variants = [(hint, lambda mistake=mistake, i=i: outputs(mistake)[i]) for mistake, hint in mistakes.items()]
        miss = judge_gradient(got[i], truth[i], shape, variants)
        if miss and miss.explanations:
            # tried, and said only where it gives the other wrong gradients as well; where one
            # mistake gives all three, one made in more places (the scale left out of dq and dk,
            # where dq was divided) is not said
            whole_ones = [m for m in mistakes if whole(m)]
            exact_ones = [m for m in whole_ones if mistakes[m] in miss.explanations and exact(m)]
            kept = {mistakes[m] for m in (exact_ones or whole_ones)}
            miss = replace(miss, explanations=tuple(h for h in miss.explanations if h in kept or h not in mistakes.values()))
        if miss:
            misses.append(miss.under(f"{label}: "))
    # A wrong formula first: float32's rounding in one gradient must not hide a mistake in another.
    return next((m for m in misses if m.explanations != (PRECISION,)), next(iter(misses), None))


def _autograd(q, k, v, d_out, causal: bool):
    """dq, dk, dv from torch.autograd through F.scaled_dot_product_attention, in float64."""
    leaves = [t.detach().double().clone().requires_grad_() for t in (q, k, v)]
    with torch.enable_grad():
        # sum(out * d_out) has the gradient d_out at out, the same numbers as out.backward(d_out);
        # a scalar's backward spares torch importing sympy (1.4 s) to check a gradient's shape.
        (F.scaled_dot_product_attention(*leaves, is_causal=causal) * d_out.double()).sum().backward()
    return tuple(t.grad for t in leaves)


# --- the softmax's backward ---------------------------------------------------------------------


def _softmax_mistake(p, dp, mistake: str):
    if mistake == "no_D":
        return p * dp
    if mistake == "D_from_dp":
        return p * (dp - dp.sum(dim=-1, keepdim=True))
    if mistake == "axis":
        return p * (dp - (p * dp).sum(dim=-2, keepdim=True))  # raises on a single row: not this mistake
    return p * ((p * dp).sum(dim=-1, keepdim=True) - dp)  # "sign"


_SOFTMAX_MISTAKES = {"no_D": NO_D, "D_from_dp": D_FROM_DP, "axis": D_WRONG_AXIS, "sign": SIGN}


def _judge_softmax_backward(got, expected, args):
    p, dp = args
    s = p.log().requires_grad_()  # softmax(log p) = p: autograd's backward at these very weights
    with torch.enable_grad():
        (torch.softmax(s, dim=-1) * dp).sum().backward()
    variants = [(hint, lambda m=m: _softmax_mistake(p, dp, m)) for m, hint in _SOFTMAX_MISTAKES.items()]
    return judge_gradient(got, s.grad, "the shape of p", variants)


# --- one head, from the whole matrix ------------------------------------------------------------


def _whole(q, k, v, d_out, causal: bool, mistake: str):
    """attention_backward with one usual mistake, in float64.   -> (dq, dk, dv)"""
    scale = 1 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1) * (1.0 if mistake == "scores_unscaled" else scale)  # (..., T, T)
    if causal and mistake != "mask":
        T = s.shape[-1]
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    p = torch.softmax(s, dim=-1)
    dv = (p if mistake == "p_not_T" else p.transpose(-2, -1)) @ d_out
    dp = d_out @ v.transpose(-2, -1)
    D = {
        "no_D": torch.zeros_like(p[..., :1]),
        "D_from_dp": dp.sum(dim=-1, keepdim=True),
        "D_from_v": (d_out * v).sum(dim=-1, keepdim=True),
        "axis": (p * dp).sum(dim=-2, keepdim=True),
    }.get(mistake, (p * dp).sum(dim=-1, keepdim=True))
    ds = p * (D - dp) if mistake == "sign" else p * (dp - D)
    factor = {"no_scale": 1.0, "scale_twice": scale * scale}.get(mistake, scale)
    dq = (ds.transpose(-2, -1) if mistake == "dq_T" else ds) @ k * (1.0 if mistake == "dq_unscaled" else factor)
    dk = (ds @ q if mistake == "dk_misprint" else ds.transpose(-2, -1) @ q) * (1.0 if mistake == "dk_unscaled" else factor)
    return dq, dk, dv


# The mistakes of the head's backward, made the same way from the whole matrix or a tile at a time.
_HEAD_MISTAKES = {
    "no_D": NO_D,
    "D_from_dp": D_FROM_DP,
    "D_from_v": D_FROM_V,
    "sign": SIGN,
    "p_not_T": P_NOT_TRANSPOSED,
    "dk_misprint": DK_MISPRINT,
    "dq_T": DQ_TRANSPOSED,
    "no_scale": NO_SCALE,
    "dq_unscaled": DQ_UNSCALED,
    "dk_unscaled": DK_UNSCALED,
    "scale_twice": SCALE_TWICE,
    "scores_unscaled": SCORES_UNSCALED,
    "mask": MASK_FORGOTTEN,  # tiled: the diagonal tile not masked
}
_WHOLE_MISTAKES = {**_HEAD_MISTAKES, "axis": D_WRONG_AXIS}
_GRADIENT_SHAPES = ("(..., T, head_size)", "(..., T, head_size)", "(..., T, d_v)")  # dq, dk, dv


def _judge_attention_backward(got, expected, args):
    q, k, v, d_out, causal = args
    return _judge_three(got, _autograd(q, k, v, d_out, causal), _GRADIENT_SHAPES, _WHOLE_MISTAKES, lambda m: _whole(q, k, v, d_out, causal, m))


# --- one head, a tile at a time -----------------------------------------------------------------


def _tiled(q, k, v, out, lse, d_out, block: int, causal: bool, mistake: str):
    """tiled_attention_backward with one usual mistake, in float64.   -> (dq, dk, dv)"""
    T = q.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    factor = {"no_scale": 1.0, "scale_twice": scale * scale}.get(mistake, scale)
    D = (d_out * (v if mistake == "D_from_v" else out)).sum(dim=-1)  # (..., T)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for j in range(0, T, block):
        k_j, v_j = k[..., j : j + block, :], v[..., j : j + block, :]
        first = j if causal and mistake != "mask_all" else 0
        for i in range(first, T, block):
            q_i, d_out_i = q[..., i : i + block, :], d_out[..., i : i + block, :]
            s = q_i @ k_j.transpose(-2, -1) * (1.0 if mistake == "scores_unscaled" else scale)
            if causal and i == j and mistake not in ("mask", "mask_all"):
                rows, columns = torch.arange(i, i + s.shape[-2])[:, None], torch.arange(j, j + s.shape[-1])[None, :]
                s = s.masked_fill(columns > rows, float("-inf"))
            row_lse = torch.logsumexp(s, dim=-1) if mistake == "lse_tile" else lse[..., i : i + block]
            p = torch.exp(s - row_lse[..., None])
            dv[..., j : j + block, :] += (p if mistake == "p_not_T" else p.transpose(-2, -1)) @ d_out_i
            dp = d_out_i @ v_j.transpose(-2, -1)
            D_i = {"no_D": 0.0, "D_from_dp": dp.sum(dim=-1, keepdim=True)}.get(mistake, D[..., i : i + block, None])
            ds = p * (D_i - dp) if mistake == "sign" else p * (dp - D_i)
            dq_i = (ds.transpose(-2, -1) if mistake == "dq_T" else ds) @ k_j * (1.0 if mistake == "dq_unscaled" else factor)
            if mistake == "dq_overwritten":
                dq[..., i : i + block, :] = dq_i
            else:
                dq[..., i : i + block, :] += dq_i
            dk_j = ds @ q_i if mistake == "dk_misprint" else ds.transpose(-2, -1) @ q_i
            dk[..., j : j + block, :] += dk_j * (1.0 if mistake == "dk_unscaled" else factor)
    return dq, dk, dv


_TILED_MISTAKES = {
    **_HEAD_MISTAKES,
    "mask_all": MASK_FORGOTTEN,  # every tile computed, none masked
    "lse_tile": LSE_PER_TILE,
    "dq_overwritten": DQ_OVERWRITTEN,
}


def _judge_tiled_attention_backward(got, expected, args):
    q, k, v, out, lse, d_out, block, causal = args
    return _judge_three(
        got, _autograd(q, k, v, d_out, causal), _GRADIENT_SHAPES, _TILED_MISTAKES, lambda m: _tiled(q, k, v, out, lse, d_out, block, causal, m)
    )


# --- inputs -------------------------------------------------------------------------------------


def _head(g: torch.Generator, *shape: int, d_v: int | None = None):
    """(q, k, v, d_out) in float64: q, k (..., T, head_size); v, d_out (..., T, d_v)."""
    *lead, T, hs = shape
    d_v = hs if d_v is None else d_v
    q, k = randn(g, *lead, T, hs).double(), randn(g, *lead, T, hs).double()
    return q, k, randn(g, *lead, T, d_v).double(), randn(g, *lead, T, d_v).double()


def _forward(q, k, v, causal: bool):
    """out and lse from the whole matrix in float64, as the forward hands them to the backward."""
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        T = s.shape[-1]
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    return out, torch.logsumexp(s, dim=-1)


def _tiled_case(head, block: int, causal: bool) -> tuple:
    q, k, v, d_out = head
    return (q, k, v, *_forward(q, k, v, causal), d_out, block, causal)


def _softmax_case(g: torch.Generator, *shape: int) -> tuple:
    """(p, dp) in float64: p the softmax of random scores of spread 2, dp random."""
    return torch.softmax(randn(g, *shape, scale=2.0).double(), dim=-1), randn(g, *shape).double()


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)
    w = RIVER_BANK
    bank = torch.tensor([w.vector(w.ambiguous) @ w.vector(word) for word in w.sentences[0]], dtype=torch.float64)
    bank_row = (torch.softmax(bank, dim=-1), torch.tensor([0.0, -1.0, 0.0], dtype=torch.float64))
    return [
        Check("softmax_backward", "bank's row (Module 0) with dp = (0, -1, 0)", (bank_row,), _judge_softmax_backward),
        Check("softmax_backward", "a fixed (2, 3, 5)", (_softmax_case(f, 2, 3, 5),), _judge_softmax_backward),
        Check("softmax_backward", "random (4, 6) and (7,)", (_softmax_case(g, 4, 6), _softmax_case(g, 7)), _judge_softmax_backward),
        Check(
            "attention_backward",
            "a fixed (1, 2, 5, 4), not causal, and (1, 2, 6, 4) with d_v 3, causal",
            ((*_head(f, 1, 2, 5, 4), False), (*_head(f, 1, 2, 6, 4, d_v=3), True)),
            _judge_attention_backward,
        ),
        Check(
            "attention_backward",
            "random (2, 3, 7, 8), causal, and (2, 1, 4, 3) with d_v 5, not causal",
            ((*_head(g, 2, 3, 7, 8), True), (*_head(g, 2, 1, 4, 3, d_v=5), False)),
            _judge_attention_backward,
        ),
        Check(
            "tiled_attention_backward",
            "a fixed (1, 2, 12, 4), block 4 (whole tiles), causal and not",
            (_tiled_case(_head(f, 1, 2, 12, 4), 4, True), _tiled_case(_head(f, 1, 2, 12, 4), 4, False)),
            _judge_tiled_attention_backward,
        ),
        Check(
            "tiled_attention_backward",
            "a fixed (2, 2, 13, 4) with d_v 3, block 4 (a last tile of one word), causal and not",
            (_tiled_case(_head(f, 2, 2, 13, 4, d_v=3), 4, True), _tiled_case(_head(f, 2, 2, 13, 4, d_v=3), 4, False)),
            _judge_tiled_attention_backward,
        ),
        Check(
            "tiled_attention_backward",
            "random (1, 3, 10, 8) in blocks of 3, causal, and (1, 1, 5, 4) in one block of 8, not causal",
            (_tiled_case(_head(g, 1, 3, 10, 8), 3, True), _tiled_case(_head(g, 1, 1, 5, 4), 8, False)),
            _judge_tiled_attention_backward,
        ),
    ]
