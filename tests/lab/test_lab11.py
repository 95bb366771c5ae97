"""Lab 11 on its own: right answers written otherwise pass, the reference agrees with the run's
detectors, and the checks' inputs keep the mistakes apart.

The typical mistakes (tests/fixtures/labs/lab11-*.py) are judged with every lab's in
tests/lab/test_checks.py; the reference lab runs and checks itself in tests/lab/test_references.py.
"""

from __future__ import annotations

import pytest
import torch

from attention_by_hand.lab.labs.lab11.checks import checks
from attention_by_hand.lab.registry import lab_numbered, reference_path
from attention_by_hand.lab.verdict import check_in_process, load_reference
from attention_by_hand.math import detectors as D
from labhelpers import FIXTURES_DIR, expectation, learner_file, load_lab

LAB = lab_numbered(11)
RIGHT = sorted(p for p in FIXTURES_DIR.glob("lab11-*.py") if expectation(p)[1] == 0)


@pytest.fixture(scope="module")
def reference():
    return load_reference(reference_path(LAB))


def test_there_are_right_answers_written_otherwise():
    assert len(RIGHT) >= 2


@pytest.mark.parametrize("path", RIGHT, ids=lambda p: p.stem)
def test_a_right_answer_written_otherwise_passes_every_check(tmp_path, reference, path):
    run = check_in_process(load_lab(learner_file(path.name, tmp_path)), LAB, reference=reference)
    assert [r.hint for r in run.results if not r.passed] == [] and run.exit_code == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_references_detectors_equal_the_runs_on_random_patterns(reference, seed):
    g = torch.Generator().manual_seed(seed)
    T = 11
    scores = torch.randn(3, 4, T, T, generator=g, dtype=torch.float64).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    pattern = torch.softmax(scores, dim=-1)
    assert torch.allclose(reference.previous_token_score(pattern), D.previous_token_score(pattern), atol=1e-12)
    assert torch.allclose(reference.first_token_score(pattern), D.first_token_score(pattern), atol=1e-12)
    for period in (2, 4, 7):
        assert torch.allclose(reference.induction_score(pattern, period), D.induction_score(pattern, period), atol=1e-12)


@pytest.mark.parametrize("head", [0, 2, 3])
def test_the_references_ablation_equals_the_runs(reference, head):
    g = torch.Generator().manual_seed(head)
    T = 6
    scores = torch.randn(2, 4, T, T, generator=g, dtype=torch.float64).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    values = torch.randn(2, 4, T, 5, generator=g, dtype=torch.float64)
    assert torch.allclose(reference.ablate_head(scores, values, head), D.ablate_head(scores, values, head), atol=1e-12)


def test_every_pattern_the_checks_use_is_causal_with_rows_of_1_and_no_two_axes_alike():
    for check in checks(0):
        if check.function == "ablate_head":
            continue
        for case in check.cases:
            pattern = case[0]
            batch, heads, T, _ = pattern.shape
            assert (pattern.triu(1) == 0).all() and torch.allclose(pattern.sum(dim=-1), torch.ones(batch, heads, T))
            assert len({batch, heads, T - 1}) == 3, pattern.shape


def test_the_fixed_pattern_has_a_head_of_each_kind_above_the_threshold():
    (pattern,) = checks(0)[0].cases[0]
    assert D.previous_token_score(pattern)[0] > D.THRESHOLD
    assert D.induction_score(pattern, 3)[1] > D.THRESHOLD
    assert D.first_token_score(pattern)[2] > D.THRESHOLD


def test_the_ablation_inputs_hide_the_future_and_differ_in_batch_and_heads():
    for check in checks(0):
        if check.function != "ablate_head":
            continue
        for scores, values, head in check.cases:
            assert scores.shape[0] != scores.shape[1] and 0 <= head < scores.shape[1]
            assert torch.isinf(scores[..., 0, 1:]).all() and values.shape[:3] == scores.shape[:3]
