"""The heads part's own claims (H1-H5): a previous-token head and induction heads in the two-layer
model, none in the control, the circuit broken by one ablation, and copying on lengths never trained on.

The claims about the model are checked on the shipped model itself, with math/detectors.py, not
only read back from the log; the log's numbers are then checked against those. What every part
promises (its files, determinism, the index's shape) is tests/parts/test_contract.py; training
the weights again, tests/parts/test_heads_weights.py.
"""

import json
import re

import pytest
import torch

from attention_by_hand.math import detectors as D
from attention_by_hand.math.repeats import PROBE_PERIOD, probe, repeat_rows
from attention_by_hand.parts import heads
from attention_by_hand.parts.heads import weights
from runhelpers import log_lines, read_index, span_lines, text, value

SECTIONS = ("h1", "h2", "h3", "h4", "h5")


@pytest.fixture(scope="module")
def result(part_run):
    return part_run("heads")


@pytest.fixture(scope="module")
def lines(result) -> list[str]:
    return log_lines(result)


@pytest.fixture(scope="module")
def index(result) -> dict:
    return read_index(result)


@pytest.fixture(scope="module")
def probed():
    """Each shipped model (float32, as trained) on the probe: its trace, and the probe's sequences."""
    sequences = probe(32, 32)
    with torch.no_grad():
        return {name: weights.load(name)(sequences[:, :-1]) for name in weights.MODELS}, sequences


def scores_of(trace, detector):
    """{(layer, head): score} for one detector on a trace of the probe."""
    found = {}
    for layer, pattern in enumerate(trace.patterns):
        s = D.induction_score(pattern, PROBE_PERIOD) if detector == "induction" else getattr(D, f"{detector}_score")(pattern)
        found.update({(layer, h): v for h, v in enumerate(s.tolist())})
    return found


# --- the log's shape ----------------------------------------------------------------------------


def test_the_header_names_the_heads_log_and_module_7(lines):
    assert lines[1] == "LLM Self-Attention by Hand -- heads log"
    assert lines[3].startswith("Module 7: ")


def test_the_sections_come_in_order_and_nothing_else_is_a_heading(lines):
    assert [line[:4] for line in lines if line.startswith("[")] == [f"[{s.upper()}]" for s in SECTIONS]


def test_the_log_has_no_times(lines):
    assert [line for line in lines if re.search(r"\d\s*(ms|s|seconds?)\b", line)] == []


def test_every_verdict_in_the_log_is_true(lines):
    verdicts = [v for line in lines for v in re.findall(r"(?:->|:) (True|False)\b", line)]
    assert verdicts and set(verdicts) == {"True"}


def test_the_detectors_are_defined_in_the_log_with_their_threshold(index, lines):
    definitions = "\n".join(span_lines(lines, index, "h2.definitions"))
    for phrase in ("position i - 1", "position i - period + 1", "position 0 (the start token)", "rows i = 1 .. T-1"):
        assert phrase in definitions
    assert value(index, "h2.threshold") == D.THRESHOLD


def test_the_part_stamps_its_weights_with_its_code():
    assert heads.WEIGHT_FILES == tuple(weights.filename(name) for name in weights.MODELS)
    assert {"parts/heads/two_layer.pt", "parts/heads/one_layer.pt"} <= set(heads.PART.code_files())


# --- the model: what its heads do, checked on the shipped weights -------------------------------


@pytest.mark.parametrize("detector", ["previous_token", "induction", "first_token"])
def test_the_two_layer_model_has_a_head_above_the_threshold_on_each_detector(probed, detector):
    traces, _ = probed
    assert max(scores_of(traces["two_layer"], detector).values()) > D.THRESHOLD


def test_the_previous_token_head_is_in_layer_0_and_the_induction_heads_in_layer_1(probed):
    traces, _ = probed
    previous = [head for head, s in scores_of(traces["two_layer"], "previous_token").items() if s > D.THRESHOLD]
    induction = [head for head, s in scores_of(traces["two_layer"], "induction").items() if s > D.THRESHOLD]
    assert previous and {layer for layer, _ in previous} == {0}
    assert induction and {layer for layer, _ in induction} == {1}


def test_the_one_layer_control_has_no_induction_head(probed):
    traces, _ = probed
    assert max(scores_of(traces["one_layer"], "induction").values()) < D.THRESHOLD


def test_ablating_the_previous_token_head_drops_every_induction_score_below_the_threshold(probed):
    traces, sequences = probed
    previous = max(scores_of(traces["two_layer"], "previous_token").items(), key=lambda item: item[1])[0]
    with torch.no_grad():
        ablated = weights.load("two_layer")(sequences[:, :-1], ablate=previous)
    assert D.induction_score(ablated.patterns[1], PROBE_PERIOD).max() < D.THRESHOLD


def test_ablating_any_other_head_leaves_an_induction_head(probed):
    traces, sequences = probed
    previous = max(scores_of(traces["two_layer"], "previous_token").items(), key=lambda item: item[1])[0]
    model = weights.load("two_layer")
    for head in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        if head != previous:
            with torch.no_grad():
                ablated = model(sequences[:, :-1], ablate=head)
            assert D.induction_score(ablated.patterns[1], PROBE_PERIOD).max() > D.THRESHOLD, head


def test_the_two_layer_model_predicts_the_repeat_and_the_control_does_not(probed):
    traces, sequences = probed
    rows = repeat_rows(PROBE_PERIOD, 32)
    loss = {
        name: torch.nn.functional.cross_entropy(t.logits[:, rows].flatten(0, 1), sequences[:, rows + 1].flatten()).item()
        for name, t in traces.items()
    }
    assert loss["two_layer"] < 0.1 < 2.0 < loss["one_layer"]


# --- the log's numbers, against the model -------------------------------------------------------


@pytest.mark.parametrize("name", ["two_layer", "one_layer"])
@pytest.mark.parametrize("detector", ["previous_token", "induction", "first_token"])
def test_the_logs_detector_scores_are_the_shipped_models(probed, index, name, detector):
    traces, _ = probed
    for (layer, h), score in scores_of(traces[name], detector).items():
        # float32 here, float64 in the run, printed to 3 decimals: 0.0005 of rounding and a little more.
        assert value(index, f"h2.{name}.{D.head_name(layer, h)}.{detector}") == pytest.approx(score, abs=6e-4)


def test_the_heads_are_named_by_the_threshold(index):
    for name in ("two_layer", "one_layer"):
        for head in ("L0H0", "L0H1", "L1H0", "L1H1") if name == "two_layer" else ("L0H0", "L0H1"):
            passed = [d.replace("_", "-") for d in ("previous_token", "induction", "first_token") if value(index, f"h2.{name}.{head}.{d}") > D.THRESHOLD]
            assert text(index, f"h2.{name}.{head}.named") == (", ".join(passed) or "none")


def test_the_shipped_stamps_final_scores_agree_with_the_log(index):
    stamp = json.loads(weights.shipped(weights.STAMP))
    for name, model in stamp["models"].items():
        for head, scores in model["final"]["heads"].items():
            for detector, score in scores.items():
                assert value(index, f"h2.{name}.{head}.{detector}") == pytest.approx(score, abs=6e-4)


def test_h3s_score_is_the_sum_of_its_table_of_parts(index):
    cells = [value(index, f"h3.step2.table.{i}.{j}") for i in range(4) for j in range(4)]
    # 16 cells each rounded to 3 decimals: their sum is within 16 x 0.0005 of the printed total.
    assert sum(cells) == pytest.approx(value(index, "h3.step2.score"), abs=16 * 5e-4 + 5e-4)


def test_h3s_largest_part_is_the_query_token_against_the_previous_token_heads_write(index):
    cells = {(i, j): value(index, f"h3.step2.table.{i}.{j}") for i in range(4) for j in range(4)}
    assert max(cells, key=cells.get) == (0, 2)  # row: the query's token; column: head 0.1's write
    assert value(index, "h3.step2.match") == cells[0, 2]


def test_h3_follows_the_token_after_the_earlier_occurrence_and_copies_it(index):
    assert value(index, "h3.after") == value(index, "h3.query") - PROBE_PERIOD + 1
    assert value(index, "h3.step2.weight") > 0.9 > 0.1 > value(index, "h3.step2.without_weight")
    assert value(index, "h3.step3.rank") == 1 and value(index, "h3.step3.probability") > 0.9


@pytest.mark.parametrize("period", [20, 24])
def test_h5_the_two_layer_model_copies_at_lengths_the_training_never_used(index, period):
    chance = value(index, "h5.chance")
    assert value(index, f"h5.{period}.two_layer.repeat") < chance / 10
    assert value(index, f"h5.{period}.one_layer.repeat") > chance / 2
