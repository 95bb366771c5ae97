"""judging.hint_for_exception on torch's errors of dtypes and of indexing: the words follow what the
error names (its dtypes, its count of axes), never a cause it does not name.

Each error is raised by torch itself here (not typed), so a change of torch's wording shows up.
"""

from __future__ import annotations

import pytest
import torch

from attention_by_hand.lab.judging import hint_for_exception


def _words(make) -> str:
    """The gloss of the error that make() raises."""
    with pytest.raises(Exception) as raised:
        make()
    return hint_for_exception(type(raised.value).__name__, str(raised.value))


def test_float64_met_by_float32_is_said_so_and_no_integer_is_claimed():
    said = _words(lambda: torch.ones(2, 2, dtype=torch.float64) @ torch.ones(2, 2))
    assert "float64" in said and "float32" in said and "integer" not in said


def test_a_bool_mask_given_to_index_select_is_told_the_index_takes_positions():
    said = _words(lambda: torch.ones(2, 3).index_select(1, torch.tensor([True, False, True])))
    assert "integer positions" in said and "bool mask" in said and "float tensors mixed" not in said


def test_integers_met_by_floats_keep_their_words():
    said = _words(lambda: torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 2))
    assert "integer and float tensors mixed" in said


def test_a_float_tensor_used_as_an_index_is_no_index_out_of_range():
    said = _words(lambda: torch.ones(2, 2)[torch.tensor([0.0, 1.0])])
    assert "not floats" in said and "out of range" not in said


def test_a_float_written_into_an_integer_tensor_in_place_is_said_so():
    said = _words(lambda: torch.zeros(3, dtype=torch.long).add_(torch.ones(3)))
    assert "an integer tensor was to hold" in said and "in-place step" in said


def test_an_integer_attn_mask_is_told_what_masks_the_call_takes_and_not_called_a_bool():
    q = torch.zeros(1, 2, 4)
    said = _words(lambda: torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(2, 2, dtype=torch.long)))
    assert "attn_mask must be a bool tensor, True = may attend" in said and "where numbers belong" not in said


def test_one_tensor_of_a_dtype_the_call_does_not_take_is_not_said_to_be_two_combined():
    said = _words(lambda: torch.arange(3).mean())
    assert "does not take" in said and "combined" not in said and "mixed" not in said


def test_float_ids_given_to_an_embedding_are_told_to_be_integers():
    said = _words(lambda: torch.nn.Embedding(3, 2)(torch.tensor([0.0])))
    assert "ids must be integers" in said


def test_float_targets_are_told_to_be_class_ids():
    said = _words(lambda: torch.nn.functional.nll_loss(torch.zeros(2, 3), torch.tensor([0.0, 1.0])))
    assert "class ids" in said


def test_too_many_indices_is_said_as_axes_not_as_an_index_out_of_range():
    said = _words(lambda: torch.zeros(5)[torch.tensor([0, 1]), torch.tensor([1, 2])])
    assert "more axes than the tensor has: it has 1" in said and "out of range" not in said


def test_an_axis_one_past_the_last_is_said_as_axes_numbered_from_zero():
    said = _words(lambda: torch.ones(3, 8).mean(dim=2))
    assert "axis 2 asked where the axis numbers allowed run from -2 to 1" in said and "2 is one past the last, 1 (or -1)" in said


def test_an_axis_far_past_the_last_is_said_without_the_one_past_words():
    said = _words(lambda: torch.ones(3, 8).sum(dim=5))
    assert "axis 5 asked where the axis numbers allowed run from -2 to 1" in said and "one past" not in said
    assert "an index out of range" not in said


def test_an_axis_asked_of_a_zero_dimensional_tensor_claims_no_count_of_its_axes():
    # torch allows [-1, 0] for a 0-d tensor, which has no axis at all: the range is said, not a count
    said = _words(lambda: torch.tensor(1.0).sum(dim=1))
    assert "axis 1 asked where the axis numbers allowed run from -1 to 0" in said and "tensor with" not in said


def test_xor_of_floats_is_told_that_a_power_is_two_stars():
    said = _words(lambda: torch.e ^ torch.ones(3))
    assert "bitwise exclusive or, Python's `^`, which floats do not have; a power is `**`" in said


def test_a_batch_of_ids_given_to_index_select_is_told_it_takes_a_1d_index():
    said = _words(lambda: torch.ones(5, 2).index_select(0, torch.zeros(2, 3, dtype=torch.long)))
    assert "index_select takes a 1-D index" in said and "out of range" not in said


def test_an_index_past_the_end_is_still_said_out_of_range():
    said = _words(lambda: torch.ones(3)[torch.tensor([5])])
    assert "an index out of range" in said


def test_a_batch_of_ids_given_to_index_add_is_told_what_index_add_takes():
    said = _words(lambda: torch.zeros(5, 2).index_add_(0, torch.zeros(2, 3, dtype=torch.long), torch.ones(6, 2)))
    assert "index_add_ takes a 1-D index" in said and "index_select" not in said and "weight[ids]" not in said


def test_a_bool_mask_of_another_shape_is_no_index_out_of_range():
    said = _words(lambda: torch.ones(2, 4, 4)[torch.ones(4, 4, dtype=torch.bool)])
    assert "must have the shape of the axes it indexes" in said and "out of range" not in said


def test_invert_of_a_float_tensor_is_told_to_make_it_bool():
    said = _words(lambda: ~torch.tril(torch.ones(3, 3)))
    assert "bitwise not" in said and "dtype=torch.bool" in said


def test_a_cat_written_into_its_own_input_is_told_to_keep_a_new_tensor():
    keys = torch.ones(1, 2, 3)
    said = _words(lambda: torch.cat([keys, torch.ones(1, 2, 3)], dim=1, out=keys))
    assert "also read by the same step" in said and "`out=`" in said


def test_an_int_given_where_a_tensor_index_belongs_names_the_argument():
    said = _words(lambda: torch.ones(2, 3).index_fill(1, 1, 0))
    assert said == " (index_fill() takes `index`, argument 2, as a Tensor, not an int (wrap the int: `torch.tensor([...])`))"


def test_an_int_given_where_a_mask_belongs_names_the_first_argument():
    said = _words(lambda: torch.ones(2, 3).masked_fill(1, 0.0))
    assert said.startswith(" (masked_fill() takes `mask`, argument 1, as a Tensor, not an int")


def test_a_sparse_tensor_reshaped_is_told_to_be_made_dense():
    said = _words(lambda: torch.ones(2, 2).to_sparse().reshape(4))
    assert "`.to_dense()`" in said


def test_a_wrong_number_of_arguments_is_not_read_as_a_wrong_type():
    said = _words(lambda: torch.ones(2, 3).index_fill(1))
    assert "takes `" not in said


def test_a_float_where_an_int_or_a_tensor_is_taken_is_told_of_floor_division():
    d = 4
    said = _words(lambda: torch.ones(3, 4).narrow(-1, d / 2, d // 2))
    assert "as a Tensor or an int, not a float" in said and "`//` keeps an int" in said and "wrap" not in said


def test_an_argument_given_by_keyword_is_named_by_its_type_alone():
    said = _words(lambda: torch.index_fill(torch.ones(3, 4), 1, value=0.0, index=2))
    assert "not an int" in said and "index=int" not in said


def test_a_list_of_forms_without_a_parsable_one_gets_no_dtype_words():
    assert _words(lambda: torch.ones(3, 4).view(3 / 1, 4)) == ""


def test_an_overlapping_in_place_step_is_not_told_of_cat():
    def shift():
        x = torch.ones(5)
        x[1:] += x[:-1]
        return x

    said = _words(shift)
    assert "also read by the same step" in said and "torch.cat" not in said


def test_a_tensor_called_with_round_brackets_is_told_a_tensor_was_called():
    said = _words(lambda: torch.eye(3)(torch.tensor([0, 2])))
    assert "a tensor was called" in said and "square brackets" in said


def test_an_attribute_called_as_a_method_is_told_it_is_read_without_brackets():
    said = _words(lambda: torch.ones(2, 3).max(dim=-1).values())
    assert "`.values` or `.T` is read without brackets" in said


def test_pairs_as_rows_given_to_sparse_coo_tensor_are_told_one_row_per_axis():
    pairs = torch.tensor([[0, 1], [1, 2], [2, 0]])  # (3 entries, 2): one pair per row
    said = _words(lambda: torch.sparse_coo_tensor(pairs, torch.ones(3), (3, 3)))
    # said of what the first argument held (3 rows for a size of 2 axes), with no cause assumed
    assert "one row per axis" in said and "that had 3, for a size of 2 axes" in said


def test_an_axis_given_as_layer_norms_normalized_shape_is_told_it_takes_a_shape():
    said = _words(lambda: torch.nn.functional.layer_norm(torch.ones(3, 8), (-1,), torch.ones(8), torch.zeros(8)))
    assert "SHAPE of the trailing axes" in said and "`(d_model,)`" in said


def test_a_normalized_shape_that_does_not_fit_the_input_is_told_of_the_input():
    said = _words(lambda: torch.nn.functional.layer_norm(torch.ones(3, 8), (4,)))
    assert "input's trailing axes" in said


def test_a_layer_given_where_its_result_was_meant_is_told_the_brackets_are_missing():
    norm = torch.nn.LayerNorm(4)
    said = _words(lambda: torch.nn.functional.linear(norm, torch.ones(4, 4)))
    assert "a call's brackets are missing" in said


def test_a_function_given_where_a_tensor_was_meant_is_told_the_brackets_are_missing():
    said = _words(lambda: torch.softmax(torch.ones, dim=-1))
    assert "a call's brackets are missing" in said


def test_an_input_of_the_wrong_width_for_layer_norm_is_told_of_the_input_not_an_axis():
    said = _words(lambda: torch.nn.LayerNorm(8)(torch.ones(8, 4)))
    assert "input's trailing axes" in said and "axis number" not in said


def test_indices_of_one_row_given_to_sparse_coo_tensor_get_no_transpose_advice():
    with pytest.raises(Exception) as raised:
        torch.sparse_coo_tensor(torch.tensor([[0, 1, 2]]), torch.ones(3), (3, 3))
    assert "transpose it" not in hint_for_exception(type(raised.value).__name__, str(raised.value))
