"""The section log every part writes through: the header, numbers two ways, tables, bounds,
sizes and figures, each against the text it must print and the value it must file."""

from pathlib import Path

import numpy as np
import pytest

from attention_by_hand.run.figures import FigureJob, drawing
from attention_by_hand.run.section_log import RULE, SectionLog, binary_size, bracket, quoted


def new_log(tmp_path: Path, robust: bool = True, formats=("png",)) -> SectionLog:
    return SectionLog(tmp_path, "diagrams", formats, robust=robust)


def test_the_header_is_a_rule_a_title_a_placeholder_for_line_3_a_subtitle_a_rule_and_a_blank(tmp_path):
    log = new_log(tmp_path)
    log.header("some log", "what it is about")
    assert log.capture.lines == [RULE, "LLM Self-Attention by Hand -- some log", "(versions: filled in when the run ends)",
                                 "what it is about", RULE, ""]  # fmt: skip
    assert log.capture.spans["header.environment"] == (3, 3)


def test_a_robust_number_files_the_printed_number(tmp_path):
    log = new_log(tmp_path)
    assert log.number("x", 2 / 3) == "0.667"
    assert log.capture.values["x"]["value"] == 0.667


def test_a_robust_number_refuses_a_rounding_boundary(tmp_path):
    with pytest.raises(ValueError, match="rounding boundary"):
        new_log(tmp_path).number("x", 0.0625, places=3)


def test_a_number_of_the_canonical_log_files_the_exact_number_and_refuses_nothing(tmp_path):
    log = new_log(tmp_path, robust=False)
    assert log.number("x", 2 / 3) == "0.667"
    assert log.capture.values["x"]["value"] == 2 / 3
    assert log.number("y", 0.0625) == f"{0.0625:.3f}"


def test_a_row_files_each_entry_under_its_key(tmp_path):
    log = new_log(tmp_path)
    assert log.row("v", [0.1, 0.25], keys=["a", "b"], places=2) == ["0.10", "0.25"]
    assert set(log.capture.values) == {"v.a", "v.b"}


def test_a_matrix_is_a_title_a_header_of_columns_and_one_labelled_row_each(tmp_path):
    log = new_log(tmp_path)
    log.matrix("m", "a table:", np.array([[1.0, 0.5], [0.25, 0.0]]), ["x", "y"])
    assert log.capture.lines == [
        "  a table:",
        "    " + " " * 7 + f"{'x':>8}{'y':>8}",
        f"    {'x':<7}{'1.000':>8}{'0.500':>8}",
        f"    {'y':<7}{'0.250':>8}{'0.000':>8}",
    ]
    assert log.capture.spans["m"] == (1, 4) and log.capture.values["m.1.0"]["text"] == "0.250"


def test_a_bound_prints_the_bound_and_files_the_verdict_not_the_noise(tmp_path):
    log = new_log(tmp_path)
    assert log.bound("same", 3e-16, 1e-12) == "< 1e-12 -> True"
    assert log.bound("other", 0.5, 1e-12) == "< 1e-12 -> False"
    assert log.capture.values["same"]["value"] is True and log.capture.values["other"]["value"] is False


@pytest.mark.parametrize(
    "n_bytes, text",
    [(512, "512 B"), (1024, "1.0 KiB"), (3 * 2**20, "3.0 MiB"), (9 * 2**40, "9.0 TiB"), (1536 * 2**30, "1.5 TiB")],
)
def test_a_size_prints_in_the_largest_binary_unit_and_files_the_bytes(tmp_path, n_bytes, text):
    log = new_log(tmp_path)
    assert binary_size(n_bytes) == text
    assert log.size("s", n_bytes) == text and log.capture.values["s"]["value"] == n_bytes


def test_quoted_and_bracket_are_the_logs_spellings():
    assert quoted(["the", "river", "bank"]) == '"the river bank"'
    assert bracket(["1", "22"], 3) == "[  1,  22]"


@drawing(1.0, 1.0)
def _dot(fig):
    fig.subplots().plot([0], [0], "o")


def test_a_figure_is_drawn_in_every_format_and_logged_once_as_its_png(tmp_path):
    log = new_log(tmp_path, formats=("svg",))
    log.figure(FigureJob("dot", _dot))
    assert [p.relative_to(tmp_path).as_posix() for p in log.figure_paths] == ["diagrams/dot.png", "diagrams/dot.svg"]
    assert log.capture.lines == ["  [plot saved: diagrams/dot.png]"]
    assert log.capture.spans["figure.dot"] == (1, 1)
