"""The gradients part (Module 6): G1-G4, how attention learns, by hand, checked against torch.autograd.

    G1 the softmax's backward: its Jacobian, and the short form without it
    G2 the wired head's backward, stage by stage, down to dW_Q and dW_K; one slope by finite differences
    G3 learning the head: gradient descent on W_Q and W_K until bank attends to its context word
    G4 the backward of the tiled head: from O and the log-sum-exp, one tile of weights at a time

Every lab that trains calls `loss.backward()`; this part writes out what flows back through
one head, on the toy world's numbers first (`math.gradients`), and compares every gradient it
prints with torch.autograd in float64: to 1e-12 on the toy head, to 1e-10 on a random head of
4,096 words. Differences print as bounds ("< 1e-12 -> True"), numbers through `fixed`, so a
learner's log matches ours byte for byte.

Left out: times and measured memory (benchmarks/attention_backward.py measures them), other
worlds (the toy world's sentences are the ones traced by hand), several heads and batches
(each head's backward is the same), and the gradient with respect to the embeddings.
"""

from __future__ import annotations

import math

import numpy as np

from attention_by_hand.math import gradients as G
from attention_by_hand.math import mechanism as M
from attention_by_hand.math import tiling as T
from attention_by_hand.parts.gradients import figures
from attention_by_hand.parts.gradients.descent import g3_learning
from attention_by_hand.parts.gradients.shared import SEED, bound, largest, last_word_dO
from attention_by_hand.run.capture import fixed
from attention_by_hand.run.environment import versions_line
from attention_by_hand.run.figures import FigureJob
from attention_by_hand.run.gpt2 import GPT2
from attention_by_hand.run.part import RunContext
from attention_by_hand.run.section_log import SectionLog, bracket, quoted
from attention_by_hand.run.world import RIVER_BANK

__all__ = ["write", "environment"]

# G1: the upstream gradient at bank's weights. The loss is minus the weight on river ("look at
# river more"), so dp is -1 on river and 0 elsewhere.
G1_DP = (0.0, -1.0, 0.0)
G1_SHIFT = 1.0  # G1 adds this to every dp: the softmax's backward ignores it

# G2: the loss on bank's output. Half the squared distance to a target: the context word's own
# embedding, the meaning bank should take from it.
FD_STEP = 1e-5  # h of the central difference (f(w + h) - f(w - h)) / 2h: its error is of order h^2
FD_BOUND = 1e-8  # |slope - gradient|: h^2 = 1e-10 times a third derivative of order 1, plus rounding
FD_ENTRY = ("place", 0)  # the entry of W_Q checked as a slope: the place axis's first channel

# G4.
RANDOM_BOUND = 1e-10  # float64 noise is about 1e-14 over sums of 4,096 terms
TOY_BLOCKS = (1, 2)
RANDOM_WORDS, RANDOM_D_K, RANDOM_BLOCK = 4_096, 64, 512  # L3's random head, tiles of 512
REFERENCE_ROWS = 1_024  # query rows per autograd call: 32 MiB of weights per float64 copy
KEPT_LENGTHS = (1_024, 8_192, 32_768)  # GPT-2's context, then long ones (L1's lengths)
KEPT_DTYPE = ("fp32", 4)  # training keeps activations in fp32 or wider


# --- G1 ------------------------------------------------------------------------------------------


def _softmax_autograd(scores: np.ndarray, dp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """torch's Jacobian of the softmax at `scores`, and its backward of `dp`.   (n, n), (n,)"""
    import torch

    s = torch.tensor(scores, dtype=torch.float64, requires_grad=True)
    jacobian = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, dim=-1), s)
    (torch.softmax(s, dim=-1) * torch.tensor(dp)).sum().backward()
    return jacobian.numpy(), s.grad.numpy()


def g1_softmax(log: SectionLog) -> None:
    """bank's S2 row: the Jacobian, an upstream gradient, the short form; all against autograd."""
    w = RIVER_BANK
    sentence, amb = w.sentences[0], w.ambiguous
    scores = np.array([M.dot(w.vector(amb), w.vector(word)) for word in sentence])  # (n,): S2's dots
    p = M.softmax(scores)  # (n,)
    J = G.softmax_jacobian(p)  # (n, n)
    dp = np.array(G1_DP)  # (n,)
    short = G.softmax_backward(p, dp)  # (n,)
    jacobian_torch, ds_torch = _softmax_autograd(scores, dp)
    with log.span("g1"):
        log.line("[G1] the softmax's backward")
        with log.span("g1.row"):
            log.line(f"  {amb}'s scores against {quoted(sentence)} (S2): s = {bracket(log.row('g1.scores', scores))}")
            log.line(f"  weights p = softmax(s) = {bracket(log.row('g1.weights', p))}")
        with log.span("g1.rule"):
            log.line("  the Jacobian J[i, j] = dp_i / ds_j = p_i (1 if i = j else 0) - p_i p_j, so J = diag(p) - p p^T")
        log.matrix("g1.jacobian", "J (row i: the weight p_i; column j: the score s_j it moves with):", J, sentence)
        with log.span("g1.rowsums"):
            log.line(f"  every row sums to 0: {bound(log, 'g1.rowsums', np.abs(J.sum(axis=1)).max())}")
            log.line("  (add the same number to every score and no weight moves); J is symmetric, so J^T dp = J dp")
        with log.span("g1.dp"):
            target = sentence[-2]
            log.line(f"  a loss that wants more weight on {target}: loss = -p_{target}, so the upstream gradient")
            log.line(f"  dp = d loss / dp = {bracket(log.row('g1.dp', dp))}")
        with log.span("g1.short"):
            dot = log.number("g1.p_dot_dp", p @ dp)
            log.line(f"  the short form: ds = p * (dp - p . dp), with p . dp = {dot}")
            log.line(f"    ds = p * (dp - p . dp) = {bracket(log.row('g1.ds', short))}")
            log.line(f"    ds = J dp              = {bracket(fixed(v) for v in J @ dp)}")
            log.line(f"  equal: {bound(log, 'g1.equal', np.abs(short - J @ dp).max())}; ds sums to 0: "
                     f"{bound(log, 'g1.ds_sum', abs(short.sum()))}")  # fmt: skip
        with log.span("g1.shift"):
            shift = log.value("g1.shift_by", G1_SHIFT, "{:.0f}")
            moved = np.abs(G.softmax_backward(p, dp + G1_SHIFT) - short).max()
            log.line(f"  dp + {shift} in every entry gives the same ds: {bound(log, 'g1.shift', moved)}")
        with log.span("g1.autograd"):
            log.line("  vs torch.autograd in float64 (torch.softmax):")
            log.line(f"    J:  max |difference| {bound(log, 'g1.autograd.jacobian', np.abs(J - jacobian_torch).max())}")
            log.line(f"    ds: max |difference| {bound(log, 'g1.autograd.ds', np.abs(short - ds_torch).max())}")
        cells = [[float(fixed(v)) for v in row] for row in J]  # the printed numbers: pixels never see the last bits
        log.figure(FigureJob("softmax_jacobian", figures.softmax_jacobian, dict(jacobian=cells, words=list(sentence))))
    log.line()


# --- G2 ------------------------------------------------------------------------------------------


def _head_loss(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, target: np.ndarray) -> float:
    """Half the squared distance from the last word's output to `target`: G2's loss."""
    out, _, _ = M.wired_attention(X, W_Q, W_K)  # (n_words, d_model)
    return 0.5 * float(np.sum((out[-1] - target) ** 2))


def _head_autograd(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, target: np.ndarray) -> dict[str, np.ndarray]:
    """torch.autograd's gradient at every stage of the wired head, for G2's loss, in float64."""
    import torch

    x = torch.tensor(X)
    wq, wk = torch.tensor(W_Q, requires_grad=True), torch.tensor(W_K, requires_grad=True)
    q, k = x @ wq, x @ wk  # (n_words, d_k) each
    v = x.clone().requires_grad_()  # V = X, as its own leaf: its gradient is dV
    s = q @ k.T / math.sqrt(W_K.shape[1])  # (n_words, n_words)
    p = torch.softmax(s, dim=-1)
    o = p @ v  # (n_words, d_model)
    for t in (q, k, s, p, o):
        t.retain_grad()
    (0.5 * ((o[-1] - torch.tensor(target)) ** 2).sum()).backward()
    grads = {"dO": o.grad, "dV": v.grad, "dP": p.grad, "dS": s.grad, "dQ": q.grad, "dK": k.grad, "dW_Q": wq.grad, "dW_K": wk.grad}
    return {name: g.numpy() for name, g in grads.items()}


def g2_head(log: SectionLog) -> None:
    """S4's wired head on the first sentence, backwards from a loss on bank's output."""
    w = RIVER_BANK
    sentence, amb, context = w.sentences[0], w.ambiguous, w.sentences[0][-2]
    X = w.embed(sentence)  # (n_words, d_model)
    W_Q, W_K = w.wired_W_Q, w.wired_W_K  # (d_model, d_k) each
    target = w.vector(context)  # (d_model,)
    out, _, _ = M.wired_attention(X, W_Q, W_K)  # (n_words, d_model)
    dO = last_word_dO(out, target)
    stages, dW_Q, dW_K = G.head_weight_gradients(X, W_Q, W_K, dO)
    torch_grads = _head_autograd(X, W_Q, W_K, target)
    d_k = len(w.channels)
    places = 4  # the gradients here are of order 0.01 to 0.3

    def matrix(key: str, title: str, ours: np.ndarray, rows, columns) -> None:
        """The stage's matrix, then its comparison with autograd's gradient at the same tensor."""
        log.matrix(f"g2.{key}", title, ours, rows, columns, places)
        log.line(f"    vs autograd: {bound(log, f'g2.autograd.{key}', np.abs(ours - torch_grads[key]).max())}")

    def stage(key: str, rule: str, name: str, ours: np.ndarray, labels: str, rows, columns) -> None:
        with log.span(f"g2.{key}_stage"):
            log.line(f"  {rule}")
            matrix(key, f"{name} ({labels}):", ours, rows, columns)

    with log.span("g2"):
        log.line("[G2] the wired head's backward")
        with log.span("g2.loss"):
            log.line(f"  S4's head on {quoted(sentence)}: Q = X W_Q, K = X W_K, V = X, S = Q K^T / sqrt({d_k}),")
            log.line("  P = softmax(S), O = P V. The loss asks bank's output to mean what its context word means:")
            log.line(f"    loss = 1/2 |o_{amb} - t|^2 with t = {context}'s embedding = {bracket(log.row('g2.target', target, w.axes, places=1))}")
            log.line(f"    o_{amb} = {bracket(log.row('g2.output', out[-1], w.axes))} (S4), loss = {log.number('g2.loss', _head_loss(X, W_Q, W_K, target), places)}")
        with log.span("g2.order"):
            log.line("  backwards, stage by stage (each a matrix the shape of what it is the gradient of):")
        matrices = ("words x axes", sentence, w.axes), ("words x channels", sentence, w.channels)
        stage("dO", f"dO = d loss / dO: o_{amb} - t on {amb}'s row, 0 on the others (their outputs are not in the loss)",
              "dO", dO, *matrices[0])  # fmt: skip
        stage("dV", "O = P V  ->  dV = P^T dO (value j gets dO_i in the share P_ij that row i took from it)",
              "dV", stages.dV, *matrices[0])  # fmt: skip
        stage("dP", "O = P V  ->  dP = dO V^T (dP_ij = dO_i . v_j)",
              "dP", stages.dP, "row: the word looking; column: the word looked at", sentence, sentence)  # fmt: skip
        with log.span("g2.D"):
            weights_side = np.sum(stages.P * stages.dP, axis=1)  # (n_words,): rowsum(P * dP)
            log.line("  D = rowsum(dO * O), one number per row, equal to rowsum(P * dP) since O = P V:")
            log.line(f"    rowsum(dO * O) = {bracket(log.row('g2.D', stages.D, places=places))}")
            log.line(f"    rowsum(P * dP) = {bracket(log.row('g2.D_weights', weights_side, places=places))}")
            log.line(f"    equal: {bound(log, 'g2.D_equal', np.abs(stages.D - weights_side).max())}")
        with log.span("g2.dS_stage"):
            log.line("  P = softmax(S), row by row (G1's short form)  ->  dS = P * (dP - D)")
            matrix("dS", "dS:", stages.dS, sentence, sentence)
        with log.span("g2.scale"):
            log.line(f"  S = Q K^T / sqrt({d_k}): the scale that divided every score divides both gradients")
        stage("dQ", f"dQ = dS K / sqrt({d_k}) (a row only moves if its own weights are in the loss)",
              "dQ", stages.dQ, *matrices[1])  # fmt: skip
        stage("dK", f"dK = dS^T Q / sqrt({d_k}) (dS transposed: key j gathers from every row that looked at it)",
              "dK", stages.dK, *matrices[1])  # fmt: skip
        with log.span("g2.dW_stage"):
            log.line("  Q = X W_Q  ->  dW_Q = X^T dQ;   K = X W_K  ->  dW_K = X^T dK")
            matrix("dW_Q", "dW_Q (axes x channels):", dW_Q, w.axes, w.channels)
            matrix("dW_K", "dW_K (axes x channels):", dW_K, w.axes, w.channels)
        _g2_slope(log, X, W_Q, W_K, target, dW_Q)
    log.line()


def _g2_slope(log: SectionLog, X, W_Q, W_K, target, dW_Q) -> None:
    """One entry of dW_Q as a slope: nudge it up and down by h and watch the loss."""
    w = RIVER_BANK
    axis, channel = FD_ENTRY
    i, j = w.axes.index(axis), channel
    up, down = W_Q.copy(), W_Q.copy()
    up[i, j] += FD_STEP
    down[i, j] -= FD_STEP
    slope = (_head_loss(X, up, W_K, target) - _head_loss(X, down, W_K, target)) / (2 * FD_STEP)
    entry = f"W_Q[{axis}, {w.channels[j]}]"
    with log.span("g2.slope"):
        log.line(f"  the definition of a derivative, on {log.value('g2.slope.entry', entry)}: nudge it by h = "
                 f"{log.value('g2.slope.h', FD_STEP, '{:.0e}')} up and down")  # fmt: skip
        log.line(f"    (loss(w + h) - loss(w - h)) / 2h = {log.number('g2.slope.fd', slope, 6)}")
        log.line(f"    the backward's d{entry}          = {log.number('g2.slope.backward', dW_Q[i, j], 6)}")
        log.line(f"    max |difference| {bound(log, 'g2.slope.equal', abs(slope - dW_Q[i, j]), FD_BOUND)}")


# --- G4 ------------------------------------------------------------------------------------------


def _sdpa_autograd(Q: np.ndarray, K: np.ndarray, V: np.ndarray, dO: np.ndarray, causal: bool):
    """dQ, dK, dV from torch.autograd through scaled_dot_product_attention, in float64.

    Q, K: (n, d_k), V, dO: (n, d_v). Query rows go REFERENCE_ROWS at a time (each row's output
    depends on its own query only, so dQ comes row block by row block and dK, dV add up across
    the blocks): a (1,024, 4,096) float64 matrix of weights is 32 MiB, the whole one 128 MiB.
    """
    import torch
    import torch.nn.functional as F

    n = len(Q)
    k, v = torch.tensor(K, requires_grad=True), torch.tensor(V, requires_grad=True)
    dQ = []
    for r0 in range(0, n, REFERENCE_ROWS):
        r1 = min(r0 + REFERENCE_ROWS, n)
        q = torch.tensor(Q[r0:r1], requires_grad=True)
        # An explicit mask says where these rows sit (is_causal would align it to row 0).
        allowed = torch.from_numpy(~(np.arange(n)[None, :] > np.arange(r0, r1)[:, None])) if causal else None
        F.scaled_dot_product_attention(q, k, v, attn_mask=allowed).backward(torch.tensor(dO[r0:r1]))
        dQ.append(q.grad.numpy())
    return np.concatenate(dQ), k.grad.numpy(), v.grad.numpy()


def g4_tiled(log: SectionLog) -> None:
    """The tiled head's backward: from O and lse, the toy head tile by tile, then 4,096 words."""
    w = RIVER_BANK
    sentence = w.sentences[0]
    X = w.embed(sentence)  # (n_words, d_model)
    Q, K, V = X @ w.wired_W_Q, X @ w.wired_W_K, X  # (n_words, d_k), (n_words, d_k), (n_words, d_model)
    out, _, _ = M.wired_attention(X, w.wired_W_Q, w.wired_W_K)
    dO = last_word_dO(out, w.vector(sentence[-2]))  # G2's loss
    whole = G.attention_backward(Q, K, V, dO)  # G2's stages
    sdpa = _sdpa_autograd(Q, K, V, dO, causal=False)
    with log.span("g4"):
        log.line("[G4] the backward of the tiled head")
        with log.span("g4.idea"):
            log.line("  the tiled forward (L3) keeps O and one number per row, lse = m + log(l), never P; since")
            log.line("  P_ij = exp(S_ij) / sum_j exp(S_ij) = exp(S_ij - lse_i), a tile of P comes back from its tile of S;")
            log.line("  D = rowsum(dO * O) needs only O. Then, tile by tile, G2's stages on that tile:")
            log.line("    dV_j += P_ij^T dO_i   dP_ij = dO_i V_j^T   dS_ij = P_ij * (dP_ij - D_i)")
            log.line("    dQ_i += dS_ij K_j / sqrt(d_k)   dK_j += dS_ij^T Q_i / sqrt(d_k)")
        _g4_toy_row(log, Q, K, V, dO)
        with log.span("g4.toy.equal"):
            for block in TOY_BLOCKS:
                O_tiled, lse = T.tiled_attention(Q, K, V, block)  # (n_words, d_model), (n_words,)
                grads = G.tiled_attention_backward(Q, K, V, O_tiled, lse, dO, block)
                vs_whole = bound(log, f"g4.toy.block{block}.whole", largest(*zip(grads, (whole.dQ, whole.dK, whole.dV))))
                vs_torch = bound(log, f"g4.toy.block{block}.autograd", largest(*zip(grads, sdpa)))
                words = "word" if block == 1 else "words"
                log.line(f"  every row, tiles of {block} {words}: dQ, dK, dV vs G2's whole-matrix backward {vs_whole},")
                log.line(f"    vs torch.autograd through scaled_dot_product_attention {vs_torch}")
        _g4_random(log)
        _g4_kept(log)
    log.line()


def _g4_toy_row(log: SectionLog, Q, K, V, dO) -> None:
    """bank's row with tiles of one key: what each tile recomputes and what it adds."""
    w = RIVER_BANK
    sentence, amb = w.sentences[0], w.ambiguous
    d_k = Q.shape[1]
    row = len(sentence) - 1
    O_tiled, lse = T.tiled_attention(Q, K, V, 1)
    trace: list[G.BackwardTile] = []
    G.tiled_attention_backward(Q, K, V, O_tiled, lse, dO, 1, trace=trace)
    tiles = [t for t in trace if t.rows == (row, row + 1)]  # bank's query block, one key each, in order
    D = float(dO[row] @ O_tiled[row])
    places = 4
    with log.span("g4.toy"):
        log.line(f"  S4's head on {quoted(sentence)}, G2's loss, tiles of 1 word; {amb}'s row, from what the forward kept:")
        log.line(f"    lse = {log.number('g4.toy.lse', lse[row], places)} (L3's m + log(l)),  "
                 f"D = dO . O = {log.number('g4.toy.D', D, places)} (G2's D)")  # fmt: skip
        log.line(f"    {'key':<7}{'S':>8}{'P = exp(S - lse)':>18}{'dP = dO . v':>13}{'dS':>9}")
        for tile in tiles:
            j = tile.keys[0]
            name = f"g4.toy.{j}"
            cells = [log.number(f"{name}.{what}", float(getattr(tile, what)[0, 0]), places) for what in ("S", "P", "dP", "dS")]
            log.line(f"    {sentence[j]:<7}{cells[0]:>8}{cells[1]:>18}{cells[2]:>13}{cells[3]:>9}")
        log.line(f"  what each tile adds (dK, dV: to its key's row; dQ: to {amb}'s row, shown after the tile):")
        dq = np.zeros(d_k)  # (d_k,)
        q = Q[row]  # (d_k,)
        for tile in tiles:
            j = tile.keys[0]
            p, ds = float(tile.P[0, 0]), float(tile.dS[0, 0])
            dq = dq + ds * K[j] / np.sqrt(d_k)
            dk = bracket(log.row(f"g4.toy.{j}.dK", ds * q / np.sqrt(d_k), places=places), 7)
            dv = bracket(log.row(f"g4.toy.{j}.dV", p * dO[row], places=places), 7)
            running = bracket(log.row(f"g4.toy.{j}.dQ", dq, places=places), 7)
            log.line(f"    {sentence[j]:<7}dK += {dk}  dV += {dv}  dQ = {running}")


def _g4_random(log: SectionLog) -> None:
    """L3's random head of 4,096 words and a random dO: the tiled backward against autograd."""
    n, d_k, b = RANDOM_WORDS, RANDOM_D_K, RANDOM_BLOCK
    rng = np.random.default_rng(SEED)
    Q, K, V = (rng.standard_normal((n, d_k)) for _ in range(3))  # (n_words, d_k) each: L3's head
    dO = rng.standard_normal((n, d_k))  # (n_words, d_v): the gradient from whatever comes after
    with log.span("g4.random"):
        log.line(
            f"  L3's random head (seed {SEED}): {log.value('g4.random.words', n, '{:,}')} words, d_k = "
            f"{log.value('g4.random.d_k', d_k)}, tiles of {log.value('g4.random.block', b)} x {b}, dO from the same generator;"
        )
        log.line(f"  against torch.autograd through scaled_dot_product_attention (query rows {REFERENCE_ROWS:,} at a time):")
        for causal in (False, True):
            case = "causal" if causal else "full"
            O_tiled, lse = T.tiled_attention(Q, K, V, b, causal=causal)  # (n, d_k), (n,)
            ours = G.tiled_attention_backward(Q, K, V, O_tiled, lse, dO, b, causal=causal)
            reference = _sdpa_autograd(Q, K, V, dO, causal)
            cells = [
                f"{name} {bound(log, f'g4.random.{case}.{name}', np.abs(a - r).max(), RANDOM_BOUND)}"
                for name, a, r in zip(("dQ", "dK", "dV"), ours, reference)
            ]
            label = "causal:" if causal else "not causal:"
            log.line(f"    {label:<12}{', '.join(cells)}")
        with log.span("g4.random.kept"):
            weights = log.size("g4.random.weights_bytes", G.saved_weights_bytes(n, 8))
            kept = log.size("g4.random.kept_bytes", G.saved_lse_bytes(n, d_k, 8))
            log.line(f"  the tiled backward read O and lse ({kept} in float64), never the {n:,} x {n:,} P ({weights})")


def _g4_kept(log: SectionLog) -> None:
    """What each backward keeps from the forward, at GPT-2 small's sizes."""
    heads, layers, d_v = GPT2["heads"], GPT2["layers"], GPT2["d_k"]
    dtype, size = KEPT_DTYPE
    with log.span("g4.kept"):
        log.line(f"  kept for the backward, GPT-2 small ({heads} heads x {layers} layers, d_v = {d_v}), {dtype}; Q, K, V kept by both:")
        log.line("    computed: P per head = n * n * bytes;  O and lse per head = (n * d_v + n) * bytes")
        log.line(f"    {'words':>8}  {'P, a head':>11}  {'O + lse':>11}  {'P, the model':>13}  {'O + lse':>11}  {'ratio':>6}")
        for n in KEPT_LENGTHS:
            cells = [
                log.size(f"g4.kept.{n}.weights.head", G.saved_weights_bytes(n, size)),
                log.size(f"g4.kept.{n}.lse.head", G.saved_lse_bytes(n, d_v, size)),
                log.size(f"g4.kept.{n}.weights.model", G.saved_weights_bytes(n, size, heads, layers)),
                log.size(f"g4.kept.{n}.lse.model", G.saved_lse_bytes(n, d_v, size, heads, layers)),
            ]
            ratio = log.value(f"g4.kept.{n}.ratio", G.saved_weights_bytes(n, 1) / G.saved_lse_bytes(n, d_v, 1), "{:,.0f}x")
            words = log.value(f"g4.kept.{n}.words", n, "{:,}")
            log.line(f"    {words:>8}  {cells[0]:>11}  {cells[1]:>11}  {cells[2]:>13}  {cells[3]:>11}  {ratio:>6}")
        log.line("  (P grows with n * n, O and lse with n: the ratio is n / (d_v + 1))")
        lengths = [2**k for k in range(8, 18)]  # 256 .. 128 K words, for the figure's lines
        data = dict(
            lengths=lengths,
            marked=list(KEPT_LENGTHS),
            weights=[float(G.saved_weights_bytes(n, size)) for n in lengths],
            kept=[float(G.saved_lse_bytes(n, d_v, size)) for n in lengths],
            d_v=d_v,
            dtype=dtype,
        )
        log.figure(FigureJob("backward_memory", figures.backward_memory, data))


def environment() -> str:
    """Line 3: the versions that make this log (torch answers every check; the seed draws G3 and G4)."""
    return versions_line(("torch", "numpy", "matplotlib"), seed=SEED)


def write(log: SectionLog, context: RunContext) -> None:
    """G1-G4 on the canonical world, through `log`."""
    log.header("gradients log", "Module 6: how attention learns: gradients by hand, each checked against torch.autograd")
    g1_softmax(log)
    g2_head(log)
    g3_learning(log)
    g4_tiled(log)
