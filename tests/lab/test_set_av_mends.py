"""Mistakes of the kinds the retired set AV held, each written here another way than set AV's file:
a block written post-norm, `unbind` taken to keep its axis, a one-wide slice where an index was
meant, a bracket closed before `//`, and two hints that named a cause where they could only say
what the output shows (lab 03's sums along the columns, lab 08's T rows)."""

from __future__ import annotations

import ast

from labhelpers import failed_hints

from attention_by_hand.lab.bracket_mends import bracket_mends, bracket_words
from attention_by_hand.lab.habit_mends import habit_mends


def _changes(mends, source: str, op: str) -> list:
    fdef = ast.parse(source).body[0]
    return [c for c in mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == op]


# the attention branch normalised after its residual sum, as the original Transformer does
ATTENTION_POST_NORM = '''
def block_forward(x, ln1, attn, ln2, mlp):
    h = ln1(x + attn(x))
    return h + mlp(ln2(h))
'''


def test_a_branch_normalised_after_its_residual_sum_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", ATTENTION_POST_NORM, "block_forward")
    assert found and all("`x + attn(ln1(x))` for `ln1(x + attn(x))`" in h and "post-norm" in h for h in found)


def test_a_norm_is_moved_only_onto_a_branch_that_reads_the_same_name():
    from attention_by_hand.lab.residual_mends import pre_normed

    texts = ("ln(h + mlp(h))", "self.norm1(h + attn(h)[0])", "ln(h + mlp(g))", "ln(h + g)", "torch.exp(h + mlp(h))")
    calls = [ast.parse(text, mode="eval").body for text in texts]
    assert [pre_normed(c) for c in calls] == ["h + mlp(ln(h))", "h + attn(self.norm1(h))[0]", None, None, None]


# the running maximum walked column by column with torch.unbind, whose pieces lose their axis
COLUMNS_UNBOUND = '''
def online_softmax(scores):
    m = torch.full_like(scores[..., 0:1], -math.inf)
    l = torch.zeros_like(m)
    for s in torch.unbind(scores, dim=-1):
        new = torch.maximum(m, s)
        l = l * torch.exp(m - new) + torch.exp(s - new)
        m = new
    return torch.exp(scores - m) / l
'''


def test_unbind_taken_to_keep_its_axis_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", COLUMNS_UNBOUND, "online_softmax")
    assert found and all("`scores.split(1, dim=-1)` for `torch.unbind(scores, dim=-1)`" in h and "columns" in h for h in found)


def test_unbind_along_another_axis_is_worded_by_that_axis():
    from attention_by_hand.lab.reading_mends import reading_mends, reading_words

    fdef = ast.parse("def f(x, d):\n    return x.unbind(0), x.unbind(*d)\n").body[0]
    found = [c for c in reading_mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == "unbind_kept"]
    node = fdef.body[0].value.elts[0]  # x.unbind(0); the starred one gets no mend
    assert [c.said for c in found] == ["`x.split(1, dim=0)` for `x.unbind(0)`"] and "columns" not in reading_words(node, found[0])


def test_a_one_wide_slice_from_the_start_is_mended_to_its_entry():
    source = "def f(x):\n    return x[:, :1] + x[0:1] + x[:2] + x[:1.0] + x.shape[:1]\n"
    said = [c.said for c in _changes(habit_mends, source, "one_slice")]
    assert said == ["`0` for `:1` in `x[:, :1]`", "`0` for `0:1` in `x[0:1]`"]


# each head's weight on the first column, kept as a column by a one-wide slice
FIRST_COLUMN_KEPT = '''
def first_token_score(pattern):
    later = pattern[:, :, 1:]
    return later[..., 0:1].mean(dim=0).mean(dim=1)
'''


def test_a_one_wide_slice_kept_where_an_index_was_meant_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", FIRST_COLUMN_KEPT, "first_token_score")
    assert found and all("with `0` for `0:1`" in h for h in found)


def test_a_bracket_closed_before_a_floor_division_is_reopened():
    source = "def f(s, d, n):\n    return s / math.sqrt(d) // n\n"
    [change] = _changes(bracket_mends, source, "close_later")
    node = ast.parse(source).body[0].body[0].value
    assert "`math.sqrt(d // n)`" in change.said and "`n` floor-divides `s / math.sqrt(d)`" in bracket_words(node, change)


# each row divided by its sums without the axis kept: the sums line up with the columns
ROWS_BY_COLUMN_SUMS = '''
def counts_to_probs(counts, smoothing=1.0):
    smoothed = counts.float() + smoothing
    return smoothed / smoothed.sum(1)
'''


def test_sums_along_the_columns_are_said_by_what_they_did(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", ROWS_BY_COLUMN_SUMS, "counts_to_probs")
    assert found and all(h.startswith("cell [a, b] was divided by row b's sum, not row a's") for h in found)


# the new word's scores masked with the whole (T, T) mask, its T rows then viewed as one
WHOLE_MASK_VIEWED = '''
def decode_step(x_new, cache, position, qkv, proj, n_heads):
    B, _, C = x_new.shape
    hs = C // n_heads
    q, k, v = (t.view(B, 1, n_heads, hs).transpose(1, 2) for t in qkv(x_new).split(C, dim=-1))
    keys, values = append_to_cache(cache, k, v)
    T = keys.shape[2]
    later = torch.ones(T, T, dtype=torch.bool).triu(1)
    w = torch.softmax((q @ keys.transpose(-2, -1) / math.sqrt(hs)).masked_fill(later, -math.inf), dim=-1)
    return proj((w @ values).transpose(1, 2).reshape(B, 1, C)), (keys, values)
'''


def test_a_reshape_of_t_rows_is_said_by_what_it_shows(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", WHOLE_MASK_VIEWED, "decode_step")
    raised = [h for h in found if "is invalid for input of size" in h]
    assert raised and all("T rows came out where the new word makes ONE" in h and "the mask was built" not in h for h in raised)
