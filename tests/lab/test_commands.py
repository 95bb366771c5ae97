"""`attention-by-hand lab list | start | run | check | notebook`, as a learner types them, in a
folder of their own: what each writes, prints and exits with, and one line for each mistake."""

from __future__ import annotations

import json

import nbformat
import pytest

from attention_by_hand.lab.registry import checks_for, lab_numbered
from attention_by_hand.lab.registry import LABS, numbers, reference_path
from labhelpers import lab_main, lab_parser, solve

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)


@pytest.fixture
def here(tmp_path, monkeypatch):
    """An empty folder of the learner's own, as the current folder."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _solve(text: str, number: int) -> str:
    """A learner's file with every function to write pasted from the reference."""
    reference = reference_path(lab_numbered(number)).read_text(encoding="utf-8")
    return solve(text, reference, lab_numbered(number).functions)


# --- list -------------------------------------------------------------------------------------


def test_list_shows_every_lab_the_functions_to_write_and_how_to_start(lab_cli, here):
    code, out, _ = lab_cli("lab", "list")
    assert code == 0 and "attention-by-hand lab start N" in out and "attention-by-hand lab check N" in out
    for lab in LABS:
        assert f"  {lab.number}  {lab.filename}" in out and ", ".join(lab.functions) in out


# --- start ------------------------------------------------------------------------------------


def test_start_writes_the_learners_version_into_the_current_folder(lab_cli, here):
    code, out, _ = lab_cli("lab", "start", "4")
    text = (here / "lab-04-attention.py").read_text(encoding="utf-8")
    assert code == 0 and out.startswith("wrote lab-04-attention.py") and "raise NotImplementedError(" in text
    assert [p.name for p in here.iterdir()] == ["lab-04-attention.py"]  # atomic: no temporary file left


def test_start_refuses_to_overwrite_a_learners_work_without_force(lab_cli, here):
    (here / "lab-04-attention.py").write_text("my work", encoding="utf-8")
    code, _, err = lab_cli("lab", "start", "4")
    assert code == 2 and "already exists; --force replaces it" in err and len(err.splitlines()) == 1
    assert (here / "lab-04-attention.py").read_text() == "my work"


def test_start_with_force_replaces_the_file(lab_cli, here):
    (here / "lab-04-attention.py").write_text("my work", encoding="utf-8")
    code, _, _ = lab_cli("lab", "start", "4", "--force")
    assert code == 0 and "NotImplementedError" in (here / "lab-04-attention.py").read_text()


def test_start_writes_to_the_file_named(lab_cli, here):
    code, out, _ = lab_cli("lab", "start", "2", "mine.py")
    assert code == 0 and "lab check 2 mine.py" in out and "lab check 2 mine.py" in (here / "mine.py").read_text()


def test_start_with_notebook_writes_the_learners_notebook(lab_cli, here):
    code, out, _ = lab_cli("lab", "start", "4", "--notebook")
    notebook = nbformat.read(here / "lab-04-attention.ipynb", as_version=4)
    assert code == 0 and "lab check 4 lab-04-attention.ipynb" in out
    assert any("NotImplementedError" in c.source for c in notebook.cells)


# --- check ------------------------------------------------------------------------------------


def test_check_without_a_file_and_none_started_says_how_to_start(lab_cli, here):
    code, _, err = lab_cli("lab", "check", "4")
    assert code == 2 and err == (
        "attention-by-hand: error: lab-04-attention.py: no such file "
        "(attention-by-hand lab start 4 writes your version)\n"
    )


def test_check_without_a_file_checks_the_started_one_and_it_fails_unwritten(lab_cli, here):
    lab_cli("lab", "start", "4")
    code, out, _ = lab_cli("lab", "check", "4")
    assert code == 1 and out.splitlines()[0] == "Checking lab-04-attention.py against lab 4 (one head of self-attention):"
    assert out.splitlines()[-1] == f"0 passed, {len(checks_for(4))} failed"


def test_a_learners_notebook_unfilled_fails_and_filled_passes(lab_cli, here):
    assert lab_cli("lab", "notebook", "4", "--exercise")[0] == 0
    path = here / "lab-04-attention.ipynb"
    assert lab_cli("lab", "check", "4", str(path))[0] == 1
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code" and "NotImplementedError(" in "".join(cell["source"]):
            cell["source"] = _solve("".join(cell["source"]), 4)
    path.write_text(json.dumps(notebook), encoding="utf-8")
    code, out, _ = lab_cli("lab", "check", "4", str(path))
    assert code == 0 and out.splitlines()[-1] == f"{len(checks_for(4))} passed, 0 failed"


def test_a_notebooks_syntax_error_is_named_by_its_cell(lab_cli, here):
    lab_cli("lab", "start", "4", "--notebook")
    path = here / "lab-04-attention.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    number = next(i for i, c in enumerate(notebook["cells"], start=1) if "def causal_mask" in "".join(c["source"]))
    notebook["cells"][number - 1]["source"] = "def causal_mask(T)\n    return None\n"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    code, _, err = lab_cli("lab", "check", "4", str(path))
    assert code == 2 and f"syntax error, cell {number}, line 1:" in err and len(err.splitlines()) == 1


def test_check_reports_a_file_it_cannot_run_in_one_line_with_exit_2(lab_cli, here):
    path = here / "mine.py"
    path.write_text("def causal_mask(T)\n    return 1\n", encoding="utf-8")
    code, out, err = lab_cli("lab", "check", "4", str(path))
    assert code == 2 and out.startswith("Checking ")
    assert err.splitlines() == [f"attention-by-hand: error: {path}: cannot be checked: syntax error, line 1: expected ':'"]


def test_check_of_a_solved_file_passes_every_check(lab_cli, here):
    lab_cli("lab", "start", "2")
    path = here / "lab-02-embeddings-softmax.py"
    path.write_text(_solve(path.read_text(encoding="utf-8"), 2), encoding="utf-8")
    code, out, err = lab_cli("lab", "check", "2")
    assert code == 0 and err == "" and out.splitlines()[-1] == f"{len(checks_for(2))} passed, 0 failed"


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
    ("--memory", "99999999999999999999", ": must be from 1 to 1048576 MB"),
    ("--memory", "1.5", " is not a whole number of MB"),
]


@pytest.mark.parametrize("option, value, message", BAD_OPTIONS, ids=[f"{o} {v}" for o, v, _ in BAD_OPTIONS])
def test_a_bad_option_value_is_one_error_line_and_exit_2(capsys, option, value, message):
    with pytest.raises(SystemExit) as stop:
        lab_parser().parse_args(["lab", "check", "4", option, value, "mine.py"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == f"attention-by-hand lab check: error: argument {option}: {value!r}{message}"


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


def test_the_largest_seed_torch_takes_is_accepted():
    assert lab_parser().parse_args(["lab", "check", "4", "--seed", str(2**64 - 1)]).seed == 2**64 - 1


# --- run --------------------------------------------------------------------------------------


def test_run_returns_the_reference_labs_exit_code(capfd, here):
    code = lab_main("lab", "run", "1")
    assert code == 0 and "SELF-CHECK: PASS" in capfd.readouterr().out  # the script writes to the real stdout


def test_run_passes_arguments_on_to_the_script(capfd, here):
    code = lab_main("lab", "run", "6", "--help")
    assert code == 0 and "--quick" in capfd.readouterr().out


def test_run_of_a_learners_file_stops_at_its_first_unwritten_function(capfd, here):
    lab_main("lab", "start", "4")
    code = lab_main("lab", "run", "4", "lab-04-attention.py")
    err = capfd.readouterr().err
    assert code == 1 and err.startswith("NOT WRITTEN YET: causal_mask(): ")


def test_run_refuses_a_notebook_and_says_how_to_check_it(lab_cli, here):
    (here / "mine.ipynb").write_text("{}", encoding="utf-8")
    code, _, err = lab_cli("lab", "run", "4", "mine.ipynb")
    assert code == 2 and "a notebook runs in Jupyter" in err and "lab check 4 mine.ipynb" in err


@pytest.mark.parametrize("number", ["0", "99", "four"])
def test_a_lab_number_that_does_not_exist_is_one_line_and_exit_2(lab_cli, here, number):
    code, _, err = lab_cli("lab", "run", number)
    assert code == 2 and err == (
        f"attention-by-hand: error: no lab {number!r}: the labs are numbered {numbers()} "
        "(see: attention-by-hand lab list)\n"
    )


# --- notebook ---------------------------------------------------------------------------------


def test_notebook_writes_the_solved_lab_into_the_current_folder(lab_cli, here):
    code, out, _ = lab_cli("lab", "notebook", "4")
    assert code == 0 and out.startswith("wrote lab-04-attention-solved.ipynb")
    nbformat.validate(nbformat.read(here / "lab-04-attention-solved.ipynb", as_version=4))
    assert [p.name for p in here.iterdir()] == ["lab-04-attention-solved.ipynb"]


def test_notebook_refuses_to_overwrite_without_force(lab_cli, here):
    target = here / "mine.ipynb"
    target.write_text("my work", encoding="utf-8")
    code, _, err = lab_cli("lab", "notebook", "1", "--out", str(target))
    assert code == 2 and "already exists; --force replaces it" in err and target.read_text() == "my work"


def test_notebook_refuses_a_name_that_is_not_ipynb(lab_cli, here):
    code, _, err = lab_cli("lab", "notebook", "1", "--out", "lab.py")
    assert code == 2 and "must end in .ipynb" in err and not (here / "lab.py").exists()


# --- help -------------------------------------------------------------------------------------


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit):
        lab_parser().parse_args([*argv, "--help"])
    return capsys.readouterr().out


def test_lab_help_walks_from_list_to_a_passing_check(capsys):
    out = _help(capsys, "lab")
    steps = ["lab list", "lab run 4", "lab start 4", "lab run 4 lab-04-attention.py", "lab check 4"]
    positions = [out.index(step) for step in steps]
    assert positions == sorted(positions) and "cp " not in out


def test_lab_without_a_subcommand_prints_its_help_and_exits_2(lab_cli):
    code, out, _ = lab_cli("lab")
    assert code == 2 and "lab start 4" in out


def test_check_help_explains_the_exit_codes_and_limits(capsys):
    out = " ".join(_help(capsys, "lab", "check").split())  # argparse wraps lines
    assert "Exit 0 all passed, 1 some failed, 2 FILE cannot be run" in out and "--timeout" in out and "--memory" in out
