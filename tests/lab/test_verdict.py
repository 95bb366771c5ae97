"""From the calls' events to the report: one verdict per check across its inputs, the report's
lines, and judges that never crash whatever a learner returns."""

from __future__ import annotations

import pytest
import torch

from attention_by_hand.lab.registry import checks_for, lab_numbered
from attention_by_hand.lab.judging import Miss
from attention_by_hand.lab.registry import LABS, reference_path
from attention_by_hand.lab.combining import combine
from attention_by_hand.lab.verdict import CheckResult, CheckRun, load_reference, report_lines
from attention_by_hand.lab.wire import Foreign, NumpyArray, Oversized

NUMBERS = [lab.number for lab in LABS]


def test_a_check_whose_inputs_all_pass_has_no_hint():
    assert combine([None, None]) == (None, None)


def test_a_mistake_that_explains_every_failing_input_is_named():
    one = Miss("row 0 is off", ("the diagonal is hidden too", "yours marks what is visible"))
    other = Miss("row 2 is off", ("the diagonal is hidden too",))
    assert combine([one, None, other]) == ("the diagonal is hidden too", "the diagonal is hidden too")


def test_a_mistake_that_explains_only_some_failing_inputs_is_not_named():
    one = Miss("row 0 is off", ("yours marks what is visible",))
    other = Miss("row 2 gives 0.3 to token 3", ())
    assert combine([one, other]) == ("row 0 is off", None)


def test_the_same_mistake_with_other_numbers_on_another_input_is_the_same_mistake():
    one = Miss("a", ("not scaled: divide by sqrt(3)",))
    other = Miss("b", ("not scaled: divide by sqrt(2)",))
    assert combine([one, other])[0] == "not scaled: divide by sqrt(3)"


def test_a_mistake_that_would_have_changed_a_right_output_is_not_named():
    one = Miss("a", ("not scaled: divide by sqrt(2)",))
    assert combine([one, None], right=frozenset({"not scaled: divide by sqrt(#)"})) == ("a", None)


def test_a_scale_rounded_down_is_not_called_unscaled_where_another_head_size_was_right(tmp_path):
    # int(sqrt(2)) = 1 looks unscaled on 4 heads of d_model 8; on 3 heads of 12, int(sqrt(4)) = 2 is right
    from attention_by_hand.lab.verdict import check_in_process
    from labhelpers import REFERENCES, load_lab, patch_lab

    patch = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    scores = q @ k.transpose(-2, -1) / int(math.sqrt(q.shape[-1]))
    scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return proj(merge_heads(weights @ v)), weights
'''
    path = tmp_path / "lab-05-multihead.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), patch), encoding="utf-8")
    results = [r for r in check_in_process(load_lab(path), LABS[4]).results if r.label.startswith("multi_head_attention")]
    failed = [r for r in results if not r.passed]
    assert failed and not any("not scaled" in r.hint for r in failed)


def test_a_plain_hint_such_as_an_exception_is_reported_as_it_is():
    assert combine([None, "raised IndexError: out of range"]) == ("raised IndexError: out of range", None)


def test_a_shape_and_a_part_of_a_pair_lead_the_explanation():
    miss = Miss("wrong output shape: (4, 8)", ("blend the values",), lead="wrong output shape: (4, 8)").under("out: ")
    assert combine([miss])[0] == "out: wrong output shape: (4, 8): blend the values"


def test_the_report_is_one_line_per_check_then_the_count():
    run = CheckRun([CheckResult("f: a", None), CheckResult("g: b", "wrong")])
    assert report_lines(run) == ["  ok    f: a", "  FAIL  g: b: wrong", "1 passed, 1 failed"]


def test_a_run_that_could_not_finish_has_no_count_and_exit_code_2():
    run = CheckRun([CheckResult("f: a", None)], failure="time limit")
    assert report_lines(run) == ["  ok    f: a"] and run.exit_code == 2


ODD_OUTPUTS = [
    None,
    3.5,
    "text",
    (torch.zeros(2), torch.zeros(2), torch.zeros(2)),
    Foreign("generator"),
    Oversized((1000, 1000)),
    NumpyArray(torch.zeros(3, 3)),
    torch.full((4, 4), float("nan")),
    torch.zeros(0),
    torch.ones(2, 3, 4, 5),
]


@pytest.mark.parametrize("number", NUMBERS)
def test_judges_turn_any_odd_output_into_a_hint(number):
    reference = load_reference(reference_path(lab_numbered(number)))
    for check in checks_for(number):
        args = check.cases[0]
        with torch.no_grad():
            expected = getattr(reference, check.function)(*args)
            for odd in ODD_OUTPUTS:
                hint, _ = combine([check.judge(odd, expected, args)])
                assert isinstance(hint, str) and hint, (check.function, odd)


@pytest.mark.parametrize("number", NUMBERS)
def test_judges_pass_the_reference_output_itself(number):
    reference = load_reference(reference_path(lab_numbered(number)))
    for check in checks_for(number, seed=7):
        for args in check.cases:
            with torch.no_grad():
                expected = getattr(reference, check.function)(*args)
                assert check.judge(expected, expected, args) is None, check.label


def test_a_relations_numbers_under_each_check_are_of_that_checks_input(tmp_path):
    # rows divided by their largest count: the factors differ from input to input, so each check
    # must show its own, not the first check's repeated under the second
    from attention_by_hand.lab.verdict import check_in_process
    from labhelpers import REFERENCES, load_lab, patch_lab

    patch = '''
def counts_to_probs(counts, smoothing=1.0):
    smoothed = counts + smoothing
    return smoothed / smoothed.amax(dim=1, keepdim=True)
'''
    path = tmp_path / "lab-03-bigram.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), patch), encoding="utf-8")
    lab = next(lab for lab in LABS if lab.number == 3)
    failed = [r for r in check_in_process(load_lab(path), lab).results if r.label.startswith("counts_to_probs") and not r.passed]
    shown = [r.hint[r.hint.index("(row 0: "):].split(")")[0] for r in failed]
    assert len(failed) == 2 and all("factor of its own" in r.hint for r in failed) and shown[0] != shown[1]


def test_where_the_values_part_a_relations_numbers_under_each_check_are_of_its_own_inputs(tmp_path):
    # the weights divided by their row's largest exp, not its sum: parting.py says it of `p`, and
    # each check's row factors must be its own (a causal row 0 is right, x1, on the random check)
    from attention_by_hand.lab.verdict import check_in_process
    from labhelpers import REFERENCES, load_lab, patch_lab

    patch = '''
def attention_backward(q, k, v, d_out, causal):
    scale = 1 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1) * scale
    if causal:
        T = s.shape[-1]
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(diagonal=1), float("-inf"))
    e = torch.exp(s - s.amax(dim=-1, keepdim=True))
    p = e / e.amax(dim=-1, keepdim=True)
    dv = p.transpose(-2, -1) @ d_out
    dp = d_out @ v.transpose(-2, -1)
    ds = softmax_backward(p, dp)
    return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv
'''
    name = next(n for n in REFERENCES if n.startswith("lab-10-"))
    path = tmp_path / name
    path.write_text(patch_lab(REFERENCES[name].read_text(encoding="utf-8"), patch), encoding="utf-8")
    lab = next(lab for lab in LABS if lab.number == 10)
    failed = [r for r in check_in_process(load_lab(path), lab).results if r.label.startswith("attention_backward") and not r.passed]
    shown = [r.hint[r.hint.index("factor of its own ("):].split(")")[0] for r in failed if "factor of its own (" in r.hint]
    assert len(shown) == len(failed) >= 2 and len(set(shown)) == len(shown)
