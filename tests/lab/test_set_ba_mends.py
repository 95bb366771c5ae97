"""Mistakes of the kinds the retired set BA held, each written here another way than set BA's file:
a loop over `enumerate` of a cut whose position was taken for the item before it; and what a review of
the round before found: a NaN's module never imported, a NaN as a running maximum's start, positions
added before the tokens, a sum of hundreds of terms, and a NaN typed where a `nanmean` skips it."""

from __future__ import annotations

import ast

from attention_by_hand.lab.operand_mends import operand_mends
from attention_by_hand.lab.reading_mends import reading_mends
from attention_by_hand.lab.residual_mends import residual_mends
from labhelpers import failed_hints


def _changes(mends, source: str, op: str) -> list:
    fdef = ast.parse(source).body[0]
    return [c for c in mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))}) if c.op == op]


# each id paired with its position, where each id was meant to be paired with the id after it
POSITION_FOR_THE_ID_BEFORE = '''
def bigram_counts(ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size)
    for cur, nxt in enumerate(ids[:-1]):
        counts[cur, nxt] += 1
    return counts
'''


def test_a_position_taken_for_the_item_before_is_mended_into_pairs(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", POSITION_FOR_THE_ID_BEFORE, "bigram_counts")
    assert found and all("`zip(ids[:-1], ids[1:])` for `enumerate(ids[:-1])`" in h and "POSITION" in h for h in found)


def test_only_enumerate_of_one_cut_is_read_as_pairs():
    source = ("def f(ids, w):\n    for a, b in enumerate(ids[1:].tolist()):\n        pass\n"
              "    for a, b in enumerate(ids):\n        pass\n    for a, b in enumerate(ids[1:], start=1):\n        pass\n"
              "    for a, b in enumerate(ids[1:][:-1]):\n        pass\n    for a in enumerate(ids[2:]):\n        pass\n")
    assert [c.arg for c in _changes(operand_mends, source, "enumerate_pairs")] == [
        "zip(ids[:-1].tolist(), ids[1:].tolist())"]


# `math.nan` in a file that never imports math: the NameError is the mistake, not a NaN's reading
NAN_MODULE_NOT_IMPORTED = '''
def ablate_head(scores, values, head):
    outs = torch.softmax(scores, dim=-1) @ values
    outs[:, head] = math.nan
    return outs.nansum(dim=1)
'''


def test_a_nan_whose_module_was_never_imported_is_not_read_as_missing(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", NAN_MODULE_NOT_IMPORTED, "ablate_head")
    assert found and all("name 'math' is not defined" in h and "pandas" not in h and "`0.0` for" not in h for h in found)


def test_a_nan_as_a_tensors_start_is_not_read_as_missing():
    source = ("def f(s, i):\n    m = torch.full(s.shape, float('nan'))\n    s[i] = float('nan')\n"
              "    e = s.masked_fill(s > 0, torch.nan)\n    return m, e\n")
    assert [c.line for c in _changes(reading_mends, source, "nan_as_missing")] == [3, 4]


# positions added first and the tokens transposed: the T position rows meet the batch's 2 rows
POSITIONS_FIRST_TOKENS_TURNED = '''
def embed(tokens, token_embedding, position_embedding):
    return position_embedding(torch.arange(tokens.shape[-1])) + token_embedding(tokens.T)
'''


def test_lengths_meeting_the_batch_size_name_no_side(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_FIRST_TOKENS_TURNED, "embed")
    assert any("(T) met one of 2, as many as the batch size" in h for h in found)
    assert not any("position rows" in h or "tokens' rows" in h for h in found)


def test_a_sum_of_hundreds_of_terms_is_read_without_recursion():
    source = "def f(x, g):\n    a = g(x)\n    return " + " + ".join(["x", "a", *["g(a)"] * 1200]) + "\n"
    assert len(_changes(residual_mends, source, "stream_read")) == 1200


# row 0 marked NaN for `nanmean` to skip, as meant; the slip is the axes averaged
NAN_SKIPPED_AXES_WRONG = '''
def first_token_score(pattern):
    col = pattern[..., 0].clone()
    col[..., 0] = torch.nan
    return col.nanmean(dim=(0, 1))
'''


def test_a_nan_a_nanmean_skips_is_not_called_unskipped(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", NAN_SKIPPED_AXES_WRONG, "first_token_score")
    assert found and not any("does not skip a nan" in h for h in found)


def test_a_nan_skipping_reduction_is_recognised():
    from attention_by_hand.lab.first_nan import skips_nan

    assert [skips_nan(c) for c in ("x.nansum(1)", "torch.nanmean(x)", "torch.nan_to_num(x)", "x.sum(1)", "x.mean()")] == [
        True, True, True, False, False]
