"""Where a learner's values part from the reference's (blame.py), and when the hint says so
(parting.py): each learner function here is written unlike its reference."""

from __future__ import annotations

import importlib.util
import itertools
import types

import torch

from attention_by_hand.lab import blame as blame_module
from attention_by_hand.lab.blame import blame, output_close
from attention_by_hand.lab.parting import parting
from attention_by_hand.lab.wire import encode
from labhelpers import failed_hints

REFERENCE = '''
import math
import torch


def weights(q, k):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    probs = torch.softmax(scores, dim=-1)
    return probs


def blend(q, k, v):
    w = weights(q, k)
    return w @ v, w


def project(x, wq, wv):
    q = x @ wq
    v = x @ wv
    return q * v


def head(x, w):
    y = x @ w
    return y


def normed(x):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + 1e-5)


def mean_rows(x):
    total = torch.zeros(x.shape[-1])
    for row in x:
        total = total + row
    return total / x.shape[0]


def step(h, w):
    return torch.tanh(h @ w)


def chain(h, ws):
    for w in ws:
        h = step(h, w)
    return h * 2


def project_rows(x, wq):
    total = torch.zeros(wq.shape[1])
    for row in x:
        total = total + row @ wq
    return total


def softmax_rows(scores):
    probs = torch.softmax(scores, dim=-1)
    return probs


def twice(x, w):
    a = head(x, w)
    b = head(x * 2, w)
    return a + b
'''

LEARNER = '''
import torch


def weights(q, k):
    raw = torch.einsum("id,jd->ij", q, k)
    scores = raw / q.shape[-1]
    top = scores.max(dim=-1, keepdim=True).values
    e = torch.exp(scores - top)
    return e / e.sum(dim=-1, keepdim=True)


def weights_own_steps(q, k):
    scores = q @ k.T / q.shape[-1] ** 0.5
    top = scores.max(dim=-1, keepdim=True).values
    e = torch.exp(scores - top)
    total = e.sum()
    return e / total


def project(x, wq, wv):
    q = x @ wq
    v = x @ wq
    return q * v


def weights_int(q, k):
    scale = q.shape[-1]
    w = torch.softmax(q @ k.T / scale, dim=-1)
    return w


def weights_shape_read(q, k):
    raw = q @ k.T / q.shape[-1]
    k2 = k + torch.zeros_like(raw)[:, :1]
    w = torch.softmax(raw, dim=-1)
    return w


def weights_vouched(q, k):
    scores = q @ k.T / q.shape[-1] ** 0.5
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    w = e / e.sum(dim=-1, keepdim=True)
    return w * 2


def weights_last_line(q, k):
    scores = q @ k.T * q.shape[-1] ** -0.5
    probs = torch.softmax(scores, dim=-1)
    return probs.T


def blend(q, k, v):
    w = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
    out = w @ v
    out = out / 2
    return out, w


def blend_raises(q, k, v):
    w = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
    out = w @ v.T
    return out, w


def blend_returns_raising(q, k, v):
    w = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
    return w @ v.T, w


def weights_looped(q, k):
    rows = []
    for i in range(1, q.shape[0]):
        rows.append(torch.softmax(q[i] @ k.T / q.shape[-1] ** 0.5, dim=-1))
    return torch.stack([rows[0], *rows])


def blend_reshaped(q, k, v):
    rows = q.shape[-1]
    w = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
    return w @ v.reshape(rows, -1), w


def mean_rows_short(x):
    total = torch.zeros(x.shape[1])
    for row in x[:-1]:
        total = total + row
    mean = total / x.shape[0]
    return mean


def mean_rows_indexed(x):
    total = torch.zeros(x.shape[1])
    for i in range(x.shape[0]):
        total = total + x[i]
    mean = total / x.shape[0] / 2
    return mean


def chain_short(h, ws):
    for w in ws[:-1]:
        h = torch.tanh(h @ w)
    out = h * 2
    return out


def project_rows_doubled(x, wq):
    w = wq * 2
    total = torch.zeros(w.shape[1])
    for row in x:
        total = total + row @ w
    kept = total + 0 * row
    return kept


def mean_rows_halved(x):
    total = torch.zeros(x.shape[1])
    for row in x:
        total = total + row
    mean = total / x.shape[0] / 2
    return mean


def weights_listed(q, k):
    rows = [torch.softmax(r @ k.T, dim=-1) for r in q]
    return torch.stack(rows)


def normed_no_keepdim(x):
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) ** 2).mean(dim=-1)
    return (x - m) / torch.sqrt(v + 1e-5)


def project_generator(x, wq, wv):
    q, v = (x @ w for w in (wq, wq))
    return q * v


def blend_catches(q, k, v):
    w = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
    try:
        out = w @ v.T
    except RuntimeError:
        out = w @ v
    return out * 2, w
'''


def _load(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inputs(seed=0, t=4, d=8):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(t, d, generator=g) for _ in range(3))


def _blame(tmp_path, name, reference_name, args):
    reference = _load(tmp_path, "reference", REFERENCE)
    learner = _load(tmp_path, "learner", LEARNER)
    function, reference_function = getattr(learner, name), getattr(reference, reference_name)

    def make_args():
        return tuple(a.clone() for a in args)

    expected = reference_function(*make_args())
    return blame(function, make_args, reference_function, expected)


def _line(text, code, within="def "):
    """The number of the line `code`, the first after the line that starts `within`."""
    lines = text.splitlines()
    after = next(i for i, line in enumerate(lines) if line.startswith(within))
    return next(i for i, line in enumerate(lines, start=1) if i > after and line.strip() == code)


def test_a_wrong_scale_is_blamed_on_the_span_from_the_unscaled_product_to_the_line_that_divides(tmp_path):
    # raw = q k^T is no value of the reference's, and the only value made from it is wrong
    found = _blame(tmp_path, "weights", "weights", _inputs()[:2])
    start, end = _line(LEARNER, 'raw = torch.einsum("id,jd->ij", q, k)'), _line(LEARNER, "scores = raw / q.shape[-1]")
    assert (found.start, found.end, found.name, found.step.name) == (start, end, "scores", "scores")


def test_a_learner_step_the_reference_never_makes_is_vouched_for_by_the_right_value_made_from_it(tmp_path):
    found = _blame(tmp_path, "weights_vouched", "weights", _inputs()[:2])
    line = _line(LEARNER, "return w * 2")
    assert (found.start, found.end, found.step) == (line, line, None)


def test_a_mistake_after_a_learners_own_steps_is_a_span_from_its_first_unvouched_value(tmp_path):
    found = _blame(tmp_path, "weights_own_steps", "weights", _inputs()[:2])
    # top, e and total are the reference's nowhere and nothing right is made from them: the span
    # runs from the first of them to the return line, which no value of the reference's mends
    within = "def weights_own_steps"
    assert found.start == _line(LEARNER, "top = scores.max(dim=-1, keepdim=True).values", within)
    assert found.end == _line(LEARNER, "return e / total", within) and found.step is None


def test_a_busy_machine_finds_the_same_span(tmp_path, monkeypatch):
    # each reading of the search's clock a quarter second after the last, as if every try took
    # that long (the slowest whole search on the tuning sets took 0.19 s): its tries bound it, not time
    quiet = _blame(tmp_path, "weights_own_steps", "weights", _inputs()[:2])
    readings = itertools.count(start=1)
    monkeypatch.setattr(blame_module, "time", types.SimpleNamespace(perf_counter=lambda: next(readings) * 0.25))
    busy = _blame(tmp_path, "weights_own_steps", "weights", _inputs()[:2])
    assert quiet is not None and (busy.start, busy.end, busy.step) == (quiet.start, quiet.end, quiet.step)


def test_a_wrong_return_line_from_right_values_is_blamed_alone(tmp_path):
    found = _blame(tmp_path, "weights_last_line", "weights", _inputs()[:2])
    line = _line(LEARNER, "return probs.T")
    assert (found.start, found.end, found.step) == (line, line, None)


def test_a_value_the_reference_returns_without_storing_it_stands_in_for_the_learners(tmp_path):
    found = _blame(tmp_path, "blend", "blend", _inputs())
    line = _line(LEARNER, "out = out / 2")
    assert (found.start, found.end, found.name, found.step.name, found.step.binding) == (line, line, "out", "return", 0)


def test_the_learners_value_at_the_blamed_line_is_reported(tmp_path):
    q, k, v = _inputs()
    found = _blame(tmp_path, "blend", "blend", (q, k, v))
    w = torch.softmax(q @ k.T / 8**0.5, dim=-1)
    torch.testing.assert_close(found.got, w @ v / 2, rtol=1e-5, atol=1e-6)


def test_a_right_output_is_never_blamed(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    q, k, _ = _inputs()
    expected = reference.weights(q, k)
    assert blame(reference.weights, lambda: (q.clone(), k.clone()), reference.weights, expected) is None


def test_outputs_agree_item_by_item_within_the_checkers_tolerance():
    assert output_close((torch.ones(2), torch.zeros(2, 2)), (torch.ones(2) + 1e-7, torch.zeros(2, 2)))


def test_outputs_of_another_shape_do_not_agree():
    assert not output_close((torch.ones(2), torch.zeros(2, 2)), (torch.ones(2), torch.zeros(2)))


def test_outputs_of_another_kind_of_number_do_not_agree():
    assert not output_close(torch.ones(3), torch.ones(3, dtype=torch.long))


def _event(end, name="scores", step=("scores", 0, 7), start=None, calls=()):
    return {"start": start or end, "end": end, "name": name, "step": [list(step)] if step else None,
            "code": ["x = 1", "x = 1"], "calls": list(calls), "got": encode(torch.zeros(4, 4))}


def test_the_hint_is_said_when_every_wrong_call_ends_at_the_same_line(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    args = _inputs()[:2]
    assert "at line 12" in parting(reference, "weights", [(args, _event(12)), (args, _event(12))], set())


def test_calls_that_end_at_different_lines_leave_the_function_unsaid(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    args = _inputs()[:2]
    assert parting(reference, "weights", [(args, _event(12)), (args, _event(13))], set()) is None


def test_a_wrong_call_with_no_span_leaves_the_function_unsaid(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    args = _inputs()[:2]
    assert parting(reference, "weights", [(args, _event(12)), (args, None)], set()) is None


def test_a_line_that_calls_a_failed_function_of_the_learners_is_left_to_that_functions_row(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    assert parting(reference, "blend", [(_inputs(), _event(12, calls=["weights"]))], {"weights"}) is None


def test_a_missing_causal_mask_on_a_blamed_value_is_said(tmp_path):
    patch = '''
def self_attention(x, query, key, value):
    q, k, v = query(x), key(x), value(x)
    mixed = torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1)
    return mixed @ v, attention_weights(x, query, key)
'''
    hints = failed_hints(tmp_path, "lab-04-attention.py", patch, "self_attention")
    assert hints and all("`mixed = torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1)`" in h for h in hints)
    assert all("the causal mask is not applied" in h for h in hints)


def test_a_value_without_the_mask_is_not_said_to_miss_it_when_the_output_is_masked_later(tmp_path):
    # the weights are not a softmax (a positive feature map, as linear attention uses), then masked:
    # the product of the features has no mask, but the mask is applied, and the hint must not say otherwise
    patch = '''
def attention_weights(x, query, key):
    q, k = torch.nn.functional.elu(query(x)) + 1, torch.nn.functional.elu(key(x)) + 1
    affinity = q @ k.T / k.shape[-1] ** 0.5
    affinity = affinity.masked_fill(causal_mask(x.shape[0]), 0.0)
    return affinity / affinity.sum(dim=-1, keepdim=True)
'''
    hints = failed_hints(tmp_path, "lab-04-attention.py", patch, "attention_weights")
    assert hints and all("your values part from the reference's" in h for h in hints)
    assert not any("mask" in h for h in hints)


def _weights_events(tmp_path, q, k):
    from attention_by_hand.lab.calls import call_all

    reference = _load(tmp_path, "reference", REFERENCE)
    learner = _load(tmp_path, "learner", LEARNER)
    calls = [{"id": 0, "function": "weights", "args": [encode(q), encode(k)]}]
    events = []
    call_all(learner, calls, (tmp_path / "learner.py").resolve(), lambda **e: events.append(e), reference=reference)
    return next(e for e in events if e["event"] == "result")


def test_a_call_whose_output_is_wrong_carries_its_span(tmp_path):
    q, k, _ = _inputs()
    assert _weights_events(tmp_path, q, k)["blame"]["name"] == "scores"


def test_a_call_whose_output_is_right_carries_no_blame(tmp_path):
    q, k, _ = _inputs()
    assert "blame" not in _weights_events(tmp_path, q[:1], k[:1])  # one key: its weight is 1 at any scale


def test_a_line_that_raises_from_right_tensors_is_mended_by_the_value_the_reference_makes_there(tmp_path):
    found = _blame(tmp_path, "blend_raises", "blend", _inputs())  # (4, 4) @ (8, 4) raises
    line = _line(LEARNER, "out = w @ v.T", "def blend_raises")
    assert (found.start, found.end, found.name, found.step.name, found.got) == (line, line, "out", "return", None)


def test_a_return_line_that_raises_from_right_tensors_is_blamed_alone(tmp_path):
    found = _blame(tmp_path, "blend_returns_raising", "blend", _inputs())
    line = _line(LEARNER, "return w @ v.T, w", "def blend_returns_raising")
    assert (found.start, found.end, found.step) == (line, line, None)


def test_an_error_the_function_catches_itself_is_no_raise_of_its_own(tmp_path):
    found = _blame(tmp_path, "blend_catches", "blend", _inputs())
    line = _line(LEARNER, "return out * 2, w", "def blend_catches")
    assert (found.end, found.step) == (line, None)


def test_a_call_that_raised_carries_its_span_and_says_it_raised(tmp_path):
    from attention_by_hand.lab.calls import call_all

    reference = _load(tmp_path, "reference", REFERENCE)
    learner = _load(tmp_path, "learner", LEARNER)
    q, k, v = _inputs()
    calls = [{"id": 0, "function": "blend_raises", "args": [encode(q), encode(k), encode(v)]}]
    reference.blend_raises = reference.blend  # the learner's name for the same function
    events = []
    call_all(learner, calls, (tmp_path / "learner.py").resolve(), lambda **e: events.append(e), reference=reference)
    raised = next(e for e in events if e["event"] == "raised")
    assert raised["blame"]["name"] == "out" and raised["blame"]["raised"] is True


def test_a_hint_for_inputs_where_the_line_raises_and_others_where_it_is_wrong_says_both(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    args = _inputs()
    events = [(args, {**_event(12, name="out", step=("return", 0, 0)), "raised": True, "got": encode(None)}),
              (args, {**_event(12, name="out", step=("return", 0, 0)), "raised": False})]
    hint = parting(reference, "blend", events, set())
    assert "raises on some inputs and makes `out` wrong on the others" in hint
    assert "yours runs and is right on each input it got wrong" in hint


def test_a_wrong_value_that_a_later_line_raises_with_is_said_to_be_made_there_not_to_raise(tmp_path):
    # the call raised, but past the span's end: the blamed line made a value, it did not raise
    reference = _load(tmp_path, "reference", REFERENCE)
    args = _inputs()
    hint = parting(reference, "blend", [(args, {**_event(12, name="out", step=("return", 0, 0)), "raised": True})], set())
    assert "makes `out` wrong, and a later line raises with it" in hint and "`x = 1` raises" not in hint


def test_a_mean_that_dropped_its_axis_is_mended_by_the_references_value_with_that_axis(tmp_path):
    # v is (T,) where the reference's is (T, 1): a value of another shape, an axis of size 1 fewer
    found = _blame(tmp_path, "normed_no_keepdim", "normed", _inputs()[:1])
    line = _line(LEARNER, "v = ((x - m) ** 2).mean(dim=-1)")
    assert (found.start, found.end, found.name, found.step.name) == (line, line, "v", "var")


def test_a_function_whose_only_loop_is_a_generator_expression_is_searched(tmp_path):
    # the generator runs in a frame of its own: the function's frame sees only the tuple it makes
    g = torch.Generator().manual_seed(5)
    found = _blame(tmp_path, "project_generator", "project", _inputs()[:1] + (torch.randn(8, 8, generator=g), torch.randn(8, 8, generator=g)))
    line = _line(LEARNER, "q, v = (x @ w for w in (wq, wq))")
    assert (found.start, found.end) == (line, line)


def test_a_line_that_raises_in_a_lab_is_named_with_the_value_the_reference_makes_there(tmp_path):
    # joined.T is (d_model, T): it meets the projection's (d_model, d_model) only where T = d_model,
    # so the line raises, though every tensor it reads is the reference's
    patch = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    heads_q, heads_k, heads_v = split_heads(query(x), n_heads), split_heads(key(x), n_heads), split_heads(value(x), n_heads)
    size = heads_q.shape[-1]
    mask = torch.ones(x.shape[0], x.shape[0]).tril() == 0
    w = torch.softmax((heads_q @ heads_k.transpose(1, 2) / size ** 0.5).masked_fill(mask, float("-inf")), dim=-1)
    joined = merge_heads(w @ heads_v)
    out = joined.T @ proj.weight.T + proj.bias
    return out, w
'''
    hints = failed_hints(tmp_path, "lab-05-multihead.py", patch, "multi_head_attention")
    quoted = "`out = joined.T @ proj.weight.T + proj.bias`"
    assert hints and all(quoted in h and "each tensor it reads equals one the reference made on its way" in h for h in hints)
    assert all("yours runs and is right on each input it got wrong" in h for h in hints)


def test_a_loop_that_leaves_out_a_row_is_inside_the_span(tmp_path):
    # the loop fills a list, which is never right by itself: the span runs from the list's line
    # past the loop, which holds the mistake (range from 1), to the line that stacks it
    found = _blame(tmp_path, "weights_looped", "weights", _inputs()[:2])
    within = "def weights_looped"
    assert found.start == _line(LEARNER, "rows = []", within)
    assert found.end == _line(LEARNER, "return torch.stack([rows[0], *rows])", within)


def test_a_loop_ending_where_the_references_loop_was_on_its_way_is_not_right(tmp_path):
    # the learner's total leaves out the last row: the reference's total held it one step early
    found = _blame(tmp_path, "mean_rows_short", "mean_rows", _inputs()[:1])
    within = "def mean_rows_short"
    assert found.start == _line(LEARNER, "for row in x[:-1]:", within)


def test_a_right_loop_is_passed_over_and_the_line_after_it_is_blamed_alone(tmp_path):
    found = _blame(tmp_path, "mean_rows_halved", "mean_rows", _inputs()[:1])
    line = _line(LEARNER, "mean = total / x.shape[0] / 2", "def mean_rows_halved")
    assert (found.start, found.end, found.name) == (line, line, "mean")


def test_the_index_a_right_loop_leaves_behind_starts_no_span(tmp_path):
    # i is a number made in the function, but nothing after the loop reads it
    found = _blame(tmp_path, "mean_rows_indexed", "mean_rows", _inputs()[:1])
    line = _line(LEARNER, "mean = total / x.shape[0] / 2", "def mean_rows_indexed")
    assert (found.start, found.end, found.name) == (line, line, "mean")


def test_a_loop_ending_where_a_helper_the_references_loop_calls_was_on_its_way_is_not_right(tmp_path):
    # the reference's helper made h once per step; the learner's loop stops one step early
    g = torch.Generator().manual_seed(3)
    args = (torch.randn(4, 8, generator=g), torch.randn(3, 8, 8, generator=g) / 3)
    found = _blame(tmp_path, "chain_short", "chain", args)
    assert found.start == _line(LEARNER, "for w in ws[:-1]:", "def chain_short")


def test_a_right_loop_variable_vouches_for_nothing_its_loop_read(tmp_path):
    # row, read after the loop, is the reference's last row, yet the loop's total is wrong: w,
    # read in the loop, is not vouched for
    g = torch.Generator().manual_seed(4)
    found = _blame(tmp_path, "project_rows_doubled", "project_rows", (torch.randn(4, 8, generator=g), torch.randn(8, 8, generator=g)))
    assert found.start == _line(LEARNER, "w = wq * 2", "def project_rows_doubled")


def test_a_span_that_starts_at_a_loop_says_the_loop(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    event = {**_event(14, start=12), "code": ["for row in x:", "x = 1"]}
    assert "between line 12 (the loop `for row in x:`) and line 14" in parting(reference, "weights", [(_inputs()[:2], event)], set())


def test_a_line_that_calls_a_function_of_the_learners_that_passed_says_the_mistake_may_be_in_there(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    hint = parting(reference, "blend", [(_inputs(), _event(12, calls=["weights"]))], set())
    assert "(it calls your `weights`: the mistake may be in there)" in hint


def test_a_function_that_made_a_nan_on_one_input_gets_no_span_for_any(tmp_path):
    # doubled everywhere, and 0 / 0 stored in w where every score is far below zero: that input
    # was traced for its nan, never searched, so no span can be said to hold on every input
    patch = '''
def softmax(scores):
    e = torch.exp(scores)
    w = e / e.sum(dim=-1, keepdim=True)
    return w * 2
'''
    hints = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", patch, "softmax")
    assert hints and not any("part from the reference's" in h for h in hints)


def test_a_value_equal_to_one_already_matched_starts_the_span_where_its_own_is_still_unmade(tmp_path):
    x, wq, wv = _inputs(t=4, d=4)
    found = _blame(tmp_path, "project", "project", (x, wq, wv))  # v = x @ wq: the reference's q again
    line = _line(LEARNER, "v = x @ wq", "def project")
    assert (found.start, found.end, found.name, found.step.name) == (line, line, "v", "v")


def test_a_number_made_in_the_function_and_read_by_the_wrong_line_starts_the_span(tmp_path):
    found = _blame(tmp_path, "weights_int", "weights", _inputs()[:2])  # scale lacks its ** 0.5
    assert found.start == _line(LEARNER, "scale = q.shape[-1]", "def weights_int")


def test_a_value_read_only_for_its_shape_is_not_vouched_for(tmp_path):
    # k2 is right, but made from raw's shape alone: raw, the wrong scale, still starts the span
    found = _blame(tmp_path, "weights_shape_read", "weights", _inputs()[:2])
    assert found.start == _line(LEARNER, "raw = q @ k.T / q.shape[-1]", "def weights_shape_read")


def test_the_arguments_of_a_helper_called_twice_are_each_recorded_where_it_starts(tmp_path):
    from attention_by_hand.lab.intermediates import steps

    reference = _load(tmp_path, "reference", REFERENCE)
    x, w = torch.ones(2, 3), torch.ones(3, 3)
    found = steps(reference.twice, (x, w), deep=True)
    start = reference.head.__code__.co_firstlineno
    assert any(s.name == "x" and s.line == start and torch.equal(v, x * 2) for s, v in found.items())


def test_a_line_that_raises_after_a_number_made_in_the_function_is_a_span_from_that_number(tmp_path):
    # rows is d (8), not T (4): the return line raises, and the number it read starts the span
    found = _blame(tmp_path, "blend_reshaped", "blend", _inputs())
    within = "def blend_reshaped"
    start, end = _line(LEARNER, "rows = q.shape[-1]", within), _line(LEARNER, "return w @ v.reshape(rows, -1), w", within)
    assert (found.start, found.end, found.step) == (start, end, None)


def test_a_list_comprehension_is_searched_only_where_it_runs_in_a_frame_of_its_own(tmp_path):
    from attention_by_hand.lab.code_layout import inlined, layout_of

    learner = _load(tmp_path, "learner", LEARNER)
    statements = layout_of(learner.weights_listed.__code__).statements
    assert (inlined(statements, (3, 11)), inlined(statements, (3, 12))) == (False, True)


def test_a_blamed_value_related_to_an_argument_as_given_names_the_argument(tmp_path):
    # safe is no value of the reference's: it is the argument scores with its -inf filled
    reference = _load(tmp_path, "reference", REFERENCE)
    scores = torch.randn(4, 4, generator=torch.Generator().manual_seed(6)).masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf"))
    event = {**_event(12, name="safe", step=("probs", 0, 7)), "got": encode(scores.masked_fill(torch.isinf(scores), 0.0))}
    hint = parting(reference, "softmax_rows", [((scores,), event)], set())
    assert "there, yours has 0 where `scores` has -inf (each -inf replaced by 0)" in hint


def test_a_causal_mask_on_some_heads_only_is_said_where_it_is_not_as_missing():
    from attention_by_hand.lab.parting import _future

    T = 4
    hidden = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T): each query's future keys
    scores = torch.randn(3, T, T, generator=torch.Generator().manual_seed(0))  # (heads, T, T)
    expected = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
    got = torch.softmax(scores, dim=-1)
    got[2] = expected[2]  # the loop's last head masked, the others not
    said = _future([(got, expected, None)])
    assert said is not None and "only slice 2 of the 3" in said and "not applied to the others" in said
    assert not said.endswith("the causal mask is not applied to it")


def test_a_causal_mask_on_other_slices_in_each_input_is_said_without_naming_them():
    from attention_by_hand.lab.parting import _future

    T = 4
    hidden = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T)
    pairs = []
    for masked in (0, 2):  # the first input masks head 0, the second head 2
        scores = torch.randn(3, T, T, generator=torch.Generator().manual_seed(masked))  # (heads, T, T)
        expected = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
        got = torch.softmax(scores, dim=-1)
        got[masked] = expected[masked]
        pairs.append((got, expected, None))
    said = _future(pairs)
    assert said is not None and "some are masked" in said and "slice 0" not in said and "slice 2" not in said


def _return_event(code):
    return {**_event(12, name=None, step=None), "code": [code, code]}


def test_a_return_line_like_the_references_is_not_quoted_again_as_the_references(tmp_path):
    # the reference's `weights` ends `return probs`: the same line told twice says nothing
    reference = _load(tmp_path, "reference", REFERENCE)
    args = _inputs()[:2]
    hint = parting(reference, "weights", [(args, _return_event("return probs"))], set())
    assert "`return probs` returns a wrong value" in hint and "the reference's is" not in hint


def test_a_return_line_unlike_the_references_is_quoted_beside_the_references(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    args = _inputs()[:2]
    hint = parting(reference, "weights", [(args, _return_event("return probs.T"))], set())
    assert hint.endswith("; the reference's is `return probs`")


def test_a_span_that_starts_at_a_call_of_a_failed_function_of_the_learners_says_so(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    event = {**_event(13, start=12), "code": ["w = weights(q, k)", "out = w @ v"]}
    hint = parting(reference, "blend", [(_inputs(), event)], {"weights"})
    assert "(line 12 calls your `weights`, which fails its own checks: the mistake is likely in there)" in hint


def test_a_span_that_starts_at_a_call_of_a_passing_function_says_nothing_of_it(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    event = {**_event(13, start=12), "code": ["w = weights(q, k)", "out = w @ v"]}
    assert "calls your" not in parting(reference, "blend", [(_inputs(), event)], set())


def test_a_call_of_the_same_name_through_a_module_or_an_object_is_not_the_learners(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    for code in ("w = torch.weights(q, k)", "w = self.weights(q, k)", "w = q @ k  # weights(q, k)"):
        event = {**_event(13, start=12), "code": [code, "out = w @ v"]}
        assert "calls your" not in parting(reference, "blend", [(_inputs(), event)], {"weights"})
