"""The mutation engine's candidate mistakes (mutants.py) and how a match is named (diagnosis.py).

A small reference module of its own, written here, holds every kind of change: the tests do not
depend on the labs' references, which other branches change.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch

from attention_by_hand.lab.diagnosis import _plausible, diagnose, localise
from attention_by_hand.lab.outcomes import Tried, agree
from attention_by_hand.lab.mutants import KINDS, build, changes

SOURCE = '''
import math

import torch


def normalise(s):
    return torch.softmax(s, dim=-1)


def head(q, k, v):
    head_size = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(head_size)
    scores = scores.masked_fill(torch.triu(torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool), diagonal=1), float("-inf"))
    weights = normalise(scores)
    return weights @ v, weights


def halves(t):
    a, b = t.chunk(2, dim=-1)
    return torch.cat([a - b, a + b], dim=-1)


def shifted(x, start):
    T = x.shape[0]
    return x + torch.arange(start, start + T)[:, None]


def later_sum(x):
    T = x.shape[0]
    later = torch.arange(T)[None, :] > torch.arange(T)[:, None]
    return x.masked_fill(later, 0.0).sum(dim=-1)


def row_shares(x, weight, bias):
    total = torch.exp(x).sum(dim=-1)
    return torch.exp(x) / total[:, None] * weight + bias
'''

FUNCTIONS = ("head", "halves", "shifted", "later_sum", "row_shares")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("reference") / "toy_reference.py"
    path.write_text(SOURCE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("toy_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs(function: str, seed: int = 0) -> tuple:
    g = torch.Generator().manual_seed(seed)
    if function == "head":
        return tuple(torch.randn(5, 4, generator=g) for _ in range(3))
    if function == "halves":
        return (torch.randn(3, 6, generator=g),)
    if function == "shifted":
        return (torch.randn(4, 3, generator=g), 2 + seed)
    if function == "row_shares":
        return (torch.randn(4, 4, generator=g), torch.randn(4, generator=g), torch.randn(4, generator=g))
    return (torch.randn(4, 4, generator=g),)


def call(function, args):
    try:
        with torch.no_grad():
            return function(*args)
    except Exception:  # noqa: BLE001 - a change may not run on these inputs
        return None


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_change_is_made_and_changes_what_the_reference_computes(reference, kind):
    made = []
    for function in FUNCTIONS:
        args = inputs(function)
        right = call(getattr(reference, function), args)
        for change in changes(reference, function):
            if change.kind == kind:
                mutant = build(reference, function, (change,))
                output = call(mutant, args) if mutant is not None else None
                made.append(output is not None and not agree(output, right))
    assert any(made), f"no change of kind {kind!r} that runs and gives another output"


def test_a_called_function_is_changed_too(reference):
    texts = [c.text for c in changes(reference, "head") if c.function == "normalise"]
    assert any("dim=-2" in t for t in texts)


def learner_from(reference, function, chosen, seeds=(0, 1, 2)) -> list[Tried]:
    mutant = build(reference, function, tuple(chosen))
    return [Tried(inputs(function, s), call(mutant, inputs(function, s))) for s in seeds]


def find(reference, function, text):
    return next(c for c in changes(reference, function) if text in c.text)


def test_a_change_that_gives_the_learners_outputs_on_every_input_is_named_in_the_references_code(reference):
    unscaled = next(c for c in changes(reference, "head") if c.op == "left" and "sqrt" in c.text)
    found = diagnose(reference, "head", learner_from(reference, "head", [unscaled]))
    assert found is not None
    assert found.hint == "yours equals the reference with `/ math.sqrt(head_size)` removed from `scores = ...`"


def test_a_change_that_matches_one_input_but_not_another_is_not_named(reference):
    unscaled = next(c for c in changes(reference, "head") if c.op == "left" and "sqrt" in c.text)
    tried = learner_from(reference, "head", [unscaled], seeds=(0,))
    other = inputs("head", 1)
    out, weights = call(reference.head, other)
    tried.append(Tried(other, (out + torch.linspace(0.1, 0.9, out.numel()).reshape(out.shape), weights)))
    found = diagnose(reference, "head", tried)
    assert found is None or "sqrt" not in found.hint


def test_two_changes_together_are_named_together(reference):
    swapped = next(c for c in changes(reference, "head") if c.op == "fold")
    zero = next(c for c in changes(reference, "head") if c.op == "const" and c.arg == 0.0 and "inf" in c.text)
    found = diagnose(reference, "head", learner_from(reference, "head", [swapped, zero]))
    assert found is not None and "softmax" not in found.hint.split(", and ")[1]
    assert "masked_fill(...) done after normalise(...), not before" in found.hint and "`0.0` for `float('-inf')`" in found.hint


def test_two_variables_exchanged_in_one_statement_are_named(reference):
    exchanged = next(c for c in changes(reference, "head") if c.op == "exchange" and set(c.arg) == {"q", "k"})
    found = diagnose(reference, "head", learner_from(reference, "head", [exchanged]))
    assert found is not None and "`k @ q.transpose(-2, -1)" in found.hint


def test_the_weight_and_the_bias_exchanged_are_named(reference):
    exchanged = next(c for c in changes(reference, "row_shares") if c.op == "exchange" and set(c.arg) == {"weight", "bias"})
    found = diagnose(reference, "row_shares", learner_from(reference, "row_shares", [exchanged]))
    assert found is not None and "* bias + weight" in found.hint


def test_a_mask_filled_with_plus_infinity_is_named_as_the_sign_dropped(reference):
    plus = next(c for c in changes(reference, "head") if c.op == "posinf")
    found = diagnose(reference, "head", learner_from(reference, "head", [plus]))
    assert found is not None and "`float('inf')` for `float('-inf')`" in found.hint


def test_exp2_for_exp_is_named(reference):
    two = next(c for c in changes(reference, "row_shares") if c.op == "rename" and c.arg == "exp2")
    found = diagnose(reference, "row_shares", learner_from(reference, "row_shares", [two]))
    assert found is not None and "exp2(...)` for `exp(...)`" in found.hint


def test_an_indexing_left_out_is_named(reference):
    dropped = next(c for c in changes(reference, "row_shares") if c.op == "unsub")
    found = diagnose(reference, "row_shares", learner_from(reference, "row_shares", [dropped]))
    assert found is not None and "`total` for `total[:, None]`" in found.hint


def test_variables_of_different_shapes_are_never_exchanged(reference):
    values = {"row_shares": {"x": torch.zeros(4, 4), "weight": torch.zeros(4), "total": torch.zeros(4)}}
    wrong_sort = next(c for c in changes(reference, "row_shares") if c.op == "exchange" and set(c.arg) == {"x", "weight"})
    assert not _plausible(wrong_sort, values)


def test_a_learners_function_that_equals_the_reference_is_not_diagnosed(reference):
    tried = [Tried(inputs("halves", s), call(reference.halves, inputs("halves", s))) for s in (0, 1)]
    assert diagnose(reference, "halves", tried) is None


def test_a_position_off_by_one_is_named_as_such(reference):
    off = next(c for c in changes(reference, "shifted") if c.op == "shift_all" and c.arg == 1)
    found = diagnose(reference, "shifted", learner_from(reference, "shifted", [off]))
    assert found is not None and "`torch.arange(start + 1, start + T + 1)` for `torch.arange(start, start + T)`" in found.hint


def test_probes_say_where_the_learners_function_is_right_and_where_wrong(reference):
    args_a, args_b = inputs("halves", 0), inputs("halves", 1)
    right = call(reference.halves, args_a)
    wrong = call(reference.halves, args_b) + 1
    said = localise(reference, "halves", [Tried(args_a, right, "probe A"), Tried(args_b, wrong, "probe B")])
    assert said == "right with probe A, wrong with probe B"


def test_a_learner_that_raised_on_an_input_needs_a_change_that_raises_there_too(reference):
    unscaled = next(c for c in changes(reference, "head") if c.op == "left" and "sqrt" in c.text)
    tried = learner_from(reference, "head", [unscaled])
    from attention_by_hand.lab.outcomes import RAISED

    tried.append(Tried(inputs("head", 3), RAISED))  # the reference without its scale runs there: no match
    found = diagnose(reference, "head", tried)
    assert found is None or "sqrt" not in found.hint


def test_a_change_that_makes_a_loop_run_away_counts_as_one_that_raised():
    from attention_by_hand.lab.outcomes import RAISED, call

    def runaway(n):
        while n > 0:
            n += 1

    assert call(runaway, (1,)) is RAISED


def test_two_different_mistakes_that_both_fit_every_input_tried_are_not_named(reference):
    # With t's first half all zeros, `a + b` for `a - b` and `a` and `b` swapped give the same
    # outputs; on other inputs they part, so which one the learner made cannot be told.
    plus = find(reference, "halves", "`[a + b, a + b]` for")
    mutant = build(reference, "halves", (plus,))
    tried = []
    for seed in (0, 1, 2):
        (t,) = inputs("halves", seed)
        t[:, :3] = 0.0
        tried.append(Tried((t,), call(mutant, (t,))))
    found = diagnose(reference, "halves", tried)
    assert found is None or "yours equals the reference with" not in found.hint


def test_one_mistake_that_two_changes_write_alike_is_named(reference):
    # Softmax over dim 0 or over dim -2 of a matrix: two changes, one mistake, on any input.
    rows = find(reference, "head", "`dim=0` for `dim=-1` in `softmax(...)`")
    found = diagnose(reference, "head", learner_from(reference, "head", [rows]))
    assert found is not None and "softmax(...)" in found.hint and ("dim=0" in found.hint or "dim=-2" in found.hint)


def test_an_output_on_an_input_one_element_short_is_said_with_the_cut(reference):
    # shifted on x without its last row: a loop over rows that stops one step early
    tried = []
    for seed in (0, 1):
        x, start = inputs("shifted", seed)
        tried.append(Tried((x, start), call(reference.shifted, (x[:-1], start))))
    found = diagnose(reference, "shifted", tried)
    assert found is not None and "on `x[:-1]`: x without its last element" in found.hint


def test_a_term_dropped_is_said_in_words_then_in_code(reference):
    dropped = next(c for c in changes(reference, "halves") if c.kind == "term" and "`b` dropped" in c.text and "a + b" in c.text)
    assert dropped.text.startswith("the term `b` dropped (`[a, a + b]` for `[a - b, a + b]`)")


def test_a_multiplication_made_a_division_is_said_as_the_factor_inverted(reference):
    inverted = next(c for c in changes(reference, "row_shares") if c.op == "binop" and c.arg == "Div" and "weight" in c.text)
    assert inverted.text.endswith(": the factor inverted, in `return ...`")


def test_one_mistake_written_two_ways_is_said_as_a_check_of_the_file_already_said_it(reference):
    # a and b exchanged where they are used, or where they are unpacked: the same outputs
    exchanged = next(c for c in changes(reference, "halves") if c.op == "exchange" and set(c.arg) == {"a", "b"})
    tried = learner_from(reference, "halves", [exchanged])
    ways = [c for c in changes(reference, "halves") if (m := build(reference, "halves", (c,))) is not None
            and all(agree(call(m, t.args), t.got) for t in tried)]
    assert len(ways) >= 2  # the same outputs from two changes: the test means something
    plain = diagnose(reference, "halves", tried)
    other = next(c for c in ways if plain.hint != f"yours equals the reference with {c.text}")
    again = diagnose(reference, "halves", tried, prefer=frozenset({f"{other.function}: {other.text}"}))
    assert again.hint == f"yours equals the reference with {other.text}"


def test_a_tensor_replaced_by_its_first_slice_is_named(reference):
    first = next(c for c in changes(reference, "halves") if c.op == "first" and c.arg == "a")
    found = diagnose(reference, "halves", learner_from(reference, "halves", [first]))
    assert found is not None and "`[a[0] - b, a + b]` for `[a - b, a + b]`" in found.hint


def test_a_number_is_never_replaced_by_its_first_slice(reference):
    first = next(c for c in changes(reference, "shifted") if c.op == "first" and c.arg == "start")
    assert not _plausible(first, {"shifted": {"start": 2, "x": torch.zeros(4, 3)}})


def test_a_long_common_beginning_of_a_quoted_change_is_cut_to_dots():
    from attention_by_hand.lab.mutant_quotes import elide

    new, old = "(x - mean) / torch.sqrt(var + eps) * bias + weight", "(x - mean) / torch.sqrt(var + eps) * weight + bias"
    assert elide(new, old) == ("... * bias + weight", "... * weight + bias")


def test_a_short_common_part_of_a_quoted_change_is_kept():
    from attention_by_hand.lab.mutant_quotes import elide

    assert elide("k @ q.transpose(-2, -1)", "q @ k.transpose(-2, -1)") == ("k @ q.transpose(-2, -1)", "q @ k.transpose(-2, -1)")


def test_building_every_change_leaves_the_references_own_definition_as_it_was(reference):
    import ast

    from attention_by_hand.lab.mutants import _definitions, _path

    definitions = _definitions(_path(reference))
    before = {name: ast.dump(d, include_attributes=True) for name, d in definitions.items()}
    every = changes(reference, "head")
    for c in every:
        build(reference, "head", (c,))
    for a, b in zip(every, every[1:]):
        build(reference, "head", (a, b))
    assert {name: ast.dump(d, include_attributes=True) for name, d in definitions.items()} == before


def test_routes_kept_for_a_definition_that_is_gone_are_not_given_to_one_that_took_its_id():
    import ast

    from attention_by_hand.lab import mutant_trees

    gone = ast.parse("def f(x):\n    return x").body[0]
    new = ast.parse("def g(x, y):\n    z = x + y\n    return z").body[0]
    mutant_trees._ROUTES[id(new)] = (gone, mutant_trees.routes(gone))  # as if `new` had taken gone's id
    assert mutant_trees.routes_of(new) == mutant_trees.routes(new)


RANGES = '''
import torch


def rates(n):
    theta = 10000.0 ** (-torch.arange(n) / n)
    return theta


def at(x, start):
    positions = torch.arange(start, start + x.shape[0])
    return x + positions[:, None]


def later(x, start):
    rows = torch.arange(start, start + x.shape[0])
    return x + rows[:, None]
'''


def _module(folder, name: str, text: str):
    """A toy reference module `name` with source `text`, written into `folder` and loaded."""
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ranges(tmp_path_factory):
    return _module(tmp_path_factory.mktemp("ranges"), "toy_ranges", RANGES)


def _shift_text(module, function: str) -> str:
    return next(c for c in changes(module, function) if c.op == "shift_all" and c.arg == 1).text


def test_a_range_from_zero_shifted_is_said_counted_from_one_not_a_position(ranges):
    # the pairs of a rotary table counted from 1: no position moved
    said = _shift_text(ranges, "rates")
    assert said.startswith("the range counted from 1 instead of 0 (every number +1)") and "position" not in said


def test_a_range_of_positions_shifted_is_said_as_positions(ranges):
    assert _shift_text(ranges, "at").startswith("every position shifted by one (+1)")


def test_a_range_from_elsewhere_shifted_is_said_as_its_numbers(ranges):
    assert _shift_text(ranges, "later").startswith("every number of the range shifted by one (+1)")


MERGE = '''
import torch


def merge(x):
    return x.transpose(1, 2).reshape(x.shape[0], 1, -1)
'''


def test_changes_that_no_input_tells_apart_are_each_said(tmp_path):
    # axis 2 has size 1 on every input: transpose(0, 2) and transpose(1, 0) give the same numbers
    module = _module(tmp_path, "toy_merge", MERGE)
    g = torch.Generator().manual_seed(0)
    xs = [torch.randn(2, 3, 1, 4, generator=g), torch.randn(3, 2, 1, 2, generator=g)]
    tried = [Tried((x,), x.transpose(0, 1).reshape(x.shape[0], 1, -1)) for x in xs]
    found = diagnose(module, "merge", tried)
    assert found is not None and "(or, with the same numbers on every input, " in found.hint
    assert "transpose(1, 0)" in found.hint and "transpose(0, 2)" in found.hint


def test_a_name_that_only_contains_pos_does_not_make_a_range_one_of_positions(tmp_path):
    module = _module(tmp_path, "toy_turned", "import torch\n\n\ndef turned(x, k):\n"
                     "    theta = 10000.0 ** (-torch.arange(x.shape[-1]) / 4) + k.transpose(0, 1)\n    return x * theta\n")
    assert _shift_text(module, "turned").startswith("the range counted from 1 instead of 0")
