#!/usr/bin/env python3
"""Decoding word by word with a key/value cache against recomputing every word, measured on this CPU.

    python benchmarks/kv_cache.py               # print the measurements
    python benchmarks/kv_cache.py --write       # also write benchmarks/results/kv_cache.md
    python benchmarks/kv_cache.py --layers 6    # a shallower model, half the time (default: 12)

The model has GPT-2 small's shape (d_model 768, 12 heads of 64, an MLP of 3,072, 12 layers,
GPT-2's vocabulary of 50,257 words, pre-norm blocks, the output layer tied to the word
embeddings; --layers changes the depth, LAYERS below says why 12), and random weights drawn from a seeded generator with GPT-2's initial spread (0.02): nothing is
downloaded, and the times do not depend on what the weights say. After a 128-word prompt it
decodes 128 new words greedily (the highest logit each time), two ways:

- without a cache: each new word runs the whole model again on every word so far (128, then
  129, ... 255 words) and keeps the last position's logits;
- with a cache: the prompt runs once and leaves each layer's keys and values in the cache;
  each new word then runs the model on that one word, its query meeting the cached keys.

Reported: new words per second for each (the time includes the prompt's pass, which the first
new word needs either way), the speed-up, whether both chose the same 128 words, and the
largest difference between their logits. Times are the median of --repeat runs after a short
warm-up, the two ways taking turns. A benchmark reports and asserts nothing: the targets are
printed as met or missed.

What sets the pace of one cached step is measured, not assumed. One step at batch 1 is timed
against three reference times, each measured on this machine in the same run: reading every
byte of the weights once (a sum over them: the rate this machine streams memory), the step's
arithmetic at the rate of a large matmul, and the same step through a model of the same depth
and the same operations shrunk to a width of 12 (almost nothing to read or multiply: what the
operations cost on their own). And the step at batch 8: were reading the weights all that
counted, eight words would cost little more than one, since each weight read serves all eight.
"""

import os
import statistics
import sys
import time
from dataclasses import dataclass

from benchlib import RESULTS, ROOT, Parser, measured_on, positive, write

RESULT = RESULTS / "kv_cache.md"

PROMPT_WORDS, NEW_WORDS, SEED = 128, 128, 0
# All of GPT-2 small's 12 layers: on the quiet 2-core CPU the whole benchmark then stays under
# 2 minutes (recomputing is slow by design). With other processes busy it took half as long
# again in a trial; --layers 6 halves it.
LAYERS = 12
STEPS_TIMED = 32  # cached steps timed one by one, per run, for the pace of a step
BATCH = 8  # texts at once for the batch test: one weight read serves each of them
TINY_WIDTH = 12  # the near-empty model: 12 heads of 1 channel, an MLP of 4 x 12, a vocabulary of 64
MATMUL_SIDE = 2_048  # the arithmetic floor: a (2048, 2048) @ (2048, 2048) fp32 matmul's rate
MIN_SPEEDUP = 5.0  # target: the cache makes decoding at least this many times faster
MAX_LOGIT_DIFFERENCE = 1e-5  # target: both ways give the same logits to this
# As in benchmarks/attention_scale.py (which says why): libgomp's threads spin 1,000 turns, not
# 300,000, before they sleep, so that other processes on the 2 cores do not make a decoding step of
# small ops lose whole time slices. The user's own setting wins.
GOMP_SPINCOUNT = "1000"


@dataclass(frozen=True)
class Config:
    """GPT-2 small's shape, except the depth, which the benchmark chooses (--layers)."""

    n_layers: int = 12
    d_model: int = 768
    n_heads: int = 12  # d_head = 768 / 12 = 64
    d_mlp: int = 3_072  # 4 x d_model, as in GPT-2
    vocab: int = 50_257  # GPT-2's byte-pair vocabulary
    n_ctx: int = PROMPT_WORDS + NEW_WORDS  # positions this benchmark needs (GPT-2 has 1,024)


class TinyGPT:
    """A GPT-2-shaped decoder with random weights: the forward pass, with or without a cache.

    Shapes: B texts (1 here), n the words in this call, P the words already in the cache,
    H heads of d_head channels, d = d_model.
    """

    def __init__(self, config: Config, seed: int = SEED):
        import torch

        self.config = c = config
        g = torch.Generator().manual_seed(seed)

        def weight(*shape: int):  # GPT-2's initial spread; nothing here is trained
            return torch.randn(*shape, generator=g) * 0.02

        self.word_embedding = weight(c.vocab, c.d_model)  # (vocab, d), also the output layer (tied)
        self.position_embedding = weight(c.n_ctx, c.d_model)  # (n_ctx, d)
        self.layers = [
            {
                "qkv": weight(c.d_model, 3 * c.d_model), "qkv_bias": weight(3 * c.d_model),  # (d, 3d)
                "proj": weight(c.d_model, c.d_model), "proj_bias": weight(c.d_model),  # (d, d)
                "up": weight(c.d_model, c.d_mlp), "up_bias": weight(c.d_mlp),  # (d, 4d)
                "down": weight(c.d_mlp, c.d_model), "down_bias": weight(c.d_model),  # (4d, d)
            }  # fmt: skip
            for _ in range(c.n_layers)
        ]

    def weights(self) -> list:
        """Every weight tensor, the tied output layer once, as it is stored."""
        return [self.word_embedding, self.position_embedding, *(t for layer in self.layers for t in layer.values())]

    def weight_bytes(self) -> int:
        return sum(t.nbytes for t in self.weights())

    def step_flops(self) -> int:
        """FLOPs of one new word's products with the weight matrices (2 per weight; the output
        layer reads the whole word table); the attention over the cache, a few percent here, is left out."""
        c = self.config
        per_layer = 3 * c.d_model**2 + c.d_model**2 + 2 * c.d_model * c.d_mlp  # qkv, proj, up, down
        return 2 * (c.n_layers * per_layer + c.vocab * c.d_model)

    def new_cache(self, batch: int = 1) -> dict:
        """Room for every position's keys and values, in every layer, set aside up front."""
        import torch

        c = self.config
        shape = (c.n_layers, batch, c.n_heads, c.n_ctx, c.d_model // c.n_heads)  # (layers, B, H, n_ctx, d_head)
        return {"keys": torch.zeros(shape), "values": torch.zeros(shape), "length": 0}

    def logits(self, words, cache: dict | None = None):
        """Logits for the word after the last one.   words: (B, n) ids -> (B, vocab)

        Without a cache, `words` is the whole text so far. With one, `words` are the words after
        those already cached (the prompt first, then one word at a time); their keys and values
        are added to the cache.
        """
        import torch.nn.functional as F

        c = self.config
        B, n = words.shape
        start = cache["length"] if cache is not None else 0  # P: the words already in the cache
        if n > 1 and start > 0:
            raise ValueError("several new words after cached ones are not supported here")
        x = self.word_embedding[words] + self.position_embedding[start : start + n]  # (B, n, d)
        for i, w in enumerate(self.layers):
            h = F.layer_norm(x, (c.d_model,))  # pre-norm (a fresh model's gain 1 and shift 0)
            q, k, v = (h @ w["qkv"] + w["qkv_bias"]).split(c.d_model, dim=-1)  # (B, n, d) each
            q, k, v = (t.view(B, n, c.n_heads, -1).transpose(1, 2) for t in (q, k, v))  # (B, H, n, d_head)
            if cache is not None:
                cache["keys"][i, :, :, start : start + n] = k  # computed once, kept for every later word
                cache["values"][i, :, :, start : start + n] = v
                k = cache["keys"][i, :, :, : start + n]  # (B, H, P + n, d_head)
                v = cache["values"][i, :, :, : start + n]
            # A new word alone (n = 1) may see every cached word: no mask. Several words at once
            # (the prompt, or every word without a cache) start at position 0 and need the causal one.
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=n > 1)  # (B, H, n, d_head)
            x = x + heads.transpose(1, 2).reshape(B, n, c.d_model) @ w["proj"] + w["proj_bias"]  # (B, n, d)
            h = F.layer_norm(x, (c.d_model,))
            x = x + F.gelu(h @ w["up"] + w["up_bias"], approximate="tanh") @ w["down"] + w["down_bias"]
        if cache is not None:
            cache["length"] = start + n
        last = F.layer_norm(x[:, -1], (c.d_model,))  # (B, d): only the last position predicts the next word
        return last @ self.word_embedding.T  # (B, vocab)


def decode(model: TinyGPT, prompt, n_new: int, cached: bool):
    """Greedy decoding of n_new words after `prompt`.

    prompt: (B, P) ids -> new words: (B, n_new), their logits: (B, n_new, vocab), the cache's bytes (0 without)
    """
    import torch

    with torch.inference_mode():
        cache = model.new_cache(prompt.shape[0]) if cached else None
        words, unseen = prompt, prompt  # the text so far; the words the cache has not seen yet
        chosen, all_logits = [], []
        for _ in range(n_new):
            # Without a cache the model reads the whole text again; with one, only the unseen words.
            logits = model.logits(unseen if cached else words, cache)  # (B, vocab)
            next_word = logits.argmax(dim=-1, keepdim=True)  # (B, 1): greedy
            all_logits.append(logits)
            chosen.append(next_word)
            words, unseen = torch.cat([words, next_word], dim=1), next_word  # (B, P + steps), (B, 1)
        cache_bytes = cache["keys"].nbytes + cache["values"].nbytes if cached else 0
        return torch.cat(chosen, dim=1), torch.stack(all_logits, dim=1), cache_bytes


# --- what sets the pace of a cached step ---------------------------------------------------------


def cached_step_seconds(model: TinyGPT, prompt, repeat: int) -> float:
    """Median time of one cached step (one new word per text, after `prompt` is cached).   prompt: (B, P)"""
    import torch

    times = []
    with torch.inference_mode():
        for _ in range(repeat):
            cache = model.new_cache(prompt.shape[0])
            word = model.logits(prompt, cache).argmax(dim=-1, keepdim=True)  # (B, 1)
            for _ in range(STEPS_TIMED):
                started = time.perf_counter()
                logits = model.logits(word, cache)  # (B, vocab)
                times.append(time.perf_counter() - started)
                word = logits.argmax(dim=-1, keepdim=True)
    return statistics.median(times)


def stream_seconds(model: TinyGPT, repeat: int) -> float:
    """Median time to read every byte of the weights once: a sum over each tensor."""
    import torch

    times = []
    with torch.inference_mode():
        for _ in range(repeat + 1):  # the first pass warms up and is not kept
            started = time.perf_counter()
            for tensor in model.weights():
                tensor.sum()
            times.append(time.perf_counter() - started)
    return statistics.median(times[1:])


def matmul_rate(repeat: int) -> float:
    """FLOP/s of a (2048, 2048) @ (2048, 2048) fp32 matmul, median of `repeat` after a warm-up."""
    import torch

    a, b = torch.randn(MATMUL_SIDE, MATMUL_SIDE), torch.randn(MATMUL_SIDE, MATMUL_SIDE)
    a @ b
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - started)
    return 2 * MATMUL_SIDE**3 / statistics.median(times)


def measure_pace(model: TinyGPT, repeat: int) -> dict:
    """A cached step at batch 1 and at BATCH, and its three floors (see the module docstring)."""
    import torch

    c = model.config
    g = torch.Generator().manual_seed(SEED)
    one = torch.randint(0, c.vocab, (1, PROMPT_WORDS), generator=g)
    many = torch.randint(0, c.vocab, (BATCH, PROMPT_WORDS), generator=g)
    tiny = TinyGPT(Config(n_layers=c.n_layers, d_model=TINY_WIDTH, n_heads=TINY_WIDTH,
                          d_mlp=4 * TINY_WIDTH, vocab=64))  # fmt: skip
    step = cached_step_seconds(model, one, repeat)
    return {
        "step": step,
        "batch_step": cached_step_seconds(model, many, repeat),
        "stream": stream_seconds(model, repeat),
        "arithmetic": model.step_flops() / matmul_rate(repeat),
        "empty": cached_step_seconds(tiny, torch.zeros(1, PROMPT_WORDS, dtype=torch.long), repeat),
        "flops": model.step_flops(),
    }


def pace_report(pace: dict, weight_bytes: int) -> list[str]:
    """The pace measurements as a table and the sentences they support, chosen by the numbers."""
    step = pace["step"]
    floors = {  # each a lower bound on one cost of the step, measured on its own
        "reading the weights once": pace["stream"],
        "the per-operation floor": pace["empty"],
        "the arithmetic at the matmul's rate": pace["arithmetic"],
    }
    largest = max(floors, key=floors.get)
    share = floors[largest] / step
    ms = lambda s: f"{s * 1e3:.1f} ms"  # noqa: E731
    lines = [
        f"What sets the pace of a cached step: one step at batch 1, timed word by word ({STEPS_TIMED} steps per "
        f"run, median), against three reference times measured in the same run.",
        "",
        "| what | time | share of a step |",
        "| --- | --- | --- |",
        f"| one cached step, batch 1 | {ms(step)} | 100% |",
        f"| reading the {weight_bytes / 2**20:,.0f} MiB of weights once (a sum over them, "
        f"{weight_bytes / pace['stream'] / 1e9:.0f} GB/s) | {ms(pace['stream'])} | {pace['stream'] / step:.0%} |",
        f"| the step's {pace['flops'] / 1e9:.2f} GFLOP at the rate of a ({MATMUL_SIDE}, {MATMUL_SIDE}) matmul "
        f"| {ms(pace['arithmetic'])} | {pace['arithmetic'] / step:.0%} |",
        f"| the same step at width {TINY_WIDTH}: the same operations, almost nothing to read or multiply "
        f"| {ms(pace['empty'])} | {pace['empty'] / step:.0%} |",
        f"| one cached step, batch {BATCH}: {BATCH} words | {ms(pace['batch_step'])} | "
        f"{pace['batch_step'] / step:.0%} |",
        "",
    ]
    others = max(v for k, v in floors.items() if k != largest)
    if largest == "reading the weights once" and share >= 0.5 and others <= floors[largest] / 2:
        verdict = (f"Reading the weights once takes {share:.0%} of a step, far more than the other two: at batch 1, "
                   "memory sets the pace of a cached step on this machine, more than arithmetic or the cost of "
                   "each operation.")  # fmt: skip
    else:
        verdict = (f"The largest of the three is {largest}, {share:.0%} of a step"
                   + (": no single one of them sets the pace on this machine." if share < 0.5 else "."))  # fmt: skip
    batch = pace["batch_step"] / step
    verdict += (f" {BATCH} texts at once take {batch:.1f}x the time of one, for {BATCH}x the words"
                + (": each weight read serves all of them." if batch < 2 else
                   ": more than reading the weights alone would cost, so at that batch the work that grows "
                   "with it counts too."))  # fmt: skip
    return lines + [verdict]


# --- the report --------------------------------------------------------------------------------


def _verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def report(m: dict) -> str:
    """The measurements `m` (see main) as markdown."""
    c = m["config"]
    without, with_ = statistics.median(m["seconds"][False]), statistics.median(m["seconds"][True])
    speedup = without / with_
    lines = [
        "<!-- generated by benchmarks/kv_cache.py --write; do not edit by hand -->",
        m["machine"],
        "",
        f"A decoder of GPT-2 small's width with random weights (seed {SEED}): {c.n_layers} layers, d_model "
        f"{c.d_model}, {c.n_heads} heads, MLP {c.d_mlp}, vocabulary {c.vocab:,}, fp32, batch 1. After a "
        f"{PROMPT_WORDS}-word prompt it decodes {NEW_WORDS} new words greedily. Time: median of "
        f"{m['repeat']} runs after a warm-up, the two ways taking turns; it includes the prompt's pass.",
        "",
        "| decoding | time for the new words | new words per second |",
        "| --- | --- | --- |",
        f"| recomputing every word at each step | {without:.2f} s | {NEW_WORDS / without:.1f} |",
        f"| with the key/value cache | {with_:.2f} s | {NEW_WORDS / with_:.1f} |",
        "",
        f"The cache sets aside {m['cache_bytes'] / 2**20:.1f} MiB: keys and values for {c.n_ctx} positions "
        f"in each of the {c.n_layers} layers. The weights take {m['weight_bytes'] / 2**20:,.0f} MiB, and a "
        f"cached step reads all of them for a single word.",
        "",
        *pace_report(m["pace"], m["weight_bytes"]),
        "",
        "| target | measured | |",
        "| --- | --- | --- |",
        f"| the cache at least {MIN_SPEEDUP:.0f}x faster | {speedup:.1f}x | {_verdict(speedup >= MIN_SPEEDUP)} |",
        f"| the same logits to {MAX_LOGIT_DIFFERENCE:.0e} | largest difference {m['difference']:.1e} "
        f"over {NEW_WORDS} x {c.vocab:,} logits | {_verdict(m['difference'] <= MAX_LOGIT_DIFFERENCE)} |",
        f"| the same {NEW_WORDS} words chosen | {m['same_words']} of {NEW_WORDS} | "
        f"{_verdict(m['same_words'] == NEW_WORDS)} |",
        "",
        f"The whole benchmark took {m['wall']:.0f} s{m['load_end']}.",
    ]
    return "\n".join(lines) + "\n"


# --- the command -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kv_cache.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=positive("layers"), default=LAYERS, help=f"model depth (default: {LAYERS}; GPT-2 small has 12)")
    parser.add_argument("--repeat", type=positive("runs"), default=3, help="timed runs of each way (default: 3)")
    parser.add_argument("--threads", type=positive("threads"), default=os.cpu_count() or 1,
                        help="torch threads (default: the number of cores)")  # fmt: skip
    parser.add_argument("--write", action="store_true", help=f"also write {RESULT.relative_to(ROOT)}")
    args = parser.parse_args(argv)

    os.environ.setdefault("GOMP_SPINCOUNT", GOMP_SPINCOUNT)  # before torch loads libgomp
    import torch

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    machine = measured_on(args.threads)
    print(machine, file=sys.stderr)
    config = Config(n_layers=args.layers)
    model = TinyGPT(config)
    prompt = torch.randint(0, config.vocab, (1, PROMPT_WORDS), generator=torch.Generator().manual_seed(SEED))
    for cached in (False, True):  # warm-up: a few words each way
        decode(model, prompt, 4, cached)
    seconds = {False: [], True: []}
    for run in range(args.repeat):
        for cached in (False, True):
            t0 = time.perf_counter()
            words, logits, cache_bytes = decode(model, prompt, NEW_WORDS, cached)
            seconds[cached].append(time.perf_counter() - t0)
            if run == 0:
                if cached:
                    words_with, logits_with, measured_cache_bytes = words, logits, cache_bytes
                else:
                    words_without, logits_without = words, logits
            print(f"run {run + 1}, {'with' if cached else 'without'} the cache: {seconds[cached][-1]:.2f} s", file=sys.stderr)
    pace = measure_pace(model, args.repeat)
    print(f"cached step {pace['step'] * 1e3:.1f} ms; batch {BATCH} {pace['batch_step'] * 1e3:.1f} ms; "
          f"weights read {pace['stream'] * 1e3:.1f} ms; empty step {pace['empty'] * 1e3:.1f} ms", file=sys.stderr)  # fmt: skip
    measured = {
        "machine": machine, "config": config, "seconds": seconds, "repeat": args.repeat, "pace": pace,
        "difference": (logits_with - logits_without).abs().max().item(),
        "same_words": int((words_with == words_without).sum()), "cache_bytes": measured_cache_bytes,
        "weight_bytes": model.weight_bytes(),
        "wall": time.perf_counter() - started,
        "load_end": f"; load average {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else "",
    }  # fmt: skip
    text = report(measured)
    print(text, end="")
    if args.write:
        write(RESULT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
