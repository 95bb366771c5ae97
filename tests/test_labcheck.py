"""`attention-by-hand lab check`: every reference passes, every typical mistake is named, and a
file that cannot run is stopped and reported (exit 2), never crashing the checker.

The fixtures in tests/fixtures/labs/ stand for learner files: a lab written with one
characteristic mistake, or one that misbehaves (a right one, `expect-exit: 0`, may misbehave on
the side). A fixture holds only what differs from the
reference lab named on its first line (`# patches: labs/LAB.py`): the function(s) the learner got
wrong, or top-level code appended to the lab; `learner_file` builds the whole file from it. Only
a file that cannot be a patch, one with a syntax error, is a whole file. Each docstring says what
the checker must say (`expect-exit:`, `expect-hint:`). Each learner file runs in a child process,
as on the command line; the runs are made once per module, three at a time, because each child
spends about a second importing torch.
"""

from __future__ import annotations

import ast
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn as nn

from attention_by_hand.labcheck import OUTPUT_LIMIT, CheckRun, check_file, report_lines
from attention_by_hand.labharness import Foreign, NumpyArray, Oversized, _same, decode, encode
from attention_by_hand.labjudge import checks_for
from attention_by_hand.labs import LABS
from labhelpers import FIXTURES_DIR, LABS_DIR, lab_parser, learner_file, load_lab, patch_lab

FIXTURES = sorted(FIXTURES_DIR.glob("*.py"))
TIMEOUT = 20.0  # the default of `lab check`
SHORT_TIMEOUT = 6.0  # for the file that loops forever: the test waits this long


def expectation(path: Path) -> tuple[int, int, str]:
    """(lab number, expected exit code, expected hint) from a fixture's docstring."""
    text = path.read_text(encoding="utf-8")
    lab = int(re.search(r"A learner's lab (\d+)", text).group(1))
    code = int(re.search(r"^expect-exit: (\d)$", text, re.M).group(1))
    hint = re.search(r"^expect-hint: (.+)$", text, re.M).group(1).strip()
    return lab, code, hint


PASSING = [p for p in FIXTURES if expectation(p)[1] == 0]
MISTAKES = [p for p in FIXTURES if expectation(p)[1] == 1]
CANNOT_RUN = [p for p in FIXTURES if expectation(p)[1] == 2]


def reference(number: int) -> Path:
    return LABS_DIR / LABS[number - 1].filename


def exercise(number: int) -> Path:
    return LABS_DIR / "exercises" / LABS[number - 1].filename


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[Path, tuple[CheckRun, float]]:
    """Every reference, exercise and fixture checked once: path -> (run, seconds it took).

    A fixture's run is keyed by the fixture's path; what runs is the learner file built from it.
    """
    learners = tmp_path_factory.mktemp("learners")
    jobs = [(reference(lab.number), reference(lab.number), lab.number) for lab in LABS]
    jobs += [(exercise(lab.number), exercise(lab.number), lab.number) for lab in LABS]
    jobs += [(path, learner_file(path.name, learners), expectation(path)[0]) for path in FIXTURES]

    def check(job):
        key, path, number = job
        timeout = SHORT_TIMEOUT if path.name == "loops-forever.py" else TIMEOUT
        started = time.monotonic()
        run = check_file(path, reference(number), number, timeout=timeout)
        return key, (run, time.monotonic() - started)

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(check, jobs))


# --- the references and the exercises -------------------------------------------------------


@pytest.mark.parametrize("number", [lab.number for lab in LABS])
def test_every_reference_lab_passes_every_check(runs, number):
    run, _ = runs[reference(number)]
    assert run.failure is None
    assert [r.hint for r in run.results if not r.passed] == []
    assert len(run.results) == len(checks_for(number)) and run.exit_code == 0


@pytest.mark.parametrize("number", [lab.number for lab in LABS])
def test_an_untouched_exercise_fails_every_check_with_not_written_yet(runs, number):
    run, _ = runs[exercise(number)]
    assert run.failure is None  # the same function names as the reference: nothing is missing
    assert run.exit_code == 1 and run.passed == 0
    assert all("not written yet: " in r.hint for r in run.results)


def test_a_written_function_that_calls_an_unwritten_one_names_the_unwritten_one(tmp_path):
    text = exercise(4).read_text(encoding="utf-8")
    body = re.search(r"(def self_attention\(.*?\"\"\"\n)(    raise NotImplementedError\(\n.*?\n    \)\n)", text, re.S)
    mine = tmp_path / "mine.py"
    mine.write_text(
        text.replace(
            body.group(2), "    weights = attention_weights(x, query, key)\n    return weights @ value(x), weights\n"
        )
    )
    run = check_file(mine, reference(4), 4)
    hints = {r.label.split(":")[0]: r.hint for r in run.results}
    assert hints["self_attention"].startswith("attention_weights() is not written yet: compute scores")


# --- the fixtures: patches applied to the reference labs --------------------------------------


def _split_at(text: str, name: str) -> tuple[str, str, str]:
    """(the lines before the top-level function `name`, the function, the lines after it)."""
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    lines, start, end = text.splitlines(keepends=True), node.lineno - 1, node.end_lineno
    return "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])


def test_a_patch_replaces_its_function_and_keeps_every_other_byte_of_the_lab(tmp_path):
    built = learner_file("lab04-no-scale.py", tmp_path).read_text(encoding="utf-8")
    before, function, after = _split_at(built, "attention_weights")
    lab_before, lab_function, lab_after = _split_at(reference(4).read_text(encoding="utf-8"), "attention_weights")
    assert (before, after) == (lab_before, lab_after) and function != lab_function
    patch = (FIXTURES_DIR / "lab04-no-scale.py").read_text(encoding="utf-8")
    assert function == _split_at(patch, "attention_weights")[1]


def test_a_patchs_other_statements_are_appended_and_its_docstring_dropped():
    lab = "import sys\n\n\ndef f():\n    return 1\n"
    assert patch_lab(lab, '"""Doc."""\n\nsys.exit(f())\n') == lab + "\n\nsys.exit(f())\n"


def test_a_patch_of_a_function_the_lab_does_not_define_is_an_error():
    with pytest.raises(ValueError, match=r"self_attn\(\), which the reference does not define"):
        patch_lab(reference(4).read_text(encoding="utf-8"), "def self_attn(x):\n    return x\n")


# --- typical mistakes: each fails, with its hint --------------------------------------------


def test_there_are_at_least_eight_typical_mistakes():
    assert len(MISTAKES) >= 8


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_each_typical_mistake_fails_with_its_hint(runs, path):
    run, _ = runs[path]
    _, _, hint = expectation(path)
    assert run.failure is None and run.exit_code == 1
    failed = [r.hint for r in run.results if not r.passed]
    assert any(hint in h for h in failed), f"no failure says {hint!r}: {failed}"


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_a_typical_mistake_still_passes_the_checks_it_does_not_touch(runs, path):
    run, _ = runs[path]
    assert run.passed + run.failed == len(checks_for(expectation(path)[0]))


# --- files that misbehave and still pass -------------------------------------------------


@pytest.mark.parametrize("path", PASSING, ids=lambda p: p.stem)
def test_a_right_file_that_misbehaves_on_the_side_still_passes_every_check(runs, path):
    run, _ = runs[path]
    assert run.failure is None and run.exit_code == 0
    assert len(run.results) == len(checks_for(expectation(path)[0]))


def _ended(pid: int, within: float = 5.0) -> bool:
    """True once `pid` is gone (a zombie counts as gone: only its parent's reaping is left)."""
    deadline = time.monotonic() + within
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (OSError, IndexError):
            pass  # gone between the two looks, or no /proc: ask again
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_processes_the_file_started_do_not_outlive_the_check(lab_cli, tmp_path):
    path = learner_file("starts-a-process.py", tmp_path)
    code, out, _ = lab_cli("lab", "check", "4", str(path))
    assert code == 0 and out.splitlines()[-1] == f"{len(checks_for(4))} passed, 0 failed"
    pids = [int(line) for line in Path(f"{path}.pids").read_text().split()]
    assert pids and [pid for pid in pids if not _ended(pid)] == []


def test_a_softmax_by_hand_without_the_max_shift_fails_only_on_large_scores(runs):
    run, _ = runs[FIXTURES_DIR / "lab04-no-max-shift.py"]
    failed = [(r.label, r.hint) for r in run.results if not r.passed]
    assert [label for label, _ in failed] == [
        "attention_weights: large scores, in the hundreds (a fixed x times 10, T=5)"
    ]
    assert failed[0][1].startswith("NaN for large scores: no max-shift; subtract each row's maximum before exp")


def test_a_function_that_changes_its_input_in_place_fails_though_its_output_is_right(runs):
    run, _ = runs[FIXTURES_DIR / "lab04-changes-input.py"]
    hints = [r.hint for r in run.results if r.label.startswith("attention_weights: ")]
    assert hints and all(h.startswith("your function changed its input x in place; ") for h in hints)


def test_an_input_with_nan_in_it_is_not_taken_for_a_changed_one():
    t = torch.tensor([1.0, float("nan"), float("-inf")])
    assert _same(t, t.clone()) and not _same(t, torch.tensor([0.0, float("nan"), float("-inf")]))


# --- files that cannot be run: exit 2, and why ----------------------------------------------


@pytest.mark.parametrize("path", CANNOT_RUN, ids=lambda p: p.stem)
def test_a_file_that_cannot_run_exits_2_and_says_why(runs, path):
    run, _ = runs[path]
    _, _, reason = expectation(path)
    assert run.exit_code == 2
    assert reason in run.failure
    assert "\n" not in run.failure


def test_an_endless_loop_is_stopped_at_the_time_limit_and_named(runs):
    run, seconds = runs[FIXTURES_DIR / "loops-forever.py"]
    assert "in attention_weights()" in run.failure
    assert SHORT_TIMEOUT <= seconds < SHORT_TIMEOUT + 5


def test_the_checks_that_ran_before_an_endless_loop_are_still_reported(runs):
    run, _ = runs[FIXTURES_DIR / "loops-forever.py"]
    assert [r.label.split(":")[0] for r in run.results] == ["causal_mask"] and run.results[0].passed


def test_unbounded_allocation_is_stopped_by_the_memory_limit_not_the_clock(runs):
    run, seconds = runs[FIXTURES_DIR / "allocates-forever.py"]
    assert run.failure.startswith("memory limit") and seconds < TIMEOUT / 2


def test_printing_megabytes_is_stopped_soon_after_the_output_limit(runs):
    run, seconds = runs[FIXTURES_DIR / "prints-megabytes.py"]
    assert f"printed more than {OUTPUT_LIMIT // 2**20} MB in attention_weights()" in run.failure
    assert seconds < TIMEOUT / 2  # stopped at 1 MB, not after printing all 100 MB


def test_a_file_that_raises_inside_a_function_is_a_failed_check_not_a_crash(runs):
    run, _ = runs[FIXTURES_DIR / "lab04-raises-in-function.py"]
    raised = [r.hint for r in run.results if r.hint and r.hint.startswith("raised RuntimeError")]
    assert raised and all("(line " in h for h in raised)


def test_missing_file_and_missing_lab_are_user_errors(lab_cli, tmp_path):
    code, _, err = lab_cli("lab", "check", "4", str(tmp_path / "nope.py"))
    assert code == 2 and err.startswith("attention-by-hand: error: ") and "nope.py: no such file" in err
    code, _, err = lab_cli("lab", "check", "9", str(tmp_path / "nope.py"))
    assert code == 2 and "no lab '9'" in err and len(err.splitlines()) == 1


BAD_OPTIONS = [
    ("--seed", "99999999999999999999999", ": must be from 0 to 2**64 - 1"),
    ("--seed", "-1", ": must be from 0 to 2**64 - 1"),
    ("--seed", "1.5", " is not a whole number"),
    ("--timeout", "nan", ": must be more than 0 and at most 86400 seconds"),
    ("--timeout", "inf", ": must be more than 0 and at most 86400 seconds"),
    ("--timeout", "0", ": must be more than 0 and at most 86400 seconds"),
    ("--timeout", "-3", ": must be more than 0 and at most 86400 seconds"),
    ("--timeout", "soon", " is not a number of seconds"),
    ("--memory", "0", ": must be from 1 to 1048576 MB"),
    ("--memory", "-1", ": must be from 1 to 1048576 MB"),
    ("--memory", "99999999999999999999", ": must be from 1 to 1048576 MB"),
    ("--memory", "1.5", " is not a whole number of MB"),
]


@pytest.mark.parametrize("option, value, message", BAD_OPTIONS, ids=[f"{o} {v}" for o, v, _ in BAD_OPTIONS])
def test_a_bad_option_value_is_one_error_line_and_exit_2(capsys, tmp_path, option, value, message):
    with pytest.raises(SystemExit) as stop:
        lab_parser().parse_args(["lab", "check", "4", option, value, str(tmp_path / "mine.py")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == f"attention-by-hand lab check: error: argument {option}: {value!r}{message}"


def test_the_largest_seed_torch_takes_is_accepted():
    args = lab_parser().parse_args(["lab", "check", "4", "--seed", str(2**64 - 1)])
    assert args.seed == 2**64 - 1 and len(checks_for(4, args.seed)) == len(checks_for(4))


@pytest.mark.parametrize(
    "argv",
    [
        ["4", "mine.py", "--timeout", "30", "--seed", "3"],
        ["4", "--timeout", "30", "--seed", "3", "mine.py"],
        ["4", "--timeout", "30", "mine.py", "--seed", "3"],
        ["--timeout", "30", "--seed", "3", "4", "mine.py"],
    ],
    ids=["file-first", "file-last", "file-between", "options-first"],
)
def test_file_and_options_go_in_any_order(argv):
    args = lab_parser().parse_args(["lab", "check", *argv])
    assert (args.number, args.file, args.timeout, args.seed) == ("4", "mine.py", 30.0, 3)


def test_a_second_file_after_the_options_is_still_an_error(capsys):
    with pytest.raises(SystemExit) as stop:
        lab_parser().parse_args(["lab", "check", "4", "--timeout", "30", "mine.py", "yours.py"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.splitlines()[-1].endswith("unrecognized arguments: yours.py")


def test_check_command_runs_a_file_given_after_the_options(lab_cli):
    code, out, err = lab_cli("lab", "check", "2", "--timeout", "30", str(reference(2)))
    assert code == 0 and err == ""
    assert out.splitlines()[0] == f"Checking {reference(2)} against lab 2 (embeddings and softmax):"


# --- the report -----------------------------------------------------------------------------


def test_the_report_is_one_line_per_check_then_the_count(runs):
    run, _ = runs[FIXTURES_DIR / "lab04-no-scale.py"]
    lines = report_lines(run)
    assert len(lines) == len(run.results) + 1
    assert all(line.startswith(("  ok    ", "  FAIL  ")) for line in lines[:-1])
    assert lines[-1] == f"{run.passed} passed, {run.failed} failed"


def test_check_command_prints_the_report_and_exits_0_for_the_reference(lab_cli):
    code, out, err = lab_cli("lab", "check", "2", str(reference(2)))
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0].startswith("Checking ") and lines[-1] == f"{len(checks_for(2))} passed, 0 failed"


def test_check_command_reports_a_file_it_cannot_run_in_one_line_with_exit_2(lab_cli, tmp_path):
    path = learner_file("syntax-error.py", tmp_path)
    line = path.read_text(encoding="utf-8").split("\n").index("def causal_mask(T: int) -> torch.Tensor") + 1
    code, out, err = lab_cli("lab", "check", "4", str(path))
    assert code == 2 and out.startswith("Checking ")
    assert err.splitlines() == [
        f"attention-by-hand: error: {path}: cannot be checked: syntax error, line {line}: expected ':'"
    ]


# --- the judges never crash, whatever a learner returns -------------------------------------

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


@pytest.mark.parametrize("number", [lab.number for lab in LABS])
def test_judges_turn_any_odd_output_into_a_hint(number):
    ref = load_lab(reference(number))
    for check in checks_for(number):
        args = check.cases[0]
        with torch.no_grad():
            expected = getattr(ref, check.function)(*args)
            for odd in ODD_OUTPUTS:
                hint = check.judge(odd, expected, args)
                assert isinstance(hint, str) and hint, (check.function, odd)


@pytest.mark.parametrize("number", [lab.number for lab in LABS])
def test_judges_pass_the_reference_output_itself(number):
    ref = load_lab(reference(number))
    for check in checks_for(number, seed=7):
        for args in check.cases:
            with torch.no_grad():
                expected = getattr(ref, check.function)(*args)
                assert check.judge(expected, expected, args) is None, check.label


def test_random_inputs_follow_the_seed_and_fixed_inputs_do_not():
    first, second, again = checks_for(4, seed=1), checks_for(4, seed=2), checks_for(4, seed=1)
    assert torch.equal(first[1].cases[0][0], second[1].cases[0][0])  # the fixed input
    assert not torch.equal(first[2].cases[0][0], second[2].cases[0][0])  # a random one
    assert torch.equal(first[2].cases[0][0], again[2].cases[0][0])


# --- the wire format between the checker and its child --------------------------------------


def test_tensors_cross_the_wire_exactly_with_nan_and_infinity():
    t = torch.tensor([[0.1, float("nan")], [float("inf"), -float("inf")]], dtype=torch.float32)
    back = decode(encode(t))
    assert back.dtype == torch.float32 and torch.equal(back.isnan(), t.isnan())
    assert torch.equal(back.nan_to_num(0.0), t.nan_to_num(0.0))


def test_modules_cross_the_wire_with_their_weights():
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4))
    norm, table = nn.LayerNorm(4), nn.Embedding(5, 4)
    x = torch.randn(3, 4)
    with torch.no_grad():
        assert torch.equal(decode(encode(mlp))(x), mlp(x))
        assert torch.equal(decode(encode(norm))(x), norm(x))
        assert torch.equal(decode(encode(table))(torch.tensor([0, 4])), table(torch.tensor([0, 4])))


def test_outputs_the_checker_does_not_read_arrive_as_what_they_are():
    assert isinstance(decode(encode(np.zeros((2, 2)))), NumpyArray)
    assert decode(encode(torch.zeros(400, 400))).shape == (400, 400)  # too large: shape only
    assert isinstance(decode(encode(object())), Foreign)
    assert decode(encode((1, [2.5, None]))) == (1, [2.5, None])
