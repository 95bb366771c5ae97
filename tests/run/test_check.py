"""`check`: comparing a results.log with the canonical capture, and reading a log safely."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_by_hand.run.check import (
    ENVIRONMENT_LINE,
    MAX_LOG_BYTES,
    Difference,
    compare,
    read_log,
    report,
)
from attention_by_hand import parts
from attention_by_hand.errors import UserError

SHARED_REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "results.log"

CANONICAL = parts.default_part().canonical_log()
LINES = CANONICAL.split("\n")  # LINES[i] is line i + 1; the text ends in "\n", so LINES[-1] == ""


def with_line(number: int, text: str) -> str:
    """The canonical log with 1-based line `number` replaced by `text`."""
    lines = list(LINES)
    lines[number - 1] = text
    return "\n".join(lines)


def line_after(marker: str) -> int:
    """The 1-based number of the line just after the line starting with `marker`."""
    return next(i for i, text in enumerate(LINES) if text.startswith(marker)) + 2


# --- compare ------------------------------------------------------------------------------


def test_canonical_log_compared_with_itself_is_equal():
    comparison = compare(CANONICAL, CANONICAL)
    assert comparison.equal
    assert comparison.differences == []


def test_environment_line_alone_differing_is_still_equal():
    got = with_line(ENVIRONMENT_LINE, "torch 9.9 | numpy 9.9 | matplotlib 9.9 | python 3.99 | seed 0")
    assert got != CANONICAL
    assert compare(got, CANONICAL).equal


def test_environment_lines_of_both_logs_are_reported():
    other = "torch 9.9 | numpy 9.9 | matplotlib 9.9 | python 3.99 | seed 0"
    comparison = compare(with_line(ENVIRONMENT_LINE, other), CANONICAL)
    assert comparison.expected_environment == LINES[ENVIRONMENT_LINE - 1]
    assert comparison.got_environment == other


def test_changed_line_in_S2_is_reported_with_number_section_expected_and_got():
    number = line_after("[S2]")
    got = with_line(number, "  bank . river = 0.541")
    assert compare(got, CANONICAL).differences == [Difference(number, "[S2]", LINES[number - 1], "  bank . river = 0.541")]


def test_changed_header_line_is_in_section_header():
    got = with_line(2, "some other experiment")
    assert compare(got, CANONICAL).differences == [Difference(2, "header", LINES[1], "some other experiment")]


def test_missing_final_line_is_reported_with_got_none():
    expected_lines = CANONICAL.split("\n")[:-1]  # the lines, without the "" after the final newline
    got = "\n".join(expected_lines[:-1]) + "\n"
    last = len(expected_lines)
    assert compare(got, CANONICAL).differences == [Difference(last, "[S6]", expected_lines[-1], None)]


def test_extra_line_is_reported_with_expected_none():
    got = CANONICAL + "one more line\n"
    last = CANONICAL.count("\n")
    assert compare(got, CANONICAL).differences == [Difference(last + 1, "[S6]", None, "one more line")]


def test_canonical_log_that_lost_its_final_newline_is_different():
    comparison = compare(CANONICAL[:-1], CANONICAL)
    assert not comparison.equal
    assert [d.line for d in comparison.differences] == [CANONICAL.count("\n")]


def test_lost_final_newline_after_a_text_line_is_reported_with_both_endings():
    expected = "a\nb\nenv\nlast\n"
    assert compare("a\nb\nenv\nlast", expected).differences == [Difference(4, "header", "last\n", "last")]


# --- report -------------------------------------------------------------------------------


def test_report_of_equal_logs_says_OK():
    lines = report(compare(CANONICAL, CANONICAL), "mine.log", "the canonical capture")
    assert lines == [f"OK: mine.log matches the canonical capture (every line but line {ENVIRONMENT_LINE}, byte for byte)"]


def test_report_names_the_versions_of_both_logs_where_their_environment_lines_differ():
    # Another run's line 3: the same names, other versions of torch and Python.
    published = dict(pair.split(" ") for pair in LINES[ENVIRONMENT_LINE - 1].split(" | "))
    ours = {**published, "torch": "9.8.7+cpu", "python": "3.99.1"}
    comparison = compare(with_line(ENVIRONMENT_LINE, " | ".join(f"{k} {v}" for k, v in ours.items())), CANONICAL)
    lines = report(comparison, "mine.log", "the canonical capture")
    assert lines[0] == (
        f"info: line {ENVIRONMENT_LINE} (environment) differs, which is allowed: the canonical capture was made "
        f"with torch {published['torch']} and python {published['python']}; mine.log with torch 9.8.7+cpu and python 3.99.1"
    )
    assert lines[1].startswith("OK: ") and len(lines) == 2


def test_the_environment_note_names_each_version_of_the_canonical_log_once():
    ours = "torch 0.1 | numpy 0.1 | matplotlib 0.1 | python 0.1 | seed 0"
    (note,) = report(compare(with_line(ENVIRONMENT_LINE, ours), CANONICAL), "mine.log", "ref.log")[:1]
    for pair in LINES[ENVIRONMENT_LINE - 1].split(" | ")[:-1]:  # all but the seed, which is the same
        assert note.count(pair) == 1
    assert "seed" not in note


def test_an_environment_line_that_is_no_list_of_versions_is_quoted_as_it_is():
    comparison = compare(with_line(ENVIRONMENT_LINE, "made on my laptop"), CANONICAL)
    lines = report(comparison, "mine.log", "ref.log")
    assert lines[:3] == [
        f"info: line {ENVIRONMENT_LINE} (environment) differs, which is allowed:",
        f"  expected: {LINES[ENVIRONMENT_LINE - 1]}",
        "  got:      made on my laptop",
    ]


def test_one_differing_line_differs_and_two_differ():
    one = report(compare("a\nb\nenv\nX\n", "a\nb\nenv\nx\n"), "mine.log", "ref.log")[0]
    two = report(compare("a\nb\nenv\nX\nY\n", "a\nb\nenv\nx\ny\n"), "mine.log", "ref.log")[0]
    assert one == "DIFFERENT: 1 line of mine.log differs from ref.log:"
    assert two == "DIFFERENT: 2 lines of mine.log differ from ref.log:"


def test_report_lists_each_difference_with_reprs_and_missing_lines():
    got = "a\nb\nenv\nX \n"
    lines = report(compare(got, "a\nb\nenv\nx\ny\n"), "mine.log", "ref.log")
    assert lines == [
        "DIFFERENT: 2 lines of mine.log differ from ref.log:",
        "  line 4 header",
        "    expected: 'x'",
        "    got:      'X '",
        "  line 5 header",
        "    expected: 'y'",
        "    got:      (no such line)",
    ]


# --- read_log -----------------------------------------------------------------------------


def refused_log(path: Path) -> str:
    with pytest.raises(UserError) as info:
        read_log(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert "\n" not in message
    return message


def test_read_log_returns_the_text_of_a_log(tmp_path):
    path = tmp_path / "results.log"
    path.write_text(CANONICAL, encoding="utf-8")
    assert read_log(path) == CANONICAL


def test_read_log_refuses_a_missing_file(tmp_path):
    assert "no such file" in refused_log(tmp_path / "results.log")


def test_a_missing_log_one_typo_from_a_real_one_names_the_real_one(tmp_path):
    (tmp_path / "captures").mkdir()
    (tmp_path / "captures" / "results.log").write_text(CANONICAL, encoding="utf-8")
    typo, meant = tmp_path / "captures" / "result.log", tmp_path / "captures" / "results.log"
    assert refused_log(typo) == f"{typo}: no such file (did you mean {meant}?)"


def test_a_typo_in_the_folder_of_a_missing_log_is_found_too(tmp_path):
    (tmp_path / "captures").mkdir()
    (tmp_path / "captures" / "results.log").write_text(CANONICAL, encoding="utf-8")
    assert f"(did you mean {tmp_path / 'captures' / 'results.log'}?)" in refused_log(tmp_path / "capture" / "results.log")


def test_a_missing_log_with_no_near_name_suggests_running_first(tmp_path):
    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    message = refused_log(tmp_path / "results.log")
    assert "did you mean" not in message and "run `attention-by-hand run` first" in message


def test_read_log_refuses_an_empty_file(tmp_path):
    path = tmp_path / "results.log"
    path.write_bytes(b"")
    assert "empty" in refused_log(path)


def test_read_log_refuses_a_file_with_NUL_bytes(tmp_path):
    path = tmp_path / "results.log"
    path.write_bytes(b"abc\x00def\n")
    assert "binary" in refused_log(path)


def test_read_log_refuses_invalid_utf8(tmp_path):
    path = tmp_path / "results.log"
    path.write_bytes(b"line one\nline \xff two\n")
    assert "not UTF-8 text (bad byte at offset 14)" in refused_log(path)


def test_read_log_refuses_a_file_over_the_size_limit(tmp_path):
    path = tmp_path / "results.log"
    path.write_bytes(b"x\n" * (MAX_LOG_BYTES // 2 + 1))
    assert "too large" in refused_log(path)


def test_read_log_refuses_a_directory(tmp_path):
    assert "is a folder" in refused_log(tmp_path)


# --- the shipped capture ------------------------------------------------------------------


def test_canonical_log_equals_the_shared_reference_byte_for_byte():
    if not SHARED_REFERENCE.is_file():
        pytest.skip(f"no shared reference log at {SHARED_REFERENCE}")
    assert parts.default_part().canonical_log().encode("utf-8") == SHARED_REFERENCE.read_bytes()
