"""broadcast_words.misaligned_vector: the words for a 1-D tensor that broadcasting met with the last
axis, said only when the raising line shows one such tensor and one axis it fits."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from attention_by_hand.lab.broadcast_words import misaligned_vector


def _raised_here(make):
    with pytest.raises(RuntimeError) as raised:
        make()
    return raised.value


def test_a_vector_of_the_heads_met_by_the_last_axis_is_shaped_for_its_own():
    outs, keep = torch.ones(2, 3, 6, 4), torch.ones(3)
    error = _raised_here(lambda: outs * keep)
    said = misaligned_vector(error.__traceback__, Path(__file__).resolve(), str(error))
    assert said == ("`keep` is 1-D, of size 3, and broadcasting lines its one axis up with the last axis of `outs` "
                    "(2, 3, 6, 4); to meet axis 1, the one of size 3, it needs that axis's place, `keep[:, None, None]`; "
                    "if it is meant for the last axis, `outs`'s axes are not in the order meant")


def test_two_vectors_of_the_sizes_on_the_line_are_said_nothing():
    x, a, b = torch.ones(2, 3, 6, 4), torch.ones(3), torch.ones(4)
    error = _raised_here(lambda: x * a * b)
    assert misaligned_vector(error.__traceback__, Path(__file__).resolve(), str(error)) is None


def test_a_vector_already_shaped_beside_a_wrong_bias_is_said_nothing():
    x, g, bias = torch.ones(2, 3, 5, 4), torch.ones(3), torch.ones(2, 5, 4)
    error = _raised_here(lambda: x * g[:, None, None] + bias)
    assert misaligned_vector(error.__traceback__, Path(__file__).resolve(), str(error)) is None


def test_an_error_raised_outside_the_learners_file_is_said_nothing():
    outs, keep = torch.ones(2, 3, 6, 4), torch.ones(3)
    error = _raised_here(lambda: outs * keep)
    assert misaligned_vector(error.__traceback__, Path(sys.executable).resolve(), str(error)) is None


def test_a_tensor_that_fails_when_asked_its_size_is_said_nothing():
    class Odd(torch.Tensor):
        def dim(self):
            raise ValueError("no")

    outs, keep = torch.ones(2, 3, 6, 4), torch.ones(3).as_subclass(Odd)
    error = _raised_here(lambda: outs * keep.as_subclass(torch.Tensor))
    assert misaligned_vector(error.__traceback__, Path(__file__).resolve(), str(error)) is None


def test_names_that_only_index_the_operands_are_said_nothing():
    weight, tokens, pos = torch.ones(7, 4), torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, dtype=torch.long)
    error = _raised_here(lambda: weight[tokens] + weight[pos])
    assert misaligned_vector(error.__traceback__, Path(__file__).resolve(), str(error)) is None
