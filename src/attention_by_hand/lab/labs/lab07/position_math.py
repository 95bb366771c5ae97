"""The checker's own position code for lab 07, in float64, with each choice a mistake can make.

Every mistake lab 07 names is recomputed from these and the check's inputs, never from the
reference lab's functions, so a mistake cannot agree with itself.
"""

from __future__ import annotations

import math

import torch

BASE = 10000.0  # the Transformer's, and the default of sinusoidal_table and rope


def future_mask(T: int) -> torch.Tensor:
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T), True = j > i


def interleave(even: torch.Tensor, odd: torch.Tensor) -> torch.Tensor:
    """(..., h) and (..., h) -> (..., 2h): even[..., i] in column 2i, odd[..., i] in column 2i + 1."""
    return torch.stack([even, odd], dim=-1).flatten(-2)


def sin_cos_table(n: int, d: int, base: float = BASE, exponent: float = 2.0, start: int = 0) -> tuple:
    """(sin, cos) of p / base^(exponent * i / d) for p = start .. start + n - 1, i < d/2: (n, d/2) each."""
    p = torch.arange(start, start + n, dtype=torch.float64)[:, None]  # (n, 1)
    i = torch.arange(d // 2, dtype=torch.float64)  # (d/2,)
    angles = p / base ** (exponent * i / d)  # (n, d/2)
    return torch.sin(angles), torch.cos(angles)


def per_column_table(n: int, d: int, base: float) -> torch.Tensor:
    """Column j at its own frequency base^(-j / d): sin in the even columns, cos in the odd. (n, d)"""
    p = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    angles = p / base ** (torch.arange(d, dtype=torch.float64) / d)  # (n, d)
    return torch.where(torch.arange(d) % 2 == 0, torch.sin(angles), torch.cos(angles))


def rope(x, positions, base=BASE, pairing="halves", exponent=2.0, direction=1.0, swapped=False):
    """RoPE with each choice a mistake can make.   x: (..., T, d), positions: (T,)  ->  (..., T, d)"""
    x = x.double()
    d = x.shape[-1]
    theta = base ** (-exponent * torch.arange(d // 2, dtype=torch.float64) / d)  # (d/2,)
    angles = direction * positions.double()[:, None] * theta  # (T, d/2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    if swapped:
        cos, sin = sin, cos
    if pairing == "halves":
        a, b = x[..., : d // 2], x[..., d // 2 :]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    return interleave(a * cos - b * sin, a * sin + b * cos)


ROPE_MISTAKES = {
    "interleaved": {"pairing": "interleaved"},
    "base": {"base": 1000.0},
    "exponent": {"exponent": 1.0},
    "direction": {"direction": -1.0},
    "swapped": {"swapped": True},
}


def attend(q, k, v, bias=None, scale=True, mask=True, after_softmax=None, bias_scaled=False):
    """softmax(mask(q k^T / sqrt(hs) + bias)) @ v, with each place a mistake can move a part to.

    after_softmax: a (T, T) added to the weights instead; bias_scaled: the bias divided by sqrt(hs) too.
    """
    q, k, v = q.double(), k.double(), v.double()
    T, head_size = q.shape[-2], q.shape[-1]
    scores = q @ k.transpose(-2, -1)  # (..., T, T)
    if bias is not None and bias_scaled:
        scores = scores + bias
    if scale:
        scores = scores / math.sqrt(head_size)
    if bias is not None and not bias_scaled:
        scores = scores + bias
    if mask:
        scores = scores.masked_fill(future_mask(T), float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., T, T)
    if after_softmax is not None:
        weights = weights + after_softmax
    return weights @ v  # (..., T, head_size)


def distance(T: int) -> torch.Tensor:
    """i - j: how far key j is behind query i (negative above the diagonal).   (T, T) float64"""
    i = torch.arange(T, dtype=torch.float64)
    return i[:, None] - i[None, :]
