"""G3 of the gradients part: learning the head, gradient descent on W_Q and W_K from a seeded start.

The loss is G2's, summed over both sentences; each step is G2's backward (`math.gradients`).
The descent runs in float64 until bank puts THRESHOLD of its weight on its context word in
both sentences; the log prints the loss and bank's weights at a few steps, and the learned head
beside S4's wired one, read through W_Q W_K^T (which alone decides the scores).

Left out: other optimisers (momentum, Adam), learning V, and other worlds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_by_hand.math import gradients as G
from attention_by_hand.math import mechanism as M
from attention_by_hand.parts.gradients import figures
from attention_by_hand.parts.gradients.shared import SEED, bound, largest, last_word_dO
from attention_by_hand.run.capture import fixed
from attention_by_hand.run.figures import FigureJob
from attention_by_hand.run.section_log import SectionLog, bracket, quoted
from attention_by_hand.run.world import RIVER_BANK

__all__ = ["g3_learning"]

# G3: a small seeded start (every weight near a third), plain gradient descent in float64.
START_SCALE = 0.1  # W_Q, W_K entries drawn from N(0, START_SCALE^2)
LEARNING_RATE = 0.5
THRESHOLD = 0.9  # stop when bank puts at least this weight on its context word, in both sentences
MAX_STEPS = 2_000  # a bound on the loop; the descent stops long before it
SHOWN_STEPS = (0, 10, 20, 30, 40, 50, 60, 80, 100)  # printed; the last step is printed too
# The stopping step must not depend on the last bits: the weight that crosses the threshold
# does so by more than this, and stood below it by more than this the step before.
CROSSING_MARGIN = 1e-9


@dataclass(frozen=True)
class DescentStep:
    """One step of G3: the loss before the update, and bank's weights in each sentence."""

    step: int
    loss: float
    weights: tuple[np.ndarray, ...]  # (n_words,) per sentence: the ambiguous word's row


def _two_sentences(W_Q: np.ndarray, W_K: np.ndarray):
    """G3's loss, its gradients and bank's weights, summed over both sentences.

    loss = sum over the sentences of 1/2 |o_bank - (the context word's embedding)|^2
    -> loss, dW_Q: (d_model, d_k), dW_K: (d_model, d_k), bank's weights per sentence
    """
    w = RIVER_BANK
    loss, dW_Q, dW_K, weights = 0.0, np.zeros_like(W_Q), np.zeros_like(W_K), []
    for sentence in w.sentences:
        X = w.embed(sentence)  # (n_words, d_model)
        out, P, _ = M.wired_attention(X, W_Q, W_K)
        target = w.vector(sentence[-2])
        dO = last_word_dO(out, target)
        _, dq, dk = G.head_weight_gradients(X, W_Q, W_K, dO)
        loss += 0.5 * float(np.sum(dO**2))
        dW_Q, dW_K = dW_Q + dq, dW_K + dk
        weights.append(P[-1])
    return loss, dW_Q, dW_K, tuple(weights)


def _start() -> tuple[np.ndarray, np.ndarray]:
    """The seeded start: W_Q, then W_K, each (d_model, d_k) with entries from N(0, START_SCALE^2)."""
    w = RIVER_BANK
    rng = np.random.default_rng(SEED)
    shape = (len(w.axes), len(w.channels))
    return rng.standard_normal(shape) * START_SCALE, rng.standard_normal(shape) * START_SCALE


def _learn() -> tuple[list[DescentStep], np.ndarray, np.ndarray]:
    """Gradient descent, W <- W - rate * dW, until bank's weight on its context word passes THRESHOLD.

    -> the steps (the last one at or past the threshold), the learned W_Q and W_K
    """
    W_Q, W_K = _start()
    context = len(RIVER_BANK.sentences[0]) - 2  # the context word sits just before the ambiguous one
    history: list[DescentStep] = []
    for step in range(MAX_STEPS + 1):
        loss, dW_Q, dW_K, weights = _two_sentences(W_Q, W_K)
        history.append(DescentStep(step, loss, weights))
        if min(row[context] for row in weights) >= THRESHOLD:
            break
        W_Q, W_K = W_Q - LEARNING_RATE * dW_Q, W_K - LEARNING_RATE * dW_K
    else:
        raise RuntimeError(f"G3's descent did not reach {THRESHOLD} in {MAX_STEPS} steps")
    last = min(row[context] for row in history[-1].weights)
    before = min(row[context] for row in history[-2].weights)
    if last - THRESHOLD < CROSSING_MARGIN or THRESHOLD - before < CROSSING_MARGIN:
        raise ValueError(f"G3 crosses {THRESHOLD} too close to it ({before!r} -> {last!r}): the stopping step is fragile")
    return history, W_Q, W_K


def _descent_autograd(W_Q: np.ndarray, W_K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """torch.autograd's dW_Q and dW_K of G3's loss at (W_Q, W_K), in float64."""
    import torch

    w = RIVER_BANK
    wq, wk = torch.tensor(W_Q, requires_grad=True), torch.tensor(W_K, requires_grad=True)
    total = 0.0
    for sentence in w.sentences:
        x = torch.tensor(w.embed(sentence))
        p = torch.softmax((x @ wq) @ (x @ wk).T / math.sqrt(W_K.shape[1]), dim=-1)
        total = total + 0.5 * ((p[-1] @ x - torch.tensor(w.vector(sentence[-2]))) ** 2).sum()
    total.backward()
    return wq.grad.numpy(), wk.grad.numpy()


def g3_learning(log: SectionLog) -> None:
    """Gradient descent on W_Q and W_K from a seeded start, and what it found beside S4's wiring."""
    w = RIVER_BANK
    amb = w.ambiguous
    context = len(w.sentences[0]) - 2
    contexts = [sentence[context] for sentence in w.sentences]
    history, W_Q, W_K = _learn()
    start_Q, start_K = _start()
    _, first_dq, first_dk, _ = _two_sentences(start_Q, start_K)
    torch_dq, torch_dk = _descent_autograd(start_Q, start_K)
    final = history[-1]
    with log.span("g3"):
        log.line("[G3] learning the head: gradient descent on W_Q and W_K")
        with log.span("g3.setup"):
            log.line(f"  loss = sum over both sentences of 1/2 |o_{amb} - (the context word's embedding)|^2:")
            log.line(f"  {amb} should take its meaning from {' / '.join(contexts)}; V = X stays fixed, only W_Q and W_K learn")
            log.line(
                f"  start: W_Q, W_K entries from N(0, {log.value('g3.start_scale', START_SCALE, '{:.1f}')}^2), "
                f"seed {log.value('g3.seed', SEED)}; step: W <- W - {log.value('g3.rate', LEARNING_RATE, '{:.1f}')} dW; "
                f"float64"
            )
            log.line(
                f"  stop when {amb} puts at least {log.value('g3.threshold', THRESHOLD, '{:.1f}')} of its weight on "
                f"its context word in both sentences"
            )
            log.line(f"  the first step's dW_Q, dW_K vs torch.autograd: "
                     f"{bound(log, 'g3.autograd', largest((first_dq, torch_dq), (first_dk, torch_dk)))}")  # fmt: skip
        with log.span("g3.descent"):
            log.line(f"  {'step':>6}  {'loss':>7}   {amb}'s weight on {contexts[0]} ({quoted(w.sentences[0])}), on {contexts[1]} ({quoted(w.sentences[1])})")
            shown = [s for s in history if s.step in SHOWN_STEPS or s is final]
            for s in shown:
                loss = log.number(f"g3.loss.{s.step}", s.loss, 4)
                on = [log.number(f"g3.weight.{k}.{s.step}", row[context]) for k, row in enumerate(s.weights)]
                log.line(f"  {s.step:>6}  {loss:>7}   {on[0]:>5}, {on[1]:>5}")
            steps = log.value("g3.steps", final.step)
            first, last = log.number("g3.loss.first", history[0].loss, 4), log.number("g3.loss.last", final.loss, 4)
            log.line(f"  reached after {steps} steps; the loss fell from {first} to {last}")
        _g3_found(log, W_Q, W_K, final)
        curve = dict(
            steps=[s.step for s in history],
            loss=[round(s.loss, 6) for s in history],  # rounded: the pixels never see the last bits
            weights=[[round(float(s.weights[k][context]), 6) for s in history] for k in range(len(w.sentences))],
            contexts=contexts,
            sentences=[" ".join(sentence) for sentence in w.sentences],
            threshold=THRESHOLD,
            wired=float(fixed(M.wired_attention(w.embed(w.sentences[0]), w.wired_W_Q, w.wired_W_K)[1][-1, context])),
            word=amb,
        )
        log.figure(FigureJob("descent", figures.descent, curve))
        products = dict(
            wired=[[float(fixed(v)) for v in row] for row in w.wired_W_Q @ w.wired_W_K.T],
            learned=[[float(fixed(v)) for v in row] for row in W_Q @ W_K.T],
            axes=list(w.axes),
        )
        log.figure(FigureJob("learned_head", figures.learned_head, products))
    log.line()


def _g3_found(log: SectionLog, W_Q: np.ndarray, W_K: np.ndarray, final: DescentStep) -> None:
    """The learned head beside S4's: the weights, and W_Q W_K^T, which alone decides the scores."""
    w = RIVER_BANK
    amb = w.ambiguous
    wired_product, learned_product = w.wired_W_Q @ w.wired_W_K.T, W_Q @ W_K.T  # (d_model, d_model) each
    log.matrix("g3.W_Q", "the learned W_Q (axes x channels):", W_Q, w.axes, w.channels)
    log.matrix("g3.W_K", "the learned W_K (axes x channels):", W_K, w.axes, w.channels)
    with log.span("g3.channels"):
        log.line(f"  its two channels are not S4's {' and '.join(w.channels)}: turning both W_Q and W_K by the same rotation")
        log.line("  changes no score, so the descent has no reason to find S4's; what the head computes is")
        log.line("  the score of a query axis against a key axis, W_Q W_K^T (rows: the query's axis, columns: the key's)")
    log.matrix("g3.wired_product", "S4's W_Q W_K^T:", wired_product, w.axes)
    log.matrix("g3.learned_product", "the learned W_Q W_K^T:", learned_product, w.axes)
    # The ambiguous word's own strongest axis: its question is that row of W_Q W_K^T.
    main = int(np.argmax(np.abs(w.vector(amb))))
    axis = w.axes[main]
    with log.span("g3.reading"):
        log.line(f"  {amb} is mostly {axis}, so its question is the {axis} row of W_Q W_K^T:")
        wired_row = [f"{key} {fixed(wired_product[main, j])}" for j, key in enumerate(w.axes)]
        learned_row = [f"{key} {log.number(f'g3.question.{key}', learned_product[main, j])}" for j, key in enumerate(w.axes)]
        log.line(f"    S4's:    {', '.join(wired_row)}")
        log.line(f"    learned: {', '.join(learned_row)}")
        for k, sentence in enumerate(w.sentences):
            X = w.embed(sentence)  # (n_words, d_model)
            wired = M.wired_attention(X, w.wired_W_Q, w.wired_W_K)[1][-1]  # (n_words,)
            learned = bracket(log.row(f"g3.learned_weights.{k}", final.weights[k]))
            log.line(f"  {amb}'s weights in {quoted(sentence)}: S4 {bracket(fixed(v) for v in wired)}, learned {learned}")
