"""Mistakes of the kinds the retired set AU held, each written here another way than set AU's file:
a neighbour one digit or one word away (`atleast_1d`, `clamp_max`, `any`, `floor_divide`, `set_`),
a lookup list in the wrong order, a layer's weight applied as the textbook's W x, a call whose
defaults are easy to misread (`hardtanh`), and a smoothing that reaches nothing."""

from __future__ import annotations

import ast

from labhelpers import failed_hints

from attention_by_hand.lab.api_mends import api_mends
from attention_by_hand.lab.layout_mends import layout_mends


def _said(mends, source: str, op: str) -> list[str]:
    fdef = ast.parse(source).body[0]
    return [c.said for c in mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == op]


# the mask as a column of positions against a row, the column made with the 1-D helper
MASK_FROM_ATLEAST_1D = '''
def causal_mask(T):
    pos = torch.arange(T)
    return torch.atleast_1d(pos).T < torch.atleast_2d(pos)
'''


def test_atleast_1d_for_atleast_2d_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_FROM_ATLEAST_1D, "causal_mask")
    assert found and all("`atleast_2d(...)` for `atleast_1d(...)`" in h and "its `.T` is itself" in h for h in found)


# ALiBi's distances from a float column; the column made 1-D: the mend is on the return line, so the
# earlier line's value (right, in the learner's own shape) is not said to be wrong
ALIBI_FROM_ATLEAST_1D = '''
def alibi_bias(T, slope):
    where = torch.arange(T, dtype=torch.float32)
    back = torch.atleast_1d(where).T - where
    return -slope * back.clamp(min=0)
'''


def test_a_mend_of_a_later_line_is_said_without_guessing_at_an_earlier_one(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", ALIBI_FROM_ATLEAST_1D, "alibi_bias")
    assert found and all("`atleast_2d(...)` for `atleast_1d(...)`" in h and "keepdim" not in h for h in found)


# ALiBi's distances j - i kept at or below 0 with the clamp that raises
DISTANCES_RAISED = '''
def alibi_bias(T, slope):
    back = torch.arange(T)[None, :] - torch.arange(T)[:, None]
    return (back.clamp_min(0) * slope).float()
'''


def test_clamp_min_for_clamp_max_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", DISTANCES_RAISED, "alibi_bias")
    assert found and all("`clamp_max(...)` for `clamp_min(...)`" in h and "RAISES every entry below" in h for h in found)


# the cells to hide: later than i AND not i itself, joined with `any`
MASK_JOINED_WITH_ANY = '''
def causal_mask(T):
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return torch.stack((j > i, j != i)).any(dim=0)
'''


def test_any_for_all_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_JOINED_WITH_ANY, "causal_mask")
    assert found and all("`all(...)` for `any(...)`" in h for h in found)


# each row divided by its sum with the division that rounds
ROWS_FLOOR_DIVIDED = '''
def counts_to_probs(counts, smoothing=1.0):
    smoothed = counts + smoothing
    return smoothed.floor_divide(smoothed.sum(dim=1, keepdim=True))
'''


def test_floor_divide_for_div_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ROWS_FLOOR_DIVIDED, "counts_to_probs")
    assert found and all("`div(...)` for `floor_divide(...)`" in h and "rounds each quotient DOWN" in h for h in found)


# the heads written side by side into a new tensor through `set_`, which writes nothing into it
HEADS_SET_INTO_PLACE = '''
def merge_heads(t):
    n_heads, T, head_size = t.shape
    merged = t.new_zeros(T, n_heads * head_size)
    for h in range(n_heads):
        merged[:, h * head_size:(h + 1) * head_size].set_(t[h].clone())
    return merged
'''


def test_set_for_copy_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_SET_INTO_PLACE, "merge_heads")
    assert found and all("`copy_(...)` for `set_(...)`" in h and "nothing is written into what it viewed" in h for h in found)


# the causal penalty looked up in a two-entry table whose entries are in the wrong order
PENALTY_TABLE_REVERSED = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1])
    penalty = scores.new_tensor([float("-inf"), 0.0])[causal_mask(x.shape[-2]).long()]
    return torch.softmax(scores + penalty, dim=-1)
'''


def test_two_entries_of_a_lookup_table_exchanged_are_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", PENALTY_TABLE_REVERSED, "attention_weights")
    assert found and all("two entries exchanged in the list `new_tensor(...)` is made of" in h for h in found)


def test_only_short_lists_a_tensor_is_made_of_get_their_entries_exchanged():
    source = "def f(x):\n    return torch.tensor([1, 2]) + x.new_tensor([1, 2, 3, 4, 5]) + torch.tensor(x)\n"
    assert _said(api_mends, source, "swap_entries") == ["`2` and `1` exchanged in `torch.tensor([1, 2])`"]


# the query layer applied by hand, as the textbook's y = W x + b
QUERY_BY_HAND = '''
def attention_weights(x, query, key):
    q = query.weight @ x + query.bias
    k = key(x)
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1])
    return torch.softmax(scores.masked_fill(causal_mask(x.shape[-2]), float("-inf")), dim=-1)
'''


def test_a_layer_applied_as_w_x_plus_b_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", QUERY_BY_HAND, "attention_weights")
    assert found and all("`query(x)` for `query.weight @ x + query.bias`" in h and "x @ W^T + b" in h for h in found)


def test_a_product_is_turned_only_where_a_weight_comes_first():
    source = "def f(w, v, W, layer):\n    return w @ v + W @ v + layer.weight.T @ v + torch.matmul(layer.weight, v)\n"
    assert sorted(_said(layout_mends, source, "product_turned")) == [
        "`v @ W.T` for `W @ v`", "`v @ layer.weight.T` for `torch.matmul(layer.weight, v)`"]


def test_a_turned_product_keeps_a_sum_whole_and_a_long_factor_unshortened():
    source = ("def f(W, x, layer, other):\n    return (W @ (x + 1), layer.weight @ x + other.bias,\n"
              "            W @ torch.arange(9, dtype=torch.float32).unsqueeze(1).expand(9, 9).contiguous())\n")
    fdef = ast.parse(source).body[0]
    found = [c for c in layout_mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == "product_turned"]
    assert sorted(c.arg for c in found) == [
        "(torch.arange(9, dtype=torch.float32).unsqueeze(1).expand(9, 9).contiguous()) @ (W).T",
        "(x + 1) @ (W).T", "(x) @ (layer.weight).T"]


# a one-hot row as 1 minus each id's distance to each column, clipped with hardtanh, whose bounds are not [0, 1]
ONE_HOT_CLIPPED = '''
def one_hot_lookup(ids, weight):
    gaps = torch.cdist(ids[:, None].to(weight.dtype), torch.arange(weight.shape[0])[:, None].to(weight.dtype))
    return F.hardtanh(1.0 - gaps) @ weight
'''


def test_hardtanh_is_said_to_clip_into_minus_one_one(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ONE_HOT_CLIPPED, "one_hot_lookup")
    assert found and all("`hardtanh`" in h and "clips into [-1, 1] unless given other bounds" in h for h in found)


# the smoothing given to a call that only fills NaN: it reaches no count
SMOOTHING_AS_A_FILL = '''
def counts_to_probs(counts, smoothing=1.0):
    filled = torch.nan_to_num(counts, nan=smoothing)
    return filled / filled.sum(dim=1, keepdim=True)
'''


def test_a_smoothing_that_reaches_no_count_is_said_so(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", SMOOTHING_AS_A_FILL, "counts_to_probs")
    assert found and all("no smoothing reached the table" in h for h in found)


def test_a_renamed_clamp_takes_its_keyword_along_and_floor_divide_drops_a_rounding_mode():
    from attention_by_hand.lab.mutant_edits import Change, edit

    def renamed(source: str, to: str) -> str:
        return ast.unparse(edit(ast.parse(source, mode="eval").body, Change("f", 0, "rename", to, "function", "")))

    assert renamed("x.clamp_min(min=0)", "clamp_max") == "x.clamp_max(max=0)"
    assert renamed("torch.div(a, b, rounding_mode='trunc')", "floor_divide") == "torch.floor_divide(a, b)"
