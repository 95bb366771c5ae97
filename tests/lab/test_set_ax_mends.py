"""Mistakes of the kinds the retired set AX held, each written here another way than set AX's file:
a range of positions one short (matched by a change of the reference only through errors and an
empty output), broadcasting words where the names only index the operands, an appended piece that
keeps an axis of size 1, a transposed division by sums kept as a column, and a new axis put first."""

from __future__ import annotations

import ast
import importlib.util

from labhelpers import failed_hints


# the end of the positions' range one short, as MATLAB's inclusive `start:start+T-1`
POSITIONS_ONE_SHORT = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    T = tokens.shape[1]
    return token_embedding(tokens) + position_embedding(torch.arange(start, start + T - 1))
'''


def test_a_range_one_short_is_named_by_its_mend_not_by_a_change_matched_through_errors(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", POSITIONS_ONE_SHORT, "embed_at")
    assert found and all("`start + T` for `start + T - 1`" in h and "start + 1" not in h for h in found)


# each block's log-sum-exp appended with its axis of size 1, then joined along the last axis
LSE_KEEPS_ITS_AXIS = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    outs, lses = [], []
    for a in range(0, n_q, block):
        b = min(a + block, n_q)
        top = torch.full(q.shape[:-2] + (b - a, 1), -math.inf)
        total = torch.zeros_like(top)
        acc = torch.zeros(*q.shape[:-2], b - a, v.shape[-1])
        for c in range(0, b if causal else n_k, block):
            d = min(c + block, n_k)
            s = q[..., a:b, :] @ k[..., c:d, :].mT / math.sqrt(q.shape[-1])
            if causal:
                s = s.masked_fill(torch.arange(c, d)[None, :] > torch.arange(a, b)[:, None], -math.inf)
            new = torch.maximum(top, s.amax(-1, keepdim=True))
            p = torch.exp(s - new)
            r = torch.exp(top - new)
            total = r * total + p.sum(-1, keepdim=True)
            acc = r * acc + p @ v[..., c:d, :]
            top = new
        outs.append(acc / total)
        lses.append(top + total.log())
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_an_appended_piece_that_keeps_an_axis_of_size_one_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", LSE_KEEPS_ITS_AXIS, "tiled_attention")
    assert found and all("`(top + total.log()).squeeze(-1)` for `top + total.log()`" in h and "keeps a last axis of size 1" in h
                         for h in found)


def test_a_piece_is_squeezed_only_where_one_argument_is_appended():
    from attention_by_hand.lab.layout_mends import layout_mends

    fdef = ast.parse("def f(xs, a, b):\n    xs.append(a)\n    xs.append(*b)\n    xs.extend([a])\n").body[0]
    found = [c for c in layout_mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == "squeezed"]
    assert [c.arg for c in found] == ["(a).squeeze(-1)"]


# the table transposed, divided by sums kept as a column, and transposed back
TRANSPOSED_DIVISION = '''
def counts_to_probs(counts, smoothing=1.0):
    smoothed = counts + smoothing
    return torch.div(smoothed.mT, smoothed.sum(-1, keepdim=True)).mT
'''


def test_a_division_of_the_transposed_table_is_worded_with_its_own_cause(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", TRANSPOSED_DIVISION, "counts_to_probs")
    assert found and all("a (V, 1) column of sums against the table transposed" in h for h in found)


def test_a_new_axis_left_out_is_worded_as_also_put_first(tmp_path):
    from attention_by_hand.lab.mutants import changes

    path = tmp_path / "ref.py"
    path.write_text("def f(lse, s, i, block):\n    return s - lse[..., i:i + block, None]\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ref_ax", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    said = [c.text for c in changes(module, "f") if c.op == "no_new_axis"]
    assert said and all("left out, or put first, where broadcasting adds one anyway" in t for t in said)
