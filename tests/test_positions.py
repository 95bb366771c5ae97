"""The positions part of the run: its log, index and figures, their determinism, and their numbers.

Two runs into two folders are made once per session and shared by the tests below.
"""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from attention_by_hand.run.capture import ENVIRONMENT_LINE
from attention_by_hand.run.capture import fixed as _fixed
from attention_by_hand.positions import environment_now, run

ROOT = Path(__file__).resolve().parents[1]
FIGURES = {"sinusoidal_positions.png", "rope_rotation.png"}
SECTIONS = ("p1", "p2", "p3", "p4")


@pytest.fixture(scope="session")
def first(tmp_path_factory):
    return run(tmp_path_factory.mktemp("positions-1"))


@pytest.fixture(scope="session")
def second(tmp_path_factory):
    return run(str(tmp_path_factory.mktemp("positions-2")))


@pytest.fixture(scope="session")
def lines(first) -> list[str]:
    return first.log_path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="session")
def index(first) -> dict:
    return json.loads(first.index_path.read_text(encoding="utf-8"))


def value(index: dict, name: str):
    return index["values"][name]["value"]


def text(index: dict, name: str) -> str:
    return index["values"][name]["text"]


def span_lines(lines, index, name) -> list[str]:
    first, last = index["spans"][name]
    return lines[first - 1 : last]


def without_environment(text_: str) -> list[str]:
    rows = text_.split("\n")
    del rows[ENVIRONMENT_LINE - 1]
    return rows


# --- what the run writes ------------------------------------------------------------------------


def test_run_writes_the_log_its_index_and_two_figures_under_the_output_folder(first):
    out = first.log_path.parent.parent
    assert first.log_path == out / "captures" / "positions.log"
    assert first.index_path == out / "captures" / "positions.index.json"
    assert {p.name for p in first.figure_paths} == FIGURES
    assert {p.name for p in (out / "diagrams").iterdir()} == FIGURES


def test_the_returned_log_text_is_the_file(first):
    assert first.log_text == first.log_path.read_text(encoding="utf-8")


def test_the_header_is_a_rule_a_title_the_versions_a_description_and_a_rule(lines):
    assert lines[0] == lines[4] == "=" * 72
    assert lines[1] == "LLM Self-Attention by Hand -- positions log"
    assert lines[3].startswith("Module 4: ")
    assert lines[5] == ""


def test_line_3_names_the_versions_actually_used(lines):
    import platform

    import matplotlib

    assert lines[ENVIRONMENT_LINE - 1] == f"numpy {np.__version__} | matplotlib {matplotlib.__version__} | python {platform.python_version()}"


def test_environment_now_is_the_line_3_a_run_writes(lines):
    assert environment_now() == lines[ENVIRONMENT_LINE - 1]


def test_the_log_names_exactly_the_figures_on_disk(lines):
    named = {m for line in lines for m in re.findall(r"^  \[plot saved: diagrams/(\S+)\]$", line)}
    assert named == FIGURES


def test_figures_are_png_files_without_a_timestamp_or_software_stamp(first):
    for path in first.figure_paths:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", path
        assert b"tIME" not in data and b"Software" not in data, path


def test_no_log_line_ends_in_a_space(lines):
    assert [n for n, line in enumerate(lines, 1) if line != line.rstrip()] == []


def test_vector_formats_are_written_beside_the_pngs(tmp_path):
    result = run(tmp_path, formats=("svg",))
    names = {p.name for p in result.figure_paths}
    assert names == FIGURES | {name.replace(".png", ".svg") for name in FIGURES}


# --- determinism --------------------------------------------------------------------------------


def outputs(result) -> dict[str, bytes]:
    out = result.log_path.parent.parent
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_two_runs_write_the_same_bytes_for_the_log_the_index_and_the_figures(first, second):
    one, two = outputs(first), outputs(second)
    assert set(one) == {"captures/positions.log", "captures/positions.index.json", "captures/.positions.run-inputs"} | {
        f"diagrams/{f}" for f in FIGURES
    }
    assert one.keys() == two.keys()
    for name in one:
        assert one[name] == two[name], name


def test_fresh_run_matches_the_committed_capture_except_line_3(first):
    committed = (ROOT / "captures" / "positions.log").read_text(encoding="utf-8")
    assert without_environment(first.log_text) == without_environment(committed)


def test_the_packaged_canonical_copy_is_the_committed_capture():
    packaged = ROOT / "src" / "attention_by_hand" / "canonical" / "positions.log"
    assert packaged.read_bytes() == (ROOT / "captures" / "positions.log").read_bytes()


def test_the_index_is_the_committed_bytes(first):
    # The index holds no versions and only printed (rounded) numbers, so it matches on any machine.
    assert first.index_path.read_bytes() == (ROOT / "captures" / "positions.index.json").read_bytes()


# --- the index ----------------------------------------------------------------------------------


def test_the_index_is_strict_json(first):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    json.loads(first.index_path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_the_index_names_its_log_and_counts_its_lines(index, lines):
    assert index["log"] == "positions.log"
    assert index["line_count"] == len(lines)


@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_has_a_span_from_its_heading_to_the_line_before_a_blank(section, index, lines):
    first, last = index["spans"][section]
    assert lines[first - 1].startswith(f"[{section.upper()}] ")
    assert lines[last] == ""


def test_every_span_covers_lines_that_exist(index, lines):
    for name, (first, last) in index["spans"].items():
        assert 1 <= first <= last <= len(lines), name


def test_every_printed_value_appears_in_its_log(index, lines):
    log = "\n".join(lines)
    printed = [name for name, v in index["values"].items() if not v.get("derived")]
    assert len(printed) > 100
    for name in printed:
        assert text(index, name) in log, name


def test_every_value_is_the_number_its_text_prints(index):
    for name, v in index["values"].items():
        if isinstance(v["value"], float) and not v.get("derived") and not name.endswith(".bound"):
            assert float(v["text"].replace(",", "")) == v["value"], name


def test_figure_spans_point_at_their_plot_lines(index, lines):
    for name in FIGURES:
        assert span_lines(lines, index, f"figure.{name.removesuffix('.png')}") == [f"  [plot saved: diagrams/{name}]"]


@pytest.mark.parametrize(
    "name",
    [
        "p1.base", "p1.d_model", "p1.pe.2.0", "p1.x_plus_p.2.3", "p1.blind.equal", "p1.placed.max_diff",
        "p2.n_positions", "p2.d_model", "p2.params", "p2.share", "p2.last_row",
        "p3.theta", "p3.q.2.topic", "p3.k.1.place", "p3.scores.2.1", "p3.shift.bound", "p3.shift.equal",
        "p3.swap.max_diff", "p3.pairing.halves.score", "p3.pairing.interleaved.score", "p3.pairing.same.equal",
        "p4.slope", "p4.heads", "p4.slopes.8", "p4.bias.2.0", "p4.weights.2.2", "p4.causal_weights.1",
    ],
)  # fmt: skip
def test_the_values_a_page_quotes_exist(name, index):
    assert name in index["values"]


# --- the numbers --------------------------------------------------------------------------------


def test_p1_without_positions_the_outputs_are_equal_and_with_them_they_differ(index):
    assert value(index, "p1.blind.equal") is True
    assert value(index, "p1.placed.equal") is False
    assert value(index, "p1.placed.max_diff") > 0.1


def test_p1_position_table_is_sin_and_cos_of_the_position(index):
    assert text(index, "p1.pe.2.0") == f"{math.sin(2):.3f}"
    assert text(index, "p1.pe.2.1") == f"{math.cos(2):.3f}"
    assert text(index, "p1.pe.2.2") == f"{math.sin(2 / 100):.3f}"


def test_p2_counts_positions_times_width(index):
    assert value(index, "p2.params") == value(index, "p2.n_positions") * value(index, "p2.d_model") == 786_432
    assert text(index, "p2.params") == "786,432"


def test_p2_shows_the_index_error_of_a_lookup_past_the_end(index, lines):
    (line,) = [line for line in span_lines(lines, index, "p2.limit") if "table[" in line]
    assert "table[1024] -> IndexError (rows 0..1,023 only)" in line


def test_p3_relative_property_line_says_true(index, lines):
    (line,) = span_lines(lines, index, "p3.shift")
    assert line.endswith("< 1e-12 -> True")
    assert value(index, "p3.shift.equal") is True


def test_p3_bank_to_river_is_the_score_a_turn_of_minus_one_radian_gives(index):
    # q_bank = [1.8, 0] at position 2, k_river = [0.9, 0.3] at position 1: q . R(-1) k.
    assert text(index, "p3.scores.2.1") == f"{1.8 * (0.9 * math.cos(1) + 0.3 * math.sin(1)):.3f}"


def test_p3_swapping_two_words_changes_the_scores(index):
    assert value(index, "p3.swap.max_diff") > 0.1


def test_p3_the_pairings_differ_yet_are_the_same_rotation_reordered(index):
    assert text(index, "p3.pairing.halves.score") != text(index, "p3.pairing.interleaved.score")
    assert value(index, "p3.pairing.same.equal") is True


def test_p4_bias_is_minus_the_slope_per_step_back(index):
    slope = value(index, "p4.slope")
    for i in range(3):
        for j in range(i + 1):
            assert value(index, f"p4.bias.{i}.{j}") == -slope * (i - j)


def test_p4_weights_rows_sum_to_one_and_hide_the_future(index):
    for i in range(3):
        row = [value(index, f"p4.weights.{i}.{j}") for j in range(3)]
        assert sum(row) == pytest.approx(1.0, abs=0.002)  # three numbers rounded to 3 decimals
        assert all(w == 0.0 for w in row[i + 1 :])


def test_p4_slopes_are_two_to_the_minus_8k_over_h(index):
    h = value(index, "p4.heads")
    assert [value(index, f"p4.slopes.{k}") for k in range(1, h + 1)] == [2 ** (-8 * k / h) for k in range(1, h + 1)]


# --- printing robustly --------------------------------------------------------------------------


def test_fixed_prints_three_decimals():
    assert _fixed(1.62) == "1.620"


def test_fixed_writes_a_tiny_negative_as_plain_zero():
    assert _fixed(-1e-17) == "0.000"


@pytest.mark.parametrize("x", [0.0005, -1.2345, 2.0625])
def test_fixed_refuses_a_number_on_a_rounding_boundary(x):
    with pytest.raises(ValueError, match="rounding boundary"):
        _fixed(x)
