"""call_pitfalls: calls whose defaults read otherwise than they look, said from the code."""

from __future__ import annotations

import ast
import textwrap

from attention_by_hand.lab.call_pitfalls import call_pitfalls


def _said(source: str) -> list[str]:
    return [words for _, words, _ in call_pitfalls(ast.parse(textwrap.dedent(source)).body[0])]


def test_take_of_a_table_is_said_to_read_it_flat():
    said = _said('''
    def pick(table, rows, cols):
        picked = table[rows]
        return torch.take(picked, cols)
    ''')
    assert said == ["`torch.take(picked, cols)` ({0}) reads `picked` as one flat row, its rows end to end: `cols` are "
                    "positions in `picked.flatten()`, not one column of each row; one entry per row is "
                    "`picked.gather(-1, cols[..., None])`"]


def test_take_as_a_method_is_said_too():
    assert len(_said("def f(x, i):\n    return x.take(i)\n")) == 1


def test_tensordot_given_its_dims_is_said_nothing():
    assert _said("def f(a, b):\n    return torch.tensordot(a, b, dims=1)\n") == []


def test_tensordot_given_dims_by_position_is_said_nothing():
    assert _said("def f(a, b):\n    return torch.tensordot(a, b, ([1], [0]))\n") == []


def test_tensordot_without_dims_is_said():
    said = _said("def f(a, b):\n    return torch.tensordot(a, b)\n")
    assert len(said) == 1 and "the default, 2, contracts the last two axes of `a` with the first two of `b`" in said[0]


def test_cat_of_pieces_of_one_along_another_axis_is_said_to_keep_the_cut_axis():
    said = _said("def f(t):\n    return torch.cat(t.split(1), dim=-1)\n")
    assert len(said) == 1 and "each keeps the axis it was cut from, with size 1" in said[0] and "`t.unbind(0)`" in said[0]


def test_cat_of_pieces_along_the_axis_they_were_cut_from_is_said_nothing():
    assert _said("def f(t):\n    return torch.cat(t.split(1), dim=0)\n") == []


def test_cat_of_pieces_of_two_is_said_nothing():
    assert _said("def f(t):\n    return torch.cat(t.split(2), dim=-1)\n") == []
