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


def nested(x):
    return x * 2, (x + 1, x - 3)
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


def _rows_scaled_tried(reference):
    """`three`'s first part with each row times its own factor, on a 3-row and a 5-row input."""
    xs = [torch.randn(n, 4, generator=torch.Generator().manual_seed(n)) for n in (3, 5)]
    wrong = [(2 * x * torch.arange(2.0, 2.0 + n)[:, None], x + 1, x - 3) for x, n in zip(xs, (3, 5))]
    return [Tried((x,), w, label) for x, w, label in zip(xs, wrong, ("small", "large"))]


def test_a_relation_under_a_check_shows_the_numbers_of_that_checks_own_input(reference):
    from attention_by_hand.lab.related import worded_for

    tried = _rows_scaled_tried(reference)
    found = related(reference, "three", tried, [reference.three(*t.args) for t in tried])
    assert found is not None and "factor of its own" in found.hint
    # 2 * arange(2, ...) on top of the reference's x * 2: row r is x(r + 2), the same on both inputs,
    # so the third row's factor tells the inputs apart only by being there: 3 rows, then 5
    words = worded_for(reference, "three", tried, found)
    small, large = words["small"], words["large"]
    assert "row 2: x4" in small and "rows right" not in small and ", ..." not in small
    assert "row 2: x4, ..." in large


def test_a_diagnosis_that_is_no_relation_is_said_as_it_was(reference):
    from attention_by_hand.lab.outcomes import Diagnosis
    from attention_by_hand.lab.related import worded_for

    found = Diagnosis("yours equals the reference with `x * 3` for `x * 2`", "three: x * 3")
    assert worded_for(reference, "three", _rows_scaled_tried(reference), found) == {"small": found.hint, "large": found.hint}


def test_a_part_inside_a_returned_pair_is_said_as_its_entry_with_its_axes_moved(reference):
    # the cache's keys kept transposed: a square input keeps its shape, the other shows the axes moved
    xs = [torch.randn(n, 4, generator=torch.Generator().manual_seed(n)) for n in (4, 3)]
    expected = [reference.nested(x) for x in xs]
    tried = [Tried((x,), (e[0], (e[1][0].transpose(-2, -1), e[1][1]))) for x, e in zip(xs, expected)]
    found = related(reference, "nested", tried, expected)
    assert found is not None and found.hint.startswith("entry 1 of part 2 of what you return: ")
    assert "axes in another order" in found.hint and "its 1, 0" in found.hint


def test_a_part_that_is_an_argument_as_given_is_said_so_before_any_relation(reference):
    # a cache returned as it came: nothing was added to it
    xs = [torch.randn(n, 4, generator=torch.Generator().manual_seed(n)) for n in (4, 3)]
    expected = [reference.nested(x) for x in xs]
    tried = [Tried((x,), (e[0], (x.clone(), e[1][1]))) for x, e in zip(xs, expected)]
    found = related(reference, "nested", tried, expected)
    assert found is not None and found.hint == "entry 1 of part 2 of what you return: yours is `x` as it was given, unchanged"


def test_a_tuple_nested_two_deep_is_left_alone_not_a_crash(reference):
    xs = [torch.randn(3, 4, generator=torch.Generator().manual_seed(s)) for s in (0, 1)]
    expected = [(x * 2, ((x + 1, x - 3), x)) for x in xs]
    tried = [Tried((x,), (-e[0], e[1])) for x, e in zip(xs, expected)]
    assert related(reference, "three", tried, expected) is None
