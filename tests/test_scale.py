"""The scale part of the run: its log, index and figures, their determinism, and their numbers.

Two runs into two folders are made once per session (a few seconds each) and shared by the tests.
The numbers are checked against formulas written out here, not against the run's own helpers.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from attention_by_hand.run.capture import ENVIRONMENT_LINE
from attention_by_hand.run.figures import FigureJob
from attention_by_hand.scale import environment_now, run
from attention_by_hand.scale_figures import render

ROOT = Path(__file__).resolve().parents[1]
FIGURES = {"memory_wall.png", "tiled_blocks.png"}
SECTIONS = ("l1", "l2", "l3", "l4", "l5")
KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40


@pytest.fixture(scope="session")
def first(tmp_path_factory):
    return run(tmp_path_factory.mktemp("scale-1"))


@pytest.fixture(scope="session")
def second(tmp_path_factory):
    return run(str(tmp_path_factory.mktemp("scale-2")))


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
    assert first.log_path == out / "captures" / "scale.log"
    assert first.index_path == out / "captures" / "scale.index.json"
    assert {p.name for p in first.figure_paths} == FIGURES
    assert {p.name for p in (out / "diagrams").iterdir()} == FIGURES


def test_the_returned_log_text_is_the_file(first):
    assert first.log_text == first.log_path.read_text(encoding="utf-8")


def test_the_header_is_a_rule_a_title_the_versions_a_description_and_a_rule(lines):
    assert lines[0] == lines[4] == "=" * 72
    assert lines[1] == "LLM Self-Attention by Hand -- scale log"
    assert lines[3].startswith("Module 5: ")
    assert lines[5] == ""


def test_line_3_names_the_versions_actually_used(lines):
    import platform

    import matplotlib
    import torch

    assert lines[ENVIRONMENT_LINE - 1] == (
        f"torch {torch.__version__} | numpy {np.__version__} | matplotlib {matplotlib.__version__} | "
        f"python {platform.python_version()} | seed 0"
    )


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


def test_the_log_has_no_times(lines):
    # Times belong to the benchmarks: no "s" or "ms" after a number anywhere in the log.
    assert [line for line in lines if re.search(r"\d\s*(ms|s|seconds?)\b", line)] == []


def test_a_figure_renders_as_svg_beside_the_png(tmp_path):
    job = FigureJob("tiled_blocks", "tiled_blocks", dict(
        keys=["the", "river"], m=[0.0, 1.0], l=[1.0, 1.5], rescale=[0.0, 0.4], word="bank",
        grid=[["diagonal", "skipped"], ["full", "diagonal"]], n_words=8, block=4,
    ))  # fmt: skip
    written = render(job, tmp_path, ("png", "svg"))
    assert [p.name for p in written] == ["tiled_blocks.png", "tiled_blocks.svg"]


# --- determinism --------------------------------------------------------------------------------


def outputs(result) -> dict[str, bytes]:
    out = result.log_path.parent.parent
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_two_runs_write_the_same_bytes_for_the_log_the_index_and_the_figures(first, second):
    one, two = outputs(first), outputs(second)
    assert set(one) == {"captures/scale.log", "captures/scale.index.json", "captures/.scale.run-inputs"} | {
        f"diagrams/{f}" for f in FIGURES
    }
    assert one.keys() == two.keys()
    for name in one:
        assert one[name] == two[name], name


def test_fresh_run_matches_the_committed_capture_except_line_3(first):
    committed = (ROOT / "captures" / "scale.log").read_text(encoding="utf-8")
    assert without_environment(first.log_text) == without_environment(committed)


def test_the_packaged_canonical_copy_is_the_committed_capture():
    packaged = ROOT / "src" / "attention_by_hand" / "canonical" / "scale.log"
    assert packaged.read_bytes() == (ROOT / "captures" / "scale.log").read_bytes()


def test_the_index_is_the_committed_bytes(first):
    # The index holds no versions and only printed numbers, sizes and verdicts: the same on any machine.
    assert first.index_path.read_bytes() == (ROOT / "captures" / "scale.index.json").read_bytes()


# --- the index ----------------------------------------------------------------------------------


def test_the_index_is_strict_json(first):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    json.loads(first.index_path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_the_index_names_its_log_and_counts_its_lines(index, lines):
    assert index["log"] == "scale.log"
    assert index["line_count"] == len(lines)


@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_has_a_span_from_its_heading_to_the_line_before_a_blank(section, index, lines):
    first, last = index["spans"][section]
    assert lines[first - 1].startswith(f"[{section.upper()}] ")
    assert lines[last] == ""


def test_the_sections_come_in_order_and_nothing_else_is_a_heading(lines):
    assert [line[:4] for line in lines if line.startswith("[")] == [f"[{s.upper()}]" for s in SECTIONS]


def test_every_span_covers_lines_that_exist(index, lines):
    for name, (first, last) in index["spans"].items():
        assert 1 <= first <= last <= len(lines), name


def test_every_value_appears_in_its_log(index, lines):
    log = "\n".join(lines)
    assert len(index["values"]) > 100
    for name, v in index["values"].items():
        assert v["text"] in log, name


def test_figure_spans_point_at_their_plot_lines(index, lines):
    for name in FIGURES:
        assert span_lines(lines, index, f"figure.{name.removesuffix('.png')}") == [f"  [plot saved: diagrams/{name}]"]


# --- the verdicts -------------------------------------------------------------------------------


def test_every_verdict_in_the_log_is_true(lines):
    verdicts = [v for line in lines for v in re.findall(r"-> (\w+)", line)]
    assert len(verdicts) >= 15  # L2 2, L3 2 + 8, L4 3
    assert set(verdicts) == {"True"}


def test_every_difference_is_printed_as_a_bound_never_as_its_noise(lines):
    # A raw tiny difference (3.4e-16) changes with the CPU; the log says "< 1e-10 -> True" instead.
    noise = [line for line in lines if re.search(r"\d\.\d+e-\d+", line)]
    assert noise == []


@pytest.mark.parametrize("case", ["full", "causal"])
@pytest.mark.parametrize("against", ["numpy", "torch"])
@pytest.mark.parametrize("what", ["output", "lse"])
def test_the_random_head_agrees_with_numpy_and_torch(index, case, against, what):
    assert value(index, f"l3.random.{case}.{against}.{what}") is True


# --- the numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1024, 8192, 32768, 131072])
@pytest.mark.parametrize("dtype, size", [("fp32", 4), ("fp16", 2)])
def test_l1_table_is_n_times_n_times_bytes_for_a_head_a_layer_and_gpt2_small(index, n, dtype, size):
    head = n * n * size
    assert value(index, f"l1.head.{n}.{dtype}") == head
    assert value(index, f"l1.layer.{n}.{dtype}") == 12 * head
    assert value(index, f"l1.model.{n}.{dtype}") == 144 * head


@pytest.mark.parametrize(
    "name, printed",
    [("l1.head.1024.fp32", "4.0 MiB"), ("l1.model.1024.fp32", "576.0 MiB"), ("l1.layer.8192.fp16", "1.5 GiB"), ("l1.model.131072.fp32", "9.0 TiB")],
)
def test_l1_sizes_print_in_binary_units(index, name, printed):
    assert text(index, name) == printed


def test_l1_tiled_head_grows_by_two_numbers_per_word(index):
    assert value(index, "l1.tiled.1024.fp32") == (128 * 128 + 2 * 1024) * 4
    assert value(index, "l1.tiled.131072.fp16") == (128 * 128 + 2 * 131072) * 2


def test_l1_says_where_the_traced_peak_memory_is(index, lines):
    assert "measured in the benchmarks" in " ".join(span_lines(lines, index, "l1.peak"))


def test_l2_scores_and_weights_are_s2s_to_the_last_printed_digit(index):
    canonical = json.loads((ROOT / "captures" / "results.index.json").read_text(encoding="utf-8"))
    for i in range(3):
        assert text(index, f"l2.scores.{i}") == canonical["values"][f"s2.scores.{i}"]["text"]
        assert text(index, f"l2.weights.{i}") == canonical["values"][f"s2.weights.{i}"]["text"]
    assert value(index, "l2.equal") is True


def test_l2_running_sum_is_the_sum_of_shifted_exponentials(index):
    scores = [value(index, f"l2.scores.{i}") for i in range(3)]
    for i in range(3):
        m = max(scores[: i + 1])
        assert value(index, f"l2.l.{i}") == pytest.approx(sum(np.exp(s - m) for s in scores[: i + 1]), abs=6e-4)


def test_l3_final_rows_are_s4s_bank_output(index):
    canonical = json.loads((ROOT / "captures" / "results.index.json").read_text(encoding="utf-8"))
    bank = [canonical["values"][f"s4.output.{axis}"]["text"] for axis in ("water", "money", "place", "filler")]
    for block, last_keys in ((1, 2), (2, 1)):  # bank is row 2; its last key block
        assert [text(index, f"l3.block{block}.2.{last_keys}.partial.{i}") for i in range(4)] == bank
    assert value(index, "l3.block1.equal") is True and value(index, "l3.block2.equal") is True


def test_l3_causal_grid_counts(index):
    assert (value(index, "l3.random.skipped"), value(index, "l3.random.diagonal"), value(index, "l3.random.full")) == (28, 8, 28)


def test_l4_cache_decoding_equals_recomputing_at_every_word(index):
    assert [value(index, f"l4.equal.{t}") for t in range(3)] == [True, True, True]


def test_l4_multiply_adds_follow_the_named_formulas_for_gpt2_small(index):
    n, d_model, d_k, heads, layers = 1024, 768, 64, 12, 12
    new_word = 3 * d_model * d_k + n * d_k + n * d_k  # q, k, v; n scores; blend of n values
    assert value(index, "l4.cost.cached") == heads * layers * new_word
    assert value(index, "l4.cost.uncached") == heads * layers * (3 * n * d_model * d_k + n * n * d_k + n * n * d_k)
    assert value(index, "l4.cost.ratio") == n


@pytest.mark.parametrize(
    "name, layers, kv_heads, d_k",
    [
        ("gpt2.multi_head", 12, 12, 64),
        ("gpt2.grouped_query", 12, 4, 64),
        ("gpt2.multi_query", 12, 1, 64),
        ("llama.multi_head", 32, 32, 128),
        ("llama.grouped_query", 32, 8, 128),
        ("llama.multi_query", 32, 1, 128),
    ],
)
def test_l5_cache_is_keys_and_values_for_every_layer_kv_head_and_word(index, name, layers, kv_heads, d_k):
    assert value(index, f"l5.{name}.cache") == 2 * layers * kv_heads * d_k * 8192 * 2


def test_l5_marks_the_variants_a_model_is_not_built_with(index, lines):
    table = span_lines(lines, index, "l5.gpt2") + span_lines(lines, index, "l5.llama")
    assert sum("(hypothetical)" in line for line in table) == 4
    assert sum("(as built)" in line for line in table) == 2
