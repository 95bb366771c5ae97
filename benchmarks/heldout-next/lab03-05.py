#!/usr/bin/env python3
# %% [markdown]
# # Lab 03 (your version): a character bigram model, counted and then trained
#
# The smallest language model guesses the next character from the current one alone. Count
# how often each character follows each other one, turn each row of counts into probabilities,
# and you have a model. Then train an `nn.Embedding(V, V)` with gradient descent, one row of
# V scores per character, and watch it learn the same table from the same text.
#
# The loss is the average negative log-probability of each true next character:
#
#     loss = -mean_i log P(next_i | current_i)        a model that guesses uniformly scores log(V)
#
# The text is a short paragraph about attention, written into the lab (so it runs the same
# anywhere), lowercased and cut down to letters, space, full stop and comma.
#
# Left out: any context beyond one character (lab 04 adds attention).

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 03. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 3 lab03-05.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 3 lab03-05.py`. The solved lab: `attention-by-hand lab run 3`.
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
        f"Python that has attention-by-hand: attention-by-hand lab run 3 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

ALPHABET = "abcdefghijklmnopqrstuvwxyz .,"

# The text the model learns from: short, so that counting and training take a blink.
TEXT = """
Attention lets every word of a sentence look at the words before it and decide which of
them matter. A word asks a question with its query, every word answers with its key, and the
best answers hand over their values. The bank by the river and the bank that holds money
start from the same row of numbers. Attention is what pulls them apart, one weighted sum at a
time. Before attention, a model had to guess the next letter from the last letter alone, and
that is the model we build here, by counting and then by training.
"""

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 3 FILE`) calls these three by name, on fixed and
# random inputs, and compares them with the reference lab.


# %%
def bigram_counts(ids: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """counts[a, b] = how many times character b comes right after character a.

    ids: (N,) integers in [0, vocab_size)  ->  counts: (vocab_size, vocab_size), float
    ROW = the current character, COLUMN = the next one; the N - 1 pairs are (ids[i], ids[i+1]).
    """
    pairs = torch.stack((ids[:-1], ids[1:]))
    ones = torch.ones(pairs.shape[1])
    return torch.sparse_coo_tensor(pairs, ones, (vocab_size, vocab_size)).to_dense()


def counts_to_probs(counts: torch.Tensor, smoothing: float = 1.0) -> torch.Tensor:
    """P(next = b | current = a): each ROW of (counts + smoothing), divided by its sum.

    counts: (V, V)  ->  probs: (V, V), every row sums to 1
    The smoothing pretends each pair was seen `smoothing` extra times, so no probability is 0
    (log 0 = -inf) and a character never seen before anything still has a row that sums to 1.
    """
    c = counts.add(smoothing)
    return c.div(c.sum(dim=1, keepdim=True))


def average_nll(probs: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """The loss: -mean over the N - 1 pairs of log probs[current, next], as a 0-d tensor.

    probs: (V, V), rows = current character; ids: (N,)  ->  ()
    """
    picked = probs[ids[:-1]][:, ids[1:]]
    return -picked.log().mean()


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


def clean(text: str) -> str:
    """Lowercase; any character outside ALPHABET becomes a space; runs of spaces become one."""
    kept = "".join(c if c in ALPHABET else " " for c in text.lower())
    return " ".join(kept.split())


def sample(probs: torch.Tensor, first: int, length: int, generator: torch.Generator) -> list[int]:
    """Draw `length` character ids, each from the row of the one before.   probs: (V, V)"""
    ids = [first]
    for _ in range(length - 1):
        ids.append(torch.multinomial(probs[ids[-1]], 1, generator=generator).item())
    return ids


# %% [markdown]
# ## Step 1: the text

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    text = clean(TEXT)
    chars = sorted(set(text))
    V = len(chars)
    step(1, f"text: {len(text):,} characters, V = {V} distinct; it starts {text[:48]!r}")

# %% [markdown]
# ## Step 2: characters become ids

# %%
if __name__ == "__main__":
    id_of = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([id_of[c] for c in text])  # (N,)
    step(2, f"ids: {tuple(ids.shape)}; {text[:6]!r} -> {ids[:6].tolist()}")

# %% [markdown]
# ## Step 3: count every pair

# %%
if __name__ == "__main__":
    counts = bigram_counts(ids, V)  # (V, V)
    top = torch.topk(counts.flatten(), 5)
    pairs = ", ".join(
        f"{chars[i // V] + chars[i % V]!r} x{int(n)}" for n, i in zip(top.values.tolist(), top.indices.tolist())
    )
    step(3, f"counts: {tuple(counts.shape)}, {int(counts.sum())} pairs; the most frequent: {pairs}")

# %% [markdown]
# ## Step 4: rows of counts become probabilities

# %%
if __name__ == "__main__":
    # A short text spreads its pairs thinly over V * V cells: one extra count per cell would
    # outweigh the text itself, so only a trace, enough to keep unseen pairs above zero.
    probs = counts_to_probs(counts, smoothing=0.01)  # (V, V)
    after_q = probs[id_of["q"]] if "q" in id_of else probs[0]
    best = chars[int(after_q.argmax())]
    step(
        4,
        f"probs: every row sums to 1 (largest error {(probs.sum(dim=1) - 1).abs().max().item():.1e}); "
        f"after 'q' the likeliest next character is {best!r} ({after_q.max().item():.2f})",
    )

# %% [markdown]
# ## Step 5: how good is the counted model?

# %%
if __name__ == "__main__":
    uniform = math.log(V)
    counted_loss = average_nll(probs, ids).item()
    step(5, f"loss of the counted model: {counted_loss:.3f}; a uniform guess scores log(V) = {uniform:.3f}")

# %% [markdown]
# ## Step 6: learn the same table by gradient descent
#
# `nn.Embedding(V, V)` gives each character a row of V scores (logits) for the next one.
# `F.cross_entropy` is softmax plus the same average negative log-probability as step 5.
# Each step nudges every score against its gradient: weight <- weight - lr * gradient.

# %%
if __name__ == "__main__":
    torch.manual_seed(3)
    model = nn.Embedding(V, V)  # row a = the logits of the character after a
    inputs, targets = ids[:-1], ids[1:]  # (N - 1,) each: every pair in one full batch
    # A large rate suits this loss: averaged over thousands of pairs, each score's gradient is tiny.
    learning_rate = 50.0
    step(6, f"training nn.Embedding(V, V) on all pairs at once, plain gradient descent, lr {learning_rate:g}")
    for i in range(201):
        loss = F.cross_entropy(model(inputs), targets)  # model(inputs): (N - 1, V) logits
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            model.weight -= learning_rate * model.weight.grad
        if i % 50 == 0:
            print(f"    step {i:3d}: loss {loss.item():.3f}")
    trained_loss = loss.item()
    step(
        7,
        f"trained loss {trained_loss:.3f} vs counted {counted_loss:.3f}: the same table, found by descent "
        "(training stops a little short of the exact optimum; the counts carry a trace of smoothing)",
    )

# %% [markdown]
# ## Step 8: sample from the trained model

# %%
if __name__ == "__main__":
    with torch.no_grad():
        trained_probs = torch.softmax(model.weight, dim=-1)  # (V, V): row a = P(next | a)
    generator = torch.Generator().manual_seed(8)
    samples = ["".join(chars[i] for i in sample(trained_probs, id_of[c], 60, generator)) for c in ("t", "a")]
    step(8, "two samples; pairs of letters look right, words do not: one character of context is not enough")
    for s in samples:
        print(f"    {s!r}")

# %% [markdown]
# ## Self-check
#
# The trained model should land within 0.05 of the counted one: both estimate the same
# table, and the counts carry a little smoothing that training does not.

# %%
if __name__ == "__main__":
    passed = self_check(
        {
            "rows of probs sum to 1": torch.allclose(probs.sum(dim=1), torch.ones(V), atol=1e-5),
            "counted loss below log(V)": counted_loss < uniform,
            "trained loss below log(V)": trained_loss < uniform,
            "trained loss within 0.05 of the counted loss": abs(trained_loss - counted_loss) <= 0.05,
        }
    )
    if not passed:
        sys.exit(1)
