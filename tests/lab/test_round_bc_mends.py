"""What the reading of set BL left only observed, each written here another way than its files: a
colon typed for a comma or doubled, a new axis put on the wrong side of a cut, a letter left out of
einsum's output, `trunc` typed for `tril`, and what `vecdot` computes."""

from __future__ import annotations

import ast

from labhelpers import failed_hints

from attention_by_hand.lab.colon_mends import colon_mends
from attention_by_hand.lab.range_mends import range_mends, range_words

LAB02, LAB03, LAB04 = "lab-02-embeddings-softmax.py", "lab-03-bigram.py", "lab-04-attention.py"
LAB05, LAB06, LAB10 = "lab-05-multihead.py", "lab-06-transformer.py", "lab-10-gradients.py"

# each pair counted on a run of whole rows: a colon where the comma belonged
PAIR_AS_SLICE = '''
def bigram_counts(ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size)
    for i in range(len(ids) - 1):
        row, col = ids[i], ids[i + 1]
        counts[row:col] += 1
    return counts
'''


def test_a_colon_typed_for_the_comma_is_named(tmp_path):
    found = failed_hints(tmp_path, LAB03, PAIR_AS_SLICE, "bigram_counts")
    assert found and all("a colon typed for the comma: `[row:col]` is a slice, which cuts the FIRST axis" in h
                         and "with `counts[row, col]` for `counts[row:col]`" in h for h in found)


# the first T rows of the position table read with a second colon: every T-th row
POSITIONS_STEPPED = '''
def embed(tokens, token_embedding, position_embedding):
    T = tokens.shape[-1]
    return token_embedding(tokens) + position_embedding.weight[::T]
'''


def _ops(source: str, mends) -> list[str]:
    """The ops of the changes `mends` makes of the one function in `source`."""
    fdef = ast.parse(source).body[0]
    return [c.op for c in mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))})]


def test_slices_that_cut_on_purpose_get_no_comma():
    # a bound worked out, numbers, a step, a slice beside another in a tuple: no pair was meant
    source = "def f(x, a, b):\n    return x[a:a + b] + x[0:2] + x[a:b:2] + x[:, a:b]\n"
    assert _ops(source, colon_mends) == []


def test_a_reversing_step_is_not_taken_for_a_stop():
    source = "def f(x, T):\n    return x[::-1] + x[::T]\n"
    assert _ops(source, range_mends).count("step_stop") == 1


def test_a_doubled_colons_words_read_the_cut_the_mend_changes():
    # `::-1` reverses on purpose and comes first: the words are of `::T`, which the mend makes `:T`
    fdef = ast.parse("def f(x, T):\n    return x[::-1, ::T]\n").body[0]
    nodes = list(ast.walk(fdef))
    change = next(c for c in range_mends(fdef, {id(n): i for i, n in enumerate(nodes)}) if c.op == "step_stop")
    assert change.arg == "x[::-1, :T]"
    assert range_words(nodes[change.index], change).startswith("a colon doubled: in `::T`, `T` is the STEP")


def test_a_second_colon_that_makes_a_step_is_named(tmp_path):
    found = failed_hints(tmp_path, LAB06, POSITIONS_STEPPED, "embed")
    assert found and all("a colon doubled: in `::T`, `T` is the STEP" in h
                         and "with `position_embedding.weight[:T]` for `position_embedding.weight[::T]`" in h for h in found)


# D's new axis put before the rows' cut, where each query's row needs it after
D_AS_ROW = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    T = q.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    D = (d_out * out).sum(dim=-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for j in range(0, T, block):
        k_j, v_j = k[..., j : j + block, :], v[..., j : j + block, :]
        for i in range(j if causal else 0, T, block):
            q_i, d_out_i = q[..., i : i + block, :], d_out[..., i : i + block, :]
            s = q_i @ k_j.transpose(-2, -1) * scale
            if causal and i == j:
                rows = torch.arange(i, i + s.shape[-2])[:, None]
                columns = torch.arange(j, j + s.shape[-1])[None, :]
                s = s.masked_fill(columns > rows, float("-inf"))
            p = torch.exp(s - lse[..., i : i + block, None])
            dv[..., j : j + block, :] += p.transpose(-2, -1) @ d_out_i
            dp = d_out_i @ v_j.transpose(-2, -1)
            ds = p * (dp - D[..., None, i : i + block])
            dq[..., i : i + block, :] += ds @ k_j * scale
            dk[..., j : j + block, :] += ds.transpose(-2, -1) @ q_i * scale
    return dq, dk, dv
'''


def test_a_new_axis_on_the_wrong_side_of_a_cut_is_moved(tmp_path):
    found = failed_hints(tmp_path, LAB10, D_AS_ROW, "tiled_attention_backward")
    assert found and all("the new axis in the wrong place" in h and "`[..., i:i + block, None]` for `[..., None, i:i + block]`" in h
                         for h in found)


# the heads summed away in the scores: `h` left out of einsum's output
HEADS_SUMMED = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    scores = torch.einsum("hqd,hkd->qk", q, k) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return proj(merge_heads(weights @ v)), weights
'''


def test_a_letter_left_out_of_einsums_output_is_named(tmp_path):
    found = failed_hints(tmp_path, LAB05, HEADS_SUMMED, "multi_head_attention")
    assert found and all("einsum's output leaves out `h`, so yours sums over it; `->hqk` keeps it" in h for h in found)


# trunc, tril's neighbour in a completion list, where the lower triangle was meant
TRUNC_FOR_TRIL = '''
def causal_mask(T):
    return torch.ones(T, T).trunc() == 0
'''


def test_trunc_typed_for_tril_is_named(tmp_path):
    found = failed_hints(tmp_path, LAB04, TRUNC_FOR_TRIL, "causal_mask")
    assert found and all("with `tril(...)` for `trunc(...)` (trunc rounds every entry toward 0" in h for h in found)


# the one-hot rows and the table given to vecdot, taken for a matrix product
LOOKUP_BY_VECDOT = '''
def one_hot_lookup(ids, weight):
    return torch.linalg.vecdot(F.one_hot(ids, weight.shape[0]).to(weight.dtype), weight.T)
'''


def test_what_vecdot_computes_is_said(tmp_path):
    found = failed_hints(tmp_path, LAB02, LOOKUP_BY_VECDOT, "one_hot_lookup")
    assert found and all("`vecdot`, which the reference does not call, is the dot product of matching VECTORS" in h for h in found)
