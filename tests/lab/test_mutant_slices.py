"""mutant_slices: the colon on the other side of a slice's one bound, a subscript one `, :` short, a bound
left open, and two parts of a subscript exchanged."""

from __future__ import annotations

import ast

import pytest
import torch

from attention_by_hand.lab.mutant_slices import colon_swapped, one_short, parts_swapped, unbound


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


@pytest.mark.parametrize(("code", "bound", "opened"), [("m[i, i + 1:-1]", "upper", "m[i, i + 1:]"), ("ids[1:]", "lower", "ids[:]")])
def test_a_bound_left_open_runs_the_slice_to_that_end(code, bound, opened):
    node = _node(code)
    cut = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) else node.slice
    parts = ast.Tuple([unbound(cut, bound) if p is cut else p for p in node.slice.elts], ast.Load()) if isinstance(
        node.slice, ast.Tuple) else unbound(cut, bound)
    assert ast.unparse(ast.Subscript(node.value, parts, ast.Load())) == opened


def test_two_parts_exchanged_index_each_others_axis():
    p = torch.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4)
    i = 2
    swapped = ast.unparse(parts_swapped(_node("p[:, i, :, i - 1]"), 1))
    assert swapped == "p[:, :, i, i - 1]"
    assert torch.equal(eval(swapped), p[:, :, i, i - 1])  # noqa: S307 - our own string


@pytest.mark.parametrize(("code", "at"), [("p[:, :, i]", 0), ("p[i, j]", 1), ("p[i]", 0)])
def test_parts_that_read_alike_or_are_missing_are_left_alone(code, at):
    assert parts_swapped(_node(code), at) is None
