"""What the reading of sets BD and BE left unnamed, each written here another way than their files: a
method put on what an operation written as a method returns, where it belonged on that operation's
argument; a conditional's two arms the other way round; a slice as long as a tensor where the tensor
itself picks; a step of a slice one off; a number mended inside a call the reference makes too (the
innermost call changed is the learner's own); and, where the output holds a nan, the line that made it
tried first, so that a long tiled function's one wrong name is found within the budget of changes."""

from __future__ import annotations

from labhelpers import failed_hints

# the square root taken of the whole quotient: `.sqrt()` belonged on the variance plus eps
ROOT_OF_THE_QUOTIENT = '''
def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = x.sub(mu).pow(2).mean(-1, keepdim=True)
    return x.sub(mu).div(var.add(eps)).sqrt().mul(weight).add(bias)
'''


def test_a_method_after_an_operation_written_as_a_method_is_moved_onto_its_argument(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", ROOT_OF_THE_QUOTIENT, "layer_norm")
    assert found and all("`.sqrt()` stands after the bracket of `div(...)`" in h
                         and "`x.sub(mu).div(var.add(eps).sqrt())` for `x.sub(mu).div(var.add(eps)).sqrt()`" in h for h in found)


# one tiled forward, each query block walking the key blocks; `arms` and `shift` fill in the two places
TILED = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    outs, lses = [], []
    for a in range(0, n_q, block):
        b = min(a + block, n_q)
        top = torch.full((*q.shape[:-2], b - a, 1), -math.inf)
        total = torch.zeros_like(top)
        acc = torch.zeros(*q.shape[:-2], b - a, v.shape[-1])
        for c in range({arms}, block):
            e = min(c + block, n_k)
            s = q[..., a:b, :] @ k[..., c:e, :].mT / q.shape[-1] ** 0.5
            if causal:
                rows = torch.arange(a, b).view(-1, 1)
                s = s.masked_fill(torch.arange(c, e) > rows, -math.inf)
            new_top = torch.maximum(top, s.amax(-1, keepdim=True))
            p = torch.exp(s - {shift})
            fade = torch.exp(top - new_top)
            total = fade * total + p.sum(-1, keepdim=True)
            acc = fade * acc + p @ v[..., c:e, :]
            top = new_top
        outs.append(acc / total)
        lses.append((top + total.log()).squeeze(-1))
    return torch.cat(outs, -2), torch.cat(lses, -1)
'''


def test_a_conditional_with_its_arms_swapped_is_said_as_that_alone(tmp_path):
    swapped = TILED.format(arms="0, n_k if causal else b", shift="new_top")
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", swapped, "tiled_attention")
    assert found and all(h.startswith("the two arms of a conditional the other way round") or
                         "; the two arms of a conditional the other way round" in h for h in found)
    assert all("`b if causal else n_k` for `n_k if causal else b`" in h and "taken as always" not in h for h in found)


def test_the_same_conditional_with_its_arms_the_right_way_passes(tmp_path):
    right = TILED.format(arms="0, b if causal else n_k", shift="new_top")
    assert failed_hints(tmp_path, "lab-09-flash-attention.py", right, "tiled_attention") == []


def test_the_old_maximum_where_the_new_one_belongs_is_found_from_the_line_that_made_the_nan(tmp_path):
    old_top = TILED.format(arms="0, b if causal else n_k", shift="top")
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", old_top, "tiled_attention")
    assert found and any("got nan" in h for h in found)
    assert all("the wrong variable" in h and "`torch.exp(s - new_top)` for `torch.exp(s - top)`" in h for h in found)


# the first rows of the table, as many as there are ids, whatever the ids hold
FIRST_ROWS = '''
def one_hot_lookup(ids, weight):
    return weight[: ids.numel()].clone()
'''


def test_a_slice_as_long_as_the_ids_is_mended_to_the_ids_themselves(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", FIRST_ROWS, "one_hot_lookup")
    assert found and all("a slice as long as `ids` where `ids` itself picks" in h
                         and "`weight[ids]` for `weight[:ids.numel()]`" in h for h in found)


# the previous position of row i is [i, i - 1]: in the rows laid flat, a step of n + 1 from n (n alone walks a column)
FLAT_STEP = '''
def previous_token_score(pattern):
    n = pattern.size(-1)
    flat = pattern.reshape(pattern.size(0), pattern.size(1), n * n)
    return flat[:, :, n : n * n : n].mean(-1).mean(0)
'''


def test_a_step_one_off_in_a_flat_table_is_mended_by_one(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", FLAT_STEP, "previous_token_score")
    assert found and all("the slice's step one too small" in h and "`n:n * n:n + 1` for `n:n * n:n`" in h
                         for h in found)


# the merged rows counted by the head size: a `size` the reference never calls, inside a reshape it does
ROWS_BY_HEAD_SIZE = '''
def merge_heads(t):
    return t.swapaxes(0, 1).reshape(t.size(2), -1)
'''


def test_an_axis_mended_inside_a_call_the_reference_makes_is_said_in_the_learners_code(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", ROWS_BY_HEAD_SIZE, "merge_heads")
    assert found and all("in your code, the wrong axis" in h and "for `t.swapaxes(0, 1).reshape(t.size(2), -1)`" in h for h in found)


# a (2, K) tensor of (row, column) pairs given as one index: it picks whole rows
PAIRS_AS_ONE_INDEX = '''
def bigram_counts(ids, vocab_size):
    grid = torch.zeros(vocab_size, vocab_size)
    seen, times = torch.stack((ids[:-1], ids[1:])).unique(dim=1, return_counts=True)
    grid[seen] = times.float()
    return grid
'''


def test_pairs_given_as_one_index_are_mended_to_two(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", PAIRS_AS_ONE_INDEX, "bigram_counts")
    assert found and all("one index tensor picks along the first axis only" in h and "`grid[tuple(seen)]` for `grid[seen]`" in h
                         for h in found)


# NumPy's ufunc method asked of a torch function, and pandas' `mask` asked of a tensor
UFUNC_OUTER = '''
def causal_mask(T):
    r = torch.arange(T)
    return torch.lt.outer(r, r)
'''


def test_a_ufunc_method_of_a_torch_function_is_said_as_numpys_and_not_as_torch_outer(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", UFUNC_OUTER, "causal_mask")
    assert found and all("`.outer` is a method of NumPy's ufuncs" in h and "multiplies every pair" not in h for h in found)


PANDAS_MASK = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1])
    s = s.mask(causal_mask(x.shape[-2]), -math.inf)
    return torch.softmax(s, dim=-1)
'''


def test_pandas_mask_asked_of_a_tensor_is_said_with_torchs_masked_fill(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", PANDAS_MASK, "attention_weights")
    assert found and all("pandas' `DataFrame.mask(cond, other)`" in h and "`x.masked_fill(cond, value)`" in h for h in found)


# a diagonal matrix per row wanted, and `diagflat` lays the whole batch on one diagonal
ONE_DIAGONAL_FOR_THE_BATCH = '''
def softmax_backward(p, dp):
    jac = torch.diagflat(p) - p[..., :, None] * p[..., None, :]
    return (jac @ dp[..., None])[..., 0]
'''


def test_diagflat_is_described_as_one_diagonal_for_the_whole_batch(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", ONE_DIAGONAL_FOR_THE_BATCH, "softmax_backward")
    assert found and any("`diagflat`, which the reference does not call, flattens its input first" in h
                         and "`torch.diag_embed`" in h for h in found)


# MATLAB's mean(A, 'all'), per head, and NumPy's np.delete
MEAN_OF_ALL = '''
def first_token_score(pattern):
    return torch.stack([pattern[:, h, 1:, 0].mean("all") for h in range(pattern.shape[1])])
'''


def test_a_string_for_the_axis_of_a_mean_is_said_as_matlabs_all(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", MEAN_OF_ALL, "first_token_score")
    assert found and all("a string where an axis belongs" in h and "`x.mean()`" in h for h in found)


NUMPY_DELETE = '''
def ablate_head(scores, values, head):
    writes = torch.softmax(scores, dim=-1) @ values
    return torch.delete(writes, head, axis=1).sum(1)
'''


def test_numpys_delete_asked_of_torch_is_said_with_torchs_way(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", NUMPY_DELETE, "ablate_head")
    assert found and all("`delete` is NumPy's `np.delete`" in h and "`keep = torch.arange(n) != i`" in h for h in found)


# the looked-up rows laid out with the inferred size first: d_model becomes the first axis
INFERRED_FIRST = '''
def embed(tokens, token_embedding, position_embedding):
    flat = token_embedding.weight[tokens.flatten()]
    rows = flat.reshape(-1, *tokens.shape)
    return rows + position_embedding.weight[: tokens.shape[-1]]
'''


def test_the_minus_one_of_a_reshape_at_the_wrong_end_is_moved(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", INFERRED_FIRST, "embed")
    assert found and all("the `-1` at the wrong end" in h and "`flat.reshape(*tokens.shape, -1)` for `flat.reshape(-1, *tokens.shape)`" in h
                         for h in found)


# a step written as a size plus one: taking the term away mends it, and no step mend stands beside that
STEP_PLUS_ONE = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    at = torch.arange(n_positions, dtype=torch.float32).unsqueeze(1)
    pairs = torch.arange(0, d_model, 2, dtype=torch.float32)
    angles = at / base ** (pairs / d_model)
    out = torch.zeros(n_positions, d_model)
    every = 2
    out[:, 0::every] = torch.sin(angles)
    out[:, 1::every + 1] = torch.cos(angles)
    return out
'''


def test_a_step_plus_one_is_mended_by_dropping_the_term_alone(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", STEP_PLUS_ONE, "sinusoidal_table")
    assert found and all("with the term `1` dropped" in h and "step one too" not in h and "either of two" not in h for h in found)


# the old maximum, a running maximum without its last axis: the first nan is made at different lines on
# different checks (the exponentials on some, the blend on others)
OLD_MAX_WITHOUT_AXIS = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    outs, lses = [], []
    for a in range(0, n_q, block):
        qa = q[..., a:a + block, :]
        m = torch.full(qa.shape[:-1], -math.inf)
        l = torch.zeros(qa.shape[:-1])
        acc = torch.zeros(*qa.shape[:-1], v.shape[-1])
        for c in range(0, min(a + qa.shape[-2], n_k) if causal else n_k, block):
            s = qa @ k[..., c:c + block, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if causal and c == a:
                later = torch.arange(c, c + s.shape[-1])[None, :] > torch.arange(a, a + s.shape[-2])[:, None]
                s = s.masked_fill(later, -math.inf)
            m_new = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - m[..., None])
            fade = torch.exp(m - m_new)
            l = fade * l + p.sum(dim=-1)
            acc = fade[..., None] * acc + p @ v[..., c:c + block, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_the_old_maximum_is_found_where_the_checks_disagree_on_the_first_nan(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", OLD_MAX_WITHOUT_AXIS, "tiled_attention")
    assert found and any("got nan" in h for h in found)
    assert all("the wrong variable (line 97): with `m_new[..., None]` for `m[..., None]`" in h for h in found)


# a string where an axis belongs, not MATLAB's 'all': the words hold for any string
STRING_AXIS = '''
def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean("-1").unsqueeze(-1)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias
'''


def test_a_string_axis_that_is_not_all_is_said_as_an_int_wanted(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", STRING_AXIS, "layer_norm")
    assert found and all("a string where an axis belongs" in h and "an axis is an int, `dim=-1`" in h for h in found)


# After set BF's audit (read once set BF was measured): an einsum without `->`, whose output is its
# letters in alphabetical order, said in the learner's letters; a square typed as a product; pandas' drop
NO_ARROW = '''
def one_hot_lookup(ids, weight):
    hot = torch.nn.functional.one_hot(ids, weight.shape[0]).to(weight.dtype)
    return torch.einsum("nv,vd", hot, weight)
'''


def test_an_einsum_without_its_arrow_is_mended_in_its_own_letters(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", NO_ARROW, "one_hot_lookup")
    assert found and all("in your code, einsum without `->` keeps the output's letters in ALPHABETICAL order" in h
                         and '`"nv,vd->nd"` for `"nv,vd"`' in h for h in found)


SQUARE_AS_PRODUCT = '''
def layer_norm(x, weight, bias, eps=1e-5):
    centred = x - x.mean(-1, keepdim=True)
    var = (centred * 2).mean(-1, keepdim=True)
    return centred / torch.sqrt(var + eps) * weight + bias
'''


def test_a_square_typed_as_a_product_by_two_is_mended_to_a_power(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", SQUARE_AS_PRODUCT, "layer_norm")
    assert found and all("`* 2` multiplies by 2; a square is a POWER, `** 2`" in h and "`centred ** 2` for `centred * 2`" in h
                         for h in found)


PANDAS_DROP = '''
def ablate_head(scores, values, head):
    writes = torch.softmax(scores, dim=-1) @ values
    return writes.drop(head, axis=1).sum(1)
'''


def test_pandas_drop_asked_of_a_tensor_is_said_with_torchs_way(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", PANDAS_DROP, "ablate_head")
    assert found and all("pandas' `DataFrame.drop(labels, axis=...)`" in h for h in found)
