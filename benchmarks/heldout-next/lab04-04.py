#!/usr/bin/env python3
# %% [markdown]
# # Lab 04 (your version): one head of self-attention
#
# The bigram of lab 03 sees exactly one character back. Attention lets every token look at
# *all* the tokens before it and choose, with learned weights, which ones to listen to.
#
# Each token makes three vectors with three `nn.Linear` layers: a **query** (what am I looking
# for?), a **key** (what do I offer?) and a **value** (what do I pass on if chosen?). One head is
#
#     weights = softmax(causal_mask(q @ k^T / sqrt(head_size)))      out = weights @ v
#
# with the softmax taken along each row, so that row i is how token i shares out its attention.
#
# Left out: batches and several heads (lab 05), training (lab 06).

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 04. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 4 lab04-04.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 4 lab04-04.py`. The solved lab: `attention-by-hand lab run 4`.
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
        f"Python that has attention-by-hand: attention-by-hand lab run 4 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 4 FILE`) calls these three by name, on fixed and
# random inputs, and compares them with the reference lab.


# %%
def causal_mask(T: int) -> torch.Tensor:
    """True where token i would look at a LATER token j > i, i.e. the cells to hide.   -> (T, T) bool

    The same convention as `attention_by_hand.math.mechanism.causal_mask`: True means hidden.
    """
    mask = torch.zeros(T, T, dtype=torch.bool)
    rows, cols = torch.triu_indices(T, T, offset=1)
    mask[rows, cols] = True
    return mask


def attention_weights(x: torch.Tensor, query: nn.Linear, key: nn.Linear) -> torch.Tensor:
    """How much each token attends to each token: softmax(causal_mask(q @ k^T / sqrt(head_size))).

    x: (T, d_model); query, key: nn.Linear(d_model, head_size)  ->  weights: (T, T), rows sum to 1
    """
    q, k = query(x), key(x)
    s = (q[:, None, :] * k[None, :, :]).sum(-1) / math.pow(q.size(-1), 0.5)
    rows, cols = torch.triu_indices(len(x), len(x), offset=1)
    s[rows, cols] = -math.inf
    return F.softmin(-s, dim=-1)


def self_attention(
    x: torch.Tensor, query: nn.Linear, key: nn.Linear, value: nn.Linear
) -> tuple[torch.Tensor, torch.Tensor]:
    """One head of causal self-attention: each output row is a weights-blend of the values.

    x: (T, d_model); query, key, value: nn.Linear(d_model, head_size)
    ->  out: (T, head_size), weights: (T, T)
    """
    w = attention_weights(x, query, key)
    out = (w[:, :, None] * value(x)[:, None, :]).sum(1)
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


def show(matrix: torch.Tensor, labels: list[str]) -> None:
    """Print a small matrix, one labelled row per line.   matrix: (rows, columns)"""
    for label, row in zip(labels, matrix.tolist()):
        print(f"    {label:>4} [" + " ".join(f"{v:6.3f}" for v in row) + " ]")


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
# ## Step 1: a few tokens
#
# Five tokens, each a vector of `d_model = 8` numbers, as an embedding table would hand them
# over. The head size is 4, not 8, on purpose: the scale must use the head size.

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    torch.manual_seed(4)
    torch.set_grad_enabled(False)  # nothing is trained in this lab
    T, D_MODEL, HEAD_SIZE = 5, 8, 4
    tokens = [f"t{i}" for i in range(T)]
    x = torch.randn(T, D_MODEL)  # (T, d_model)
    step(1, f"input x: {T} tokens, each d_model = {D_MODEL} numbers; shape {tuple(x.shape)}")

# %% [markdown]
# ## Step 2: query, key, value
#
# Three `nn.Linear(d_model, head_size, bias=False)` layers: a GPT's q/k/v projections, without
# the biases that GPT-2's have (Llama's have none).

# %%
if __name__ == "__main__":
    query = nn.Linear(D_MODEL, HEAD_SIZE, bias=False)
    key = nn.Linear(D_MODEL, HEAD_SIZE, bias=False)
    value = nn.Linear(D_MODEL, HEAD_SIZE, bias=False)
    q, k, v = query(x), key(x), value(x)  # (T, head_size) each
    step(2, f"q, k, v = query(x), key(x), value(x): each {tuple(q.shape)} = (T, head_size)")

# %% [markdown]
# ## Step 3: scores, scaled by the head size
#
# Row i holds token i's query against every key. Nothing is hidden yet: t0 still "sees" t4.

# %%
if __name__ == "__main__":
    scores = q @ k.T / math.sqrt(HEAD_SIZE)  # (T, T)
    step(3, f"scores = q @ k^T / sqrt(head_size = {HEAD_SIZE}), shape {tuple(scores.shape)}")
    show(scores, tokens)

# %% [markdown]
# ## Step 4: the causal mask
#
# When a model writes text it has not written the next token yet, so token i must not look at
# any j > i. The mask marks those cells; they get a score of -inf before the softmax.

# %%
if __name__ == "__main__":
    mask = causal_mask(T)  # (T, T)
    step(4, "causal mask: x = hidden (a later token), . = visible")
    for label, row in zip(tokens, mask.tolist()):
        print(f"    {label:>4}  " + " ".join("x" if hidden else "." for hidden in row))

# %% [markdown]
# ## Step 5: softmax each row into weights

# %%
if __name__ == "__main__":
    weights = attention_weights(x, query, key)  # (T, T)
    step(5, "weights = softmax(masked scores) along each row; row i = how token i shares its attention")
    show(weights, tokens)

# %% [markdown]
# ## Step 6: the weighted sum of the values
#
# Token t0 can only see itself, so its output is exactly its own value.

# %%
if __name__ == "__main__":
    out, _ = self_attention(x, query, key, value)  # (T, head_size)
    step(
        6,
        f"out = weights @ v: shape {tuple(out.shape)} = (T, head_size); out[t0] == v[t0]: {torch.equal(out[0], v[0])}",
    )

# %% [markdown]
# ## Step 7: PyTorch's own attention agrees
#
# `F.scaled_dot_product_attention` is the fused function real models call; with
# `is_causal=True` it applies the same mask and the same 1/sqrt(head_size) scale.

# %%
if __name__ == "__main__":
    reference = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (T, head_size)
    difference = (out - reference).abs().max().item()
    step(7, f"F.scaled_dot_product_attention(q, k, v, is_causal=True) vs yours: max |difference| = {difference:.1e}")

# %% [markdown]
# ## Self-check
#
# Weights are a distribution per row, nothing lands on the future, and PyTorch agrees
# (1e-6: float32 rounding of a few dozen products, with room to spare).

# %%
if __name__ == "__main__":
    # The future is spelled out again here, not taken from causal_mask: a check must not trust
    # the function it checks.
    future = torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)  # (T, T), True where j > i
    passed = self_check(
        {
            "every row of weights sums to 1": torch.allclose(weights.sum(dim=-1), torch.ones(T), atol=1e-6),
            "no weight on a future token": bool((weights[future] == 0).all()),
            "matches F.scaled_dot_product_attention within 1e-6": difference <= 1e-6,
        }
    )
    if not passed:
        sys.exit(1)
