"""An output that is one of the function's own inputs as it was given (input_relations.py)."""

from __future__ import annotations

import torch

from attention_by_hand.lab.input_relations import added_input, formula_of_inputs, returned_unchanged
from attention_by_hand.lab.judging import close


def _agree(a, b) -> bool:
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and close(a, b)


X, Y = torch.arange(6.0).reshape(2, 3), torch.ones(2, 3)


def test_an_input_returned_as_it_came_is_named():
    said = returned_unchanged(["x", "y"], [(X, Y)], [X.clone()], [X + Y], _agree)
    assert said == "yours returns its input unchanged (`x`, as it was given): nothing it computes reaches what it returns"


def test_inputs_where_the_output_is_right_do_not_count():
    z = torch.zeros(2, 3)
    said = returned_unchanged(["x", "y"], [(z, z), (X, Y)], [z, X], [z, X + Y], _agree)
    assert said is not None and "`x`" in said


def test_another_input_returned_on_another_call_is_no_one_input():
    said = returned_unchanged(["x", "y"], [(X, Y), (X, Y * 2)], [X, Y * 2], [X + Y, X + 2 * Y], _agree)
    assert said is None


def test_an_output_that_equals_two_inputs_names_neither():
    assert returned_unchanged(["x", "y"], [(X, X.clone())], [X], [X * 2], _agree) is None


def test_an_output_that_is_no_input_is_not_said():
    assert returned_unchanged(["x", "y"], [(X, Y)], [X * 3], [X + Y], _agree) is None


def _g(seed):
    return torch.Generator().manual_seed(seed)


def test_an_input_added_to_each_part_is_said_part_by_part_with_its_factor():
    q, k = torch.randn(3, 4, generator=_g(0)), torch.randn(3, 4, generator=_g(1))  # (T, d) each
    dq, dk = torch.randn(3, 4, generator=_g(2)), torch.randn(3, 4, generator=_g(3))  # the reference's parts
    said = added_input(["q", "k"], [(q, k)], [(dq + 0.01 * q, dk + 0.01 * k)], [(dq, dk)])
    assert said is not None and "part 1 plus 0.01 times `q`" in said and "part 2 plus 0.01 times `k`" in said


def test_an_input_added_once_as_it_was_given_is_said_without_a_factor():
    x, out = torch.randn(4, 6, generator=_g(4)), torch.randn(4, 6, generator=_g(5))  # (T, d)
    said = added_input(["x"], [(x,)], [out + x], [out])
    assert said == "yours is the reference's output plus `x`, an input as it was given: a term the reference does not add"


def test_a_difference_that_is_no_multiple_of_an_input_is_not_said_added():
    x, out = torch.randn(4, 6, generator=_g(6)), torch.randn(4, 6, generator=_g(7))
    assert added_input(["x"], [(x,)], [out + x * x], [out]) is None


def test_an_output_that_is_a_plain_formula_of_the_inputs_is_said_as_that_formula():
    p = torch.softmax(torch.randn(2, 5, generator=_g(8)), dim=-1)
    dp = torch.randn(2, 5, generator=_g(9))
    expected = p * (dp - (p * dp).sum(dim=-1, keepdim=True))  # softmax's backward
    said = formula_of_inputs(["p", "dp"], [(p, dp)], [p - dp], [expected])
    assert said == "yours is `p - dp` on every input, a formula of the inputs alone; the reference's is not"


def test_a_row_centred_input_is_said_with_the_mean_in_code():
    p = torch.softmax(torch.randn(2, 5, generator=_g(10)), dim=-1)
    dp = torch.randn(2, 5, generator=_g(11))
    expected = p * (dp - (p * dp).sum(dim=-1, keepdim=True))
    said = formula_of_inputs(["p", "dp"], [(p, dp)], [dp - dp.mean(dim=-1, keepdim=True)], [expected])
    assert said is not None and "`dp - dp.mean(dim=-1, keepdim=True)`" in said


def test_no_formula_is_said_where_the_reference_computes_that_same_formula():
    a, b = torch.randn(3, 3, generator=_g(12)), torch.randn(3, 3, generator=_g(13))
    assert formula_of_inputs(["a", "b"], [(a, b)], [a * b * 2], [a * b]) is None
    assert formula_of_inputs(["a", "b"], [(a, b)], [a + b], [a + b]) is None


def test_an_input_left_out_is_said_as_less_of_it_not_as_a_term_added():
    x, f = torch.randn(4, 6, generator=_g(14)), torch.randn(4, 6, generator=_g(15))  # (T, d)
    said = added_input(["x"], [(x,)], [f], [x + f])  # a residual forgotten
    assert said is not None and "minus `x`" in said and "does not add" not in said


def test_an_input_of_one_number_everywhere_explains_no_difference():
    ones, out = torch.ones(4, 6), torch.randn(4, 6, generator=_g(16))
    assert added_input(["weight"], [(ones,)], [out + 1], [out]) is None


def test_a_formula_that_is_one_input_as_it_was_given_is_not_said():
    param, zeros = torch.randn(3, 4, generator=_g(17)), torch.zeros(3, 4)
    expected = param - 0.1 * torch.randn(3, 4, generator=_g(18))
    assert formula_of_inputs(["param", "m"], [(param, zeros)], [param.clone()], [expected]) is None


def test_a_formula_that_cannot_be_made_on_another_input_is_not_said_and_raises_nothing():
    a, b = torch.randn(3, 3, generator=_g(19)), torch.randn(3, 3, generator=_g(20))
    c, d = torch.randn(3, 3, generator=_g(21)), torch.randn(3, 1, generator=_g(22))  # (3, 1): a - b broadcasts here
    inputs, gots = [(a, b), (c, d[:2])], [a - b, torch.randn(3, 3, generator=_g(23))]
    assert formula_of_inputs(["a", "b"], inputs, gots, [a * b, c * 2]) is None
