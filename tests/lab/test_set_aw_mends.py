"""Mistakes of the kinds the retired set AW held, each written here another way than set AW's file:
an exchange whose error cannot tell it from its first half, a reduction without keepdim, a method after a
bracket, a sign read as a step, a root typed for a square, a product for a sum, Python's
`sum(a, b)`, an argument picking along the first axis, broadcasting read from the left, a count
from 0 for positions, and a key block's slice in a loop whose span is the whole function."""

from __future__ import annotations

import ast

from labhelpers import failed_hints


def _parse(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


# the weights merged where the heads' outputs belong: the error shows only that half of an exchange
WEIGHTS_MERGED = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    scores = torch.einsum("htd,hsd->hts", q, k) / q.shape[-1] ** 0.5
    future = torch.ones(x.shape[0], x.shape[0], dtype=torch.bool).triu(1)
    weights = scores.masked_fill(future, -torch.inf).softmax(-1)
    return proj(merge_heads(weights)), weights
'''


def test_an_exchange_whose_error_shows_one_half_is_said_with_that_half_beside_it(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", WEIGHTS_MERGED, "multi_head_attention")
    assert found and all("or with only `merge_heads(weights)` for `merge_heads(heads)`" in h and "cannot tell the two apart" in h
                         for h in found)


def test_a_change_that_is_no_exchange_is_kept_as_it_is():
    from attention_by_hand.lab.mutant_edits import Change
    from attention_by_hand.lab.raised_halves import raised_half

    change = Change("f", 3, "name", ("a", "b"), "variable", "`b` for `a`")
    assert raised_half(None, "f", change, [], []) is change


# the running maximum by kthvalue, called as torch's function and indexed, without keepdim
KTHVALUE_DROPS = '''
def online_softmax(scores):
    m = scores[..., :1].clone().fill_(-math.inf)
    l = torch.zeros_like(m)
    for j in range(scores.shape[-1]):
        s = scores[..., j : j + 1]
        m_new = torch.kthvalue(torch.cat((m, s), -1), 2, -1)[0]
        l = l * torch.exp(m - m_new) + torch.exp(s - m_new)
        m = m_new
    return torch.exp(scores - m) / l
'''


def test_kthvalue_without_keepdim_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", KTHVALUE_DROPS, "online_softmax")
    assert found and all("keepdim=True" in h for h in found)


# the distance made absolute after the relu's bracket closed
ABS_OUTSIDE = '''
def one_hot_lookup(ids, weight):
    columns = torch.arange(weight.shape[0])
    return torch.nn.functional.relu(1.0 - (columns - ids[:, None])).abs() @ weight
'''


def test_a_method_after_a_calls_bracket_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ABS_OUTSIDE, "one_hot_lookup")
    assert found and all("`.abs()` stands after the bracket of `relu(...)`" in h and "on `columns - ids[:, None]`" in h
                         for h in found)


def test_a_method_is_tried_on_each_term_at_the_end_of_the_last_argument():
    from attention_by_hand.lab.bracket_edits import bracket_edit, method_spine

    node = _parse("f(1 - (a - b)).abs()")
    made = [ast.unparse(bracket_edit(node, "method_later", k)) for k in range(len(method_spine(node)))]
    assert made == ["f((1 - (a - b)).abs())", "f(1 - (a - b).abs())", "f(1 - (a - b.abs()))"]


def test_a_method_on_the_whole_last_argument_is_left_to_the_steps_reordered():
    from attention_by_hand.lab.bracket_mends import bracket_mends

    fdef = ast.parse("def f(a, b):\n    return g(a - b).abs()\n").body[0]
    found = [c.arg for c in bracket_mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == "method_later"]
    assert found == [1]


# a sign taken for a step that sends the negatives to 0
SIGN_AS_STEP = '''
def causal_mask(T):
    places = torch.arange(T)
    return torch.sign(places[None, :] - places[:, None]) != 0
'''


def test_a_sign_read_as_a_step_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SIGN_AS_STEP, "causal_mask")
    assert found and all("`relu(...)` for `sign(...)`" in h and "-1" in h for h in found)


# a square root typed where the square was meant, as torch's function
ROOT_FOR_SQUARE = '''
def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(dim=-1, keepdim=True)
    var = torch.mean(torch.sqrt(x - mu), dim=-1, keepdim=True)
    return gamma * (x - mu) / torch.sqrt(var + eps) + beta
'''


def test_a_root_typed_for_a_square_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", ROOT_FOR_SQUARE, "layer_norm")
    assert found and all("`square(...)` for `sqrt(...)`" in h for h in found)


# the positions scaled by the start where they were shifted by it
POSITIONS_SCALED = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    places = torch.arange(tokens.shape[1]) * start
    return token_embedding(tokens) + position_embedding(places)
'''


def test_a_product_where_a_sum_was_meant_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", POSITIONS_SCALED, "embed_at")
    assert found and all("`torch.arange(tokens.shape[1]) + start` for `torch.arange(tokens.shape[1]) * start`" in h for h in found)


# Python's sum with a start, read as a plus, in the MLP's branch
BUILTIN_SUM_START = '''
def block_forward(x, ln1, attn, ln2, mlp):
    h = x + attn(ln1(x))
    return sum(h, mlp(ln2(h)))
'''


def test_pythons_sum_with_a_start_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", BUILTIN_SUM_START, "block_forward")
    assert found and all("`h + mlp(ln2(h))` for `sum(h, mlp(ln2(h)))`" in h and "walks" in h for h in found)


# one head's output picked along the first axis, the batch, by the argument
HEAD_FROM_THE_BATCH = '''
def ablate_head(scores, values, head):
    writes = torch.softmax(scores, dim=-1) @ values
    return torch.sub(writes.sum(1), writes[head])
'''


def test_an_argument_that_picks_along_the_first_axis_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", HEAD_FROM_THE_BATCH, "ablate_head")
    assert found and all("`writes[:, head]` for `writes[head]`" in h for h in found)


# a vector of the heads given one axis, as if broadcasting lined it up from the left
KEEP_FROM_THE_LEFT = '''
def ablate_head(scores, values, head):
    writes = torch.softmax(scores, dim=-1) @ values
    keep = torch.ones(writes.shape[1])
    keep[head] = 0
    return (writes * keep[:, None]).sum(dim=1)
'''


def test_broadcasting_read_from_the_left_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", KEEP_FROM_THE_LEFT, "ablate_head")
    assert found and all("`keep[:, None, None]` for `keep[:, None]`" in h and "RIGHT" in h for h in found)


# the diagonal tile's keys numbered from 0 while the queries keep their places
KEYS_FROM_ZERO = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    outs, lses = [], []
    for a in range(0, n_q, block):
        b = min(a + block, n_q)
        m = torch.full(q.shape[:-2] + (b - a, 1), -math.inf)
        l = torch.zeros_like(m)
        acc = torch.zeros(*q.shape[:-2], b - a, v.shape[-1])
        for c in range(0, n_k, block):
            d = min(c + block, n_k)
            if causal and c >= b:
                break
            s = q[..., a:b, :] @ k[..., c:d, :].mT / math.sqrt(q.shape[-1])
            if causal:
                s = s.masked_fill(torch.arange(d - c)[None, :] > torch.arange(a, b)[:, None], -math.inf)
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            r = torch.exp(m - m_new)
            l = r * l + p.sum(-1, keepdim=True)
            acc = r * acc + p @ v[..., c:d, :]
            m = m_new
        outs.append(acc / l)
        lses.append((m + l.log())[..., 0])
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_a_count_from_zero_for_positions_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", KEYS_FROM_ZERO, "tiled_attention")
    assert found and any("`torch.arange(c, d)` for `torch.arange(d - c)`" in h for h in found)


def test_a_count_from_zero_is_mended_only_for_a_difference():
    from attention_by_hand.lab.range_mends import range_mends

    fdef = ast.parse("def f(a, b, n):\n    return torch.arange(b - a) + torch.arange(n) + torch.arange(b - 1)\n").body[0]
    found = [c for c in range_mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == "count_from"]
    assert [c.arg for c in found] == ["torch.arange(a, b)"]


# the key block's row terms where the query block's belong, in a backward whose values part over the whole function
D_OF_THE_KEYS = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    c = q.shape[-1] ** -0.5
    D = (d_out * out).sum(-1, keepdim=True)
    starts = range(0, n, block)
    dk = [torch.zeros_like(k[..., s:s + block, :]) for s in starts]
    dv = [torch.zeros_like(v[..., s:s + block, :]) for s in starts]
    dq = []
    for q0 in starts:
        q1 = min(q0 + block, n)
        g = torch.zeros_like(q[..., q0:q1, :])
        for b, k0 in enumerate(starts):
            if causal and k0 >= q1:
                break
            k1 = min(k0 + block, n)
            s = q[..., q0:q1, :] @ k[..., k0:k1, :].mT * c
            if causal:
                s = s.masked_fill(torch.arange(k0, k1)[None, :] > torch.arange(q0, q1)[:, None], -math.inf)
            p = torch.exp(s - lse[..., q0:q1, None])
            dv[b] = dv[b] + p.mT @ d_out[..., q0:q1, :]
            ds = p * (d_out[..., q0:q1, :] @ v[..., k0:k1, :].mT - D[..., k0:k1, :])
            g = g + torch.linalg.vecdot(ds.unsqueeze(-1), k[..., k0:k1, :].unsqueeze(-3), dim=-2) * c
            dk[b] = dk[b] + torch.linalg.vecdot(ds.unsqueeze(-1), q[..., q0:q1, :].unsqueeze(-2), dim=-3) * c
        dq.append(g)
    return torch.cat(dq, -2), torch.cat(dk, -2), torch.cat(dv, -2)
'''


def test_a_key_blocks_slice_is_mended_where_the_span_is_the_whole_function(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", D_OF_THE_KEYS, "tiled_attention_backward")
    assert found and any("`D[..., q0:q1, :]` for `D[..., k0:k1, :]`" in h for h in found)


def test_a_methods_keywords_are_quoted_in_its_words():
    from attention_by_hand.lab.bracket_mends import bracket_mends, bracket_words

    fdef = ast.parse("def f(p, dp):\n    return torch.mul(p, dp - p * dp).sum(dim=-1, keepdim=True)\n").body[0]
    nodes = list(ast.walk(fdef))
    found = [c for c in bracket_mends(fdef, {id(n): i for i, n in enumerate(nodes)}) if c.op == "method_later"]
    assert found and all("`.sum(dim=-1, keepdim=True)` stands after the bracket of `mul(...)`" in bracket_words(nodes[c.index], c)
                         for c in found)
