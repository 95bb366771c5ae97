"""The `attention-by-hand` command, driven in-process through `cli.main(argv)`.

Exit codes: 0 done / logs equal, 1 logs differ, 2 bad input with ONE line on stderr.
None of these tests runs the whole experiment: every `run` here is refused before it starts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attention_by_hand import parts
from attention_by_hand import __version__
from attention_by_hand.run.check import compare
from attention_by_hand.cli import main
from patience import HUNG

CANONICAL = parts.default_part().canonical_log()

# A world that is valid TOML but has no [wired] table.
WORLD_WITHOUT_WIRED = """\
axes = ["water", "money", "place", "filler"]
channels = ["topic", "place"]
sentences = [["the", "river", "bank"], ["the", "money", "bank"]]
[embeddings]
the = [0.0, 0.0, 0.0, 1.0]
river = [0.9, 0.0, 0.3, 0.0]
money = [0.0, 0.9, 0.1, 0.0]
bank = [0.3, 0.3, 0.9, 0.0]
"""


def assert_one_line_error(err: str, *names: str) -> None:
    """stderr is a single `attention-by-hand: error:` line that mentions every one of `names`."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {err!r}"
    assert lines[0].startswith("attention-by-hand: error: ")
    for name in names:
        assert name in lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (hidden ones too), by relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- check --------------------------------------------------------------------------------


def test_check_of_a_copy_of_the_canonical_log_exits_0_and_says_OK(tmp_path, capsys):
    log = tmp_path / "results.log"
    log.write_text(CANONICAL, encoding="utf-8")
    assert main(["check", str(log)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"OK: {log} matches the canonical capture")
    assert err == ""


def test_check_of_a_log_with_one_changed_line_exits_1_and_lists_it(tmp_path, capsys):
    lines = CANONICAL.split("\n")
    number = next(i for i, text in enumerate(lines) if text.startswith("[S2]")) + 2
    original = lines[number - 1]
    lines[number - 1] = "  bank . river = 0.541"
    log = tmp_path / "results.log"
    log.write_text("\n".join(lines), encoding="utf-8")

    assert main(["check", str(log)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"DIFFERENT: 1 line of {log} differs from the canonical capture:"
    assert out[1:] == [
        f"  line {number} [S2]",
        f"    expected: {original!r}",
        "    got:      '  bank . river = 0.541'",
    ]


@pytest.mark.parametrize(
    "content",
    [None, b"", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"],
    ids=["missing", "empty", "binary"],
)
def test_check_of_an_unreadable_log_exits_2_with_one_error_line(tmp_path, capsys, content):
    log = tmp_path / "results.log"
    if content is not None:
        log.write_bytes(content)
    assert main(["check", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert_one_line_error(err, str(log))


def test_check_with_expected_accepts_two_equal_custom_logs(tmp_path, capsys):
    mine, theirs = tmp_path / "mine.log", tmp_path / "theirs.log"
    mine.write_text("header\nrule\nenv A\n[S1] x\n  1.0\n", encoding="utf-8")
    theirs.write_text("header\nrule\nenv B\n[S1] x\n  1.0\n", encoding="utf-8")
    assert main(["check", str(mine), "--expected", str(theirs)]) == 0
    out = capsys.readouterr().out
    assert f"OK: {mine} matches {theirs}" in out


def test_check_with_expected_reports_lines_that_differ_between_custom_logs(tmp_path, capsys):
    mine, theirs = tmp_path / "mine.log", tmp_path / "theirs.log"
    mine.write_text("header\nrule\nenv\n[S1] x\n  1.5\n", encoding="utf-8")
    theirs.write_text("header\nrule\nenv\n[S1] x\n  1.0\n", encoding="utf-8")
    assert main(["check", str(mine), "--expected", str(theirs)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"DIFFERENT: 1 line of {mine} differs from {theirs}:",
        "  line 5 [S1]",
        "    expected: '  1.0'",
        "    got:      '  1.5'",
    ]


def test_check_with_a_missing_expected_log_exits_2_naming_it(tmp_path, capsys):
    mine = tmp_path / "mine.log"
    mine.write_text(CANONICAL, encoding="utf-8")
    missing = tmp_path / "theirs.log"
    assert main(["check", str(mine), "--expected", str(missing)]) == 2
    assert_one_line_error(capsys.readouterr().err, str(missing))


# --- run, refused before it starts ------------------------------------------------------------


def test_run_with_an_invalid_world_exits_2_and_does_not_create_out(tmp_path, capsys):
    world = tmp_path / "bad.toml"
    world.write_text(WORLD_WITHOUT_WIRED, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", "--world", str(world), "--out", str(out)]) == 2
    assert_one_line_error(capsys.readouterr().err, str(world), "wired: missing")
    assert not out.exists()


def test_run_with_an_invalid_world_leaves_an_existing_out_byte_identical(tmp_path, capsys):
    world = tmp_path / "bad.toml"
    world.write_text(WORLD_WITHOUT_WIRED, encoding="utf-8")
    out = tmp_path / "out"
    (out / "captures").mkdir(parents=True)
    (out / "captures" / "results.log").write_bytes(b"an earlier run\n")
    (out / "notes.txt").write_bytes(b"mine\n")
    before = snapshot(out)

    assert main(["run", "--world", str(world), "--out", str(out)]) == 2
    assert_one_line_error(capsys.readouterr().err, "wired: missing")
    assert snapshot(out) == before


def test_run_with_out_naming_an_existing_file_exits_2(tmp_path, capsys):
    out = tmp_path / "results.txt"
    out.write_bytes(b"keep me\n")
    assert main(["run", "--out", str(out), "--quiet"]) == 2
    assert_one_line_error(capsys.readouterr().err, str(out))
    assert out.read_bytes() == b"keep me\n"


def test_run_with_out_inside_an_existing_file_exits_2(tmp_path, capsys):
    # FILE/sub can never become a folder; it must be refused before the run, like FILE itself.
    blocker = tmp_path / "results.txt"
    blocker.write_bytes(b"keep me\n")
    out = blocker / "sub"
    assert main(["run", "--out", str(out), "--quiet"]) == 2
    assert_one_line_error(capsys.readouterr().err, str(out))
    assert blocker.read_bytes() == b"keep me\n"


# --- the parser ----------------------------------------------------------------------------


def test_no_subcommand_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: attention-by-hand")
    assert "run" in out and "check" in out


def test_version_flag_prints_the_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"attention-by-hand {__version__}\n"


# --- the real process ----------------------------------------------------------------------


def test_module_check_of_a_missing_file_exits_2_with_one_line_and_no_traceback(tmp_path):
    missing = tmp_path / "results.log"
    done = subprocess.run(
        [sys.executable, "-m", "attention_by_hand", "check", str(missing)],
        capture_output=True,
        text=True,
        timeout=HUNG,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert_one_line_error(done.stderr, str(missing))


def test_run_into_a_full_stdout_exits_2_with_one_line_and_its_files_complete(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    out = tmp_path / "out"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "attention_by_hand", "run", "--out", str(out)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=HUNG,
        )
    assert done.returncode == 2
    assert_one_line_error(done.stderr, "cannot write to standard output")
    assert compare((out / "captures" / "results.log").read_text(encoding="utf-8"), CANONICAL).equal


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_with_an_impossible_port_exits_2_before_building(tmp_path, capsys, port):
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", port, "--out", str(tmp_path / "site")])
    assert stopped.value.code == 2
    assert "is not a port number" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_ctrl_c_stops_serve_quietly_with_exit_0(run_all, tmp_path):
    import signal

    workshop = Path(__file__).resolve().parents[1] / "workshop"
    # Run from a folder of its own: serve builds there, not in the repo. It holds a copy of the
    # session's current `run all` outputs, so serve only builds the site (running a stale part
    # first is tests/site/test_site.py's test of the build command).
    shutil.copytree(run_all, tmp_path, dirs_exist_ok=True)
    # Ctrl-C as in a terminal: a shell that starts this suite in the background makes its children
    # ignore SIGINT, and Python keeps an ignored SIGINT ignored; so the child restores Python's own.
    as_in_a_terminal = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv[0] = 'attention-by-hand'; runpy.run_module('attention_by_hand', run_name='__main__')"
    )
    done = subprocess.Popen(
        [sys.executable, "-c", as_in_a_terminal, "serve", "--port", "0", "--source", str(workshop)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in done.stdout:  # wait until it says where it serves
        if line.startswith("serving "):
            break
    done.send_signal(signal.SIGINT)
    out, err = done.communicate(timeout=HUNG)
    assert done.returncode == 0
    assert "stopped serving" in out and "Traceback" not in err
