"""Mistakes of the kinds the retired set AT held, each written here another way than set AT's file:
an end of `arange` or `linspace` written as a length, two index tensors in two brackets, axes counted
from 1, MATLAB's `meshgrid` of one vector, `segment_reduce`'s lengths read as columns; and lab 08's
check of several words from a start other than 2."""

from __future__ import annotations

import ast

from labhelpers import REFERENCES, failed_hints, load_lab

from attention_by_hand.lab.call_words import call_words
from attention_by_hand.lab.layout_mends import layout_mends
from attention_by_hand.lab.range_mends import range_mends
from attention_by_hand.lab.reading_mends import reading_mends


def _said(mends, source: str, op: str) -> list[str]:
    fdef = ast.parse(source).body[0]
    return [c.said for c in mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == op]


# the positions as a range whose end counts the words, not where they end
POSITIONS_TO_A_LENGTH = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    places = torch.arange(start, tokens.shape[-1])
    return token_embedding(tokens) + position_embedding(places)
'''


def test_an_end_of_arange_written_as_a_length_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", POSITIONS_TO_A_LENGTH, "embed_at")
    assert found and all("`arange`'s end is a position" in h and "`start + tokens.shape[-1]`" in h for h in found)


def test_an_end_that_holds_the_start_or_a_number_is_not_made_longer():
    source = "def f(a, n):\n    return torch.arange(a, a + n) + torch.linspace(0, n, 5) + torch.arange(a, 9)\n"
    assert _said(range_mends, source, "stop_length") == []


# the positions as a linspace ending where the words would end from 0: right only from position 2 on
# the old checks (T - 1 + 2 is T + 1); the check of three words from position 4 tells them apart
POSITIONS_FROM_2 = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    T = tokens.shape[-1]
    return token_embedding(tokens) + position_embedding(torch.linspace(start, T + 1, T).round().long())
'''


def test_lab_08_tells_positions_that_fit_only_from_2_from_the_right_ones(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", POSITIONS_FROM_2, "embed_at")
    assert found


# each head's weight on its previous token, rows and columns picked in two brackets
PREVIOUS_IN_TWO_BRACKETS = '''
def previous_token_score(pattern):
    T = pattern.shape[-1]
    rows = torch.arange(1, T)
    picked = pattern[..., rows, :][..., rows - 1]
    return picked.mean(dim=(0, 2))
'''


def test_two_brackets_for_one_are_joined_only_where_the_second_adds_one_index():
    source = ("def f(p, r):\n    return p[:, r][:, :, r - 1] + p[:, :2][:, :, 0] + p[:, r][0, :, r] + p[r][:, 1:]"
              " + p[..., r][:, :, r] + p[:, 0][:, :, r]\n")
    assert _said(layout_mends, source, "one_bracket") == ["`p[:, r, r - 1]` for `p[:, r][:, :, r - 1]`"]


def test_two_brackets_in_lab_11_are_named(tmp_path):
    source = PREVIOUS_IN_TWO_BRACKETS.replace("pattern[..., rows, :][..., rows - 1]", "pattern[:, :, rows][:, :, :, rows - 1]")
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", source, "previous_token_score")
    assert found and all("two brackets index apart" in h for h in found)


# the batch and the rows summed by their numbers counted from 1
FIRST_TOKEN_FROM_ONE = '''
def first_token_score(pattern):
    return pattern[:, :, 1:, 0].mean(dim=(1, 3))
'''


def test_axes_counted_from_one_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", FIRST_TOKEN_FROM_ONE, "first_token_score")
    assert found and all("axes counted from 1" in h and "`(0, 2)` for `(1, 3)`" in h for h in found)


def test_only_tuples_of_whole_numbers_from_one_are_counted_down():
    source = "def f(x):\n    return x.sum((1, 2)) + x.mean((0, 2)) + x.amax(dim=(-1, 1)) + x.view(2, 3) + x.sum(1)\n"
    assert _said(reading_mends, source, "axes_from_one") == ["`(0, 1)` for `(1, 2)`"]


def test_tuples_that_name_no_axes_are_not_counted_down():
    source = "def f(x):\n    return F.pad(x, (1, 1)) + x.roll((1, 1), (1, 2)) + x.view((2, 3)) + x.repeat((1, 2))\n"
    assert _said(reading_mends, source, "axes_from_one") == ["`(0, 1)` for `(1, 2)`"]  # roll's axes, not its shifts


# MATLAB's meshgrid of one vector, unpacked into two grids
MASK_FROM_ONE_GRID = '''
def causal_mask(T):
    rows, cols = torch.meshgrid(torch.arange(T), indexing="ij")
    return cols > rows
'''


def test_meshgrid_of_one_vector_is_said_to_make_one_grid(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_FROM_ONE_GRID, "causal_mask")
    assert found and all("`meshgrid`, which the reference does not call, makes ONE grid per tensor" in h for h in found)


def test_segment_reduce_is_said_to_cut_consecutive_segments():
    lab = load_lab(REFERENCES["lab-02-embeddings-softmax.py"])
    line = 'top = torch.segment_reduce(s.flatten(), "max", lengths=torch.tensor([rows] * n))'
    assert "cuts the data along its axis into CONSECUTIVE segments" in (call_words([line], lab, "softmax") or "")
