"""benchmarks/hints_heldout.py: how a file's check is scored, the manifest it reads, and its reports.

Everything here is synthetic: tiny manifests, outcomes and one learner file made in the test.
The held-out files and their manifest are never read (the diagnosis must not be tuned on them).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("bench_hints_heldout", ROOT / "benchmarks" / "hints_heldout.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


hh = _load()

SCALE = hh.Entry(
    "lab04-x.py", 4, "attention_weights", "forgot the scale", named_if=(r"(?<!re)scal(e|ed|ing)\b|sqrt",),
    wrong_if=(r"wrong axis",),
)  # fmt: skip


def outcome(*results, failure=None):
    """An Outcome from (function, hint) or (function, hint, known mistake) triples."""
    return hh.Outcome(tuple(hh.Result(r[0], f"{r[0]}: a case", *r[1:]) for r in results), failure, 1.0)


def test_a_hint_matching_named_if_scores_named():
    got = outcome(("attention_weights", "the scores are not scaled: divide by sqrt(head_size)"))
    assert hh.score(SCALE, got) == ("named", "the scores are not scaled: divide by sqrt(head_size)")


def test_patterns_match_whatever_the_case():
    assert hh.score(SCALE, outcome(("attention_weights", "SCALED by 2")))[0] == "named"


def test_a_failure_whose_hint_names_nothing_scores_observed_only():
    got = outcome(("attention_weights", "largest difference at [0, 1]: expected 0.5, got 0.7"))
    assert hh.score(SCALE, got)[0] == "observed-only"


def test_a_hint_matching_wrong_if_scores_wrong_name_though_another_hint_names_the_mistake():
    got = outcome(("attention_weights", "divide by sqrt(head_size)"), ("attention_weights", "softmax over the wrong axis"))
    assert hh.score(SCALE, got) == ("wrong-name", "softmax over the wrong axis")


def test_a_known_mistake_that_matches_no_named_if_scores_wrong_name():
    got = outcome(("attention_weights", "the mask is on the wrong side", "the mask is on the wrong side"))
    assert hh.score(SCALE, got)[0] == "wrong-name"


def test_a_known_mistake_that_matches_named_if_scores_named():
    got = outcome(("attention_weights", "not scaled: divide by sqrt(4)", "not scaled: divide by sqrt(#)"))
    assert hh.score(SCALE, got)[0] == "named"


def test_a_wrong_file_that_passes_every_check_scores_missed():
    assert hh.score(SCALE, outcome(("attention_weights", None), ("self_attention", None))) == ("missed", "")


def test_another_functions_hint_is_ignored_when_the_functions_own_check_failed():
    got = outcome(("attention_weights", "row 0 sums to 0.3, not 1"), ("self_attention", "out: not scaled"))
    assert hh.score(SCALE, got)[0] == "observed-only"


def test_another_functions_hint_counts_when_the_functions_own_checks_passed():
    got = outcome(("attention_weights", None), ("self_attention", "weights: the scores are not scaled"))
    assert hh.score(SCALE, got)[0] == "named"


def test_a_file_that_could_not_be_checked_is_scored_by_its_reason():
    got = outcome(failure="time limit: still running after 20 s in attention_weights()")
    assert hh.score(SCALE, got)[0] == "observed-only"


def test_a_correct_file_passes_when_every_check_passed():
    entry = hh.Entry("lab04-y.py", 4, "correct")
    assert hh.score(entry, outcome(("attention_weights", None), ("self_attention", None))) == ("pass", "")


def test_a_correct_file_fails_with_the_first_failing_hint():
    entry = hh.Entry("lab04-y.py", 4, "correct")
    assert hh.score(entry, outcome(("attention_weights", None), ("self_attention", "out: wrong"))) == ("fail", "out: wrong")


def test_the_function_is_read_from_a_label_that_holds_colons():
    got = hh.outcome_of({"results": [{"label": "decode_step: random: positions 5 and 0", "hint": None}]}, 2.0)
    assert got.results[0].function == "decode_step"


def write_manifest(folder: Path, files: list[dict]) -> Path:
    (folder / "lab04-x.py").write_text("# a learner file\n", encoding="utf-8")
    path = folder / "manifest.json"
    path.write_text(json.dumps({"format": 1, "files": files}), encoding="utf-8")
    return path


WRONG = {"file": "lab04-x.py", "lab": 4, "function": "attention_weights", "mistake": "m", "named_if": ["scale"]}


def test_manifest_entries_are_read_with_their_patterns(tmp_path):
    entries = hh.load_manifest(write_manifest(tmp_path, [dict(WRONG, wrong_if=["axis"])]))
    assert entries == [hh.Entry("lab04-x.py", 4, "attention_weights", "m", ("scale",), ("axis",))]


def test_manifest_with_a_bad_pattern_is_refused_naming_it(tmp_path):
    with pytest.raises(hh.ManifestError, match=r"files\[0\]: wrong_if has a bad pattern '\('"):
        hh.load_manifest(write_manifest(tmp_path, [dict(WRONG, wrong_if=["("])]))


def test_manifest_naming_a_missing_file_is_refused(tmp_path):
    with pytest.raises(hh.ManifestError, match="lab04-z.py is not a file"):
        hh.load_manifest(write_manifest(tmp_path, [dict(WRONG, file="lab04-z.py")]))


def test_manifest_wrong_file_without_named_if_is_refused(tmp_path):
    with pytest.raises(hh.ManifestError, match="needs `mistake` and at least one `named_if`"):
        hh.load_manifest(write_manifest(tmp_path, [dict(WRONG, named_if=[])]))


def test_manifest_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(hh.ManifestError, match="cannot read it as JSON"):
        hh.load_manifest(path)


def test_a_folder_without_a_manifest_is_refused_in_one_line_with_exit_2(tmp_path, capsys):
    assert hh.main(["--folder", str(tmp_path / "heldout")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "heldout: no such set" in err


def test_the_manifest_is_read_from_the_folder_given(tmp_path, capsys):
    (tmp_path / "lab04-x.py").write_text("", encoding="utf-8")
    write_manifest(tmp_path, [WRONG])
    # --only that matches nothing stops after the manifest was read: it was found in that folder
    assert hh.main(["--folder", str(tmp_path), "--only", "lab09"]) == 2
    assert "no held-out file starts with 'lab09'" in capsys.readouterr().err


def summary_of_three() -> str:
    entries = [SCALE, hh.Entry("lab04-y.py", 4, "correct"), hh.Entry("lab05-x.py", 5, "merge_heads", "secret", ("cat",))]
    outcomes = [outcome(("attention_weights", "not scaled")), outcome(), outcome(("merge_heads", None))]
    outcomes = [hh.Outcome(o.results, None, s) for o, s in zip(outcomes, (4.0, 6.0, 12.5))]
    return hh.summary(entries, outcomes, ["named", "pass", "missed"], "Measured on a test.")


def test_summary_counts_each_lab_and_all():
    text = summary_of_three()
    assert "| 04 | 1 | 1 | 0 | 0 | 0 | 1 of 1 |" in text
    assert "| 05 | 1 | 0 | 0 | 0 | 1 | 0 of 0 |" in text
    assert "| all | 2 | 1 | 0 | 0 | 1 | 1 of 1 |" in text


def test_summary_gives_the_score_and_the_time_against_their_targets():
    text = summary_of_three()
    assert "| wrong files whose hint names the mistake | 1 of 2 (50 %) | at least 90 %: **missed** |" in text
    assert "| time per check, median and longest | 6.0 s, 12.5 s | under 10 s: **missed** |" in text


def test_summary_names_no_mistake():
    assert "secret" not in summary_of_three() and "forgot the scale" not in summary_of_three()


def test_details_escape_a_pipe_in_a_hint():
    text = hh.details([SCALE], [outcome(("attention_weights", "a | b"))], [("observed-only", "a | b")])
    assert "| a \\| b | observed-only |" in text


def test_a_learner_file_is_checked_in_a_fresh_python_and_scored(tmp_path):
    """End to end on a file made here: lab 02's reference with its softmax divided by the whole sum."""
    from attention_by_hand.lab.registry import get_lab, reference_path

    right = "return exps / exps.sum(dim=-1, keepdim=True)"
    source = reference_path(get_lab("2")).read_text(encoding="utf-8")
    assert right in source
    (tmp_path / "lab02-x.py").write_text(source.replace(right, "return exps / exps.sum()"), encoding="utf-8")
    entry = hh.Entry("lab02-x.py", 2, "softmax", "divided by the whole sum", (r"whole tensor|each row",))
    got = hh.check_in_fresh_python(entry, folder=tmp_path)
    assert [r.function for r in got.failed] and {r.function for r in got.failed} == {"softmax"}
    assert hh.score(entry, got)[0] == "named"


def test_summary_splits_the_score_by_whether_the_checker_knew_the_mistake():
    known = hh.Entry("lab04-k.py", 4, "attention_weights", "m", ("scale",), catalogued=True)
    new = hh.Entry("lab04-n.py", 4, "attention_weights", "m", ("scale",))
    got = [outcome(("attention_weights", "not scaled")), outcome(("attention_weights", "row 0 sums to 2"))]
    text = hh.summary([known, new], got, ["named", "observed-only"], "Measured on a test.")
    assert "| ... of those whose mistake the checker already knew when the set was written | 1 of 1 (100 %) | |" in text
    assert "| ... of those whose mistake it did not know | 0 of 1 (0 %) | |" in text


def test_summary_has_no_split_when_no_file_is_marked_as_known():
    files = [hh.Entry(f"lab04-{n}.py", 4, "attention_weights", "m", ("scale",)) for n in "ab"]
    got = [outcome(("attention_weights", "not scaled")), outcome(("attention_weights", "row 0 sums to 2"))]
    text = hh.summary(files, got, ["named", "observed-only"], "Measured on a test.")
    assert "already knew" not in text and "did not know" not in text
    assert "| wrong files whose hint names the mistake | 1 of 2 (50 %) |" in text


def test_a_check_that_runs_out_of_time_is_tried_again_and_counted():
    timed_out = outcome(failure="time limit: still running after 20 s while importing the file")
    answers = iter([timed_out, outcome(("attention_weights", None))])
    got = hh.checked(SCALE, tries=3, check=lambda entry, folder: next(answers))
    assert (got.failure, got.attempts) == (None, 2)


def test_a_check_that_always_runs_out_of_time_stops_after_the_last_try():
    timed_out = outcome(failure="time limit: still running after 20 s while importing the file")
    calls = []
    got = hh.checked(SCALE, tries=3, check=lambda entry, folder: calls.append(1) or timed_out)
    assert (len(calls), got.attempts, got.failure) == (3, 3, timed_out.failure)


def test_summary_says_how_many_checks_were_tried_again():
    slow = hh.Outcome((hh.Result("attention_weights", "a", "not scaled"),), None, 3.0, 2)
    text = hh.summary([SCALE], [slow], ["named"], "Measured on a test.")
    assert "1 check ran out of `lab check`'s time limit on the busy machine and was tried again" in text


def test_the_checker_commit_is_the_checkouts_head_that_the_package_comes_from():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert len(head) >= 7 and hh.checker_commit() == head
