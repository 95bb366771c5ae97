"""The canonical part: sections S1-S6 in teaching order, the log every early module quotes.

    S1 the toy world                     S4 a hand-wired query/key head
    S2 dot product and softmax           S5 why divide by sqrt(d_k), measured
    S3 attention with raw embeddings     S6 the general head vs PyTorch; causal mask; limits

Every number comes from `math.mechanism` applied to one `World` (the context's: the only
part that takes another world); every line goes through the part's `SectionLog`, which also
names the spans and values the workshop pages quote. The log is the workshop's published run,
byte for byte: this part prints numbers as the original script did (see run/section_log.py).
The only randomness is one generator seeded with 0, drawn in a fixed order by S5 and then S6
(measurements.py), so the log is the same bytes on every run.

Speed: S5's sampling and S6's PyTorch import take about 1.2 s together, and drawing the seven
figures about as long. So a helper process computes the measurements while this one writes
S1-S4 and draws; S5 and S6 ask for the helper's results by name when they get there.

Left out: writing the files and the stamp (run/part.py), the figures' drawing (figures.py).
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.math import mechanism as M
from attention_by_hand.parts.canonical import figures
from attention_by_hand.parts.canonical.measurements import S5_DIMS, S5_ROW, S5_TRIALS, SEED, Measurements
from attention_by_hand.run.environment import versions_line
from attention_by_hand.run.figures import BLUE, GREEN, GREY, FigureJob
from attention_by_hand.run.gpt2 import GPT2
from attention_by_hand.run.part import RunContext
from attention_by_hand.run.section_log import SectionLog, bracket, quoted
from attention_by_hand.run.world import World

__all__ = ["write", "environment"]


def _vec(values) -> str:
    return bracket(f"{v:.3f}" for v in values)


def _share_phrase(weight: float) -> str:
    """'half' when the printed weight is 0.500, else the printed number: the log must stay true."""
    return "half" if f"{weight:.3f}" == "0.500" else f"{weight:.3f} of"


def s1_toy_world(log: SectionLog, w: World) -> None:
    """The embedding table everything else builds on."""
    places = w.decimals
    with log.span("s1"):
        log.line("[S1] the toy world")
        with log.span("s1.axes"):
            log.line("  embedding axes (hand-named): " + ", ".join(w.axes))
        with log.span("s1.table"):
            log.line("  word    " + "".join(f"{a:>8}" for a in w.axes))
            for word in w.words:
                cells = [log.value(f"s1.embedding.{word}.{a}", v, f"{{:.{places}f}}") for a, v in zip(w.axes, w.embeddings[word])]
                log.line(f"  {word:<8}" + "".join(f"{c:>8}" for c in cells))
        with log.span("s1.sentences"):
            log.line(f"  test sentences: {quoted(w.sentences[0])} / {quoted(w.sentences[1])}")
        with log.span("s1.note"):
            log.line(f"  note: '{w.ambiguous}' has exactly ONE row here, whichever sentence it is in")
    log.line()


def s2_dot_and_softmax(log: SectionLog, w: World) -> None:
    """The two ingredients on their own, on the ambiguous word's own numbers."""
    amb = w.ambiguous
    a = w.vector(amb)
    # The ambiguous word against its two context words first, then the rest of the vocabulary,
    # then itself: the order in which the workshop reads them.
    partners = list(dict.fromkeys([w.context(0), w.context(1), *w.words, amb]))
    partners.remove(amb)
    partners.append(amb)
    width = max(len(p) for p in w.words)
    places = w.decimals

    with log.span("s2"):
        log.line("[S2] dot product and softmax, on their own")
        with log.span("s2.dots"):
            first = partners[0]
            b = w.vector(first)
            for axis, x, y in zip(w.axes, a, b):
                log.value(f"s2.term.{axis}", x * y, f"{{:.{2 * places}f}}", derived=True)
            terms = " + ".join(f"{x:.{places}f}*{y:.{places}f}" for x, y in zip(a, b))
            log.line(f"  {amb} . {first} = {terms} = {log.value(f's2.dot.{first}', M.dot(a, b), '{:.3f}')}")
            for other in partners[1:]:
                score = log.value(f"s2.dot.{other}", M.dot(a, w.vector(other)), "{:.3f}")
                log.line(f"  {amb} . {other:<{width}} = {score}")

        # The row of scores the ambiguous word gives the words of the first sentence.
        sentence = w.sentences[0]
        scores = np.array([M.dot(a, w.vector(word)) for word in sentence])  # (n_words,)
        weights = M.softmax(scores)  # (n_words,)
        sharp = M.softmax(scores * 5.0)  # same order, gaps five times wider
        with np.errstate(over="ignore"):  # a custom world's large score: e^score is then no help
            exps = np.exp(scores)  # (n_words,)
        for i, (e, p) in enumerate(zip(exps, weights)):
            if np.isfinite(e):
                log.value(f"s2.exp.{i}", e, "{:.3f}", derived=True)  # e^score, for checking by hand
            log.value(f"s2.percent.{i}", 100 * p, "{:.1f}%", derived=True)
        log.value("s2.scores_sum", scores.sum(), "{:.2f}", derived=True)
        if np.all(np.isfinite(exps)):
            log.value("s2.exp_sum", exps.sum(), "{:.3f}", derived=True)
        with log.span("s2.softmax"):
            left = "softmax(" + bracket(log.value(f"s2.scores.{i}", s, "{:.3f}") for i, s in enumerate(scores)) + ")"
            right = bracket(log.value(f"s2.weights.{i}", p, "{:.3f}") for i, p in enumerate(weights))
            total = log.value("s2.weights_sum", weights.sum(), "{:.6f}")
            log.line(f"  {left} = {right}  (sum = {total})")
            sharp_text = bracket(log.value(f"s2.sharp.{i}", p, "{:.3f}") for i, p in enumerate(sharp))
            log.line(f"  {'softmax(same scores x 5)':<{len(left)}} = {sharp_text}  (one clear winner)")

        with log.span("s2.figures"):
            log.figure(FigureJob("dot_product_arrows", figures.dot_product_arrows))
            log.figure(
                FigureJob("softmax_in_action", figures.softmax_in_action, dict(scores=scores, weights=weights, sharp=sharp, words=list(sentence)))
            )
    log.line()


def s3_raw_attention(log: SectionLog, w: World) -> np.ndarray:
    """Attention with no learned parts, on both sentences; returns sentence 1's weights for S4."""
    amb = w.ambiguous
    X = [w.embed(s) for s in w.sentences]  # 2 x (n_words, d_model)
    results = [M.raw_attention(x) for x in X]  # 2 x (output, weights)

    with log.span("s3"):
        log.line("[S3] attention with raw embeddings (no learned parts)")
        with log.span("s3.input_check"):
            # The fact the workshop turns on: the ambiguous word's input row is one and the same.
            same = bool(np.array_equal(X[0][-1], X[1][-1]))
            log.line(f"  input check: '{amb}' row identical in both sentences -> {same}")

        scores = X[0] @ X[0].T  # (n_words, n_words)
        log.matrix("s3.scores", f"score matrix S = X @ X.T for {quoted(w.sentences[0])}:", scores, w.sentences[0])
        with log.span("s3.symmetric"):
            log.line(f"  symmetric? {bool(np.allclose(scores, scores.T))} (S[i,j] always equals S[j,i] here)")
        log.matrix(
            "s3.weights.0", f"attention weights (each row softmaxed) for {quoted(w.sentences[0])}:", results[0][1], w.sentences[0]
        )
        log.matrix("s3.weights.1", f"attention weights for {quoted(w.sentences[1])}:", results[1][1], w.sentences[1])

        for k, (out, _) in enumerate(results):  # the first word's output too, which S3 does not print
            for a, v in zip(w.axes, out[0]):
                log.value(f"s3.first_output.{k}.{a}", v, "{:.3f}", derived=True)
        with log.span("s3.outputs"):
            log.line(f"  {amb}'s output vector ({', '.join(w.axes)}):")
            for k, (sentence, (out, _)) in enumerate(zip(w.sentences, results)):
                cells = "  ".join(f"{a}={log.value(f's3.output.{k}.{a}', v, '{:.3f}')}" for a, v in zip(w.axes, out[-1]))
                log.line(f"    in {quoted(sentence)}: {cells}")
        with log.span("s3.compare"):
            for k, (out, _) in enumerate(results):
                log.line(f"  {w.axes[0]} vs {w.axes[1]}, {w.context(k)} sentence: {out[-1][0]:.3f} vs {out[-1][1]:.3f}")

        with log.span("s3.figures"):
            log.figure(
                FigureJob("raw_attention_heatmaps", figures.raw_attention_heatmaps,
                    dict(
                        weights=[res[1] for res in results],
                        words=[list(s) for s in w.sentences],
                        titles=[quoted(s) for s in w.sentences],
                    ),
                )
            )
            a = w.vector(amb)
            # The playground's plane uses the same colours (sphinxext/playground.py, plane_colours).
            points = [(w.context(k), *w.vector(w.context(k))[:2], c) for k, c in ((0, BLUE), (1, GREEN))]
            points.append((f"{amb} (embedding)", a[0], a[1], GREY))
            moves = [(f"{amb} after {quoted(s)}", (a[0], a[1]), (out[-1][0], out[-1][1])) for s, (out, _) in zip(w.sentences, results)]
            log.figure(
                FigureJob(
                    f"{amb}_{w.axes[0]}_{w.axes[1]}_plane",
                    figures.embedding_plane,
                    dict(points=points, moves=moves, axis_names=list(w.axes[:2])),
                )
            )
    log.line()
    return results[0][1]


def s4_wired_head(log: SectionLog, w: World, raw_weights: np.ndarray) -> None:
    """The hand-wired query/key head on sentence 1, against raw attention."""
    amb, sentence = w.ambiguous, w.sentences[0]
    X = w.embed(sentence)  # (n_words, d_model)
    Q = X @ w.wired_W_Q  # (n_words, d_k)
    K = X @ w.wired_W_K  # (n_words, d_k)
    out, weights, scores = M.wired_attention(X, w.wired_W_Q, w.wired_W_K)
    d_k = len(w.channels)
    ctx = len(sentence) - 2  # position of the context word; the ambiguous word is last

    with log.span("s4"):
        log.line("[S4] a hand-wired query/key head")
        with log.span("s4.qk"):
            log.line(f"  queries and keys for {quoted(sentence)} ({d_k} channel{'s' if d_k != 1 else ''}: {', '.join(w.channels)}):")
            for i, (word, q, k) in enumerate(zip(sentence, Q, K)):
                # Filed by position, not by word: a sentence may hold the same word twice.
                qs = [log.value(f"s4.q.{i}.{c}", v, "{:.2f}") for c, v in zip(w.channels, q)]
                ks = [log.value(f"s4.k.{i}.{c}", v, "{:.2f}") for c, v in zip(w.channels, k)]
                log.line(f"    {word:<7} q = {bracket(qs, 5)}   k = {bracket(ks, 5)}")
        log.matrix("s4.scores", "score matrix Q @ K.T:", scores, sentence)
        with log.span("s4.symmetric"):
            symmetric = bool(np.allclose(scores, scores.T))
            # The example pair: the ambiguous word and its context word, unless those two happen to
            # score each other alike in an asymmetric matrix; then the pair that shows it best.
            i, j = len(sentence) - 1, ctx
            if not symmetric and np.isclose(scores[i][j], scores[j][i]):
                i, j = np.unravel_index(np.argmax(np.abs(scores - scores.T)), scores.shape)
            there = log.value("s4.score.ambiguous_to_context", scores[-1][ctx], "{:.3f}")
            back = log.value("s4.score.context_to_ambiguous", scores[ctx][-1], "{:.3f}")
            if (i, j) != (len(sentence) - 1, ctx):
                there, back = f"{scores[i][j]:.3f}", f"{scores[j][i]:.3f}"
            log.line(f"  symmetric? {symmetric}  ({sentence[i]}->{sentence[j]} = {there}, {sentence[j]}->{sentence[i]} = {back})")
        log.value("s4.sqrt_d_k", np.sqrt(d_k), "{:.3f}", derived=True)
        log.matrix("s4.weights", f"weights after dividing by sqrt({d_k}) and softmaxing each row:", weights, sentence)
        with log.span("s4.rows"):
            log.line(f"  {amb}'s row,  raw vs wired: {_vec(raw_weights[-1])} -> {_vec(weights[-1])}")
            log.line(f"  '{sentence[0]}'s row,  raw vs wired: {_vec(raw_weights[0])} -> {_vec(weights[0])}")
        with log.span("s4.reading"):
            # Built from the weights, so another world gets a sentence that is true of its numbers.
            looked_at = int(np.argmax(weights[0]))
            target = "its noun" if looked_at == len(sentence) - 1 else f"'{sentence[looked_at]}'"
            log.line(
                f"  {amb} now takes {_share_phrase(weights[-1][ctx])} its update from '{sentence[ctx]}'; "
                f"'{sentence[0]}' now looks at {target}"
            )
        with log.span("s4.output"):
            cells = "  ".join(f"{a}={log.value(f's4.output.{a}', v, '{:.3f}')}" for a, v in zip(w.axes, out[-1]))
            log.line(f"  {amb}'s output vector: {cells}")
        with log.span("s4.figures"):
            log.figure(FigureJob("qk_vs_raw_heatmaps", figures.qk_vs_raw_heatmaps, dict(raw=raw_weights, wired=weights, words=list(sentence))))
    log.line()


def s5_scaling(log: SectionLog, measured: Measurements) -> None:
    """Measure why scores are divided by sqrt(d_k); independent of the world."""
    unscaled, scaled = [], []
    with log.span("s5"):
        log.line("[S5] why scores are divided by sqrt(d_k)")
        with log.span("s5.setup"):
            row, trials = log.value("s5.row", S5_ROW), log.value("s5.trials", S5_TRIALS)
            log.value("s5.even", 1 / S5_ROW, "{:.3f}", derived=True)  # every weight of a perfectly even row
            log.line(f"  random q, k entries drawn from N(0,1); {row} keys per row; {trials} rows per size")
        with log.span("s5.table"):
            for d, (std, top_raw, top_scaled) in zip(S5_DIMS, measured["s5.table"]):
                unscaled.append(top_raw)
                scaled.append(top_scaled)
                log.line(
                    f"  d = {d:3d}: dot-product std = {log.value(f's5.std.{d}', std, '{:.2f}'):>6}  "
                    f"(sqrt(d) = {np.sqrt(d):5.2f}) | avg top weight: "
                    f"unscaled = {log.value(f's5.unscaled.{d}', top_raw, '{:.3f}')}, "
                    f"scaled = {log.value(f's5.scaled.{d}', top_scaled, '{:.3f}')}"
                )
        with log.span("s5.conclusion"):
            log.line("  unscaled top weight heads for 1.0 (winner-take-all); scaled stays flat")
        with log.span("s5.figures"):
            log.figure(
                FigureJob("scaling_max_weight", figures.scaling_max_weight,
                    dict(dims=list(S5_DIMS), unscaled=unscaled, scaled=scaled, row=S5_ROW),
                )
            )
    log.line()


def s6_general_head(log: SectionLog, w: World, measured: Measurements) -> None:
    """The general head against PyTorch, the causal mask, order-blindness, GPT-2's scale."""
    sentence = w.sentences[0]
    X = w.embed(sentence)  # (n_words, d_model)
    d_model = len(w.axes)

    # The legible wired head of S4 with the mask: values = raw embeddings (W_V = identity).
    _, masked = M.attention(X, w.wired_W_Q, w.wired_W_K, np.eye(d_model), causal=True)
    # Drawn now, before S6 waits on the helper's PyTorch answers; logged in its place below.
    mask_figure = FigureJob("causal_mask", figures.causal_mask, dict(weights=masked, words=list(sentence)))
    log.draw(mask_figure)

    W_q, W_k, W_v = (measured[f"s6.{name}"] for name in ("W_q", "W_k", "W_v"))  # (d_model, 3) each, random
    with log.span("s6"):
        log.line("[S6] the general head, checked against PyTorch")
        with log.span("s6.torch"):
            for causal, intro in (
                (False, "ours vs torch.nn.functional.scaled_dot_product_attention:"),
                (True, "same comparison with the causal mask on both sides:"),
            ):
                case = "causal" if causal else "full"
                ours, _ = M.attention(X, W_q, W_k, W_v, causal=causal)  # (n_words, 3)
                theirs = measured[f"s6.torch.{case}"]  # (n_words, 3), from torch
                gap = log.value(f"s6.difference.{case}", np.abs(ours - theirs).max(), "{:.2e}")
                log.line(f"  {intro}")
                log.line(f"    max |difference| = {gap}")

        log.matrix("s6.mask", "wired head with a causal mask (upper right forced to 0):", masked, sentence)
        with log.span("s6.row_sums"):
            log.line(f"  every row still sums to 1: {', '.join(f'{s:.6f}' for s in masked.sum(axis=1))}")

        with log.span("s6.order"):
            # Attention alone cannot see order: reversing the words only reverses the output rows.
            reverse = sentence[::-1]
            forward_out, _ = M.raw_attention(X)
            reverse_out, _ = M.raw_attention(w.embed(reverse))
            same = bool(np.allclose(forward_out[-1], reverse_out[0]))
            log.line(f"  order-blindness: {w.ambiguous}'s output in {quoted(sentence)} equals its")
            log.line(f"  output in {quoted(reverse)} -> {same} (real LLMs add position information)")

        with log.span("s6.gpt2"):
            g = {name: log.value(f"s6.gpt2.{name}", size) for name, size in GPT2.items() if name not in ("params", "vocab")}
            per_head = 3 * GPT2["d_model"] * GPT2["d_k"]  # W_q, W_k, W_v of one head
            per_layer = GPT2["heads"] * per_head + GPT2["d_model"] ** 2  # + the output projection
            total = GPT2["layers"] * per_layer
            log.value("s6.gpt2.share", total / GPT2["params"], "{:.0%}", derived=True)  # of the whole model
            # The word table, for the page's parameter budget (S6 does not print it).
            log.value("s6.gpt2.vocab", GPT2["vocab"], "{:,}", derived=True)
            table = GPT2["vocab"] * GPT2["d_model"]
            log.value("s6.gpt2.word_table", table, "{:,}", derived=True)
            log.value("s6.gpt2.word_table_share", table / GPT2["params"], "{:.0%}", derived=True)
            log.line(
                f"  one GPT-2 sized head: d_model = {g['d_model']}, d_k = {g['d_k']} -> "
                f"W_q + W_k + W_v = {log.value('s6.gpt2.per_head', per_head, '{:,}')} numbers"
            )
            log.line(
                f"  {g['heads']} heads x {g['layers']} layers (+ output projections) -> "
                f"{log.value('s6.gpt2.total', total, '{:,}')} attention parameters of GPT-2's "
                f"~{log.value('s6.gpt2.params', GPT2['params'] / 1e6, '{:.0f}M')}"
            )
        with log.span("s6.figures"):
            log.figure_line(mask_figure)
    log.line()


def environment() -> str:
    """Line 3: the versions that make this log (torch answers S6; the seed draws S5 and S6)."""
    return versions_line(("torch", "numpy", "matplotlib"), seed=SEED)


def write(log: SectionLog, context: RunContext) -> None:
    """S1-S6 on the context's world, through `log`."""
    w = context.world
    # Started first, so the helper's slow half overlaps everything below.
    with Measurements(w.embed(w.sentences[0]), background=context.background) as measured:
        log.header("experiment log", f"toy world: {len(w.words)}-word vocabulary, {len(w.axes)} hand-named embedding axes")
        s1_toy_world(log, w)
        s2_dot_and_softmax(log, w)
        raw_weights = s3_raw_attention(log, w)
        s4_wired_head(log, w, raw_weights)
        s5_scaling(log, measured)
        s6_general_head(log, w, measured)
