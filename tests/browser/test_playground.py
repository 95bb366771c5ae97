"""The playground in a real browser: the run's numbers, the package's numbers, and no way to break it.

Every number is read from the page's own cells (data-row / data-col / data-axis) and compared
with the run's index (results.index.json, positions.index.json) or with `mechanism.py` and
`positional.py` computing the same world, as text with three decimals: what the learner sees
is what is checked.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attention_by_hand.math import mechanism as M
from attention_by_hand.math import positions as PS
from attention_by_hand.parts.positions.sections import BASE
from attention_by_hand.errors import UserError
from attention_by_hand.run.world import RIVER_BANK, World, load_world, parse_world
from patience import HUNG

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}
# The playground writes its address once edits settle (main.js): these wait for that, not for a
# time, so a busy machine only makes them wait longer.
SETTLED = "document.getElementById('playground').dataset.address !== 'pending'"
ADDRESS_WRITTEN = f"location.hash.startsWith('#world=') && {SETTLED}"
INDEX = json.loads((ROOT / "captures" / "results.index.json").read_text(encoding="utf-8"))
POSITIONS_INDEX = json.loads((ROOT / "captures" / "positions.index.json").read_text(encoding="utf-8"))


# ---- driving the page ---------------------------------------------------------------------


def open_playground(watched, url: str):
    page = watched.page
    page.goto(url, wait_until="load")
    page.wait_for_function("document.getElementById('playground').dataset.ready === 'true'")
    return page


@pytest.fixture
def page(watched, server):
    return open_playground(watched, f"{server}/playground.html")


def choose(page, mode: str, scale: bool, causal: bool, sentence: int | list[str] = 0) -> None:
    """Set the head, the two switches and the sentence the way a learner does: by the controls."""
    page.get_by_label("raw attention" if mode == "raw" else "the wired head").check()
    page.get_by_label("divide the scores by").set_checked(scale)
    page.get_by_label("causal mask").set_checked(causal)
    if isinstance(sentence, int):
        page.locator(f"[data-test-sentence='{sentence}']").click()
    else:
        page.get_by_label("Or type a sentence").fill(" ".join(sentence))
        page.get_by_role("button", name="Show", exact=True).click()


# The positions switch's options, by the start of their labels.
POSITION_LABELS = {"none": "none: attention is blind", "sinusoidal": "sinusoidal: add a position", "rope": "RoPE: turn each"}


def place(page, positions: str) -> None:
    """Set the positions switch the way a learner does."""
    page.get_by_label(POSITION_LABELS[positions]).check()


def cells(page, block: str, column: str = "col") -> dict[tuple[int, int | str], str]:
    """The texts of one result block's cells, by (row, column or axis)."""
    found = page.eval_on_selector_all(
        f"[data-playground='{block}'] td[data-row]",
        f"cs => cs.map(c => [Number(c.dataset.row), c.dataset.{column}, c.textContent])",
    )
    return {(r, int(c) if column == "col" else c): text for r, c, text in found}


def plane_outputs(page) -> dict[tuple[int, str], str]:
    """The ambiguous word's output in each test sentence, as the plane's number list prints it."""
    found = page.eval_on_selector_all(
        "[data-playground='plane'] li[data-kind='output'] span[data-axis]",
        "ss => ss.map(s => [Number(s.closest('li').dataset.sentence), s.dataset.axis, s.textContent])",
    )
    return {(k, axis): text.split(" ")[-1] for k, axis, text in found}


def edit(page, label: str, value: str) -> None:
    page.get_by_label(label, exact=True).fill(value)


def add_word(page, name: str) -> None:
    page.get_by_label("Add a word").fill(name)
    page.get_by_role("button", name="Add word").click()


def page_text(page) -> str:
    return page.locator("#playground").inner_text()


# ---- the numbers the page must show -------------------------------------------------------


def shown(v: float) -> str:
    """A number as the page prints it: Python's three decimals, never "-0.000"."""
    text = f"{v:.3f}"
    return "0.000" if text == "-0.000" else text


def reference(world: World, sentence, mode: str, scale: bool, causal: bool):
    """(scores, weights, output) for one sentence, from mechanism.py: the run's own functions.

    The run logs raw attention unscaled (raw_attention) and the wired head scaled
    (wired_attention), and the scaled head with a mask (attention); the page's other settings
    are the same steps with the scale or the mask left out.
    """
    X = world.embed(sentence)  # (n_words, d_model)
    d_model = len(world.axes)
    W_q, W_k = (np.eye(d_model), np.eye(d_model)) if mode == "raw" else (world.wired_W_Q, world.wired_W_K)
    scores = (X @ W_q) @ (X @ W_k).T  # (n_words, n_words), unscaled, as the page's table shows them
    if mode == "raw" and not scale and not causal:
        output, weights = M.raw_attention(X)
    elif mode == "wired" and scale and not causal:
        output, weights, _ = M.wired_attention(X, world.wired_W_Q, world.wired_W_K)
    elif scale:
        output, weights = M.attention(X, W_q, W_k, np.eye(d_model), causal=causal)
    else:
        masked = np.where(M.causal_mask(len(X)), -np.inf, scores) if causal else scores
        weights = M.softmax(masked)
        output = weights @ X
    return scores, weights, output


def assert_page_shows(page, world: World, sentence, mode: str, scale: bool, causal: bool) -> None:
    """Every score, weight and output on the page, and the plane's outputs, equal mechanism.py's."""
    scores, weights, output = reference(world, sentence, mode, scale, causal)
    n = len(sentence)
    expected_scores = {
        (i, j): "\u2212\u221e" if causal and j > i else shown(scores[i, j]) for i in range(n) for j in range(n)
    }
    assert cells(page, "scores") == expected_scores
    assert cells(page, "weights") == {(i, j): shown(weights[i, j]) for i in range(n) for j in range(n)}
    assert cells(page, "outputs", "axis") == {(i, a): shown(output[i, k]) for i in range(n) for k, a in enumerate(world.axes)}
    plane = {}
    for k, test in enumerate(world.sentences):
        out = reference(world, test, mode, scale, causal)[2][-1]
        plane |= {(k, world.axes[0]): shown(out[0]), (k, world.axes[1]): shown(out[1])}
    assert plane_outputs(page) == plane


def positioned(world: World, sentence, mode: str, scale: bool, causal: bool, positions: str) -> dict:
    """Every table the page shows with the positions switch on, from positional.py and mechanism.py.

    sinusoidal: X + P goes into the head (positions.py's P1); rope: the queries and keys are
    turned by position, with rope's own pairing (P3); the values are X + P or X, never turned.
    """
    X = world.embed(sentence)  # (n_words, d_model)
    n, d_model = X.shape
    pe = PS.sinusoidal_positions(n, d_model, BASE) if positions == "sinusoidal" else None  # (n_words, d_model)
    X = X + pe if pe is not None else X
    W_q, W_k = (np.eye(d_model), np.eye(d_model)) if mode == "raw" else (world.wired_W_Q, world.wired_W_K)
    Q, K = X @ W_q, X @ W_k  # (n_words, d_k) each
    if positions == "rope":
        Q, K = PS.rope(Q, np.arange(n), BASE), PS.rope(K, np.arange(n), BASE)
    scores = Q @ K.T  # (n_words, n_words)
    logits = scores / np.sqrt(K.shape[1]) if scale else scores
    weights = M.softmax(np.where(M.causal_mask(n), -np.inf, logits) if causal else logits)  # (n_words, n_words)
    return {"pe": pe, "x_plus_p": X if pe is not None else None, "queries": Q, "keys": K,
            "scores": scores, "weights": weights, "output": weights @ X}  # fmt: skip


def grid(matrix) -> dict[tuple[int, int], str]:
    return {(i, j): shown(v) for (i, j), v in np.ndenumerate(matrix)}


def assert_positions_shown(page, world: World, sentence, mode: str, scale: bool, causal: bool, positions: str) -> None:
    """Every number on the page with positions on equals positional.py's and mechanism.py's:
    P and X + P, or the turned queries and keys; scores, weights, outputs and the plane's outputs."""
    t = positioned(world, sentence, mode, scale, causal, positions)
    n = len(sentence)
    sinusoidal, rope = positions == "sinusoidal", positions == "rope"
    assert cells(page, "pe") == (grid(t["pe"]) if sinusoidal else {})
    assert cells(page, "x_plus_p") == (grid(t["x_plus_p"]) if sinusoidal else {})
    assert cells(page, "queries") == (grid(t["queries"]) if rope else {})
    # Raw attention's queries and keys are the same turned embeddings: one table shows them.
    assert cells(page, "keys") == (grid(t["keys"]) if rope and mode == "wired" else {})
    assert cells(page, "scores") == grid(t["scores"]) | ({(i, j): "\u2212\u221e" for i in range(n) for j in range(i + 1, n)} if causal else {})
    assert cells(page, "weights") == grid(t["weights"])
    assert cells(page, "outputs", "axis") == {(i, a): shown(t["output"][i, k]) for i in range(n) for k, a in enumerate(world.axes)}
    plane = {}
    for k, test in enumerate(world.sentences):
        out = positioned(world, test, mode, scale, causal, positions)["output"][-1]
        plane |= {(k, world.axes[0]): shown(out[0]), (k, world.axes[1]): shown(out[1])}
    assert plane_outputs(page) == plane


# ---- with the canonical world, the page shows the run's numbers ----------------------------

# The settings the log prints, and the names its index files them under.
LOGGED = [
    pytest.param("raw", False, False, 0, "s3.weights.0", "s3.scores", "s3.output.0", id="S3-river"),
    pytest.param("raw", False, False, 1, "s3.weights.1", None, "s3.output.1", id="S3-money"),
    pytest.param("wired", True, False, 0, "s4.weights", "s4.scores", "s4.output", id="S4-wired"),
    pytest.param("wired", True, True, 0, "s6.mask", None, None, id="S6-masked"),
]


def run_value(name: str) -> str:
    return shown(INDEX["values"][name]["value"]) if INDEX["values"][name]["text"] == "-0.000" else INDEX["values"][name]["text"]


@pytest.mark.parametrize(("mode", "scale", "causal", "k", "weights", "scores", "output"), LOGGED)
def test_canonical_weights_scores_and_outputs_are_the_runs(page, mode, scale, causal, k, weights, scores, output):
    choose(page, mode, scale, causal, k)
    n = len(RIVER_BANK.sentences[k])
    assert cells(page, "weights") == {(i, j): run_value(f"{weights}.{i}.{j}") for i in range(n) for j in range(n)}
    if scores:
        assert cells(page, "scores") == {(i, j): run_value(f"{scores}.{i}.{j}") for i in range(n) for j in range(n)}
    if output:
        # The log prints the ambiguous word's output: the sentence's last row, and the plane's arrow.
        logged = {a: run_value(f"{output}.{a}") for a in RIVER_BANK.axes}
        assert {a: t for (i, a), t in cells(page, "outputs", "axis").items() if i == n - 1} == logged
        assert {a: t for (s, a), t in plane_outputs(page).items() if s == k} == {a: logged[a] for a in RIVER_BANK.axes[:2]}


@pytest.mark.parametrize(("mode", "scale", "causal", "k", "weights", "scores", "output"), LOGGED)
def test_page_says_it_shows_the_runs_numbers_and_links_their_lines(page, mode, scale, causal, k, weights, scores, output):
    choose(page, mode, scale, causal, k)
    check = page.locator("#pg-crosscheck")
    first, last = INDEX["spans"][weights]
    assert check.get_attribute("data-match") == "run"
    assert check.inner_text().startswith("\u2713 Digit for digit the run's numbers")
    assert check.locator("a").get_attribute("href") == f"log.html#L{first}-L{last}"


@pytest.mark.parametrize("causal", [False, True], ids=["no-mask", "mask"])
@pytest.mark.parametrize("scale", [False, True], ids=["unscaled", "scaled"])
@pytest.mark.parametrize("mode", ["raw", "wired"])
@pytest.mark.parametrize("k", [0, 1], ids=["river", "money"])
def test_canonical_numbers_equal_mechanism_in_every_setting(page, k, mode, scale, causal):
    choose(page, mode, scale, causal, k)
    assert_page_shows(page, RIVER_BANK, RIVER_BANK.sentences[k], mode, scale, causal)


# ---- positions: with the canonical world, positions.log's numbers ----------------------------


def positions_value(name: str) -> str:
    text = POSITIONS_INDEX["values"][name]["text"]
    return "0.000" if text == "-0.000" else text


def ambiguous_output(page, row: int) -> dict[str, str]:
    return {a: t for (i, a), t in cells(page, "outputs", "axis").items() if i == row}


FIRST = list(RIVER_BANK.sentences[0])
# positions.log's settings: P1 in both orders (the first test sentence, then reversed), and P3.
POSITIONS_LOGGED = [
    pytest.param("sinusoidal", "raw", False, FIRST, ("p1.pe", "p1.outputs"), id="P1-as-written"),
    pytest.param("sinusoidal", "raw", False, FIRST[::-1], ("p1.pe", "p1.outputs"), id="P1-reversed"),
    pytest.param("rope", "wired", True, FIRST, ("p3.qk", "p3.reading"), id="P3-rope"),
]


@pytest.mark.parametrize(("sentence", "output"), [(FIRST, "p1.output.0"), (FIRST[::-1], "p1.output.1")], ids=["as-written", "reversed"])
def test_sinusoidal_positions_show_the_positions_logs_numbers_in_both_orders(page, sentence, output):
    choose(page, "raw", False, False, sentence)
    place(page, "sinusoidal")
    n, d_model = len(sentence), len(RIVER_BANK.axes)
    assert cells(page, "pe") == {(i, j): positions_value(f"p1.pe.{i}.{j}") for i in range(n) for j in range(d_model)}
    caption = page.locator("[data-playground='pe'] caption").inner_text()
    assert f"base {positions_value('p1.base')}, d_model = {positions_value('p1.d_model')}" in caption
    # The log prints bank's output, wherever bank stands, and X + P for the sentence as written.
    logged = {a: positions_value(f"{output}.{a}") for a in RIVER_BANK.axes}
    assert ambiguous_output(page, sentence.index(RIVER_BANK.ambiguous)) == logged
    if sentence == FIRST:
        assert cells(page, "x_plus_p") == {(i, j): positions_value(f"p1.x_plus_p.{i}.{j}") for i in range(n) for j in range(d_model)}
        assert {a: t for (k, a), t in plane_outputs(page).items() if k == 0} == {a: logged[a] for a in RIVER_BANK.axes[:2]}
    # Every other number on the page (scores, weights, the other rows) is positional.py's and mechanism.py's.
    assert_positions_shown(page, RIVER_BANK, sentence, "raw", False, False, "sinusoidal")


def test_rope_on_the_wired_head_shows_the_positions_logs_turned_queries_keys_scores_and_weights(page):
    choose(page, "wired", True, False, 0)
    place(page, "rope")
    n, channels = len(FIRST), RIVER_BANK.channels
    assert cells(page, "queries") == {(i, j): positions_value(f"p3.q.{i}.{c}") for i in range(n) for j, c in enumerate(channels)}
    assert cells(page, "keys") == {(i, j): positions_value(f"p3.k.{i}.{c}") for i in range(n) for j, c in enumerate(channels)}
    assert cells(page, "scores") == {(i, j): positions_value(f"p3.scores.{i}.{j}") for i in range(n) for j in range(n)}
    # The log prints bank's weights: the last row.
    assert {j: t for (i, j), t in cells(page, "weights").items() if i == n - 1} == {j: positions_value(f"p3.weights.{j}") for j in range(n)}
    assert f"\u03b8 = [{positions_value('p3.theta')}] rad per position" in page.locator("[data-playground='queries'] caption").inner_text()
    assert_positions_shown(page, RIVER_BANK, FIRST, "wired", True, False, "rope")


@pytest.mark.parametrize(("positions", "mode", "scale", "sentence", "span"), POSITIONS_LOGGED)
def test_page_says_it_shows_the_positions_logs_numbers_and_links_their_lines(page, positions, mode, scale, sentence, span):
    choose(page, mode, scale, False, sentence)
    place(page, positions)
    check = page.locator("#pg-crosscheck")
    first, last = POSITIONS_INDEX["spans"][span[0]][0], POSITIONS_INDEX["spans"][span[1]][1]
    assert check.get_attribute("data-match") == "run"
    assert check.inner_text() == f"\u2713 Digit for digit the run's numbers: positions.log lines {first}-{last}"
    assert check.locator("a").get_attribute("href") == f"log.html#positions-L{first}-L{last}"


@pytest.mark.parametrize(
    ("positions", "mode", "changes"),
    [("none", "raw", False), ("none", "wired", False), ("sinusoidal", "raw", True),
     ("sinusoidal", "wired", True), ("rope", "raw", True), ("rope", "wired", True)],
)  # fmt: skip
def test_reordering_the_sentence_changes_the_ambiguous_words_output_only_with_positions(page, positions, mode, changes):
    choose(page, mode, mode == "wired", False, FIRST)
    place(page, positions)
    before = ambiguous_output(page, len(FIRST) - 1)
    choose(page, mode, mode == "wired", False, FIRST[::-1])
    after = ambiguous_output(page, 0)
    assert (after != before) == changes


@pytest.mark.parametrize("positions", ["sinusoidal", "rope"])
@pytest.mark.parametrize("mode", ["raw", "wired"])
def test_with_positions_the_canonical_world_shows_positional_pys_numbers_with_the_mask(page, mode, positions):
    choose(page, mode, True, True, 1)
    place(page, positions)
    assert_positions_shown(page, RIVER_BANK, RIVER_BANK.sentences[1], mode, True, True, positions)


def test_switching_positions_off_brings_back_the_runs_numbers_and_hides_the_position_tables(page):
    choose(page, "wired", True, False, 0)
    place(page, "rope")
    place(page, "none")
    assert page.locator("#pg-positioned").is_hidden()
    assert cells(page, "queries") == {} and cells(page, "keys") == {}
    assert cells(page, "weights") == {(i, j): run_value(f"s4.weights.{i}.{j}") for i in range(3) for j in range(3)}
    assert page.locator("#pg-crosscheck").get_attribute("data-match") == "run"


def test_rope_in_raw_attention_names_the_pairs_of_axes_it_turns(page):
    choose(page, "raw", False, False, 0)
    place(page, "rope")
    pairs = ", ".join(f"{RIVER_BANK.axes[a]}+{RIVER_BANK.axes[b]}" for a, b in ((0, 2), (1, 3)))  # rope's halves: i with i + d/2
    assert f"RoPE pairs the axes {pairs} (positional.rope's \u201chalves\u201d pairing)" in page.locator("#pg-positions-hint").inner_text()
    assert f"(pairs {pairs})" in page.locator("[data-playground='queries'] caption").inner_text()


# ---- positions: the page's functions are positional.py's --------------------------------------

POSITION_SIZES = [(3, 4, BASE), (8, 8, BASE), (5, 2, 100.0), (7, 6, 10.0)]  # (n_positions, d, base)


def test_the_pages_sinusoidal_positions_are_positional_pys(page):
    for n, d, base in POSITION_SIZES:
        js = page.evaluate("a => window.AttentionPlayground.positional.sinusoidalPositions(a[0], a[1], a[2])", [n, d, base])
        np.testing.assert_allclose(js, PS.sinusoidal_positions(n, d, base), rtol=0, atol=1e-12)


@pytest.mark.parametrize("pairing", PS.PAIRINGS)
def test_the_pages_rope_is_positional_pys_on_random_queries(page, pairing):
    rng = np.random.default_rng(4)
    for n, d, base in POSITION_SIZES:
        x = rng.normal(size=(n, d))  # (n_words, d)
        positions = rng.integers(0, 40, size=n)  # (n_words,): not in order, not from 0
        js = page.evaluate(
            "a => window.AttentionPlayground.positional.rope(a[0], a[1], a[2], a[3])", [x.tolist(), positions.tolist(), base, pairing]
        )
        np.testing.assert_allclose(js, PS.rope(x, positions, base, pairing), rtol=0, atol=1e-12)
        frequencies = page.evaluate("a => window.AttentionPlayground.positional.ropeFrequencies(a[0], a[1])", [d, base])
        np.testing.assert_allclose(frequencies, PS.rope_frequencies(d, base), rtol=1e-15, atol=0)


def test_the_pages_positions_refuse_an_odd_width_with_positional_pys_words(page):
    with pytest.raises(ValueError) as refused:
        PS.sinusoidal_positions(3, 5)
    message = page.evaluate(
        "() => { try { window.AttentionPlayground.positional.sinusoidalPositions(3, 5, 1); } catch (e) { return e.message; } }"
    )
    assert message == str(refused.value)


def random_world_file(rng) -> str:
    """A world file of random size and numbers, with an even number of axes and of channels."""
    n_axes, n_channels, n_words = int(rng.choice([2, 4, 6])), int(rng.choice([2, 4])), int(rng.integers(3, 7))
    words = [f"w{i}" for i in range(n_words)]
    length = int(rng.integers(2, 8))
    ending = words[-1]
    sentences = [[*rng.choice(words[:-1], size=length - 1).tolist(), ending] for _ in range(2)]

    def numbers(*shape):
        # Full doubles, not round decimals: a sum of products of 2-decimal numbers can land exactly
        # on a 3-decimal tie, where NumPy's and the page's orders of adding may round apart.
        return rng.uniform(-1.5, 1.5, size=shape).tolist()

    lines = [f"axes = {json.dumps([f'a{i}' for i in range(n_axes)])}", f"channels = {json.dumps([f'c{i}' for i in range(n_channels)])}",
             f"sentences = {json.dumps(sentences)}", "[embeddings]", *(f"{w} = {json.dumps(numbers(n_axes))}" for w in words),
             "[wired]", f"W_Q = {json.dumps(numbers(n_axes, n_channels))}", f"W_K = {json.dumps(numbers(n_axes, n_channels))}"]  # fmt: skip
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_with_positions_a_random_world_shows_positional_pys_numbers(page, seed):
    rng = np.random.default_rng(seed)
    text = random_world_file(rng)
    page.get_by_label("World file (edit or paste").fill(text)
    page.get_by_role("button", name="Load this text").click()
    world = parse_world(text)
    for positions in ("sinusoidal", "rope"):
        for mode in ("raw", "wired"):
            scale, causal = bool(rng.integers(2)), bool(rng.integers(2))
            sentence = rng.choice(world.words, size=int(rng.integers(2, 9))).tolist()
            choose(page, mode, scale, causal, sentence)
            place(page, positions)
            assert_positions_shown(page, world, sentence, mode, scale, causal, positions)


@pytest.mark.parametrize(
    ("axes", "channels", "mode", "message"),
    [
        (3, 2, "raw", "Off: sinusoidal positions fill pairs of axes: it needs an even number of them, and this world has 3."),
        (4, 1, "wired", "Off: RoPE turns pairs of channels: it needs an even number of them, and this world has 1."),
    ],
    ids=["three-axes", "one-channel"],
)
def test_positions_a_world_cannot_pair_are_switched_off_and_the_page_says_why(watched, page, axes, channels, mode, message):
    choose(page, mode, False, False, 0)
    place(page, "sinusoidal" if axes % 2 else "rope")
    text = (
        f"axes = {json.dumps([f'a{i}' for i in range(axes)])}\nchannels = {json.dumps([f'c{i}' for i in range(channels)])}\n"
        'sentences = [["a", "reef", "bank"], ["a", "loan", "bank"]]\n[embeddings]\n'
        + "".join(f"{w} = {json.dumps([0.5] * axes)}\n" for w in ("a", "reef", "loan", "bank"))
        + f"[wired]\nW_Q = {json.dumps([[1.0] * channels] * axes)}\nW_K = {json.dumps([[0.5] * channels] * axes)}\n"
    )
    page.get_by_label("World file (edit or paste").fill(text)
    page.get_by_role("button", name="Load this text").click()
    assert page.get_by_label(POSITION_LABELS["none"]).is_checked()
    assert page.get_by_label(POSITION_LABELS["sinusoidal" if axes % 2 else "rope"]).is_disabled()
    assert message in page.locator("#pg-positions-hint").inner_text()
    world = parse_world(text)
    assert_page_shows(page, world, world.sentences[0], mode, False, False)
    assert watched.problems() == []


# ---- after a learner's edits, the page computes what the package computes -------------------


def edited_world() -> World:
    """What `make_edits` turns the canonical world into."""
    embeddings = dict(RIVER_BANK.embeddings)
    embeddings["bank"] = (0.6, 0.3, 0.9, 0.0)
    embeddings["river"] = (0.9, -0.25, 0.3, 0.0)
    embeddings["stream"] = (0.7, 0.0, 0.4, 0.2)
    W_Q = [list(r) for r in RIVER_BANK.W_Q]
    W_K = [list(r) for r in RIVER_BANK.W_K]
    W_Q[0][1] = 0.5
    W_K[3][1] = -1.25
    return World(
        axes=RIVER_BANK.axes,
        channels=RIVER_BANK.channels,
        sentences=RIVER_BANK.sentences,
        embeddings=embeddings,
        W_Q=tuple(map(tuple, W_Q)),
        W_K=tuple(map(tuple, W_K)),
    )


def make_edits(page) -> None:
    edit(page, "bank, water", "0.6")
    edit(page, "river, money", "-0.25")
    edit(page, "W_Q, water, place", "0.5")
    edit(page, "W_K, filler, place", "-1.25")
    add_word(page, "stream")
    edit(page, "stream, water", "0.7")
    edit(page, "stream, place", "0.4")
    edit(page, "stream, filler", "0.2")


@pytest.mark.parametrize("mode", ["raw", "wired"])
def test_after_edits_a_new_word_and_the_mask_the_numbers_are_mechanisms(page, mode):
    make_edits(page)
    sentence = ["the", "stream", "bank", "river"]
    choose(page, mode, mode == "wired", True, sentence)
    assert_page_shows(page, edited_world(), sentence, mode, mode == "wired", True)


def test_renaming_a_word_renames_it_in_the_sentences_and_the_numbers_follow(page):
    name = page.get_by_label("name of word 4")
    name.fill("shore")
    name.press("Enter")
    renamed = World(
        axes=RIVER_BANK.axes,
        channels=RIVER_BANK.channels,
        sentences=(("the", "river", "shore"), ("the", "money", "shore")),
        embeddings={("shore" if w == "bank" else w): row for w, row in RIVER_BANK.embeddings.items()},
        W_Q=RIVER_BANK.W_Q,
        W_K=RIVER_BANK.W_K,
    )
    assert page.locator("[data-test-sentence]").all_inner_texts() == ["the river shore", "the money shore"]
    choose(page, "wired", True, False, 1)
    assert_page_shows(page, renamed, renamed.sentences[1], "wired", True, False)


def test_an_arrow_key_on_a_cell_updates_the_numbers_and_keeps_the_focus(page):
    cell = page.get_by_label("bank, water", exact=True)
    cell.focus()
    for _ in range(3):
        page.keyboard.press("ArrowUp")
    assert cell.input_value() == "0.6"
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "bank, water"
    world = dataclasses.replace(RIVER_BANK, embeddings={**RIVER_BANK.embeddings, "bank": (0.6, 0.3, 0.9, 0.0)})
    assert_page_shows(page, world, RIVER_BANK.sentences[0], "raw", False, False)


def test_every_control_is_reachable_with_the_tab_key_in_page_order(page):
    page.locator("[data-test-sentence='0']").focus()
    reached = set()
    name = "(e => e.id || e.getAttribute('aria-label') || e.textContent)(document.activeElement)"
    for _ in range(80):
        page.keyboard.press("Tab")
        reached.add(page.evaluate(name))
    controls = ("pg-sentence", "pg-mode-raw", "pg-scale", "pg-causal", "bank, water", "W_K, filler, place", "pg-add-word", "pg-reset")
    assert set(controls) <= reached


def test_the_control_that_has_the_keyboard_focus_shows_an_outline(page):
    page.get_by_label("bank, water", exact=True).focus()
    page.keyboard.press("Tab")  # focus moved by the keyboard: :focus-visible applies
    outline = page.evaluate("(() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; })()")
    assert outline == ["solid", "3px"]


def test_no_serious_accessibility_violation_with_a_notice_and_a_marked_cell(watched, server):
    from axe_playwright_python.sync_playwright import Axe

    page = open_playground(watched, f"{server}/playground.html#world=broken")
    page.get_by_label("bank, water", exact=True).fill("")
    page.get_by_label("Or type a sentence").fill("the sea")
    page.get_by_label("Or type a sentence").press("Enter")
    results = Axe().run(page)
    bad = [f"{v['id']}: {v['help']}" for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == []


def test_every_input_has_an_accessible_name(page):
    unnamed = page.evaluate(
        """Array.from(document.querySelectorAll('#playground input, #playground textarea, #playground button'))
           .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
           .map(e => e.outerHTML)"""
    )
    assert unnamed == []


# ---- bad input never breaks the page ----------------------------------------------------------


@pytest.mark.parametrize("keys", ["-", "", ".", "-."], ids=["minus", "empty", "dot", "minus-dot"])
def test_a_cell_that_is_not_a_number_is_marked_and_the_last_numbers_stay(watched, page, keys):
    before = cells(page, "weights")
    cell = page.get_by_label("bank, water", exact=True)
    cell.fill("")
    if keys:
        cell.press_sequentially(keys)
    assert cell.get_attribute("aria-invalid") == "true"
    assert cell.evaluate("c => getComputedStyle(c).borderTopWidth") == "2px"
    assert page.locator("#pg-world-error").inner_text() == (
        "bank, water: not a number. The numbers above are from the last valid world."
    )
    assert cells(page, "weights") == before
    assert "NaN" not in page_text(page)
    assert watched.problems() == []


def test_a_half_typed_number_keeps_the_numbers_of_its_last_valid_prefix(page):
    page.get_by_label("bank, water", exact=True).fill("")
    page.get_by_label("bank, water", exact=True).press_sequentially("1e")
    world = dataclasses.replace(RIVER_BANK, embeddings={**RIVER_BANK.embeddings, "bank": (1.0, 0.3, 0.9, 0.0)})
    assert_page_shows(page, world, RIVER_BANK.sentences[0], "raw", False, False)


def test_fixing_an_invalid_cell_clears_its_mark_and_message(page):
    cell = page.get_by_label("bank, water", exact=True)
    cell.fill("")
    cell.fill("0.5")
    assert cell.get_attribute("aria-invalid") is None
    assert not page.locator("#pg-world-error").is_visible()


def test_a_number_too_large_to_compute_is_refused_without_nan(watched, page):
    before = cells(page, "outputs", "axis")
    edit(page, "bank, water", "1e200")
    assert "too large" in page.locator("#pg-world-error").inner_text()
    assert cells(page, "outputs", "axis") == before
    assert "NaN" not in page_text(page) and "Infinity" not in page_text(page)
    assert watched.problems() == []


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "a sentence needs at least 2 words (got 0)"),
        ("bank", "a sentence needs at least 2 words (got 1)"),
        ("the river bank " * 3, "the playground shows at most 8 words (got 9)"),
        ("the ocean bank", "'ocean' is not in the vocabulary (the, river, money, bank)"),
    ],
    ids=["empty", "one-word", "nine-words", "unknown-word"],
)
def test_a_sentence_the_page_cannot_show_gets_a_message_and_the_last_stays(watched, page, typed, message):
    before = cells(page, "weights")
    page.get_by_label("Or type a sentence").fill(typed)
    page.get_by_label("Or type a sentence").press("Enter")
    assert page.locator("#pg-sentence-error").inner_text() == f"{message}; still showing the river bank"
    assert page.get_by_label("Or type a sentence").get_attribute("aria-invalid") == "true"
    assert cells(page, "weights") == before
    assert watched.problems() == []


@pytest.mark.parametrize(
    ("name", "message"),
    [("bank", "'bank' is already a word"), ("two words", "'two words' is not a word: use 1-16 letters, digits, _ or -")],
)
def test_a_word_the_world_cannot_take_is_refused_with_a_message(page, name, message):
    add_word(page, name)
    assert page.locator("#pg-add-error").inner_text() == message
    assert page.locator("input.pg-name").count() == len(RIVER_BANK.words)


def test_text_a_learner_types_is_shown_as_text_never_as_markup(watched, page):
    attack = "<img src=x onerror=window.pwned=1>"
    add_word(page, attack)
    assert page.locator("#pg-add-error").inner_text().startswith(f"'{attack}'")
    assert page.locator("#playground img").count() == 0
    assert page.evaluate("window.pwned") is None
    assert watched.problems() == []


# ---- the address holds the state ---------------------------------------------------------------


def fragment_of(payload) -> str:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return "#world=" + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def canonical_payload(**changes):
    w = RIVER_BANK
    payload = {
        "v": 1, "axes": list(w.axes), "channels": list(w.channels), "sentences": [list(s) for s in w.sentences],
        "embeddings": [[word, list(row)] for word, row in w.embeddings.items()],
        "W_Q": [list(r) for r in w.W_Q], "W_K": [list(r) for r in w.W_K],
        "sentence": ["the", "money", "bank"], "mode": "wired", "scale": True, "causal": False,
    }  # fmt: skip
    return payload | changes


def test_a_link_carries_the_world_the_sentence_and_the_switches(watched, server, page):
    make_edits(page)
    choose(page, "wired", False, True, ["the", "stream", "bank"])
    page.wait_for_function(ADDRESS_WRITTEN)
    link = page.evaluate("location.href")
    other = watched.page.context.new_page()
    other.goto(link)
    other.wait_for_function("document.getElementById('playground').dataset.ready === 'true'")
    assert_page_shows(other, edited_world(), ["the", "stream", "bank"], "wired", False, True)
    assert other.locator("#pg-notice").is_hidden()


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ("#world=%%%not-base64", "link: the world in this link is damaged"),
        (fragment_of("{ this is not json"), "link: the world in this link is damaged"),
        (fragment_of(canonical_payload(v=7)), "link: written by another version of the playground (v = 7)"),
        (
            fragment_of(canonical_payload(embeddings=[["the", [0, 0, 0, 1]], ["bank", [0.3, 0.3]]])),
            "link: embeddings.bank: must be 4 numbers (one per axis), got 2",
        ),
        (fragment_of(canonical_payload(sentence=["the", "sea"])), "link: sentence: 'sea' is not in the vocabulary"),
        (fragment_of(canonical_payload(mode="<b>bold</b>")), "link: mode: must be raw or wired"),
        (fragment_of(canonical_payload(positions="alibi")), "link: positions: must be one of none, sinusoidal, rope"),
    ],
    ids=["not-base64", "not-json", "other-version", "short-row", "unknown-word", "bad-mode", "bad-positions"],
)
def test_a_broken_link_shows_the_canonical_world_and_says_why(watched, server, fragment, message):
    page = open_playground(watched, f"{server}/playground.html{fragment}")
    notice = page.locator("#pg-notice")
    assert notice.is_visible()
    assert notice.inner_text().startswith(message)
    assert notice.inner_text().endswith("Showing the canonical world instead.")
    assert cells(page, "weights") == {(i, j): run_value(f"s3.weights.0.{i}.{j}") for i in range(3) for j in range(3)}
    assert "NaN" not in page_text(page)
    assert watched.problems() == []


@pytest.mark.parametrize("positions", ["sinusoidal", "rope"])
def test_a_link_carries_the_positions_switch(watched, page, positions):
    choose(page, "wired", True, True, FIRST[::-1])
    place(page, positions)
    page.wait_for_function(ADDRESS_WRITTEN)
    other = watched.page.context.new_page()
    other.goto(page.evaluate("location.href"))
    other.wait_for_function("document.getElementById('playground').dataset.ready === 'true'")
    assert other.get_by_label(POSITION_LABELS[positions]).is_checked()
    assert_positions_shown(other, RIVER_BANK, FIRST[::-1], "wired", True, True, positions)
    assert other.locator("#pg-notice").is_hidden()
    assert watched.problems() == []


def test_a_link_written_before_the_positions_switch_opens_with_positions_off(watched, server):
    page = open_playground(watched, f"{server}/playground.html{fragment_of(canonical_payload())}")
    assert page.locator("#pg-notice").is_hidden()
    assert page.get_by_label(POSITION_LABELS["none"]).is_checked()
    assert_page_shows(page, RIVER_BANK, ["the", "money", "bank"], "wired", True, False)


def test_a_headings_anchor_is_not_mistaken_for_a_broken_link(watched, server):
    page = open_playground(watched, f"{server}/playground.html#where-to-look-first")
    assert page.locator("#pg-notice").is_hidden()


# ---- the world file: export to the run, load from a file -------------------------------------


def download_world(page, tmp_path: Path) -> Path:
    with page.expect_download() as info:
        page.get_by_role("button", name="Download world file").click()
    path = tmp_path / "my-world.toml"
    info.value.save_as(path)
    return path


def test_the_downloaded_world_file_is_the_pages_world_for_the_run(page, tmp_path):
    make_edits(page)
    assert load_world(download_world(page, tmp_path)) == edited_world()


def test_the_canonical_world_downloads_as_the_canonical_world_file(page, tmp_path):
    assert load_world(download_world(page, tmp_path)) == load_world(ROOT / "worlds" / "river-bank.toml")


@pytest.mark.slow
def test_the_run_of_a_downloaded_world_prints_the_pages_numbers(page, tmp_path):
    make_edits(page)
    world_file = download_world(page, tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "attention_by_hand", "run", "--world", str(world_file), "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        timeout=HUNG,
    )
    assert done.returncode == 0, done.stderr
    index = json.loads((tmp_path / "run" / "captures" / "results.index.json").read_text(encoding="utf-8"))

    def logged(name):
        return index["values"][name]["text"].replace("-0.000", "0.000")

    for mode, scale, causal, k, weights, _, output in (p.values for p in LOGGED):
        choose(page, mode, scale, causal, k)
        n = len(RIVER_BANK.sentences[k])
        assert cells(page, "weights") == {(i, j): logged(f"{weights}.{i}.{j}") for i in range(n) for j in range(n)}
        if output:
            row = {a: t for (i, a), t in cells(page, "outputs", "axis").items() if i == n - 1}
            assert row == {a: logged(f"{output}.{a}") for a in RIVER_BANK.axes}


def test_a_pasted_world_file_is_loaded_and_its_numbers_are_mechanisms(page):
    text = (ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8").replace(
        "bank = [0.3, 0.3, 0.9, 0.0]", "bank = [0.5, 0.1, 0.9, 0.25]"
    )
    page.get_by_label("World file (edit or paste").fill(text)
    page.get_by_role("button", name="Load this text").click()
    assert page.locator("#pg-load-error").inner_text() == "Loaded pasted world file."
    choose(page, "wired", True, False, 1)
    world = parse_world(text)
    assert_page_shows(page, world, world.sentences[1], "wired", True, False)


def test_a_world_file_chosen_from_disk_is_loaded(page, tmp_path):
    path = tmp_path / "reef.toml"
    path.write_text(
        'axes = ["sea", "cash", "spot"]\nchannels = ["c"]\n'
        'sentences = [["a", "reef", "bank"], ["a", "loan", "bank"]]\n'
        "[embeddings]\na = [0, 0, 0]\nreef = [1, 0, 0.5]\nloan = [0, 1, 0]\nbank = [0.2, 0.2, 1]\n"
        "[wired]\nW_Q = [[0.5], [0.5], [1]]\nW_K = [[1], [1], [0]]\n",
        encoding="utf-8",
    )
    page.locator("#pg-load-file").set_input_files(path)
    page.wait_for_function("document.getElementById('pg-load-error').textContent === 'Loaded reef.toml.'")
    choose(page, "raw", False, False, 0)
    world = load_world(path)
    assert_page_shows(page, world, world.sentences[0], "raw", False, False)


BAD_WORLDS = [
    ('colour = "blue"', None),
    ("", "wired"),
    ("bank = [0.3, 0.3, 0.9]", None),
    ("bank = [0.3, true, 0.9, 0.0]", None),
    ("bank = [0.3, inf, 0.9, 0.0]", None),
    ("bank = [0.3, 2000000, 0.9, 0.0]", None),
    ('bank = [0.3, "x", 0.9, 0.0]', None),
    ('"b@nk" = [0.3, 0.3, 0.9, 0.0]', None),
    ('sentences = [["the", "river", "bank"], ["the", "sea", "bank"]]', "sentences"),
    ('sentences = [["the", "river", "bank"], ["money", "bank"]]', "sentences"),
    ('sentences = [["the", "river", "bank"], ["the", "bank", "money"]]', "sentences"),
    ('axes = ["water", "water", "place", "filler"]', "axes"),
    ("W_Q = [[0.0, 0.0], [0.0, 0.0], [2.0, 0.0]]", "W_Q"),
]


def broken(line: str, replaces: str | None) -> str:
    """The canonical world file with one line replaced (or, for `colour`, one added)."""
    text = (ROOT / "worlds" / "river-bank.toml").read_text(encoding="utf-8")
    if replaces is None and line.split(" =")[0] in ("bank", '"b@nk"'):
        return text.replace("bank = [0.3, 0.3, 0.9, 0.0]", line)
    if replaces is None:
        return line + "\n" + text
    if replaces == "wired":
        return text.split("[wired]")[0]
    start = text.index(f"\n{replaces} = ") + 1
    end = text.index("\n", start)
    return text[:start] + line + text[end:]


@pytest.mark.parametrize(("line", "replaces"), BAD_WORLDS)
def test_a_world_file_the_run_refuses_is_refused_with_the_runs_words(watched, page, line, replaces):
    text = broken(line, replaces)
    with pytest.raises(UserError) as refused:
        parse_world(text, source="pasted world file")
    before = cells(page, "weights")
    page.get_by_label("World file (edit or paste").fill(text)
    page.get_by_role("button", name="Load this text").click()
    assert page.locator("#pg-load-error").inner_text() == str(refused.value)
    assert cells(page, "weights") == before
    assert watched.problems() == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("axes = [\n", "line 2: an array is not closed (missing ']')"),
        ("a.b = 1\n", "line 1: dotted keys (a.b) are not part of a world file"),
        ("x = { y = 1 }\n", "line 1: inline tables {...} are not part of a world file"),
        ("x = 0x1F\n", "line 1: write numbers in decimal (0x, 0o and 0b are not read here)"),
        ("x = 1979-05-27\n", "line 1: '1979-05-27' is not a value a world file holds"),
        ("   \n", "the world file is empty"),
    ],
    ids=["open-array", "dotted-key", "inline-table", "hex", "date", "blank"],
)
def test_toml_the_page_does_not_read_gets_a_message_naming_the_line(watched, page, text, message):
    page.get_by_label("World file (edit or paste").fill(text)
    page.get_by_role("button", name="Load this text").click()
    assert page.locator("#pg-load-error").inner_text() == f"pasted world file: {message}"
    assert watched.problems() == []


def test_reset_brings_back_the_canonical_world(page):
    make_edits(page)
    page.get_by_role("button", name="Reset to the canonical world").click()
    assert page.locator("input.pg-name").count() == len(RIVER_BANK.words)
    assert page.get_by_label("bank, water", exact=True).input_value() == "0.3"
    assert page.locator("#pg-crosscheck").get_attribute("data-match") == "run"


# ---- the page's small parts, checked against Python --------------------------------------------


def test_numbers_print_as_pythons_three_decimals_without_minus_zero(page):
    values = [0.0625, -0.0625, 0.1875, 2.5625, 0.0005, 0.0015, 1 / 3, 2 / 3, -1e-12, 123.4565, 0.5, -0.0, 1e-300]
    printed = page.evaluate("vs => vs.map(v => window.AttentionPlayground.format.fixed3(v))", values)
    assert printed == [shown(v) for v in values]


def test_exported_numbers_read_back_as_the_same_doubles_in_python(page):
    values = [0.1 + 0.2, 1e-7, 5e300, -0.0, 2.0, 1e21, 123456789.125, -0.25, 1 / 3, 2.0**-1074]
    texts = page.evaluate("vs => vs.map(v => window.AttentionPlayground.toml.number(v))", values)
    read = [tomllib.loads(f"x = {t}")["x"] for t in texts]
    assert read == values
    assert [math.copysign(1, r) for r in read] == [math.copysign(1, v) for v in values]


NAMES = ["bank", "a-b_c", "x" * 16, "x" * 17, "", "two words", "a.b", "café", "日本", "٣", "e\u0301", "<b>", "Ⅻ"]


def test_the_page_accepts_exactly_the_names_world_py_accepts(page):
    from attention_by_hand.run.world import NAME_RULE

    accepted = page.evaluate("ns => ns.map(n => window.AttentionPlayground.world.NAME.test(n))", NAMES)
    assert accepted == [bool(NAME_RULE.fullmatch(n)) for n in NAMES]


def test_the_pages_limits_and_plane_colours_are_the_ones_python_gives_it(page):
    from attention_by_hand.site.sphinxext.playground import PAGE_LIMITS, plane_colours

    assert page.evaluate("window.AttentionPlayground.world.LIMITS") == PAGE_LIMITS
    fills = page.eval_on_selector_all("[data-playground='plane'] circle", "cs => cs.map(c => c.getAttribute('fill'))")
    colours = plane_colours()
    assert fills == [*colours["context"], colours["embedding"]]
    strokes = page.eval_on_selector_all("[data-playground='plane'] line[marker-end]", "ls => ls.map(l => l.getAttribute('stroke'))")
    assert strokes == [colours["output"]] * 2


def test_heatmap_colours_are_matplotlibs_blues_with_legible_text(page):
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    choose(page, "wired", False, False, 0)
    found = page.eval_on_selector_all(
        "[data-playground='weights'] td[data-row]",
        "cs => cs.map(c => [+c.dataset.row, +c.dataset.col, getComputedStyle(c).backgroundColor, getComputedStyle(c).color])",
    )
    _, weights, _ = reference(RIVER_BANK, RIVER_BANK.sentences[0], "wired", False, False)
    for i, j, background, colour in found:
        r, g, b = (int(x) for x in background[4:-1].split(","))
        assert f"#{r:02x}{g:02x}{b:02x}" == to_hex(colormaps["Blues"](weights[i, j]))
        luminance = sum(w * ((c / 255 / 12.92) if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4)
                        for w, c in zip((0.2126, 0.7152, 0.0722), (r, g, b)))  # fmt: skip
        text_luminance = 1.0 if colour == "rgb(255, 255, 255)" else 0.0
        light, dark = max(luminance, text_luminance), min(luminance, text_luminance)
        assert (light + 0.05) / (dark + 0.05) >= 4.5


# ---- offline, on a phone, from a folder ---------------------------------------------------------


def test_a_whole_session_makes_no_request_off_127_0_0_1_and_no_console_error(watched, page, tmp_path):
    make_edits(page)
    choose(page, "wired", False, True, ["the", "stream", "bank", "money"])
    download_world(page, tmp_path)
    page.get_by_role("button", name="Reset to the canonical world").click()
    page.wait_for_function(SETTLED)  # what the reset set off, its address included, is done
    assert watched.problems() == []


@pytest.mark.parametrize("watched", [PHONE], indirect=True)
def test_at_390_px_the_page_never_scrolls_sideways_even_with_eight_words(watched, page):
    add_word(page, "riverbank-long")
    choose(page, "wired", True, True, ["the", "riverbank-long", "money", "bank", "river", "the", "money", "bank"])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_session_with_every_positions_setting_makes_no_console_error(watched, page):
    make_edits(page)
    for positions in ("sinusoidal", "rope", "none"):
        for mode in ("raw", "wired"):
            choose(page, mode, mode == "wired", True, ["the", "stream", "bank", "money"])
            place(page, positions)
            edit(page, "stream, water", "0.8")
    page.get_by_role("button", name="Reset to the canonical world").click()
    page.wait_for_function(SETTLED)  # what the reset set off, its address included, is done
    assert "NaN" not in page_text(page)
    assert watched.problems() == []


@pytest.mark.parametrize("watched", [PHONE], indirect=True)
@pytest.mark.parametrize(("positions", "mode"), [("sinusoidal", "raw"), ("rope", "wired"), ("rope", "raw")])
def test_at_390_px_the_position_tables_fit_and_eight_words_never_scroll_the_page(watched, page, positions, mode):
    choose(page, mode, True, False, 0)
    place(page, positions)
    overflowing = page.evaluate(
        "Array.from(document.querySelectorAll('#playground .pg-block'))"
        ".filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.id)"
    )
    assert overflowing == []
    choose(page, mode, True, False, ["the", "river", "money", "bank", "river", "the", "money", "bank"])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.parametrize("watched", [PHONE], indirect=True)
def test_at_390_px_the_canonical_tables_and_editors_fit_without_scrolling(watched, page):
    overflowing = page.evaluate(
        "Array.from(document.querySelectorAll('#playground .pg-block'))"
        ".filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.id)"
    )
    assert overflowing == []


def test_from_a_folder_the_page_starts_without_a_console_error(watched, site):
    page = open_playground(watched, (site / "playground.html").as_uri())
    assert page.locator("#pg-crosscheck").get_attribute("data-match") == "run"
    assert watched.problems() == []


def test_from_a_folder_an_edit_still_recomputes_and_goes_into_the_address(watched, site):
    page = open_playground(watched, (site / "playground.html").as_uri())
    edit(page, "bank, water", "0.6")
    page.wait_for_function("location.hash.startsWith('#world=')")
    assert page.locator("#pg-crosscheck").get_attribute("data-match") == "own"
    assert watched.problems() == []
