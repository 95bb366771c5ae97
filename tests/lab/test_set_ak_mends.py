"""Mistakes of the kinds the retired set AK held, each written here another way than set AK's file: a
dict walked as pairs, the transpose on the wrong factor of a product, a comparison taken for a table
of every pair, a slice of the first axis where the last was meant, and `vecdot` left to its default
axis; and the note on `sparse_coo_tensor`'s error, said of the argument it was given, not of one way
to get it wrong."""

from __future__ import annotations

from labhelpers import failed_hints

# the two branches kept in a dict bound to a name, walked as if it gave (norm, branch) pairs
DICT_AS_PAIRS = '''
def block_forward(x, ln1, attn, ln2, mlp):
    steps = {ln1: attn, ln2: mlp}
    for norm, branch in steps:
        x = x + branch(norm(x))
    return x
'''


def test_a_dict_walked_as_pairs_is_mended_with_its_items(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", DICT_AS_PAIRS, "block_forward")
    assert found and all("`steps.items()` for `steps`" in h and "gives its KEYS alone" in h for h in found)


# the query transposed where the key was meant: (head_size, head_size) scores
TRANSPOSE_ON_THE_QUERY = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = (q.T @ k) / q.shape[-1] ** 0.5
    s = s.masked_fill(causal_mask(x.shape[0]), float("-inf"))
    return s.softmax(dim=-1)
'''


def test_the_transpose_on_the_wrong_factor_is_mended_by_moving_it(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", TRANSPOSE_ON_THE_QUERY, "attention_weights")
    assert found and all("`q @ k.T` for `q.T @ k`" in h and "the transpose on the wrong factor" in h for h in found)


# `==` taken to compare every id with every vocabulary number, as a table
EQUALS_AS_A_TABLE = '''
def one_hot_lookup(ids, weight):
    hot = (ids == torch.arange(weight.shape[0])).to(weight.dtype)
    return hot @ weight
'''


def test_a_comparison_taken_for_a_table_is_mended_with_an_axis_of_size_1(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", EQUALS_AS_A_TABLE, "one_hot_lookup")
    assert found and all("`ids.unsqueeze(-1) == torch.arange(weight.shape[0])`" in h and "entry by entry" in h
                         for h in found)


# each row shifted by the last ROW of the sorted scores, where each row's own largest was meant
LAST_ROW_FOR_LAST_COLUMN = '''
def softmax(scores):
    top = scores.sort(dim=-1).values[-1:]
    e = (scores - top).exp()
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_a_slice_of_the_first_axis_where_the_last_was_meant_is_mended_with_an_ellipsis(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", LAST_ROW_FOR_LAST_COLUMN, "softmax")
    assert found and all("`scores.sort(dim=-1).values[..., -1:]`" in h and "cuts the FIRST axis" in h for h in found)


# dk summed over the head's axis, vecdot's default, where the queries' axis (-3 of the product) was meant
VECDOT_LEFT_TO_ITS_DEFAULT = '''
def attention_backward(q, k, v, d_out, causal):
    scale = q.shape[-1] ** -0.5
    s = q @ k.transpose(-2, -1) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    p = s.softmax(dim=-1)
    ds = softmax_backward(p, d_out @ v.transpose(-2, -1))
    dk = torch.linalg.vecdot(ds.unsqueeze(-1), q.unsqueeze(-2)) * scale
    return ds @ k * scale, dk, p.transpose(-2, -1) @ d_out
'''


def test_vecdot_left_to_its_default_axis_is_said_to_work_along_the_last(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", VECDOT_LEFT_TO_ITS_DEFAULT, "attention_backward")
    assert found and all("`dim=-3` left out" in h and "the last (dim -1)" in h for h in found)


# the one-hot pairs given as (entries, 2), one pair per row, where sparse_coo_tensor wants one row per axis
PAIRS_AS_ROWS = '''
def one_hot_lookup(ids, weight):
    where = torch.stack((torch.arange(len(ids)), ids), dim=1)
    hot = torch.sparse_coo_tensor(where, torch.ones(len(ids)), (len(ids), weight.shape[0]))
    return (hot @ weight.double()).to(weight.dtype)
'''


def test_sparse_coo_tensors_error_is_glossed_by_what_its_first_argument_held(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", PAIRS_AS_ROWS, "one_hot_lookup")
    # one axis per id read (3 ids, then 7) for a matrix's two: said of the argument, with no cause assumed
    assert found and all(f"FIRST argument's first axis: that had {n}, for a size of 2 axes" in h and "transpose it" not in h
                         for h, n in zip(found, (3, 7), strict=True))
