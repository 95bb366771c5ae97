#!/usr/bin/env python3
# %% [markdown]
# # Lab 06 (your version): a tiny transformer, trained to copy
#
# Everything so far, in one small model, trained on this CPU in seconds:
#
#     tokens -> token embedding + position embedding
#            -> block: x + attention(layer_norm(x)), then x + mlp(layer_norm(x))
#            -> layer_norm -> linear -> scores for the next token
#
# The task forces attention to look back. Each sequence is 6 random digits followed by the
# same 6 digits again, and the model predicts every next digit. The first half is pure chance;
# the repeat is certain, but only for a model that looks back to the right earlier position.
# A bigram (lab 03) cannot do it. The lab checks the accuracy on the repeated half of fresh
# sequences (at least 0.95), then draws the attention of the head that learned to copy with the
# workshop's own heatmap.
#
# Left out: dropout, weight tying, more than one block (this task needs one), and any GPU.

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 06. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 6 lab06-01.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 6 lab06-01.py`. The solved lab: `attention-by-hand lab run 6`.
# The steps sit under `if __name__ == "__main__":`, so that the checker can import your
# functions without running them.

# %%
import argparse
import io
import math
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

try:
    import torch
except ModuleNotFoundError:  # a Python without PyTorch: one line that says what to do instead
    print(
        f"{sys.argv[0]}: this lab needs PyTorch, which {sys.executable} does not have; run it with the "
        f"Python that has attention-by-hand: attention-by-hand lab run 6 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 6 FILE`) calls these three by name, on fixed and
# random inputs, and compares them with the reference lab. The model below is built from them.


# %%
def embed(tokens: torch.Tensor, token_embedding: nn.Embedding, position_embedding: nn.Embedding) -> torch.Tensor:
    """Each token's row plus its position's row.

    tokens: (..., T) integers  ->  (..., T, d_model)
    Attention itself is blind to order (it is a weighted sum); the position rows are how the
    model can tell "3 positions back" from "5 positions back".
    """
    T = tokens.shape[-1]
    return token_embedding(tokens) + position_embedding.weight[-T:]


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Normalise each token's vector to mean 0 and variance 1, then scale and shift it.

    x: (..., d_model); weight, bias: (d_model,)  ->  (..., d_model)
        y = (x - mean) / sqrt(var + eps) * weight + bias,  mean and var over the LAST axis
    """
    mu = x.mean(-1, keepdim=True)
    d = x - mu
    var = d.pow(2).mean(-1, keepdim=True)
    return d / (var + eps).sqrt() * weight + bias


def block_forward(x: torch.Tensor, ln1: nn.Module, attn: nn.Module, ln2: nn.Module, mlp: nn.Module) -> torch.Tensor:
    """One transformer block, pre-norm: two residual branches, each normalised on the way in.

    x: (..., T, d_model)  ->  (..., T, d_model)
        x = x + attn(ln1(x))     tokens talk to each other
        x = x + mlp(ln2(x))      each token thinks on its own
    """
    h = x + attn(ln1(x))
    return h + mlp(ln2(h))


# %% [markdown]
# ## The model, built from those functions


# %%
@dataclass(frozen=True)
class Config:
    """Sizes and schedule. Small enough for a laptop CPU, large enough to learn the copy."""

    vocab_size: int = 10  # the digits 0-9
    half: int = 6  # random digits, then the same again: sequences of 12, inputs of 11
    d_model: int = 32
    n_heads: int = 2  # head_size 16
    batch_size: int = 64
    learning_rate: float = 3e-3  # AdamW; held-out accuracy passes 0.95 by step 40-50 (seeds 1-8, measured)
    steps: int = 500  # the full schedule, for a smooth loss curve; about 0.6 s per 100 steps on one core
    quick_steps: int = 150  # --quick (CI): three times the steps the copy needs, same accuracy check
    log_every: int = 50
    seed: int = 6

    @property
    def context(self) -> int:
        """Input length: the whole sequence but its last token (nothing left to predict after it)."""
        return 2 * self.half - 1


class LayerNorm(nn.Module):
    """nn.LayerNorm's parameters around the hand-written `layer_norm`."""

    def __init__(self, d_model: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))  # (d_model,): start as the identity scale
        self.bias = nn.Parameter(torch.zeros(d_model))  # (d_model,)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return layer_norm(x, self.weight, self.bias)


class CausalSelfAttention(nn.Module):
    """Lab 05's multi-head attention, batched; keeps its last weights so the lab can draw them."""

    def __init__(self, config: Config):
        super().__init__()
        self.n_heads = config.n_heads
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model, bias=False)  # query, key, value in one
        self.proj = nn.Linear(config.d_model, config.d_model)
        hidden = torch.triu(torch.ones(config.context, config.context, dtype=torch.bool), diagonal=1)
        self.register_buffer("hidden", hidden)  # (T, T), True = a later token
        self.last_weights = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        head_size = C // self.n_heads
        q, k, v = self.qkv(x).split(C, dim=-1)  # (B, T, C) each
        q, k, v = (t.view(B, T, self.n_heads, head_size).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        scores = q @ k.transpose(-2, -1) / math.sqrt(head_size)  # (B, nh, T, T)
        weights = torch.softmax(scores.masked_fill(self.hidden[:T, :T], float("-inf")), dim=-1)  # (B, nh, T, T)
        self.last_weights = weights.detach()
        heads = (weights @ v).transpose(1, 2).reshape(B, T, C)  # (B, T, C): heads side by side
        return self.proj(heads)


class Block(nn.Module):
    """Attention, then a two-layer MLP, each in a residual branch (see `block_forward`)."""

    def __init__(self, config: Config):
        super().__init__()
        d = config.d_model
        self.ln1, self.attn = LayerNorm(d), CausalSelfAttention(config)
        self.ln2, self.mlp = LayerNorm(d), nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return block_forward(x, self.ln1, self.attn, self.ln2, self.mlp)


class TinyTransformer(nn.Module):
    """Embeddings, one block, a final layer norm and a linear layer to next-token scores."""

    def __init__(self, config: Config):
        super().__init__()
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position_embedding = nn.Embedding(config.context, config.d_model)
        self.block = Block(config)
        self.ln_f = LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens: (B, T)  ->  logits: (B, T, vocab_size)"""
        x = embed(tokens, self.token_embedding, self.position_embedding)  # (B, T, d_model)
        return self.head(self.ln_f(self.block(x)))  # (B, T, vocab_size)


def copy_batch(config: Config, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n sequences of `half` random digits written twice -> (inputs, targets), both (n, context).

    targets[:, t] = the digit after inputs[:, t]; from t = half - 1 on, it is a repeat.
    """
    first = torch.randint(0, config.vocab_size, (n, config.half), generator=generator)  # (n, half)
    sequence = torch.cat([first, first], dim=1)  # (n, 2 half)
    return sequence[:, :-1], sequence[:, 1:]  # (n, context) each


def repeat_accuracy(model: TinyTransformer, config: Config, inputs: torch.Tensor, targets: torch.Tensor) -> float:
    """The fraction of next digits guessed right on the repeated half (the only predictable part)."""
    with torch.no_grad():
        guesses = model(inputs).argmax(dim=-1)  # (n, context)
    repeat = slice(config.half - 1, None)
    return (guesses[:, repeat] == targets[:, repeat]).float().mean().item()


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


def default_out() -> Path:
    """out/ in the current folder: the learner's own, wherever the lab itself is installed."""
    return Path("out")


def parse_options(argv: list[str]) -> argparse.Namespace:
    """--quick and --out DIR. Unknown arguments are ignored: a notebook kernel passes its own."""
    parser = argparse.ArgumentParser(description="Lab 06: train a tiny transformer to copy, draw its attention.")
    parser.add_argument("--quick", action="store_true", help="train the short schedule (CI); same accuracy check")
    parser.add_argument(
        "--out", type=Path, default=default_out(), help=f"folder for the figure (default: {default_out()})"
    )
    return parser.parse_known_args(argv)[0]


# %% [markdown]
# ## Step 1: the task

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    options = parse_options(sys.argv[1:])
    config = Config()
    # The matrices are tiny (64 x 11 tokens of width 32), so a second thread buys little and
    # costs a lot when the CPU is shared. Measured on the 2-core workshop machine: idle, 2.9 s
    # to train on one thread and 2.7 s on two; busy with other work, 6 s on one and 12 s on two.
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    train_generator = torch.Generator().manual_seed(config.seed + 1)
    held_out_inputs, held_out_targets = copy_batch(config, 1000, torch.Generator().manual_seed(config.seed + 2))
    example = torch.cat([held_out_inputs[0], held_out_targets[0, -1:]]).tolist()
    step(
        1,
        f"task: {config.half} random digits, then the same again, e.g. {' '.join(map(str, example))}; "
        f"predict each next digit; 1000 held-out sequences from another seed",
    )

# %% [markdown]
# ## Step 2: the model

# %%
if __name__ == "__main__":
    model = TinyTransformer(config)
    n_parameters = sum(p.numel() for p in model.parameters())
    untrained = repeat_accuracy(model, config, held_out_inputs, held_out_targets)
    step(
        2,
        f"TinyTransformer: d_model {config.d_model}, {config.n_heads} heads, 1 block, context {config.context}: "
        f"{n_parameters:,} parameters; untrained accuracy on the repeat {untrained:.2f} "
        f"(chance: {1 / config.vocab_size:.2f})",
    )

# %% [markdown]
# ## Step 3: train
#
# The loss counts only the repeated half: the first half is random, nothing there can be learned.

# %%
if __name__ == "__main__":
    steps = config.quick_steps if options.quick else config.steps
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    repeat = slice(config.half - 1, None)
    step(
        3,
        f"training {steps} steps ({'quick' if options.quick else 'full'} schedule), batches of "
        f"{config.batch_size}, AdamW lr {config.learning_rate:g}, on the CPU",
    )
    started = time.perf_counter()
    for i in range(1, steps + 1):
        inputs, targets = copy_batch(config, config.batch_size, train_generator)  # (B, context) each
        logits = model(inputs)  # (B, context, vocab_size)
        loss = F.cross_entropy(logits[:, repeat].reshape(-1, config.vocab_size), targets[:, repeat].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % config.log_every == 0 or i == 1:
            accuracy = repeat_accuracy(model, config, held_out_inputs, held_out_targets)
            print(f"    step {i:4d}: loss {loss.item():.4f}, held-out accuracy {accuracy:.3f}")
    seconds = time.perf_counter() - started
    final_loss = loss.item()
    step(4, f"trained {steps} steps in {seconds:.1f} s; final loss {final_loss:.4f}")

# %% [markdown]
# ## Step 5: held-out accuracy on the repeated half

# %%
if __name__ == "__main__":
    accuracy = repeat_accuracy(model, config, held_out_inputs, held_out_targets)
    step(5, f"held-out accuracy on the repeated half: {accuracy:.3f} (needs >= 0.95)")

# %% [markdown]
# ## Step 6: which head learned to copy?
#
# To predict the digit after position t of the repeat, the model must look at position
# t - half + 1 of the first half, where that digit was first written. A head's copy score is
# its average weight on exactly those cells.

# %%
if __name__ == "__main__":
    with torch.no_grad():
        model(held_out_inputs[:200])
    weights = model.block.attn.last_weights  # (200, n_heads, T, T)
    rows = torch.arange(config.half - 1, config.context)  # the positions whose next digit is a repeat
    sources = rows - config.half + 1  # where each of those digits first appeared
    copy_scores = weights[:, :, rows, sources].mean(dim=(0, 2))  # (n_heads,)
    copier = int(copy_scores.argmax())
    step(
        6,
        "copy score per head: "
        + ", ".join(f"head {h} {s:.2f}" for h, s in enumerate(copy_scores.tolist()))
        + f"; head {copier} copies",
    )

# %% [markdown]
# ## Step 7: draw that head's attention
#
# The workshop's heatmap: row = the token looking, column = the token looked at. The bright
# stripe half - 1 = 5 cells left of the diagonal is the copy: every token of the repeat looks at
# the token just after its own first appearance.

# %%
if __name__ == "__main__":
    from matplotlib.figure import Figure  # Figure, not pyplot: no window, no global state

    from attention_by_hand.run.atomic import write_atomic
    from attention_by_hand.run.figures import heatmap

    labels = [str(t) for t in held_out_inputs[0].tolist()]
    figure = Figure(figsize=(8.6, 8.2))
    heatmap(
        figure.subplots(),
        weights[0, copier].numpy(),
        labels,
        f"head {copier}: each digit of the repeat looks back {config.half - 1} places",
    )
    figure.tight_layout()
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=110, metadata={"Software": None})  # no version stamp: same bytes
    figure_path = options.out / "lab-06-copy-head.png"
    write_atomic(figure_path, png.getvalue())
    step(7, f"wrote {figure_path}")

# %% [markdown]
# ## Self-check

# %%
if __name__ == "__main__":
    passed = self_check(
        {
            "held-out accuracy on the repeat >= 0.95": accuracy >= 0.95,
            "the copying head puts most of its weight on the source (> 0.5)": copy_scores[copier].item() > 0.5,
            "no attention weight on a future token": bool((weights[:, :, model.block.attn.hidden] == 0).all()),
        }
    )
    if not passed:
        sys.exit(1)
