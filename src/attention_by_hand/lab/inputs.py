"""The inputs the lab checks call a learner's functions on: fixed ones, the same for everyone,
and random ones from a seeded generator (`lab check --seed`).

Weights are scaled so that outputs stay near unit size, where the checks' tolerance (judging.py)
separates a mistake from float32 rounding.

Left out: which inputs each lab uses (its checks.py).
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn

from attention_by_hand.run.world import RIVER_BANK

__all__ = ["fixed", "seeded", "randn", "linear", "layer_norm_module", "embedding", "toy_world"]


def fixed() -> torch.Generator:
    """The generator of the fixed inputs: the same for every learner and every --seed."""
    return torch.Generator().manual_seed(20240604)


def seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(g: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=g) * scale


def linear(g: torch.Generator, d_in: int, d_out: int, bias: bool = False) -> nn.Linear:
    """An nn.Linear with weights from `g`, scaled 1/sqrt(d_in) so outputs stay near unit size."""
    layer = nn.Linear(d_in, d_out, bias=bias)
    with torch.no_grad():
        layer.weight.copy_(randn(g, d_out, d_in, scale=1 / math.sqrt(d_in)))
        if bias:
            layer.bias.copy_(randn(g, d_out, scale=0.1))
    return layer


def layer_norm_module(g: torch.Generator, d: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(d)
    with torch.no_grad():
        norm.weight.copy_(1 + randn(g, d, scale=0.3))
        norm.bias.copy_(randn(g, d, scale=0.3))
    return norm


def embedding(g: torch.Generator, n: int, d: int) -> nn.Embedding:
    table = nn.Embedding(n, d)
    with torch.no_grad():
        table.weight.copy_(randn(g, n, d))
    return table


def toy_world() -> tuple[list[str], torch.Tensor]:
    """The workshop's canonical world as the labs hold it: (words, table). table: (n_words, d_model)"""
    words = list(RIVER_BANK.words)
    # float32, as the labs build it; the canonical numbers are exact in the run's float64.
    table = torch.tensor([list(RIVER_BANK.embeddings[w]) for w in words], dtype=torch.float32)
    return words, table
