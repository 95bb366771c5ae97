"""call_pitfalls: the pieces of `split(1)` joined along another axis, said from the code, and only
where the joined tensor is used as it is."""

from __future__ import annotations

import ast
import textwrap

from attention_by_hand.lab.call_pitfalls import call_pitfalls


def _said(source: str) -> list[str]:
    return [words for _, words, _ in call_pitfalls(ast.parse(textwrap.dedent(source)).body[0])]


def test_cat_of_pieces_indexed_after_is_said_nothing():
    assert _said("def f(t):\n    return torch.cat(t.split(1), dim=-1)[0]\n") == []


def test_cat_of_pieces_squeezed_after_is_said_nothing():
    assert _said("def f(t):\n    return torch.cat(t.split(1), dim=-1).squeeze(0)\n") == []


def test_an_axis_written_as_an_expression_is_said_nothing_and_raises_nothing():
    assert _said("def f(t, d):\n    return torch.cat(t.split(1), dim=-d)\n") == []


def test_the_tensor_split_is_bracketed_where_it_is_an_expression():
    said = _said("def f(a, b):\n    return torch.cat((a + b).split(1), dim=-1)\n")
    assert len(said) == 1 and "`(a + b).unbind(0)` gives pieces without it" in said[0]


def test_cat_of_pieces_of_one_along_another_axis_is_said_to_keep_the_cut_axis():
    said = _said("def f(t):\n    return torch.cat(t.split(1), dim=-1)\n")
    assert len(said) == 1 and "each keeps the axis it was cut from, with size 1" in said[0] and "`t.unbind(0)`" in said[0]


def test_cat_of_pieces_along_the_axis_they_were_cut_from_is_said_nothing():
    assert _said("def f(t):\n    return torch.cat(t.split(1), dim=0)\n") == []


def test_cat_of_pieces_of_two_is_said_nothing():
    assert _said("def f(t):\n    return torch.cat(t.split(2), dim=-1)\n") == []
