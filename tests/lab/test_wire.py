"""The wire format between the checker and its child, and the calls the child makes."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn

from attention_by_hand.lab.calls import call_all
from attention_by_hand.lab.unchanged import same
from attention_by_hand.lab.wire import Foreign, NumpyArray, decode, encode


def test_tensors_cross_the_wire_exactly_with_nan_and_infinity():
    t = torch.tensor([[0.1, float("nan")], [float("inf"), -float("inf")]], dtype=torch.float32)
    back = decode(encode(t))
    assert back.dtype == torch.float32 and torch.equal(back.isnan(), t.isnan())
    assert torch.equal(back.nan_to_num(0.0), t.nan_to_num(0.0))


def test_modules_cross_the_wire_with_their_weights():
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4))
    norm, table = nn.LayerNorm(4), nn.Embedding(5, 4)
    x = torch.randn(3, 4)
    with torch.no_grad():
        assert torch.equal(decode(encode(mlp))(x), mlp(x))
        assert torch.equal(decode(encode(norm))(x), norm(x))
        assert torch.equal(decode(encode(table))(torch.tensor([0, 4])), table(torch.tensor([0, 4])))


def test_outputs_the_checker_does_not_read_arrive_as_what_they_are():
    assert isinstance(decode(encode(np.zeros((2, 2)))), NumpyArray)
    assert decode(encode(torch.zeros(400, 400))).shape == (400, 400)  # too large: shape only
    assert isinstance(decode(encode(object())), Foreign)
    assert decode(encode((1, [2.5, None]))) == (1, [2.5, None])


def test_an_input_with_nan_in_it_is_not_taken_for_a_changed_one():
    t = torch.tensor([1.0, float("nan"), float("-inf")])
    assert same(t, t.clone()) and not same(t, torch.tensor([0.0, float("nan"), float("-inf")]))


class _Module:
    """A learner's module: one function that changes its input, one that raises."""

    __file__ = __file__

    @staticmethod
    def doubles_in_place(x):
        x.mul_(2)
        return x

    @staticmethod
    def raises(x):
        return x[10]


def _events(function: str) -> list[dict]:
    events: list[dict] = []
    calls = [{"id": 0, "function": function, "args": [encode(torch.ones(2))]}]
    call_all(_Module, calls, __import__("pathlib").Path(__file__), lambda **e: events.append(e))
    return events


def test_a_call_that_changes_its_argument_in_place_is_reported_with_its_position():
    result = next(e for e in _events("doubles_in_place") if e["event"] == "result")
    assert result["changed"] == [0]


def test_a_call_that_raises_is_reported_and_the_run_goes_on_to_done():
    events = _events("raises")
    assert [e["event"] for e in events] == ["start", "raised", "done"] and events[1]["type"] == "IndexError"
