"""The positions part's own numbers (P1-P4), each against a formula written out here.

What every part promises (its files, determinism, the index's shape) is tests/parts/test_contract.py.
"""

import math

import pytest

from runhelpers import log_lines, read_index, span_lines, text, value

SECTIONS = ("p1", "p2", "p3", "p4")


@pytest.fixture(scope="module")
def result(part_run):
    return part_run("positions")


@pytest.fixture(scope="module")
def lines(result) -> list[str]:
    return log_lines(result)


@pytest.fixture(scope="module")
def index(result) -> dict:
    return read_index(result)


def test_the_header_names_the_positions_log_and_module_4(lines):
    assert lines[1] == "LLM Self-Attention by Hand -- positions log"
    assert lines[3].startswith("Module 4: ")


# --- the index ----------------------------------------------------------------------------------


def test_every_value_is_the_number_its_text_prints(index):
    for name, v in index["values"].items():
        if isinstance(v["value"], float) and not v.get("derived") and not name.endswith(".bound"):
            assert float(v["text"].replace(",", "")) == v["value"], name


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
