#!/usr/bin/env python3
# %% [markdown]
# # Lab 05 (your version): several heads at once
#
# One head answers one kind of question. A transformer runs several heads side by side, each on
# its own slice of the query, key and value vectors, then concatenates their outputs and mixes
# them with one more linear layer, the output projection:
#
#     q, k, v = query(x), key(x), value(x)                      (T, d_model) each
#     split each into n_heads slices of head_size = d_model / n_heads      (n_heads, T, head_size)
#     per head: softmax(causal_mask(q k^T / sqrt(head_size))) v             (n_heads, T, head_size)
#     concatenate the heads back to (T, d_model), then out = proj(...)
#
# The scale is the HEAD size, not d_model: each head's dot products have head_size terms.
# You build it from lab 04's pieces, then check it against `torch.nn.MultiheadAttention`
# (given the same weights) and `F.scaled_dot_product_attention`, within 1e-6.
#
# Left out: batches (a leading B axis changes nothing here), dropout.

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 05. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 5 lab05-05.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 5 lab05-05.py`. The solved lab: `attention-by-hand lab run 5`.
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
        f"Python that has attention-by-hand: attention-by-hand lab run 5 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 5 FILE`) calls these three by name, on fixed and
# random inputs, and compares them with the reference lab.


# %%
def split_heads(t: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Cut each token's vector into n_heads slices, one per head.

    t: (T, d_model)  ->  (n_heads, T, head_size), head_size = d_model // n_heads
    Head h gets columns h * head_size ... (h + 1) * head_size - 1 of every token.
    """
    T, d = t.shape
    return t.view(T, n_heads, d // n_heads).swapaxes(0, 1)


def merge_heads(t: torch.Tensor) -> torch.Tensor:
    """Concatenate the heads' outputs side by side again: the inverse of split_heads.

    t: (n_heads, T, head_size)  ->  (T, n_heads * head_size)
    """
    H, T, hs = t.shape
    return t.swapaxes(0, 1).reshape(T, H * hs)


def multi_head_attention(
    x: torch.Tensor, query: nn.Linear, key: nn.Linear, value: nn.Linear, proj: nn.Linear, n_heads: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal multi-head self-attention: n_heads lab-04 heads in parallel, then the projection.

    x: (T, d_model); query, key, value, proj: nn.Linear(d_model, d_model)
    ->  out: (T, d_model), weights: (n_heads, T, T)
    """
    T = x.shape[0]
    q, k, v = (split_heads(f(x), n_heads) for f in (query, key, value))
    s = torch.einsum('hid,hjd->hij', q, k) / q.shape[-1] ** 0.5
    s = torch.where(torch.tril(torch.ones(T, T)) == 0, float('-inf'), s)
    w = F.dropout(torch.special.softmax(s, dim=-1), 0.1)
    out = proj(merge_heads(torch.einsum('hij,hjd->hid', w, v)))
    return out, w


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


# %% [markdown]
# ## Step 1: the input and four linear layers

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    torch.manual_seed(5)
    torch.set_grad_enabled(False)  # nothing is trained in this lab
    T, D_MODEL, N_HEADS = 6, 8, 2
    HEAD_SIZE = D_MODEL // N_HEADS
    x = torch.randn(T, D_MODEL)  # (T, d_model)
    query, key, value, proj = (nn.Linear(D_MODEL, D_MODEL, bias=False) for _ in range(4))
    step(
        1,
        f"x: {tuple(x.shape)} = (T, d_model); {N_HEADS} heads of head_size {HEAD_SIZE}; "
        f"query, key, value, proj: nn.Linear({D_MODEL}, {D_MODEL})",
    )

# %% [markdown]
# ## Step 2: split into heads

# %%
if __name__ == "__main__":
    q = split_heads(query(x), N_HEADS)  # (n_heads, T, head_size)
    round_trip = torch.equal(merge_heads(q), query(x))
    step(
        2,
        f"split_heads: {tuple(query(x).shape)} -> {tuple(q.shape)} = (n_heads, T, head_size); "
        f"merge_heads gives the original back: {round_trip}",
    )

# %% [markdown]
# ## Step 3: all heads at once

# %%
if __name__ == "__main__":
    out, weights = multi_head_attention(x, query, key, value, proj, N_HEADS)
    step(3, f"out {tuple(out.shape)} = (T, d_model), weights {tuple(weights.shape)} = (n_heads, T, T)")
    for h in range(N_HEADS):
        print(f"    head {h}, last token's weights: [" + ", ".join(f"{w:.3f}" for w in weights[h, -1].tolist()) + "]")

# %% [markdown]
# ## Step 4: nn.MultiheadAttention, given the same weights
#
# PyTorch keeps query, key and value in one (3 d_model, d_model) matrix, `in_proj_weight`, and
# the output projection in `out_proj`. Careful: its boolean `attn_mask` means True = NOT
# allowed, like our causal mask (F.scaled_dot_product_attention means the opposite).

# %%
if __name__ == "__main__":
    mha = nn.MultiheadAttention(D_MODEL, N_HEADS, bias=False, batch_first=True)
    mha.in_proj_weight.copy_(torch.cat([query.weight, key.weight, value.weight]))  # (3 d_model, d_model)
    mha.out_proj.weight.copy_(proj.weight)
    hidden = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T), True = a later token
    mha_out, mha_weights = mha(
        x[None], x[None], x[None], attn_mask=hidden, need_weights=True, average_attn_weights=False
    )  # (1, T, d_model), (1, n_heads, T, T): a batch of one
    mha_difference = max((out - mha_out[0]).abs().max().item(), (weights - mha_weights[0]).abs().max().item())
    step(
        4, f"nn.MultiheadAttention with the same weights: max |difference| (outputs and weights) = {mha_difference:.1e}"
    )

# %% [markdown]
# ## Step 5: F.scaled_dot_product_attention, one head per batch row

# %%
if __name__ == "__main__":
    k, v = split_heads(key(x), N_HEADS), split_heads(value(x), N_HEADS)  # (n_heads, T, head_size) each
    sdpa = proj(merge_heads(F.scaled_dot_product_attention(q, k, v, is_causal=True)))  # (T, d_model)
    sdpa_difference = (out - sdpa).abs().max().item()
    step(
        5,
        "F.scaled_dot_product_attention(is_causal=True), merged and projected: "
        f"max |difference| = {sdpa_difference:.1e}",
    )

# %% [markdown]
# ## Step 6: the mask holds in every head

# %%
if __name__ == "__main__":
    future = weights[:, hidden]  # (n_heads, number of hidden cells)
    masked_everywhere = bool((future == 0).all())
    rows_sum_to_1 = torch.allclose(weights.sum(dim=-1), torch.ones(N_HEADS, T), atol=1e-6)
    step(
        6,
        f"largest weight on a future token, over all {N_HEADS} heads: {future.abs().max().item():.1e}; "
        f"every row of every head sums to 1: {rows_sum_to_1}",
    )

# %% [markdown]
# ## Self-check
#
# 1e-6: float32 rounding of the same sums done in a different order by PyTorch's kernels.

# %%
if __name__ == "__main__":
    passed = self_check(
        {
            "merge_heads undoes split_heads": round_trip,
            "matches nn.MultiheadAttention within 1e-6": mha_difference <= 1e-6,
            "matches F.scaled_dot_product_attention within 1e-6": sdpa_difference <= 1e-6,
            "no weight on a future token in any head": masked_everywhere,
            "every row of every head sums to 1": rows_sum_to_1,
        }
    )
    if not passed:
        sys.exit(1)
