#!/usr/bin/env python3
# %% [markdown]
# # Lab 02 (your version): the embedding table, and softmax by hand
#
# `nn.Embedding` is a table with one learned row per word: looking a word up returns its row,
# always the same row, whatever sentence the word is in. "bank" by a river and "bank" full of
# money start out identical; telling them apart is attention's job (lab 04).
#
# Softmax turns a row of scores into weights that are positive and sum to 1:
#
#     softmax(s)_i = exp(s_i - m) / sum_j exp(s_j - m),   m = max_j s_j
#
# Subtracting the maximum m changes nothing mathematically (exp(-m) cancels) but keeps every
# exponent <= 0: without it, a score of 100 already overflows float32's exp to inf, and inf/inf
# is NaN. You write it and check it against `torch.softmax`, on scores in the thousands too.
#
# Left out: how the rows are learned (lab 03 trains a table).

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 02. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 2 lab02-02.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 2 lab02-02.py`. The solved lab: `attention-by-hand lab run 2`.
# The steps sit under `if __name__ == "__main__":`, so that the checker can import your
# functions without running them.

# %%
import sys
import traceback

try:
    import torch
except ModuleNotFoundError:  # a Python without PyTorch: one line that says what to do instead
    print(
        f"{sys.argv[0]}: this lab needs PyTorch, which {sys.executable} does not have; run it with the "
        f"Python that has attention-by-hand: attention-by-hand lab run 2 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

# The toy world of the workshop (worlds/river-bank.toml), on the axes water, money, place, filler.
VOCABULARY = ["the", "river", "money", "bank"]
EMBEDDINGS = [
    [0.0, 0.0, 0.0, 1.0],  # the
    [0.9, 0.0, 0.3, 0.0],  # river
    [0.0, 0.9, 0.1, 0.0],  # money
    [0.3, 0.3, 0.9, 0.0],  # bank
]

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 2 FILE`) calls these two by name, on fixed and
# random inputs, and compares them with the reference lab.


# %%
def one_hot_lookup(ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """An embedding lookup written as a matrix product: one_hot(ids) @ weight.

    ids: (n,) integers in [0, n_vocabulary); weight: (n_vocabulary, d_model)  ->  (n, d_model)
    A one-hot row has a single 1, so the product picks exactly one row of the table: this is
    why an embedding layer is a linear layer that skips the multiplications.
    """
    rows = F.one_hot(ids, num_classes=weight.size()).type_as(weight)
    return torch.tensordot(rows, weight, dims=1)


def softmax(scores: torch.Tensor) -> torch.Tensor:
    """Scores -> weights that are positive and sum to 1 along the LAST axis.

    scores: (..., n)  ->  weights: (..., n); a matrix is softmaxed row by row.
    """
    m = torch.cummax(scores, dim=-1).values[..., -1:]
    e = torch.exp(scores - m)
    return e.div(e.sum(-1, keepdim=True))


# %% [markdown]
# ## How the lab talks
#
# One `STEP n:` line per step; the last line is the self-check, and the script exits with
# status 1 when an invariant fails, so a shell or CI can tell.


# %%
def step(number: int, text: str) -> None:
    """Print one numbered step."""
    print(f"STEP {number}: {text}")


def row(values: torch.Tensor) -> str:
    """A short vector as text: [0.123, 0.456]."""
    return "[" + ", ".join(f"{v:.3f}" for v in values.tolist()) + "]"


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
# ## Step 1: nn.Embedding is a table
#
# A fresh `nn.Embedding(4, 4)` holds random rows that training would tune; here we copy the
# toy world's rows into it so that every number means something.

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    torch.set_grad_enabled(False)  # nothing is trained in this lab
    embedding = nn.Embedding(num_embeddings=len(VOCABULARY), embedding_dim=4)
    embedding.weight.copy_(torch.tensor(EMBEDDINGS))  # (n_vocabulary, d_model)
    ids_of = {word: i for i, word in enumerate(VOCABULARY)}
    step(1, f"nn.Embedding({len(VOCABULARY)}, 4): weight {tuple(embedding.weight.shape)} = (words, d_model)")

# %% [markdown]
# ## Step 2: "bank" gets one row, whatever the sentence

# %%
if __name__ == "__main__":
    river_ids = torch.tensor([ids_of[w] for w in ["the", "river", "bank"]])  # (3,)
    money_ids = torch.tensor([ids_of[w] for w in ["the", "money", "bank"]])  # (3,)
    river_rows, money_rows = embedding(river_ids), embedding(money_ids)  # (3, d_model) each
    same_bank = torch.equal(river_rows[2], money_rows[2])
    step(
        2,
        f"'the river bank' ids {river_ids.tolist()}, 'the money bank' ids {money_ids.tolist()}; "
        f"bank's row is the same in both: {same_bank} {row(river_rows[2])}",
    )

# %% [markdown]
# ## Step 3: a lookup is a one-hot matrix product

# %%
if __name__ == "__main__":
    by_one_hot = one_hot_lookup(river_ids, embedding.weight)  # (3, d_model)
    lookup_equal = torch.equal(by_one_hot, river_rows)
    step(3, f"one_hot(ids) @ weight equals embedding(ids): {lookup_equal}")

# %% [markdown]
# ## Step 4: softmax on bank's scores
#
# bank's row against each word of "the river bank" gives three scores; softmax makes them
# weights. Yours and torch's must agree.

# %%
if __name__ == "__main__":
    scores = river_rows @ river_rows[2]  # (3,): bank . the, bank . river, bank . bank
    mine, theirs = softmax(scores), torch.softmax(scores, dim=-1)  # (3,) each
    small_difference = (mine - theirs).abs().max().item()
    step(4, f"scores {row(scores)} -> softmax {row(mine)}; torch.softmax {row(theirs)}")

# %% [markdown]
# ## Step 5: scores large enough to break the naive formula
#
# exp(1000) is inf in float32 (the largest float32 is about 3.4e38 = exp(88.7)), and inf/inf
# is NaN. Shifting by the maximum turns [1000, 1001, 1002] into [-2, -1, 0]: same weights as
# [0, 1, 2], no overflow.

# %%
if __name__ == "__main__":
    large = torch.tensor([1000.0, 1001.0, 1002.0])  # (3,)
    naive = torch.exp(large) / torch.exp(large).sum()  # (3,): inf / inf
    mine_large = softmax(large)  # (3,)
    large_difference = (mine_large - torch.softmax(large, dim=-1)).abs().max().item()
    step(5, f"scores {large.tolist()}: naive exp/sum gives {naive.tolist()}; yours gives {row(mine_large)}")

# %% [markdown]
# ## Step 6: a matrix is softmaxed row by row
#
# Every word of the sentence against every word: each ROW becomes one distribution.

# %%
if __name__ == "__main__":
    pairwise = river_rows @ river_rows.T  # (3, 3)
    weights = softmax(pairwise)  # (3, 3)
    matrix_difference = (weights - torch.softmax(pairwise, dim=-1)).abs().max().item()
    step(
        6,
        f"softmax of the (3, 3) scores: row sums {row(weights.sum(dim=-1))}; "
        f"max |difference| to torch.softmax(dim=-1) = {matrix_difference:.1e}",
    )

# %% [markdown]
# ## Self-check
#
# 1e-6: both softmaxes compute the same float32 expression, up to rounding.

# %%
if __name__ == "__main__":
    passed = self_check(
        {
            "bank has one row in both sentences": same_bank,
            "one-hot product equals the lookup": lookup_equal,
            "softmax matches torch within 1e-6": small_difference <= 1e-6 and matrix_difference <= 1e-6,
            "no NaN on scores in the thousands": not mine_large.isnan().any().item() and large_difference <= 1e-6,
            "rows of a softmaxed matrix sum to 1": torch.allclose(weights.sum(dim=-1), torch.ones(3), atol=1e-6),
        }
    )
    if not passed:
        sys.exit(1)
