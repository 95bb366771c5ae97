"""The heads part's trained weights: the two-layer model and its one-layer control, as shipped.

    two_layer.pt   the two-layer model's state dict (seven float32 tensors, 11,264 numbers)
    one_layer.pt   the one-layer control's, trained the same way (7,168 numbers)
    weights.json   how they were made: sizes, schedule (seed, steps, threads), versions, the CPU
                   kind, and the final scores on the probe

A state dict is PyTorch's own format (`torch.load(path, weights_only=True)` reads it, no code
runs). `attention-by-hand train heads` trains both models again with math/training.py and writes
the three files. On the same versions of PyTorch and Python and the same kind of CPU (its
architecture and the instruction set PyTorch's kernels use) it writes the same bytes; elsewhere
the matrix products add in another order, the weights differ in their last bits, and the final
scores in about the third decimal (README, "Versions and reproducibility").

Left out: what the heads do (sections.py reads them from here), the model itself (math/).
"""

from __future__ import annotations

import hashlib
import io
import json
import multiprocessing
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import torch

from attention_by_hand.math import detectors as D
from attention_by_hand.math.attention_only import AttentionOnly, Sizes
from attention_by_hand.math.repeats import PROBE_PERIOD, probe, repeat_rows
from attention_by_hand.math.training import Schedule, train
from attention_by_hand.run.atomic import write_atomic
from attention_by_hand.run.environment import installed_version

__all__ = ["MODELS", "SCHEDULE", "STAMP", "FORMAT", "filename", "load", "shipped", "shipped_stamp", "made_on", "Trained", "train_all", "write"]

MODELS = {"two_layer": Sizes(), "one_layer": Sizes(n_layers=1)}  # the model and its control
SCHEDULE = Schedule()
STAMP = "weights.json"
FORMAT = 1  # of weights.json
_LAST = 50  # the stamp's training loss: the mean of the last 50 steps (one step's batch is noisy)


def filename(name: str) -> str:
    return f"{name}.pt"


def shipped(name: str) -> bytes:
    """The bytes of a file shipped in this package: `two_layer.pt`, `one_layer.pt` or `weights.json`."""
    return resources.files(__package__).joinpath(name).read_bytes()


def shipped_stamp() -> dict:
    """weights.json as shipped: how the shipped weights were made."""
    return json.loads(shipped(STAMP))


def load(name: str, data: bytes | None = None) -> AttentionOnly:
    """The model `name` ("two_layer" or "one_layer") with its shipped weights (or `data`, a state
    dict's bytes), ready to read: no gradients."""
    state = torch.load(io.BytesIO(shipped(filename(name)) if data is None else data), weights_only=True)
    model = AttentionOnly(MODELS[name])
    model.load_state_dict(state)
    return model.requires_grad_(False)


def made_on() -> dict:
    """What decides the weights' bytes besides the schedule: versions, and the kind of CPU."""
    return {
        "torch": installed_version("torch"),
        "python": platform.python_version(),
        "architecture": platform.machine(),
        # The instruction set PyTorch's CPU kernels were chosen for (AVX2, AVX512, ...): another
        # one adds the products of a matrix multiplication in another order.
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        # and whose CPU: the same AVX512 kernels trained these weights to other bytes on an AMD
        # EPYC than on the Intel Xeon that made the shipped ones (measured 2026-12-02)
        "cpu_vendor": _cpu_vendor(),
    }


def _cpu_vendor() -> str:
    """The CPU's maker as the kernel names it (GenuineIntel, AuthenticAMD), or "unknown"."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


@dataclass
class Trained:
    """One model as `train_all` left it: its weights' bytes, its losses and how long it took."""

    name: str
    model: AttentionOnly
    losses: list[float]
    seconds: float

    def state_bytes(self) -> bytes:
        buffer = io.BytesIO()
        torch.save(self.model.state_dict(), buffer)  # the same bytes for the same tensors
        return buffer.getvalue()


def _train_one(name: str, schedule: Schedule) -> Trained:
    """One model of MODELS trained on `schedule`, timed."""
    started = time.perf_counter()
    model, losses = train(MODELS[name], schedule)
    return Trained(name, model.requires_grad_(False), losses, time.perf_counter() - started)


def _cores() -> int:
    """The cores this process may run on (all of the machine's where the OS cannot say)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def train_all(schedule: Schedule = SCHEDULE) -> list[Trained]:
    """Both models, in MODELS' order: the control in a second process while this one trains the
    two-layer model, where there is a second core; one after the other where there is not.

    Each model trains on `schedule.threads` threads from its own seed in a process of its own
    making, so the bytes are the same either way; only the wall time differs (on two cores the
    control, the shorter training, runs inside the two-layer model's time). The second process is
    started fresh ("spawn"): a forked copy of a process that has used OpenMP's threads can hang.
    """
    first, *rest = MODELS
    if _cores() < 2:
        return [_train_one(name, schedule) for name in MODELS]
    with ProcessPoolExecutor(max_workers=len(rest), mp_context=multiprocessing.get_context("spawn")) as pool:
        later = [pool.submit(_train_one, name, schedule) for name in rest]
        done = _train_one(first, schedule)
        return [done, *(f.result() for f in later)]


def _final(trained: Trained) -> dict:
    """The stamp's final scores: the training loss at the end, and each head's detectors on the probe."""
    sequences = probe(trained.model.sizes.vocab, trained.model.sizes.context)  # (n, T + 1)
    run = trained.model(sequences[:, :-1])
    rows = repeat_rows(PROBE_PERIOD, trained.model.sizes.context)  # (n_rows,)
    repeat_loss = torch.nn.functional.cross_entropy(run.logits[:, rows].flatten(0, 1), sequences[:, rows + 1].flatten())
    heads = {}
    for layer, pattern in enumerate(run.patterns):
        scores = (D.previous_token_score(pattern), D.induction_score(pattern, PROBE_PERIOD), D.first_token_score(pattern))
        for h in range(pattern.shape[1]):
            heads[D.head_name(layer, h)] = dict(zip(("previous_token", "induction", "first_token"), (round(s[h].item(), 4) for s in scores)))
    last = trained.losses[-_LAST:]
    return {"training_loss_last_50_steps": round(sum(last) / len(last), 4), "probe_loss_on_the_repeat": round(repeat_loss.item(), 4), "heads": heads}


def stamp(trained: list[Trained], schedule: Schedule) -> dict:
    """weights.json: how the weights were made, and what they score."""
    return {
        "format": FORMAT,
        "made_by": "attention-by-hand train heads",
        "schedule": schedule.as_dict(),
        "made_on": made_on(),
        "probe": {"period": PROBE_PERIOD, "threshold": D.THRESHOLD},
        "models": {
            t.name: {
                "file": filename(t.name),
                "sha256": hashlib.sha256(t.state_bytes()).hexdigest(),
                "sizes": t.model.sizes.as_dict(),
                "parameters": t.model.n_parameters(),
                "final": _final(t),
            }
            for t in trained
        },
    }


def write(folder: Path, trained: list[Trained], schedule: Schedule) -> list[Path]:
    """Each model's state dict and the stamp, into `folder`, each file atomically; the paths."""
    paths = []
    for t in trained:
        write_atomic(folder / filename(t.name), t.state_bytes())
        paths.append(folder / filename(t.name))
    text = json.dumps(stamp(trained, schedule), indent=1, sort_keys=True) + "\n"
    write_atomic(folder / STAMP, text.encode("utf-8"))
    return [*paths, folder / STAMP]
