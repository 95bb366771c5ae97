"""The learner-only mends that live in modules of their own, each with its words: one list, so that
mend_changes.py tries them all and mend_words.py says each in its module's words.

- range_mends.py: a slice cut by another of the function's ranges, a stop written as a length, ...;
- operand_mends.py: what a loop, a product or a comparison is given;
- reading_mends.py: an operator, a number or a call read by another convention;
- layout_mends.py: where an axis goes;
- bracket_mends.py: where a call's bracket closes;
- argument_mends.py: a name from outside the function where one of its arguments belongs;
- number_mends.py: a plain number where a torch function takes a tensor;
- residual_mends.py: where a residual block's norm goes;
- pair_mends.py: a (values, indices) pair used as its values;
- write_mends.py: a running total's slice written with `=` where `+=` belongs;
- shifted_mends.py: exponentials of the raw scores where their shifted twin was meant;
- mean_mends.py: a row's sum written as its mean times a width;
- power_mends.py: a power typed as a product (`* 0.5` for `** 0.5`) or with `^`;
- layer_mends.py: a layer's weight read where its output belongs;
- mask_mends.py: a mask of numbers used as an index, where a bool one picks cells;
- identity_mends.py: Python's `is` or `is not` where entries are compared;
- extra_axis_mends.py: an axis too many written into a shape (a `None` in an index, a comma for `*`);
- conditional_mends.py: a conditional expression's two arms the other way round;
- picked_mends.py: a slice as long as a tensor where the tensor itself picks, a (2, K) index as one;
- step_mends.py: a slice's step one off;
- inferred_mends.py: the `-1` of a reshape at the wrong end, or a size typed where `-1` belongs;
- order_mends.py: `!=` where an order (`>`, `<`, ...) was meant;
- spread_mends.py: a shape spread into `arange` (`arange(*x.shape)`);
- in_place_mends.py: an in-place method used for its value on a tensor made on the spot;
- clamp_mends.py: a clamp's bound read as the other one (`max=` for `min=`);
- slice_sign_mends.py: a slice's number bound without its minus sign (`1:` for `-1:`), or with one;
- truth_mends.py: Python's `not`, `and`, `or` where `~`, `&`, `|` act on each entry;
- slice_taken_mends.py: a slice that keeps the last entries alone, where the reference takes none;
- norm_order_mends.py: a norm of another order where a row's sum was meant (`normalize(..., p=inf)`);
- minus_inside_mends.py: a minus sign inside a log or a root (`log(-p)` for `-log(p)`);
- trailing_comma_mends.py: a tuple of one item made by a trailing comma;
- turned_assign_mends.py: an assignment the wrong way round (`m_new = m` for `m = m_new`);
- tail_slice_mends.py: one cell written where every cell from there on was meant (`[i, j]` for `[i, j:]`);
- log_base_mends.py: a logarithm's second argument, its base, read as a divisor (`math.log(b, d)` for `math.log(b) / d`);
- dim_count_mends.py: how many axes a tensor has read as the length of one (`x.dim()` for `x.size(-2)`);
- wrap_mends.py: numbers wrapped round with `%` where they run on (`arange(s, s + T) % T`);
- tail_read_mends.py: every entry from a place on read where the one at that place was meant (`[..., j:]` for `[..., j]`);
- joined_mends.py: a branch joined side by side with `cat` where a residual adds it;
- cartesian_mends.py: `cartesian_prod` given one tensor, which it returns unchanged, where it was to pair it with itself;
- squeeze_written_mends.py: a value written into a slot with an axis of length 1 too many at its end;
- uncalled_mends.py: a tensor's method named without its brackets (`x.float` for `x.float()`);
- colon_mends.py: a colon typed where a comma belonged (`[a:b]` for `[a, b]`).
"""

from __future__ import annotations

import ast

from attention_by_hand.lab.argument_mends import ARGUMENT_OPS, argument_mends, argument_words
from attention_by_hand.lab.bracket_mends import BRACKET_OPS, bracket_mends, bracket_words
from attention_by_hand.lab.cartesian_mends import CARTESIAN_OPS, cartesian_mends, cartesian_words
from attention_by_hand.lab.clamp_mends import CLAMP_OPS, clamp_mends, clamp_words
from attention_by_hand.lab.colon_mends import COLON_OPS, colon_mends, colon_words
from attention_by_hand.lab.conditional_mends import CONDITIONAL_OPS, conditional_mends, conditional_words
from attention_by_hand.lab.dim_count_mends import DIM_COUNT_OPS, dim_count_mends, dim_count_words
from attention_by_hand.lab.extra_axis_mends import EXTRA_AXIS_OPS, extra_axis_mends, extra_axis_words
from attention_by_hand.lab.identity_mends import IDENTITY_OPS, identity_mends, identity_words
from attention_by_hand.lab.in_place_mends import IN_PLACE_OPS, in_place_mends, in_place_words
from attention_by_hand.lab.inferred_mends import INFERRED_OPS, inferred_mends, inferred_words
from attention_by_hand.lab.joined_mends import JOINED_OPS, joined_mends, joined_words
from attention_by_hand.lab.layer_mends import LAYER_OPS, layer_mends, layer_words
from attention_by_hand.lab.layout_mends import LAYOUT_OPS, layout_mends, layout_words
from attention_by_hand.lab.log_base_mends import LOG_BASE_OPS, log_base_mends, log_base_words
from attention_by_hand.lab.mask_mends import MASK_OPS, mask_mends, mask_words
from attention_by_hand.lab.mean_mends import MEAN_OPS, mean_mends, mean_words
from attention_by_hand.lab.minus_inside_mends import MINUS_INSIDE_OPS, minus_inside_mends, minus_inside_words
from attention_by_hand.lab.mutant_edits import Change
from attention_by_hand.lab.norm_order_mends import NORM_ORDER_OPS, norm_order_mends, norm_order_words
from attention_by_hand.lab.number_mends import NUMBER_OPS, number_mends, number_words
from attention_by_hand.lab.operand_mends import OPERAND_OPS, operand_mends, operand_words
from attention_by_hand.lab.order_mends import ORDER_OPS, order_mends, order_words
from attention_by_hand.lab.pair_mends import PAIR_OPS, pair_mends, pair_words
from attention_by_hand.lab.picked_mends import PICKED_OPS, picked_mends, picked_words
from attention_by_hand.lab.power_mends import POWER_OPS, power_mends, power_words
from attention_by_hand.lab.range_mends import RANGE_OPS, range_mends, range_words
from attention_by_hand.lab.reading_mends import READING_OPS, reading_mends, reading_words
from attention_by_hand.lab.residual_mends import RESIDUAL_OPS, residual_mends, residual_words
from attention_by_hand.lab.shifted_mends import SHIFTED_OPS, shifted_mends, shifted_words
from attention_by_hand.lab.slice_sign_mends import SLICE_SIGN_OPS, slice_sign_mends, slice_sign_words
from attention_by_hand.lab.slice_taken_mends import SLICE_TAKEN_OPS, slice_taken_mends, slice_taken_words
from attention_by_hand.lab.spread_mends import SPREAD_OPS, spread_mends, spread_words
from attention_by_hand.lab.squeeze_written_mends import SQUEEZE_WRITTEN_OPS, squeeze_written_mends, squeeze_written_words
from attention_by_hand.lab.step_mends import STEP_OPS, step_mends, step_words
from attention_by_hand.lab.tail_read_mends import TAIL_READ_OPS, tail_read_mends, tail_read_words
from attention_by_hand.lab.tail_slice_mends import TAIL_SLICE_OPS, tail_slice_mends, tail_slice_words
from attention_by_hand.lab.trailing_comma_mends import TRAILING_COMMA_OPS, trailing_comma_mends, trailing_comma_words
from attention_by_hand.lab.truth_mends import TRUTH_OPS, truth_mends, truth_words
from attention_by_hand.lab.turned_assign_mends import TURNED_ASSIGN_OPS, turned_assign_mends, turned_assign_words
from attention_by_hand.lab.uncalled_mends import UNCALLED_OPS, uncalled_mends, uncalled_words
from attention_by_hand.lab.wrap_mends import WRAP_OPS, wrap_mends, wrap_words
from attention_by_hand.lab.write_mends import WRITE_OPS, write_mends, write_words

__all__ = ["OWN_OPS", "own_mends", "own_words"]

# (ops, the changes of a function, the words of one change), in the order the changes are tried
_FAMILIES = ((RANGE_OPS, range_mends, range_words), (OPERAND_OPS, operand_mends, operand_words),
             (READING_OPS, reading_mends, reading_words), (LAYOUT_OPS, layout_mends, layout_words),
             (BRACKET_OPS, bracket_mends, bracket_words), (ARGUMENT_OPS, argument_mends, argument_words),
             (NUMBER_OPS, number_mends, number_words), (RESIDUAL_OPS, residual_mends, residual_words),
             (PAIR_OPS, pair_mends, pair_words), (WRITE_OPS, write_mends, write_words),
             (SHIFTED_OPS, shifted_mends, shifted_words), (MEAN_OPS, mean_mends, mean_words),
             (POWER_OPS, power_mends, power_words), (LAYER_OPS, layer_mends, layer_words),
             (MASK_OPS, mask_mends, mask_words), (IDENTITY_OPS, identity_mends, identity_words),
             (EXTRA_AXIS_OPS, extra_axis_mends, extra_axis_words), (CONDITIONAL_OPS, conditional_mends, conditional_words),
             (PICKED_OPS, picked_mends, picked_words), (STEP_OPS, step_mends, step_words),
             (INFERRED_OPS, inferred_mends, inferred_words), (ORDER_OPS, order_mends, order_words),
             (SPREAD_OPS, spread_mends, spread_words), (IN_PLACE_OPS, in_place_mends, in_place_words),
             (CLAMP_OPS, clamp_mends, clamp_words), (SLICE_SIGN_OPS, slice_sign_mends, slice_sign_words),
             (TRUTH_OPS, truth_mends, truth_words), (SLICE_TAKEN_OPS, slice_taken_mends, slice_taken_words),
             (NORM_ORDER_OPS, norm_order_mends, norm_order_words), (MINUS_INSIDE_OPS, minus_inside_mends, minus_inside_words),
             (TRAILING_COMMA_OPS, trailing_comma_mends, trailing_comma_words),
             (TURNED_ASSIGN_OPS, turned_assign_mends, turned_assign_words), (TAIL_SLICE_OPS, tail_slice_mends, tail_slice_words),
             (LOG_BASE_OPS, log_base_mends, log_base_words),
             (DIM_COUNT_OPS, dim_count_mends, dim_count_words),
             (WRAP_OPS, wrap_mends, wrap_words),
             (TAIL_READ_OPS, tail_read_mends, tail_read_words),
             (JOINED_OPS, joined_mends, joined_words),
             (CARTESIAN_OPS, cartesian_mends, cartesian_words),
             (SQUEEZE_WRITTEN_OPS, squeeze_written_mends, squeeze_written_words),
             (UNCALLED_OPS, uncalled_mends, uncalled_words),
             (COLON_OPS, colon_mends, colon_words))
OWN_OPS = tuple(op for ops, _, _ in _FAMILIES for op in ops)


def own_mends(fdef: ast.FunctionDef, index: dict[int, int]) -> list[Change]:
    """Every family's changes of `fdef`. index: each node's place in ast.walk(fdef)."""
    return [change for _, mends, _ in _FAMILIES for change in mends(fdef, index)]


def own_words(node: ast.AST, change: Change) -> str | None:
    """The mistake a change of one of the families mends, in its module's words; None for another op."""
    words = next((words for ops, _, words in _FAMILIES if change.op in ops), None)
    return words(node, change) if words is not None else None
