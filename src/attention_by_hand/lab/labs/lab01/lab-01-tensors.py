#!/usr/bin/env python3
# %% [markdown]
# # Lab 01: tensors, and a matrix product that is only dot products
#
# The workshop's toy world, four words with embeddings on four *named* axes, becomes a torch
# tensor. A sentence is a stack of its words' rows, and the one operation attention is made of,
# the matrix product `A @ B`, turns out to be nothing but many dot products done at once:
#
#     (A @ B)[i, j] = A[i, :] . B[:, j] = sum_k A[i, k] * B[k, j]        (n, k) @ (k, m) -> (n, m)
#
# You write it with two loops and check it against `@`.
#
# Left out: gradients and learning (lab 03 on).

# %% [markdown] tags=["how-to-run"]
# This is the reference lab, solved. Run it: `attention-by-hand lab run 1`.
# Your version, with the functions below left to write: `attention-by-hand lab start 1` writes
# `lab-01-tensors.py` into the current folder (`--notebook` for a notebook), and
# `attention-by-hand lab check 1` checks it. The steps sit under `if __name__ == "__main__":`,
# so that the checker can import the functions without running them.

# %%
import sys
import traceback

try:
    import torch
except ModuleNotFoundError:  # a Python without PyTorch: one line that says what to do instead
    print(
        f"{sys.argv[0]}: this lab needs PyTorch, which {sys.executable} does not have; run it with the "
        f"Python that has attention-by-hand: attention-by-hand lab run 1 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)

# The toy world of the workshop (worlds/river-bank.toml): one row per word, one column per axis.
AXES = ["water", "money", "place", "filler"]
VOCABULARY = ["the", "river", "money", "bank"]
EMBEDDINGS = [
    [0.0, 0.0, 0.0, 1.0],  # the: pure filler
    [0.9, 0.0, 0.3, 0.0],  # river: watery, a little bit of a place
    [0.0, 0.9, 0.1, 0.0],  # money: money
    [0.3, 0.3, 0.9, 0.0],  # bank: mostly a place, a bit of both meanings
]

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 1 FILE`) calls these three by name, on fixed and
# random inputs, and compares them with the reference lab.


# %%
def sentence_matrix(table: torch.Tensor, vocabulary: list[str], sentence: list[str]) -> torch.Tensor:
    """Stack the table's row of each word of the sentence, in order.

    table: (n_vocabulary, d_model), one ROW per word of `vocabulary`  ->  X: (n_words, d_model)
    """
    rows = [vocabulary.index(word) for word in sentence]  # a word's row number = its place in the vocabulary
    return table[rows]  # (n_words, d_model): indexing with a list picks whole rows


def dot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The dot product a . b = sum_i a_i * b_i, as a 0-d tensor.   a, b: (d,)  ->  ()"""
    return (a * b).sum()  # (): large when a and b are large on the same axes


def matmul_by_loops(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b, one dot product per output cell: out[i, j] = (row i of a) . (column j of b).

    a: (n, k), b: (k, m)  ->  out: (n, m)
    """
    n, m = a.shape[0], b.shape[1]
    out = torch.zeros(n, m, dtype=a.dtype)  # (n, m)
    for i in range(n):
        for j in range(m):
            out[i, j] = dot(a[i, :], b[:, j])  # a ROW of a against a COLUMN of b
    return out


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
        print(f"    {label:>6} [" + " ".join(f"{v:6.3f}" for v in row) + " ]")


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
# ## Step 1: the toy world as a tensor
#
# `torch.tensor` turns the nested list into a 4 x 4 grid of float32 numbers: rows are words,
# columns are the named axes.

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    torch.set_grad_enabled(False)  # nothing is trained in this lab
    table = torch.tensor(EMBEDDINGS)  # (n_vocabulary, d_model)
    step(1, f"the toy world: shape {tuple(table.shape)} = (words, axes), dtype {table.dtype}")
    print("           " + " ".join(f"{axis:>6}" for axis in AXES))
    show(table, VOCABULARY)

# %% [markdown]
# ## Step 2: a sentence is a stack of rows

# %%
if __name__ == "__main__":
    sentence = ["the", "river", "bank"]
    X = sentence_matrix(table, VOCABULARY, sentence)  # (n_words, d_model)
    step(2, f"'{' '.join(sentence)}' as rows of the table: X has shape {tuple(X.shape)} = (n_words, d_model)")
    show(X, sentence)

# %% [markdown]
# ## Step 3: one dot product, by hand
#
# bank . river multiplies the two rows axis by axis and adds up: they meet on "water" and
# on "place", so the result is positive.

# %%
if __name__ == "__main__":
    bank, river = X[2], X[1]  # (d_model,) each
    mine, theirs = dot(bank, river).item(), torch.dot(bank, river).item()
    terms = " + ".join(f"{a:.1f}*{b:.1f}" for a, b in zip(bank.tolist(), river.tolist()))
    step(3, f"bank . river = {terms} = {mine:.3f}; torch.dot says {theirs:.3f}")

# %% [markdown]
# ## Step 4: every pair of words at once
#
# `X @ X.T` is (n_words, d_model) @ (d_model, n_words) -> (n_words, n_words): cell [i, j] is
# word i's row against word j's row, which is exactly what the loops compute one cell at a time.

# %%
if __name__ == "__main__":
    by_loops = matmul_by_loops(X, X.T)  # (n_words, n_words)
    by_torch = X @ X.T  # (n_words, n_words)
    loops_difference = (by_loops - by_torch).abs().max().item()
    step(
        4,
        f"X @ X.T by loops ({X.shape[0]} x {X.shape[0]} dot products) vs @: max |difference| = {loops_difference:.1e}",
    )
    show(by_loops, sentence)

# %% [markdown]
# ## Step 5: a bigger, random product
#
# Shapes are the whole rule: the inner sizes must agree and they disappear,
# (5, 7) @ (7, 3) -> (5, 3), 15 dot products of length 7.

# %%
if __name__ == "__main__":
    generator = torch.Generator().manual_seed(1)
    A, B = torch.randn(5, 7, generator=generator), torch.randn(7, 3, generator=generator)
    random_difference = (matmul_by_loops(A, B) - A @ B).abs().max().item()
    step(5, f"(5, 7) @ (7, 3) by loops vs @: max |difference| = {random_difference:.1e} (float32 rounding)")

# %% [markdown]
# ## Step 6: when shapes do not fit
#
# `X @ X` asks for (3, 4) @ (3, 4): the inner sizes 4 and 3 differ, and torch says so.

# %%
if __name__ == "__main__":
    try:
        X @ X
        refused, answer = False, "torch multiplied them anyway?"
    except RuntimeError as error:
        refused, answer = True, f"torch refuses: {error}"
    step(6, f"X @ X, i.e. (3, 4) @ (3, 4): {answer}")

# %% [markdown]
# ## Self-check
#
# 1e-6 covers float32 rounding: the loops and `@` add the same products in different orders.

# %%
if __name__ == "__main__":
    passed = self_check(
        {
            "dot matches torch.dot": abs(mine - theirs) <= 1e-6,
            "bank . river = 0.540": abs(mine - 0.54) <= 1e-6,
            "loops match @ on the sentence within 1e-6": loops_difference <= 1e-6,
            "loops match @ on random (5, 7) @ (7, 3) within 1e-6": random_difference <= 1e-6,
            "torch refuses (3, 4) @ (3, 4)": refused,
        }
    )
    if not passed:
        sys.exit(1)
