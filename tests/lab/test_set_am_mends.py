"""Mistakes of the kinds the retired set AM held, each written here another way than set AM's file: a
slip after a line copied from the reference (where a change of the copied line mends too), two
arguments exchanged under a catalogued effect, an index's `None` in the wrong place, no transpose
before a reshape, a `:=` that names part of a sum, a tensor walked along its first axis, Python's
built-in `sum`, a nested function's parameter put for its twin, and the learner's own mend said after
a change of the reference of another kind (not one made at several places, which may mend by chance)."""

from __future__ import annotations

import ast

from labhelpers import failed_hints, load_lab

from attention_by_hand.lab.kept_lines import fresh_mends, kept_lines, reference_lines_kept
from attention_by_hand.lab.layout_mends import layout_mends, layout_words
from attention_by_hand.lab.mutant_edits import Change

# the keys walked by a `while` up to the number of queries; the first line is the reference's own
KEYS_UP_TO_THE_QUERIES = '''
def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    rows, sums = [], []
    for i in range(0, T_q, block):
        qb = q[..., i:i + block, :]
        m = torch.full(qb.shape[:-1], float("-inf"))
        l = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        j = 0
        while j < T_q:
            s = qb @ k[..., j:j + block, :].transpose(-2, -1) * scale
            if causal:
                later = torch.arange(j, j + s.shape[-1])[None, :] > torch.arange(i, i + s.shape[-2])[:, None]
                s = s.masked_fill(later, float("-inf"))
            m_new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - m_new[..., None])
            r = torch.exp(m - m_new)
            l = r * l + p.sum(-1)
            acc = r[..., None] * acc + p @ v[..., j:j + block, :]
            m = m_new
            j += block
        rows.append(acc / l[..., None])
        sums.append(m + torch.log(l))
    return torch.cat(rows, dim=-2), torch.cat(sums, dim=-1)
'''


def test_a_slip_after_a_copied_line_is_said_on_the_learners_own_line(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", KEYS_UP_TO_THE_QUERIES, "tiled_attention")
    assert found and all("`j < T_k` for `j < T_q`" in h for h in found)


def test_nothing_is_said_of_the_line_copied_from_the_reference(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", KEYS_UP_TO_THE_QUERIES, "tiled_attention")
    assert found and not any("(T_q, T_k) = ..." in h or "swapped in `(T_q, T_k)`" in h for h in found)


def test_kept_lines_are_the_statements_written_as_the_reference_writes_them():
    reference = ast.parse("def f(q, k):\n    n = q.shape[-2]\n    for j in range(n):\n        q = q + j\n    return q\n").body[0]
    learner = ast.parse("def f(q, k):\n    x = 1\n    n = q.shape[-2]\n    for j in range(n):\n        q = q - j\n    return q\n").body[0]
    assert kept_lines(learner, reference) == {3, 4, 6}
    assert reference_lines_kept(learner, reference) == {2, 3, 5}


# theta = exponent ** base: pow's two arguments read the other way round
POWER_READ_BACKWARDS = '''
def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    half = d // 2
    exponents = torch.arange(0, d, 2, dtype=torch.float32) / -d
    theta = torch.pow(exponents, base)
    angles = positions.float().unsqueeze(1) * theta
    c, s = angles.cos(), angles.sin()
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * c - b * s, a * s + b * c), -1)
'''


def test_two_arguments_exchanged_are_said_after_the_catalogued_effect(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", POWER_READ_BACKWARDS, "rope")
    assert found and all("nothing is rotated" in h and "`exponents` and `base` swapped" in h for h in found)


# `[None]` read as a column: the query numbers become a row, and every key is compared with itself
ROW_FOR_A_COLUMN = '''
def causal_mask(T):
    queries = torch.arange(T)[None]
    return torch.arange(T) > queries
'''


def test_an_index_none_in_the_wrong_place_is_moved(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", ROW_FOR_A_COLUMN, "causal_mask")
    assert found and all("the new axis in the wrong place" in h and "`torch.arange(T)[:, None]` for `torch.arange(T)[None]`" in h
                         for h in found)


# the heads cut from (T, d) by torch.reshape straight to (n_heads, head_size, T), with no transpose first
RESHAPED_WITHOUT_A_TRANSPOSE = '''
def split_heads(t, n_heads):
    T, d = t.shape
    return torch.reshape(t, (n_heads, d // n_heads, T)).permute(0, 2, 1)
'''


def test_a_reshape_with_no_transpose_before_it_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", RESHAPED_WITHOUT_A_TRANSPOSE, "split_heads")
    assert found and all("no transpose before `reshape`" in h and "`torch.reshape(t.transpose(-2, -1), " in h
                         and "for `torch.reshape(t, (n_heads, d // n_heads, T))`" in h for h in found)


# the walrus names x alone, on the left of the sum it was meant to name
WALRUS_ON_THE_LEFT = '''
def block_forward(x, ln1, attn, ln2, mlp):
    return (y := x) + attn(ln1(x)) + mlp(ln2(y))
'''


def test_a_walrus_naming_part_of_a_sum_is_given_the_whole(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", WALRUS_ON_THE_LEFT, "block_forward")
    assert found and all("`:=` names only what its own brackets hold: `y` is `x` alone" in h
                         and "`(y := x + attn(ln1(x)))`" in h for h in found)


# the scores walked by a `for`, meant one column at a time, with the running values kept in lists
ROWS_FOR_COLUMNS = '''
def online_softmax(scores):
    highs, totals = [scores[..., 0]], [torch.zeros(scores.shape[:-1])]
    for column in scores:
        high = torch.maximum(highs[-1], column)
        totals.append(totals[-1] * torch.exp(highs[-1] - high) + torch.exp(column - high))
        highs.append(high)
    return torch.exp(scores - highs[-1][..., None]) / totals[-1][..., None]
'''


def test_a_tensor_walked_along_its_first_axis_is_walked_along_its_last(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ROWS_FOR_COLUMNS, "online_softmax")
    assert found and all("a `for` over a tensor walks its FIRST axis" in h and "`scores.unbind(-1)` for `scores`" in h
                         for h in found)


# each row of counts divided by the built-in sum, which totals the columns
BUILT_IN_SUM = '''
def counts_to_probs(counts, smoothing=1.0):
    seen = counts + smoothing
    return seen / sum(seen)
'''


def test_the_built_in_sum_is_mended_into_torchs_along_each_row(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", BUILT_IN_SUM, "counts_to_probs")
    assert found and all("Python's built-in `sum` walks a tensor's FIRST axis" in h
                         and "`seen.sum(dim=-1, keepdim=True)` for `sum(seen)`" in h for h in found)


# the cache grown by a nested function that writes the old words twice, `old` for `new`
OLD_WRITTEN_TWICE = '''
def append_to_cache(cache, k_new, v_new):
    def joined(old, new):
        n = old.shape[2]
        out = old.new_zeros(old.shape[0], old.shape[1], n + new.shape[2], old.shape[3])
        out[:, :, :n] = old
        out[:, :, n:] = old[:, :, :new.shape[2]]
        return out
    return joined(cache[0], k_new), joined(cache[1], v_new)
'''


def test_a_nested_functions_parameter_put_for_its_twin_is_mended(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", OLD_WRITTEN_TWICE, "append_to_cache")
    # (quoted short: `new[:, ...` for `old[:, ...`, the line being long)
    assert found and all("the wrong variable (line" in h and "`new[:, ...` for `old[:, ...` in `out[:, :, n:] = ...`" in h for h in found)


# where's two branches read the other way round, the -inf written as a full tensor
BRANCHES_READ_BACKWARDS = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    T = x.shape[-2]
    s = q @ k.mT / k.shape[-1] ** 0.5
    s = torch.where(causal_mask(T), s, torch.full_like(s, float("-inf")))
    return torch.softmax(s, -1)
'''


def test_the_learners_own_exchange_is_said_after_a_change_of_the_reference_of_another_kind(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", BRANCHES_READ_BACKWARDS, "attention_weights")
    assert found and all(h.startswith("yours equals the reference with the mask inverted") and "in your code, two arguments swapped" in h
                         for h in found)


def test_a_statement_inside_a_loop_is_not_the_references_same_statement_before_it():
    reference = ast.parse("def f(x):\n    l = 0\n    for j in x:\n        l = l + j\n    return l\n").body[0]
    learner = ast.parse("def f(x):\n    for j in x:\n        l = 0\n        l = l + j\n    return l\n").body[0]
    assert kept_lines(learner, reference) == {2, 4, 5}


def test_a_line_of_two_statements_is_kept_only_where_both_are():
    reference = ast.parse("def f(x):\n    a = 1\n    b = 2\n    return a + b\n").body[0]
    learner = ast.parse("def f(x):\n    a = 1; b = 3\n    return a + b\n").body[0]
    assert kept_lines(learner, reference) == {3}


def _module(tmp_path, name: str, source: str):
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    return load_lab(tmp_path / f"{name}.py")


KEPT_REFERENCE = "def f(q, k):\n    n = q.shape[-2]\n    return q[:n] + k\n"
KEPT_LEARNER = "def f(q, k):\n    n = q.shape[-2]\n    return q[:n] - k\n"


def test_mends_of_a_kept_line_are_set_aside_where_one_of_another_line_mends(tmp_path):
    learner, reference = _module(tmp_path, "kept_learner", KEPT_LEARNER), _module(tmp_path, "kept_reference", KEPT_REFERENCE)
    on_kept, on_own = Change("f", 1, "shape_of", None, "variable", "", 2), Change("f", 2, "binop", None, "sign", "", 3)
    assert fresh_mends(learner, reference, "f", [on_kept, on_own]) == [on_own]


def test_mends_are_all_kept_where_every_one_is_on_a_kept_line(tmp_path):
    learner, reference = _module(tmp_path, "all_learner", KEPT_LEARNER), _module(tmp_path, "all_reference", KEPT_REFERENCE)
    mends = [Change("f", 1, "shape_of", None, "variable", "", 2), Change("f", 3, "const", None, "axis", "", 2)]
    assert fresh_mends(learner, reference, "f", mends) == mends


def test_a_mend_that_moves_a_kept_statement_is_never_set_aside(tmp_path):
    learner, reference = _module(tmp_path, "moved_learner", KEPT_LEARNER), _module(tmp_path, "moved_reference", KEPT_REFERENCE)
    dropped, on_own = Change("f", 1, "drop", None, "step", "", 2), Change("f", 2, "binop", None, "sign", "", 3)
    assert fresh_mends(learner, reference, "f", [dropped, on_own]) == [dropped, on_own]


def test_the_index_of_a_bracketed_owner_is_quoted_whole():
    fdef = ast.parse("def f(a, b):\n    return (a + b)[None] - a\n").body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    nodes = list(ast.walk(fdef))
    [change] = [c for c in layout_mends(fdef, index) if c.op == "axis_place"]
    assert layout_words(nodes[change.index], change).endswith("`[:, None]` for `[None]`")


def test_mends_of_kept_lines_stay_where_the_values_part_there_alone(tmp_path):
    learner, reference = _module(tmp_path, "span_learner", KEPT_LEARNER), _module(tmp_path, "span_reference", KEPT_REFERENCE)
    on_kept, on_own = Change("f", 1, "shape_of", None, "variable", "", 2), Change("f", 2, "binop", None, "sign", "", 3)
    assert fresh_mends(learner, reference, "f", [on_kept, on_own], span=(2, 2)) == [on_kept, on_own]


# D sliced by the key block, in a backward whose four ranges and ends each repeat `block`
D_OF_THE_KEYS = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    D = torch.sum(out * d_out, dim=-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for a0 in range(0, n, block):
        a1 = min(a0 + block, n)
        for b0 in range(0, n, block):
            b1 = min(b0 + block, n)
            if causal and a0 > b1 - 1:
                continue
            s = torch.matmul(q[..., b0:b1, :], torch.transpose(k[..., a0:a1, :], -2, -1)) * scale
            if causal:
                ahead = torch.gt(torch.arange(a0, a1).reshape(1, -1), torch.arange(b0, b1).reshape(-1, 1))
                s = torch.where(ahead, float("-inf"), s)
            p = torch.exp(s - torch.unsqueeze(lse[..., b0:b1], -1))
            dv[..., a0:a1, :] += torch.matmul(torch.transpose(p, -2, -1), d_out[..., b0:b1, :])
            dp = torch.matmul(d_out[..., b0:b1, :], torch.transpose(v[..., a0:a1, :], -2, -1))
            ds = p * (dp - torch.unsqueeze(D[..., a0:a1], -1))
            dq[..., b0:b1, :] += torch.matmul(ds, k[..., a0:a1, :]) * scale
            dk[..., a0:a1, :] += torch.matmul(torch.transpose(ds, -2, -1), q[..., b0:b1, :]) * scale
    return dq, dk, dv
'''


def test_the_learners_one_range_mend_is_said_after_the_change_of_the_reference(tmp_path):
    # the range `b0:b1` for `a0:a1` at its one place, found through the lines feeding the raise (a mend made
    # at several places, which may mend by chance, was said nowhere: this one names the slip in the learner's terms)
    found = failed_hints(tmp_path, "lab-10-gradients.py", D_OF_THE_KEYS, "tiled_attention_backward")
    assert found and all("yours equals the reference with `D[..., j:j + block, None]`" in h
                         and "in your code, the range `a0:a1` where the range `b0:b1` belongs" in h for h in found)
