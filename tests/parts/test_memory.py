"""The memory part's own numbers (L1-L5), each against a formula written out here, not the run's helpers.

What every part promises (its files, determinism, the index's shape) is tests/parts/test_contract.py.
"""

import json
import re

import numpy as np
import pytest

from runhelpers import ROOT, log_lines, read_index, span_lines, text, value

SECTIONS = ("l1", "l2", "l3", "l4", "l5")
KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40


@pytest.fixture(scope="module")
def result(part_run):
    return part_run("memory")


@pytest.fixture(scope="module")
def lines(result) -> list[str]:
    return log_lines(result)


@pytest.fixture(scope="module")
def index(result) -> dict:
    return read_index(result)


def test_the_header_names_the_memory_log_and_module_5(lines):
    assert lines[1] == "LLM Self-Attention by Hand -- memory log"
    assert lines[3].startswith("Module 5: ")


def test_the_log_has_no_times(lines):
    # Times belong to the benchmarks: no "s" or "ms" after a number anywhere in the log.
    assert [line for line in lines if re.search(r"\d\s*(ms|s|seconds?)\b", line)] == []


# --- the index ----------------------------------------------------------------------------------


def test_the_sections_come_in_order_and_nothing_else_is_a_heading(lines):
    assert [line[:4] for line in lines if line.startswith("[")] == [f"[{s.upper()}]" for s in SECTIONS]


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


def test_l4_a_head_that_skips_the_masked_half_saves_the_causal_count(index):
    n, d_model, d_k, heads_layers = 1024, 768, 64, 144
    cached = heads_layers * (3 * d_model * d_k + 2 * n * d_k)
    causal = heads_layers * sum(3 * d_model * d_k + 2 * i * d_k for i in range(1, n + 1))  # word i: i scores
    assert text(index, "l4.cost.causal_ratio") == f"{causal / cached:,.0f}"
    assert text(index, "l4.cost.causal_share") == f"{causal / cached / n:.0%}"


def test_l5_many_texts_caches_outgrow_llama_3_8bs_weights(index):
    per_text = 2 * 32 * 8 * 128 * 8192 * 2  # keys and values, 32 layers, 8 kv heads, d_k 128, 8 K words, fp16
    assert value(index, "l5.llama.served_cache") == value(index, "l5.served_texts") * per_text
    assert value(index, "l5.llama.weight_bytes") == 8_030_261_248 * 2  # the model card's count, in fp16
    assert value(index, "l5.llama.served_cache") > value(index, "l5.llama.weight_bytes")
