"""Mistakes of the kinds the retired set AY held, each written here another way than set AY's file:
a stack's new axis put in the wrong place, a (values, indices) pair used as its values, a running
total's slice written with `=`, R's negative index, `mul` for the matrix product, a stack's axis
mended where the reference transposes, a chunk told a size, an axis mended under a catalogued
effect, and a shape's one-entry slice taken for a size; and where a reviewer found those words or
mends false: a slice each pass writes once, R's `x[-2]`, an axis mended inside `chunk`, `matmul`
where the product is written by hand, `mode` and `kthvalue` without an axis."""

from __future__ import annotations

import ast

from attention_by_hand.lab.reading_mends import reading_mends
from labhelpers import failed_hints


def _changes(mends, source: str, op: str) -> list:
    fdef = ast.parse(source).body[0]
    return [c for c in mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == op]


# the heads stacked on a new last axis, where the reference's transpose puts them first
HEADS_STACKED_LAST = '''
def split_heads(t, n_heads):
    return torch.stack(t.split(t.shape[1] // n_heads, 1), dim=2)
'''


def test_a_stack_beside_a_change_of_where_axes_go_is_glossed(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_STACKED_LAST, "split_heads")
    assert found and all("`stack`, which the reference does not call, puts the tensors on a NEW axis" in h for h in found)


# the running maximum taken by torch.max with an axis, a pair, then subtracted
MAX_PAIR_SUBTRACTED = '''
def online_softmax(scores):
    m = torch.full(scores.shape[:-1], -math.inf)
    l = torch.zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        s = scores[..., j]
        m_new = torch.max(torch.stack((m, s), -1), -1)
        l = l * torch.exp(m - m_new) + torch.exp(s - m_new)
        m = m_new
    return torch.exp(scores - m[..., None]) / l[..., None]
'''


def test_a_pair_used_as_its_values_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", MAX_PAIR_SUBTRACTED, "online_softmax")
    assert found and all("returns a PAIR, (values, indices)" in h and "`torch.max(torch.stack((m, s), -1), -1).values`" in h
                         for h in found)


def test_a_pair_taken_apart_or_two_tensors_compared_get_no_pair_mend():
    from attention_by_hand.lab.pair_mends import pair_mends

    source = ("def f(x, y):\n    a = x.max(dim=0).values\n    b, i = x.sort(-1)\n    c = torch.max(x, y)\n"
              "    d = x.max()\n    return x.kthvalue(2, -1)\n")
    assert [c.arg for c in _changes(pair_mends, source, "pair_values")] == ["x.kthvalue(2, -1).values"]


def test_mode_and_kthvalue_are_pairs_without_an_axis_and_a_negated_tensor_is_no_axis():
    from attention_by_hand.lab.pair_mends import pair_mends

    source = "def f(x, y):\n    a = x.mode() - 1\n    b = torch.max(x, -y) + x.kthvalue(1)\n    return a + b\n"
    assert [c.arg for c in _changes(pair_mends, source, "pair_values")] == ["x.mode().values", "x.kthvalue(1).values"]


# the keys' gradient written over at each query block, in a loop over the queries
DK_OVERWRITTEN = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    c = q.shape[-1] ** -0.5
    D = (d_out * out).sum(-1, keepdim=True)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for q0 in range(0, n, block):
        q1 = min(q0 + block, n)
        for k0 in range(0, q1 if causal else n, block):
            k1 = min(k0 + block, n)
            s = q[..., q0:q1, :] @ k[..., k0:k1, :].mT * c
            if causal:
                s = s.masked_fill(torch.arange(k0, k1)[None, :] > torch.arange(q0, q1)[:, None], -math.inf)
            p = torch.exp(s - lse[..., q0:q1, None])
            dv[..., k0:k1, :] += p.mT @ d_out[..., q0:q1, :]
            ds = p * (d_out[..., q0:q1, :] @ v[..., k0:k1, :].mT - D[..., q0:q1, :])
            dq[..., q0:q1, :] += ds @ k[..., k0:k1, :] * c
            dk[..., k0:k1, :] = ds.mT @ q[..., q0:q1, :] * c
    return dq, dk, dv
'''


def test_a_running_totals_slice_written_over_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", DK_OVERWRITTEN, "tiled_attention_backward")
    assert found and all("`dk[..., k0:k1, :] += ...` for `dk[..., k0:k1, :] = ...`" in h and "`+=` adds" in h for h in found)


def test_a_slice_is_made_a_sum_only_inside_a_loop():
    from attention_by_hand.lab.write_mends import write_mends

    source = "def f(x, y):\n    x[0] = y\n    for i in range(3):\n        x[1:] = y * i\n        z = y\n    return x\n"
    assert [c.arg for c in _changes(write_mends, source, "add_into")] == ["x[1:] += y * i"]


def test_a_slice_each_pass_writes_once_is_not_made_a_sum():
    from attention_by_hand.lab.write_mends import write_mends

    # row t is written on pass t alone: `=` overwrites no pass's share
    source = "def f(x, y):\n    for t in range(3):\n        x[..., t, :] = y[t]\n    return x\n"
    assert _changes(write_mends, source, "add_into") == []


# R's x[-1], every row but the first, written in Python
ROWS_BUT_THE_FIRST_AS_IN_R = '''
def first_token_score(pattern):
    return pattern[..., -1, 0].mean(dim=(0, 2))
'''


def test_an_r_style_negative_index_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", ROWS_BUT_THE_FIRST_AS_IN_R, "first_token_score")
    assert found and all("`pattern[..., 1:, 0]` for `pattern[..., -1, 0]`" in h and "R's" in h for h in found)


# `multiply` taken for the matrix product, as a method
VALUES_MULTIPLIED = '''
def self_attention(x, query, key, value):
    q, k = query(x), key(x)
    T = x.shape[0]
    s = (q @ k.T / k.shape[-1] ** 0.5).masked_fill(torch.ones(T, T).triu(1).bool(), -torch.inf)
    w = torch.softmax(s, -1)
    return w.multiply(value(x)), w
'''


def test_multiply_for_the_matrix_product_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", VALUES_MULTIPLIED, "self_attention")
    assert found and any("`matmul(...)` for `multiply(...)`" in h and "entry by entry" in h for h in found)


# the heads stacked on axis 1, where the heads' axis belongs first
HEADS_STACKED_SECOND = '''
def split_heads(t, n_heads):
    return torch.stack(torch.chunk(t, n_heads, dim=1), dim=1)
'''


def test_a_stack_axis_is_mended_in_the_learners_terms(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_STACKED_SECOND, "split_heads")
    assert found and all("`dim=0` for `dim=1` in `stack(...)`" in h for h in found)


# chunk told a head's size, where it takes the count of pieces
CHUNKS_OF_A_HEADS_SIZE = '''
def split_heads(t, n_heads):
    return torch.stack(t.chunk(t.shape[1] // n_heads, dim=1))
'''


def test_a_chunk_told_a_size_is_glossed(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", CHUNKS_OF_A_HEADS_SIZE, "split_heads")
    assert found and all("`chunk`, which the reference does not call, cuts at most the number of pieces" in h for h in found)


# the cells stacked on axis 1, (batch, rows, heads), then averaged over the last axis: the heads
HEADS_AVERAGED = '''
def induction_score(pattern, period):
    T = pattern.shape[-1]
    rows = [pattern[..., i, i - period + 1] for i in range(period + 1, T)]
    return torch.stack(rows, 1).mean(2).mean(0)
'''


def test_an_axis_mend_is_said_after_the_catalogued_effect(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", HEADS_AVERAGED, "induction_score")
    assert found and all("averaged over the wrong axes" in h and "in your code, the wrong axis" in h for h in found)


# the width read as a slice of the shape, a torch.Size of one entry, then divided by
WIDTH_AS_A_SHAPE_SLICE = '''
def layer_norm(x, weight, bias, eps=1e-5):
    d = x.shape[-1:]
    centred = x - x.sum(-1, keepdim=True) / d
    spread = (centred * centred).sum(-1, keepdim=True) / d
    return centred * (spread + eps).rsqrt() * weight + bias
'''


def test_a_shape_slice_taken_for_a_size_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", WIDTH_AS_A_SHAPE_SLICE, "layer_norm")
    assert found and all("`x.shape[-1]` for `x.shape[-1:]`" in h and "torch.Size" in h for h in found)


def test_only_a_shape_slice_of_one_entry_is_read_as_a_size():
    source = "def f(x):\n    return x.shape[-1:], x.shape[1:2], x.shape[:1], x.shape[1:], x.shape[-2:], x[-1:]\n"
    assert [c.arg for c in _changes(reading_mends, source, "size_sliced")] == ["x.shape[-1]", "x.shape[1]", "x.shape[0]"]


def test_only_minus_one_is_read_as_rs_every_entry_but_the_first():
    from attention_by_hand.lab.habit_mends import habit_mends

    # R's x[-2] drops the second entry alone: no slice says that
    source = "def f(x):\n    return x[:, -2] + x[:, -1]\n"
    assert [c.arg for c in _changes(habit_mends, source, "r_drop")] == ["x[:, 1:]"]


# the axis mended inside `chunk(...)`: its count, told by name, was read as chunk reads it
HEADS_CUT_ALONG_THE_TOKENS = '''
def split_heads(t, n_heads):
    heads = t.chunk(n_heads, dim=0)
    return torch.stack(heads, dim=0)
'''


def test_an_axis_mended_in_a_chunk_does_not_gloss_its_count(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_CUT_ALONG_THE_TOKENS, "split_heads")
    assert found and any("in `chunk(...)`" in h for h in found) and not any("not pieces of that size" in h for h in found)


# the dot product's entry-by-entry products, never added up, in the lab that writes the product by hand
PRODUCTS_NOT_ADDED = '''
def dot(a, b):
    return torch.mul(a, b)
'''


def test_matmul_is_not_offered_where_the_lab_writes_the_product_by_hand(tmp_path):
    found = failed_hints(tmp_path, "lab-01-tensors.py", PRODUCTS_NOT_ADDED, "dot")
    assert found and not any("matmul" in h for h in found)


# the running sum of the identity less 1 where less the identity was meant: its mends turn the mask by an axis
MASK_LESS_ONE = '''
def causal_mask(T):
    return (torch.eye(T).cumsum(-1) - 1).bool()
'''


def test_an_axis_mend_is_not_said_under_an_effect_that_speaks_of_no_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_LESS_ONE, "causal_mask")
    assert found and all("the mask is on the wrong side" in h and "the wrong axis" not in h for h in found)


# the mask's difference compared with 1 where 0 was meant; a division for the difference mends it by chance
NEXT_TOKEN_SHOWN = '''
def causal_mask(T):
    r = torch.arange(T)
    return (r[None, :] - r[:, None]).gt(1)
'''


def test_a_rival_mend_in_another_call_is_not_offered_as_a_cause(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", NEXT_TOKEN_SHOWN, "causal_mask")
    assert found and not any("a division" in h for h in found)
