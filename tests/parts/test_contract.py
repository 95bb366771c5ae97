"""What every run part promises, checked for each part in the registry.

A part writes its log, its index and the figures its log names under the output folder; the
same bytes on every run; the log equal to the committed capture and to the canonical copy its
package ships (line 3, the versions, aside); an index that is strict JSON, whose spans cover
real lines and whose values are the texts the log printed. Adding a part adds it here.

Each part is run three times: the session's run (tests/conftest.py), which most tests read; a
second run that also writes SVGs and computes the canonical part's measurements in this process,
which the vector-format test and the determinism test share (it writes every file of the first
and more, so one run serves both); and a run without figures.
"""

import json
import re

import pytest

from attention_by_hand import parts
from attention_by_hand.run.capture import ENVIRONMENT_LINE, printed_in
from attention_by_hand.run.check import compare
from attention_by_hand.run.part import RunContext
from runhelpers import ROOT, log_lines, outputs, read_index, without_environment

pytestmark = pytest.mark.slow  # every part, run three times: starts first (tests/conftest.py)

NAMES = [part.name for part in parts.PARTS]
SECTION = re.compile(r"^\[([A-Z]\d)\] ")
PLOT = re.compile(r"^  \[plot saved: diagrams/(\S+)\]$")


@pytest.fixture(params=NAMES)
def part(request):
    return parts.get_part(request.param)


@pytest.fixture
def result(part, part_run):
    return part_run(part.name)


@pytest.fixture(scope="module")
def svg_runs(tmp_path_factory):
    """svg_runs(part): that part's second run, with SVGs beside the PNGs and the canonical part's
    measurements computed in this process (the session's run uses the helper process): made once
    per part for this file."""
    made = {}

    def get(part):
        if part.name not in made:
            out = tmp_path_factory.mktemp(f"{part.name}-svg")
            made[part.name] = part.run(RunContext(out=out, formats=("svg",), background=False))
        return made[part.name]

    return get


def named_figures(result) -> set[str]:
    return {m.group(1) for line in log_lines(result) if (m := PLOT.match(line))}


# --- what a run writes ------------------------------------------------------------------------


def test_a_run_writes_its_log_and_index_under_captures(part, result):
    out = result.log_path.parent.parent
    assert result.log_path == out / part.log_path
    assert result.index_path == out / "captures" / f"{part.log_stem}.index.json"


def test_the_figures_on_disk_are_exactly_the_ones_the_log_names(result):
    out = result.log_path.parent.parent
    assert {p.name for p in result.figure_paths} == named_figures(result) == {p.name for p in (out / "diagrams").iterdir()}


def test_the_returned_log_text_is_the_file(result):
    assert result.log_text == result.log_path.read_text(encoding="utf-8")


def test_the_header_is_a_rule_a_title_the_versions_a_subtitle_and_a_rule(result):
    lines = log_lines(result)
    assert lines[0] == lines[4] == "=" * 72
    assert lines[1].startswith("LLM Self-Attention by Hand -- ")
    assert lines[5] == ""


def test_line_3_is_the_environment_the_part_names_now(part, result):
    assert log_lines(result)[ENVIRONMENT_LINE - 1] == part.environment()


def test_figures_are_png_files_without_a_timestamp_or_software_stamp(result):
    for path in result.figure_paths:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", path
        assert b"tIME" not in data and b"Software" not in data, path


def test_no_log_line_ends_in_a_space(result):
    assert [n for n, line in enumerate(log_lines(result), 1) if line != line.rstrip()] == []


def test_vector_formats_are_written_beside_the_pngs(part, svg_runs):
    written = svg_runs(part)
    pngs = {p.name for p in written.figure_paths if p.suffix == ".png"}
    assert {p.name for p in written.figure_paths if p.suffix == ".svg"} == {name.replace(".png", ".svg") for name in pngs}


def test_a_run_without_figures_writes_the_same_log_and_index_and_no_figure(part, result, tmp_path):
    bare = part.run(RunContext(out=tmp_path, figures=False))
    assert bare.figure_paths == [] and not (tmp_path / "diagrams").exists()
    assert bare.log_text == result.log_text
    assert bare.index_path.read_bytes() == result.index_path.read_bytes()


# --- determinism and the committed outputs ------------------------------------------------------


def test_two_runs_write_the_same_bytes(part, result, svg_runs):
    # The second run wrote SVGs as well: every file of the first run, the same bytes, and besides
    # them only SVGs, which its stamp lists too (the stamp hashes every output).
    one, two = outputs(result), outputs(svg_runs(part))
    assert {part.log_path, f"captures/{part.log_stem}.index.json", part.stamp_path} <= set(one)
    assert one.keys() <= two.keys()
    assert {name for name in two.keys() - one.keys() if not name.endswith(".svg")} == set()
    stamp = json.loads(two.pop(part.stamp_path))
    stamp["outputs"] = {name: digest for name, digest in stamp["outputs"].items() if not name.endswith(".svg")}
    assert stamp == json.loads(one[part.stamp_path])
    for name in one.keys() - {part.stamp_path}:
        assert one[name] == two[name], name


def test_a_fresh_run_equals_the_committed_log_but_for_line_3(part, result):
    committed = (ROOT / part.log_path).read_text(encoding="utf-8")
    assert without_environment(result.log_text) == without_environment(committed)


def test_a_fresh_run_passes_check_against_the_canonical_copy_the_package_ships(part, result):
    assert compare(result.log_text, part.canonical_log()).equal


def test_the_index_is_the_committed_bytes(part, result):
    # An index holds no versions, so it is the same on every machine.
    assert result.index_path.read_bytes() == (ROOT / "captures" / f"{part.log_stem}.index.json").read_bytes()


def test_the_figures_are_the_committed_bytes_under_the_committed_versions(part, result):
    committed = (ROOT / part.log_path).read_text(encoding="utf-8").split("\n")[ENVIRONMENT_LINE - 1]
    ours = log_lines(result)[ENVIRONMENT_LINE - 1]
    if ours != committed:
        pytest.skip(f"PNG bytes depend on the versions; these are {ours!r}, the committed ones {committed!r}")
    for path in result.figure_paths:
        assert path.read_bytes() == (ROOT / "diagrams" / path.name).read_bytes(), path.name


# --- the index ----------------------------------------------------------------------------------


def test_the_index_is_strict_json(result):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    json.loads(result.index_path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_the_index_names_its_log_and_counts_its_lines(part, result):
    index = read_index(result)
    assert index["log"] == part.log_name
    assert index["line_count"] == len(log_lines(result))


def test_every_section_has_a_span_from_its_heading_to_the_line_before_a_blank(result):
    lines, index = log_lines(result), read_index(result)
    headings = [m.group(1) for line in lines if (m := SECTION.match(line))]
    assert headings
    for heading in headings:
        first, last = index["spans"][heading.lower()]
        assert lines[first - 1].startswith(f"[{heading}] ")
        assert lines[last] == ""


def test_every_span_covers_lines_that_exist(result):
    n = len(log_lines(result))
    for name, (first, last) in read_index(result)["spans"].items():
        assert 1 <= first <= last <= n, name


def test_every_figure_has_a_one_line_span_on_its_plot_line(result):
    lines, index = log_lines(result), read_index(result)
    for name in named_figures(result):
        first, last = index["spans"][f"figure.{name.removesuffix('.png')}"]
        assert first == last
        assert lines[first - 1] == f"  [plot saved: diagrams/{name}]"


def test_every_printed_value_appears_in_its_log(result):
    index, log = read_index(result), result.log_text
    printed = [name for name, v in index["values"].items() if not v.get("derived")]
    assert printed
    for name in printed:
        assert index["values"][name]["text"] in log, name


def test_every_printed_value_names_the_line_that_prints_it(result):
    index, lines = read_index(result), log_lines(result)
    printed = {name: v for name, v in index["values"].items() if not v.get("derived")}
    assert printed
    for name, v in printed.items():
        assert printed_in(v["text"], lines[v["line"] - 1]), (name, v)
