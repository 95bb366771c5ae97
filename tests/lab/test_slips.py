"""Mistakes that are no edit of one token of the reference, named all the same: statistics over the
whole tensor, the average for a maximum, a size read from another variable, an argument used after
the reference updated it, blocks of columns added up, a running maximum started at 0. Each learner
function here is written its own way, unlike the reference's code."""

from __future__ import annotations

from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.verdict import check_in_process
from labhelpers import REFERENCES, load_lab, patch_lab


def failed(tmp_path, filename: str, patch: str, function: str) -> dict[str, str]:
    """{label: hint} of the function's failed checks."""
    path = tmp_path / filename
    path.write_text(patch_lab(REFERENCES[filename].read_text(encoding="utf-8"), patch), encoding="utf-8")
    run = check_in_process(load_lab(path), LABS[int(filename[4:6]) - 1])
    return {r.label: r.hint for r in run.results if not r.passed and r.label.startswith(function + ":")}


def hints(tmp_path, filename: str, patch: str, function: str) -> list[str]:
    return list(failed(tmp_path, filename, patch, function).values())


LAYER_NORM_OVER_EVERYTHING = '''
def layer_norm(x, weight, bias, eps=1e-5):
    centre = x.mean()
    spread = ((x - centre) ** 2).mean()
    return weight * (x - centre) / (spread + eps) ** 0.5 + bias
'''


def test_a_layer_norm_over_the_whole_tensor_is_named_as_both_statistics_over_everything(tmp_path):
    found = hints(tmp_path, "lab-06-transformer.py", LAYER_NORM_OVER_EVERYTHING, "layer_norm")
    assert found and all("`x.mean()`" in h and "x.var(unbiased=False)" in h and "whole tensor" in h for h in found)


RESIDUAL_FROM_THE_INPUT = '''
def block_forward(x, ln1, attn, ln2, mlp):
    attended = attn(ln1(x))
    after_attention = x + attended
    thought = mlp(ln2(after_attention))
    return x + thought
'''


def test_a_second_residual_added_to_the_blocks_input_is_named_as_the_x_it_was_given(tmp_path):
    found = hints(tmp_path, "lab-06-transformer.py", RESIDUAL_FROM_THE_INPUT, "block_forward")
    assert found and all("the `x` the function was given" in h for h in found)


SOFTMAX_SHIFTED_BY_THE_MEAN = '''
def softmax(scores):
    centre = scores.sum(-1, keepdim=True) / scores.shape[-1]
    e = (scores - centre).exp()
    return e / e.sum(-1, keepdim=True)
'''


def test_a_softmax_shifted_by_its_rows_average_is_named_and_not_as_a_minimum(tmp_path):
    found = hints(tmp_path, "lab-02-embeddings-softmax.py", SOFTMAX_SHIFTED_BY_THE_MEAN, "softmax")
    assert found and all("the average, not the maximum" in h and "min(" not in h for h in found)


HEADS_ADDED = '''
def merge_heads(t):
    total = t[0]
    for head in t[1:]:
        total = total + head
    return total
'''


def test_heads_added_instead_of_placed_side_by_side_is_said_as_blocks_summed(tmp_path):
    found = hints(tmp_path, "lab-05-multihead.py", HEADS_ADDED, "merge_heads")
    assert found and all("blocks summed into one" in h for h in found)


RUNNING_MAXIMUM_FROM_ZERO = '''
def online_softmax(scores):
    top = scores.new_zeros(scores.shape[:-1])
    total = scores.new_zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        column = scores[..., j]
        bigger = torch.where(column > top, column, top)
        total = total * torch.exp(top - bigger) + torch.exp(column - bigger)
        top = bigger
    return torch.exp(scores - top.unsqueeze(-1)) / total.unsqueeze(-1)
'''


def test_a_running_maximum_started_at_zero_fails_on_scores_far_below_zero_and_is_named(tmp_path):
    found = failed(tmp_path, "lab-09-flash-attention.py", RUNNING_MAXIMUM_FROM_ZERO, "online_softmax")
    (label, hint), = found.items()
    assert label.endswith("near -300") and "`0.0` for `float('-inf')`" in hint


def test_tiles_scaled_by_their_width_are_named_as_another_size(tmp_path):
    reference = REFERENCES["lab-09-flash-attention.py"].read_text(encoding="utf-8")
    assert reference.count("1 / math.sqrt(q.shape[-1])") == 1
    path = tmp_path / "lab-09-flash-attention.py"
    path.write_text(reference.replace("1 / math.sqrt(q.shape[-1])", "block ** -0.5"), encoding="utf-8")
    run = check_in_process(load_lab(path), LABS[8])
    found = [r.hint for r in run.results if not r.passed]
    assert found and all("`block` for `q.shape[-1]` (another size)" in h for h in found)
