"""Lab 07's checker computes each position mistake with its own code (lab/checks/position_math.py):
its right answers are checked here against PyTorch or an independent formula.

Tolerances: float64 on both sides with N(0, 1) inputs, so TOL = 1e-12 leaves room only for a
different summation order.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_by_hand.lab.labs.lab07 import position_math as own

TOL = 1e-12


def complex_rotation(a: torch.Tensor, b: torch.Tensor, positions: torch.Tensor, d: int, base: float):
    """(a + ib) * exp(i * p * theta_j), theta_j = base^(-2j / d): RoPE as complex multiplication."""
    theta = torch.tensor([base ** (-2 * j / d) for j in range(d // 2)], dtype=torch.float64)  # (d/2,)
    turned = torch.complex(a, b) * torch.polar(torch.ones_like(a), positions.double()[:, None] * theta)
    return turned.real, turned.imag


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_on_the_halves_is_complex_multiplication(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2, 5, 8, generator=g, dtype=torch.float64)  # (batch, T, d)
    positions = torch.tensor([3, 0, 7, 1, 12])  # (T,): not 0, 1, 2, ...
    real, imag = complex_rotation(x[..., :4], x[..., 4:], positions, 8, own.BASE)
    torch.testing.assert_close(own.rope(x, positions), torch.cat([real, imag], dim=-1), rtol=0, atol=TOL)


def test_rope_interleaved_pairs_channel_2i_with_2i_plus_1():
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(2), dtype=torch.float64)  # (T, d)
    positions = torch.arange(4)
    real, imag = complex_rotation(x[..., 0::2], x[..., 1::2], positions, 6, own.BASE)
    expected = torch.stack([real, imag], dim=-1).flatten(-2)  # (T, d): real in 2i, imaginary in 2i + 1
    torch.testing.assert_close(own.rope(x, positions, pairing="interleaved"), expected, rtol=0, atol=TOL)


def pair_lengths(t: torch.Tensor) -> torch.Tensor:
    """Squared length of each (i, i + d/2) channel pair.   (T, d) -> (T, d/2)"""
    half = t.shape[-1] // 2
    return t[:, :half] ** 2 + t[:, half:] ** 2


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), T=st.integers(1, 6), half=st.integers(1, 4))
def test_rope_keeps_the_length_of_every_channel_pair(seed, T, half):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(T, 2 * half, generator=g, dtype=torch.float64)  # (T, d)
    positions = torch.randint(0, 100, (T,), generator=g)
    turned = own.rope(x, positions)
    torch.testing.assert_close(pair_lengths(turned), pair_lengths(x), rtol=1e-12, atol=1e-12)


def test_the_interleaved_sin_cos_table_is_the_transformers_formula():
    n, d = 7, 6
    table = own.interleave(*own.sin_cos_table(n, d))  # (n, d)
    for p in range(n):
        for i in range(d // 2):
            angle = p / own.BASE ** (2 * i / d)
            assert abs(table[p, 2 * i].item() - math.sin(angle)) < TOL
            assert abs(table[p, 2 * i + 1].item() - math.cos(angle)) < TOL


def test_attend_is_causal_scaled_dot_product_attention():
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 5, 4, generator=g, dtype=torch.float64) for _ in range(3))  # (batch, T, hs)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(own.attend(q, k, v), expected, rtol=0, atol=TOL)


def test_attend_with_a_bias_adds_it_to_the_scaled_scores_before_the_mask():
    g = torch.Generator().manual_seed(4)
    q, k, v = (torch.randn(5, 4, generator=g, dtype=torch.float64) for _ in range(3))  # (T, hs)
    bias = -0.5 * own.distance(5).clamp(min=0)  # (T, T): ALiBi with slope 0.5
    causal = torch.zeros(5, 5, dtype=torch.float64).masked_fill(~torch.ones(5, 5, dtype=torch.bool).tril(), float("-inf"))
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=bias + causal)
    torch.testing.assert_close(own.attend(q, k, v, bias=bias), expected, rtol=0, atol=TOL)


def test_distance_is_how_far_the_key_is_behind_the_query():
    assert own.distance(3).tolist() == [[0.0, -1.0, -2.0], [1.0, 0.0, -1.0], [2.0, 1.0, 0.0]]
