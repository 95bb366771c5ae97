"""The benchmark scripts: lab 06's figure and results, the test-suite timer, and the README copier.

The measurements themselves are not run here (they take a minute or more); each script's
parsing, report, figure and argument checks are, on fixed inputs.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load(name: str):
    """A benchmarks/<name>.py script as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lab06 = load("lab06")
test_suite = load("test_suite")
update_readme = load("update_readme")

CURVE = [(1, 2.4349, 0.095), (50, 0.2140, 1.0), (100, 0.0131, 1.0)]
LAB06_STDOUT = """\
STEP 1: task: 6 random digits, then the same again; 1000 held-out sequences from another seed
STEP 3: training 100 steps (full schedule)
    step    1: loss 2.4349, held-out accuracy 0.095
    step   50: loss 0.2140, held-out accuracy 1.000
    step  100: loss 0.0131, held-out accuracy 1.000
STEP 4: trained 100 steps in 1.9 s; final loss 0.0131
STEP 5: held-out accuracy on the repeated half: 1.000 (needs >= 0.95)
"""


# --- lab 06 ----------------------------------------------------------------------------------


def test_lab06_reads_the_curve_and_its_numbers_from_the_lab_output():
    numbers = lab06.parse(LAB06_STDOUT)
    assert numbers["curve"] == CURVE
    read = (numbers["steps"], numbers["final_loss"], numbers["accuracy"], numbers["held_out"])
    assert read == (100, 0.0131, 1.0, 1000)


def test_lab06_figure_is_the_same_png_bytes_for_the_same_curve():
    first, second = lab06.draw_curve(CURVE), lab06.draw_curve(list(CURVE))
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert first == second


def test_lab06_figure_changes_with_the_curve():
    other = [(step, loss * 2, acc) for step, loss, acc in CURVE]
    assert lab06.draw_curve(other) != lab06.draw_curve(CURVE)


def test_lab06_figure_carries_no_software_stamp():
    assert b"Software" not in lab06.draw_curve(CURVE)


def test_lab06_alt_text_says_the_curves_own_numbers():
    alt = lab06.alt_text(CURVE)
    assert "2.4349 at step 1" in alt and "0.0131 at step 100" in alt and "0.95 at step 50" in alt


def test_lab06_report_shows_the_figure_and_no_per_step_rows():
    text = lab06.report([4.2, 4.3], [1.8, 1.9], lab06.parse(LAB06_STDOUT))
    assert f"]({lab06.FIGURE.name})" in text
    assert not re.search(r"^\| 50 \|", text, re.M)


def test_lab06_learner_part_of_the_report_has_no_benchmark_terms():
    text = lab06.report([4.2, 4.3], [1.8, 1.9], lab06.parse(LAB06_STDOUT))
    learner, details = text.split(lab06.DETAILS_MARKER)
    assert "budget" not in learner and "min-max" not in learner
    assert "| budget |" in details


def test_lab06_committed_results_name_the_committed_figure():
    text = lab06.RESULT.read_text(encoding="utf-8")
    assert f"]({lab06.FIGURE.name})" in text and lab06.FIGURE.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_lab06_repeat_of_zero_is_a_one_line_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        lab06.main(["--repeat", "0"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


# --- the test suite --------------------------------------------------------------------------


def test_suite_summary_is_read_from_pytests_last_line():
    output = "....s.\n=== short test summary info ===\nSKIPPED [1] x\n"
    output += "412 passed, 3 skipped, 1 warning in 183.21s (0:03:03)\n"
    assert test_suite.summary_of(output) == "412 passed, 3 skipped, 1 warning"


def test_suite_summary_of_a_decorated_line_drops_the_equals_signs():
    assert test_suite.summary_of("===== 2 failed, 5 passed in 1.02s =====\n") == "2 failed, 5 passed"


def test_suite_runs_the_pytest_of_the_makefiles_test_recipe(tmp_path):
    makefile = tmp_path / "Makefile"
    makefile.write_text("run: x\n\techo run\n\ntest: $(STAMP)\n\t$(PY) -m pytest -n 3 --dist load\n\nbench:\n\t$(PY) -m pytest -k x\n")
    assert test_suite.make_test_pytest(makefile) == ("-m", "pytest", "-n", "3", "--dist", "load")


def test_suite_without_a_pytest_line_under_test_says_so(tmp_path):
    makefile = tmp_path / "Makefile"
    makefile.write_text("test:\n\techo no tests here\n")
    with pytest.raises(SystemExit, match="no `\\$\\(PY\\) -m pytest` line"):
        test_suite.make_test_pytest(makefile)


MACHINE = {"cores": 2, "cpu": "Some CPU", "python": "3.11.7", "torch": "2.13.0+cpu"}


def test_suite_report_says_the_target_was_met_within_it():
    text = test_suite.report([test_suite.TARGET_SECONDS - 1], "5 passed", MACHINE)
    assert re.search(r"^\| target \| at most 200 s on 2 cores: met \|$", text, re.M)


def test_suite_report_judges_the_slowest_run():
    text = test_suite.report([100.0, test_suite.TARGET_SECONDS + 1, 100.0], "5 passed", MACHINE)
    assert "NOT met" in text


def test_suite_report_of_a_selection_is_not_judged():
    text = test_suite.report([1.0], "5 passed", MACHINE, ["tests/run/test_atomic.py"])
    assert "not judged" in text and "`tests/run/test_atomic.py`" in text


def test_suite_report_names_the_machine():
    text = test_suite.report([1.0], "5 passed", MACHINE)
    assert "| machine | 2 cores, Some CPU |" in text and "| versions | Python 3.11.7, torch 2.13.0+cpu |" in text


@pytest.mark.parametrize(
    "argv",
    [["--runs", "0"], ["--runs", "two"], ["--pytest-args", '"unclosed'], ["--write", "--pytest-args", "tests/x.py"]],
)
def test_suite_bad_arguments_are_a_one_line_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        test_suite.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("test_suite.py: ") and err.count("\n") == 1


def test_suite_times_a_selection_and_prints_its_summary(capsys):
    # The smallest selection that still runs tests: the benchmark's work is pytest's, not the tests'.
    assert test_suite.main(["--pytest-args", "tests/run/test_environment.py"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\| pytest's summary \| \d+ passed \|$", out, re.M)


# --- copying results into the README ---------------------------------------------------------


@pytest.fixture
def results(tmp_path):
    folder = tmp_path / "benchmarks" / "results"
    folder.mkdir(parents=True)
    lab06_text = "<!-- generated -->\nA table.\n\n![alt](lab06-loss.png)\n<!-- benchmark details -->\nMore.\n"
    (folder / "lab06.md").write_text(lab06_text)
    (folder / "test_suite.md").write_text("<!-- generated -->\nSuite table.\n")
    return tmp_path


def test_readme_gets_image_links_relative_to_itself(results):
    text = update_readme.table_of(results / "benchmarks" / "results" / "lab06.md", results / "README.md")
    assert "![alt](benchmarks/results/lab06-loss.png)" in text


def test_readme_gets_no_comment_lines_of_a_result(results):
    text = update_readme.table_of(results / "benchmarks" / "results" / "lab06.md", results / "README.md")
    assert "<!--" not in text and "More." in text


def test_readme_changes_only_inside_the_results_block(results):
    before = "Intro.\n<!-- benchmark:lab06 -->\nold\n<!-- /benchmark:lab06 -->\nOutro.\n"
    after = update_readme.update(before, [results / "benchmarks" / "results" / "lab06.md"], results / "README.md")
    assert after.startswith("Intro.\n<!-- benchmark:lab06 -->\nA table.")
    assert after.endswith("\n<!-- /benchmark:lab06 -->\nOutro.\n")


def test_readme_takes_the_test_suite_result_into_the_tests_block(results):
    before = "<!-- benchmark:tests -->\nold\n<!-- /benchmark:tests -->\n"
    after = update_readme.update(before, [results / "benchmarks" / "results" / "test_suite.md"], results / "README.md")
    assert after == "<!-- benchmark:tests -->\nSuite table.\n<!-- /benchmark:tests -->\n"


def test_readme_has_a_block_for_every_result_and_for_the_test_suite():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stems = {result.stem for result in (ROOT / "benchmarks" / "results").glob("*.md")} | {"test_suite"}
    blocks = {update_readme.BLOCK_NAMES.get(stem, stem) for stem in stems}
    missing = [name for name in blocks if f"<!-- benchmark:{name} -->" not in readme]
    assert missing == []


# --- what every benchmark shares (benchmarks/benchlib.py) -----------------------------------------


def test_a_count_below_one_is_a_one_line_error_naming_the_value(capsys):
    import benchlib

    parser = benchlib.Parser(prog="some_bench.py")
    parser.add_argument("--runs", type=benchlib.positive("runs"))
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--runs", "0"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "some_bench.py: argument --runs: '0' is not a whole number of runs >= 1\n"


def test_the_machine_line_names_the_cores_the_cpu_python_and_each_package():
    import os
    import platform

    import benchlib
    import numpy

    line = benchlib.machine_line(("numpy",))
    assert line.startswith(f"{os.cpu_count()} cores (") and f"Python {platform.python_version()}" in line
    assert line.endswith(f"numpy {numpy.__version__}")


def test_results_are_written_whole_and_said(tmp_path, monkeypatch, capsys):
    import benchlib

    monkeypatch.setattr(benchlib, "ROOT", tmp_path)
    benchlib.write(tmp_path / "results" / "x.md", "a table\n")
    assert (tmp_path / "results" / "x.md").read_text() == "a table\n"
    assert capsys.readouterr().err == "wrote results/x.md\n"


# --- attention_backward ------------------------------------------------------------------------

attention_backward = load("attention_backward")


def backward_measurements(tiled_seconds: float = 1.2, difference: float = 2e-6) -> dict:
    """Fixed measurements in the shape main() hands to report(): two lengths, three heads."""
    rows = {}
    for t, factor in ((2048, 1.0), (4096, 4.0)):
        rows[("tiled-torch", t)] = {"seconds": tiled_seconds * factor / 4, "difference": difference, "memory": 30 * 2**20 * t // 2048}
        rows[("sdpa", t)] = {"seconds": factor / 4, "difference": 0.0, "memory": 28 * 2**20 * t // 2048}
        rows[("naive", t)] = {"seconds": 3 * factor / 4, "difference": 3e-6, "memory": 600 * 2**20 * (t // 2048) ** 2}
    return {
        "machine": "Measured on a test.", "lengths": [2048, 4096], "rows": rows, "notes": [], "repeat": 3,
        "forward": {"tiled-torch": 0.4, "sdpa": 0.25}, "exponents": {"tiled-torch": 1.0, "naive": 2.0},
        "end_exponents": {"tiled-torch": 1.0, "naive": 2.0}, "wall": 10.0, "load_end": "", "load_start": "",
    }  # fmt: skip


def test_attention_backward_report_says_met_when_the_tiled_head_is_within_its_targets():
    text = attention_backward.report(backward_measurements(tiled_seconds=1.2))
    assert "| at most 1.5x SDPA's forward + backward at 4,096 words | 1.20x" in text
    assert "**missed**" not in text


def test_attention_backward_report_says_missed_and_by_how_much():
    text = attention_backward.report(backward_measurements(tiled_seconds=2.0, difference=3e-4))
    assert "| at most 1.5x SDPA's forward + backward at 4,096 words | 2.00x (2.000 s against 1.000 s) | **missed** |" in text
    assert "largest difference 3.0e-04 | **missed** |" in text


def test_attention_backward_report_splits_forward_and_backward_at_the_target_length():
    text = attention_backward.report(backward_measurements())
    assert "| tiled head | 0.400 s | 0.800 s | 1.200 s |" in text and "| SDPA | 0.250 s | 0.750 s | 1.000 s |" in text


def test_attention_backward_figure_is_the_same_png_bytes_for_the_same_measurements():
    first, second = attention_backward.draw(backward_measurements()), attention_backward.draw(backward_measurements())
    assert first[:8] == b"\x89PNG\r\n\x1a\n" and first == second and b"Software" not in first


def test_attention_backward_alt_text_says_the_measured_numbers():
    alt = attention_backward.figure_alt(backward_measurements())
    assert "the tiled head from 0.300 s at 2,048 words to 1.200 s at 4,096" in alt and "; SDPA from 0.250 s" in alt


@pytest.mark.parametrize("argv", [["--repeat", "0"], ["--lengths", "12"], ["--child", "nobody", "64"]])
def test_attention_backward_bad_arguments_are_a_one_line_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        attention_backward.main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


def test_attention_backward_every_head_gives_autograds_gradients_on_a_short_text():
    import torch

    q, k, v, d_out = attention_backward.make_inputs(64)
    reference = attention_backward.forward_backward("sdpa", q, k, v, d_out)
    for key in ("tiled-torch", "naive"):
        grads = attention_backward.forward_backward(key, q, k, v, d_out)
        assert max((a - b).abs().max().item() for a, b in zip(grads, reference)) <= 1e-4, key
    assert all(t.grad is None for t in (q, k, v))  # the inputs are left as they were


def test_attention_backward_report_says_by_how_much_the_time_target_is_missed_and_where():
    text = attention_backward.report(backward_measurements(tiled_seconds=2.0))
    assert "The time target is missed by 33% of the 1.5x allowed." in text
    # forward 0.4 s against 0.25 s; backward 2.0 - 0.4 = 1.6 s against 1.0 - 0.25 = 0.75 s
    assert "The tiled forward took 1.60x SDPA's forward and the tiled backward 2.13x SDPA's backward." in text
# --- hints ----------------------------------------------------------------------------------

hints = load("hints")


def test_hints_reads_a_manifest_given_as_a_list_or_as_a_dict_keyed_by_file(tmp_path):
    entry = {"lab": 4, "function": "attention_weights", "description": "d", "named_if": ["a"], "wrong_if": ["b"]}
    (tmp_path / "manifest.json").write_text(f'[{{"file": "x.py", {str(entry)[1:-1]}}}]'.replace("'", '"'), encoding="utf-8")
    as_list = hints.read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text(f'{{"x.py": {str(entry)}}}'.replace("'", '"'), encoding="utf-8")
    assert hints.read_manifest(tmp_path) == as_list == [{"file": "x.py", **entry}]


def test_hints_a_missing_manifest_is_a_one_line_error(tmp_path):
    with pytest.raises(SystemExit, match="manifest.json: cannot read the manifest"):
        hints.read_manifest(tmp_path)


def test_hints_a_patch_becomes_the_whole_learner_file_with_only_its_functions_replaced(tmp_path):
    patch = tmp_path / "p.py"
    patch.write_text("# patches: lab-02-embeddings-softmax.py\n\n\ndef softmax(scores):\n    return scores\n", encoding="utf-8")
    whole = hints.expand(patch)
    reference = (ROOT / "src/attention_by_hand/lab/labs/lab02/lab-02-embeddings-softmax.py").read_text(encoding="utf-8")
    assert "def softmax(scores):\n    return scores\n" in whole and "def one_hot_lookup(" in whole
    assert len(whole.splitlines()) < len(reference.splitlines())


def test_hints_development_set_has_a_manifest_entry_for_every_file_and_at_least_30():
    entries = hints.read_manifest(hints.DEV)
    files = sorted(p.name for p in hints.DEV.glob("*.py"))
    assert sorted(e["file"] for e in entries) == files and len(files) >= 30
