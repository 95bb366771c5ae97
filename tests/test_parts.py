"""The run's parts (parts.py): one registry that `run`, `check`, `build` and the stamp share.

Each part writes its own log, index and figures; `check` finds a log's canonical copy by its
file name; only the canonical part takes another world. Runs here go to temporary folders.
"""

from __future__ import annotations

import pytest

from attention_by_hand import stamp, website
from attention_by_hand.cli import main
from attention_by_hand.errors import UserError
from attention_by_hand.parts import PARTS, get_part, part_of_log

NEW_PARTS = [part for part in PARTS if not part.takes_world]


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Every part run once into one folder, as `run all` does."""
    out = tmp_path_factory.mktemp("all")
    assert main(["run", "all", "--out", str(out), "-q"]) == 0
    return out


def test_every_part_has_its_own_log_and_canonical_copy():
    logs = [part.log_name for part in PARTS]
    assert len(set(logs)) == len(logs) and logs[0] == "results.log"
    for part in PARTS:
        assert part.canonical_log().startswith("=" * 72 + "\n")


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_run_all_writes_every_parts_log_index_and_stamp(ran, part):
    assert (ran / part.log_path).is_file() and (ran / part.log_path.replace(".log", ".index.json")).is_file()
    assert (ran / stamp.stamp_path(part)).is_file()


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_a_fresh_run_of_each_part_is_current_for_build(ran, part, monkeypatch):
    assert website.why_stale(ran, part) == []


@pytest.mark.parametrize("part", NEW_PARTS, ids=lambda p: p.name)
def test_a_hand_edited_log_of_a_new_part_is_stale_and_named(ran, tmp_path, part):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(ran, copy)
    with open(copy / part.log_path, "a", encoding="utf-8") as log:
        log.write("one more line\n")
    assert website.why_stale(copy, part) == [f"{part.log_path} changed since the run wrote it"]


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_check_finds_the_canonical_copy_by_the_logs_file_name(ran, part, capsys):
    assert main(["check", str(ran / part.log_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("OK: ")


def test_check_of_a_part_against_another_parts_copy_differs(ran, capsys):
    assert main(["check", str(ran / "captures" / "positions.log"), "--part", "scale"]) == 1
    assert "[L1]" in capsys.readouterr().out  # each differing line is filed under its section


@pytest.mark.parametrize("part", NEW_PARTS, ids=lambda p: p.name)
def test_a_new_part_refuses_another_world_in_one_line(tmp_path, capsys, part):
    world = tmp_path / "w.toml"
    world.write_text("axes = []\n", encoding="utf-8")
    assert main(["run", part.name, "--world", str(world), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--world goes with the canonical part only" in err
    assert not (tmp_path / "out").exists()


def test_an_unknown_part_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["run", "everything"])
    assert stop.value.code == 2 and "invalid choice: 'everything'" in capsys.readouterr().err


def test_get_part_names_the_parts_there_are():
    with pytest.raises(UserError, match="the parts are canonical, positions, scale"):
        get_part("sizes")


def test_a_log_is_matched_to_its_part_by_file_name_only():
    assert part_of_log("my-run/captures/positions.log") is get_part("positions")
    assert part_of_log("mine.log") is None
