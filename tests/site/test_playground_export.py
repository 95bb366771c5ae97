"""What the site build hands the playground page: the canonical world, its rules and limits,
the colours, the run's numbers, the positions' base and pairing and the positions part's numbers.

The page types none of these; `sphinxext/playground.py` embeds them when the site is built.
These tests check that data without a browser (tests/browser/test_playground.py drives the page).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from attention_by_hand.errors import UserError
from attention_by_hand.site.sphinxext.playground import (
    PAGE_LIMITS,
    POSITION_CASES,
    RUN_CASES,
    SKELETON,
    _json_for_html,
    blues,
    name_rule,
    page_data,
    world_data,
)
from attention_by_hand.site.sphinxext.runlog import RunIndex
from attention_by_hand.run.world import NAME_RULE, RIVER_BANK, World, parse_world

ROOT = Path(__file__).resolve().parents[2]
WORKSHOP = ROOT / "workshop"
PLAYGROUND_JS = WORKSHOP / "_static" / "playground"


def canonical_index() -> RunIndex:
    return RunIndex(ROOT / "captures", "results")


def positions_index() -> RunIndex:
    return RunIndex(ROOT / "captures", "positions")


def printed_numbers(index: RunIndex, first: int, last: int) -> list[str]:
    """Every number with three decimals on lines first..last of the log, in order."""
    return re.findall(r"-?\d+\.\d{3}\b", "\n".join(index.lines[first - 1 : last]))


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


def test_the_positions_numbers_are_printed_on_the_lines_the_page_links():
    index = positions_index()
    cases = page_data(canonical_index(), "playground", index)["run_positions"]
    assert [(c["positions"], c["mode"], c["scale"], c["causal"]) for c in cases] == [
        (c["positions"], c["mode"], c["scale"], c["causal"]) for c in POSITION_CASES
    ]
    for case in cases:
        first, last = case["lines"]
        assert case["href"] == f"log.html#positions-L{first}-L{last}"
        # Every number of the case is printed on its lines, as often as the case holds it.
        wanted = Counter(t for table in case["rows"].values() for row in table.values() for t in row)
        assert wanted - Counter(printed_numbers(index, first, last)) == Counter(), case["words"]


def test_the_positions_cases_are_p1s_sentence_both_ways_and_p3s():
    cases = page_data(canonical_index(), "playground", positions_index())["run_positions"]
    first = list(RIVER_BANK.sentences[0])
    assert [c["words"] for c in cases] == [first, first[::-1], first]
    # The log prints the ambiguous word's output (P1) and weights (P3) only: its row, wherever it stands.
    assert list(cases[0]["rows"]["output"]) == [str(len(first) - 1)]
    assert list(cases[1]["rows"]["output"]) == [str(first[::-1].index(RIVER_BANK.ambiguous))]
    assert list(cases[2]["rows"]["weights"]) == [str(len(first) - 1)]


def test_the_positions_base_and_pairing_reproduce_positions_logs_p1_and_p3():
    import numpy as np

    from attention_by_hand.math import positions as positional

    facts = page_data(canonical_index(), "playground", positions_index())["positions"]
    values = positions_index().values
    sentence = RIVER_BANK.sentences[0]
    n, d_model = len(sentence), len(RIVER_BANK.axes)
    PE = positional.sinusoidal_positions(n, d_model, facts["base"])  # (n_words, d_model)
    assert [[f"{v:.3f}" for v in row] for row in PE] == [[values[f"p1.pe.{i}.{j}"]["text"] for j in range(d_model)] for i in range(n)]
    K = RIVER_BANK.embed(sentence) @ RIVER_BANK.wired_W_K  # (n_words, d_k)
    turned = positional.rope(K, np.arange(n), facts["base"], facts["pairing"])  # (n_words, d_k)
    logged = [[values[f"p3.k.{i}.{c}"]["text"] for c in RIVER_BANK.channels] for i in range(n)]
    assert [[f"{v:.3f}".replace("-0.000", "0.000") for v in row] for row in turned] == logged


def test_the_positions_facts_are_positions_pys_base_and_rope_s_pairings():
    import inspect

    from attention_by_hand.math import positions as positional
    from attention_by_hand.parts.positions import sections as positions

    facts = page_data(canonical_index(), "playground", positions_index())["positions"]
    assert facts == {
        "base": positions.BASE,
        "pairing": inspect.signature(positional.rope).parameters["pairing"].default,
        "pairings": list(positional.PAIRINGS),
    }


def test_without_a_positions_log_there_are_no_positions_numbers_to_claim():
    assert page_data(canonical_index(), "playground", None)["run_positions"] == []


def test_captures_of_another_world_give_no_run_numbers_to_claim(tmp_path):
    captures = tmp_path / "captures"
    captures.mkdir()
    index = json.loads((ROOT / "captures" / "results.index.json").read_text(encoding="utf-8"))
    index["values"]["s1.embedding.bank.water"]["value"] = 0.6
    (captures / "results.index.json").write_text(json.dumps(index), encoding="utf-8")
    (captures / "results.log").write_text((ROOT / "captures" / "results.log").read_text(encoding="utf-8"), encoding="utf-8")
    assert page_data(RunIndex(captures, "results"), "playground")["run"] == []
    # Nor positions numbers: the positions part is the canonical world's, not this one's.
    assert page_data(RunIndex(captures, "results"), "playground", positions_index())["run_positions"] == []


def test_embedded_json_cannot_close_its_script_element():
    text = _json_for_html({"word": "</script><script>alert(1)</script>"})
    assert "</" not in text and "<" not in text
    assert json.loads(text) == {"word": "</script><script>alert(1)</script>"}


# --- the facts the scripts must not retype ------------------------------------------------


def test_the_name_rule_is_the_words_world_py_refuses_a_name_with():
    world = (ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8").replace('"filler"', '"two words"')
    with pytest.raises(UserError) as refused:
        parse_world(world)
    assert f"({name_rule()['rule']})" in str(refused.value)


def test_the_name_patterns_length_bounds_are_world_pys():
    low, high = (int(n) for n in re.search(r"\{(\d+),(\d+)\}\$$", name_rule()["pattern"]).groups())
    assert NAME_RULE.fullmatch("x" * high) and not NAME_RULE.fullmatch("x" * (high + 1))
    assert NAME_RULE.fullmatch("x" * low) and not NAME_RULE.fullmatch("x" * (low - 1))


def test_the_plane_colours_are_the_ones_the_run_gives_its_plane_figure():
    from attention_by_hand.parts.canonical import figures, sections
    from attention_by_hand.run.section_log import SectionLog

    jobs = []
    log = SectionLog(Path("unused"), "diagrams", ("png",), robust=False)
    log.draw = jobs.append  # keep the jobs, draw nothing
    sections.s3_raw_attention(log, RIVER_BANK)
    plane = next(job for job in jobs if job.drawing is figures.embedding_plane)
    colours = page_data(canonical_index(), "playground")["colours"]
    assert [colour for *_, colour in plane.data["points"]] == [*colours["context"], colours["embedding"]]


def test_the_skeleton_states_the_pages_sentence_limit():
    html = SKELETON.format(limits=PAGE_LIMITS, name=name_rule())
    assert f"2 to {PAGE_LIMITS['sentence']} words of the vocabulary" in html
    assert f"Add a word ({name_rule()['rule']};" in html


def test_the_scripts_retype_no_colour_name_rule_or_file_limit():
    for script in sorted(PLAYGROUND_JS.glob("*.js")):
        code = script.read_text(encoding="utf-8")
        assert not re.search(r"#[0-9a-fA-F]{6}\b", code), script.name  # colours come in colours / blues
        assert "1-16" not in code and "{1,16}" not in code, script.name  # the name rule comes in name
        assert "256 * 1024" not in code, script.name  # the file limit comes in max_file_bytes


def test_the_scripts_retype_no_positions_base_or_pairing():
    from attention_by_hand.parts.positions import sections as positions

    base = positions.BASE
    spellings = {f"{base:.0f}", f"{base:g}", f"{base:.0e}", f"{base:,.0f}", "1e4", "1E4"}
    for script in sorted(PLAYGROUND_JS.glob("*.js")):
        code = script.read_text(encoding="utf-8")
        assert not any(spelling in code for spelling in spellings), script.name  # the base comes in positions.base
        # The pairing in use comes in positions.pairing, the list of pairings in positions.pairings:
        # no script names one but positional.js's mirror of rope, which tells "halves" from the other.
        for pairing in ("halves", "interleaved"):
            quoted = len(re.findall(rf"[\"']{pairing}[\"']", code))
            assert quoted == (1 if (script.name, pairing) == ("positional.js", "halves") else 0), (script.name, pairing)


def mini_site(tmp_path: Path, page: str) -> Path:
    """The real conf.py and static files with one page, `page.md`."""
    import shutil

    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(WORKSHOP / "conf.py", source / "conf.py")
    shutil.copytree(WORKSHOP / "_static", source / "_static")
    (source / "index.md").write_text("# Index\n\n```{toctree}\npage\n```\n", encoding="utf-8")
    (source / "page.md").write_text(page, encoding="utf-8")
    return source


def test_a_page_quotes_the_playgrounds_limits_by_name(tmp_path):
    from attention_by_hand.site.website import build_site

    source = mini_site(tmp_path, "# Page\n\nAt most {playground-fact}`words` words.\n")
    code, printed = build_site(source, tmp_path / "out", ROOT / "captures")
    assert code == 0, printed
    assert f"At most {PAGE_LIMITS['words']} words." in (tmp_path / "out" / "page.html").read_text(encoding="utf-8")


def test_an_unknown_playground_fact_fails_the_build_with_page_and_line(tmp_path):
    from attention_by_hand.site.website import build_site

    source = mini_site(tmp_path, "# Page\n\nAt most {playground-fact}`verbs` verbs.\n")
    code, printed = build_site(source, tmp_path / "out", ROOT / "captures")
    assert code != 0
    assert re.search(r"page\.md:3: WARNING: playground fact 'verbs' does not exist", printed), printed


def test_the_bound_on_numbers_the_pages_quote_is_the_one_world_py_refuses_with():
    from attention_by_hand.site.sphinxext.playground import page_facts

    world = (ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8").replace("bank = [0.3", "bank = [1e9")
    with pytest.raises(UserError) as refused:
        parse_world(world)
    assert f"±{page_facts()['max-magnitude']})" in str(refused.value)
