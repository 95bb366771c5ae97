"""Mistakes of the kinds the retired set AR held, each written here another way than set AR's file,
and the one map from a node to the line of its statement that the mend families share."""

from __future__ import annotations

import ast

import pytest
import torch
from labhelpers import failed_hints

from attention_by_hand.lab.code_layout import statement_lines
from attention_by_hand.lab.diagnosis import _one_mistake
from attention_by_hand.lab.mutants import changes
from attention_by_hand.lab.outcomes import Raised, Tried
from attention_by_hand.lab.error_words import error_words
from attention_by_hand.lab.first_nan import cleaned_names
from attention_by_hand.lab.foreign_words import foreign_words
from attention_by_hand.lab.bracket_mends import bracket_mends
from attention_by_hand.lab.grouping import grouped, split_by, spans
from attention_by_hand.lab.reading_pitfalls import reading_pitfalls

ANNOTATED = '''
def scaled(x: Tensor, size: int = WIDTH) -> Tensor:
    if size:
        y = x * size
    return y
'''


def _names(tree: ast.AST) -> dict[str, list[ast.Name]]:
    found: dict[str, list[ast.Name]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.setdefault(node.id, []).append(node)
    return found


def test_each_node_gets_the_line_of_its_innermost_statement():
    fdef = ast.parse(ANNOTATED).body[0]
    lines, names = statement_lines(fdef), _names(fdef)
    assert [lines[id(n)] for n in names["x"]] == [4]  # read in `y = x * size`, inside the `if`
    by_context = {type(n.ctx).__name__: lines[id(n)] for n in names["y"]}
    assert by_context == {"Store": 4, "Load": 5}  # `y = ...` inside the `if`, then `return y`
    assert lines[id(names["size"][0])] == 3  # the `if size:` test, not the `def` around it


def test_the_header_maps_to_the_def_line_only_when_asked():
    fdef = ast.parse(ANNOTATED).body[0]
    names = _names(fdef)
    header = [names["Tensor"][0], names["WIDTH"][0]]
    assert all(statement_lines(fdef)[id(n)] == 2 for n in header)
    assert not any(id(n) in statement_lines(fdef, header=False) for n in header)


# a causal bias made as 0 * inf on purpose and read only through `nan_to_num`; the real nan comes
# later, from the exponentials taken against the old running maximum (`best`, not `best_new`)
TILED_CLEANED_BIAS = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    out = torch.zeros(*q.shape[:-1], v.shape[-1])
    lse = torch.zeros(q.shape[:-1])
    for a in range(0, n_q, block):
        b = min(a + block, n_q)
        best = torch.full(q.shape[:-2] + (b - a,), float("-inf"))
        total = torch.zeros(q.shape[:-2] + (b - a,))
        acc = torch.zeros(*q.shape[:-2], b - a, v.shape[-1])
        for c in range(0, n_k, block):
            e = min(c + block, n_k)
            s = q[..., a:b, :] @ k[..., c:e, :].transpose(-2, -1) / q.shape[-1] ** 0.5
            if causal:
                later = (torch.arange(c, e)[None, :] > torch.arange(a, b)[:, None]).float()
                bias = later * float("-inf")
                s = s + torch.nan_to_num(bias, nan=0.0, neginf=float("-inf"))
            best_new = torch.maximum(best, s.amax(-1))
            w = torch.exp(s - best[..., None])
            shrink = torch.exp(best - best_new)
            total = shrink * total + w.sum(-1)
            acc = shrink[..., None] * acc + w @ v[..., c:e, :]
            best = best_new
        out[..., a:b, :] = acc / total[..., None]
        lse[..., a:b] = best + total.log()
    return out, lse
'''


def test_a_nan_made_on_purpose_and_cleaned_where_it_is_read_is_not_the_first_nan(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", TILED_CLEANED_BIAS, "tiled_attention")
    assert any("the first nan was made at line" in h and "`w = torch.exp(s - best[..., None])`" in h for h in found)
    assert not any("bias = later" in h for h in found)


def test_a_local_read_only_through_nan_to_num_counts_as_cleaned():
    source = "import torch\n\n\ndef f(x):\n    y = x * 2\n    z = torch.nan_to_num(y)\n    return z.nan_to_num(0.0) + y.sum()\n"
    assert cleaned_names(source) == {4: {"z"}}  # `y` is also read by `y.sum()`; `x` by the product


def test_two_functions_of_one_name_keep_their_own_cleaned_names():
    source = ("class A:\n    def forward(self, x):\n        h = x * 0\n        return h.nan_to_num(0.0)\n\n"
              "class B:\n    @staticmethod\n    def forward(x):\n        h = torch.log(x)\n        return h * 2\n")
    assert cleaned_names(source) == {2: {"h"}, 7: set()}


# the cached keys' time axis moved to the front, the new keys' not: torch.cat then complains of two
# other axes' sizes (a batch against heads), which is no cache grown along the wrong axis
CACHE_ONE_SIDE_MOVED = '''
def append_to_cache(cache, k_new, v_new):
    keys, values = cache
    keys = torch.cat((keys.transpose(0, 2), k_new), dim=0).transpose(0, 2)
    values = torch.cat((values.transpose(0, 2), v_new.transpose(0, 2)), dim=0).transpose(0, 2)
    return keys, values
'''


def test_a_join_of_two_layouts_is_not_said_to_grow_the_cache_along_the_wrong_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", CACHE_ONE_SIDE_MOVED, "append_to_cache")
    assert found and all("must match except in dimension 0" in h for h in found)
    assert not any("grows along the wrong axis" in h for h in found)


# the output tile's `add` (not `add_`) thrown away: `out` stays all zeros while `lse` is right
TILED_OUT_THROWN_AWAY = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    out = torch.zeros(*q.shape[:-1], v.shape[-1])
    lse = torch.zeros(q.shape[:-1])
    for a in range(0, n_q, block):
        b = min(a + block, n_q)
        best = torch.full(q.shape[:-2] + (b - a,), float("-inf"))
        total = torch.zeros(q.shape[:-2] + (b - a,))
        acc = torch.zeros(*q.shape[:-2], b - a, v.shape[-1])
        for c in range(0, n_k, block):
            e = min(c + block, n_k)
            if causal and c >= b:
                break
            s = q[..., a:b, :] @ k[..., c:e, :].transpose(-2, -1) / q.shape[-1] ** 0.5
            if causal:
                s = s.masked_fill(torch.arange(c, e)[None, :] > torch.arange(a, b)[:, None], float("-inf"))
            best_new = torch.maximum(best, s.amax(-1))
            w = torch.exp(s - best_new[..., None])
            shrink = torch.exp(best - best_new)
            total = shrink * total + w.sum(-1)
            acc = shrink[..., None] * acc + w @ v[..., c:e, :]
            best = best_new
        out[..., a:b, :].add(acc / total[..., None])
        lse[..., a:b] = best + total.log()
    return out, lse
'''


def test_a_change_that_zeroes_the_one_wrong_part_names_no_mistake(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", TILED_OUT_THROWN_AWAY, "tiled_attention")
    assert found and not any("yours equals the reference with" in h for h in found)
    assert all("all zeros" in h for h in found)


# the exponent's brackets left out: `base ** 2 * i / d_model` is (base ** 2) * i / d_model
TABLE_EXPONENT_UNBRACKETED = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    p = torch.arange(n_positions).float().unsqueeze(1)
    i = torch.arange(d_model // 2).float()
    speed = 1.0 / base ** 2 * i / d_model
    table = torch.empty(n_positions, d_model)
    table[:, ::2] = torch.sin(p * speed)
    table[:, 1::2] = torch.cos(p * speed)
    return table
'''


def test_a_run_of_terms_that_wants_brackets_is_bracketed(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", TABLE_EXPONENT_UNBRACKETED, "sinusoidal_table")
    assert found and all("brackets left out" in h and "`1.0 / base ** (2 * i / d_model)`" in h for h in found)


def test_the_runs_tried_are_those_whose_brackets_change_more_than_one_operation():
    # `(a - b) * c ** d` and `a - (b * c) ** d` are one exchange of neighbours: the `regroup` mend's
    node = ast.parse("a - b * c ** d", mode="eval").body
    assert {ast.unparse(grouped(node, span)) for span in spans(node)} == {"(a - b * c) ** d"}


def test_a_run_split_by_one_levels_order_is_said_to_be_worked_from_left_to_right():
    node = ast.parse("x - m - s * 2", mode="eval").body
    assert split_by(node, (1, 3)) == "Python works `-` from left to right"  # `x - (m - s * 2)`
    assert split_by(node, (1, 2)) == "Python does `*` before `-`"  # `x - (m - s) * 2`: `*` takes `s` first


def test_arithmetic_under_a_bitwise_operator_is_an_expression_of_its_own():
    fdef = ast.parse("def f(a, b, c, m):\n    return m | a / b + c ** 2\n").body[0]
    nodes = list(ast.walk(fdef))
    found = [c for c in bracket_mends(fdef, {id(n): k for k, n in enumerate(nodes)}) if c.op == "group_terms"]
    assert [c.said for c in found] == ["`a / (b + c) ** 2` for `a / b + c ** 2`"]


def test_a_stacked_entry_with_one_more_axis_of_size_1_is_said_to_have_kept_it():
    said = error_words("stack expects each tensor to be equal size, but got [1, 5, 1, 8] at entry 0 and [1, 5, 8] at entry 3")
    assert "entry 0 has the sizes of entry 3 with an axis of size 1 more, axis 2" in said


def test_stacked_entries_of_other_sizes_get_no_word_of_a_kept_axis():
    said = error_words("stack expects each tensor to be equal size, but got [1, 5, 3, 8] at entry 0 and [1, 5, 8] at entry 1")
    assert "kept an axis" not in said


def test_a_layer_multiplied_with_at_is_said_to_be_called():
    said = error_words("unsupported operand type(s) for @: 'Linear' and 'Tensor'")
    assert "a layer is called on a tensor, `layer(x)`" in said


def test_torchs_dot_given_a_sparse_matrix_is_said_to_be_the_1d_dot_product():
    said = error_words("Could not run 'aten::dot' with arguments from the 'SparseCsrCPU' backend.")
    assert "dot product of two dense 1-D tensors, with no sparse version" in said and "torch.sparse.mm" in said


def test_kerass_units_and_jaxs_segment_sum_are_said_with_torchs_names():
    assert "`out_features`" in foreign_words("'Linear' object has no attribute 'units'")
    assert "index_add_" in foreign_words("module 'torch' has no attribute 'segment_sum'")


def _reading(source: str) -> list[str]:
    return [words for _, words, _ in reading_pitfalls(ast.parse(source).body[0])]


def test_a_list_of_one_index_before_a_reduction_over_the_last_axis_is_said_to_keep_its_axis():
    said = _reading("def f(w):\n    return w[..., 2:, [1]].amax(dim=-1)\n")
    assert len(said) == 1 and "`[1]`, picks that entry and keeps its axis" in said[0] and "`.amax(-1)`" in said[0]


def test_a_plain_number_index_or_another_axis_reduced_gets_no_word_of_a_kept_axis():
    assert _reading("def f(w):\n    return w[..., 2:, 1].amax(dim=-1) + w[..., [1]].sum(0)\n") == []


def test_a_list_index_that_may_stand_on_another_axis_gets_no_word_of_a_kept_axis():
    # `x[:, [0]]` of a (2, 3, 4) tensor keeps axis 1; `mean(-1)` then runs over the 4 entries of axis 2
    assert _reading("def f(x):\n    return x[:, [0]].mean(-1)\n") == []


def test_a_tensor_of_whole_numbers_used_as_an_index_is_said_to_pick_by_position():
    said = _reading("def f(x, n):\n    chosen = (torch.arange(n) != 2).long()\n    return x[..., chosen, :]\n")
    assert len(said) == 1 and "`chosen` holds whole numbers, so as an index it picks entries by position" in said[0]


def test_a_mask_of_bools_used_as_an_index_gets_no_word_of_positions():
    assert _reading("def f(x, n):\n    chosen = torch.ones(n, dtype=torch.bool)\n    return x[..., chosen, :]\n") == []


def test_positions_made_as_integer_zeros_or_filled_in_get_no_word_of_positions():
    source = ("def f(table, logits):\n    rows = torch.zeros(logits.shape[0], dtype=torch.long)\n"
              "    for i in range(logits.shape[0]):\n        rows[i] = logits[i].argmax()\n"
              "    last = torch.ones(2, dtype=torch.long)\n    last += 3\n    return table[rows] + table[last]\n")
    assert _reading(source) == []


# `map_` hands the function two plain numbers at a time: `.sum()` of a float raises on the return
# line, whose every input is right; the reference with `smoothing` for `counts + smoothing` raises the
# same words a line after the value it made wrong, which is no fit
ROWS_MAPPED = '''
def counts_to_probs(counts, smoothing=1.0):
    plus = counts.float() + smoothing
    return plus.clone().map_(plus, lambda entry, row: entry / row.sum())
'''


def test_a_change_that_raises_a_line_after_the_value_it_made_wrong_is_no_fit_for_a_line_with_right_inputs(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ROWS_MAPPED, "counts_to_probs")
    assert found and all("'float' object has no attribute 'sum'" in h for h in found)
    assert not any("yours equals the reference with" in h for h in found)
    assert all("though each tensor it reads equals one the reference made on its way" in h and "`map_`" in h for h in found)


def test_quantiles_q_given_as_a_tensor_of_entries_is_said_to_add_a_first_axis():
    said = _reading("def f(s):\n    return torch.nanquantile(s, q=torch.tensor([0.5, 1.0]), dim=1)\n")
    assert len(said) == 1 and "puts a new FIRST axis in front of the result" in said[0]
    assert _reading("def f(s):\n    return torch.quantile(s, 1.0, dim=1)\n") == []


def test_view_given_a_dtype_is_said_to_read_the_bytes_not_to_convert():
    said = _reading("def f(x):\n    return x.view(torch.int32) + 1\n")
    assert len(said) == 1 and "`view` given a dtype does not convert the numbers" in said[0] and "`.to(torch.int32)`" in said[0]
    assert _reading("def f(x):\n    return x.view(x.shape[0], -1)\n") == []


def test_an_entrywise_function_handed_one_list_of_tensors_is_said_to_take_them_one_by_one():
    for op, given in ((torch.add, [torch.ones(2), torch.ones(2)]), (torch.div, (torch.ones(2), torch.ones(2)))):
        with pytest.raises(TypeError) as raised:
            op(given)
        said = error_words(str(raised.value))
        assert f"`torch.{op.__name__}` takes its two operands one by one" in said
        assert ("`torch.stack(...).sum(0)`" in said) == (op is torch.add)  # a sum reduces a list; a quotient does not


def test_matching_changes_that_raise_on_every_fresh_input_still_make_one_mistake(tmp_path, monkeypatch):
    # two changes of `x @ w` that agree wherever they run, and raise on every fresh input (x and w are
    # not square): their agreement is no zero output, and the first is named as before
    (tmp_path / "twin_reference.py").write_text("def f(x, w):\n    h = x @ w\n    return h\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import twin_reference

    x, w = torch.ones(2, 3), torch.ones(3, 4)
    tried = [Tried((x, w), Raised("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (3x4 and 2x3)"))]
    found = [c for c in changes(twin_reference, "f") if c.text.startswith(("`w @ x`", "x and w exchanged"))]
    assert len(found) >= 2
    assert _one_mistake(twin_reference, "f", [(c,) for c in found], tried) is not None
