"""The arguments whose values never reach a learner's output (unused.py), and the hint that says so."""

from __future__ import annotations

import importlib.util

import torch

from attention_by_hand.lab.unused import changed, draws_random, unused_arguments, unused_words
from labhelpers import failed_hints

REFERENCE = '''
import torch


def blend(x, w, scale):
    return (x @ w) * scale


def pair(x, w):
    return x @ w, x.sum(dim=-1)


def project(x, layer):
    return layer(x)


def look_up(table, ids):
    return table[ids]


def first_row(x, w):
    return x[0] + 0 * w.sum()


def counted(ids, n):
    return torch.bincount(ids[1:], minlength=n)


def nothing(x, w):
    return x @ w


def slow(x, w):
    return x @ w


def swamped(x, w):
    return x @ w
'''

LEARNER = '''
import torch


def blend(x, w, scale):
    return x * scale  # w never read


def pair(x, w):
    return x, (x @ w).sum(dim=-1)  # w read by the second part only, where the first needs it


def project(x, layer):
    fresh = torch.nn.Linear(layer.in_features, layer.out_features)
    return fresh(x)


def look_up(table, ids):
    return table[torch.zeros_like(ids)]


def first_row(x, w):
    return x[0]


def counted(ids, n):
    return torch.bincount(ids, minlength=n)


def nothing(x, w):
    x @ w


def slow(x, w):
    import time
    time.sleep(0.25)
    return x


def swamped(x, w):
    return (x @ w) * float("nan")  # x and w are read; the nan hides them
'''


def _load(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _found(tmp_path, function, args):
    learner, reference = _load(tmp_path, "learner", LEARNER), _load(tmp_path, "reference", REFERENCE)
    return unused_arguments(learner, reference, function, lambda: tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args))[0]


def _x(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def test_a_tensor_argument_never_read_is_found_by_its_position(tmp_path):
    assert _found(tmp_path, "blend", (_x(3, 3), _x(3, 3, seed=1), 2.0)) == [[1, -1]]


def test_an_argument_never_read_by_one_part_of_a_tuple_is_said_of_that_part(tmp_path):
    assert _found(tmp_path, "pair", (_x(2, 3), _x(3, 3, seed=1))) == [[1, 0]]


def test_a_layer_given_and_never_used_is_found(tmp_path):
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 3)
    learner, reference = _load(tmp_path, "learner", LEARNER), _load(tmp_path, "reference", REFERENCE)
    assert unused_arguments(learner, reference, "project", lambda: (_x(2, 4), layer))[0] == [[1, -1]]


def test_ids_never_read_are_found_by_rolling_them(tmp_path):
    assert _found(tmp_path, "look_up", (_x(5, 2), torch.tensor([3, 1, 4, 1]))) == [[1, -1]]


def test_an_argument_the_reference_does_not_need_either_is_not_said(tmp_path):
    assert _found(tmp_path, "first_row", (_x(3, 2), _x(4, seed=1))) == []


def test_a_function_that_reads_every_argument_has_none_unused(tmp_path):
    reference = _load(tmp_path, "reference", REFERENCE)
    args = (_x(3, 3), _x(3, 3, seed=1), 2.0)
    assert unused_arguments(reference, reference, "blend", lambda: args)[0] == []


def test_a_layer_is_changed_on_a_copy_and_left_as_it_was():
    layer = torch.nn.Linear(3, 2)
    before = layer.weight.detach().clone()
    other = changed(layer)
    assert not torch.equal(other.weight, layer.weight) and torch.equal(layer.weight, before)


def test_ids_change_in_value_not_only_in_order():
    ids = torch.tensor([3, 1, 4, 1])
    for trial in (0, 1):
        other = changed(ids, trial)
        assert sorted(other.tolist()) != sorted(ids.tolist()) and 0 <= int(other.min()) and int(other.max()) <= 4


def test_ids_all_zero_or_negative_numbers_are_not_changed():
    assert changed(torch.tensor([0, 0, 0])) is None and changed(torch.tensor([-1, 2])) is None


def test_code_that_reads_ids_without_their_order_is_not_said_to_leave_them_unused(tmp_path):
    # the learner's counts depend on which ids there are, not on where they stand (the reference's
    # leave the first out): rolling them would move the reference's only
    assert _found(tmp_path, "counted", (torch.tensor([3, 1, 4, 1, 0]), 5)) == []


def test_a_function_that_returns_none_is_not_searched(tmp_path):
    assert _found(tmp_path, "nothing", (_x(3, 3), _x(3, 3, seed=1))) == []


def test_a_slow_function_stops_the_search_at_its_deadline(tmp_path):
    import time

    learner, reference = _load(tmp_path, "learner", LEARNER), _load(tmp_path, "reference", REFERENCE)
    started = time.perf_counter()
    args = (_x(3, 3), _x(3, 3, seed=1))
    unused_arguments(learner, reference, "slow", lambda: args, deadline=started + 0.3)
    assert time.perf_counter() - started < 0.3 + 0.12  # a call that starts just before it is cut at the deadline


def test_a_check_says_which_argument_never_reaches_the_output(tmp_path):
    # autograd of out.sum(): d_out is never used, so the gradients are those of a gradient of ones
    patch = '''
def attention_backward(q, k, v, d_out, causal):
    leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    with torch.enable_grad():
        out = torch.nn.functional.scaled_dot_product_attention(*leaves, is_causal=causal)
        out.sum().backward()
    return tuple(t.grad for t in leaves)
'''
    hints = failed_hints(tmp_path, "lab-10-gradients.py", patch, "attention_backward")
    assert hints and all("`d_out` never reaches your output" in h for h in hints)


def test_an_output_that_no_input_reaches_is_said_to_stay_the_same_not_listed_input_by_input(tmp_path):
    patch = '''
def softmax_backward(p, dp):
    return torch.zeros_like(p)
'''
    hints = failed_hints(tmp_path, "lab-10-gradients.py", patch, "softmax_backward")
    assert hints and all("your output stays the same whatever any of its inputs holds" in h for h in hints)
    assert not any("`dp`" in h for h in hints)


def test_inputs_that_were_never_changed_keep_the_constant_wording_out(tmp_path):
    # `slope` (a number) is never changed, and it does move this output: only q, k and v are said
    patch = '''
def alibi_attention(q, k, v, slope):
    return torch.zeros_like(v) + slope
'''
    hints = failed_hints(tmp_path, "lab-07-positions.py", patch, "alibi_attention")
    assert hints and all("`q`, `k` and `v` never reach your output" in h for h in hints)
    assert not any("whatever any of its inputs holds" in h for h in hints)


def test_an_unused_event_without_a_function_name_is_ignored_not_a_crash():
    from attention_by_hand.lab.registry import get_lab, load_reference, reference_path
    from attention_by_hand.lab.verdict import check_run, plan

    lab = get_lab("2")
    run = check_run([{"event": "unused", "arguments": [[0, -1]]}, {"event": "done"}], plan(2, 0),
                    load_reference(reference_path(lab)))
    assert run.failure is None or "unused" not in run.failure


def test_no_call_starts_without_time_for_it_and_the_references(tmp_path):
    # a timer of a few milliseconds would fire inside calls that are not slow (in a gc callback, say)
    import time

    learner, reference = _load(tmp_path, "learner", LEARNER), _load(tmp_path, "reference", REFERENCE)
    started = time.perf_counter()
    found, tried = unused_arguments(learner, reference, "slow", lambda: (_x(3, 3), _x(3, 3, seed=1)),
                                    deadline=started + 0.15)
    assert found == [] and tried == [0, 1] and time.perf_counter() - started < 0.1


RENUMBERED = '''
import torch


def look_up(table, ids):
    # each id renumbered by where it first turns up: reads which ids repeat, not their values
    first = {}
    codes = [first.setdefault(i, len(first)) for i in ids.tolist()]
    return table[torch.tensor(codes)]
'''


def test_ids_are_also_changed_so_that_which_of_them_repeat_changes():
    other = changed(torch.tensor([0, 1, 2]), 1)
    assert len(set(other.tolist())) < 3


def test_ids_read_only_by_which_of_them_repeat_are_not_said_to_go_unused(tmp_path):
    # distinct ids stay distinct under any renaming of the values: only a change of the repeats shows they are read
    learner, reference = _load(tmp_path, "renumbered", RENUMBERED), _load(tmp_path, "reference", REFERENCE)
    found = unused_arguments(learner, reference, "look_up", lambda: (_x(5, 2), torch.tensor([3, 1, 4])))[0]
    assert found == []


DRAWS = '''
import torch


def blend(x, w, scale):
    return (x @ w) * scale * torch.rand(()).item()


def nothing(x, w):
    return (x @ w) * 2
'''


def test_a_function_whose_output_moves_with_the_random_seed_draws_random_numbers(tmp_path):
    learner, reference = _load(tmp_path, "draws", DRAWS), _load(tmp_path, "reference", REFERENCE)
    assert draws_random(learner, reference, "blend", lambda: (_x(3, 3), _x(3, 3, seed=1), 2.0))


def test_a_wrong_function_that_draws_nothing_is_not_said_to_draw(tmp_path):
    learner, reference = _load(tmp_path, "draws", DRAWS), _load(tmp_path, "reference", REFERENCE)
    assert not draws_random(learner, reference, "nothing", lambda: (_x(3, 3), _x(3, 3, seed=1)))


def test_random_draws_are_said_in_the_hint_words_even_with_no_argument_unused():
    said = unused_words(["x", "w"], [], [0, 1], True)
    assert said is not None and "draws random numbers" in said and "never reach" not in said


COUNTING = '''
import torch

calls = 0


def nothing(x, w):
    global calls
    calls += 1  # state kept between calls: the output moves on every call, seeded alike or not
    return (x @ w) * calls
'''


def test_a_function_that_keeps_state_between_calls_is_not_said_to_draw(tmp_path):
    learner, reference = _load(tmp_path, "counting", COUNTING), _load(tmp_path, "reference", REFERENCE)
    assert not draws_random(learner, reference, "nothing", lambda: (_x(3, 3), _x(3, 3, seed=1)))


def test_an_output_of_nan_says_nothing_of_which_arguments_are_read(tmp_path):
    assert _found(tmp_path, "swamped", (_x(2, 3), _x(3, 3, seed=1))) == []


def test_the_first_read_of_an_argument_in_a_loops_header_is_that_header():
    from attention_by_hand.lab.registry import LABS, load_reference
    from attention_by_hand.lab.unused import first_read

    reference = load_reference(LABS[8].reference())
    assert first_read(reference, "tiled_attention", "block") == "for i in range(0, T_q, block):"
