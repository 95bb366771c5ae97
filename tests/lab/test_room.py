"""`lab check N --room FOLDER`: a whole room's files in one table (room.py).

One room of lab 04 is checked once for the module (it takes a minute on two cores): two learners
with the same mistake, one with a hand-written one, a right file, one that does not parse and one
that never ends (it costs the time limit, 60 s, on one of the two workers). Run in the sandbox where there is one; without one, with --no-sandbox (these
files harm nothing).
"""

from __future__ import annotations

import csv
import shutil

import pytest

from attention_by_hand.lab import sandbox
from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.runner import check_file
from labhelpers import REFERENCES, lab_main, learner_file, patch_lab

pytestmark = pytest.mark.slow  # a room checked file by file, about a hundred seconds: starts early (tests/conftest.py)

VALUES_FROM_KEY = '''
def self_attention(x, query, key, value):
    w = attention_weights(x, query, key)
    return w @ key(x), w
'''


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    folder = tmp_path_factory.mktemp("room")
    scratch = tmp_path_factory.mktemp("scratch")
    reference = REFERENCES["lab-04-attention.py"].read_text(encoding="utf-8")
    (folder / "ada.py").write_text(patch_lab(reference, VALUES_FROM_KEY), encoding="utf-8")
    (folder / "bo.py").write_text(patch_lab(reference, VALUES_FROM_KEY.replace("w @ key(x)", "w.matmul(key(x))")), encoding="utf-8")
    shutil.copy(learner_file("lab04-no-scale.py", scratch), folder / "cy.py")
    (folder / "di.py").write_text(reference, encoding="utf-8")
    shutil.copy(learner_file("syntax-error.py", scratch), folder / "ed.py")
    shutil.copy(learner_file("loops-forever.py", scratch), folder / "flo.py")
    (folder / "notes.txt").write_text("not a learner's file", encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    args = ["lab", "check", "4", "--room", str(folder), "--out", str(out), "--timeout", "60"]
    if sandbox.available() is not None:
        args.append("--no-sandbox")
    code = lab_main(*args)
    return folder, out, code


def rows(out, name="room-lab-04.csv"):
    with open(out / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_the_room_check_exits_0_once_the_tables_are_written(room):
    assert room[2] == 0


def test_the_table_has_one_row_per_learners_file_with_each_functions_verdict(room):
    table = rows(room[1])
    assert [r["file"] for r in table] == ["ada.py", "bo.py", "cy.py", "di.py", "ed.py", "flo.py"]
    right = next(r for r in table if r["file"] == "di.py")
    assert (right["result"], right["causal_mask"], right["attention_weights"], right["self_attention"]) == ("passed", "ok", "ok", "ok")
    assert "`key(x)` for `value(x)`" in next(r for r in table if r["file"] == "ada.py")["self_attention"]


def test_the_summary_counts_learners_per_mistake_most_common_first(room):
    summary = rows(room[1], "room-lab-04-summary.csv")
    assert summary[0]["learners"] == "2" and "`key(x)` for `value(x)`" in summary[0]["mistake"]
    assert summary[0]["files"] == "ada.py bo.py"
    counts = [int(r["learners"]) for r in summary]
    assert counts == sorted(counts, reverse=True)
    assert any("the scores are not scaled" in r["mistake"] and r["learners"] == "1" for r in summary)


def test_a_broken_and_an_endless_file_cost_only_their_own_rows(room):
    table = {r["file"]: r for r in rows(room[1])}
    assert table["ed.py"]["result"] == "not checked" and "syntax error" in table["ed.py"]["note"]
    assert table["flo.py"]["result"] == "not checked" and "time limit" in table["flo.py"]["note"]
    assert table["di.py"]["result"] == "passed"


def test_the_html_page_holds_both_tables_and_loads_nothing_from_outside(room):
    page = (room[1] / "room-lab-04.html").read_text(encoding="utf-8")
    assert page.count("<table>") == 2 and page.count("<tr>") == 1 + 6 + 1 + len(rows(room[1], "room-lab-04-summary.csv"))
    assert "http" not in page and "<script" not in page and "<link" not in page


@pytest.mark.parametrize("name", ["ada.py", "cy.py"])
def test_each_verdict_equals_the_single_file_check(room, name):
    single = check_file(room[0] / name, LABS[3])
    row = next(r for r in rows(room[1]) if r["file"] == name)
    assert (row["passed"], row["failed"]) == (str(single.passed), str(single.failed))
    for function in LABS[3].functions:
        first = next((r.hint for r in single.results if not r.passed and r.label.startswith(function + ":")), "ok")
        assert row[function] == first


def test_without_a_sandbox_the_room_check_refuses_unless_asked(room, monkeypatch, capsys):
    monkeypatch.setattr(sandbox, "available", lambda: "bubblewrap (bwrap) is not installed")
    assert lab_main("lab", "check", "4", "--room", str(room[0]), "--out", str(room[1])) == 2
    err = capsys.readouterr().err
    assert "no sandbox" in err and "--no-sandbox" in err and len(err.strip().splitlines()) == 1


def test_a_folder_without_learners_files_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    assert lab_main("lab", "check", "4", "--room", str(tmp_path), "--no-sandbox") == 2
    assert "no learner's file in it" in capsys.readouterr().err


def test_a_file_and_a_room_together_are_refused(tmp_path, capsys):
    assert lab_main("lab", "check", "4", "x.py", "--room", str(tmp_path)) == 2
    assert "either FILE or --room" in capsys.readouterr().err


def test_learners_whose_different_code_has_the_same_mend_count_as_one_mistake(tmp_path):
    from attention_by_hand.lab.room import _row, summary
    from attention_by_hand.lab.verdict import CheckResult, CheckRun

    words = "off by one: the loop starts one step late, so its first step is never made"

    def run(code):
        hint = f"largest difference at [0, 1]: ...; {words} (line 56): with `{code}`, yours gives ..."
        return CheckRun(results=[CheckResult("causal_mask: T = 4", hint, None, words)])

    lab = LABS[3]
    rows_ = [_row(tmp_path / "ada.py", lab, run("range(0, T)` for `range(1, T)")),
             _row(tmp_path / "bo.py", lab, run("range(0, n)` for `range(1, n)"))]
    assert summary(rows_) == [(f"causal_mask: {words}", 2, ["ada.py", "bo.py"])]
