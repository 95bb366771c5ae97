"""The checks of every lab, judged in this process: each reference passes, each untouched
learner version fails with "not written yet", and each fixture of a typical mistake fails with
the hint that names that mistake and no other.

The fixtures in tests/fixtures/labs/ stand for learner files: a reference lab with one
characteristic mistake patched in (`# patches: LAB.py` on the first line; `learner_file` builds
the whole file). Their docstrings say what the checker must say (`expect-exit:`, `expect-hint:`).
Here they are imported and judged in-process (`check_in_process`), since what is under test is the
judging, not the child process; tests/lab/test_runner.py runs the files that misbehave in a child.
"""

from __future__ import annotations

import re

import pytest
import torch

from attention_by_hand.lab.registry import checks_for, lab_numbered
from attention_by_hand.lab.exercise import learner_source
from attention_by_hand.lab.registry import LABS, reference_path
from attention_by_hand.lab.verdict import check_in_process, load_reference
from labhelpers import FIXTURES_DIR, expectation, learner_file, load_lab

# Files named lab* make one mistake; the others misbehave (loop, cheat, exit) and run only in a
# child process (tests/lab/test_runner.py): imported here, a file that patches torch would patch the tests.
LAB_FIXTURES = sorted(FIXTURES_DIR.glob("lab*.py"))
MISTAKES = [p for p in LAB_FIXTURES if expectation(p)[1] == 1]
RIGHT = [p for p in LAB_FIXTURES if expectation(p)[1] == 0]  # right solutions, written otherwise than the reference
NUMBERS = [lab.number for lab in LABS]


@pytest.fixture(scope="module")
def references():
    return {lab.number: load_reference(reference_path(lab)) for lab in LABS}


@pytest.fixture(scope="module")
def judged(tmp_path_factory, references):
    """fixture path -> its CheckRun, every mistake fixture judged once, in this process."""
    folder = tmp_path_factory.mktemp("learners")
    runs = {}
    for path in MISTAKES:
        number = expectation(path)[0]
        module = load_lab(learner_file(path.name, folder))
        runs[path] = check_in_process(module, lab_numbered(number), reference=references[number])
    return runs


@pytest.mark.parametrize("number", NUMBERS)
def test_every_reference_lab_passes_every_check(references, number):
    run = check_in_process(references[number], lab_numbered(number), reference=references[number])
    assert [r.hint for r in run.results if not r.passed] == []
    assert len(run.results) == len(checks_for(number)) and run.exit_code == 0


@pytest.mark.parametrize("number", NUMBERS)
def test_an_untouched_learner_version_fails_every_check_with_not_written_yet(tmp_path, references, number):
    lab = lab_numbered(number)
    path = tmp_path / lab.filename
    path.write_text(learner_source(reference_path(lab).read_text(encoding="utf-8"), lab), encoding="utf-8")
    run = check_in_process(load_lab(path), lab, reference=references[number])
    assert run.failure is None and run.exit_code == 1 and run.passed == 0
    assert all("not written yet: " in r.hint for r in run.results)


def test_every_lab_has_at_least_three_fixtures_of_typical_mistakes():
    per_lab = {n: sum(expectation(p)[0] == n for p in MISTAKES) for n in NUMBERS}
    assert min(per_lab.values()) >= 3, per_lab


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_each_typical_mistake_fails_with_its_hint(judged, path):
    run = judged[path]
    hint = expectation(path)[2]
    failed = [r.hint for r in run.results if not r.passed]
    assert run.exit_code == 1 and any(hint in h for h in failed), failed


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_no_two_checks_of_one_mistake_name_different_mistakes(judged, path):
    # Checks may fail in other words (an exception, what was observed), never with another cause.
    named = {r.mistake for r in judged[path].results if r.mistake}
    assert len(named) <= 1, named


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_a_typical_mistake_still_runs_every_check(judged, path):
    assert len(judged[path].results) == len(checks_for(expectation(path)[0]))


@pytest.mark.parametrize("path", RIGHT, ids=lambda p: p.stem)
def test_a_right_solution_written_differently_passes_every_check(tmp_path, references, path):
    number = expectation(path)[0]
    run = check_in_process(load_lab(learner_file(path.name, tmp_path)), LABS[number - 1], reference=references[number])
    assert [r.hint for r in run.results if not r.passed] == [] and run.exit_code == 0


def test_a_mask_that_hides_the_diagonal_is_never_called_inverted(judged):
    run = judged[FIXTURES_DIR / "lab04-mask-hides-diagonal.py"]
    hints = [r.hint for r in run.results if not r.passed]
    assert hints and not any("visible" in h for h in hints)


def test_a_softmax_by_hand_without_the_max_shift_fails_only_on_large_scores(judged):
    run = judged[FIXTURES_DIR / "lab04-no-max-shift.py"]
    assert [r.label for r in run.results if not r.passed] == [
        "attention_weights: large scores, in the hundreds (a fixed x times 10, T=5)"
    ]


def test_a_function_that_changes_its_input_in_place_fails_though_its_output_is_right(judged):
    run = judged[FIXTURES_DIR / "lab04-changes-input.py"]
    hints = [r.hint for r in run.results if r.label.startswith("attention_weights: ")]
    assert hints and all(re.match(r"your function changed its input x in place \(line \d+: `x\.mul_\(0\)`\): ", h)
                         and "trailing underscore" in h for h in hints)


def test_an_exception_names_the_line_of_the_learners_file(judged):
    run = judged[FIXTURES_DIR / "lab04-raises-in-function.py"]
    raised = [r.hint for r in run.results if r.hint and r.hint.startswith("raised RuntimeError")]
    assert raised and all("(line " in h for h in raised)


def test_an_unexplained_output_is_described_not_diagnosed(tmp_path, references):
    # Weights that are right everywhere but one cell, by no known mistake: the hint says which
    # cell and which value, and names no cause.
    lab = LABS[3]
    source = reference_path(lab).read_text(encoding="utf-8").replace(
        '    return torch.softmax(scores, dim=-1)  # (T, T): along each ROW, one distribution per token',
        "    w = torch.softmax(scores, dim=-1)\n    w[..., -1, 0] += 0.25\n    return w",
    )
    path = tmp_path / "odd.py"
    path.write_text(source, encoding="utf-8")
    run = check_in_process(load_lab(path), lab, reference=references[4])
    hint = next(r.hint for r in run.results if r.label.startswith("attention_weights: a fixed"))
    assert hint.startswith("row 3 of the weights sums to 1.25, not 1")
    assert not any(word in hint for word in ("mask", "scale", "axis", "missing"))


def test_random_inputs_follow_the_seed_and_fixed_inputs_do_not():
    first, second, again = checks_for(4, seed=1), checks_for(4, seed=2), checks_for(4, seed=1)
    assert torch.equal(first[1].cases[0][0], second[1].cases[0][0])  # the fixed input
    assert not torch.equal(first[2].cases[0][0], second[2].cases[0][0])  # a random one
    assert torch.equal(first[2].cases[0][0], again[2].cases[0][0])


def test_the_checks_use_the_canonical_toy_world():
    from attention_by_hand.run.world import RIVER_BANK

    table, vocabulary, sentence = checks_for(1)[0].cases[0]
    assert vocabulary == list(RIVER_BANK.words) and sentence == ["the", "river", "bank"]
    assert table.tolist() == [[pytest.approx(v) for v in RIVER_BANK.embeddings[w]] for w in RIVER_BANK.words]
