"""What a check says of a learner's function that raised, or that calls one of its right functions:
torch's own NotImplementedError is no function left unwritten, a 1-D tensor that broadcasting met
with the wrong axis is named with the axis it was meant for, a mistake is never placed in a
function that passed its own checks, and `a / b * c` is said as the brackets it lacks."""

from __future__ import annotations

from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.verdict import check_in_process
from labhelpers import REFERENCES, load_lab, patch_lab

XOR_FOR_A_POWER = '''
def softmax(scores):
    m = scores.max(dim=-1, keepdim=True).values
    e = torch.e ^ (scores - m)
    return e / e.sum(dim=-1, keepdim=True)
'''

MASK_MADE_FLOAT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1])
    hidden = causal_mask(x.shape[-2]).to(scores)
    return torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
'''

HEADS_KEPT_BY_A_VECTOR = '''
def ablate_head(scores, values, head):
    outs = torch.softmax(scores, dim=-1) @ values
    keep = torch.ones(outs.shape[1])
    keep[head] = 0
    return (outs * keep).sum(dim=1)
'''

DIVIDED_THEN_MULTIPLIED = '''
def first_token_score(pattern):
    B, T = pattern.shape[0], pattern.shape[-1]
    return pattern[:, :, 1:, 0].sum(dim=(0, 2)) / B * (T - 1)
'''


def _hints(tmp_path, number: int, patch: str, function: str) -> list[str]:
    lab = LABS[number - 1]
    path = tmp_path / lab.filename
    path.write_text(patch_lab(REFERENCES[lab.filename].read_text(encoding="utf-8"), patch), encoding="utf-8")
    run = check_in_process(load_lab(path), lab)
    return [r.hint for r in run.results if not r.passed and r.label.startswith(f"{function}:")]


def test_torch_refusing_xor_on_floats_is_no_function_left_unwritten(tmp_path):
    hints = _hints(tmp_path, 2, XOR_FOR_A_POWER, "softmax")
    assert hints and all("not written yet" not in h and "bitwise exclusive or, Python's `^`" in h for h in hints)


def test_a_function_still_raising_its_own_not_implemented_error_is_not_written_yet(tmp_path):
    unwritten = 'def softmax(scores):\n    raise NotImplementedError("softmax along the last axis")\n'
    hints = _hints(tmp_path, 2, unwritten, "softmax")
    assert hints and all(h.startswith("not written yet: softmax along the last axis") for h in hints)


def test_a_one_line_raise_of_a_function_not_written_is_not_written_yet(tmp_path):
    hints = _hints(tmp_path, 2, "def softmax(scores): raise NotImplementedError\n", "softmax")
    assert hints and all(h.startswith("not written yet") for h in hints)


def test_a_mask_turned_to_floats_in_the_caller_is_not_placed_in_the_right_causal_mask(tmp_path):
    hints = _hints(tmp_path, 4, MASK_MADE_FLOAT, "attention_weights")
    assert hints and all("masked_fill" in h and "which attention_weights() calls" not in h
                         and "left out of `ones(...)`" not in h for h in hints)


def test_a_vector_met_by_the_last_axis_is_named_with_the_axis_it_was_meant_for(tmp_path):
    hints = _hints(tmp_path, 11, HEADS_KEPT_BY_A_VECTOR, "ablate_head")
    assert hints and all("`keep` is 1-D, of size" in h and "to meet axis 1" in h and "`keep[:, None, None]`" in h
                         for h in hints)


def test_a_division_then_a_product_is_said_as_the_brackets_it_lacks(tmp_path):
    hints = _hints(tmp_path, 11, DIVIDED_THEN_MULTIPLIED, "first_token_score")
    assert hints and all("`/ B * (T - 1)` is computed left to right" in h and "`/ (B * (T - 1))`" in h for h in hints)
