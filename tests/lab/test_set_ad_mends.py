"""Mistakes of the kinds the retired set AD held, each written here another way than set AD's file:
a mask of one diagonal where the triangle was meant, a band cut empty whose zeros a catalogued
mistake also gives, a batched product refusing 2-D inputs with an axis's error, a result of `add`
thrown away, R's negative index, a tuple added into `cat`, NumPy's `[:, None]`, flatten's span one
axis off, an additive float mask, an in-place call's result kept under a new name, a squeeze of one
side of a sum; and the integers a learner's function writes, read from its code."""

from __future__ import annotations

import ast
import importlib.util

import torch

from attention_by_hand.lab.api_mends import api_mends
from attention_by_hand.lab.call_pitfalls import call_pitfalls
from attention_by_hand.lab.dropped_pitfalls import no_effect, result_dropped
from attention_by_hand.lab.made_pitfalls import changed_then_read, negated_name_index
from attention_by_hand.lab.mend_edits import mend_edit
from attention_by_hand.lab.parting import _future
from attention_by_hand.lab.raised_where import written_integers
from labhelpers import failed_hints

# the future hidden cell by cell on the first diagonal above the main one only: keys two or more
# steps ahead stay visible
ONE_DIAGONAL_BY_INDEX = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = q @ k.T / math.sqrt(k.shape[-1])
    n = s.shape[-1]
    rows = torch.arange(n - 1)
    s[rows, rows + 1] = float("-inf")
    return torch.softmax(s, dim=-1)
'''


def test_a_mask_of_one_diagonal_is_said_as_that_diagonal_not_as_no_mask(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", ONE_DIAGONAL_BY_INDEX, "attention_weights")
    assert found and any("in yours only the diagonal at offset 1 above the main one is -inf" in h for h in found)
    assert not any("the causal mask is not applied" in h for h in found)


# a band of ones cut by tril(-1) then triu(1): empty, so every score is 0, which the catalogued
# "weight on the next position" (hidden by the causal mask) gives too
EMPTY_BAND = '''
def previous_token_score(pattern):
    T = pattern.shape[-1]
    band = torch.ones(T, T).tril(-1).triu(1)
    return (pattern * band).sum(dim=(-2, -1)).mean(dim=0) / (T - 1)
'''


def test_zeros_that_a_catalogued_mistake_also_gives_are_said_by_the_mend_alone(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", EMPTY_BAND, "previous_token_score")
    assert found and all("with `-1` for `1`" in h for h in found)
    assert not any("next position" in h for h in found)


# baddbmm takes 3-D batches only: on 2-D inputs torch says "Dimension out of range ... got 2",
# the words a softmax or a transpose given axis 2 would say; the learner wrote no 2
BATCHED_PRODUCT_ON_MATRICES = '''
def alibi_attention(q, k, v, slope):
    T = q.shape[-2]
    s = torch.baddbmm(alibi_bias(T, slope), q, k.mT, alpha=q.shape[-1] ** -0.5)
    s = s.masked_fill(hidden_future(T), float("-inf"))
    return torch.softmax(s, dim=-1) @ v
'''


def test_an_axis_error_from_inside_a_call_names_no_axis_the_learner_never_wrote(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", BATCHED_PRODUCT_ON_MATRICES, "alibi_attention")
    assert found and not any("yours equals the reference with" in h for h in found)
    assert any("`baddbmm`, which the reference does not call" in h and "exactly 3-D" in h for h in found)


# add returns a new tensor: the second term never reaches dp, an annotated argument
ADD_THROWN_AWAY = '''
def softmax_backward(p: torch.Tensor, dp: torch.Tensor) -> torch.Tensor:
    dp.add(-(p * dp).sum(dim=-1, keepdim=True))
    return p * dp
'''


def test_an_add_whose_result_is_thrown_away_is_said(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", ADD_THROWN_AWAY, "softmax_backward")
    assert found and all("returns a new tensor and changes nothing" in h and "`add_` changes the tensor itself" in h
                         for h in found)


def _dropped(source: str) -> list[str]:
    return [words for _, words, _ in no_effect(ast.parse(source).body[0])]


def test_add_of_a_slice_alone_on_its_line_is_said_dropped():
    assert len(_dropped("def f(dq, x):\n    dq[..., 1:3, :].add(x)\n")) == 1


def test_add_of_a_set_or_of_an_entry_of_a_list_is_not_said_dropped():
    code = "def f(ids, groups):\n    seen = set()\n    seen.add(ids[0])\n    groups[0].add(1)\n    groups.get(1).add(2)\n"
    assert _dropped(code) == []


def _loaded(tmp_path, source: str, name: str):
    path = tmp_path / "learner_helpers.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("learner_helpers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name), ast.parse(source)


HELPERS = "def mark(seen, i):\n    {body}\n    return i + 1\n\n\ndef outer(seen, i):\n    mark(seen, i)\n    return i\n"


def test_a_helper_that_adds_to_a_set_is_not_said_to_change_nothing(tmp_path):
    outer, tree = _loaded(tmp_path, HELPERS.format(body="seen.add(i)"), "outer")
    assert result_dropped(tree.body[1], outer) == []


def test_a_helper_that_only_computes_is_said_to_change_nothing_when_its_result_is_dropped(tmp_path):
    outer, tree = _loaded(tmp_path, HELPERS.format(body="i = i * 2"), "outer")
    assert len(result_dropped(tree.body[1], outer)) == 1


def test_a_functional_call_given_inplace_is_not_said_to_change_nothing():
    assert _dropped("def f(y):\n    F.relu(y, inplace=True)\n    return y\n") == []


# R's x[-i] leaves entry i out; in Python it is entry i counted from the end
NEGATIVE_INDEX_AS_DROP = '''
def ablate_head(scores, values, head: int):
    writes = torch.softmax(scores, dim=-1) @ values
    return writes.sum(dim=1) - writes[:, -head]
'''


def test_a_negated_name_as_an_index_is_said_to_pick_one_entry_from_the_end(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", NEGATIVE_INDEX_AS_DROP, "ablate_head")
    assert found and all("`writes[:, -head]`" in h and "picks ONE entry, the one `head` places from the end" in h
                         for h in found)


def test_a_negated_index_after_an_ellipsis_or_of_an_unknown_name_is_not_said():
    fdef = ast.parse("def f(x, h: int, n):\n    return x[..., -h] + x[:, -n]\n").body[0]
    assert negated_name_index(fdef) == []


# a list added to a list is one list: cat joins keys, values and both new parts into one tensor
LISTS_ADDED_INTO_CAT = '''
def append_to_cache(cache: tuple[torch.Tensor, torch.Tensor], k_new, v_new):
    return torch.cat([*cache] + [k_new, v_new], dim=2)
'''


def test_a_written_sequence_added_to_another_inside_cat_is_said_as_one_sequence(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", LISTS_ADDED_INTO_CAT, "append_to_cache")
    assert found and all("`[*cache] + [k_new, v_new]`" in h and "is ONE sequence" in h for h in found)


def test_a_list_grown_to_be_joined_whole_is_not_said():
    fdef = ast.parse("def f(parts: list, tail):\n    return torch.cat(parts + [tail], dim=0)\n").body[0]
    assert call_pitfalls(fdef) == []


# NumPy's [:, None] puts the new axis second: right for a matrix, wrong for a vector or a batch
ROW_SUMS_AS_A_COLUMN = '''
def softmax(scores):
    z = scores - scores.amax(dim=-1, keepdim=True)
    w = z.exp()
    total = torch.sum(w, -1)
    return w / total[:, None]
'''


def test_numpys_new_axis_in_second_place_is_mended_to_the_last(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ROW_SUMS_AS_A_COLUMN, "softmax")
    assert found and all("with `total[..., None]` for `total[:, None]`" in h and "puts the new axis at place 1" in h
                         for h in found)


# after the permute the axes are (T, n_heads, head_size): flatten(0, 1) joins time and heads
FLATTEN_ONE_AXIS_EARLY = '''
def merge_heads(t):
    return torch.flatten(t.permute(1, 0, 2), 0, 1)
'''


def test_a_flatten_span_one_axis_early_is_mended_with_the_span_it_needed(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", FLATTEN_ONE_AXIS_EARLY, "merge_heads")
    assert found and all("joins the axes from 0 through 1, both included" in h
                         and "with `torch.flatten(t.permute(1, 0, 2), 1, 2)` for" in h for h in found)


# -inf above the diagonal and 0 elsewhere: a mask to add to the scores, not the lab's bool mask
ADDITIVE_MASK = '''
def causal_mask(T):
    return torch.full((T, T), float("-inf")).triu(1)
'''

# float zeros: T = 1 alone looks like an additive mask of one visible cell; T = 4 rules it out
FLOAT_ZEROS_MASK = '''
def causal_mask(T):
    return torch.zeros(T, T)
'''


def test_an_additive_float_mask_is_named_as_one(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", ADDITIVE_MASK, "causal_mask")
    assert found and all("yours is an additive mask" in h for h in found)


def test_a_float_mask_of_zeros_is_not_called_additive(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", FLOAT_ZEROS_MASK, "causal_mask")
    assert found and not any("additive" in h for h in found)
    assert all("return a bool tensor (True = hidden), got float32" in h for h in found)


# sin_ writes the sines into `turn` itself; the cosines are then taken of the sines
IN_PLACE_KEPT_AS_NEW = '''
def rope(x, positions, base=10000.0):
    half = x.shape[-1] // 2
    freqs = torch.pow(base, -torch.arange(0, half).float() / half)
    turn = torch.outer(positions.float(), freqs)
    sines = turn.sin_()
    cosines = turn.cos()
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cosines - b * sines, a * sines + b * cosines), dim=-1)
'''


def test_an_in_place_result_kept_under_a_new_name_is_said_with_the_later_read(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", IN_PLACE_KEPT_AS_NEW, "rope")
    assert found and all("`sines = turn.sin_()`" in h and "changes `turn` itself (`sin_` works in place)" in h
                         and "`turn.sin()` leaves `turn` as it was" in h for h in found)


def test_a_squeeze_of_one_side_of_a_sum_is_mended_on_the_whole():
    fdef = ast.parse("def f(m, l):\n    return m.squeeze(-1) + l.log()\n").body[0]
    nodes = list(ast.walk(fdef))
    found = [c for c in api_mends(fdef, {id(n): i for i, n in enumerate(nodes)}) if c.op == "squeeze_whole"]
    assert len(found) == 1
    made = mend_edit(nodes[found[0].index], found[0])
    assert ast.unparse(made) == "(m + l.log()).squeeze(-1)"
    m, l = torch.randn(4, 1), torch.rand(4, 1) + 0.5  # (n, 1) each: the mend's sum keeps n entries
    assert eval(ast.unparse(made), {"m": m, "l": l}).shape == (4,)
    assert eval(ast.unparse(nodes[found[0].index]), {"m": m, "l": l}).shape == (4, 4)  # the learner's: a grid


def test_a_mask_of_far_diagonals_is_said_without_calling_the_near_ones_hidden():
    scores = torch.randn(5, 5).masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(2), float("-inf"))
    reference = torch.randn(5, 5).masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(1), float("-inf"))
    said = _future([(scores, reference, None)])
    assert "only the diagonals from offset 2 on are -inf: each query's next 1 key stays visible" in said


def test_a_triangle_moved_up_is_said_on_inputs_of_several_sizes():
    def masked(T: int, k: int):
        return torch.randn(T, T).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(k), float("-inf"))

    said = _future([(masked(4, 3), masked(4, 1), None), (masked(7, 3), masked(7, 1), None)])
    assert "only the diagonals from offset 3 on are -inf: each query's next 2 keys stay visible" in said


def _changed(code: str) -> list[str]:
    return [words for _, words, _ in changed_then_read(ast.parse(code).body[0])]


def test_an_in_place_call_read_under_both_names_is_said_with_the_call_renamed():
    said = _changed("def f(s, mask):\n    hidden = s.masked_fill_(mask, 0.0)\n    return s + hidden\n")
    assert len(said) == 1 and "`s.masked_fill(mask, 0.0)` leaves `s` as it was" in said[0]


def test_an_in_place_call_is_not_said_where_a_name_is_unread_or_read_elsewhere():
    unread = "def f(s, mask):\n    hidden = s.masked_fill_(mask, 0.0)\n    return s\n"
    flag = "def f(p):\n    tracked = p.requires_grad_()\n    return p * tracked\n"
    nested = "def f(t):\n    y = t.exp_()\n    g = lambda t: t * 2\n    return g(y)\n"
    other_arm = "def f(x, c):\n    if c:\n        y = x.mul_(2)\n    else:\n        y = x * 3\n    return y\n"
    assert [_changed(code) for code in (unread, flag, nested, other_arm)] == [[], [], [], []]


def test_a_negated_loop_counter_from_one_is_not_said():
    fdef = ast.parse("def f(x, n):\n    return [x[-i] for i in range(1, n + 1)]\n").body[0]
    loop = ast.parse("def f(x, n):\n    out = []\n    for i in range(1, n + 1):\n        out.append(x[-i])\n    return out\n").body[0]
    assert negated_name_index(fdef) == [] and negated_name_index(loop) == []


def test_a_tuple_of_any_length_grown_before_a_cat_is_not_said():
    fdef = ast.parse("def f(parts: tuple[torch.Tensor, ...], tail):\n    return torch.cat(parts + (tail,), dim=0)\n").body[0]
    assert call_pitfalls(fdef) == []


def test_the_integers_a_function_writes_keep_their_signs(tmp_path):
    path = tmp_path / "f.py"
    path.write_text("def f(x):\n    y = x.transpose(-2, -1)\n    return y.sum(1) + 3\n", encoding="utf-8")
    assert written_integers(str(path), [2]) == frozenset({-2, -1, 1, 3})
    named = tmp_path / "g.py"  # the module's own constant, read by the function
    named.write_text("AXIS: int = -3\n\n\ndef f(x):\n    return x.sum(AXIS)\n", encoding="utf-8")
    assert written_integers(str(named), [5]) == frozenset({-3})
    assert written_integers(str(path), [9]) is None
