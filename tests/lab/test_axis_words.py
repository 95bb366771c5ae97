"""The sizes a reference's docstring names, read off its arguments (axis_words.py)."""

from __future__ import annotations

import torch

from attention_by_hand.lab.axis_words import docstring_sizes


def score(pattern, period):
    """A score per head.

    pattern: (batch, heads, T, T) on repeated sequences  ->  (heads,)
    """


def backward(q, k, lse, scale):
    """q, k: (..., T, head_size); lse: (..., T), and scale: a number  ->  dq: (..., T, head_size)"""


def lookup(ids, weight):
    """ids: (n,) whole numbers; weight: (n_vocabulary, d_model)  ->  (n, d_model)"""


def test_every_axis_word_gets_its_size():
    assert docstring_sizes(score, (torch.zeros(2, 3, 5, 5), 2)) == {"batch": 2, "heads": 3, "T": 5}


def test_words_after_an_ellipsis_count_from_the_right():
    args = (torch.zeros(4, 2, 7, 8), torch.zeros(4, 2, 7, 8), torch.zeros(4, 2, 7), 0.5)
    assert docstring_sizes(backward, args) == {"T": 7, "head_size": 8}


def test_a_word_with_two_sizes_on_one_call_is_left_out():
    args = (torch.zeros(7, 8), torch.zeros(6, 8), torch.zeros(7), 0.5)
    assert docstring_sizes(backward, args) == {"head_size": 8}


def test_a_tensor_of_another_rank_than_its_docstring_says_is_skipped():
    assert docstring_sizes(lookup, (torch.zeros(3, dtype=torch.long), torch.zeros(2, 5, 4))) == {"n": 3}


def test_an_argument_that_is_no_tensor_gives_nothing():
    assert docstring_sizes(score, ([[0.5]], 2)) == {}


def test_a_docstring_word_for_a_number_a_local_names_is_not_added():
    # decode_step's `C` is d_model: a second name for it would leave that size unnamed (ambiguous)
    from attention_by_hand.lab.outcomes import known_numbers
    from attention_by_hand.lab.registry import LABS
    from labhelpers import REFERENCES, load_lab

    lab = LABS[7]
    reference = load_lab(REFERENCES[lab.filename])
    qkv, proj = torch.nn.Linear(8, 24), torch.nn.Linear(8, 8)
    cache = (torch.zeros(2, 2, 3, 4), torch.zeros(2, 2, 3, 4))
    known = known_numbers(reference, "decode_step", (torch.zeros(2, 1, 8), cache, 3, qkv, proj, 2))
    assert known["C"] == 8 and "d_model" not in known and known["B"] == 2


def test_two_docstring_words_equal_on_one_input_are_both_kept():
    # lab 02's one_hot_lookup: three ids into a table three wide; d_model still names the width
    from attention_by_hand.lab.outcomes import known_numbers
    from attention_by_hand.lab.registry import LABS
    from labhelpers import REFERENCES, load_lab

    reference = load_lab(REFERENCES[LABS[1].filename])
    known = known_numbers(reference, "one_hot_lookup", (torch.tensor([0, 2, 1]), torch.zeros(5, 3)))
    assert known["n"] == 3 and known["d_model"] == 3


def test_a_docstring_word_never_names_an_axis_size_taken_from_the_wrong_number():
    from attention_by_hand.lab.shape_relations import Known, sizes_named

    def known():
        k = Known({"heads": 3.0, "T": 9.0})
        k.words = frozenset({"heads", "T"})
        return k

    said = sizes_named([(torch.ones(9), torch.ones(3), known())])
    assert said is None or ("`heads`" not in said and "`T`" not in said)


def _fdef(code: str):
    import ast

    return ast.parse(code).body[0]


WIDTHS = '''
def f(q, v):
    """q: (..., T, head_size); v: (T, d_v)"""
'''


def test_a_size_read_off_another_tensor_is_said_in_the_docstrings_words():
    import ast

    from attention_by_hand.lab.axis_words import size_words

    at = ast.parse("v.shape[-1]", mode="eval").body
    assert size_words(_fdef(WIDTHS), "q", "v", at) == " (d_v, not head_size)"
    # axis 0 of q is behind '...': no word for it, so nothing is said
    assert size_words(_fdef(WIDTHS), "q", "v", ast.parse("v.shape[0]", mode="eval").body) == ""
