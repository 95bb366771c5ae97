"""The detectors and the ablation, against loops written out here and patterns whose answer is known.

Tolerance 1e-12: float64 means of at most a few thousand numbers of size <= 1, summed in
another order by the loops, differ by about 1e-15.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_by_hand.math import detectors as D

TOL = 1e-12
EXAMPLES = settings(deadline=None, max_examples=60)


@st.composite
def patterns(draw):
    """A random causal pattern (batch, heads, T, T), rows summing to 1, and a period that fits T."""
    batch, heads, T = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(4, 12))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**32 - 1)))
    scores = torch.randn(batch, heads, T, T, generator=g, dtype=torch.float64) * 2
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    period = draw(st.integers(1, T - 2))  # at least one row after period + 1 - 1
    return torch.softmax(scores, dim=-1), period


def loop_mean(pattern: torch.Tensor, cells) -> torch.Tensor:
    """For each head: the mean of pattern[b, h, i, j] over b and the (i, j) in `cells`."""
    batch, heads = pattern.shape[:2]
    return torch.tensor(
        [sum(pattern[b, h, i, j].item() for b in range(batch) for i, j in cells) / (batch * len(cells)) for h in range(heads)],
        dtype=torch.float64,
    )


@EXAMPLES
@given(patterns())
def test_previous_token_score_is_the_mean_weight_on_i_minus_1_over_rows_1_on(case):
    pattern, _ = case
    T = pattern.shape[-1]
    expected = loop_mean(pattern, [(i, i - 1) for i in range(1, T)])
    assert (D.previous_token_score(pattern) - expected).abs().max() <= TOL


@EXAMPLES
@given(patterns())
def test_first_token_score_is_the_mean_weight_on_position_0_over_rows_1_on(case):
    pattern, _ = case
    T = pattern.shape[-1]
    expected = loop_mean(pattern, [(i, 0) for i in range(1, T)])
    assert (D.first_token_score(pattern) - expected).abs().max() <= TOL


@EXAMPLES
@given(patterns())
def test_induction_score_is_the_mean_weight_after_the_earlier_occurrence(case):
    pattern, period = case
    T = pattern.shape[-1]
    expected = loop_mean(pattern, [(i, i - period + 1) for i in range(period + 1, T)])
    assert (D.induction_score(pattern, period) - expected).abs().max() <= TOL


def one_hot_pattern(T: int, look) -> torch.Tensor:
    """(1, 1, T, T): row i puts all its weight on look(i), or on itself where look(i) is None."""
    pattern = torch.zeros(1, 1, T, T, dtype=torch.float64)
    for i in range(T):
        j = look(i)
        pattern[0, 0, i, i if j is None else j] = 1.0
    return pattern


def test_a_head_that_always_looks_one_back_scores_1_as_a_previous_token_head_and_0_otherwise():
    pattern = one_hot_pattern(10, lambda i: i - 1 if i else None)
    assert D.previous_token_score(pattern).item() == 1.0
    assert D.induction_score(pattern, 4).item() == 0.0


def test_a_head_that_looks_after_the_earlier_occurrence_scores_1_as_an_induction_head():
    period = 4  # start token, 1 .. 4, then 5 .. 9 repeat them
    pattern = one_hot_pattern(10, lambda i: i - period + 1 if i > period else 0)
    assert D.induction_score(pattern, period).item() == 1.0
    assert D.previous_token_score(pattern).item() == pytest.approx(1 / 9)  # row 1 looks at 0, one back


def test_the_start_tokens_own_row_never_counts_for_the_first_token_score():
    pattern = one_hot_pattern(6, lambda i: None)  # every row on itself: row 0 on position 0
    assert D.first_token_score(pattern).item() == 0.0


# --- ablation ---------------------------------------------------------------------------------


@st.composite
def layers(draw):
    """Causal scores (batch, heads, T, T), values (batch, heads, T, d) and a head to remove."""
    batch, heads, T, d = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 8)), draw(st.integers(1, 6))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**32 - 1)))
    scores = torch.randn(batch, heads, T, T, generator=g, dtype=torch.float64)
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    values = torch.randn(batch, heads, T, d, generator=g, dtype=torch.float64)
    return scores, values, draw(st.integers(0, heads - 1))


@EXAMPLES
@given(layers())
def test_ablate_head_is_the_sum_of_the_other_heads_writes(case):
    scores, values, head = case
    batch, heads, T, d = values.shape
    expected = torch.zeros(batch, T, d, dtype=torch.float64)
    for h in range(heads):
        if h == head:
            continue
        # softmax by its definition, row by row: exp over the visible keys, divided by their sum
        weights = torch.exp(scores[:, h] - scores[:, h].amax(dim=-1, keepdim=True))
        expected += (weights / weights.sum(dim=-1, keepdim=True)) @ values[:, h]
    assert (D.ablate_head(scores, values, head) - expected).abs().max() <= TOL


@EXAMPLES
@given(layers())
def test_ablate_head_leaves_its_inputs_as_they_were(case):
    scores, values, head = case
    before = scores.clone(), values.clone()
    D.ablate_head(scores, values, head)
    assert torch.equal(scores, before[0]) and torch.equal(values, before[1])
