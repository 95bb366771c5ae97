#!/usr/bin/env python3
# %% [markdown]
# # Lab 07 (your version): where each word sits
#
# Attention is a weighted sum, and a sum does not care about order: without the causal mask,
# shuffling the tokens only shuffles the outputs. Everything a model knows about *where* a token
# sits has to be put in on purpose. Four ways:
#
#     learned      a trained table, one row per position, added to the token's vector (lab 06)
#     sinusoidal   a fixed table of sines and cosines, added the same way (the Transformer, 2017)
#     RoPE         no table: each query and key is rotated by an angle that grows with its position,
#                  so q . k depends only on how far apart the two tokens are (Su et al., 2021)
#     ALiBi        no table: a penalty on the scores that grows with the distance (Press et al., 2022)
#
# Then the lab asks the question ALiBi was invented for: trained on sequences of one length, what
# does each do with longer ones? It trains lab 06's model on lab 06's copy task five times (no
# positions, and each of the four), with the same seed and the same batches, and measures the
# accuracy on sequences 1.5 and 2 times longer than any it saw.
#
# Left out: relative position biases of T5 and Transformer-XL, stretching RoPE to longer contexts
# (position interpolation, NTK scaling, YaRN), models of more than one block, and any GPU.

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 07. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 7 lab07-05.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 7 lab07-05.py`. The solved lab: `attention-by-hand lab run 7`.
# The steps sit under `if __name__ == "__main__":`, so that the checker can import your
# functions without running them.

# %%
import argparse
import math
import sys
import time
import traceback
from dataclasses import dataclass

try:
    import torch
except ModuleNotFoundError:  # a Python without PyTorch: one line that says what to do instead
    print(
        f"{sys.argv[0]}: this lab needs PyTorch, which {sys.executable} does not have; run it with the "
        f"Python that has attention-by-hand: attention-by-hand lab run 7 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 7 FILE`) calls these six by name, on fixed and
# random inputs, and compares them with the reference lab. The models below are built from them.
#
# The sinusoidal table of "Attention Is All You Need", for position p and column pair i:
#
#     PE[p, 2i] = sin(p / base^(2i / d_model))      PE[p, 2i + 1] = cos(p / base^(2i / d_model))
#
# RoPE turns each pair of channels (a, b) of a query or key at position p by the angle p * theta_i:
#
#     (a, b) -> (a cos(p theta_i) - b sin(p theta_i),  a sin(p theta_i) + b cos(p theta_i)),
#     theta_i = base^(-2i / d),  i = 0 .. d/2 - 1
#
# ALiBi adds -slope * (i - j) to the score of query i on key j <= i: 0 for itself, more negative
# the farther back.


# %%
def hidden_future(T: int) -> torch.Tensor:
    """The causal mask of lab 04: True where query i would see a later key j > i.   -> (T, T) bool"""
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T)


def sinusoidal_table(n_positions: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The Transformer's fixed position table: sines in the even columns, cosines in the odd.

    -> (n_positions, d_model) float32, with d_model even:
        table[p, 2i] = sin(p / base^(2i / d_model)),  table[p, 2i + 1] = cos(p / base^(2i / d_model))
    Column pair i turns with position p at its own speed, from one radian per position (i = 0)
    down to almost nothing: every position gets a different row, and every value is in [-1, 1].
    """
    p = torch.arange(n_positions, dtype=torch.float32)
    i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angle = p[:, None] / torch.pow(base, i / d_model)
    return torch.dstack((angle.sin(), angle.cos())).view(n_positions, d_model)


def add_positions(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Each token's vector plus its position's row: what lab 06 did with a learned table.

    x: (..., T, d_model); table: (n_positions, d_model), n_positions >= T  ->  (..., T, d_model)
    Token t gets row t. The table may have more rows than there are tokens, never fewer.
    """
    T = x.shape[-2]
    return x + table.split(T)[0]


def rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary position embedding: rotate each channel pair of x by position * theta_i.

    x: (..., T, d) with d even; positions: (T,) the position of each row  ->  (..., T, d)
    This lab pairs the two HALVES: channel i turns with channel i + d/2 (GPT-NeoX, and Llama as
    Hugging Face implements it, with its `rotate_half`). The RoFormer paper, GPT-J and Meta's
    original Llama code pair neighbours instead, channel 2i with 2i + 1: the same rotations on
    other pairs, so weights trained with one convention are wrong under the other.
        theta_i = base^(-2i / d) for i = 0 .. d/2 - 1;  angle = position * theta_i
        out[i]         = x[i] cos(angle) - x[i + d/2] sin(angle)
        out[i + d/2]   = x[i] sin(angle) + x[i + d/2] cos(angle)
    """
    half = x.shape[-1] // 2
    theta = base ** (-2 * torch.arange(half, dtype=x.dtype) / x.shape[-1])
    angle = positions[:, None].to(x.dtype) * theta
    z = torch.complex(x[..., :half], x[..., half:]) * torch.polar(torch.ones_like(angle), angle)
    return torch.cat((z.real, z.imag), dim=-1)


def rope_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention with RoPE: rotate the queries and the keys (not the values), then attend.

    q, k, v: (..., T, head_size)  ->  out: (..., T, head_size)
        out = softmax(causal_mask(rope(q) @ rope(k)^T / sqrt(head_size))) @ v,  positions 0 .. T-1
    """
    T = q.shape[-2]
    pos = torch.arange(T)
    s = torch.einsum('...id,...jd->...ij', rope(q, pos), rope(k, pos)) / q.shape[-1] ** 0.5
    s = torch.where(hidden_future(T), float('-inf'), s)
    return torch.einsum('...ij,...jd->...id', torch.special.softmax(s, dim=-1), v)


def alibi_bias(T: int, slope: float) -> torch.Tensor:
    """ALiBi's penalty: -slope times how far back key j is from query i.   -> (T, T) float32

        bias[i, j] = -slope * (i - j)   for j <= i   (0 on the diagonal, more negative farther back)
    Above the diagonal (j > i) the causal mask hides the scores whatever is added; this one is 0 there.
    """
    return (torch.arange(T) - torch.arange(T).view(-1, 1)).tril().float().mul(slope)


def alibi_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, slope: float) -> torch.Tensor:
    """Causal attention with ALiBi: the penalty is added to the scaled scores, then mask, then softmax.

    q, k, v: (..., T, head_size)  ->  out: (..., T, head_size)
        out = softmax(causal_mask(q @ k^T / sqrt(head_size) + alibi_bias(T, slope))) @ v
    """
    T = q.shape[-2]
    s = torch.einsum('...id,...jd->...ij', q, q) / q.shape[-1] ** 0.5 + alibi_bias(T, slope)
    s = torch.where(hidden_future(T), float('-inf'), s)
    return torch.einsum('...ij,...jd->...id', torch.special.softmax(s, dim=-1), v)


# %% [markdown]
# ## Lab 06's model, with each way of saying where a token sits
#
# The same sizes as lab 06 (one block, two heads of 16, `nn.LayerNorm` now that lab 06 wrote it by
# hand); only the positions change. The copy task at a longer length repeats the same random
# digits more times: 6 digits, then the same 6, then again. The rule to learn (the next digit is
# the one 6 places back) stays the same at every length; only the positions are new.


# %%
SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")


@dataclass(frozen=True)
class Config:
    """Lab 06's sizes and task; the lengths to test; the schedule."""

    vocab_size: int = 10  # the digits 0-9
    half: int = 6  # 6 random digits, then the same again: lab 06's sequences of 12
    d_model: int = 32
    n_heads: int = 2  # head_size 16
    batch_size: int = 64
    learning_rate: float = 3e-3  # lab 06's
    steps: int = 500  # lab 06's full schedule, for each of the five models
    quick_steps: int = 200  # --quick: the positional models pass 0.95 by step 150 (seeds 1-8, measured)
    test_repeats: tuple[int, ...] = (2, 3, 4)  # sequences of 12 (trained), 18 (1.5x) and 24 (2x)
    held_out: int = 1000  # sequences per length
    seed: int = 7

    @property
    def context(self) -> int:
        """The training inputs' length: a sequence of 2 * half, but its last digit."""
        return 2 * self.half - 1

    @property
    def lengths(self) -> tuple[int, ...]:
        """The sequence lengths tested; the first is the one trained on."""
        return tuple(self.half * r for r in self.test_repeats)


def alibi_slopes(n_heads: int) -> list[float]:
    """One slope per head, a geometric sequence from 2^(-8 / n_heads) (the ALiBi paper's choice)."""
    return [2 ** (-8 * (h + 1) / n_heads) for h in range(n_heads)]


class Attention(nn.Module):
    """Causal multi-head attention that applies `scheme` inside the head (RoPE, ALiBi) or not at all."""

    def __init__(self, config: Config, scheme: str):
        super().__init__()
        self.n_heads, self.scheme = config.n_heads, scheme
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model, bias=False)
        self.proj = nn.Linear(config.d_model, config.d_model)
        self.slopes = alibi_slopes(config.n_heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)  # (B, T, C) each
        q, k, v = (t.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        if self.scheme == "rope":
            heads = rope_attention(q, k, v)  # (B, nh, T, hs)
        elif self.scheme == "alibi":
            # Each head has its own slope: a steep one looks near, a gentle one far.
            heads = torch.stack(
                [alibi_attention(q[:, h], k[:, h], v[:, h], slope) for h, slope in enumerate(self.slopes)], dim=1
            )  # (B, nh, T, hs)
        else:
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, nh, T, hs): lab 04's head
        return self.proj(heads.transpose(1, 2).reshape(B, T, C))  # (B, T, C)


class Block(nn.Module):
    """Lab 06's block: x + attention(layer_norm(x)), then x + mlp(layer_norm(x))."""

    def __init__(self, config: Config, scheme: str):
        super().__init__()
        d = config.d_model
        self.ln1, self.attn = nn.LayerNorm(d), Attention(config, scheme)
        self.ln2, self.mlp = nn.LayerNorm(d), nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))  # (B, T, d_model)
        return x + self.mlp(self.ln2(x))  # (B, T, d_model)


class PositionsModel(nn.Module):
    """Lab 06's tiny transformer, with the positions of `scheme` (one of SCHEMES)."""

    def __init__(self, config: Config, scheme: str):
        super().__init__()
        self.scheme = scheme
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        if scheme == "learned":
            # One row per position trained on, and no more: there is nothing to learn a row from.
            self.position_embedding = nn.Embedding(config.context, config.d_model)
        if scheme == "sinusoidal":
            longest = max(config.lengths) - 1  # the longest input tested
            self.register_buffer("table", sinusoidal_table(longest, config.d_model))  # (longest, d_model)
        self.block = Block(config, scheme)
        self.ln_f = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens: (B, T)  ->  logits: (B, T, vocab_size)"""
        x = self.token_embedding(tokens)  # (B, T, d_model)
        if self.scheme == "learned":
            x = add_positions(x, self.position_embedding.weight)  # (B, T, d_model)
        elif self.scheme == "sinusoidal":
            x = add_positions(x, self.table)  # (B, T, d_model)
        return self.head(self.ln_f(self.block(x)))  # (B, T, vocab_size)


def copy_sequences(
    config: Config, n: int, length: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """n sequences of `half` random digits, written length / half times -> (inputs, targets).

    inputs, targets: (n, length - 1) each; targets[:, t] is the digit after inputs[:, t]. At length
    2 * half this is lab 06's task exactly. From position half on, each digit is the one half places back.
    """
    first = torch.randint(0, config.vocab_size, (n, config.half), generator=generator)  # (n, half)
    sequence = first.repeat(1, length // config.half)  # (n, length)
    return sequence[:, :-1], sequence[:, 1:]  # (n, length - 1) each


def accuracy(model: PositionsModel, config: Config, inputs: torch.Tensor, targets: torch.Tensor) -> float:
    """The fraction of predictable digits guessed right: every target from position half on."""
    with torch.no_grad():
        guesses = model(inputs).argmax(dim=-1)  # (n, T)
    predictable = slice(config.half - 1, None)
    return (guesses[:, predictable] == targets[:, predictable]).float().mean().item()


def train(config: Config, scheme: str, steps: int) -> tuple[PositionsModel, float]:
    """A model of `scheme` trained on the copy task at lab 06's length -> (model, final loss).

    The same seed for every scheme: the same batches, and the same first weights where the
    models share them.
    """
    torch.manual_seed(config.seed)
    model = PositionsModel(config, scheme)
    batches = torch.Generator().manual_seed(config.seed + 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    predictable = slice(config.half - 1, None)
    for _ in range(steps):
        inputs, targets = copy_sequences(config, config.batch_size, config.lengths[0], batches)  # (B, context)
        logits = model(inputs)  # (B, context, vocab_size)
        loss = F.cross_entropy(
            logits[:, predictable].reshape(-1, config.vocab_size), targets[:, predictable].reshape(-1)
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model, loss.item()


@dataclass(frozen=True)
class Trained:
    """One scheme's model, trained and tested."""

    scheme: str
    seconds: float  # to train it
    final_loss: float
    accuracies: dict[int, float | None]  # sequence length -> accuracy; None where it has no row for a position
    causal: bool  # whether changing the last token left every earlier prediction alone


def is_causal(model: PositionsModel, config: Config, inputs: torch.Tensor) -> bool:
    """Change the last token of each input: no prediction before it may move.   inputs: (n, T)"""
    changed = inputs.clone()
    changed[:, -1] = (changed[:, -1] + 1) % config.vocab_size
    with torch.no_grad():
        before, after = model(inputs)[:, :-1], model(changed)[:, :-1]  # (n, T - 1, vocab_size) each
    return torch.allclose(before, after, atol=1e-5)


def compare(config: Config, steps: int):
    """Train one model per scheme, the same way, and test each at every length: yields a Trained
    per scheme, as each is done."""
    held_out = {}
    generator = torch.Generator().manual_seed(config.seed + 2)
    for length in config.lengths:
        held_out[length] = copy_sequences(config, config.held_out, length, generator)  # (n, length - 1) each
    for scheme in SCHEMES:
        started = time.perf_counter()
        model, loss = train(config, scheme, steps)
        seconds = time.perf_counter() - started
        accuracies = {}
        for length, (inputs, targets) in held_out.items():
            no_row = scheme == "learned" and inputs.shape[-1] > config.context
            accuracies[length] = None if no_row else accuracy(model, config, inputs, targets)
        causal = is_causal(model, config, held_out[config.lengths[0]][0][:100])
        yield Trained(scheme, seconds, loss, accuracies, causal)


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


def parse_options(argv: list[str]) -> argparse.Namespace:
    """--quick. Unknown arguments are ignored: a notebook kernel passes its own."""
    parser = argparse.ArgumentParser(description="Lab 07: positions, and five models trained short, tested long.")
    parser.add_argument("--quick", action="store_true", help="train the short schedule (CI); same checks")
    return parser.parse_known_args(argv)[0]


# %% [markdown]
# ## Step 1: the sinusoidal table
#
# Eight positions, d_model = 8. Read down a column: the first pair turns by a radian per
# position, each later pair more slowly, so no two rows are the same.

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    options = parse_options(sys.argv[1:])
    config = Config()
    # Tiny matrices: a second thread buys little and costs a lot on a shared CPU (lab 06 measured it).
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    table = sinusoidal_table(8, 8)  # (8, 8)
    step(
        1,
        f"sinusoidal_table(8, 8): shape {tuple(table.shape)}, row p = position p; "
        f"largest |value| {table.abs().max().item():.3f}",
    )
    show(table, [f"p{p}" for p in range(8)])

# %% [markdown]
# ## Step 2: add it to the tokens
#
# The same token four times: one vector before, four different vectors after.

# %%
if __name__ == "__main__":
    x = torch.randn(1, 8).repeat(4, 1)  # (T=4, d_model): one token's vector, four times
    placed = add_positions(x, table)  # (4, d_model)
    step(
        2,
        f"the same token at positions 0 and 3: {(x[3] - x[0]).norm().item():.3f} apart before, "
        f"{(placed[3] - placed[0]).norm().item():.3f} after add_positions",
    )

# %% [markdown]
# ## Step 3: RoPE sees distances, not places
#
# Rotate a query as if it sat at position m and a key as if at n: their dot product depends
# only on m - n. The same distance the other way round, (n, m), is a different score.

# %%
if __name__ == "__main__":
    head_size = config.d_model // config.n_heads
    q1, k1 = torch.randn(1, head_size), torch.randn(1, head_size)  # (1, head_size): one query, one key

    def rotated_score(m: int, n: int) -> float:
        """The score of q1 placed at position m on k1 placed at position n."""
        return (rope(q1, torch.tensor([m])) @ rope(k1, torch.tensor([n])).T).item()

    pairs = [(2, 0), (7, 5), (19, 17), (0, 2)]
    rotated = {pair: rotated_score(*pair) for pair in pairs}
    step(
        3,
        "q . k after rope, at (m, n) = "
        + ", ".join(f"({m}, {n}): {s:.4f}" for (m, n), s in rotated.items())
        + f"; before rope: {(q1 @ k1.T).item():.4f}",
    )
    length_kept = torch.allclose(rope(q1, torch.tensor([9])).norm(), q1.norm(), atol=1e-5)

# %% [markdown]
# ## Step 4: attention with RoPE
#
# PyTorch's attention on the rotated queries and keys must give the same output.

# %%
if __name__ == "__main__":
    T = 6
    q, k, v = (torch.randn(T, head_size) for _ in range(3))  # (T, head_size) each
    positions = torch.arange(T)  # (T,)
    expected = F.scaled_dot_product_attention(rope(q, positions), rope(k, positions), v, is_causal=True)
    rope_difference = (rope_attention(q, k, v) - expected).abs().max().item()
    step(
        4,
        "rope_attention vs F.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True): "
        f"max |difference| = {rope_difference:.1e}",
    )

# %% [markdown]
# ## Step 5: ALiBi's penalty
#
# Row i is query i, column j is key j: nothing on the diagonal, a little more off each step back.
# Above the diagonal the mask will hide everything.

# %%
if __name__ == "__main__":
    bias = alibi_bias(5, 0.5)  # (5, 5)
    step(
        5,
        f"alibi_bias(5, slope 0.5); the model's {config.n_heads} heads will use the slopes "
        + ", ".join(f"{s:g}" for s in alibi_slopes(config.n_heads)),
    )
    show(bias, [f"q{i}" for i in range(5)])

# %% [markdown]
# ## Step 6: attention with ALiBi
#
# PyTorch's attention, given the penalty with the future set to -inf as its mask, must agree.

# %%
if __name__ == "__main__":
    slope = 0.5
    float_mask = alibi_bias(T, slope).masked_fill(hidden_future(T), float("-inf"))  # (T, T)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
    alibi_difference = (alibi_attention(q, k, v, slope) - expected).abs().max().item()
    step(
        6,
        "alibi_attention vs F.scaled_dot_product_attention(q, k, v, attn_mask=penalty, future -inf): "
        f"max |difference| = {alibi_difference:.1e}",
    )

# %% [markdown]
# ## Step 7: train short, test long
#
# Every model trains on lab 06's sequences and is tested on 1000 new sequences of each length.

# %%
if __name__ == "__main__":
    example, _ = copy_sequences(config, 1, config.lengths[-1], torch.Generator().manual_seed(config.seed + 3))
    step(
        7,
        f"trained on sequences of {config.lengths[0]} (inputs of {config.context}: positions 0-{config.context - 1}); "
        f"tested at lengths {', '.join(map(str, config.lengths))}; "
        f"one of {config.lengths[-1]}: {' '.join(map(str, example[0].tolist()))} ...",
    )

# %% [markdown]
# ## Step 8: five models, the same seed, the same batches
#
# Several seconds each on a CPU (benchmarks/positions_length.py times them). "causal" checks
# that no model peeks at a later token: changing the last digit must leave every earlier
# prediction as it was.

# %%
if __name__ == "__main__":
    steps = config.quick_steps if options.quick else config.steps
    step(
        8,
        f"training {len(SCHEMES)} models, {steps} steps each ({'quick' if options.quick else 'full'} schedule), "
        f"batches of {config.batch_size}, AdamW lr {config.learning_rate:g}, seed {config.seed}",
    )
    started = time.perf_counter()
    results = {}
    for trained in compare(config, steps):
        results[trained.scheme] = trained
        print(
            f"    {trained.scheme:<10} {trained.seconds:5.1f} s, final loss {trained.final_loss:.4f}, "
            f"accuracy at {config.lengths[0]}: {trained.accuracies[config.lengths[0]]:.3f}, "
            f"causal: {'yes' if trained.causal else 'NO'}"
        )
    total_seconds = time.perf_counter() - started

# %% [markdown]
# ## Step 9: accuracy at each length
#
# The accuracy counts every digit that can be predicted: all of them after the first six. A
# learned table has no row past the positions it was trained on, so that model cannot be run on a
# longer sequence at all. What do the others do with positions they never saw? And what can a
# one-block model do with ALiBi, whose penalty only says "nearer is better", when the digit it
# needs sits exactly six places back?

# %%
if __name__ == "__main__":
    step(9, f"accuracy on the predictable digits, by sequence length (the five models took {total_seconds:.1f} s)")
    print("    " + f"{'scheme':<10}" + "".join(f"{f'{n} ({n / config.lengths[0]:g}x)':>12}" for n in config.lengths))
    for scheme, trained in results.items():
        cells = ["n/a" if a is None else f"{a:.3f}" for a in trained.accuracies.values()]
        print("    " + f"{scheme:<10}" + "".join(f"{c:>12}" for c in cells))
    print(f"    n/a: no row for position {config.context}; the learned table has rows 0-{config.context - 1} only")

# %% [markdown]
# ## Self-check
#
# Invariants of the functions, and training that worked: every model is causal, and the three
# whose positions reach the queries and keys learn the copy at the length they trained on. What
# happens at the longer lengths is the experiment's result, not an invariant: it is not checked.

# %%
if __name__ == "__main__":
    row_zero = torch.tensor([0.0, 1.0] * 4)  # sin 0 = 0, cos 0 = 1, spelled out: not from the function checked
    lower = torch.tril(torch.ones(5, 5, dtype=torch.bool), diagonal=-1)  # (5, 5), True where j < i
    trained_length = config.lengths[0]
    passed = self_check(
        {
            "every sinusoidal value is in [-1, 1]": bool((table.abs() <= 1).all()),
            "the sinusoidal row of position 0 is (0, 1, 0, 1, ...)": torch.allclose(table[0], row_zero),
            "RoPE's q . k depends on m - n only (within 1e-4)": all(
                abs(rotated[pair] - rotated[(2, 0)]) <= 1e-4 for pair in [(7, 5), (19, 17)]
            ),
            "RoPE keeps a vector's length": length_kept,
            "rope_attention matches PyTorch within 1e-5": rope_difference <= 1e-5,
            "ALiBi's penalty is 0 on the diagonal and negative below it": bool(
                (bias.diagonal() == 0).all() and (bias[lower] < 0).all()
            ),
            "alibi_attention matches PyTorch within 1e-5": alibi_difference <= 1e-5,
            "every model is causal": all(trained.causal for trained in results.values()),
            f"learned, sinusoidal and RoPE reach >= 0.95 at length {trained_length}": all(
                results[s].accuracies[trained_length] >= 0.95 for s in ("learned", "sinusoidal", "rope")
            ),
        }
    )
    if not passed:
        sys.exit(1)
