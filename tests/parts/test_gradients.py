"""The gradients part's own numbers (G1-G4), each against torch.autograd or a formula written out here.

Nothing here calls math/gradients.py: the references are torch's, recomputed from the world.
A printed number is compared with the reference to half a unit of its last printed place (plus
float64 noise). What every part promises (files, determinism, the index) is test_contract.py.
"""

import math
import re

import numpy as np
import pytest
import torch

from attention_by_hand.run.world import RIVER_BANK as W
from runhelpers import log_lines, read_index, text, value

SECTIONS = ("g1", "g2", "g3", "g4")
SENTENCE = list(W.sentences[0])


@pytest.fixture(scope="module")
def result(part_run):
    return part_run("gradients")


@pytest.fixture(scope="module")
def lines(result) -> list[str]:
    return log_lines(result)


@pytest.fixture(scope="module")
def index(result) -> dict:
    return read_index(result)


def printed(index: dict, name: str) -> tuple[float, float]:
    """A printed number and half a unit of its last place."""
    digits = text(index, name).split(".")[-1]
    return value(index, name), 0.5 * 10.0 ** -len(digits) + 1e-12


def assert_printed(index: dict, prefix: str, expected) -> None:
    """Every entry `<prefix>.<i>[.<j>]` of the index is `expected` to its printed places."""
    expected = np.atleast_2d(np.asarray(expected, dtype=np.float64))
    names = [name for name in index["values"] if name.startswith(prefix + ".")]
    assert len(names) == expected.size, (prefix, len(names))
    for name in names:
        cell = tuple(int(i) for i in name[len(prefix) + 1 :].split("."))
        number, half = printed(index, name)
        at = cell if len(cell) == 2 else (0, cell[0])
        assert abs(number - expected[at]) <= half, (name, number, expected[at])


def wired_head(W_Q: torch.Tensor, W_K: torch.Tensor, sentence):
    """torch: the wired head on a sentence -> (X, Q, K, S, P, O), V = X."""
    X = torch.tensor(W.embed(sentence))
    Q, K = X @ W_Q, X @ W_K
    S = Q @ K.T / math.sqrt(W_K.shape[1])
    P = torch.softmax(S, dim=-1)
    return X, Q, K, S, P, P @ X


# --- the log's shape -----------------------------------------------------------------------------


def test_the_header_names_the_gradients_log_and_module_6(lines):
    assert lines[1] == "LLM Self-Attention by Hand -- gradients log"
    assert lines[3].startswith("Module 6: ")


def test_the_sections_come_in_order_and_nothing_else_is_a_heading(lines):
    assert [line[:4] for line in lines if line.startswith("[")] == [f"[{s.upper()}]" for s in SECTIONS]


def test_the_log_has_no_times(lines):
    assert [line for line in lines if re.search(r"\d\s*(ms|s|seconds?)\b", line)] == []


def test_every_verdict_in_the_log_is_true(lines):
    verdicts = [v for line in lines for v in re.findall(r"-> (\w+)", line)]
    assert len(verdicts) == 27  # G1 6, G2 10, G3 1, G4 4 + 6
    assert set(verdicts) == {"True"}


def test_every_difference_is_printed_as_a_bound_never_as_its_noise(lines):
    assert [line for line in lines if re.search(r"\d\.\d+e-\d+", line)] == []


@pytest.mark.parametrize("name, bound", [("g1.autograd.ds", "1e-12"), ("g2.autograd.dW_Q", "1e-12"), ("g4.random.causal.dK", "1e-10")])
def test_the_stated_tolerances_are_the_ones_the_log_prints(lines, index, name, bound):
    assert value(index, name) is True
    assert any(f"< {bound} -> True" in line for line in lines)


# --- G1 ------------------------------------------------------------------------------------------


def g1_reference():
    scores = torch.tensor([W.vector(W.ambiguous) @ W.vector(word) for word in SENTENCE], requires_grad=True)
    jacobian = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, dim=-1), scores.detach())
    dp = torch.tensor([0.0, -1.0, 0.0])  # the loss is minus river's weight
    (torch.softmax(scores, dim=-1) * dp).sum().backward()
    return jacobian.numpy(), scores.grad.numpy()


def test_g1_jacobian_is_torchs(index):
    assert_printed(index, "g1.jacobian", g1_reference()[0])


def test_g1_rows_of_the_printed_jacobian_sum_to_zero_within_rounding(index):
    for i in range(3):
        assert abs(sum(value(index, f"g1.jacobian.{i}.{j}") for j in range(3))) <= 0.0015


def test_g1_dp_is_minus_one_on_the_context_word(index):
    assert [value(index, f"g1.dp.{i}") for i in range(3)] == [0.0, -1.0, 0.0]


def test_g1_short_form_is_torchs_backward(index):
    assert_printed(index, "g1.ds", g1_reference()[1])


# --- G2 ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def g2_reference():
    """torch.autograd at every stage of S4's head for G2's loss: 1/2 |o_bank - river|^2."""
    wq, wk = torch.tensor(W.wired_W_Q, requires_grad=True), torch.tensor(W.wired_W_K, requires_grad=True)
    X = torch.tensor(W.embed(SENTENCE))
    V = X.clone().requires_grad_()
    Q, K = X @ wq, X @ wk
    S = Q @ K.T / math.sqrt(2)
    P = torch.softmax(S, dim=-1)
    O = P @ V
    for tensor in (Q, K, S, P, O):
        tensor.retain_grad()
    loss = 0.5 * ((O[-1] - torch.tensor(W.vector("river"))) ** 2).sum()
    loss.backward()
    grads = {"dO": O.grad, "dV": V.grad, "dP": P.grad, "dS": S.grad, "dQ": Q.grad, "dK": K.grad, "dW_Q": wq.grad, "dW_K": wk.grad}
    return {"loss": loss.item(), "D": (O.grad * O).sum(dim=1).detach().numpy(), **{k: g.numpy() for k, g in grads.items()}}


@pytest.mark.parametrize("stage", ["dO", "dV", "dP", "dS", "dQ", "dK", "dW_Q", "dW_K"])
def test_g2_every_printed_stage_is_torch_autograds(index, g2_reference, stage):
    assert_printed(index, f"g2.{stage}", g2_reference[stage])
    assert value(index, f"g2.autograd.{stage}") is True


def test_g2_loss_is_half_the_squared_distance_to_rivers_embedding(index, g2_reference):
    number, half = printed(index, "g2.loss")
    assert abs(number - g2_reference["loss"]) <= half


def test_g2_prints_D_from_the_output_and_from_the_weights_and_both_are_torchs(index, g2_reference):
    assert_printed(index, "g2.D", g2_reference["D"])
    assert_printed(index, "g2.D_weights", g2_reference["D"])


def test_g2_finite_difference_slope_equals_the_gradient_it_checks(index, g2_reference):
    assert text(index, "g2.slope.entry") == "W_Q[place, topic]"
    fd, half = printed(index, "g2.slope.fd")
    assert abs(fd - g2_reference["dW_Q"][2, 0]) <= half + 1e-8
    assert text(index, "g2.slope.fd") == text(index, "g2.slope.backward")


def test_g2_only_banks_query_gets_a_gradient(index):
    # The loss reads bank's output only, and bank's output depends on the others' keys, not their queries.
    assert all(value(index, f"g2.dQ.{i}.{j}") == 0.0 for i in (0, 1) for j in (0, 1))
    assert value(index, "g2.dQ.2.0") != 0.0


# --- G3 ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def descent(index):
    """G3 replayed with torch.autograd: the same start, rate and stop, W <- W - rate * dW."""
    rng = np.random.default_rng(value(index, "g3.seed"))
    scale, rate, threshold = value(index, "g3.start_scale"), value(index, "g3.rate"), value(index, "g3.threshold")
    shape = (len(W.axes), len(W.channels))
    wq = torch.tensor(rng.standard_normal(shape) * scale, requires_grad=True)
    wk = torch.tensor(rng.standard_normal(shape) * scale, requires_grad=True)
    history = []
    for step in range(2000):
        loss, on_context = 0.0, []
        for sentence in W.sentences:
            X, _, _, _, P, O = wired_head(wq, wk, sentence)
            loss = loss + 0.5 * ((O[-1] - torch.tensor(W.vector(sentence[-2]))) ** 2).sum()
            on_context.append(P[-1, -2].item())
        history.append((loss.item(), on_context))
        if min(on_context) >= threshold:
            break
        loss.backward()
        with torch.no_grad():
            wq -= rate * wq.grad
            wk -= rate * wk.grad
        wq.grad = wk.grad = None
    return history, wq.detach().numpy(), wk.detach().numpy()


def test_g3_stops_at_the_step_torch_stops_at(index, descent):
    history, _, _ = descent
    assert value(index, "g3.steps") == len(history) - 1
    for name, (loss, _) in (("first", history[0]), ("last", history[-1])):
        number, half = printed(index, f"g3.loss.{name}")
        assert abs(number - loss) <= half


@pytest.mark.parametrize("step", [0, 10, 50, 100])
def test_g3_printed_losses_and_weights_are_torchs(index, descent, step):
    history, _, _ = descent
    loss, on_context = history[step]
    number, half = printed(index, f"g3.loss.{step}")
    assert abs(number - loss) <= half
    for k in range(2):
        number, half = printed(index, f"g3.weight.{k}.{step}")
        assert abs(number - on_context[k]) <= half


def test_g3_the_printed_losses_fall_step_after_step(index):
    steps = sorted(int(name.split(".")[-1]) for name in index["values"] if re.fullmatch(r"g3\.loss\.\d+", name))
    losses = [value(index, f"g3.loss.{s}") for s in steps]
    assert len(steps) >= 5 and all(a > b for a, b in zip(losses, losses[1:]))


def test_g3_learned_weights_are_torchs(index, descent):
    _, wq, wk = descent
    assert_printed(index, "g3.W_Q", wq)
    assert_printed(index, "g3.W_K", wk)
    assert_printed(index, "g3.learned_product", wq @ wk.T)


def test_g3_the_learned_head_puts_bank_on_its_context_word_in_both_sentences(index):
    threshold = value(index, "g3.threshold")
    for k in range(2):
        weights = [value(index, f"g3.learned_weights.{k}.{i}") for i in range(3)]
        assert weights[1] >= threshold and weights[1] == max(weights)


def test_g3_wired_product_is_s4s(index):
    assert_printed(index, "g3.wired_product", W.wired_W_Q @ W.wired_W_K.T)


# --- G4 ------------------------------------------------------------------------------------------


def test_g4_recomputed_weights_are_s4s_weights(index):
    _, _, _, _, P, _ = wired_head(torch.tensor(W.wired_W_Q), torch.tensor(W.wired_W_K), SENTENCE)
    for j in range(3):
        number, half = printed(index, f"g4.toy.{j}.P")
        assert abs(number - P[-1, j].item()) <= half


def test_g4_lse_is_the_log_of_banks_softmax_denominator(index):
    _, _, _, S, _, _ = wired_head(torch.tensor(W.wired_W_Q), torch.tensor(W.wired_W_K), SENTENCE)
    number, half = printed(index, "g4.toy.lse")
    assert abs(number - torch.logsumexp(S[-1], dim=0).item()) <= half


def test_g4_tile_by_tile_pieces_add_up_to_g2s_gradients(index, g2_reference):
    for j in range(3):
        number, half = printed(index, f"g4.toy.{j}.dS")
        assert abs(number - g2_reference["dS"][2, j]) <= half
        for c in range(4):
            number, half = printed(index, f"g4.toy.{j}.dV.{c}")
            assert abs(number - g2_reference["dV"][j, c]) <= half  # only bank's row adds to dV
    for c in range(2):
        number, half = printed(index, f"g4.toy.2.dQ.{c}")
        assert abs(number - g2_reference["dQ"][2, c]) <= half  # after the last tile: the whole dQ


@pytest.mark.parametrize("case", ["full", "causal"])
@pytest.mark.parametrize("grad", ["dQ", "dK", "dV"])
def test_g4_random_head_agrees_with_autograd(index, case, grad):
    assert value(index, f"g4.random.{case}.{grad}") is True


@pytest.mark.parametrize("n", [1024, 8192, 32768])
def test_g4_kept_bytes_are_n_squared_against_n_times_65_at_gpt2_small(index, n):
    assert value(index, f"g4.kept.{n}.weights.head") == n * n * 4
    assert value(index, f"g4.kept.{n}.lse.head") == (n * 64 + n) * 4
    assert value(index, f"g4.kept.{n}.weights.model") == 144 * n * n * 4
    assert value(index, f"g4.kept.{n}.lse.model") == 144 * (n * 64 + n) * 4
