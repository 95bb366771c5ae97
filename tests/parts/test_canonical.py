"""The canonical part's own promises: the shared reference, S5's sampling and the helper
process, a second world checked by hand, and the documented entry point.

What every part promises (its files, determinism, the index's shape) is tests/parts/test_contract.py.
"""

import json
import math
import re

import numpy as np
import pytest

from attention_by_hand import parts
from attention_by_hand.math.mechanism import softmax
from attention_by_hand.parts.canonical.measurements import S5_DIMS, S5_ROW, S5_TRIALS, SEED, sample_scaling
from attention_by_hand.run.check import compare
from attention_by_hand.run.part import RunContext
from attention_by_hand.run.world import RIVER_BANK, parse_world
from runhelpers import ROOT, read_index, value, without_environment

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

REFERENCE = ROOT.parent / "shared" / "reference" / "results.log"
CANONICAL = parts.default_part()

FIGURES = {
    "dot_product_arrows.png",
    "softmax_in_action.png",
    "raw_attention_heatmaps.png",
    "bank_water_money_plane.png",
    "qk_vs_raw_heatmaps.png",
    "scaling_max_weight.png",
    "causal_mask.png",
}

TENNIS = """
axes = ["sport", "animal", "thing"]
channels = ["kind"]
sentences = [["a", "tennis", "bat"], ["a", "cave", "bat"]]
[embeddings]
a = [0.0, 0.0, 1.0]
tennis = [1.0, 0.0, 0.25]
cave = [0.0, 0.8, 0.3]
bat = [0.5, 0.5, 0.5]
[wired]
W_Q = [[0.0], [0.0], [1.5]]
W_K = [[1.0], [1.0], [0.0]]
"""


def run(world, out, background=True, figures=True):
    return CANONICAL.run(RunContext(out=out, world=world, background=background, figures=figures))


@pytest.fixture(scope="module")
def canonical(part_run):
    return part_run("canonical")


@pytest.fixture(scope="module")
def tennis(tmp_path_factory):
    result = run(parse_world(TENNIS), tmp_path_factory.mktemp("tennis"))
    return result, read_index(result)


# --- the published log ------------------------------------------------------------------------


def test_fresh_run_matches_the_shared_reference_except_line_3(canonical):
    if not REFERENCE.exists():
        pytest.skip(f"{REFERENCE} is not beside this checkout")
    assert without_environment(canonical.log_path.read_text()) == without_environment(REFERENCE.read_text())


def test_the_canonical_copy_the_package_ships_is_the_shared_reference_byte_for_byte():
    if not REFERENCE.exists():
        pytest.skip(f"{REFERENCE} is not beside this checkout")
    assert CANONICAL.canonical_log().encode("utf-8") == REFERENCE.read_bytes()


def test_the_run_draws_the_seven_figures_of_the_workshop(canonical):
    assert {p.name for p in canonical.figure_paths} == FIGURES


def test_index_names_the_softmax_lines(canonical):
    assert read_index(canonical)["spans"]["s2.softmax"] == [22, 23]


def test_section_spans_start_at_their_section_heading(canonical):
    index = read_index(canonical)
    lines = canonical.log_path.read_text().split("\n")
    for k in range(1, 7):
        first, _ = index["spans"][f"s{k}"]
        assert lines[first - 1].startswith(f"[S{k}]")


def test_derived_values_are_the_numbers_a_learner_checks_by_hand(canonical):
    index = read_index(canonical)
    assert index["values"]["s2.exp.1"]["text"] == f"{math.exp(0.54):.3f}"  # e^0.54
    assert index["values"]["s2.exp.2"]["text"] == f"{math.exp(0.99):.3f}"  # e^0.99
    assert index["values"]["s2.exp_sum"]["text"] == f"{1 + math.exp(0.54) + math.exp(0.99):.3f}"
    assert index["values"]["s2.percent.0"]["text"] == "18.5%"


def test_vector_figures_are_the_same_bytes_twice(tmp_path):
    from attention_by_hand.parts.canonical import figures
    from attention_by_hand.run.figures import FigureJob, render

    job = FigureJob("causal_mask", figures.causal_mask, dict(weights=np.eye(3), words=["a", "b", "c"]))
    first = {p.suffix: p.read_bytes() for p in render(job, tmp_path / "1", ("svg", "pdf"))}
    second = {p.suffix: p.read_bytes() for p in render(job, tmp_path / "2", ("svg", "pdf"))}
    assert first.keys() == {".svg", ".pdf"}
    assert first == second


# --- the measurements, by name ----------------------------------------------------------------


def test_measurements_answer_by_name_in_any_order_as_computed_in_process():
    from attention_by_hand.parts.canonical.measurements import Measurements, measure

    X = RIVER_BANK.embed(RIVER_BANK.sentences[0])  # (n_words, d_model)
    expected = dict(measure(X))
    with Measurements(X, background=True) as measured:
        # Ask for the last result first: the helper's earlier ones are kept, not lost.
        names = list(reversed(expected))
        got = {name: measured[name] for name in names}
    assert list(expected) == ["s5.table", "s6.W_q", "s6.W_k", "s6.W_v", "s6.torch.full", "s6.torch.causal", "torch.version"]
    for name in expected:
        assert got[name].tobytes() == expected[name].tobytes(), name


def test_asking_for_a_measurement_that_does_not_exist_is_a_key_error():
    from attention_by_hand.parts.canonical.measurements import Measurements

    with Measurements(RIVER_BANK.embed(RIVER_BANK.sentences[0]), background=False) as measured:
        with pytest.raises(KeyError, match="s7.table"):
            measured["s7.table"]


# --- S6: a real mistake shows in the first decimal, not in the last digit ----------------------


@pytest.mark.parametrize("causal", [False, True])
def test_each_mistake_module_3_names_moves_the_s6_head_by_more_than_a_tenth(causal):
    """A forgotten sqrt(d_k), softmax over the wrong axis, the mask on the wrong triangle: with
    S6's own weights each moves some output by more than 0.1 (Module 3 says "in the first decimal")."""
    from attention_by_hand.parts.canonical.measurements import measure
    from attention_by_hand.math.mechanism import attention

    X = RIVER_BANK.embed(RIVER_BANK.sentences[0])  # (n_words, d_model)
    W_q, W_k, W_v = (dict(measure(X))[f"s6.{name}"] for name in ("W_q", "W_k", "W_v"))
    right, _ = attention(X, W_q, W_k, W_v, causal=causal)
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    n = len(X)
    future = np.triu(np.ones((n, n), dtype=bool), 1)

    def head(scores, axis=-1, hidden=future):
        if causal:
            scores = np.where(hidden, -np.inf, scores)
        weights = softmax(scores) if axis == -1 else softmax(scores.T).T  # (n, n)
        return weights @ V

    mistakes = {
        "no sqrt": head(Q @ K.T),
        "softmax over columns": head(Q @ K.T / math.sqrt(Q.shape[1]), axis=0),
    }
    if causal:
        mistakes["mask below the diagonal"] = head(Q @ K.T / math.sqrt(Q.shape[1]), hidden=future.T)
    gaps = {name: float(np.abs(out - right).max()) for name, out in mistakes.items()}
    assert min(gaps.values()) > 0.1, gaps


# --- S5: the vectorised sampling is the seed's loop -------------------------------------------


def test_sampling_in_one_call_equals_the_trial_by_trial_loop():
    rng_fast, rng_loop = np.random.default_rng(SEED), np.random.default_rng(SEED)
    for d in S5_DIMS[:3]:
        fast = sample_scaling(rng_fast, d, S5_ROW, 200)
        dots, top_raw, top_scaled = [], [], []
        for _ in range(200):
            q = rng_loop.standard_normal(d)
            keys = rng_loop.standard_normal((S5_ROW, d))
            scores = keys @ q
            dots.extend(scores.tolist())
            top_raw.append(softmax(scores).max())
            top_scaled.append(softmax(scores / np.sqrt(d)).max())
        assert np.allclose(fast, [np.std(dots), np.mean(top_raw), np.mean(top_scaled)], rtol=0, atol=1e-12)
    # And both left the generator in the same place, so S6 draws the same matrices.
    assert rng_fast.standard_normal() == rng_loop.standard_normal()


def test_s5_trials_and_dims_are_the_specified_ones():
    assert (S5_ROW, S5_TRIALS, S5_DIMS) == (8, 2000, (4, 16, 64, 256))


# --- a second world, checked against numbers computed here by hand ----------------------------


def softmax_by_hand(row):
    exps = [math.exp(x) for x in row]
    return [e / sum(exps) for e in exps]


def test_second_world_dot_products(tennis):
    _, index = tennis
    bat, tennis_, cave, a = (0.5, 0.5, 0.5), (1.0, 0.0, 0.25), (0.0, 0.8, 0.3), (0.0, 0.0, 1.0)
    for name, other in (("tennis", tennis_), ("cave", cave), ("a", a), ("bat", bat)):
        assert value(index, f"s2.dot.{name}") == pytest.approx(sum(x * y for x, y in zip(bat, other)), abs=1e-12)


def test_second_world_raw_attention_weights(tennis):
    _, index = tennis
    rows = {"a": (0.0, 0.0, 1.0), "tennis": (1.0, 0.0, 0.25), "bat": (0.5, 0.5, 0.5)}
    words = ["a", "tennis", "bat"]
    for i, wi in enumerate(words):
        scores = [sum(x * y for x, y in zip(rows[wi], rows[wj])) for wj in words]
        for j, expected in enumerate(softmax_by_hand(scores)):
            assert value(index, f"s3.weights.0.{i}.{j}") == pytest.approx(expected, abs=1e-12)


def test_second_world_wired_weights_use_its_own_matrices_and_sqrt_dk(tennis):
    _, index = tennis
    # q = x . W_Q and k = x . W_K with one channel; d_k = 1, so the scale is sqrt(1).
    q = {"a": 1.5, "tennis": 0.375, "bat": 0.75}
    k = {"a": 0.0, "tennis": 1.0, "bat": 1.0}
    words = ["a", "tennis", "bat"]
    for i, wi in enumerate(words):
        for j, expected in enumerate(softmax_by_hand([q[wi] * k[wj] / math.sqrt(1) for wj in words])):
            assert value(index, f"s4.weights.{i}.{j}") == pytest.approx(expected, abs=1e-12)


def test_second_world_log_uses_its_own_words_axes_and_channels(tennis):
    result, _ = tennis
    log = result.log_path.read_text()
    assert "embedding axes (hand-named): sport, animal, thing" in log
    assert 'test sentences: "a tennis bat" / "a cave bat"' in log
    assert "(1 channel: kind)" in log
    assert "  bat . tennis = 0.50*1.00 + 0.50*0.00 + 0.50*0.25 = 0.625" in log
    assert "river" not in log and "water" not in log


def test_second_world_keeps_the_world_independent_lines(tennis, canonical):
    ours = tennis[0].log_path.read_text().split("\n")
    theirs = canonical.log_path.read_text().split("\n")
    s5 = [line for line in theirs if line.startswith("  d = ")]
    gpt2 = [line for line in theirs if "GPT-2" in line]
    assert len(s5) == 4 and len(gpt2) == 2
    for line in s5 + gpt2:
        assert line in ours


def test_second_world_names_its_plane_figure_after_its_words(tennis):
    result, _ = tennis
    assert (result.log_path.parent.parent / "diagrams" / "bat_sport_animal_plane.png").exists()
    assert "[plot saved: diagrams/bat_sport_animal_plane.png]" in result.log_path.read_text()


# --- the two entry points ---------------------------------------------------------------------


def test_documented_script_writes_log_and_figures_beside_its_folder(tmp_path):
    import shutil
    import subprocess
    import sys

    script = tmp_path / "experiments" / "experiment.py"
    script.parent.mkdir()
    shutil.copy(ROOT / "experiments" / "experiment.py", script)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "captures" / "results.log").read_text()
    assert compare(log, parts.default_part().canonical_log()).equal
    assert {p.name for p in (tmp_path / "diagrams").iterdir()} == FIGURES


def python_without_the_run_packages() -> list[str]:
    """A command for a Python that lacks numpy (the system's, isolated), or a skip."""
    import shutil
    import subprocess

    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None or subprocess.run([system, "-I", "-c", "import numpy"], capture_output=True).returncode == 0:
        pytest.skip("no Python without numpy on this machine")
    return [system, "-I"]


def test_documented_script_without_the_packages_says_what_is_missing_in_one_line(tmp_path):
    import shutil
    import subprocess

    script = tmp_path / "experiments" / "experiment.py"
    script.parent.mkdir()
    shutil.copy(ROOT / "experiments" / "experiment.py", script)
    python = python_without_the_run_packages()
    done = subprocess.run([*python, "experiments/experiment.py"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("experiments/experiment.py: numpy")
    assert "`make run`" in done.stderr and "`.venv/bin/python experiments/experiment.py`" in done.stderr
    assert not (tmp_path / "captures").exists()


def test_documented_script_checks_for_what_pyproject_declares():
    import importlib.util
    import sys

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    spec = importlib.util.spec_from_file_location("documented_script", ROOT / "experiments" / "experiment.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)  # not __main__: defines NEEDED, runs nothing
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    applies = [dep for dep in declared if "python_version < '3.11'" not in dep or sys.version_info < (3, 11)]
    names = {re.match(r"[A-Za-z0-9_.-]+", dep).group() for dep in applies}
    assert set(script.NEEDED) == names


def test_figure_format_svg_adds_vector_figures_beside_the_pngs(tmp_path):
    from attention_by_hand.cli import main

    assert main(["run", "-q", "--out", str(tmp_path), "--figure-format", "svg"]) == 0
    names = {p.name for p in (tmp_path / "diagrams").iterdir()}
    assert names == FIGURES | {n.replace(".png", ".svg") for n in FIGURES}
    assert all((tmp_path / "diagrams" / n.replace(".png", ".svg")).read_bytes().startswith(b"<?xml") for n in FIGURES)


def test_a_world_with_large_scores_writes_valid_json_without_nan(tmp_path):
    import warnings

    big = TENNIS.replace("tennis = [1.0, 0.0, 0.25]", "tennis = [2000.0, 0.0, 0.25]")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning may escape either
        result = run(parse_world(big), tmp_path, background=False)
    index = json.loads(result.index_path.read_text(), parse_constant=lambda c: pytest.fail(f"index holds {c}"))
    assert "s2.exp.1" not in index["values"]  # e^score overflowed: not filed, rather than Infinity
    assert "nan" not in result.log_path.read_text().lower()


def test_s4_shows_an_asymmetric_pair_when_the_context_pair_happens_to_be_symmetric(tmp_path):
    # "bat" and "tennis" get the same row, so they score each other alike, but "a" does not.
    twin = TENNIS.replace("tennis = [1.0, 0.0, 0.25]", "tennis = [0.5, 0.5, 0.5]")
    result = run(parse_world(twin), tmp_path, background=False, figures=False)  # the log's line is the test
    line = next(line for line in result.log_path.read_text().splitlines() if line.startswith("  symmetric?") and "->" in line)
    m = re.fullmatch(r"  symmetric\? False  \((\S+)->(\S+) = (\S+), (\S+)->(\S+) = (\S+)\)", line)
    assert m, line
    assert (m[1], m[2]) == (m[5], m[4]) and m[3] != m[6]
