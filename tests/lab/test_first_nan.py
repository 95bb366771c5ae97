"""Where a learner's function first made a nan (first_nan.py), and the hint that says so."""

from __future__ import annotations

import importlib.util

import torch

from attention_by_hand.lab.first_nan import first_nan, has_nan
from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.verdict import check_in_process
from labhelpers import REFERENCES, load_lab, patch_lab

LEARNER = '''
import torch


def spread(x):
    total = x.sum(dim=-1, keepdim=True)
    shares = x / total
    return shares * 2


def calls_a_helper(x):
    y = x + 1
    return spread(y - 1)
'''


def _module(tmp_path):
    path = tmp_path / "learner.py"
    path.write_text(LEARNER, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("learner", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_the_line_that_made_the_first_nan_is_found_with_its_code_and_name(tmp_path):
    module, path = _module(tmp_path)
    x = torch.tensor([[0.0, 0.0], [1.0, 3.0]])  # row 0 sums to 0: 0 / 0
    assert first_nan(lambda: module.spread(x), path) == (7, "shares", "shares = x / total")


def test_a_nan_made_in_a_helper_is_found_in_the_helper(tmp_path):
    module, path = _module(tmp_path)
    x = torch.tensor([[0.0, 0.0]])
    assert first_nan(lambda: module.calls_a_helper(x), path)[:2] == (7, "shares")


def test_a_call_that_makes_no_nan_finds_none(tmp_path):
    module, path = _module(tmp_path)
    assert first_nan(lambda: module.spread(torch.ones(2, 2)), path) is None


def test_a_call_given_a_nan_is_not_traced_and_one_that_made_it_is(tmp_path):
    from attention_by_hand.lab.calls import call_all
    from attention_by_hand.lab.wire import encode

    module, path = _module(tmp_path)
    calls = [{"id": 0, "function": "spread", "args": [encode(torch.tensor([[float("nan"), 1.0]]))]},
             {"id": 1, "function": "spread", "args": [encode(torch.tensor([[0.0, 0.0]]))]}]
    events = []
    call_all(module, calls, path.resolve(), lambda **e: events.append(e))
    results = {e["id"]: e for e in events if e["event"] == "result"}
    assert "nan" not in results[0] and results[1]["nan"] == [7, "shares", "shares = x / total", False]


def test_has_nan_looks_inside_pairs():
    assert has_nan((torch.ones(2), torch.tensor([1.0, float("nan")])))
    assert not has_nan((torch.ones(2), torch.tensor([1.0, float("inf")])))


SMOOTHED_AFTER_DIVIDING = '''
def counts_to_probs(counts, smoothing=1.0):
    shares = counts / counts.sum(dim=1, keepdim=True)
    shares = shares + smoothing
    return shares / shares.sum(dim=1, keepdim=True)
'''


def test_a_hint_that_observes_a_nan_says_where_the_learners_code_made_it(tmp_path):
    path = tmp_path / "lab-03-bigram.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), SMOOTHED_AFTER_DIVIDING), encoding="utf-8")
    run = check_in_process(load_lab(path), LABS[2])
    (hint,) = [r.hint for r in run.results if not r.passed and "nan" in r.hint]
    assert "the first nan was made at line" in hint and "`shares = counts / counts.sum(dim=1, keepdim=True)` (stored in `shares`)" in hint


def test_a_nan_typed_into_the_line_is_said_to_spread():
    from attention_by_hand.lab.first_nan import written_nan

    said = written_nan('scores = scores.masked_fill(mask, float("nan"))')
    assert "typed there by hand" in said and "`float('-inf')`" in said


def test_torch_nan_is_a_nan_typed_too():
    from attention_by_hand.lab.first_nan import written_nan

    assert written_nan("x = torch.where(m, torch.nan, s)") != ""


def test_a_line_that_types_no_nan_says_nothing_more():
    from attention_by_hand.lab.first_nan import written_nan

    assert written_nan("e = torch.exp(scores - m)") == "" and written_nan("x = nanmean(y)") == ""


def test_a_nan_typed_as_a_tensors_start_is_no_fill():
    from attention_by_hand.lab.first_nan import written_nan

    assert written_nan('out = torch.full((T, d), float("nan"))') == ""


def test_a_nan_assigned_into_chosen_entries_is_a_fill():
    from attention_by_hand.lab.first_nan import written_nan

    assert written_nan("s[hidden] = math.nan") != ""
