"""Relations between a learner's output and the reference's (relations.py): each is said only when
it holds on every input given."""

from __future__ import annotations

import math

import pytest
import torch

from attention_by_hand.lab.relations import ends, relation


def outputs(seed: int, shape=(4, 4)) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).abs() + 0.1


def on_two(make, known=({}, {}), shape=(4, 4)):
    """(got, expected, known) on two inputs, got = make(expected)."""
    return [(make(e), e, k) for e, k in zip((outputs(0, shape), outputs(1, shape)), known)]


def test_a_transposed_output_is_said():
    assert "transposed" in relation(on_two(lambda e: e.T))


def test_a_negated_output_is_said():
    assert "negated" in relation(on_two(lambda e: -e))


def test_the_log_of_the_output_is_said():
    assert "log" in relation(on_two(torch.log))


def test_the_exp_of_the_output_is_said():
    assert "exp" in relation(on_two(torch.exp))


def test_a_constant_the_reference_computed_is_named_with_its_value():
    known = ({"head_size": 8.0}, {"head_size": 8.0})
    said = relation(on_two(lambda e: e * math.sqrt(8), known))
    assert said == "yours is the reference's output multiplied by sqrt(head_size) = 2.83"


def test_a_factor_that_is_the_batch_size_says_what_it_counts():
    first, second = outputs(0), outputs(1)
    pairs = [(first * 2, first, {"batch": 2.0}), (second * 2, second, {"batch": 2.0})]
    assert relation(pairs) == "yours is the reference's output multiplied by batch = 2 (the number of sequences in the batch)"


def test_a_size_that_differs_between_the_inputs_is_named_without_one_inputs_value():
    # batch 2, then 3: "batch = 2" would be false of the second input
    first, second = outputs(0), outputs(1)
    pairs = [(first / 2, first, {"batch": 2.0}), (second / 3, second, {"batch": 3.0})]
    assert relation(pairs) == "yours is the reference's output divided by batch (the number of sequences in the batch)"


def test_a_division_by_the_number_of_heads_says_what_it_counts():
    known = ({"n_heads": 4.0}, {"n_heads": 4.0})
    said = relation(on_two(lambda e: e / 4, known))
    assert said == "yours is the reference's output divided by n_heads = 4 (the number of heads)"


def test_a_named_constant_must_hold_with_each_inputs_own_value():
    # sqrt(head_size) on the first input, 3 on the second where head_size is 4: not sqrt(head_size)
    first, second = outputs(0), outputs(1)
    pairs = [(first * 2, first, {"head_size": 4.0}), (second * 3, second, {"head_size": 4.0})]
    assert relation(pairs) is None


def test_an_output_shifted_by_one_position_is_said():
    said = relation(on_two(lambda e: torch.cat([torch.zeros(1, e.shape[1]), e[:-1]]), shape=(5, 3)))
    assert "shifted by one position along the rows" in said and "i - 1" in said


def test_two_rows_swapped_are_said_with_their_numbers():
    assert relation(on_two(lambda e: e[[0, 2, 1, 3]])) .startswith("yours is the reference's output with rows 1 and 2 swapped")


def test_two_heads_swapped_are_said_as_heads():
    said = relation(on_two(lambda e: e[[1, 0, 2]], shape=(3, 4, 4)))
    assert said.startswith("yours is the reference's output with heads 0 and 1 swapped")


def test_a_relation_that_holds_on_one_input_only_is_not_said():
    first, second = outputs(0), outputs(1)
    assert relation([(first.T, first, {}), (second + 1, second, {})]) is None


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5)])
def test_nothing_is_said_when_the_outputs_are_equal(shape):
    assert relation(on_two(lambda e: e.clone(), shape=shape)) is None


def test_columns_read_across_blocks_are_said_as_interleaved_blocks():
    # (T, 2 heads * 3): yours takes one column of each head in turn
    said = relation(on_two(lambda e: e.reshape(4, 2, 3).transpose(1, 2).reshape(4, 6), shape=(4, 6)))
    assert said.startswith("yours holds the reference's columns interleaved: its 2 blocks of 3 columns")
    assert "are its 0, 3, 1, 4, 2, 5)" in said


def test_columns_in_another_order_that_is_no_interleaving_are_said_with_the_order():
    said = relation(on_two(lambda e: e[:, [2, 0, 1, 3]]))
    assert said.startswith("yours holds the reference's columns in another order") and "are its 2, 0, 1, 3)" in said


def test_a_ratio_of_two_lengths_the_reference_computed_is_named():
    known = ({"len(ids)": 11.0, "len(p_next)": 10.0}, {"len(ids)": 11.0, "len(p_next)": 10.0})
    said = relation(on_two(lambda e: e * 10 / 11, known))
    assert said == "yours is the reference's output multiplied by len(p_next) / len(ids) = 0.909"


def test_the_log_of_an_output_that_holds_zeros_is_said():
    def with_zero(seed):
        e = outputs(seed)
        e[0, 3] = 0.0  # a hidden weight: its log is -inf
        return e

    pairs = [(e.log(), e, {}) for e in (with_zero(0), with_zero(1))]
    assert "the log of the reference's output" in relation(pairs)


def test_an_output_averaged_over_the_heads_is_said():
    assert "averaged over its heads (axis 0)" in relation(on_two(lambda e: e.mean(dim=0), shape=(2, 4, 4)))


def test_an_output_summed_over_its_rows_is_said():
    assert "summed over its rows (axis 0)" in relation(on_two(lambda e: e.sum(dim=0)))


def test_an_axis_kept_where_the_reference_sums_it_is_said():
    # the learner's (heads, T, d) writes, never added up: the reference's output is their sum
    g = torch.Generator().manual_seed(0)
    pairs = []
    for heads in (3, 2):
        writes = torch.randn(2, heads, 5, 4, generator=g)
        pairs.append((writes, writes.sum(dim=1), {}))
    said = relation(pairs)
    assert said is not None and "your axis 1, and is not summed over it" in said
    assert "of size" not in said  # 3 heads on one input, 2 on the other


def test_an_output_averaged_over_the_batch_and_kept_as_size_one_is_said_with_the_batch():
    # one pattern of weights for every sequence: mean(dim=0, keepdim=True)
    known = ({"B": 2}, {"B": 3})
    pairs = [(e.mean(dim=0, keepdim=True), e, k) for e, k in zip((outputs(0, (2, 3, 4)), outputs(1, (3, 3, 4))), known)]
    said = relation(pairs)
    assert said is not None and "averaged over the batch (axis 0, `B` = 2), kept as an axis of size 1" in said


def test_an_axis_summed_and_kept_without_a_known_name_is_said_by_its_number():
    said = relation(on_two(lambda e: e.sum(dim=0, keepdim=True), shape=(3, 4)))
    assert said is not None and "summed over its axis 0 (3 entries), kept as an axis of size 1" in said


def test_an_axis_of_size_one_that_holds_no_mean_or_sum_is_not_said_as_one():
    said = relation(on_two(lambda e: e[:1] * 3, shape=(3, 4)))
    assert said is None or "kept as an axis of size 1" not in said


def test_an_axis_too_many_that_no_sum_or_mean_removes_is_not_said():
    g = torch.Generator().manual_seed(1)
    writes = torch.randn(2, 3, 5, 4, generator=g)
    assert relation([(writes, writes[:, 0] * 2, {})]) is None


def test_an_axis_too_few_that_is_no_reduction_and_no_slice_is_not_said():
    assert relation(on_two(lambda e: e[0] * 2, shape=(2, 4, 4))) is None


def test_the_last_slice_of_the_output_is_said_with_its_axis():
    said = relation(on_two(lambda e: e[-1], shape=(2, 4, 4)))
    assert said == "yours is only the reference's last head (axis 0), where it keeps them all"


def test_an_output_padded_with_zero_rows_is_said_as_the_reference_and_rows_too_many():
    said = ends(on_two(lambda e: torch.cat([e, torch.zeros(2, 4)])))
    assert said == ("yours has more rows than the reference's (6 where it has 4): your first ones are the "
                    "reference's, and the extra rows after them are too many (all zeros)")


def test_an_output_that_lost_its_first_columns_is_said_as_the_reference_s_last_ones():
    said = ends(on_two(lambda e: e[:, 1:]))
    assert said == "yours has fewer columns than the reference's (3 where it has 4): they are its last ones, and the rest are missing"


def test_a_part_that_holds_on_one_input_only_is_not_said():
    pairs = on_two(lambda e: e[:, 1:])
    pairs[1] = (pairs[1][1][:, :3] * 2, pairs[1][1], {})
    assert ends(pairs) is None


def test_a_reduction_that_holds_on_one_input_only_is_not_said():
    pairs = on_two(lambda e: e.mean(dim=0), shape=(2, 4, 4))
    pairs[1] = (pairs[1][1][1], pairs[1][1], {})
    assert relation(pairs) is None


def test_a_log_of_weights_too_small_for_float32_is_still_the_log_relation():
    scores = torch.tensor([[0.0, 100.0, 100.0]])  # (1, 3): the first weight is exp(-100.69)
    weights = torch.softmax(scores, dim=-1)
    # float32 keeps it as a subnormal number whose log is off by more than the tolerance
    assert weights[0, 0] < 1e-30 and abs(float(weights[0, 0].double().log()) + 100.69) > 0.01
    said = relation([(torch.log_softmax(scores, dim=-1), weights, {})])
    assert said is not None and "log of the reference's output" in said


def test_blocks_of_columns_summed_into_one_are_said_and_a_mere_narrowing_is_not():
    heads = torch.randn(3, 5, 4, dtype=torch.float64)  # (n_heads, T, head_size)
    merged = heads.transpose(0, 1).reshape(5, 12)  # (T, n_heads * head_size)
    assert "blocks summed into one" in relation([(heads.sum(dim=0), merged, {})])
    assert relation([(merged[:, :4], merged, {})]) is None


def test_an_output_reversed_along_its_rows_is_said_with_its_axis():
    expected = torch.randn(5, 3, dtype=torch.float64)  # (T, d)
    said = relation([(expected.flip(0), expected, {})])
    assert said is not None and "reversed along" in said and "(axis -2)" in said


def test_an_output_reversed_along_its_last_axis_is_said_alike_on_every_rank():
    expected = [outputs(0, (3, 8)), outputs(1, (2, 3, 9)), outputs(2, (4,))]
    said = relation([(e.flip(-1), e, {}) for e in expected])
    assert said == "yours is the reference's output reversed along its columns (axis -1): its order turned round"


def test_the_square_of_the_output_is_said():
    expected = torch.rand(4, 4, dtype=torch.float64) + 0.1
    assert "square of the reference's output" in relation([(expected**2, expected, {})])


def test_rows_each_scaled_by_their_own_factor_are_said_as_a_wrong_divisor():
    said = relation(on_two(lambda e: e * torch.arange(1.0, 5.0)[:, None]))
    assert said.startswith("each row of yours is the reference's row times a factor of its own (row 1: x2, row 2: x3, "
                           "row 3: x4; 1 of 4 rows right on this input)")


def test_rows_scaled_name_first_the_rows_whose_factor_is_not_one():
    said = relation(on_two(lambda e: e * torch.tensor([[1.0], [1.0], [1.0], [0.25]])))
    assert said is not None and "(row 3: x0.25; 3 of 4 rows right on this input)" in said


def test_rows_divided_by_their_length_are_said_as_length_one_not_sum_one():
    weights = [torch.softmax(outputs(seed), dim=-1) for seed in (0, 1)]  # (4, 4) each: rows sum to 1
    said = relation([(w / w.norm(dim=-1, keepdim=True), w, {}) for w in weights])
    assert "each row has length 1" in said and "must SUM to 1" in said


def test_rows_that_are_no_weights_brought_to_length_1_are_said_normalised_without_sum_advice():
    keys = [torch.randn(4, 3, generator=torch.Generator().manual_seed(seed)) for seed in (0, 1)]
    said = relation([(k / k.norm(dim=-1, keepdim=True), k, {}) for k in keys])
    assert said is not None and "divided by its length" in said and "F.normalize" in said and "SUM" not in said


def test_rows_turned_round_as_well_as_brought_to_length_1_are_not_said_normalised():
    keys = [torch.randn(4, 3, generator=torch.Generator().manual_seed(seed)) for seed in (4, 5)]
    said = relation([(-k / k.norm(dim=-1, keepdim=True), k, {}) for k in keys])
    assert said is not None and "F.normalize" not in said and "factor of its own" in said


def test_rows_brought_to_length_1_beside_rows_kept_as_given_are_said_normalised():
    # a cache: the old rows as they were, the new ones normalised
    keys = [torch.randn(4, 3, generator=torch.Generator().manual_seed(seed)) for seed in (2, 3)]
    got = [torch.cat([k[:2], k[2:] / k[2:].norm(dim=-1, keepdim=True)]) for k in keys]
    said = relation([(g, k, {}) for g, k in zip(got, keys)])
    assert said is not None and said.startswith("each row of yours that differs is the reference's row divided by its length")


def test_rows_of_zeros_alone_show_no_factor_of_their_own():
    assert relation(on_two(lambda e: torch.zeros_like(e))) is None


def test_numbers_cut_to_whole_numbers_are_said():
    said = relation([(e.trunc(), e, {}) for e in (outputs(0) * 3, outputs(1) * 3)])
    assert "cut to a whole number (toward 0)" in said


def test_the_same_numbers_with_an_axis_of_size_one_added_are_said():
    said = relation(on_two(lambda e: e[:, None, :]))
    assert said.startswith("yours holds the reference's numbers, in shape (4, 1, 4) where it has (4, 4): an extra axis of size 1")


def test_the_same_numbers_with_an_axis_of_size_one_lost_are_said_as_a_missing_keepdim():
    said = relation(on_two(lambda e: e[:, 0], shape=(4, 1)))
    assert said.startswith("yours holds the reference's numbers, in shape (4,) where it has (4, 1): an axis of size 1 missing")
    assert "keepdim=True" in said


def test_an_axis_of_size_one_added_on_one_input_and_lost_on_the_other_is_said_as_neither():
    pairs = [(outputs(0)[None], outputs(0), {}), (outputs(1, (4, 1))[:, 0], outputs(1, (4, 1)), {})]
    said = relation(pairs)
    assert "too many" not in said and "missing" not in said and "added or lost" in said


def test_a_relation_is_read_on_the_inputs_that_came_out_wrong_alone():
    # batched, the leading axis is right; unbatched, it is one axis too many
    right = outputs(0, (2, 4, 4))
    pairs = [(right.clone(), right, {}), (outputs(1)[None], outputs(1), {})]
    assert "an extra leading axis of size 1" in relation(pairs)


def test_blocks_of_columns_in_another_order_are_said_as_blocks():
    said = relation(on_two(lambda e: torch.cat([e[:, 4:], e[:, :2], e[:, 2:4]], dim=-1), shape=(4, 6)))
    assert said.startswith("yours holds the reference's blocks of columns (side by side, 2 wide on the first input) in another order: your blocks 0, 1, ... are its 2, 0, 1")


def test_two_halves_swapped_are_said_as_halves_on_every_width_down_to_one_pair():
    # (T, 8), (B, T, 6) and one pair (d = 2): each with its own width, the halves swapped in each
    expected = [outputs(0, (4, 8)), outputs(1, (2, 4, 6)), outputs(2, (3, 2))]
    pairs = [(torch.cat([e[..., e.shape[-1] // 2:], e[..., : e.shape[-1] // 2]], dim=-1), e, {}) for e in expected]
    said = relation(pairs)
    assert said is not None and said.startswith("yours holds the reference's columns with their two halves swapped (4 columns each")


def test_axes_in_another_order_are_said_with_the_order():
    pairs = [(e.permute(1, 0, 2), e, {}) for e in (outputs(0, (2, 3, 4)), outputs(1, (2, 3, 4)))]
    assert relation(pairs).startswith("yours is the reference's output with its axes in another order: shape (3, 2, 4) "
                                      "where it has (2, 3, 4) (your axes are its 1, 0, 2")


def test_an_output_with_its_transpose_added_is_said_as_both_ways():
    said = relation(on_two(lambda e: e + e.T))
    assert said.startswith("yours is the reference's output with its own transpose added: each pair counted both ways")


def test_two_axes_of_size_one_added_are_counted():
    said = relation(on_two(lambda e: e[None, None]))
    assert "2 extra leading axes of size 1" in said


def test_the_same_amount_added_to_every_number_is_said():
    assert "every number of yours is 1 too high: the reference's plus 1, the same amount on each" in relation(on_two(lambda e: e + 1))


def test_amounts_added_that_differ_from_input_to_input_are_not_said():
    pairs = [(outputs(0) + 1, outputs(0), {}), (outputs(1) + 2, outputs(1), {})]
    assert relation(pairs) is None


def test_a_hidden_score_filled_with_zero_is_said():
    def hidden(seed):
        return outputs(seed).masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf"))

    pairs = [(h.masked_fill(torch.isinf(h), 0.0), h, {}) for h in (hidden(0), hidden(1))]
    assert relation(pairs).startswith("yours has 0 where the reference's has -inf")


def test_a_softmax_of_the_weights_is_said():
    said = relation(on_two(lambda e: torch.softmax(e, dim=-1)))
    assert said.startswith("yours is the softmax of the reference's output along its last axis")


def test_a_division_by_the_number_of_pairs_is_named():
    pairs = [(e / (n - 1), e, {"len(ids)": float(n)}) for e, n in ((outputs(0), 11), (outputs(1), 7))]
    assert "yours is the reference's output divided by len(ids) - 1 = 10" in relation(pairs[:1])
    # 10, then 6: the name alone speaks for both inputs
    assert relation(pairs) == "yours is the reference's output divided by len(ids) - 1"


def test_an_axis_whose_size_is_another_of_the_references_numbers_is_named_by_it():
    known = [{"n_heads": 2.0, "head_size": 4.0, "T": 5.0}, {"n_heads": 3.0, "head_size": 2.0, "T": 6.0}]
    pairs = [(torch.rand(4, 5, 5), torch.rand(2, 5, 5), known[0]), (torch.rand(2, 6, 6), torch.rand(3, 6, 6), known[1])]
    assert relation(pairs) == ("yours: axis 0 has `head_size` (4) entries instead of `n_heads` (2): "
                               "a size taken from the wrong number")


def test_the_heads_left_behind_time_are_said_as_sizes_on_other_axes_not_a_wrong_number():
    # weights over the heads of each position: (T, n_heads, n_heads) where (n_heads, T, T) belongs
    known = [{"n_heads": 2.0, "head_size": 4.0, "T": 5.0}, {"n_heads": 3.0, "head_size": 4.0, "T": 6.0}]
    pairs = [(torch.rand(5, 2, 2), torch.rand(2, 5, 5), known[0]), (torch.rand(6, 3, 3), torch.rand(3, 6, 6), known[1])]
    said = relation(pairs)
    assert said.endswith("each of your sizes is one of the reference's own, on another axis")
    assert "wrong number" not in said


def test_an_axis_size_that_two_numbers_share_is_not_named():
    known = {"n_heads": 2.0, "head_size": 4.0, "d_model": 4.0}
    assert relation([(torch.rand(4, 5, 5), torch.rand(2, 5, 5), known)]) is None


def test_a_factor_is_read_past_the_hidden_scores_it_leaves_as_they_are():
    hidden = torch.ones(4, 4, dtype=torch.bool).triu(1)
    pairs = [(e.masked_fill(hidden, float("-inf")) / 2, e.masked_fill(hidden, float("-inf")), {}) for e in (outputs(0), outputs(1))]
    assert relation(pairs) == "yours is the reference's output multiplied by 1/2"


def test_a_division_by_a_root_of_a_length_keeps_its_brackets():
    pairs = [(e / math.sqrt(n), e, {"len(x)": float(n)}) for e, n in ((outputs(0), 4), (outputs(1), 9))]
    assert relation(pairs) == "yours is the reference's output divided by sqrt(len(x))"
    assert relation(pairs[:1]) == "yours is the reference's output divided by sqrt(len(x)) = 2"


def test_a_part_whose_sizes_differ_between_inputs_says_no_sizes():
    # one hint speaks for every input: sizes true of the first only would be false of the second
    short, long = outputs(0, (3, 4)), outputs(1, (5, 4))
    pairs = [(torch.cat([e, torch.zeros(2, 4)]), e, {}) for e in (short, long)]
    assert ends(pairs) == ("yours has more rows than the reference's: your first ones are the reference's, "
                           "and the extra rows after them are too many (all zeros)")


def test_a_check_says_rows_too_many_as_an_observation_naming_no_mistake(tmp_path):
    from attention_by_hand.lab.registry import LABS
    from attention_by_hand.lab.verdict import check_in_process
    from labhelpers import REFERENCES, load_lab, patch_lab

    patch = '''
def causal_mask(T):
    hidden = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    below = torch.ones(2, T, dtype=torch.bool)
    return torch.cat([hidden, below.logical_and(below.logical_not())], dim=0)
'''
    path = tmp_path / "lab-04-attention.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), patch), encoding="utf-8")
    failed = [r for r in check_in_process(load_lab(path), LABS[3]).results if r.label.startswith("causal_mask")]
    assert failed and all(not r.passed and r.mistake is None and "yours has more rows than the reference's: your first "
                          "ones are the reference's, and the extra rows after them are too many (all False)" in r.hint
                          for r in failed)


def test_an_extra_leading_axis_names_a_reshape_never_undone_among_its_causes():
    said = relation(on_two(lambda e: e.reshape(1, -1), shape=(4,)))
    assert "an extra leading axis of size 1 (an unsqueeze, " in said and said.endswith(
        "a reshape never undone, or a batch axis the input did not have)")


def test_an_empty_output_is_not_said_as_one_end_of_the_reference():
    assert ends([(torch.zeros(0, 4), outputs(0, (3, 4)), {})]) is None


def test_the_last_entry_of_a_vector_is_said_as_an_entry():
    said = relation(on_two(lambda e: e[-1], shape=(4,)))
    assert said == "yours is only the reference's last entry (axis 0), where it keeps them all"


def test_one_slice_kept_in_every_place_is_said_as_observed_by_ends_not_as_a_relation():
    # a buffer appended once per head: every head holds the last one's weights
    from attention_by_hand.lab.relations import ends

    pairs = on_two(lambda e: e[-1:].expand_as(e).clone(), shape=(3, 4, 4))
    assert ends(pairs) == "each of your heads (axis 0) holds the reference's last head: the same values in every place"
    assert relation(pairs) is None


def test_the_last_column_in_every_place_is_said_in_the_same_words_with_a_batch_axis_or_without():
    one, batched = outputs(0, (2, 7)), outputs(1, (2, 3, 7))
    pairs = [(e[..., -1:].expand_as(e).clone(), e, {}) for e in (one, batched)]
    assert ends(pairs) == "each of your columns (its last axis) holds the reference's last column: the same values in every place"


def test_an_output_of_zeros_is_said_as_observed_by_ends():
    from attention_by_hand.lab.relations import ends

    assert "all zeros on every input" in ends(on_two(lambda e: torch.zeros_like(e)))
    assert ends(on_two(lambda e: e * 0 + 1)) is None


def test_rows_scaled_holds_where_an_input_is_wrong_only_in_rows_of_inf():
    # the last row's max and sum used for every row: on large scores the other rows overflow to inf,
    # and the row left is right; that input shows nothing, the other shows each row's own factor
    e1, e2 = outputs(0), outputs(1)
    g1 = e1 * torch.tensor([[4.0], [2.0], [1.5], [1.0]])
    g2 = e2.clone()
    g2[:2] = float("inf")
    said = relation([(g1, e1, {}), (g2, e2, {})])
    assert said is not None and "times a factor of its own" in said


def test_an_output_of_zeros_where_every_number_is_below_one_is_no_cutting_to_whole_numbers():
    # weights in (0, 1): each cuts to 0, so zeros equal them cut, and show nothing of it
    pairs = [(torch.zeros_like(e), e, {}) for e in (torch.softmax(outputs(0), -1), torch.softmax(outputs(1), -1))]
    assert relation(pairs) is None or "whole number" not in relation(pairs)


def test_each_row_sorted_is_said_as_a_sort_never_undone():
    said = relation(on_two(lambda e: e.sort(dim=-1).values))
    assert said is not None and "each row sorted (ascending)" in said


def test_rows_sorted_the_other_way_are_said_as_descending():
    said = relation(on_two(lambda e: e.sort(dim=-1, descending=True).values))
    assert said is not None and "each row sorted (descending)" in said


def test_rows_in_another_order_that_is_no_sort_are_not_said_sorted():
    said = relation(on_two(lambda e: e.roll(1, dims=-1)))
    assert said is None or "sorted" not in said


def test_rows_scaled_are_numbered_by_their_place_in_yours_past_a_row_of_inf():
    e = outputs(0)
    g = e.clone()
    g[1] = float("inf")
    g[2] *= 2
    g[3] *= 3
    said = relation([(g, e, {}), (e * torch.tensor([[1.0], [2.0], [3.0], [1.0]]), e, {})])
    assert said is not None and "(row 2: x2, row 3: x3; 1 of 4 rows right on this input)" in said


def test_a_mean_over_the_last_axis_kept_is_said_as_such_not_as_blocks_folded():
    said = relation(on_two(lambda e: e.mean(dim=-1, keepdim=True), shape=(3, 4)))
    assert said is not None and "averaged over its axis 1 (4 entries), kept as an axis of size 1" in said


def test_in_a_batch_of_heads_axis_1_holds_the_heads():
    assert "averaged over its heads (axis 1)" in relation(on_two(lambda e: e.mean(dim=1), shape=(2, 3, 4, 4)))


def test_in_a_batch_of_heads_axis_0_holds_the_sequences():
    assert "averaged over its sequences (axis 0)" in relation(on_two(lambda e: e.mean(dim=0), shape=(2, 3, 4, 4)))


def _rows_zeroed(expected, rows):
    got = expected.clone()
    got[..., rows, :] = 0.0
    return got


def test_last_rows_left_zero_on_inputs_of_two_ranks_are_said_as_its_last_rows():
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(7, 3, generator=g) + 5, torch.randn(2, 10, 3, generator=g) + 5
    pairs = [(_rows_zeroed(a, slice(4, 7)), a, {}), (_rows_zeroed(b, slice(8, 10)), b, {})]
    assert ends(pairs) == ("yours equals the reference's output but for its last rows, all zeros where the reference's "
                               "are not (rows 4 to 6 of 7 on one input): nothing reached them")


def test_rows_left_zero_in_the_middle_are_said_as_some_rows():
    a = torch.randn(5, 3, generator=torch.Generator().manual_seed(1)) + 5
    said = ends([(_rows_zeroed(a, [1, 3]), a, {})])
    assert said is not None and said.startswith("yours equals the reference's output but for some rows") and "(rows 1, 3 of 5" in said


def test_rows_left_zero_with_another_row_wrong_too_are_not_said():
    a = torch.randn(5, 3, generator=torch.Generator().manual_seed(2)) + 5
    got = _rows_zeroed(a, [4])
    got[0, 0] += 1.0
    assert ends([(got, a, {})]) is None


def test_rows_left_zero_are_no_relation_that_would_stand_in_for_a_mend():
    # said by ends(), beside a mend of the learner's code, never instead of one
    a = torch.randn(5, 3, generator=torch.Generator().manual_seed(3)) + 5
    assert relation([(_rows_zeroed(a, [4]), a, {})]) is None


def test_a_single_row_left_zero_is_said_in_the_singular():
    a = torch.randn(5, 3, generator=torch.Generator().manual_seed(4)) + 5
    said = ends([(_rows_zeroed(a, [2]), a, {})])
    assert said is not None and "(row 2 of 5 on one input)" in said


def test_rows_scaled_advise_the_sum_only_where_the_reference_rows_sum_to_one():
    weights = torch.softmax(torch.randn(4, 5, dtype=torch.float64), dim=-1)  # (T, T): rows sum to 1
    out = torch.randn(4, 5, dtype=torch.float64)  # (T, d): attention's output, rows sum to anything
    factors = torch.arange(1.0, 5.0, dtype=torch.float64)[:, None]  # (T, 1)
    assert relation([(weights * factors, weights, {})]).endswith("(divide by the sum of the very numbers on top)")
    said = relation([(out * factors, out, {})])
    assert said is not None and "factor of its own" in said and "sum of the very numbers" not in said


def test_one_average_of_everything_in_every_place_is_said():
    said = relation(on_two(lambda e: e.mean().expand_as(e), shape=(5,)))
    assert said == ("every number of yours is the same: the average of all the reference's numbers, one for all, "
                    "where each of its places has its own")


def test_an_average_over_one_axis_repeated_along_it_is_said_with_its_axis():
    said = relation(on_two(lambda e: e.mean(dim=0, keepdim=True).expand_as(e), shape=(3, 4, 4)))
    assert said is not None and said.startswith("yours is the reference's output averaged over its heads (axis 0), the one number")


def test_a_constant_output_that_is_not_the_references_average_is_not_said_as_one():
    said = relation(on_two(lambda e: (e.mean() + 0.5).expand_as(e), shape=(5,)))
    assert said is None or "average" not in said


def test_rows_scaled_are_said_without_numbers_where_the_first_input_shows_no_factor_of_its_own():
    # the first input: one factor for every row (no evidence); the second: a factor per row
    first, second = outputs(0, (2, 4)), outputs(1, (3, 4))
    pairs = [(first * 2, first, {}), (second * torch.tensor([[1.5], [2.0], [3.0]]), second, {})]
    said = relation(pairs)
    assert said is not None and said.startswith("each row of yours is the reference's row times a factor of its own: ")
    assert "x1.5" not in said


def test_rows_scaled_blame_no_denominator_where_the_reference_rows_are_not_weights():
    out = torch.randn(4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(7))  # (T, d)
    factors = torch.arange(1.0, 5.0, dtype=torch.float64)[:, None]  # (T, 1)
    said = relation([(out * factors, out, {})])
    assert said is not None and said.endswith("its size is not") and "denominator" not in said


def test_a_softmax_of_values_is_not_said_to_be_of_weights():
    v = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(8))  # (T, d): values
    said = relation([(torch.softmax(v, dim=-1), v, {})])
    assert said == "yours is the softmax of the reference's output along its last axis"


def test_a_softmax_of_weights_is_said_to_be_one_too_many():
    w = torch.softmax(torch.randn(4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(9)), dim=-1)
    said = relation([(torch.softmax(w, dim=-1), w, {})])
    assert said is not None and said.endswith("a softmax once more, of numbers that are already weights")


def test_blocks_of_columns_reduced_to_their_largest_entry_are_said_as_such():
    heads = torch.randn(3, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(10))  # (n_heads, T, head_size)
    merged = heads.transpose(0, 1).reshape(5, 12)  # (T, n_heads * head_size)
    said = relation([(heads.max(dim=0).values, merged, {})])
    assert said is not None and "reduced to one by their largest entry" in said and "side by side" in said


def test_rows_of_length_one_are_told_to_sum_to_one_only_where_the_reference_rows_do():
    out = torch.randn(4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(11))  # (T, d): not weights
    said = relation([(torch.nn.functional.normalize(out, dim=-1), out, {})])
    assert said is not None and "SUM to 1" not in said and "as F.normalize makes it" in said


def test_a_table_returned_flat_is_said_as_its_numbers_in_another_shape():
    # one axis fewer, and no reduction or slice: the same numbers, in the same order
    tables = [torch.arange(25.0).reshape(5, 5), torch.arange(49.0).reshape(7, 7) % 5]
    said = relation([(t.flatten(), t, {}) for t in tables])
    assert said == "yours holds the reference's numbers in the same order, in shape (25,) where it has (5, 5)"


def test_a_factor_no_size_names_is_said_only_where_they_differ():
    assert relation(on_two(lambda e: e * 1.37)) == "yours is the reference's output multiplied by 1.37 on every input where they differ"


def test_one_number_wrong_on_one_input_is_no_constant_factor():
    # any number is a multiple of any other: a scalar loss wrong on one input says nothing of a factor
    pairs = [(torch.tensor(2.038), torch.tensor(1.955), {})]
    said = relation(pairs)
    assert said is None or "multiplied" not in said


def test_zeros_on_both_sides_add_no_number_to_a_constant_factor():
    pairs = [(torch.tensor([0.0, 2.038]), torch.tensor([0.0, 1.955]), {})]
    said = relation(pairs)
    assert said is None or "multiplied" not in said


def test_one_and_the_same_number_throughout_relates_to_nothing():
    # zeros of either width are every block, average or reshaping of each other: nothing holds
    pairs = [(torch.zeros(6, 2), torch.zeros(6, 4), {}), (torch.zeros(3, 5), torch.zeros(3, 10), {})]
    assert relation(pairs) is None


def test_two_different_numbers_throughout_relate_to_nothing_either():
    # zeros are the log of ones, and ones minus one: no relation is told apart from another
    pairs = [(torch.zeros(4, 4), torch.ones(4, 4), {}), (torch.zeros(3, 3), torch.ones(3, 3), {})]
    assert relation(pairs) is None
