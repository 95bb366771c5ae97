"""What a variable used for another means (name_words.py): the steps left out, or what it is."""

from __future__ import annotations

import ast

from attention_by_hand.lab.name_words import gloss

CODE = '''
def f(scores, values, x, k):
    writes = scores.softmax(-1) @ values
    doubled = x * 2
    shifted = doubled + 1
    T = k.shape[0]
    size = k.shape[-1]
    return writes.sum(0) + shifted / size
'''


def _fdef():
    return ast.parse(CODE).body[0]


RETURN_LINE = 8


def test_a_name_made_from_the_one_used_says_the_references_step():
    assert gloss(_fdef(), "writes", "values", RETURN_LINE) == (
        ": the reference makes `writes` from `values` (`writes = scores.softmax(-1) @ values`)")


def test_two_steps_are_said_in_their_order():
    assert gloss(_fdef(), "shifted", "x", RETURN_LINE) == (
        ": the reference makes `shifted` from `x` in 2 steps (`doubled = x * 2`, then `shifted = doubled + 1`)")


def test_a_name_used_that_the_reference_makes_is_said_with_its_line():
    assert gloss(_fdef(), "size", "T", RETURN_LINE) == " (the reference's `T` is made by `T = k.shape[0]`)"


def test_an_argument_used_for_a_name_not_made_from_it_gets_no_words():
    assert gloss(_fdef(), "size", "scores", RETURN_LINE) == ""


def test_a_name_made_only_after_the_line_is_not_said():
    assert gloss(_fdef(), "doubled", "T", 4) == ""


SIZES = '''
def g(x, q, k, n_heads):
    scores = q @ k.T
    scores = scores.masked_fill(torch.ones(x.shape[-2], x.shape[-2]).bool(), 0.0)
    head_size = q.shape[-1] // n_heads
    return scores.softmax(-1) / head_size
'''


def _g():
    return ast.parse(SIZES).body[0]


def test_a_name_read_only_for_its_size_is_no_step_left_out():
    # the mask's step measures x; the scores are made from q and k
    assert gloss(_g(), "scores", "x", 6) == ""


def test_a_name_made_again_is_followed_back_to_its_first_making():
    said = gloss(_g(), "scores", "q", 6)
    assert said.startswith(": the reference makes `scores` from `q` in 2 steps (`scores = q @ k.T`, then `scores = scores.masked_fill(")


def test_whole_number_arithmetic_is_no_step_left_out():
    assert gloss(_g(), "head_size", "n_heads", 6) == ""
