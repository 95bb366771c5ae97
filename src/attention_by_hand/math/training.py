"""Training the attention-only model on repeated segments, the same bytes every time on one machine.

    for each step: a fresh batch of repeated sequences (repeats.py), the model's next-token
    cross-entropy over every position, one AdamW step

Deterministic: the weights come from one seeded generator and the batches from another, and the
number of threads is set for the run (a matrix product split across another number of threads
adds its terms in another order: the weights would differ in their last bits). One thread:
the matrices are 32 x 32, so a second thread buys nothing here, and on a CPU shared with other
work the threads' waiting for each other cost ten times the step (measured: 10 ms a step on
one thread, 120-380 ms on two, while other work kept the two cores busy).

Left out: the model (attention_only.py), what the trained heads do (detectors.py, the heads part).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F

from attention_by_hand.math.adamw import AdamW
from attention_by_hand.math.attention_only import AttentionOnly, Sizes
from attention_by_hand.math.repeats import repeated_sequences

__all__ = ["Schedule", "train"]


@dataclass(frozen=True)
class Schedule:
    """How the model is trained. The circuit forms by step 250 or so; 750 steps leave its heads clean."""

    seed: int = 0
    steps: int = 750
    batch: int = 32
    learning_rate: float = 1e-2  # AdamW, its other settings PyTorch's defaults
    shortest: int = 3  # segment lengths, both ends included
    longest: int = 16
    threads: int = 1

    def as_dict(self) -> dict:
        return asdict(self)


# on_step(step, model, loss): called after each step (the benchmark logs from it).
OnStep = Callable[[int, AttentionOnly, float], None]


def train(sizes: Sizes, schedule: Schedule = Schedule(), on_step: OnStep | None = None) -> tuple[AttentionOnly, list[float]]:
    """A model of `sizes` trained on `schedule`; and the training loss at every step."""
    threads = torch.get_num_threads()
    torch.set_num_threads(schedule.threads)
    try:
        model = AttentionOnly(sizes, torch.Generator().manual_seed(schedule.seed))
        data = torch.Generator().manual_seed(schedule.seed + 1)
        optimizer = AdamW(model.parameters(), lr=schedule.learning_rate)  # torch.optim's AdamW, op for op (adamw.py)
        lengths = list(range(schedule.shortest, schedule.longest + 1))
        losses = []
        for step in range(1, schedule.steps + 1):
            sequences = repeated_sequences(data, schedule.batch, lengths, sizes.vocab, sizes.context)  # (B, T + 1)
            logits = model(sequences[:, :-1]).logits  # (B, T, V)
            loss = F.cross_entropy(logits.reshape(-1, sizes.vocab), sequences[:, 1:].reshape(-1))
            loss.backward()
            optimizer.step()  # and clears the gradients
            losses.append(loss.item())
            if on_step is not None:
                on_step(step, model, losses[-1])
        return model, losses
    finally:
        torch.set_num_threads(threads)
