"""Mistakes of the kinds the retired set AY held, each written here another way than set AY's file:
a stack's new axis put in the wrong place, a (values, indices) pair used as its values, a running
total's slice written with `=`, R's negative index, and `mul` for the matrix product."""

from __future__ import annotations

import ast

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

    source = "def f(x, y):\n    x[0] = y\n    for i in range(3):\n        x[i] = y\n        z = y\n    return x\n"
    assert [c.arg for c in _changes(write_mends, source, "add_into")] == ["x[i] += y"]


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
