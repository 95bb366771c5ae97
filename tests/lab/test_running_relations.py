"""running_relations.running_rows against independent running totals built here with torch."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_by_hand.lab.outcomes import agree
from attention_by_hand.lab.running_relations import running_rows


def _softmax(args):
    return torch.softmax(args[0], dim=-1)


def _said(inputs, gots):
    return running_rows(_softmax, inputs, gots, [_softmax(a) for a in inputs], agree)


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 4), n=st.integers(2, 7), seed=st.integers(0, 2**16))
def test_exponentials_over_their_running_sum_are_a_running_total(rows, n, seed):
    scores = torch.randn(rows, n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    e = scores.exp()
    assert _said([(scores,)], [e / e.cumsum(-1)]) is not None


def test_a_softmax_of_half_the_scores_is_no_running_total():
    scores = torch.randn(3, 5, generator=torch.Generator().manual_seed(1))
    assert _said([(scores,)], [torch.softmax(scores / 2, dim=-1)]) is None


def test_a_running_total_on_one_input_but_not_the_other_is_said_nothing():
    g = torch.Generator().manual_seed(2)
    a, b = torch.randn(2, 4, generator=g), torch.randn(3, 6, generator=g)
    assert _said([(a,), (b,)], [a.exp() / a.exp().cumsum(-1), torch.softmax(b * 2, dim=-1)]) is None
