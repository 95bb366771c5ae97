"""attention_judges.py: a NaN in the weights is blamed on exp's overflow only where an unshifted
exp leaves its NaNs in the learner's very places."""

from __future__ import annotations

import torch

from attention_by_hand.lab.attention_judges import _without_max_shift, hidden, judge_weights


def _large():
    """q, k whose scaled scores reach the hundreds, and the reference's weights.   (T, head_size), (T, T)"""
    g = torch.Generator().manual_seed(3)
    q, k = 40 * torch.randn(5, 4, generator=g), 40 * torch.randn(5, 4, generator=g)
    scores = (q @ k.T / 2).masked_fill(hidden("future", 5), float("-inf"))
    return q, k, torch.softmax(scores, dim=-1)


def test_nans_where_an_unshifted_exp_makes_them_are_blamed_on_the_overflow():
    q, k, expected = _large()
    got = _without_max_shift(q, k)  # (T, T): nan in each row whose largest score passes 88
    assert got.isnan().any()
    assert "float32's exp overflows" in str(judge_weights(got, expected, q, k, 8, "the weights"))


def test_nans_made_elsewhere_are_not_blamed_on_the_overflow():
    q, k, expected = _large()
    got = expected.clone()
    got[0, 0] = float("nan")  # a nan in row 0, which sees one key and cannot overflow
    said = judge_weights(got, expected, q, k, 8, "the weights").text()  # the hint, not the variants tried
    assert "NaN at row 0" in said and "overflows" not in said


def test_nans_of_an_unshifted_exp_masked_by_a_product_are_blamed_on_the_overflow():
    # exp(scores) * keep: a hidden score past 88 gives inf * 0 = nan in a row the softmax-first mask spares
    q, k, expected = _large()
    scores = q.float() @ k.float().T / 2  # (T, T)
    e = torch.exp(scores) * ~hidden("future", 5)
    got = e / e.sum(dim=-1, keepdim=True)
    assert got.isnan().any()
    assert "float32's exp overflows" in str(judge_weights(got, expected, q, k, 8, "the weights"))
