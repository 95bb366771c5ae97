"""Rows holding the reference's numbers moved along the row (places.py)."""

from __future__ import annotations

import torch

from attention_by_hand.lab.places import rows_moved

E = torch.tril(torch.arange(1.0, 17.0).reshape(4, 4))  # a lower triangle, as causal weights are


def test_rows_each_rotated_by_their_own_amount_are_said_with_the_amounts():
    padded_left = torch.stack([torch.roll(E[i], 3 - i) for i in range(4)])
    said = rows_moved(padded_left, E)
    assert said is not None and "(row 0: by 3, row 1: by 2, row 2: by 1, row 3: by 0, of 4 places, on one input)" in said


def test_every_row_moved_by_one_amount_is_left_to_other_relations():
    assert rows_moved(torch.roll(E, 1, dims=-1), E) is None


def test_rows_with_their_numbers_in_another_order_than_a_rotation_are_not_said():
    shuffled = E[:, [1, 0, 3, 2]]
    assert rows_moved(shuffled, E) is None


def test_rows_in_place_are_not_said():
    assert rows_moved(E.clone(), E) is None


def test_rows_of_two_turned_round_are_not_said_as_moved():
    e = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert rows_moved(torch.stack([e[0], e[1].flip(0), e[2]]), e) is None


def test_rows_moved_are_said_where_a_hint_observes():
    from attention_by_hand.lab.relations import ends

    padded_left = torch.stack([torch.roll(E[i], 3 - i) for i in range(4)])
    said = ends([(padded_left, E, {})])
    assert said is not None and said.startswith("each row of yours holds the reference's row's numbers moved along the row")
