#!/usr/bin/env python3
# %% [markdown]
# # Lab 10 (your version): gradients by hand
#
# Every lab that trains calls `loss.backward()` and lets autograd work out what flows back.
# Here you write it yourself for one head of attention, out = softmax(q k^T / sqrt(d)) v, read
# backwards, one stage at a time:
#
#     out = p @ v                ->   dv = p^T @ d_out          dp = d_out @ v^T
#     p = softmax(s), row by row  ->   ds = p * (dp - D),        D = rowsum(p * dp) = rowsum(d_out * out)
#     s = q @ k^T / sqrt(d)       ->   dq = ds @ k / sqrt(d)     dk = ds^T @ q / sqrt(d)
#
# The softmax's part is the surprising one. Its Jacobian dp_i/ds_j = p_i (1[i = j] - p_j) is a
# (T, T) matrix for every row, yet its product with dp needs none of it: one number per row, D,
# is enough. And D needs only the output, rowsum(d_out * out). That is what lets FlashAttention
# train without the (T, T) weights: the forward keeps out and one log-sum-exp per row (lab 09),
# and the backward rebuilds any tile of weights as exp(s - lse).
#
# Three functions: the softmax's backward, the head's backward from the whole matrix, and the
# tiled backward from out and lse. Each is checked against torch.autograd in float64.
#
# Left out: the gradient of the layers around the head (the projections that make q, k, v),
# dropout, and lengths of queries and keys that differ under the causal mask.

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 10. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 10 lab10-04.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 10 lab10-04.py`. The solved lab: `attention-by-hand lab run 10`.
# The steps sit under `if __name__ == "__main__":`, so that the checker can import your
# functions without running them.

# %%
import math
import sys
import traceback

try:
    import torch
except ModuleNotFoundError:  # a Python without PyTorch: one line that says what to do instead
    print(
        f"{sys.argv[0]}: this lab needs PyTorch, which {sys.executable} does not have; run it with the "
        f"Python that has attention-by-hand: attention-by-hand lab run 10 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn.functional as F

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 10 FILE`) calls these three by name, on fixed and
# random inputs in float64, and compares them with torch.autograd's gradients.


# %%
def softmax_backward(p: torch.Tensor, dp: torch.Tensor) -> torch.Tensor:
    """The gradient at the scores, from the weights p = softmax(s) and the gradient dp at them.

    p, dp: (..., n), softmax along the last axis  ->  ds: (..., n)
    Through the Jacobian, ds_j = sum_i dp_i p_i (1[i = j] - p_j); without it, one number per
    row is enough: D = sum_i p_i dp_i, and ds = p * (dp - D).
    """
    D = (p - dp).sum(dim=-1, keepdim=True)
    return (dp - D).mul(p)


def attention_backward(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, d_out: torch.Tensor, causal: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """dq, dk, dv of out = softmax(q k^T / sqrt(head_size), causal mask) v, from the whole matrix.

    q, k: (..., T, head_size); v: (..., T, d_v); d_out: (..., T, d_v), the gradient at out
    ->  dq: (..., T, head_size), dk: (..., T, head_size), dv: (..., T, d_v)
    Recompute the forward (s, the mask, p = softmax(s)), then backwards: dv = p^T @ d_out,
    dp = d_out @ v^T, ds = softmax_backward(p, dp), dq = ds @ k / sqrt(head_size),
    dk = ds^T @ q / sqrt(head_size).
    """
    root = math.pow(q.size(-1), 0.5)
    s = (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(-1) / root
    if causal:
        rows, cols = torch.triu_indices(s.size(-2), s.size(-1), offset=1)
        s[..., rows, cols] = -math.inf
    p = F.softmin(-s, dim=-1)
    dv = (p.unsqueeze(-1) * d_out.unsqueeze(-2)).sum(-3)
    ds = softmax_backward(p, (d_out.unsqueeze(-2) * v.unsqueeze(-3)).sum(-1))
    dq = (ds.unsqueeze(-1) * k.unsqueeze(-3)).sum(-2) / root
    dk = (ds.unsqueeze(-1) * q.unsqueeze(-2)).sum(-3) / root
    return dq, dk, dv


def tiled_attention_backward(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    out: torch.Tensor,
    lse: torch.Tensor,
    d_out: torch.Tensor,
    block: int,
    causal: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """dq, dk, dv as attention_backward, a (block, block) tile of weights at a time, never (T, T).

    q, k: (..., T, head_size); v, out, d_out: (..., T, d_v); lse: (..., T), the log-sum-exp of
    each row's scores (what the forward of lab 09 returns)  ->  dq, dk, dv as attention_backward
    First D = rowsum(d_out * out). Then for each block of keys j and each block of queries i:
        s = q_i @ k_j^T / sqrt(head_size)   (causal: the diagonal tile masked, tiles above it skipped)
        p = exp(s - lse_i)                  the weights themselves, from the forward's lse
        dv_j += p^T @ d_out_i;  dp = d_out_i @ v_j^T;  ds = p * (dp - D_i)
        dq_i += ds @ k_j / sqrt(head_size);  dk_j += ds^T @ q_i / sqrt(head_size)
    The last block may be shorter than `block`.
    """
    T, root = q.size(-2), math.pow(q.size(-1), 0.5)
    D = (d_out * out).sum(-1, keepdim=True)
    dk, dv, dqs = torch.zeros_like(k), torch.zeros_like(v), []
    for a in range(0, T, block):
        qb, gb, Db = q[..., a:a + block, :], d_out[..., a:a + block, :], D[..., a:a + block, :]
        dq_a = torch.zeros_like(qb)
        for c in range(0, a + qb.size(-2) if causal else T, block):
            kb, vb = k[..., c:c + block, :], v[..., c:c + block, :]
            s = (qb.unsqueeze(-2) * kb.unsqueeze(-3)).sum(-1) / root
            if causal:
                rows, cols = torch.triu_indices(qb.size(-2), kb.size(-2), offset=a - c + 1)
                s[..., rows, cols] = -math.inf
            p = (s - lse[..., a:a + block].unsqueeze(-1)).exp()
            pad = (0, 0, c, T - c - kb.size(-2))
            dv = dv + F.pad((p.unsqueeze(-1) * gb.unsqueeze(-2)).sum(-3), pad)
            ds = p * ((gb.unsqueeze(-2) * vb.unsqueeze(-3)).sum(-1) - Db)
            dq_a = dq_a + (ds.unsqueeze(-1) * kb.unsqueeze(-3)).sum(-2) / root
            dk = dk + F.pad((ds.unsqueeze(-1) * qb.unsqueeze(-2)).sum(-3) / root, pad)
        dqs.append(dq_a)
    return torch.cat(dqs, -2), dk, dv


# %% [markdown]
# ## The yardsticks
#
# The forward from the whole matrix (out by `F.scaled_dot_product_attention`, lse by
# `torch.logsumexp`), and torch.autograd's gradients through it. The checks use them, never the
# functions above.


# %%
def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(out, lse) from the whole matrix: what lab 09's tiled forward returns."""
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # (..., T, d_v)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, T)
    if causal:
        T = s.shape[-1]
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(diagonal=1), float("-inf"))
    return out, torch.logsumexp(s, dim=-1)  # (..., T)


def autograd_gradients(q, k, v, d_out, causal: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """dq, dk, dv from torch.autograd: out.backward(d_out) through F.scaled_dot_product_attention."""
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    with torch.enable_grad():
        F.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(d_out)
    return q.grad, k.grad, v.grad


# %% [markdown]
# ## How the lab talks
#
# One `STEP n:` line per step; the last line is the self-check, and the script exits with
# status 1 when an invariant fails, so a shell or CI can tell.


# %%
def step(number: int, text: str) -> None:
    """Print one numbered step."""
    print(f"STEP {number}: {text}")


def self_check(invariants: dict[str, bool]) -> bool:
    """Print the closing self-check line. True when every invariant holds."""
    failed = [name for name, holds in invariants.items() if not holds]
    if failed:
        print(f"SELF-CHECK: FAIL: {len(failed)} of {len(invariants)} invariants broken: " + "; ".join(failed))
    else:
        print("SELF-CHECK: PASS: " + "; ".join(invariants))
    return not failed


def report_unfinished(kind, error, tb) -> None:
    """sys.excepthook: a function still to be written gets one friendly line, not a traceback."""
    if issubclass(kind, NotImplementedError):
        print(f"NOT WRITTEN YET: {traceback.extract_tb(tb)[-1].name}(): {error}", file=sys.stderr)
    else:
        sys.__excepthook__(kind, error, tb)


def largest_difference(ours, theirs) -> float:
    """max |a - b| over pairs of tensors."""
    return max((a - b).abs().max().item() for a, b in zip(ours, theirs))


# %% [markdown]
# ## Step 1: the softmax's Jacobian, from autograd
#
# Module 0's row: bank's scores against "the river bank". torch.autograd builds the whole
# (3, 3) Jacobian dp_i / ds_j; every row of it sums to 0, since adding one number to every
# score moves no weight.

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    torch.manual_seed(10)
    torch.set_num_threads(1)  # small tensors: a second thread costs more than it brings (lab 06)
    scores = torch.tensor([0.0, 0.54, 0.99], dtype=torch.float64)  # bank . the, bank . river, bank . bank
    p = torch.softmax(scores, dim=-1)
    J = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, dim=-1), scores)  # (3, 3)
    step(1, "p = " + " ".join(f"{x:.3f}" for x in p.tolist()) + "; autograd's Jacobian dp_i/ds_j, row by row:")
    for i, row in enumerate(J.tolist()):
        print("    " + "  ".join(f"{x:7.4f}" for x in row) + f"   (row {i} sums to {sum(row):.1e})")

# %% [markdown]
# ## Step 2: your softmax_backward, with no Jacobian
#
# The loss -p_river wants more weight on river: dp = (0, -1, 0). Autograd multiplies by the
# Jacobian; your short form must give the same ds.

# %%
if __name__ == "__main__":
    dp = torch.tensor([0.0, -1.0, 0.0], dtype=torch.float64)
    ds = softmax_backward(p, dp)
    softmax_difference = largest_difference([ds], [J.T @ dp])
    step(2, "softmax_backward: ds = " + " ".join(f"{x:.4f}" for x in ds.tolist())
         + f"; vs J^T dp: max |difference| = {softmax_difference:.1e}")  # fmt: skip

# %% [markdown]
# ## Step 3: one head, from the whole matrix
#
# Two heads of 6 words, head size 8, in float64, with and without the causal mask: your
# attention_backward against autograd through `F.scaled_dot_product_attention`.

# %%
if __name__ == "__main__":
    q, k, v, d_out = (torch.randn(1, 2, 6, 8, dtype=torch.float64) for _ in range(4))
    differences = {
        causal: largest_difference(attention_backward(q, k, v, d_out, causal), autograd_gradients(q, k, v, d_out, causal))
        for causal in (False, True)
    }
    whole_difference = max(differences.values())
    step(3, "attention_backward: dq, dk, dv vs autograd: max |difference| "
         + ", ".join(f"{d:.1e} with causal={causal}" for causal, d in differences.items()))  # fmt: skip

# %% [markdown]
# ## Step 4: what each backward keeps
#
# Autograd through the whole-matrix head keeps p, T x T numbers per head. The tiled backward
# needs out and one lse per row: T x d_v + T. At GPT-2's 1,024 words and head size 64:

# %%
if __name__ == "__main__":
    T_GPT2, D_V = 1024, 64
    step(4, f"kept per head at T = {T_GPT2}: p {T_GPT2 * T_GPT2:,} numbers; out and lse {T_GPT2 * D_V + T_GPT2:,} "
         f"({T_GPT2 * T_GPT2 / (T_GPT2 * D_V + T_GPT2):.1f} times fewer)")  # fmt: skip

# %% [markdown]
# ## Step 5: the tiled backward, from out and lse
#
# 13 words in blocks of 4 (the last block is one word), two texts of two heads. out and lse
# come from the forward; your tiled_attention_backward rebuilds each tile of weights from lse.

# %%
if __name__ == "__main__":
    BLOCK = 4
    q, k, v, d_out = (torch.randn(2, 2, 13, 8, dtype=torch.float64) for _ in range(4))
    differences = {}
    for causal in (False, True):
        out, lse = forward(q, k, v, causal)
        ours = tiled_attention_backward(q, k, v, out, lse, d_out, BLOCK, causal)
        differences[causal] = largest_difference(ours, autograd_gradients(q, k, v, d_out, causal))
    tiled_difference = max(differences.values())
    step(5, f"tiled_attention_backward, T = 13, block {BLOCK}: vs autograd "
         + ", ".join(f"{d:.1e} with causal={causal}" for causal, d in differences.items()))  # fmt: skip

# %% [markdown]
# ## Step 6: float32 is not a wrong formula
#
# The same tiled backward on the same numbers in float32, against autograd in float64: the
# gradients now differ by about 1e-7 of their size, float32's rounding. A wrong formula moves
# them by far more. The checker tells the two apart.

# %%
if __name__ == "__main__":
    out32, lse32 = forward(q.float(), k.float(), v.float(), True)
    ours32 = tiled_attention_backward(q.float(), k.float(), v.float(), out32, lse32, d_out.float(), BLOCK, True)
    float32_difference = largest_difference([g.double() for g in ours32], autograd_gradients(q, k, v, d_out, True))
    step(6, f"the same in float32: vs autograd in float64 {float32_difference:.1e} (float64 gave {tiled_difference:.1e})")

# %% [markdown]
# ## Self-check
#
# In float64 your gradients and autograd's add the same products in other orders: they agree
# to about 1e-15. The lab asks for 1e-10.

# %%
if __name__ == "__main__":
    passed = self_check(
        {
            "softmax_backward equals the Jacobian product within 1e-10": softmax_difference <= 1e-10,
            "attention_backward equals autograd within 1e-10 (causal and not)": whole_difference <= 1e-10,
            "tiled_attention_backward equals autograd within 1e-10 (causal and not)": tiled_difference <= 1e-10,
            "float32 stays within 1e-4 of float64's answer": float32_difference <= 1e-4,
        }
    )
    if not passed:
        sys.exit(1)
