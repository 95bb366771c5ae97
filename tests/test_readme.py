"""The README documents the world format with an example; it must stay the canonical world."""

import re
from pathlib import Path

from attention_by_hand.run.world import RIVER_BANK, parse_world

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_world_example_is_the_canonical_world():
    block = re.search(r"```toml\n(.*?)```", README.read_text(), re.S).group(1)
    assert parse_world(block, source="README.md") == RIVER_BANK


def test_readme_quick_start_has_exactly_two_commands():
    section = README.read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.search(r"```sh\n(.*?)```", section, re.S).group(1).strip().splitlines()
    assert [c.split("#")[0].strip() for c in commands] == ["make run", "make test"]
