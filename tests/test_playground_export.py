"""What the site build hands the playground page: the canonical world, the colours, the run's numbers.

The page types none of these; `sphinxext/playground.py` embeds them when the site is built.
These tests check that data without a browser (tests/browser/test_playground.py drives the page).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from attention_by_hand.sphinxext.playground import RUN_CASES, _json_for_html, blues, page_data, world_data
from attention_by_hand.sphinxext.runlog import RunIndex
from attention_by_hand.world import RIVER_BANK, World

ROOT = Path(__file__).resolve().parents[1]


def canonical_index() -> RunIndex:
    return RunIndex(ROOT / "captures")


def test_the_embedded_world_is_the_packages_canonical_world():
    data = world_data(RIVER_BANK)
    rebuilt = World(
        axes=tuple(data["axes"]),
        channels=tuple(data["channels"]),
        sentences=tuple(tuple(s) for s in data["sentences"]),
        embeddings={word: tuple(row) for word, row in data["embeddings"]},
        W_Q=tuple(map(tuple, data["W_Q"])),
        W_K=tuple(map(tuple, data["W_K"])),
    )
    assert rebuilt == RIVER_BANK
    assert [word for word, _ in data["embeddings"]] == RIVER_BANK.words


def test_the_colours_are_matplotlibs_blues_sampled_256_times():
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    colours, _ = blues()
    assert colours == [to_hex(colormaps["Blues"](i / 256)) for i in range(256)]


def test_cell_text_reaches_4_5_to_1_contrast_on_every_colour():
    colours, white_from = blues()

    def luminance(hex_colour):
        def linear(c):
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (linear(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    for i, colour in enumerate(colours):
        text = 1.0 if i >= white_from else 0.0  # white text from white_from on, black below
        light, dark = max(text, luminance(colour)), min(text, luminance(colour))
        assert (light + 0.05) / (dark + 0.05) >= 4.5, colour


def test_the_runs_numbers_are_the_logs_texts_for_each_logged_setting():
    index = canonical_index()
    cases = page_data(index, "playground")["run"]
    assert [(c["mode"], c["scale"], c["causal"], c["sentence"]) for c in cases] == [
        (c["mode"], c["scale"], c["causal"], c["sentence"]) for c in RUN_CASES
    ]
    for case, named in zip(cases, RUN_CASES):
        n = len(RIVER_BANK.sentences[case["sentence"]])
        assert case["weights"] == [[index.values[f"{named['weights']}.{i}.{j}"]["text"] for j in range(n)] for i in range(n)]
        first, last = index.spans[named["weights"]]
        assert case["href"] == f"log.html#L{first}-L{last}"
        # The log's own lines hold those numbers, in that order.
        printed = " ".join(index.lines[first - 1 : last]).split()
        assert [t for t in printed if re.fullmatch(r"-?\d+\.\d{3}", t)] == [t for row in case["weights"] for t in row]


def test_captures_of_another_world_give_no_run_numbers_to_claim(tmp_path):
    captures = tmp_path / "captures"
    captures.mkdir()
    index = json.loads((ROOT / "captures" / "results.index.json").read_text(encoding="utf-8"))
    index["values"]["s1.embedding.bank.water"]["value"] = 0.6
    (captures / "results.index.json").write_text(json.dumps(index), encoding="utf-8")
    (captures / "results.log").write_text((ROOT / "captures" / "results.log").read_text(encoding="utf-8"), encoding="utf-8")
    assert page_data(RunIndex(captures), "playground")["run"] == []


def test_embedded_json_cannot_close_its_script_element():
    text = _json_for_html({"word": "</script><script>alert(1)</script>"})
    assert "</" not in text and "<" not in text
    assert json.loads(text) == {"word": "</script><script>alert(1)</script>"}
