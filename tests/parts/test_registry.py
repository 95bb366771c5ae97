"""The registry of run parts (attention_by_hand.parts): the one list that `run`, `check`, `build`,
the stamp and the site's log page read.

Each part writes its own log, index and figures; `check` finds a log's canonical copy by its file
name; only the parts that take a world take --world. A part registered by a test is found by the
command line, the stamp and the log page with no other file edited. Runs go to temporary folders; the
`run all` folder is shared with other test files and read-only here (a test that edits copies it).
"""

from __future__ import annotations

import shutil

import pytest

from attention_by_hand import parts
from attention_by_hand.cli import main
from attention_by_hand.errors import UserError
from attention_by_hand.run import stamp
from attention_by_hand.run.environment import versions_line
from attention_by_hand.run.part import Part
from attention_by_hand.site import website
from runhelpers import ROOT

PARTS = parts.PARTS
WORLDLESS = [part for part in PARTS if not part.takes_world]


@pytest.fixture
def ran(run_all):
    """Every part run once into one folder by `run all` (tests/conftest.py: made once per session)."""
    return run_all


def test_every_part_has_its_own_log_and_canonical_copy():
    logs = [part.log_name for part in PARTS]
    assert len(set(logs)) == len(logs) and logs[0] == "results.log"
    for part in PARTS:
        assert part.canonical_log().startswith("=" * 72 + "\n")


def test_a_parts_name_is_its_packages_and_its_logs_unless_it_keeps_a_published_name():
    for part in PARTS:
        assert part.home == f"attention_by_hand.parts.{part.name}"
        assert part.log_stem == part.name or part is parts.default_part()


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_run_all_writes_every_parts_log_index_and_stamp(ran, part):
    assert (ran / part.log_path).is_file() and (ran / part.log_path.replace(".log", ".index.json")).is_file()
    assert (ran / part.stamp_path).is_file()


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_a_fresh_run_of_each_part_is_current_for_build(ran, part):
    assert stamp.why_stale(ran, part) == []


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_a_hand_edited_log_is_stale_and_named(ran, tmp_path, part):
    copy = tmp_path / "copy"
    shutil.copytree(ran, copy)
    with open(copy / part.log_path, "a", encoding="utf-8") as log:
        log.write("one more line\n")
    assert stamp.why_stale(copy, part) == [f"{part.log_path} changed since the run wrote it"]


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_check_finds_the_canonical_copy_by_the_logs_file_name(ran, part, capsys):
    assert main(["check", str(ran / part.log_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("OK: ")


def test_check_of_a_part_against_another_parts_copy_differs(ran, capsys):
    assert main(["check", str(ran / "captures" / "positions.log"), "--part", "memory"]) == 1
    assert "[L1]" in capsys.readouterr().out  # each differing line is filed under its section


@pytest.mark.parametrize("part", WORLDLESS, ids=lambda p: p.name)
def test_a_part_without_a_world_refuses_one_in_one_line(tmp_path, capsys, part):
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
    with pytest.raises(UserError, match="the parts are canonical, positions, memory"):
        parts.get_part("sizes")


def test_a_log_is_matched_to_its_part_by_file_name_only():
    assert parts.part_of_log("my-run/captures/positions.log") is parts.get_part("positions")
    assert parts.part_of_log("mine.log") is None


# --- a part registered by a test, and nothing else edited -----------------------------------------


def _write_throwaway(log, context) -> None:
    log.header("throwaway log", "a part that a test registers")
    with log.span("t1"):
        log.line("[T1] the only section")
        log.line(f"  the answer = {log.number('t1.answer', 42.0)}")
    log.line()


THROWAWAY = Part(
    name="throwaway",
    summary="T1: the only section",
    write=_write_throwaway,
    environment=lambda: versions_line(("numpy",)),
    home=__name__,
)


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setattr(parts, "PARTS", (*parts.PARTS, THROWAWAY))
    return THROWAWAY


def test_a_registered_part_is_a_choice_of_run_and_of_check(registered, capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "throwaway (throwaway.log) T1: the only section" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert ",throwaway}" in "".join(capsys.readouterr().out.split())  # the last choice of --part


def test_a_registered_part_runs_and_is_stamped_with_its_own_code(registered, tmp_path):
    assert main(["run", "throwaway", "--out", str(tmp_path), "-q"]) == 0
    assert (tmp_path / "captures" / "throwaway.log").read_text(encoding="utf-8").splitlines()[6] == "[T1] the only section"
    assert (tmp_path / registered.stamp_path).is_file()
    assert stamp.why_stale(tmp_path, registered) == []
    assert "test_registry.py" in registered.code_files()  # the part's own code, beside run/ and math/


def log_page_site(folder):
    """The workshop's own conf.py, static files and log page (log.md), with a stand-in for the one
    page it links to: the log page as the workshop builds it, without the other pages' build."""
    workshop, source = ROOT / "workshop", folder / "source"
    source.mkdir()
    shutil.copy(workshop / "conf.py", source / "conf.py")
    shutil.copytree(workshop / "_static", source / "_static")
    shutil.copy(workshop / "log.md", source / "log.md")
    (source / "reproduce.md").write_text("# Reproduce\n", encoding="utf-8")
    (source / "index.md").write_text("# Index\n\n```{toctree}\nlog\nreproduce\n```\n", encoding="utf-8")
    return source


def test_a_registered_part_gets_its_section_on_the_log_page(registered, tmp_path):
    for folder in ("captures", "diagrams"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    assert main(["run", "throwaway", "--out", str(tmp_path), "-q"]) == 0
    code, printed = website.build_site(website.find_sources(log_page_site(tmp_path)), tmp_path / "site", tmp_path / "captures")
    assert code == 0, printed
    page = (tmp_path / "site" / "log.html").read_text(encoding="utf-8")
    assert '<h2>throwaway.log' in page and "[T1] the only section" in page
