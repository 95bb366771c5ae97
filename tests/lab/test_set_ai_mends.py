"""Mistakes of the kinds the retired set AI held, each written here another way than set AI's file:
NumPy's `.T` on a batch, an error that only a change of the reference matches after PyTorch warned
at the learner's line, `math.isqrt` for the square root, a number typed where the function's
argument belongs, a running total given each pass's value, and the first entries of an axis taken
where the last were meant."""

from __future__ import annotations

import ast
import math
import warnings

import torch

import attention_by_hand.lab.mend_changes as mend_changes
from attention_by_hand.lab.habit_mends import habit_mends
from attention_by_hand.lab.mend_edits import mend_edit
from attention_by_hand.lab.loop_starts import loop_carries
from attention_by_hand.lab.range_mends import range_mends
from labhelpers import failed_hints

# NumPy's `p.T` for the transpose of each matrix of a batch: torch's `.T` reverses every axis
BATCH_T = '''
def attention_backward(q, k, v, d_out, causal):
    scale = q.shape[-1] ** -0.5
    s = torch.einsum("...id,...jd->...ij", q, k) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    p = s.softmax(-1)
    dv = p.T @ d_out
    dp = torch.einsum("...id,...jd->...ij", d_out, v)
    ds = p * (dp - (p * dp).sum(-1, keepdim=True))
    return torch.einsum("...ij,...jd->...id", ds, k) * scale, torch.einsum("...ij,...id->...jd", ds, q) * scale, dv
'''


def test_numpys_transpose_of_a_batch_is_mended_with_each_matrixs_transpose(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", BATCH_T, "attention_backward")
    assert found and all("`p.mT` for `p.T`" in h and "EVERY axis" in h for h in found)


def test_dot_t_of_three_axes_reverses_them_all_and_mt_exchanges_the_last_two():
    x = torch.arange(24.0).reshape(2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns of `.T` on any tensor but a matrix
        reversed_axes = x.T
    assert torch.equal(reversed_axes, x.permute(2, 1, 0)) and torch.equal(x.mT, x.transpose(-2, -1))


# the columns walked as NumPy walks a matrix's, through `.T`, and a maximum kept as it goes
WALKED_T = '''
def online_softmax(scores):
    top = torch.full_like(scores[..., :1], -math.inf)
    total = torch.zeros_like(top)
    for col in scores.T:
        bigger = torch.maximum(col[..., None], top)
        total = total * (top - bigger).exp() + (col[..., None] - bigger).exp()
        top = bigger
    return (scores - top).exp() / total
'''


def test_walking_the_columns_of_a_batch_through_dot_t_is_mended_with_the_last_axis_first(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", WALKED_T, "online_softmax")
    assert found and any("`scores.movedim(-1, 0)` for `scores.T`" in h for h in found)


def test_an_error_after_pytorchs_warning_names_no_change_of_the_reference(tmp_path, monkeypatch):
    # without the `.T` mends nothing of the learner's mends it; the raise alone must not name a change
    original = mend_changes.api_mends
    monkeypatch.setattr(mend_changes, "api_mends", lambda f, i: [c for c in original(f, i) if c.op != "all_axes"])
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", WALKED_T, "online_softmax")
    raised = [h for h in found if "raised" in h]
    assert raised and all("PyTorch warned" in h and "yours equals the reference with" not in h for h in raised)


# the scale's root taken with math.isqrt, which rounds down to a whole number
INTEGER_ROOT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    T = x.shape[0]
    s = torch.einsum("td,sd->ts", q, k) / math.isqrt(k.shape[1])
    hidden = torch.ones(T, T, dtype=torch.bool).triu(1)
    return torch.softmax(s.masked_fill(hidden, float("-inf")), dim=1)
'''


def test_math_isqrt_for_the_square_root_is_mended_and_said_to_round_down(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", INTEGER_ROOT, "attention_weights")
    assert found and any("`sqrt(...)` for `isqrt(...)`" in h and "rounded down" in h for h in found)


def test_isqrt_rounds_down():
    assert math.isqrt(8) == 2 and abs(math.sqrt(8) - 2.83) < 0.01


# PyTorch's default epsilon written in, where the eps handed in belongs
TYPED_EPS = '''
def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return weight * (x - mu) * torch.rsqrt(var + 0.01) + bias
'''


def test_a_number_typed_where_the_argument_belongs_is_mended_with_the_arguments_name(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", TYPED_EPS, "layer_norm")
    assert found and any("`eps` for the number 0.01" in h and "whatever `eps`" in h for h in found)


def _typed(code: str) -> list[str]:
    fdef = ast.parse(code).body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    return [c.text for c in habit_mends(fdef, index) if c.op == "typed_number"]


def test_no_number_of_a_default_is_changed():
    assert _typed("def f(x, eps=1e-5):\n    return x + 2.5\n") == ["`eps` for the number 2.5"]


def test_an_argument_the_code_reads_is_put_for_no_number():
    assert _typed("def f(x, eps):\n    return x * 2.5 + eps\n") == []


# each head's write given to the total in place of adding it
REPLACED_TOTAL = '''
def ablate_head(scores, values, head):
    kept = torch.zeros(values.shape[0], values.shape[2], values.shape[3])
    for h in range(scores.shape[1]):
        if h != head:
            kept = torch.softmax(scores[:, h], dim=-1) @ values[:, h]
    return kept
'''


def test_a_running_total_given_each_pass_value_is_mended_with_the_sum(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", REPLACED_TOTAL, "ablate_head")
    assert found and any("IN PLACE of what it held" in h and "`kept = kept + torch.softmax" in h for h in found)


def test_an_assignment_in_nested_loops_is_one_accumulate_change():
    code = "def f(x):\n    t = 0\n    for i in x:\n        for j in i:\n            t = j\n    return t\n"
    fdef = ast.parse(code).body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    assert [c.text for c in loop_carries(fdef, index) if c.op == "accumulate"] == ["`t = t + j` for `t = j`"]


# the first rows of the identity taken for the new words' places, which lie at the end
FIRST_ROWS = '''
def append_to_cache(cache, k_new, v_new):
    keys, values = cache
    n = k_new.shape[-2] + keys.shape[-2]
    place = torch.eye(n, dtype=keys.dtype)
    old, new = place[:, :keys.shape[-2]], place[:, :k_new.shape[-2]]
    return old @ keys + new @ k_new, old @ values + new @ v_new
'''


def test_the_first_entries_taken_for_the_last_are_mended_with_the_other_end(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", FIRST_ROWS, "append_to_cache")
    assert found and any("FIRST" in h and "`-k_new.shape[-2]:` for `:k_new.shape[-2]`" in h for h in found)


def test_the_other_end_of_a_slice_is_minus_its_count_and_back():
    fdef = ast.parse("def f(x, n):\n    return x[:n] + x[-n:]\n").body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    ends = [c for c in range_mends(fdef, index) if c.op == "other_end"]
    nodes = list(ast.walk(fdef))
    made = sorted(ast.unparse(ast.Subscript(ast.Name("x"), mend_edit(nodes[c.index], c))) for c in ends)
    assert made == ["x[-n:]", "x[:n]"]


def test_all_but_the_last_is_no_count_of_first_entries():
    fdef = ast.parse("def f(x):\n    return x[:-1] + x[1:]\n").body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    assert [c for c in range_mends(fdef, index) if c.op == "other_end"] == []
