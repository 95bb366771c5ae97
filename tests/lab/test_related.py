"""related.py: a relation of the learner's output, said of each part of a returned tuple."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from attention_by_hand.lab.outcomes import Tried
from attention_by_hand.lab.related import related

SOURCE = '''
import torch


def three(x):
    return x * 2, x + 1, x - 3
'''


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("related") / "toy_three.py"
    path.write_text(SOURCE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("toy_three", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tried(reference, wrong):
    xs = [torch.randn(3, 4, generator=torch.Generator().manual_seed(s)) for s in (0, 1)]
    expected = [reference.three(x) for x in xs]
    return [Tried((x,), wrong(e)) for x, e in zip(xs, expected)], expected


def test_every_part_negated_is_said_of_every_part_at_once(reference):
    tried, expected = _tried(reference, lambda e: tuple(-t for t in e))
    found = related(reference, "three", tried, expected)
    assert found is not None and found.hint.startswith("parts 1, 2 and 3 of what you return, each: ")
    assert "negated" in found.hint


def test_one_part_negated_is_said_of_that_part_alone(reference):
    tried, expected = _tried(reference, lambda e: (e[0], -e[1], e[2]))
    found = related(reference, "three", tried, expected)
    assert found is not None and found.hint.startswith("part 2 of what you return: ") and "negated" in found.hint


def test_parts_wrong_in_different_ways_are_said_by_the_first_that_shows_a_relation(reference):
    tried, expected = _tried(reference, lambda e: (-e[0], e[1].T.contiguous().T + 7.5, e[2]))
    found = related(reference, "three", tried, expected)
    assert found is not None and found.hint.startswith("part 1 of what you return: ")
