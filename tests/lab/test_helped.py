"""helped.py: a function wrong only through a checked function of the learner's that it calls is
told so, and where; one with its own mistake is not."""

from __future__ import annotations

from pathlib import Path

from attention_by_hand.lab.registry import lab_numbered
from attention_by_hand.lab.room import _row
from attention_by_hand.lab.verdict import check_in_process
from labhelpers import REFERENCES, load_lab, patch_lab

FILENAME = lab_numbered(4).filename

# the mask on the wrong side: it hides the past; attention_weights and self_attention are right
PAST_MASK = '''
def causal_mask(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
'''

# both index vectors rows: a (1, T) mask, all False, that hides nothing where it is applied
ROW_MASK = '''
def causal_mask(T):
    return torch.arange(T)[None, :] > torch.arange(T)[None, :]
'''

UNSCALED = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = (q @ k.transpose(-2, -1)).masked_fill(causal_mask(x.shape[-2]), float("-inf"))
    return torch.softmax(scores, dim=-1)
'''


def _run(tmp_path: Path, patch: str):
    path = tmp_path / FILENAME
    path.write_text(patch_lab(REFERENCES[FILENAME].read_text(encoding="utf-8"), patch), encoding="utf-8")
    return path, check_in_process(load_lab(path), lab_numbered(4))


def _hints(run, function: str) -> list[str]:
    return [r.hint for r in run.results if not r.passed and r.label.startswith(function + ":")]


def test_a_caller_right_with_the_reference_mask_is_told_the_mistake_is_in_the_mask(tmp_path):
    _, run = _run(tmp_path, PAST_MASK)
    hints = _hints(run, "attention_weights")
    assert hints and all(h.startswith("wrong only through your `causal_mask`") for h in hints)


def test_a_caller_of_a_caller_is_sent_to_the_deepest_wrong_function(tmp_path):
    _, run = _run(tmp_path, PAST_MASK)
    hints = _hints(run, "self_attention")
    assert hints and all("through your `causal_mask`, which" in h and "attention_weights`, which" not in h for h in hints)


def test_a_caller_with_a_mistake_of_its_own_is_not_sent_elsewhere(tmp_path):
    _, run = _run(tmp_path, PAST_MASK + UNSCALED)
    hints = _hints(run, "attention_weights")
    assert hints and not any("wrong only through" in h for h in hints)


def test_the_room_counts_the_mistake_at_the_mask_alone(tmp_path):
    path, run = _run(tmp_path, ROW_MASK)
    said = [words for _, words in _row(path, lab_numbered(4), run).mistakes]
    assert len(said) == 1 and said[0].startswith("causal_mask: ")


NOT_WRITTEN = '''
def causal_mask(T):
    raise NotImplementedError("hide the future")
'''


def test_a_helper_not_written_yet_is_said_so_in_the_callers_hint(tmp_path):
    _, run = _run(tmp_path, NOT_WRITTEN)
    hints = _hints(run, "attention_weights")
    assert hints and all(h.startswith("causal_mask() is not written yet") for h in hints)


# right numbers, but the input x is cleared in place after use: a mistake of its own
CLEARS_ITS_INPUT = '''
def self_attention(x, query, key, value):
    weights = attention_weights(x, query, key)
    out = weights @ value(x)
    x.zero_()
    return out, weights
'''


def test_a_caller_that_changes_its_input_in_place_is_not_sent_elsewhere(tmp_path):
    _, run = _run(tmp_path, PAST_MASK + CLEARS_ITS_INPUT)
    hints = _hints(run, "self_attention")
    assert hints and not any("wrong only through" in h for h in hints) and any("in place" in h for h in hints)


def test_a_helped_event_with_helpers_that_are_not_names_is_ignored_not_a_crash():
    from attention_by_hand.lab.registry import load_reference, reference_path
    from attention_by_hand.lab.verdict import check_run, plan

    events = [{"event": "helped", "function": "attention_weights", "helpers": 5}, {"event": "done"}]
    run = check_run(events, plan(4, 0), load_reference(reference_path(lab_numbered(4))))
    assert all(not r.through for r in run.results)
