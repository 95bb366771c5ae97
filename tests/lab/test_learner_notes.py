"""Facts about a learner's call that its numbers cannot show (learner_notes.py): returned parts that
are one tensor, and PyTorch's warnings from the learner's lines; and the hints that say them."""

from __future__ import annotations

import importlib.util
import warnings

import torch

from attention_by_hand.lab.learner_notes import MAX_WARNINGS, recording, say_shared, shared_parts, with_notes
from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.verdict import check_in_process
from labhelpers import REFERENCES, load_lab, patch_lab


def test_two_names_for_one_tensor_are_one_part_pair():
    a = b = torch.zeros(3)
    assert shared_parts((a, b, torch.zeros(3))) == [[0, 1]]


def test_the_pieces_of_a_split_share_a_storage_and_are_not_one_tensor():
    q, k = torch.zeros(2, 3).unbind(0)
    assert shared_parts((q, k)) == []


def test_a_single_tensor_has_no_parts():
    assert shared_parts(torch.zeros(3)) == []


def test_empty_tensors_are_never_said_to_be_one():
    assert shared_parts((torch.zeros(0), torch.zeros(0))) == []


LEARNER = '''
import warnings
import torch


def no_axis(x):
    return torch.nn.functional.softmax(x)


def reversed_axes(x):
    return x.T


def warns_then_raises(x):
    warnings.warn("first this")
    raise ValueError("then this")


def warns_often(x):
    for i in range(5):
        warnings.warn(f"number {i}")
    return x
'''


def _module(tmp_path):
    path = tmp_path / "learner.py"
    path.write_text(LEARNER, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("learner", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_a_torch_warning_from_the_learners_line_is_kept_with_that_line(tmp_path):
    module, path = _module(tmp_path)
    with recording(path) as warned:
        module.no_axis(torch.zeros(2, 3, 4))
    # (a warning torch gives from C++, such as `.T` on three axes, comes once per process: a
    # test of it would depend on which test ran first in its worker)
    assert len(warned) == 1 and warned[0][0] == 7 and warned[0][1].startswith("Implicit dimension choice for softmax")


def test_a_warning_torch_gives_once_per_process_is_kept_on_every_call(tmp_path):
    module, path = _module(tmp_path)
    for _ in range(2):
        with recording(path) as warned:
            module.reversed_axes(torch.zeros(2, 3, 4))
        assert len(warned) == 1 and "`x.T`" in warned[0][1]


def test_a_warning_from_another_file_is_not_kept(tmp_path):
    _, path = _module(tmp_path)
    with recording(path) as warned:
        warnings.warn("from the test's own line")
    assert warned == []


def test_a_warning_before_an_error_is_kept(tmp_path):
    module, path = _module(tmp_path)
    try:
        with recording(path) as warned:
            module.warns_then_raises(None)
    except ValueError:
        pass
    assert warned == [[15, "first this"]]


def test_at_most_a_few_warnings_are_kept(tmp_path):
    module, path = _module(tmp_path)
    with recording(path) as warned:
        module.warns_often(None)
    assert len(warned) == MAX_WARNINGS


def test_parts_the_reference_shares_too_are_not_said():
    assert say_shared([[0, 1]], [[0, 1]]) is None
    assert say_shared([[0, 1]], []).startswith("parts 1 and 2 of what you return are one tensor")


def test_a_hint_gets_the_warning_of_any_of_its_checks_calls():
    made = [({"event": "result"}, ()), ({"event": "result", "warned": [[7, "a warning"]]}, ())]
    assert with_notes("the hint", made, None) == 'PyTorch warned at line 7: "a warning"; the hint'


def test_a_hint_with_nothing_to_note_is_unchanged():
    assert with_notes("the hint", [({"event": "result"}, ())], None) == "the hint"


# dq and dk made in one assignment: one accumulator, so both come back as their sum
ONE_ACCUMULATOR = '''
def attention_backward(q, k, v, d_out, causal):
    scale = 1 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1) * scale
    if causal:
        T = s.shape[-1]
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(diagonal=1), float("-inf"))
    p = torch.softmax(s, dim=-1)
    dv = p.transpose(-2, -1) @ d_out
    ds = softmax_backward(p, d_out @ v.transpose(-2, -1))
    dq = dk = torch.zeros_like(q)
    dq += ds @ k * scale
    dk += ds.transpose(-2, -1) @ q * scale
    return dq, dk, dv
'''


def test_a_check_of_two_returned_names_for_one_tensor_says_so_first(tmp_path):
    path = tmp_path / "lab-10-gradients.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), ONE_ACCUMULATOR), encoding="utf-8")
    run = check_in_process(load_lab(path), LABS[9])
    hints = [r.hint for r in run.results if not r.passed and r.label.startswith("attention_backward")]
    assert hints and all(h.startswith("parts 1 and 2 of what you return are one tensor under two names") for h in hints)


# softmax without dim= on (heads, T, T): torch picks axis 0, the heads, and warns
NO_AXIS = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    weights = torch.nn.functional.softmax(scores)
    return proj(merge_heads(weights @ v)), weights
'''


def test_a_check_of_a_call_torch_warned_about_quotes_the_warning_and_its_line(tmp_path):
    path = tmp_path / "lab-05-multihead.py"
    text = patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), NO_AXIS)
    path.write_text(text, encoding="utf-8")
    line = 1 + text.splitlines().index("    weights = torch.nn.functional.softmax(scores)")
    run = check_in_process(load_lab(path), LABS[4])
    hints = [r.hint for r in run.results if not r.passed and r.label.startswith("multi_head_attention")]
    assert hints and all(f'PyTorch warned at line {line}: "Implicit dimension choice for softmax has been deprecated' in h for h in hints)


REFUSES_ITS_STORAGE = '''
class NoStorage(torch.Tensor):
    def untyped_storage(self):
        raise RuntimeError("no storage here")


def attention_backward(q, k, v, d_out, causal):
    return q.as_subclass(NoStorage), k, v
'''


def test_a_returned_tensor_that_refuses_its_storage_still_gets_its_hints(tmp_path):
    path = tmp_path / "lab-10-gradients.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), REFUSES_ITS_STORAGE), encoding="utf-8")
    run = check_in_process(load_lab(path), LABS[9])
    assert run.failure is None and any(not r.passed and r.label.startswith("attention_backward") for r in run.results)


# only its 3-D inputs reach the transpose that warns; only its other inputs are wrong
WARNS_ON_OTHER_INPUTS = '''
def softmax_backward(p, dp):
    D = (p * dp).sum(dim=-1, keepdim=True)
    if p.dim() == 3:
        D = D.T.T
    if p.dim() == 1:
        D = D * 2
    return p * (dp - D)
'''


def test_a_warning_from_one_checks_inputs_is_not_said_in_anothers_hint(tmp_path):
    path = tmp_path / "lab-10-gradients.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), WARNS_ON_OTHER_INPUTS), encoding="utf-8")
    run = check_in_process(load_lab(path), LABS[9])
    failed = [r.hint for r in run.results if not r.passed and r.label.startswith("softmax_backward")]
    assert failed and not any("PyTorch warned" in h for h in failed)
