#!/usr/bin/env python3
"""Attention at scale on this CPU: the naive head, two tiled heads and PyTorch's SDPA, side by side.

    python benchmarks/attention_scale.py              # print the measurements
    python benchmarks/attention_scale.py --write      # also write benchmarks/results/attention_scale.md
                                                      # and attention-memory.png, attention-time.png
    python benchmarks/attention_scale.py --repeat 7   # timed runs per head and length (default 5)

One causal layer of GPT-2 small's attention (12 heads, d_k 64, fp32, batch 1) at 512 to 8,192
words, computed four ways: the naive head (the whole masked score matrix,
`tiling_torch.naive_attention`), the NumPy tiled head (`tiling.tiled_attention`, one head at a
time), the PyTorch tiled head (`tiling_torch.tiled_attention`) and
`F.scaled_dot_product_attention` (SDPA, PyTorch's fused kernel), plus two ways a learner calls
SDPA slowly, at 4,096 words. For each:

- time: the median of --repeat runs after one warm-up run, the heads taking turns run by run so
  that a change in the machine's load falls on all of them alike;
- the FLOP rate: the multiply-adds each head really does (q_i . k_j and the blend of v_j for
  every pair (i, j) it computes, 2 FLOPs each), per second, as a share of the rate of a large
  fp32 matmul timed in the same turns, at the same length. The heads do not compute the same
  pairs: the naive head computes all T x T and masks afterwards; the tiled heads skip the
  tiles above the diagonal; SDPA's CPU kernel skips the key blocks past each query block
  (`computed_pairs` says how each is counted). Beside the rate, the work each head did as a
  multiple of the T(T+1)/2 pairs the mask keeps;
- peak extra memory: how far the resident set rises above its level just before the call, in a
  fresh process per head and length (Linux: /proc/self/clear_refs resets the high-water mark
  VmHWM after a small warm-up call; what the call returns counts too);
- max |difference| to SDPA's output on the same inputs.

Every number comes from this run; nothing is compared with a number from another day. A
benchmark reports and asserts nothing: the targets are printed as met or missed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import RESULTS, ROOT, Parser, measured_on, positive, write

RESULT = RESULTS / "attention_scale.md"
MEMORY_FIGURE = RESULT.with_name("attention-memory.png")
TIME_FIGURE = RESULT.with_name("attention-time.png")

N_HEADS, D_K, SEED = 12, 64, 0  # GPT-2 small's heads
LENGTHS = (512, 1_024, 2_048, 4_096, 8_192)
TARGET_LENGTH = 4_096  # where the time and FLOP-rate targets are read, and the pitfalls measured
MATMUL_SIDE = 2_048  # the matmul that sets "the machine's rate": (2048, 2048) @ (2048, 2048) fp32
NAIVE_MAX_SCORE_BYTES = 2**31  # the naive head is skipped where ONE score matrix would pass 2 GiB
# A head is skipped at a length where its time, predicted from the length before (x (T'/T)^2, the
# cost of the score matrix), would pass this per run: it keeps the benchmark near 3 minutes.
MAX_PREDICTED_SECONDS = 4.0
NUMPY_BLOCK = 256  # the NumPy head's tile side: the PyTorch head's too (tiling_torch.DEFAULT_BLOCK)

# Targets of the PyTorch tiled head (Module 5's claims, measured).
MAX_DIFFERENCE = 1e-5
MAX_TIME_RATIO = 1.5  # at most this many times SDPA's time, at TARGET_LENGTH
MIN_MATMUL_SHARE = 0.40  # at least this share of the matmul rate, at TARGET_LENGTH
MAX_LINEAR_EXPONENT = 1.2  # memory ~ T^p with p at most this: linear, not quadratic

# libgomp's threads, which PyTorch's CPU ops use, spin while they wait for work (300,000 turns by
# default). In trials on this 2-core machine, with other processes busy, that made the tiled head
# (hundreds of small ops) 4-50x slower: a spinning thread burns the time slice the other one
# needs. Letting waiting threads sleep at once (OMP_WAIT_POLICY=PASSIVE) fixed that but made it
# 1.5x slower on the quiet machine (waking a thread per op); spinning 1,000 turns first was as
# fast as the default when quiet and as safe as PASSIVE when busy. The user's own setting wins.
GOMP_SPINCOUNT = "1000"
# NumPy's OpenBLAS threads spin too, and offer no passive mode: in a trial the NumPy head ran
# 30-100x slower with 2 threads on the busy machine. Its elementwise work is single-threaded
# anyway; it runs on one core, and the table says so.
NUMPY_BLAS_THREADS = 1

# head key -> (label in the tables, the library whose arrays it takes)
HEADS = {
    "naive": ("naive: the whole score matrix (`naive_attention`)", "torch"),
    "tiled-numpy": ("tiled, NumPy, head by head (`tiling.tiled_attention`)", "numpy"),
    "tiled-torch": ("tiled, PyTorch by hand (`tiling_torch.tiled_attention`)", "torch"),
    "sdpa": ("`F.scaled_dot_product_attention`, `is_causal=True`", "torch"),
}
SHORT_NAMES = {"naive": "naive head", "tiled-numpy": "NumPy tiled head", "tiled-torch": "PyTorch tiled head", "sdpa": "SDPA"}
PITFALLS = {
    "sdpa-no-batch": ("SDPA on (12, T, 64): no batch axis", "torch"),
    "sdpa-bool-mask": ("SDPA with a boolean (T, T) mask instead of `is_causal=True`", "torch"),
}
# The workshop figures' look (attention_by_hand.run.figures, benchmarks/lab06.py).
_FONT_SIZE, _DPI = 13, 110
_COLOURS = {"naive": "#c62828", "tiled-torch": "#1976d2", "sdpa": "#616161"}


# --- the heads ---------------------------------------------------------------------------------


def make_inputs(length: int):
    """Seeded q, k, v as NumPy arrays, the same for every head and process.   each (1, 12, T, 64) fp32"""
    import numpy as np

    rng = np.random.default_rng(SEED)
    return [rng.standard_normal((1, N_HEADS, length, D_K), dtype=np.float32) for _ in range(3)]


def head_function(key: str):
    """The call `key` names: (q, k, v) in its library's arrays -> output (1, 12, T, 64)."""
    if library_of(key) == "numpy":
        import numpy as np

        from attention_by_hand.math.tiling import tiled_attention

        def numpy_head(q, k, v):  # (1, H, T, d) each, one head at a time: tiling.py has no head axis
            return np.stack([tiled_attention(q[0, h], k[0, h], v[0, h], NUMPY_BLOCK, causal=True)[0]
                             for h in range(q.shape[1])])[None]  # fmt: skip

        return numpy_head
    import torch
    import torch.nn.functional as F

    from attention_by_hand.math.tiling_torch import naive_attention, tiled_attention

    def bool_mask(q, k, v):  # what a learner writes who knows masks from lab 04; the mask is built in the call
        allowed = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).tril()  # (T, T): True = may attend
        return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)

    return {
        "naive": lambda q, k, v: naive_attention(q, k, v, causal=True),
        "tiled-torch": lambda q, k, v: tiled_attention(q, k, v, causal=True)[0],
        "sdpa": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        "sdpa-no-batch": lambda q, k, v: F.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True)[None],
        "sdpa-bool-mask": bool_mask,
    }[key]


def library_of(key: str) -> str:
    return HEADS.get(key, PITFALLS.get(key))[1]


def as_library(arrays, library: str):
    import torch

    return [torch.from_numpy(a) for a in arrays] if library == "torch" else arrays


# SDPA's CPU kernel (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp, flash_attention_kernel_impl
# and cpu_flash_attention): blocks of 256 queries from 768 words on (64 from 192, 32 below) against
# blocks of 512 keys. Under is_causal it stops after the key block that holds a query block's last
# row, but computes that key block whole (up to 512 keys) and masks it afterwards.
SDPA_KEY_BLOCK = 512


def sdpa_query_block(length: int) -> int:
    return 256 if length >= 768 else 64 if length >= 192 else 32


def computed_pairs(key: str, length: int) -> int:
    """How many (query, key) pairs the head `key` computes a score and a blend for, per head.

    naive, and the two slow SDPA calls: all T x T, the masked ones too (MATH forms the whole
    matrix; a boolean mask leaves the fused kernel nothing it may skip). The tiled heads: for
    each query tile, the keys up to its last row (the diagonal tile whole, then masked). SDPA
    with is_causal: its own blocks, as the comment above reads its source.
    """
    T = length
    if key in ("tiled-numpy", "tiled-torch"):
        block = NUMPY_BLOCK  # the PyTorch head's tiling_torch.DEFAULT_BLOCK too
        return sum((min(q0 + block, T) - q0) * min(q0 + block, T) for q0 in range(0, T, block))
    if key == "sdpa":
        q_block, kv_block = min(sdpa_query_block(T), T), min(SDPA_KEY_BLOCK, T)
        pairs = 0
        for m in range(0, T, q_block):
            rows = min(q_block, T - m)
            last = min(m + rows, T)  # the keys this block may see end here
            pairs += rows * sum(min(kv_block, T - n) for n in range(0, last, kv_block))
        return pairs
    return T * T


def head_flops(key: str, length: int) -> int:
    """FLOPs the head `key` does: 2 matmul FLOPs x d_k x 2 (score, blend) per computed pair, per head."""
    return 2 * 2 * D_K * N_HEADS * computed_pairs(key, length)


def causal_pairs(length: int) -> int:
    """The pairs j <= i that the causal mask keeps: the least work any causal head can do."""
    return length * (length + 1) // 2


def naive_score_bytes(length: int) -> int:
    """Bytes of ONE (12, T, T) fp32 score matrix; the naive head holds several at once."""
    return N_HEADS * length * length * 4


def heads_to_run(keys: list[str], length: int, previous: int | None, rows: dict, notes: list[str],
                 max_seconds: float, names: dict[str, str], matrix: str, holds: str) -> list[str]:
    """The heads of `keys` to run at `length`, each skipped one said in `notes`: the naive head where
    one (12, T, T) fp32 `matrix` passes NAIVE_MAX_SCORE_BYTES (`holds`: why several would not fit);
    a head skipped at the `previous` length; a head whose time there, times (T'/T)^2, passes
    `max_seconds`. Shared with benchmarks/attention_backward.py."""
    keys = list(keys)
    if "naive" in keys and naive_score_bytes(length) > NAIVE_MAX_SCORE_BYTES:
        keys.remove("naive")
        notes.append(f"The naive head is not run at {length:,} words: one (12, T, T) fp32 {matrix} alone would "
                     f"take {naive_score_bytes(length) / 2**30:.1f} GiB, and {holds}.")  # fmt: skip
    for key in list(keys):
        if previous is not None and (key, previous) not in rows:
            keys.remove(key)  # skipped at a shorter length already
        elif previous is not None and (predicted := rows[(key, previous)]["seconds"] * (length / previous) ** 2) > max_seconds:
            keys.remove(key)
            notes.append(f"The {names[key]} is not run at {length:,} words: from its time at {previous:,} words, "
                         f"one run would take about {predicted:.0f} s.")  # fmt: skip
    return keys


# --- memory: a fresh process per measurement ---------------------------------------------------


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def child_memory(key: str, length: int, threads: int) -> dict:
    """In a fresh process: the rise of the resident set during one call of `key` at `length` words."""
    import gc

    library = library_of(key)
    if library == "torch":
        import torch

        torch.set_num_threads(threads)
    call = head_function(key)
    # A small call first: the libraries' one-time set-up (thread pools, BLAS buffers) is not the head's.
    call(*as_library(make_inputs(64), library))
    inputs = as_library(make_inputs(length), library)
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # 5: reset VmHWM to the current resident set
    before = _status_kib("VmRSS")
    out = call(*inputs)
    peak = _status_kib("VmHWM")
    del out
    return {"extra_bytes": (peak - before) * 1024}


def measure_memory(key: str, length: int, threads: int, script: str = __file__) -> int | None:
    """Peak extra bytes of one call, from a fresh interpreter; None where Linux's /proc is missing.

    script: the benchmark whose `--child HEAD WORDS` measures the call (attention_backward.py's too).
    """
    if not Path("/proc/self/clear_refs").exists():
        return None
    done = subprocess.run(
        [sys.executable, script, "--child", key, str(length), "--threads", str(threads)],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"{Path(script).name}: the memory probe of {key} at {length} words failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])["extra_bytes"]


# --- time: the heads take turns in this process ------------------------------------------------


def measure_times(keys: list[str], length: int, repeat: int) -> tuple[dict, dict, list[float]]:
    """(median seconds per head, max |difference| to SDPA per head, matmul seconds) at `length`.

    One untimed run of each head first (it also gives the outputs compared with SDPA's), then
    `repeat` turns in which every head and the matmul run once each.
    """
    import numpy as np
    import torch

    arrays = make_inputs(length)
    calls = {key: (head_function(key), as_library(arrays, library_of(key))) for key in keys}
    a, b = torch.randn(MATMUL_SIDE, MATMUL_SIDE), torch.randn(MATMUL_SIDE, MATMUL_SIDE)
    calls["matmul"] = (lambda a, b: a @ b, [a, b])
    reference = head_function("sdpa")(*as_library(arrays, "torch")).numpy()  # (1, 12, T, 64)
    differences = {}
    for key, (call, inputs) in calls.items():
        out = call(*inputs)  # the warm-up run
        if key != "matmul":
            out = out if isinstance(out, np.ndarray) else out.numpy()
            differences[key] = float(np.max(np.abs(out.astype(np.float64) - reference)))
        del out
    seconds = {key: [] for key in calls}
    for _ in range(repeat):
        for key, (call, inputs) in calls.items():
            started = time.perf_counter()
            call(*inputs)
            seconds[key].append(time.perf_counter() - started)
    matmul = seconds.pop("matmul")
    return {key: statistics.median(s) for key, s in seconds.items()}, differences, matmul


def sdpa_kernel(key: str, length: int) -> str:
    """Which of its kernels SDPA picks for the call `key` makes at `length` words, by the name PyTorch gives it.

    Asked of PyTorch's dispatcher (`torch._fused_sdp_choice`, private: a PyTorch without it gets
    "not reported") with tensors of the same shapes and arguments as the call.
    """
    import torch

    shape = (N_HEADS, length, D_K) if key == "sdpa-no-batch" else (1, N_HEADS, length, D_K)
    q = torch.zeros(shape)
    if key == "sdpa-bool-mask":
        arguments = {"attn_mask": torch.ones(length, length, dtype=torch.bool).tril()}
    else:
        arguments = {"is_causal": True}
    try:
        from torch.nn.attention import SDPBackend

        return SDPBackend(torch._fused_sdp_choice(q, q, q, **arguments)).name
    except (AttributeError, ImportError, ValueError):
        return "not reported"


def fitted_exponent(lengths: list[int], values: list[float]) -> float:
    """p of the least-squares line log(value) = p log(T) + c through the measured points."""
    xs, ys = [math.log(t) for t in lengths], [math.log(v) for v in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# --- the report --------------------------------------------------------------------------------


def _mib(n: int | None) -> str:
    return "not measured" if n is None else f"{n / 2**20:,.1f} MiB"


def _seconds(s: float) -> str:
    return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"


def memory_row(m: dict, max_exponent: float) -> str | None:
    """The target row for the tiled head's memory: T^p fitted on every length (and between the
    two longest), beside the naive head's; None when the tiled head was not measured."""
    exponents, ends = m["exponents"], m["end_exponents"]
    if "tiled-torch" not in exponents:
        return None
    p = exponents["tiled-torch"]
    naive = f"; the naive head's: {exponents['naive']:.2f} ({ends['naive']:.2f})" if "naive" in exponents else ""
    return (f"| peak extra memory grows linearly: T^p fitted on every measured length, p <= {max_exponent} "
            f"(in brackets: p between the two longest) | p = {p:.2f} ({ends['tiled-torch']:.2f}){naive} | "
            f"{_verdict(p <= max_exponent)} |")  # fmt: skip


def _verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def _work(key: str, length: int) -> str:
    """The pairs the head computes, as a multiple of the pairs the causal mask keeps: "1.06x"."""
    return f"{computed_pairs(key, length) / causal_pairs(length):.2f}x"


def report(m: dict) -> str:
    """The measurements `m` (see main) as markdown: heads, targets, pitfalls, figures."""
    lengths, rows = m["lengths"], m["rows"]
    out = [
        "<!-- generated by benchmarks/attention_scale.py --write; do not edit by hand -->",
        m["machine"],
        "",
        f"One causal attention layer of GPT-2 small's shape: {N_HEADS} heads, d_k {D_K}, fp32, batch 1. "
        f"Time: median of {m['repeat']} runs after a warm-up, the heads taking turns. Work: the (query, key) "
        f"pairs a head computes a score and a blend for, as a multiple of the T(T+1)/2 pairs the causal "
        f"mask keeps: the naive head computes all T x T and masks afterwards; the tiled heads skip the "
        f"tiles above the diagonal (tiles of {NUMPY_BLOCK}); SDPA's CPU kernel, as its source "
        f"(`aten/src/ATen/native/cpu/FlashAttentionKernel.cpp`) reads, takes blocks of 256 queries (64 "
        f"from 192 to 767 words, 32 below) by {SDPA_KEY_BLOCK} keys and skips the key blocks past each query block. Rate: "
        f"those FLOPs (2 x 2 x d_k per computed pair, per head) per second, as a share of a "
        f"({MATMUL_SIDE}, {MATMUL_SIDE}) @ ({MATMUL_SIDE}, {MATMUL_SIDE}) fp32 matmul timed in the same "
        f"turns. Memory: the rise of the resident set (VmHWM) during one call, in a fresh process. "
        f"Difference: max |output - SDPA's output|.",
        "",
        "| words | head | time | work | GFLOP/s | share of matmul rate | peak extra memory | max diff. to SDPA |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for t in lengths:
        for key in HEADS:
            row = rows.get((key, t))
            if row is None:
                continue
            rate = head_flops(key, t) / row["seconds"]
            out.append(
                f"| {t:,} | {HEADS[key][0]} | {_seconds(row['seconds'])} | {_work(key, t)} | {rate / 1e9:.0f} | "
                f"{rate / m['matmul_rate'][t]:.0%} | {_mib(row['memory'])} | {row['difference']:.1e} |"
            )
    out.append("")
    rates = ", ".join(f"{m['matmul_rate'][t] / 1e9:.0f}" for t in lengths)
    out.append(f"The matmul's rate at each length, in the same turns: {rates} GFLOP/s (median of {m['repeat']} runs).")
    for note in m["notes"]:
        out.append("")
        out.append(note)

    tiled = {t: rows[("tiled-torch", t)] for t in lengths if ("tiled-torch", t) in rows}
    out += ["", "Targets of the PyTorch tiled head:", "", "| target | measured | |", "| --- | --- | --- |"]
    worst = max(r["difference"] for r in tiled.values())
    out.append(f"| matches SDPA to {MAX_DIFFERENCE:.0e} at every length | largest difference {worst:.1e} | "
               f"{_verdict(worst <= MAX_DIFFERENCE)} |")  # fmt: skip
    if TARGET_LENGTH in tiled:
        ratio = tiled[TARGET_LENGTH]["seconds"] / rows[("sdpa", TARGET_LENGTH)]["seconds"]
        share = head_flops("tiled-torch", TARGET_LENGTH) / tiled[TARGET_LENGTH]["seconds"] / m["matmul_rate"][TARGET_LENGTH]
        out.append(f"| at most {MAX_TIME_RATIO}x SDPA's time at {TARGET_LENGTH:,} words | {ratio:.2f}x | "
                   f"{_verdict(ratio <= MAX_TIME_RATIO)} |")  # fmt: skip
        out.append(f"| at least {MIN_MATMUL_SHARE:.0%} of the matmul rate at {TARGET_LENGTH:,} words | {share:.0%} | "
                   f"{_verdict(share >= MIN_MATMUL_SHARE)} |")  # fmt: skip
    row = memory_row(m, MAX_LINEAR_EXPONENT)
    if row:
        out.append(row)
        if m["exponents"]["tiled-torch"] < 1:
            out += ["", "The tiled head's p stays below 1 because part of its memory does not grow at all: the "
                    "one tile buffer it reuses, the same at every length."]  # fmt: skip

    if m["pitfalls"]:
        base = rows[("sdpa", TARGET_LENGTH)]
        out += [
            "",
            f"Two ways a learner calls SDPA slowly, at {TARGET_LENGTH:,} words (same turns as the table above):",
            "",
            "| call | kernel SDPA picks | work | time | vs. `is_causal=True` on (1, 12, T, 64) | peak extra memory | max diff. to SDPA |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            f"| {HEADS['sdpa'][0]} on (1, 12, T, 64) | {m['kernels']['sdpa']} | {_work('sdpa', TARGET_LENGTH)} | "
            f"{_seconds(base['seconds'])} | 1.00x | {_mib(base['memory'])} | 0 |",
        ]  # fmt: skip
        for key, row in m["pitfalls"].items():
            out.append(f"| {PITFALLS[key][0]} | {m['kernels'][key]} | {_work(key, TARGET_LENGTH)} | {_seconds(row['seconds'])} | "
                       f"{row['seconds'] / base['seconds']:.2f}x | {_mib(row['memory'])} | {row['difference']:.1e} |")  # fmt: skip
        out += [
            "",
            "FLASH_ATTENTION is the fused kernel that works tile by tile; MATH is SDPA's fallback, "
            "which holds the whole score matrix, as the naive head does. With a mask instead of "
            "`is_causal=True` the fused kernel still runs, but it reads the (T, T) mask and computes the "
            "tiles above the diagonal that `is_causal=True` skips.",
        ]
    out += [
        "",
        f"![{memory_alt(m)}]({MEMORY_FIGURE.name})",
        "",
        f"![{time_alt(m)}]({TIME_FIGURE.name})",
        "",
        f"The whole benchmark took {m['wall']:.0f} s{m['load_end']}.",
    ]
    return "\n".join(out) + "\n"


def _series(m: dict, key: str, field: str) -> tuple[list[int], list[float]]:
    points = [(t, m["rows"][(key, t)][field]) for t in m["lengths"] if (key, t) in m["rows"]]
    return [t for t, v in points if v], [v for _, v in points if v]


def memory_alt(m: dict) -> str:
    parts = []
    for key in ("naive", "tiled-torch"):
        ts, vs = _series(m, key, "memory")
        if ts:
            parts.append(f"{'the naive head' if key == 'naive' else 'the PyTorch tiled head'} from {_mib(vs[0])} at "
                         f"{ts[0]:,} words to {_mib(vs[-1])} at {ts[-1]:,} (fitted exponent {m['exponents'][key]:.2f})")  # fmt: skip
    return "Peak extra memory against the number of words, both axes logarithmic: " + "; ".join(parts) + "."


def time_alt(m: dict) -> str:
    parts = []
    for key, name in (("naive", "the naive head"), ("tiled-torch", "the PyTorch tiled head"), ("sdpa", "SDPA")):
        ts, vs = _series(m, key, "seconds")
        if ts:
            parts.append(f"{name} from {_seconds(vs[0])} at {ts[0]:,} words to {_seconds(vs[-1])} at {ts[-1]:,}")
    return "Time of one causal layer against the number of words, both axes logarithmic: " + "; ".join(parts) + "."


def draw(m: dict, field: str) -> bytes:
    """Log-log plot of `field` ("memory" or "seconds") against the length, as PNG bytes.

    A Matplotlib Figure without pyplot and no Software stamp: the same numbers give the same bytes.
    """
    import io

    import matplotlib
    from matplotlib.figure import Figure

    keys = ("naive", "tiled-torch") if field == "memory" else ("naive", "tiled-torch", "sdpa")
    names = {"naive": "naive (whole score matrix)", "tiled-torch": "tiled, PyTorch by hand", "sdpa": "SDPA"}
    with matplotlib.rc_context({"font.size": _FONT_SIZE}):
        fig = Figure(figsize=(7.5, 4.6), layout="constrained")
        ax = fig.subplots()
        for key in keys:
            ts, vs = _series(m, key, field)
            if field == "memory":
                vs = [v / 2**20 for v in vs]
            # The memory legend carries the exponent fitted on these very points.
            fit = f", fitted $T^{{{m['exponents'][key]:.2f}}}$" if field == "memory" and key in m["exponents"] else ""
            ax.plot(ts, vs, marker="o", color=_COLOURS[key], label=names[key] + fit)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(list(m["lengths"]), [f"{t:,}" for t in m["lengths"]])
        ax.minorticks_off()
        ylabel = "peak extra memory (MiB)" if field == "memory" else "seconds per layer (median)"
        what = "memory" if field == "memory" else "time"
        ax.set(title=f"{what} of one causal layer, {N_HEADS} heads", xlabel="words", ylabel=ylabel)
        ax.grid(True, color="#e0e0e0", linewidth=0.8)
        ax.legend()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    return buffer.getvalue()


# --- the command -------------------------------------------------------------------------------


def _lengths(text: str) -> tuple[int, ...]:
    parts = text.split(",")
    if not all(p.isdigit() and int(p) >= 64 for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of word counts >= 64")
    return tuple(sorted(set(int(p) for p in parts)))


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="attention_scale.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=positive("runs"), default=5, help="timed runs per head and length (default: 5)")
    parser.add_argument("--threads", type=positive("threads"), default=os.cpu_count() or 1,
                        help="torch threads (default: the number of cores)")  # fmt: skip
    parser.add_argument("--lengths", type=_lengths, default=LENGTHS, help="comma-separated word counts (default: 512,...,8192)")
    parser.add_argument("--write", action="store_true",
                        help=f"also write {RESULT.relative_to(ROOT)} and its two figures")  # fmt: skip
    parser.add_argument("--child", nargs=2, metavar=("HEAD", "WORDS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    # Before NumPy or torch is imported: both read these when they load.
    os.environ.setdefault("GOMP_SPINCOUNT", GOMP_SPINCOUNT)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(NUMPY_BLAS_THREADS))
    if args.child:
        if args.child[0] not in HEADS and args.child[0] not in PITFALLS or not args.child[1].isdigit():
            parser.error(f"--child takes a head ({', '.join([*HEADS, *PITFALLS])}) and a word count, not {args.child}")
        print(json.dumps(child_memory(args.child[0], int(args.child[1]), args.threads)))
        return 0

    import torch

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    machine = measured_on(args.threads, also=f"NumPy's BLAS {os.environ.get('OPENBLAS_NUM_THREADS')} thread")
    print(machine, file=sys.stderr)
    lengths = list(args.lengths)
    rows, notes, matmul_rate, pitfalls = {}, [], {}, {}
    try:
        import attention_by_hand.math.tiling  # noqa: F401
    except ImportError:
        notes.append("The NumPy tiled head is not measured: `attention_by_hand.math.tiling` is not in this checkout.")
        numpy_head = False
    else:
        numpy_head = True
    previous = None
    for t in lengths:
        keys = heads_to_run([k for k in HEADS if k != "tiled-numpy" or numpy_head], t, previous, rows, notes,
                            MAX_PREDICTED_SECONDS, SHORT_NAMES, "score matrix", "the head holds several at once")  # fmt: skip
        keys += list(PITFALLS) if t == TARGET_LENGTH else []
        seconds, differences, matmul = measure_times(keys, t, args.repeat)
        matmul_rate[t] = 2 * MATMUL_SIDE**3 / statistics.median(matmul)
        for key in keys:
            row = {"seconds": seconds[key], "difference": differences[key],
                   "memory": measure_memory(key, t, args.threads)}  # fmt: skip
            (pitfalls if key in PITFALLS else rows)[key if key in PITFALLS else (key, t)] = row
            print(f"{t:>6} words  {key:<15} {_seconds(row['seconds']):>9}  {_mib(row['memory']):>12}  "
                  f"diff {row['difference']:.1e}", file=sys.stderr)  # fmt: skip
        previous = t
    exponents, end_exponents = {}, {}
    for key in ("naive", "tiled-torch"):
        ts, vs = [], []
        for t in lengths:
            if (key, t) in rows and rows[(key, t)]["memory"]:
                ts.append(t)
                vs.append(rows[(key, t)]["memory"])
        if len(ts) >= 2:
            exponents[key] = fitted_exponent(ts, vs)
            end_exponents[key] = fitted_exponent(ts[-2:], vs[-2:])
    measured = {
        "machine": machine, "lengths": lengths, "rows": rows, "notes": notes, "matmul_rate": matmul_rate,
        "pitfalls": pitfalls, "exponents": exponents, "end_exponents": end_exponents, "repeat": args.repeat,
        "kernels": {key: sdpa_kernel(key, TARGET_LENGTH) for key in ("sdpa", *PITFALLS)},
        "wall": time.perf_counter() - started,
        "load_end": f"; load average {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else "",
    }  # fmt: skip
    text = report(measured)
    print(text, end="")
    if args.write:
        # The figures first: the markdown names them, so they must exist before it does.
        write(MEMORY_FIGURE, draw(measured, "memory"))
        write(TIME_FIGURE, draw(measured, "seconds"))
        write(RESULT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
