"""mutant_slices: the colon on the other side of a slice's one bound, and a subscript one `, :` short."""

from __future__ import annotations

import ast

import pytest
import torch

from attention_by_hand.lab.mutant_slices import colon_swapped, one_short


def _node(code: str) -> ast.Subscript:
    return ast.parse(code, mode="eval").body


@pytest.mark.parametrize(("code", "swapped"), [("ids[1:]", "ids[:1]"), ("ids[:-1]", "ids[-1:]")])
def test_a_slice_of_one_bound_gets_its_colon_on_the_other_side(code, swapped):
    node = _node(code)
    assert ast.unparse(ast.Subscript(node.value, colon_swapped(node.slice), ast.Load())) == swapped


@pytest.mark.parametrize("code", ["ids[1:3]", "ids[:]", "ids[1::2]"])
def test_a_slice_of_two_bounds_none_or_a_step_is_left_alone(code):
    assert colon_swapped(_node(code).slice) is None


def test_a_subscript_one_colon_short_slices_the_last_axis():
    k = torch.arange(2 * 5 * 3).reshape(2, 5, 3)
    short = ast.unparse(one_short(_node("k[..., 1:3, :]")))
    assert short == "k[..., 1:3]"
    assert eval(short).shape == (2, 5, 2) and k[..., 1:3, :].shape == (2, 2, 3)  # noqa: S307 - our own two strings


@pytest.mark.parametrize("code", ["k[1:3, :]", "k[..., :]", "k[..., 1:3]", "k[..., i, :]"])
def test_a_subscript_without_ellipsis_a_final_colon_or_a_cut_is_left_alone(code):
    assert one_short(_node(code)) is None
