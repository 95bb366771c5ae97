"""The run's stamp: a fresh run is current, and every way it goes stale is named.

One canonical run is made per session (tests/conftest.py); each test works on its own copy. The canonical part is
the example; the stamp is the same code for every part (tests/parts/test_registry.py).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from attention_by_hand import parts
from attention_by_hand.run import stamp
from attention_by_hand.run.part import Part
from attention_by_hand.run.world import RIVER_BANK, parse_world

ROOT = Path(__file__).resolve().parents[2]
WORKSHOP = ROOT / "workshop"
CANONICAL = parts.default_part()
STAMP = CANONICAL.stamp_path


def why_stale(outputs: Path, part=CANONICAL) -> list[str]:
    return stamp.why_stale(outputs, part)


@pytest.fixture
def fresh_run(part_run) -> Path:
    """The outputs of a fresh canonical run (tests/conftest.py: made once per session, read-only)."""
    return part_run(CANONICAL.name).log_path.parent.parent


@pytest.fixture
def outputs(fresh_run, tmp_path) -> Path:
    """A copy of the fresh run's outputs, stamp included, for one test to change."""
    copy = tmp_path / "run"
    shutil.copytree(fresh_run, copy)
    return copy


def stamped(outputs: Path) -> dict:
    return json.loads((outputs / STAMP).read_text(encoding="utf-8"))


def test_a_fresh_run_is_current(outputs):
    assert why_stale(outputs) == []


def test_outputs_without_a_stamp_say_there_is_no_stamp_yet(tmp_path):
    (tmp_path / "captures").mkdir()
    shutil.copy(ROOT / "captures" / "results.log", tmp_path / "captures" / "results.log")
    assert why_stale(tmp_path) == ["no stamp yet: the run writes captures/.results.run-inputs"]


def test_a_hand_edited_log_is_named(outputs):
    log = outputs / "captures" / "results.log"
    log.write_text(log.read_text(encoding="utf-8").replace("= 0.540", "= 0.999"), encoding="utf-8")
    assert why_stale(outputs) == ["captures/results.log changed since the run wrote it"]


def test_a_missing_figure_is_named(outputs):
    (outputs / "diagrams" / "causal_mask.png").unlink()
    assert why_stale(outputs) == ["diagrams/causal_mask.png is missing"]


def rewrite_stamp(outputs: Path, **fields) -> None:
    (outputs / STAMP).write_text(json.dumps({**stamped(outputs), **fields}), encoding="utf-8")


def test_a_change_to_the_runs_code_names_the_file(outputs):
    code = stamped(outputs)["code"]
    rewrite_stamp(outputs, code={**code, "parts/canonical/sections.py": "0" * 64})  # as if edited since the run
    assert why_stale(outputs) == ["the run's code changed (parts/canonical/sections.py)"]


def test_a_source_file_added_since_the_run_is_a_change_of_code(outputs):
    code = stamped(outputs)["code"]
    del code["math/mechanism.py"]  # as if the run had been made before the file existed
    rewrite_stamp(outputs, code=code)
    assert why_stale(outputs) == ["the run's code changed (math/mechanism.py)"]


def test_the_stamp_hashes_the_parts_package_and_the_shared_folders_code():
    assert {name.split("/")[0] for name in CANONICAL.code_files()} == {"parts", "run", "math"}
    assert {name for name in CANONICAL.code_files() if name.startswith("parts/")} == {
        f"parts/canonical/{path.name}" for path in (ROOT / "src" / "attention_by_hand" / "parts" / "canonical").glob("*.py")
    }


def test_other_versions_name_the_package_and_both_versions(outputs):
    before = stamped(outputs)["environment"]
    torch_part = before.split(" | ")[0]
    newer = dataclasses.replace(CANONICAL, environment=lambda: before.replace(torch_part, "torch 99.0"))
    assert why_stale(outputs, newer) == [f"the versions changed ({torch_part} -> torch 99.0)"]


def test_outputs_of_another_world_are_stale_for_the_canonical_one(outputs):
    other = parse_world((ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8").replace("bank = [0.3", "bank = [0.4"))
    rewrite_stamp(outputs, world=stamp.made_from(CANONICAL, other)["world"])
    assert why_stale(outputs) == ["the outputs were made from another world"]


def test_a_stamp_that_is_not_json_is_named_as_such(outputs):
    (outputs / STAMP).write_text("something else\n", encoding="utf-8")
    assert why_stale(outputs) == ["the stamp captures/.results.run-inputs is not the JSON the run writes"]


def test_a_stamp_of_the_earlier_format_is_from_another_version(outputs):
    # Format 1 held one hash of everything: {"inputs": "<sha256>", "outputs": {...}}.
    (outputs / STAMP).write_text(json.dumps({"inputs": "0" * 64, "outputs": {}}), encoding="utf-8")
    assert why_stale(outputs) == ["the stamp captures/.results.run-inputs was written by another version of the package"]


def test_a_stamp_with_a_field_of_the_wrong_type_is_damaged(outputs):
    broken = stamped(outputs)
    broken["code"] = ["parts/canonical/sections.py"]
    (outputs / STAMP).write_text(json.dumps(broken), encoding="utf-8")
    assert why_stale(outputs) == ["the stamp captures/.results.run-inputs is damaged"]


def test_build_names_what_was_stale_before_running_again(outputs, monkeypatch, capsys):
    import attention_by_hand.site.website
    from attention_by_hand.cli import main

    log = outputs / "captures" / "results.log"
    log.write_text(log.read_text(encoding="utf-8") + "a line typed by hand\n", encoding="utf-8")
    ran = []
    # Neither the run nor Sphinx is under test here: only what build says before it runs.
    monkeypatch.setattr(parts, "PARTS", (CANONICAL,))
    monkeypatch.setattr(Part, "run", lambda part, context: ran.append((part.name, Path(context.out))))
    monkeypatch.setattr(attention_by_hand.site.website, "build_site", lambda source, out, captures: (0, ""))
    monkeypatch.chdir(outputs)
    assert main(["build", "--source", str(WORKSHOP), "--out", "site"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0] == (
        "the canonical part's outputs are stale, running it first: captures/results.log changed since the run wrote it"
    )
    assert ran == [("canonical", Path("."))]


def test_the_world_is_part_of_what_the_outputs_are_made_from():
    other = parse_world((ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8").replace("bank = [0.3", "bank = [0.4"))
    assert stamp.made_from(CANONICAL, RIVER_BANK)["world"] != stamp.made_from(CANONICAL, other)["world"]
