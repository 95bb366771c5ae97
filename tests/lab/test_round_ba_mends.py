"""What the reading of set BJ left only observed or named wrongly, each written here another way than its
files: a shape's slice without its minus sign; a slice's stop given as a length in `slice(...)`; a
change of the reference at a size the learner read as the reference does; a transpose too many after
`stack`; a log to a base; how many axes for the length of one; numbers wrapped with `%`; a colon too
many in a read; a residual joined with `cat`; `cartesian_prod` of one tensor; a value with an axis too
many written into a slot; and what `sparse_coo_tensor` makes of a size left out."""

from __future__ import annotations

import inspect

from labhelpers import REFERENCES, failed_hints, load_lab

LAB03, LAB04, LAB05, LAB06 = ("lab-03-bigram.py", "lab-04-attention.py", "lab-05-multihead.py", "lab-06-transformer.py")
LAB07, LAB08, LAB09 = "lab-07-positions.py", "lab-08-kv-cache.py", "lab-09-flash-attention.py"

# the running sum made with the FIRST size alone: a batch of rows no longer fits it
FIRST_SIZE_ONLY = '''
def online_softmax(scores):
    top = torch.full_like(scores[..., 0], -math.inf)
    total = torch.zeros(scores.shape[:1], dtype=scores.dtype)
    for column in scores.unbind(-1):
        grown = torch.maximum(top, column)
        total = total * (top - grown).exp() + (column - grown).exp()
        top = grown
    return (scores - top.unsqueeze(-1)).exp() / total.unsqueeze(-1)
'''


def test_a_shapes_slice_without_its_minus_sign_is_named(tmp_path):
    found = failed_hints(tmp_path, LAB09, FIRST_SIZE_ONLY, "online_softmax")
    assert found and all("a slice's bound without its minus sign" in h and "`scores.shape[:-1]` for `scores.shape[:1]`" in h
                         for h in found)


def test_a_shapes_slice_made_empty_is_never_said_beside_it(tmp_path):
    found = failed_hints(tmp_path, LAB09, FIRST_SIZE_ONLY, "online_softmax")
    assert found and not any("shape[:0]" in h or "either of two changes" in h for h in found)


# each head's columns cut by `slice(start, length)`: from head 1 on the slice is empty
SLICE_OF_A_LENGTH = '''
def split_heads(t, n_heads):
    width = t.shape[-1] // n_heads
    return torch.stack([t[:, slice(h * width, width)] for h in range(n_heads)])
'''


def test_a_slice_calls_stop_given_as_a_length_is_counted_from_the_start(tmp_path):
    found = failed_hints(tmp_path, LAB05, SLICE_OF_A_LENGTH, "split_heads")
    assert found and all("`slice`'s end is a position" in h and "`h * width + width` for `width`" in h for h in found)


def _tiled_with_lengths() -> str:
    """The reference's tiled attention with its sizes renamed and each query block cut by `slice(i, length)`."""
    reference = load_lab(REFERENCES[LAB09])
    source = inspect.getsource(reference.tiled_attention).replace("T_q", "n_q").replace("T_k", "n_k")
    block_line = "q[..., i : i + block, :]"
    assert block_line in source
    return source.replace(block_line, "q[..., slice(i, min(block, n_q - i)), :]")


def test_a_size_read_as_the_reference_reads_it_is_not_blamed_where_the_learners_own_line_mends(tmp_path):
    found = failed_hints(tmp_path, LAB09, _tiled_with_lengths(), "tiled_attention")
    assert found and all("`i + min(block, n_q - i)` for `min(block, n_q - i)`" in h and "q.shape[0]" not in h for h in found)


# the chunks stacked (heads first already), then transposed once more
STACKED_THEN_TURNED = '''
def split_heads(t, n_heads):
    return torch.stack(t.tensor_split(n_heads, dim=-1), dim=0).transpose(1, 0)
'''


def test_a_transpose_too_many_after_stack_is_said_after_the_heads_order(tmp_path):
    found = failed_hints(tmp_path, LAB05, STACKED_THEN_TURNED, "split_heads")
    assert found and all("the first two axes the other way round" in h and "in your code," in h
                         and "transposed once too often" in h and "to put the heads first" not in h for h in found)


# the rate's log taken to the base d_model, where it was to be divided by d_model
LOG_TO_A_BASE = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    step = math.log(base, d_model)
    rates = torch.exp(-step * torch.arange(0, d_model, 2, dtype=torch.float32))
    angles = torch.outer(torch.arange(n_positions, dtype=torch.float32), rates)
    return torch.stack((angles.sin(), angles.cos()), dim=-1).flatten(-2)
'''


def test_a_log_to_a_base_is_said_as_the_base(tmp_path):
    found = failed_hints(tmp_path, LAB07, LOG_TO_A_BASE, "sinusoidal_table")
    assert found and all("is the logarithm of `base` to the BASE `d_model`" in h
                         and "`math.log(base) / d_model` for `math.log(base, d_model)`" in h for h in found)


# as many rows of the table as x has AXES
AXES_FOR_TOKENS = '''
def add_positions(x, table):
    return x + table[: x.ndim]
'''


def test_the_number_of_axes_read_as_a_length_is_named(tmp_path):
    found = failed_hints(tmp_path, LAB07, AXES_FOR_TOKENS, "add_positions")
    assert found and all("`x.ndim` is how many AXES `x` has" in h and "`x.size(-2)` for `x.ndim`" in h for h in found)


# the positions wrapped round the number of new words
WRAPPED_POSITIONS = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    where = (start + torch.arange(tokens.shape[-1])) % tokens.shape[-1]
    return token_embedding(tokens) + position_embedding(where)[None]
'''


def test_numbers_wrapped_round_with_a_modulo_are_said(tmp_path):
    found = failed_hints(tmp_path, LAB08, WRAPPED_POSITIONS, "embed_at")
    assert found and all("wraps the numbers round" in h and "`start + torch.arange(tokens.shape[-1])` for" in h
                         for h in found)


# every following id counted after each id, the colon after i + 1 a slip
EVERY_FOLLOWER = '''
def bigram_counts(ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size)
    for i in range(len(ids) - 1):
        counts[ids[i], ids[i + 1:]] += 1
    return counts
'''


def test_a_colon_too_many_in_a_read_is_taken_away(tmp_path):
    found = failed_hints(tmp_path, LAB03, EVERY_FOLLOWER, "bigram_counts")
    assert found and all("a colon too many: `i + 1:` is every entry from `i + 1` to the END" in h
                         and "with `ids[i + 1]` for `ids[i + 1:]`" in h for h in found)


# the feed-forward branch joined to the stream side by side
MLP_JOINED = '''
def block_forward(x, ln1, attn, ln2, mlp):
    x = x + attn(ln1(x))
    return torch.concat([x, mlp(ln2(x))], dim=-1)
'''


def test_a_residual_joined_with_cat_is_said_as_a_sum(tmp_path):
    found = failed_hints(tmp_path, LAB06, MLP_JOINED, "block_forward")
    assert found and all("`torch.concat` puts `x` and `mlp(ln2(x))` side by side" in h
                         and "with `x + mlp(ln2(x))` for" in h for h in found)


# the pairs of one range, asked of cartesian_prod with the range given once
PAIRS_OF_ONE = '''
def causal_mask(T):
    rows, cols = torch.cartesian_prod(torch.arange(T)).unbind(-1)
    return (cols > rows).reshape(T, T)
'''


def test_cartesian_prod_of_one_tensor_is_given_it_twice(tmp_path):
    found = failed_hints(tmp_path, LAB04, PAIRS_OF_ONE, "causal_mask")
    assert found and all("of ONE it returns that tensor unchanged" in h
                         and "`torch.cartesian_prod(torch.arange(T), torch.arange(T))` for" in h for h in found)


# each column's weights written into the output, made from a state kept as (..., 1)
KEPT_AXIS_WRITTEN = '''
def online_softmax(scores):
    top = scores.amax(dim=-1, keepdim=True)
    total = (scores - top).exp().sum(dim=-1, keepdim=True)
    out = torch.empty_like(scores)
    for j in range(scores.shape[-1]):
        out[..., j] = torch.exp(scores[..., j, None] - top) / total
    return out
'''


def test_a_value_with_an_axis_too_many_written_into_a_slot_is_squeezed(tmp_path):
    found = failed_hints(tmp_path, LAB09, KEPT_AXIS_WRITTEN, "online_softmax")
    assert found and all("the value written keeps an axis of length 1 at its end" in h for h in found)


# the counts made sparse with no size: the table is as large as the largest ids seen
SPARSE_WITHOUT_SIZE = '''
def bigram_counts(ids, vocab_size):
    where = torch.vstack((ids[:-1], ids[1:]))
    return torch.sparse_coo_tensor(where, torch.ones(where.shape[1])).to_dense()
'''


def test_what_sparse_coo_tensor_does_without_a_size_is_said(tmp_path):
    found = failed_hints(tmp_path, LAB03, SPARSE_WITHOUT_SIZE, "bigram_counts")
    assert found and all("`sparse_coo_tensor`, which the reference does not call, takes each axis's length" in h
                         for h in found)


# the base read as a divisor that is itself a quotient: the words quote the mend, brackets and all
LOG_TO_A_QUOTIENT = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    rates = torch.exp(-torch.arange(d_model // 2, dtype=torch.float32) * math.log(base, d_model / 2))
    angles = torch.arange(n_positions, dtype=torch.float32)[:, None] * rates
    return torch.stack((angles.sin(), angles.cos()), dim=-1).flatten(-2)
'''


def test_a_log_to_a_base_quotes_the_division_with_its_brackets(tmp_path):
    found = failed_hints(tmp_path, LAB07, LOG_TO_A_QUOTIENT, "sinusoidal_table")
    assert found and all("the log divided by `d_model / 2` is `math.log(base) / (d_model / 2)`" in h for h in found)


# positions joined to the embeddings side by side: the words say an addition, not a residual
POSITIONS_JOINED = '''
def add_positions(x, table):
    return torch.cat((x, table[: x.shape[-2]]), dim=-1)
'''


def test_a_join_where_positions_are_added_is_said_as_an_addition(tmp_path):
    found = failed_hints(tmp_path, LAB07, POSITIONS_JOINED, "add_positions")
    assert found and all("adding them entry by entry" in h and "`x + table[:x.shape[-2]]`" in h for h in found)
