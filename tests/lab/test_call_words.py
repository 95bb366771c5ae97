"""What a library call on a quoted line does, said when the reference never makes that call
(call_words.py)."""

from __future__ import annotations

import importlib.util

from attention_by_hand.lab.call_words import call_words
from attention_by_hand.lab.registry import LABS
from labhelpers import REFERENCES, check_untimed, load_lab, patch_lab

REFERENCE = '''
import torch


def weights(scores):
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)


def totals(x):
    return torch.cumsum(x, dim=0)
'''


def _reference(tmp_path):
    path = tmp_path / "reference.py"
    path.write_text(REFERENCE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_call_the_reference_never_makes_is_described(tmp_path):
    said = call_words(["return e / torch.cumsum(e, dim=-1)"], _reference(tmp_path), "weights")
    assert said == ("`cumsum`, which the reference does not call, is a running (cumulative) sum: "
                    "entry i adds up the entries up to i only")


def test_a_call_the_reference_makes_is_not_described(tmp_path):
    assert call_words(["return e / e.sum(dim=-1, keepdim=True).exp()"], _reference(tmp_path), "weights") is None


def test_a_call_only_another_function_of_the_reference_makes_is_described(tmp_path):
    assert call_words(["return torch.cumsum(e, dim=-1)"], _reference(tmp_path), "weights") is not None
    assert call_words(["return torch.cumsum(e, dim=-1)"], _reference(tmp_path), "totals") is None


def test_the_backticked_code_of_a_hint_is_read(tmp_path):
    said = call_words(["with `* torch.eye(V)` removed from `smoothed = ...`"], _reference(tmp_path), "weights")
    assert said.startswith("`eye`, which the reference does not call, is the identity")


def test_a_loop_header_is_read(tmp_path):
    said = call_words(["for piece in x.split(2, dim=-1):"], _reference(tmp_path), "weights")
    assert said is not None and "an int is a piece's size, not the number of pieces" in said


def test_a_split_given_a_worked_out_size_is_not_described(tmp_path):
    # `d // 2` is a piece's size, as split reads it: the learner did not take it for a count
    assert call_words(["for chunk in x.split(d // 2, dim=-1):"], _reference(tmp_path), "weights") is None
    assert call_words(["a, b = torch.split(x, [2, 2], dim=-1)"], _reference(tmp_path), "weights") is None


def test_a_split_given_a_bare_number_in_torch_form_is_described(tmp_path):
    said = call_words(["a, b = torch.split(x, 2, dim=-1)"], _reference(tmp_path), "weights")
    assert said is not None and "not the number of pieces" in said


def test_code_that_does_not_parse_describes_nothing(tmp_path):
    # (a call's first line, `torch.cumsum(e,`, is read closed: the test below)
    assert call_words(["torch.cumsum(e,, dim=0)"], _reference(tmp_path), "weights") is None


def test_a_check_whose_blamed_line_calls_cumsum_says_what_it_does(tmp_path):
    patch = '''
def softmax(scores):
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    return e / torch.cumsum(e, dim=-1)
'''
    path = tmp_path / "lab-02-embeddings-softmax.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), patch), encoding="utf-8")
    failed = [r for r in check_untimed(load_lab(path), LABS[1]).results if not r.passed]
    assert failed and all("`cumsum`, which the reference does not call, is a running" in r.hint
                          for r in failed if r.label.startswith("softmax"))


def test_a_variance_told_how_to_count_is_not_described(tmp_path):
    assert call_words(["var = x.var(dim=-1, unbiased=False)"], _reference(tmp_path), "weights") is None


def test_a_numpy_function_of_the_same_name_is_not_described(tmp_path):
    assert call_words(["parts = np.split(a, 3)"], _reference(tmp_path), "weights") is None


def test_a_variance_told_how_to_count_by_position_is_not_described(tmp_path):
    assert call_words(["spread = x.std(-1, False)"], _reference(tmp_path), "weights") is None


def test_the_new_code_of_a_mend_is_not_read_as_the_learners(tmp_path):
    said = call_words(["`torch.tril(m)` for `m` in `return ...`"], _reference(tmp_path), "weights")
    assert said is None


def test_a_bare_variance_is_described_where_the_reference_tells_its_own_how_to_count(tmp_path):
    reference = tmp_path / "normed.py"
    reference.write_text("import torch\n\n\ndef normed(x):\n    var = x.var(dim=-1, keepdim=True, unbiased=False)\n"
                         "    return (x - x.mean(dim=-1, keepdim=True)) / torch.sqrt(var + 1e-5)\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("normed", reference)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    said = call_words(["var = x.var(dim=-1, keepdim=True)"], module, "normed")
    assert said is not None and said.startswith("`var`, which the reference calls only told how to count, divides by n - 1")
    assert call_words(["var = x.var(dim=-1, keepdim=True, unbiased=False)"], module, "normed") is None


def test_a_diagonal_left_on_its_default_axes_is_described_and_one_told_its_axes_is_not(tmp_path):
    said = call_words(["d = torch.diagonal(w, -1)"], _reference(tmp_path), "weights")
    assert said is not None and "across the FIRST two axes" in said
    assert call_words(["d = w.diagonal(-1, dim1=-2, dim2=-1)"], _reference(tmp_path), "weights") is None


def test_a_histogram_left_on_its_default_range_is_described(tmp_path):
    said = call_words(["h = torch.histc(pair, bins=V * V)"], _reference(tmp_path), "weights")
    assert said is not None and "the data's own smallest to largest value" in said
    assert call_words(["h = torch.histc(pair, bins=V * V, min=0, max=V * V - 1)"], _reference(tmp_path), "weights") is None


def test_a_diagonal_or_a_histogram_told_by_position_is_not_described(tmp_path):
    assert call_words(["d = x.diagonal(0, -2, -1)"], _reference(tmp_path), "weights") is None
    assert call_words(["d = torch.diagonal(x, 0, -2, -1)"], _reference(tmp_path), "weights") is None
    assert call_words(["h = torch.histc(x, 10, 0.0, 5.0)"], _reference(tmp_path), "weights") is None
    assert call_words(["d = torch.diagonal(x, -1)"], _reference(tmp_path), "weights") is not None


def test_a_split_given_a_size_by_keyword_is_not_described(tmp_path):
    assert call_words(["a, b = x.split(split_size=x.shape[-1] // 2, dim=-1)"], _reference(tmp_path), "weights") is None


def test_a_split_given_a_bare_name_is_described(tmp_path):
    # `split(n_heads)` is the classic misreading: n_heads pieces meant, pieces of n_heads made
    said = call_words(["heads = t.split(n_heads, dim=-1)"], _reference(tmp_path), "weights")
    assert said is not None and "not the number of pieces" in said


def test_a_chunk_told_a_count_by_its_name_is_not_described(tmp_path):
    # `chunk(n_heads)` counts pieces, as chunk reads it: its words would name a misreading not made
    said = call_words(["return torch.stack(t.chunk(n_heads, dim=-1), dim=-1)"], _reference(tmp_path), "weights")
    assert said is not None and "`stack`" in said and "`chunk`" not in said
    assert call_words(["return torch.chunk(t, num_blocks, 1)"], _reference(tmp_path), "weights") is None


def test_a_chunk_told_a_size_is_described(tmp_path):
    said = call_words(["heads = t.chunk(head_size, dim=-1)"], _reference(tmp_path), "weights")
    assert said is not None and "not pieces of that size" in said


def test_a_chunk_told_a_bare_n_is_described(tmp_path):
    # `n` may be a size (`n = d // n_heads`) as well as a count
    said = call_words(["heads = t.chunk(n, dim=-1)"], _reference(tmp_path), "weights")
    assert said is not None and "not pieces of that size" in said


def test_the_call_a_mend_changes_is_described(tmp_path):
    # the mend's quote drops the call's owner: `stack(...)` is read as a tensor's
    said = call_words(["`dim=0` for `dim=-1` in `stack(...)` in `return ...`"], _reference(tmp_path), "weights")
    assert said is not None and "`stack`, which the reference does not call, puts the tensors on a NEW axis" in said


def test_the_first_line_of_a_call_over_several_lines_is_read(tmp_path):
    said = call_words(["`return F.scaled_dot_product_attention(` returns a wrong value"], _reference(tmp_path), "weights")
    assert said is not None and "reads a bool `attn_mask` as True = may attend" in said


def test_group_norm_is_said_to_take_axis_1_as_its_channels(tmp_path):
    said = call_words(["return F.group_norm(x, 1, weight, bias)"], _reference(tmp_path), "weights")
    assert said is not None and "takes axis 1 as the channels, not the last axis" in said


def test_a_categorical_given_logits_is_said_to_take_a_softmax(tmp_path):
    said = call_words(["return torch.distributions.Categorical(logits=counts + 1).probs"], _reference(tmp_path), "weights")
    assert said.startswith("`Categorical`, which the reference does not call, reads `logits=` as scores") and "softmax" in said


def test_a_binary_cross_entropy_is_said_to_score_every_entry(tmp_path):
    said = call_words(["return F.binary_cross_entropy(rows, targets)"], _reference(tmp_path), "weights")
    assert said.startswith("`binary_cross_entropy`, which the reference does not call, scores every entry as a yes/no guess")


def test_a_binary_cross_entropy_told_how_to_reduce_is_not_described(tmp_path):
    assert call_words(["return F.binary_cross_entropy(rows, targets, reduction='sum')"], _reference(tmp_path), "weights") is None


def test_a_running_log_sum_exp_is_described_as_running(tmp_path):
    said = call_words(["lse = torch.logcumsumexp(scores, dim=-1)"], _reference(tmp_path), "weights")
    assert said == ("`logcumsumexp`, which the reference does not call, is a running log-sum-exp: entry i takes the "
                    "entries up to i only, not the whole row")


def test_a_running_total_found_by_the_engine_is_followed_by_what_the_learners_call_does(tmp_path):
    patch = '''
def softmax(scores):
    return (scores - torch.logcumsumexp(scores, dim=-1)).exp()
'''
    path = tmp_path / "lab-02-embeddings-softmax.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), patch), encoding="utf-8")
    failed = [r for r in check_untimed(load_lab(path), LABS[1]).results if not r.passed and r.label.startswith("softmax")]
    assert failed and all("a running total, where the whole row's was meant" in r.hint
                          and "`logcumsumexp`, which the reference does not call, is a running log-sum-exp" in r.hint
                          for r in failed)


def test_take_is_described_as_reading_its_tensor_flat(tmp_path):
    said = call_words(["return -torch.log(torch.take(rows, ids[1:])).mean()"], _reference(tmp_path), "weights")
    assert said.startswith("`take`, which the reference does not call, reads its tensor as one flat row")


def test_block_diag_is_told_to_put_blocks_on_the_diagonal(tmp_path):
    said = call_words(["return torch.block_diag(*heads)"], _reference(tmp_path), "weights")
    assert said.startswith("`block_diag`, which the reference does not call, puts each matrix in its own block")


def test_inner_is_told_to_pair_every_row_with_every_row(tmp_path):
    said = call_words(["D = torch.inner(p, dp)"], _reference(tmp_path), "weights")
    assert "EVERY row of the first with every row of the second" in said


def test_index_copy_is_told_to_replace_what_was_there(tmp_path):
    said = call_words(["dk.index_copy_(-2, rows, share)"], _reference(tmp_path), "weights")
    assert "`index_add_` adds" in said
