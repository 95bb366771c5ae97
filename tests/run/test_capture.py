"""The log recorder: lines, named spans, named values, and the index it writes."""

import json

import numpy as np
import pytest

from attention_by_hand.run.capture import INDEX_FORMAT, Capture, fixed


def test_span_records_first_and_last_line_numbered_from_one():
    c = Capture()
    c.line("zero")
    with c.span("pair"):
        c.line("one")
        c.line("two")
    assert c.spans["pair"] == (2, 3)


def test_value_returns_the_text_it_files():
    c = Capture()
    text = c.value("s2.dot", 0.54, "{:.3f}")
    assert text == "0.540"
    assert c.values["s2.dot"] == {"text": "0.540", "value": 0.54}


def test_numpy_values_become_plain_json_numbers():
    c = Capture()
    c.value("f", np.float64(0.25))
    c.value("i", np.int64(3))
    assert json.dumps(c.index("x.log")["values"]) == '{"f": {"text": "0.25", "value": 0.25}, "i": {"text": "3", "value": 3}}'


def test_derived_values_are_marked_in_the_index():
    c = Capture()
    c.value("printed", 1.0)
    c.value("worked_out", 2.0, derived=True)
    assert "derived" not in c.values["printed"]
    assert c.values["worked_out"]["derived"] is True


def test_a_printed_value_is_filed_with_the_line_that_prints_it():
    c = Capture()
    c.line("header")
    c.line(f"  bank . river = {c.value('dot', 0.54, '{:.3f}')}")
    assert c.values["dot"]["line"] == 2


def test_a_value_printed_later_in_its_section_gets_that_later_line():
    c = Capture()
    gap = c.value("gap", 1e-17, "{:.2e}")
    c.line("  ours vs theirs:")
    c.line(f"    max |difference| = {gap}")
    assert c.values["gap"]["line"] == 2


def test_a_value_its_section_does_not_print_keeps_no_line():
    c = Capture()
    c.value("unprinted", 0.5, "{:.3f}")
    c.line("  nothing here")
    c.line()  # the section ends
    c.line("  0.500 in the next section is another number")
    assert "line" not in c.values["unprinted"]


def test_a_derived_value_keeps_no_line_even_where_its_text_appears():
    c = Capture()
    c.value("worked_out", 0.5, "{:.3f}", derived=True)
    c.line("  0.500")
    assert "line" not in c.values["worked_out"]


def test_a_value_is_not_placed_on_a_line_that_prints_a_longer_number():
    c = Capture()
    c.value("half", 0.5, "{}")
    c.line("  0.500")
    c.line("  0.5 itself")
    assert c.values["half"]["line"] == 2


def test_a_name_cannot_be_filed_twice():
    c = Capture()
    c.value("v", 1)
    with pytest.raises(ValueError):
        c.value("v", 2)


def test_a_span_that_writes_nothing_is_refused():
    c = Capture()
    with pytest.raises(ValueError):
        with c.span("empty"):
            pass


def test_a_line_with_a_newline_is_refused():
    with pytest.raises(ValueError):
        Capture().line("two\nlines")


def test_replace_rewrites_one_line():
    c = Capture()
    c.line("a")
    c.line("placeholder")
    c.replace(2, "b")
    assert c.log_text() == "a\nb\n"


def test_write_puts_the_index_beside_the_log(tmp_path):
    c = Capture()
    with c.span("only"):
        c.line("hello")
    index_path = c.write(tmp_path / "results.log")
    assert index_path == tmp_path / "results.index.json"
    assert (tmp_path / "results.log").read_text() == "hello\n"
    index = json.loads(index_path.read_text())
    assert index == {"format": INDEX_FORMAT, "log": "results.log", "line_count": 1, "spans": {"only": [1, 1]}, "values": {}}


# --- fixed: the robust number format --------------------------------------------------------


def test_fixed_prints_three_decimals():
    assert fixed(1.62) == "1.620"


def test_fixed_writes_a_tiny_negative_as_plain_zero():
    assert fixed(-1e-17) == "0.000"


@pytest.mark.parametrize("x", [0.0005, -1.2345, 2.0625])
def test_fixed_refuses_a_number_on_a_rounding_boundary(x):
    with pytest.raises(ValueError, match="rounding boundary"):
        fixed(x)
