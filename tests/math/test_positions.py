"""The position functions, each against an independent formula.

References: a loop of math.sin/math.cos for the sinusoids; complex multiplication, an explicit
block-diagonal rotation matrix and Hugging Face's `x * cos + rotate_half(x) * sin` (in PyTorch)
for RoPE; a double loop for ALiBi.

Tolerances: float64 throughout. Entries of order 1 agree to 1e-12 (room for a different order of
operations only). Scores compared across positions agree to 1e-9 relative to |q| |k|: a score
can be near 0, so the scale is the vectors' lengths, and angles up to ~200 radians lose a few
more bits in sin and cos than small ones.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_by_hand.math.positions import (
    alibi_bias,
    alibi_slopes,
    interleaved_to_halves,
    rope,
    rope_frequencies,
    rotate_2d,
    sinusoidal_positions,
)

TOL = 1e-12
RELATIVE = 1e-9

entries = st.floats(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False)
widths = st.sampled_from([2, 4, 6, 8, 16])
positions = st.integers(0, 60)
pairings = st.sampled_from(["halves", "interleaved"])


def vectors(d: int):
    return arrays(np.float64, (d,), elements=entries)


def random_rows(seed: int, n: int, d: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, d))  # (n, d)


# --- sinusoidal positions -----------------------------------------------------------------------


@pytest.mark.parametrize("n_positions, d_model, base", [(3, 4, 10000.0), (50, 16, 10000.0), (7, 6, 100.0)])
def test_sinusoidal_positions_match_the_formula_entry_by_entry(n_positions, d_model, base):
    expected = np.zeros((n_positions, d_model))
    for pos in range(n_positions):
        for i in range(d_model // 2):
            expected[pos, 2 * i] = math.sin(pos / base ** (2 * i / d_model))
            expected[pos, 2 * i + 1] = math.cos(pos / base ** (2 * i / d_model))
    assert np.allclose(sinusoidal_positions(n_positions, d_model, base), expected, rtol=0, atol=TOL)


def test_sinusoidal_position_zero_is_sin_0_and_cos_0_in_turn():
    assert sinusoidal_positions(1, 8)[0].tolist() == [0.0, 1.0] * 4


def test_sinusoidal_rows_all_have_length_sqrt_of_half_the_width():
    # Each (sin, cos) pair has length 1, so a row of d_model/2 pairs has length sqrt(d_model/2).
    lengths = np.linalg.norm(sinusoidal_positions(100, 10), axis=1)
    assert np.allclose(lengths, math.sqrt(5), rtol=0, atol=TOL)


@pytest.mark.parametrize("d_model", [0, 3, -2])
def test_sinusoidal_positions_refuse_a_width_that_is_not_positive_and_even(d_model):
    with pytest.raises(ValueError, match="d_model must be a positive even number"):
        sinusoidal_positions(3, d_model)


# --- rotations ----------------------------------------------------------------------------------


@given(vectors(2), st.floats(-20, 20))
def test_rotate_2d_matches_the_rotation_matrix(v, angle):
    R = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    assert np.allclose(rotate_2d(v, angle), R @ v, rtol=0, atol=TOL * 10)


def test_rope_frequencies_are_base_to_the_minus_2i_over_d():
    assert np.allclose(rope_frequencies(6, 100.0), [1.0, 100.0 ** (-2 / 6), 100.0 ** (-4 / 6)], rtol=0, atol=TOL)


@pytest.mark.parametrize("pairing", ["halves", "interleaved"])
def test_rope_on_two_channels_turns_by_the_position_in_radians(pairing):
    x = random_rows(0, 5, 2)  # (5, 2)
    pos = np.arange(5)
    assert np.allclose(rope(x, pos, pairing=pairing), rotate_2d(x, pos), rtol=0, atol=TOL)


@settings(deadline=None, max_examples=40)
@given(widths, st.integers(0, 2**32 - 1), st.floats(10.0, 1e5))
def test_rope_halves_is_complex_multiplication_by_e_to_the_i_angle(d, seed, base):
    x = random_rows(seed, 6, d)  # (6, d)
    pos = np.arange(6) * 7  # (6,)
    z = x[:, : d // 2] + 1j * x[:, d // 2 :]  # (6, d/2): channel i is the real part, i + d/2 the imaginary
    turned = z * np.exp(1j * pos[:, None] * base ** (-np.arange(0, d, 2) / d))  # (6, d/2)
    expected = np.concatenate([turned.real, turned.imag], axis=1)  # (6, d)
    assert np.allclose(rope(x, pos, base, "halves"), expected, rtol=0, atol=TOL * 10)


@pytest.mark.parametrize("d", [2, 4, 8])
def test_rope_interleaved_is_a_block_diagonal_rotation_matrix(d):
    x = random_rows(1, 4, d)  # (4, d)
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    for m in range(4):
        R = np.zeros((d, d))  # the RoFormer paper's R_m: one 2x2 rotation per pair (2i, 2i+1)
        for i, t in enumerate(theta):
            c, s = math.cos(m * t), math.sin(m * t)
            R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
        assert np.allclose(rope(x[m], m, pairing="interleaved"), R @ x[m], rtol=0, atol=TOL)


def test_rope_halves_matches_hugging_faces_rotate_half_formula_in_torch():
    d, n, base = 8, 5, 10000.0
    x = random_rows(2, n, d)  # (n, d)
    t = torch.from_numpy(x)
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))  # (d/2,)
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)  # (n, d/2)
    emb = torch.cat([freqs, freqs], dim=-1)  # (n, d)
    rotate_half = torch.cat([-t[:, d // 2 :], t[:, : d // 2]], dim=-1)  # (n, d)
    theirs = (t * emb.cos() + rotate_half * emb.sin()).numpy()
    assert np.allclose(rope(x, np.arange(n), base, "halves"), theirs, rtol=0, atol=TOL)


@settings(deadline=None, max_examples=60)
@given(widths.flatmap(lambda d: vectors(d)), positions, pairings)
def test_rope_keeps_every_vector_length(x, m, pairing):
    assert np.linalg.norm(rope(x, m, pairing=pairing)) == pytest.approx(np.linalg.norm(x), rel=RELATIVE, abs=TOL)


@pytest.mark.parametrize("pairing", ["halves", "interleaved"])
def test_rope_at_position_zero_changes_nothing(pairing):
    x = random_rows(3, 1, 6)[0]  # (6,)
    assert np.array_equal(rope(x, 0, pairing=pairing), x)


@settings(deadline=None, max_examples=60)
@given(widths.flatmap(lambda d: vectors(d)), positions)
def test_interleaved_is_halves_after_a_fixed_reordering_of_channels(x, m):
    order = interleaved_to_halves(len(x))
    via_halves = rope(x[order], m, pairing="halves")[np.argsort(order)]
    assert np.allclose(via_halves, rope(x, m, pairing="interleaved"), rtol=0, atol=TOL * 100)


def test_interleaved_to_halves_puts_even_channels_first():
    assert interleaved_to_halves(6).tolist() == [0, 2, 4, 1, 3, 5]


def test_the_two_pairings_differ_beyond_two_channels():
    x = random_rows(4, 1, 4)[0]  # (4,)
    assert not np.allclose(rope(x, 2, pairing="halves"), rope(x, 2, pairing="interleaved"))


@settings(deadline=None, max_examples=100)
@given(
    widths.flatmap(lambda d: st.tuples(vectors(d), vectors(d))),
    positions,
    positions,
    st.integers(0, 200),
    pairings,
)
def test_rope_scores_depend_only_on_the_distance_between_positions(qk, m, n, shift, pairing):
    q, k = qk
    before = rope(q, m, pairing=pairing) @ rope(k, n, pairing=pairing)
    after = rope(q, m + shift, pairing=pairing) @ rope(k, n + shift, pairing=pairing)
    scale = np.linalg.norm(q) * np.linalg.norm(k)
    assert abs(after - before) <= RELATIVE * scale + TOL


def test_rope_scores_change_when_the_distance_changes():
    q, k = random_rows(5, 2, 4)  # (4,) each
    assert abs(rope(q, 2) @ rope(k, 1) - rope(q, 1) @ rope(k, 2)) > 0.01


def test_rope_gives_each_row_its_own_position():
    x = random_rows(6, 3, 4)  # (3, 4)
    together = rope(x, [0, 5, 9])
    one_by_one = np.stack([rope(x[0], 0), rope(x[1], 5), rope(x[2], 9)])
    assert np.array_equal(together, one_by_one)


def test_rope_refuses_an_unknown_pairing_by_name():
    with pytest.raises(ValueError, match="pairing must be one of halves, interleaved, got 'adjacent'"):
        rope(np.zeros(4), 1, pairing="adjacent")


def test_rope_refuses_an_odd_width():
    with pytest.raises(ValueError, match="positive even number"):
        rope(np.zeros(3), 1)


# --- ALiBi --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, slope", [(1, 0.5), (3, 0.5), (6, 0.0625)])
def test_alibi_bias_matches_minus_slope_times_distance_below_the_diagonal(n, slope):
    expected = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            expected[i, j] = -slope * (i - j)
    assert np.allclose(alibi_bias(n, slope), expected, rtol=0, atol=TOL)


def test_alibi_bias_depends_only_on_the_distance():
    bias = alibi_bias(7, 0.25)
    for offset in range(-6, 7):
        assert len(set(np.diagonal(bias, offset).tolist())) == 1, offset


def test_alibi_bias_writes_plain_zeros_on_the_diagonal():
    # -0.0 would print as "-0.000" in a log.
    assert not np.any(np.signbit(np.diagonal(alibi_bias(4, 0.5))))


def test_alibi_slopes_for_8_heads_are_the_papers_half_to_1_over_256():
    assert alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]


def test_alibi_slopes_for_16_heads_start_at_1_over_sqrt_2():
    slopes = alibi_slopes(16)
    assert slopes[0] == pytest.approx(2**-0.5, rel=TOL)
    assert np.allclose(slopes[1:] / slopes[:-1], 2**-0.5, rtol=TOL)


def test_alibi_slopes_refuse_zero_heads():
    with pytest.raises(ValueError, match="n_heads must be positive, got 0"):
        alibi_slopes(0)
