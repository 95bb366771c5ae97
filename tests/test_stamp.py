"""The run's stamp: a fresh run is current, and every way it goes stale is named.

One canonical run is made per module (about 1.5 s); each test works on its own copy.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attention_by_hand.run import stamp
from attention_by_hand.experiment import run
from attention_by_hand.site.website import canonical_inputs, why_stale
from attention_by_hand.run.world import RIVER_BANK, parse_world

ROOT = Path(__file__).resolve().parents[1]
WORKSHOP = ROOT / "workshop"


@pytest.fixture(scope="module")
def fresh_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fresh")
    run(RIVER_BANK, out)
    return out


@pytest.fixture
def outputs(fresh_run, tmp_path) -> Path:
    """A copy of the fresh run's outputs, stamp included, for one test to change."""
    copy = tmp_path / "run"
    shutil.copytree(fresh_run, copy)
    return copy


def stamped(outputs: Path) -> dict:
    return json.loads((outputs / stamp.STAMP_PATH).read_text(encoding="utf-8"))


def test_a_fresh_run_is_current(outputs):
    assert why_stale(outputs) == []


def test_outputs_without_a_stamp_say_there_is_no_stamp_yet(tmp_path):
    (tmp_path / "captures").mkdir()
    shutil.copy(ROOT / "captures" / "results.log", tmp_path / "captures" / "results.log")
    assert why_stale(tmp_path) == ["no stamp yet: the run writes captures/.run-inputs"]


def test_a_hand_edited_log_is_named(outputs):
    log = outputs / "captures" / "results.log"
    log.write_text(log.read_text(encoding="utf-8").replace("= 0.540", "= 0.999"), encoding="utf-8")
    assert why_stale(outputs) == ["captures/results.log changed since the run wrote it"]


def test_a_missing_figure_is_named(outputs):
    (outputs / "diagrams" / "causal_mask.png").unlink()
    assert why_stale(outputs) == ["diagrams/causal_mask.png is missing"]


def test_a_change_to_the_runs_code_names_the_module(outputs):
    now = canonical_inputs()
    now["code"]["experiment.py"] = "0" * 64  # as if experiment.py had been edited since the run
    assert stamp.why_stale(outputs, now) == ["the run's code changed (experiment.py)"]


def test_other_versions_name_the_package_and_both_versions(outputs):
    now = canonical_inputs()
    before = stamped(outputs)["environment"]
    torch_part = before.split(" | ")[0]
    now["environment"] = before.replace(torch_part, "torch 99.0")
    assert stamp.why_stale(outputs, now) == [f"the versions changed ({torch_part} -> torch 99.0)"]


def test_outputs_of_another_world_are_stale_for_the_canonical_one(outputs):
    other = parse_world((ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8").replace("bank = [0.3", "bank = [0.4"))
    now = stamp.made_from(other, canonical_inputs()["environment"])
    assert stamp.why_stale(outputs, now) == ["the outputs were made from another world"]


def test_a_stamp_that_is_not_json_is_named_as_such(outputs):
    (outputs / stamp.STAMP_PATH).write_text("something else\n", encoding="utf-8")
    assert why_stale(outputs) == ["the stamp captures/.run-inputs is not the JSON the run writes"]


def test_a_stamp_of_the_earlier_format_is_from_another_version(outputs):
    # Format 1 held one hash of everything: {"inputs": "<sha256>", "outputs": {...}}.
    (outputs / stamp.STAMP_PATH).write_text(json.dumps({"inputs": "0" * 64, "outputs": {}}), encoding="utf-8")
    assert why_stale(outputs) == ["the stamp captures/.run-inputs was written by another version of the package"]


def test_a_stamp_with_a_field_of_the_wrong_type_is_damaged(outputs):
    broken = stamped(outputs)
    broken["code"] = ["experiment.py"]
    (outputs / stamp.STAMP_PATH).write_text(json.dumps(broken), encoding="utf-8")
    assert why_stale(outputs) == ["the stamp captures/.run-inputs is damaged"]


def test_build_names_what_was_stale_before_running_again(outputs, monkeypatch, capsys):
    import attention_by_hand.experiment
    import attention_by_hand.site.website
    from attention_by_hand.cli import main

    log = outputs / "captures" / "results.log"
    log.write_text(log.read_text(encoding="utf-8") + "a line typed by hand\n", encoding="utf-8")
    ran = []
    # Neither the run nor Sphinx is under test here: only what build says before it runs.
    monkeypatch.setattr(attention_by_hand.experiment, "run", lambda out: ran.append(Path(out)))
    monkeypatch.setattr(attention_by_hand.site.website, "build_site", lambda source, out, captures: (0, ""))
    monkeypatch.chdir(outputs)
    assert main(["build", "--source", str(WORKSHOP), "--out", "site"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0] == (
        "the canonical part's outputs are stale, running it first: captures/results.log changed since the run wrote it"
    )
    assert ran == [Path(".")]


def test_the_world_is_part_of_what_the_outputs_are_made_from():
    other = parse_world((ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8").replace("bank = [0.3", "bank = [0.4"))
    assert stamp.made_from(RIVER_BANK, "env")["world"] != stamp.made_from(other, "env")["world"]


def test_run_modules_list_every_module_the_run_imports():
    code = (
        "import sys, attention_by_hand.experiment, attention_by_hand.parts.canonical.measurements\n"
        "print(sorted(m.split('.')[1] for m in sys.modules if m.startswith('attention_by_hand.')))"
    )
    imported = set(eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout))
    assert imported <= set(stamp.RUN_MODULES)
