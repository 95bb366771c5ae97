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


def test_int_of_an_argument_annotated_float_is_said_to_truncate():
    said = _said("def f(counts, smoothing: float = 1.0):\n    return counts + int(smoothing)\n")
    assert len(said) == 1 and "`int(smoothing)`" in said[0] and "0.5 becomes 0" in said[0]


def test_floor_of_an_argument_with_a_float_default_is_said_to_truncate():
    said = _said("def f(x, scale=0.5):\n    return x * math.floor(scale)\n")
    assert len(said) == 1 and "`math.floor(scale)`" in said[0]


def test_int_of_an_argument_annotated_int_is_said_nothing():
    assert _said("def f(x, n: int = 2):\n    return x[: int(n)]\n") == []


def test_int_of_a_local_is_said_nothing():
    assert _said("def f(x, smoothing: float = 1.0):\n    s = smoothing * 2\n    return x + int(s)\n") == []


def test_grad_of_an_argument_copied_through_a_comprehension_is_said_to_stay_none():
    said = _said("def f(a, b, g):\n    a2, b2 = (t.detach().requires_grad_() for t in (a, b))\n"
                 "    (a2 * b2).backward(g)\n    return a.grad, b.grad\n")
    assert len(said) == 1 and "`a.grad`, `b.grad`" in said[0] and "stay None" in said[0]


def test_grad_of_an_argument_cloned_directly_is_said_once_with_both_lines():
    found = call_pitfalls(ast.parse("def f(x, g):\n    y = x.clone().requires_grad_()\n    (y * y).sum().backward()\n"
                                    "    return x.grad\n").body[0])
    assert [(line, where) for line, _, where in found] == [(4, [4, 2])] and "`x.grad` ({0}) reads" in found[0][1]


def test_grad_of_an_argument_made_to_require_grad_itself_is_said_nothing():
    assert _said("def f(x):\n    x.requires_grad_()\n    (x * x).sum().backward()\n    return x.grad\n") == []


def test_an_argument_given_its_own_copy_as_its_value_is_said_nothing():
    assert _said("def f(q, k, g):\n    q, k = (t.detach().clone().requires_grad_() for t in (q, k))\n"
                 "    (q * k).sum().backward()\n    return q.grad, k.grad\n") == []


def test_a_gradient_cloned_after_the_backward_is_no_copy_of_the_argument():
    assert _said("def f(x):\n    x.requires_grad_()\n    (x * x).sum().backward()\n    return x.grad.clone()\n") == []
