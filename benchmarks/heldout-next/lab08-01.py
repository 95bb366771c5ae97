#!/usr/bin/env python3
# %% [markdown]
# # Lab 08 (your version): the KV cache, one word at a time
#
# A language model writes one word at a time, and each new word attends to every word before
# it. Run naively, each step feeds the whole sequence so far back through the model: at step t
# every earlier word's key and value are computed again, though none of them changed (the mask
# keeps a word from ever seeing later words, so its key and value never depend on them).
#
# The cure is to keep them. Each attention layer holds a **cache**: the keys and values of the
# words so far, `(B, heads, T, head_size)`, and grows it by one position per step. A step then
# computes the query, key and value of the ONE new word, appends the key and value to the
# cache, and lets the new word's query meet every cached key:
#
#     q, k, v = qkv(x_new)                       one word: (B, heads, 1, head_size)
#     keys, values = cache + (k, v)              along the time axis: (B, heads, position + 1, head_size)
#     out = softmax(q @ keys^T / sqrt(head_size)) @ values
#
# Two things about the new word must be right, though it comes alone. Its **position**: it is
# word number `position`, not word 0 (lab 06's `torch.arange(T)` says 0 when T = 1). And its
# row of the causal **mask**: row `position`, which over the `position + 1` keys in the cache
# hides nothing. Lab 06's slice `hidden[:T_q, :T_k]` with one query is row 0 instead, and the
# new word would see the first word only.
#
# The lab compares every step with the model run without a cache on the whole sequence, and
# counts the multiply-adds the cache saves, and the memory it costs.
#
# Left out: a cache preallocated to a maximum length, several sequences of different lengths in
# one batch, sampling (the lab takes the most likely word), and evicting old words.

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 08. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 8 lab08-01.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 8 lab08-01.py`. The solved lab: `attention-by-hand lab run 8`.
# The steps sit under `if __name__ == "__main__":`, so that the checker can import your
# functions without running them.

# %%
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
        f"Python that has attention-by-hand: attention-by-hand lab run 8 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

# %% [markdown]
# ## The functions you write
#
# The checker (`attention-by-hand lab check 8 FILE`) calls these three by name, on fixed and
# random inputs, and compares them with the reference lab. The model's cached path below is
# built from them; its uncached path is not, so the two can be compared.


# %%
def embed_at(
    tokens: torch.Tensor, start: int, token_embedding: nn.Embedding, position_embedding: nn.Embedding
) -> torch.Tensor:
    """Each token's row plus its position's row, for tokens that begin at position `start`.

    tokens: (B, T) integers, the words at positions start, start + 1, ..., start + T - 1
    ->  (B, T, d_model)
    Lab 06's `embed` with a start: the whole sequence is start = 0; one new word is T = 1 at
    start = its position in the sequence.
    """
    T = tokens.shape[-1]
    return token_embedding(tokens[..., -1:]) + position_embedding(torch.arange(T) + start)


def append_to_cache(
    cache: tuple[torch.Tensor, torch.Tensor], k_new: torch.Tensor, v_new: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The cache with the new words' keys and values added after the ones it holds.

    cache: (keys, values), each (B, heads, T, head_size), oldest position first
    k_new, v_new: (B, heads, T_new, head_size)
    ->  (keys, values), each (B, heads, T + T_new, head_size)
    """
    return tuple(torch.cat(pair, dim=-2) for pair in zip(cache, (k_new, v_new)))


def decode_step(
    x_new: torch.Tensor,
    cache: tuple[torch.Tensor, torch.Tensor],
    position: int,
    qkv: nn.Linear,
    proj: nn.Linear,
    n_heads: int,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """One attention layer for ONE new word, given the cache of the words before it.

    x_new: (B, 1, d_model), the new word's input to the layer
    cache: (keys, values), each (B, n_heads, position, head_size): the words 0 .. position - 1
    position: where the new word sits (= the number of words already cached)
    qkv: nn.Linear(d_model, 3 * d_model), query, key and value side by side; proj: nn.Linear(d_model, d_model)
    ->  out: (B, 1, d_model), the same as row `position` of the layer run on all position + 1 words;
        cache: the cache with the new word's key and value appended
    """
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = (t.swapaxes(1, 2) for t in qkv(x_new).view(B, 1, 3, n_heads, hs).unbind(2))
    keys, values = append_to_cache(cache, k, v)
    s = torch.einsum('bhqd,bhkd->bhqk', q, keys) / hs ** 0.5
    w = torch.special.softmax(s, dim=-1)
    out = torch.einsum('bhqk,bhkd->bhqd', w, values).swapaxes(1, 2).reshape(B, 1, C)
    return proj(out), (keys, values)


# %% [markdown]
# ## The model: two blocks, run two ways
#
# `forward` is lab 06's model on a whole sequence, with no cache and none of the functions
# above: the yardstick. `forward_cached` takes one word and the caches (one per block), and
# uses `embed_at` and `decode_step`.


# %%
@dataclass(frozen=True)
class Config:
    """Sizes and schedule: lab 06's copy task, with two blocks, so that there are two caches."""

    vocab_size: int = 10  # the digits 0-9
    half: int = 6  # random digits, then the same again: sequences of 12, inputs of 11
    d_model: int = 32
    n_heads: int = 2  # head_size 16
    n_blocks: int = 2
    batch_size: int = 64
    learning_rate: float = 3e-3  # AdamW, as lab 06
    # Two blocks copy every held-out digit by step 50 (seeds 1, 2 and 8, measured); 100 steps
    # take a few seconds on one core. The cache is checked against the uncached model, trained or not.
    steps: int = 100
    seed: int = 8

    @property
    def context(self) -> int:
        """Input length: the whole sequence but its last token (nothing left to predict after it)."""
        return 2 * self.half - 1

    @property
    def head_size(self) -> int:
        return self.d_model // self.n_heads


Cache = tuple[torch.Tensor, torch.Tensor]  # (keys, values), each (B, n_heads, T, head_size)


def empty_cache(B: int, config: Config) -> Cache:
    """No words yet: keys and values with a time axis of length 0, ready to grow along it."""
    nothing = torch.zeros(B, config.n_heads, 0, config.head_size)  # (B, nh, 0, hs)
    return nothing, nothing.clone()


class CausalSelfAttention(nn.Module):
    """Lab 06's multi-head attention on a whole sequence; `decode_step` is its one-word form."""

    def __init__(self, config: Config):
        super().__init__()
        self.n_heads = config.n_heads
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model, bias=False)  # query, key, value in one
        self.proj = nn.Linear(config.d_model, config.d_model)
        hidden = torch.triu(torch.ones(config.context, config.context, dtype=torch.bool), diagonal=1)
        self.register_buffer("hidden", hidden)  # (context, context), True = a later token

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        head_size = C // self.n_heads
        q, k, v = self.qkv(x).split(C, dim=-1)  # (B, T, C) each
        q, k, v = (t.view(B, T, self.n_heads, head_size).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        scores = q @ k.transpose(-2, -1) / math.sqrt(head_size)  # (B, nh, T, T)
        weights = torch.softmax(scores.masked_fill(self.hidden[:T, :T], float("-inf")), dim=-1)  # (B, nh, T, T)
        return self.proj((weights @ v).transpose(1, 2).reshape(B, T, C))  # (B, T, C)

    def forward_cached(self, x_new: torch.Tensor, cache: Cache, position: int) -> tuple[torch.Tensor, Cache]:
        return decode_step(x_new, cache, position, self.qkv, self.proj, self.n_heads)


class Block(nn.Module):
    """Pre-norm: x + attention(layer_norm(x)), then x + mlp(layer_norm(x)), as in lab 06."""

    def __init__(self, config: Config):
        super().__init__()
        d = config.d_model
        self.ln1, self.attn = nn.LayerNorm(d), CausalSelfAttention(config)
        self.ln2, self.mlp = nn.LayerNorm(d), nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))  # (B, T, d_model)
        return x + self.mlp(self.ln2(x))

    def forward_cached(self, x_new: torch.Tensor, cache: Cache, position: int) -> tuple[torch.Tensor, Cache]:
        # Only attention looks at other words; layer norm and the MLP work on each word alone,
        # so for them one word is the same computation as that word's row of the whole sequence.
        out, cache = self.attn.forward_cached(self.ln1(x_new), cache, position)  # (B, 1, d_model)
        x = x_new + out
        return x + self.mlp(self.ln2(x)), cache


class TinyTransformer(nn.Module):
    """Embeddings, two blocks, a final layer norm and a linear layer to next-token scores."""

    def __init__(self, config: Config):
        super().__init__()
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position_embedding = nn.Embedding(config.context, config.d_model)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_blocks))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """No cache: tokens (B, T) -> logits (B, T, vocab_size), every word computed afresh."""
        positions = torch.arange(tokens.shape[-1])  # spelled out, not embed_at: the yardstick trusts nothing
        x = self.token_embedding(tokens) + self.position_embedding(positions)  # (B, T, d_model)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))  # (B, T, vocab_size)

    def forward_cached(self, token: torch.Tensor, caches: list[Cache], position: int):
        """One word: token (B, 1) at `position`, one cache per block -> (logits (B, 1, vocab_size), caches)."""
        x = embed_at(token, position, self.token_embedding, self.position_embedding)  # (B, 1, d_model)
        new_caches = []
        for block, cache in zip(self.blocks, caches):
            x, cache = block.forward_cached(x, cache, position)
            new_caches.append(cache)
        return self.head(self.ln_f(x)), new_caches


def copy_batch(config: Config, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n sequences of `half` random digits written twice -> (inputs, targets), both (n, context)."""
    first = torch.randint(0, config.vocab_size, (n, config.half), generator=generator)  # (n, half)
    sequence = torch.cat([first, first], dim=1)  # (n, 2 half)
    return sequence[:, :-1], sequence[:, 1:]  # (n, context) each


def train(model: TinyTransformer, config: Config, steps: int) -> float:
    """Lab 06's training on the repeated half, uncached (training sees whole sequences). -> last loss"""
    generator = torch.Generator().manual_seed(config.seed + 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    repeat = slice(config.half - 1, None)
    for _ in range(steps):
        inputs, targets = copy_batch(config, config.batch_size, generator)  # (B, context) each
        logits = model(inputs)  # (B, context, vocab_size)
        loss = F.cross_entropy(logits[:, repeat].reshape(-1, config.vocab_size), targets[:, repeat].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def multiply_adds(n_queries: int, n_keys: int, config: Config) -> int:
    """The multiply-adds of the model's matrix products for n_queries words against n_keys keys.

    Per block, each query word costs 3 d^2 (q, k, v) + d^2 (proj) + 8 d^2 (the MLP, d -> 4d -> d),
    and each (query, key) pair costs d for its score and d for its share of the weighted sum
    (over all heads together); the final layer costs d * vocab_size per word. Layer norms,
    softmax and embedding look-ups are left out: they are not matrix products.
    """
    d = config.d_model
    per_block = n_queries * 12 * d * d + 2 * n_queries * n_keys * d
    return config.n_blocks * per_block + n_queries * d * config.vocab_size


def counted_multiply_adds(run) -> int:
    """What torch itself counts for `run()`: FLOPs of its matrix products, 2 per multiply-add."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        run()
    return counter.get_total_flops() // 2


# %% [markdown]
# ## How the lab talks
#
# One `STEP n:` line per step; the last line is the self-check, and the script exits with
# status 1 when an invariant fails, so a shell or CI can tell.


# %%
def step(number: int, text: str) -> None:
    """Print one numbered step."""
    print(f"STEP {number}: {text}")


def show(rows: list[list], header: list[str]) -> None:
    """Print a small table, one line per row, right-aligned under its header."""
    widths = [max(len(str(v)) for v in column) for column in zip(header, *rows)]
    for row in [header, *rows]:
        print("    " + "  ".join(f"{str(v):>{w}}" for v, w in zip(row, widths)))


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
# ## Step 1: a model to generate with
#
# Lab 06's copy task: 6 random digits, then the same 6 again. A model that has learned it writes
# the repeat itself once it is given the first half, so the words it generates can be read.

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    config = Config()
    torch.set_num_threads(1)  # tiny matrices: a second thread costs more than it brings (lab 06)
    torch.manual_seed(config.seed)
    model = TinyTransformer(config)
    started = time.perf_counter()
    final_loss = train(model, config, config.steps)
    model.eval()
    torch.set_grad_enabled(False)  # from here on, only forward passes
    step(
        1,
        f"TinyTransformer: {config.n_blocks} blocks, d_model {config.d_model}, {config.n_heads} heads of "
        f"{config.head_size}; trained {config.steps} steps on the copy task in {time.perf_counter() - started:.1f} s, "
        f"final loss {final_loss:.3f}",
    )

# %% [markdown]
# ## Step 2: the cache grows along the time axis
#
# An empty cache has a time axis of length 0. Each word adds one position to it, at the end, and
# nothing else changes shape: place t on the time axis holds word t.

# %%
if __name__ == "__main__":
    B = 3
    cache = empty_cache(B, config)
    shapes = [tuple(cache[0].shape)]
    for _ in range(3):
        k_new = torch.randn(B, config.n_heads, 1, config.head_size)  # (B, nh, 1, hs)
        cache = append_to_cache(cache, k_new, -k_new)
        shapes.append(tuple(cache[0].shape))
    step(2, "append_to_cache, three words: keys " + " -> ".join(str(s) for s in shapes) + " = (B, heads, T, head_size)")

# %% [markdown]
# ## Step 3: one step, against the whole sequence
#
# The first block's attention, for the word at position 4 of one sequence: once through
# `decode_step` with the cache of words 0-3, once as row 4 of the layer run on words 0-4.

# %%
if __name__ == "__main__":
    inputs, _ = copy_batch(config, 1, torch.Generator().manual_seed(config.seed + 2))  # (1, context)
    attention, ln1 = model.blocks[0].attn, model.blocks[0].ln1
    x = ln1(model.token_embedding(inputs) + model.position_embedding(torch.arange(config.context)))  # (1, T, d)
    p = 4
    cache = empty_cache(1, config)
    for before in range(p):
        _, cache = decode_step(x[:, before : before + 1], cache, before, attention.qkv, attention.proj, config.n_heads)
    one, cache = decode_step(x[:, p : p + 1], cache, p, attention.qkv, attention.proj, config.n_heads)  # (1, 1, d)
    whole = attention(x[:, : p + 1])[:, p : p + 1]  # (1, 1, d): row p of the layer on words 0 .. p
    step_difference = (one - whole).abs().max().item()
    step(
        3,
        f"decode_step at position {p}: cache {tuple(cache[0].shape)}, out {tuple(one.shape)}; "
        f"vs row {p} of the whole sequence: max |difference| = {step_difference:.1e}",
    )

# %% [markdown]
# ## Step 4: generate, one word at a time, and compare every step
#
# Give the model the first half of a fresh sequence, then let it write the rest. Each step feeds
# ONE word, at its position, through `forward_cached`; the yardstick runs `forward` on the whole
# sequence so far and takes its last row. Float32 adds the same products in another order on
# the two paths, so they agree to about 1e-6, not exactly; the lab asks for 1e-4 on the logits
# (a wrong position, mask or cache moves them by far more).

# %%
if __name__ == "__main__":
    TOLERANCE = 1e-4
    sequence = torch.cat([inputs[0, : config.half]] * 2)  # (2 half,): the answer, to compare with
    written = inputs[:, :1]  # (1, 1): the first digit; the model reads the rest of the prompt, then writes
    caches = [empty_cache(1, config) for _ in range(config.n_blocks)]
    differences = []
    step(
        4,
        f"generate: the prompt is fed one word at a time, then the model writes {config.half} words; "
        "each step against the uncached model:",
    )
    for position in range(config.context):
        caches_before = caches  # kept for step 5, which counts one step's work
        logits, caches = model.forward_cached(written[:, -1:], caches, position)  # (1, 1, vocab_size)
        uncached = model(written)[:, -1:]  # (1, 1, vocab_size): the whole sequence again
        differences.append((logits - uncached).abs().max().item())
        # Inside the prompt the next word is given; after it, the model's own choice is fed back.
        given = position + 1 < config.half
        next_word = inputs[:, position + 1 : position + 2] if given else logits.argmax(dim=-1)  # (1, 1)
        written = torch.cat([written, next_word], dim=1)
    show(
        [
            [p, "prompt" if p + 1 < config.half else "model", int(written[0, p + 1]), f"{d:.1e}"]
            for p, d in enumerate(differences)
        ],
        ["position", "next word from", "next word", "max |cached - uncached| of the logits"],
    )

# %% [markdown]
# ## Step 5: what it wrote

# %%
if __name__ == "__main__":
    prompt = " ".join(str(t) for t in sequence[: config.half].tolist())
    generated = " ".join(str(t) for t in written[0, config.half :].tolist())
    step(
        5,
        f"prompt {prompt} -> generated {generated} "
        f"({'the copy' if torch.equal(written[0], sequence) else 'not the copy'}); largest difference "
        f"from the uncached model over {config.context} steps: {max(differences):.1e} (tolerance {TOLERANCE:g})",
    )

# %% [markdown]
# ## Step 6: what the cache saves
#
# Without a cache, step t runs all t + 1 words through every layer; with it, one word, whose
# query still meets all t + 1 keys. The formula (`multiply_adds`) is checked against torch's own
# count of the matrix products of the last step, both ways.

# %%
if __name__ == "__main__":
    n, last = config.context, config.context - 1
    uncached_total = sum(multiply_adds(t + 1, t + 1, config) for t in range(n))
    cached_total = sum(multiply_adds(1, t + 1, config) for t in range(n))
    counted = (
        counted_multiply_adds(lambda: model(written[:, :n])),
        counted_multiply_adds(lambda: model.forward_cached(written[:, last : last + 1], caches_before, last)),
    )
    formula = (multiply_adds(n, n, config), multiply_adds(1, n, config))
    LONG = 1024  # a context length of real models, for the formula only (this model stops at its context)
    long_ratio = sum(multiply_adds(t + 1, t + 1, config) for t in range(LONG)) / sum(
        multiply_adds(1, t + 1, config) for t in range(LONG)
    )
    step(
        6,
        f"multiply-adds to generate {n} words: uncached {uncached_total:,}, cached {cached_total:,} "
        f"({uncached_total / cached_total:.1f} times fewer); last step counted by torch: uncached "
        f"{counted[0]:,}, cached {counted[1]:,} (formula: {formula[0]:,}, {formula[1]:,}); at {LONG:,} "
        f"words the same sizes would save {long_ratio:.0f} times",
    )

# %% [markdown]
# ## Step 7: what the cache costs
#
# The saving is paid in memory: every block keeps a key and a value of d_model numbers for
# every word so far, for as long as the text is being written. It grows with the length, one
# position per word; the scores of one step are a single row.

# %%
if __name__ == "__main__":
    cache_bytes = sum(t.numel() * t.element_size() for cache in caches for t in cache)
    number_bytes = caches[0][0].element_size()  # 4: float32
    per_word = 2 * config.n_blocks * config.d_model * number_bytes
    step(
        7,
        f"caches after {n} words: {config.n_blocks} blocks x (keys, values) of {tuple(caches[0][0].shape)}: "
        f"{cache_bytes:,} bytes, {per_word:,} per word (2 x {config.n_blocks} blocks x d_model {config.d_model} "
        f"x {number_bytes} bytes)",
    )

# %% [markdown]
# ## Self-check
#
# The cached model must be the uncached one, step for step: the same logits within the
# tolerance, and the same words when it writes on its own. The uncached words are generated
# again here, with no cache at all: a check must not trust the functions it checks.

# %%
if __name__ == "__main__":
    alone = inputs[:, : config.half]  # (1, half): the prompt
    while alone.shape[1] < 2 * config.half:
        alone = torch.cat([alone, model(alone)[:, -1:].argmax(dim=-1)], dim=1)  # one word more, all recomputed
    passed = self_check(
        {
            f"one decode step equals row {p} of the whole sequence within {TOLERANCE:g}": step_difference
            <= TOLERANCE,
            f"every step's logits equal the uncached model's within {TOLERANCE:g}": max(differences) <= TOLERANCE,
            "the same words as generating without a cache": torch.equal(written, alone),
            "each cache holds (B, heads, words, head_size)": all(
                tuple(t.shape) == (1, config.n_heads, n, config.head_size) for cache in caches for t in cache
            ),
            "the multiply-add formula equals torch's count": counted == formula,
        }
    )
    if not passed:
        sys.exit(1)
