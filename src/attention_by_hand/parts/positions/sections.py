"""The positions part (Module 4): P1-P4, on the toy world of the canonical part.

    P1 sinusoidal positions break order-blindness    P3 RoPE on the wired head; its two pairings
    P2 learned positions: what a table costs          P4 ALiBi: a penalty for distance

S6 of the canonical run ends by showing that attention cannot see word order. This part puts
position in, three ways, on the same toy world and the same wired head, using
`math.positions` for the position functions and `math.mechanism` for attention.
Nothing here is random.

Every printed number is robust to the last bits of floating point, so a learner's log matches
ours byte for byte (the robust numbers of run/section_log.py), and a difference that should be
zero prints as a bound ("< 1e-12"), never as its noise.

Left out: other worlds (the toy world's two wired channels make RoPE one rotation in a plane;
a world of other sizes would need other sentences, not other numbers), learned positions in
training (no weights are learned here: the labs and a benchmark train them).
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.math import mechanism as M
from attention_by_hand.math import positions as P
from attention_by_hand.parts.positions import figures
from attention_by_hand.run.capture import fixed
from attention_by_hand.run.environment import versions_line
from attention_by_hand.run.figures import FigureJob
from attention_by_hand.run.gpt2 import GPT2
from attention_by_hand.run.part import RunContext
from attention_by_hand.run.section_log import SectionLog, bracket, quoted
from attention_by_hand.run.world import RIVER_BANK

__all__ = ["write", "environment"]

BASE = 10000.0  # the Transformer paper's base for the sinusoids (and RoPE's usual default)
FIGURE_TABLE = (64, 64)  # positions x d_model of the sinusoidal heatmap: wide enough to see the slow channels
GPT2_POSITIONS = 1024  # GPT-2's n_positions (Radford et al. 2019): its learned table has this many rows
SHIFTS = (1, 2, 3, 4, 5)  # P3 moves every position by each of these
FIGURE_SHIFT = 3  # the shift drawn in rope_rotation.png
ALIBI_SLOPE = 0.5  # the first slope of an 8-head model: 2^(-8*1/8)
ALIBI_HEADS = 8

# A difference that mathematics says is 0 is float64 noise of order 1e-16 here (numbers of order 1);
# it is printed as this bound, which the noise stays under by over three orders of magnitude.
ZERO_BOUND = 1e-12


def _bound(log: SectionLog, name: str, difference: float) -> str:
    """'< 1e-12 -> True'; files the bound as `<name>.bound` and the verdict as `<name>.equal`."""
    log.value(f"{name}.bound", ZERO_BOUND, "{:.0e}")
    return log.bound(f"{name}.equal", difference, ZERO_BOUND)


def p1_sinusoidal(log: SectionLog) -> None:
    """Order-blindness recomputed, then broken by adding sinusoidal position vectors."""
    w = RIVER_BANK
    sentence, amb = w.sentences[0], w.ambiguous
    reverse = sentence[::-1]
    n, d_model = len(sentence), len(w.axes)
    X, X_rev = w.embed(sentence), w.embed(reverse)  # (n_words, d_model) each
    PE = P.sinusoidal_positions(n, d_model, BASE)  # (n_words, d_model)
    plain = (M.raw_attention(X)[0][-1], M.raw_attention(X_rev)[0][0])  # (d_model,) each: amb's output
    placed = (M.raw_attention(X + PE)[0][-1], M.raw_attention(X_rev + PE)[0][0])  # (d_model,) each

    with log.span("p1"):
        log.line("[P1] order-blindness, then broken by sinusoidal positions")
        with log.span("p1.blind"):
            gap = _bound(log, "p1.blind", np.abs(plain[0] - plain[1]).max())
            log.line(f"  no positions: {amb}'s output in {quoted(sentence)} vs {quoted(reverse)}:")
            log.line(f"    max |difference| {gap} (the same output, as S6 found)")
        with log.span("p1.formula"):
            base = log.value("p1.base", BASE, "{:.0f}")
            width = log.value("p1.d_model", d_model)
            log.line(f"  sinusoidal position vectors, base = {base}, d_model = {width} (the toy world's width):")
            log.line("    PE[pos, 2i] = sin(pos / base^(2i/d_model)),  PE[pos, 2i+1] = cos(pos / base^(2i/d_model))")
            divisors = BASE ** (np.arange(0, d_model, 2) / d_model)  # (d_model/2,): base^(2i/d_model)
            columns = [f"{f}(pos/{v:g})" for v in divisors for f in ("sin", "cos")]
            log.line(f"    columns here: {', '.join(columns)}")
        positions = [f"pos {i}" for i in range(n)]
        log.matrix("p1.pe", "position vectors P (added onto the same named axes):", PE, positions, w.axes)
        log.matrix("p1.x_plus_p", f"X + P for {quoted(sentence)} (each word plus its position's row):", X + PE, sentence, w.axes)
        with log.span("p1.outputs"):
            log.line(f"  {amb}'s output with positions (raw attention on X + P, as in S3):")
            for k, (words, out) in enumerate(zip((sentence, reverse), placed)):
                cells = "  ".join(f"{a}={t}" for a, t in zip(w.axes, log.row(f"p1.output.{k}", out, w.axes)))
                log.line(f"    in {quoted(words)} ({amb} at position {list(words).index(amb)}): {cells}")
        with log.span("p1.broken"):
            difference = np.abs(placed[0] - placed[1])  # (d_model,)
            equal = log.value("p1.placed.equal", bool(difference.max() < ZERO_BOUND))
            largest = log.number("p1.placed.max_diff", difference.max())
            axis = log.value("p1.placed.axis", w.axes[int(np.argmax(difference))])
            log.line(f"  with positions: the same output? {equal}; largest |difference| = {largest} (on {axis})")
        with log.span("p1.crowding"):
            # Honest about the toy: on 4 axes a position vector is as long as a meaning.
            length = log.number("p1.pe_length", np.linalg.norm(PE, axis=1).max())
            norms = [np.linalg.norm(w.vector(word)) for word in w.words]
            shortest, longest = log.number("p1.embedding_length.min", min(norms)), log.number("p1.embedding_length.max", max(norms))
            log.line(f"  note: every P row has length {length}, every embedding row {shortest}..{longest}: on only")
            log.line(f"  {d_model} axes, position is as loud as meaning (GPT-2 spreads both over {GPT2['d_model']})")

        n_fig, d_fig = FIGURE_TABLE
        with log.span("p1.figure_note"):
            log.line(
                f"  the same formula for {log.value('p1.figure.positions', n_fig)} positions x "
                f"d_model = {log.value('p1.figure.d_model', d_fig)}: fast channels on the left, slow on the right"
            )
        table = P.sinusoidal_positions(n_fig, d_fig, BASE)  # (n_fig, d_fig)
        log.figure(FigureJob("sinusoidal_positions", figures.sinusoidal_positions, dict(table=table, base=BASE)))
    log.line()


def p2_learned(log: SectionLog) -> None:
    """A learned table of positions: what it costs in GPT-2 small, and the row it does not have."""
    d_model = GPT2["d_model"]
    table = np.zeros((GPT2_POSITIONS, d_model))  # (n_positions, d_model): GPT-2's wpe, learned in training
    with log.span("p2"):
        log.line("[P2] learned positions: one trained row per position")
        with log.span("p2.cost"):
            rows = log.value("p2.n_positions", table.shape[0], "{:,}")
            width = log.value("p2.d_model", table.shape[1])
            count = log.value("p2.params", table.size, "{:,}")
            log.value("p2.share", table.size / GPT2["params"], "{:.1%}", derived=True)  # of GPT-2's ~124M
            log.line(f"  GPT-2 small: {rows} positions x d_model {width} -> {count} learned numbers, one row per position")
        with log.span("p2.limit"):
            try:
                _ = table[GPT2_POSITIONS]
                error = "no error"  # cannot happen: a table has no row past its last
            except IndexError as err:
                error = type(err).__name__
            past = log.value("p2.past_end", GPT2_POSITIONS, "{:,}")
            last = log.value("p2.last_row", GPT2_POSITIONS - 1, "{:,}")
            log.line(f"  a word at position {past}: table[{GPT2_POSITIONS}] -> {error} (rows 0..{last} only)")
            log.line("  so a longer input needs a longer table, trained again; nothing in the table says how to extend it")
        with log.span("p2.formula"):
            far = P.sinusoidal_positions(GPT2_POSITIONS + 1, d_model, BASE)[GPT2_POSITIONS]  # (d_model,)
            inside = bool(np.all(np.abs(far) <= 1.0))
            log.line(f"  the sinusoidal formula has no last row: position {past} gets a vector like any other,")
            log.line(f"  every entry in [-1, 1]: {inside}")
    log.line()


def p3_rope(log: SectionLog) -> None:
    """RoPE on S4's wired head: rotated queries and keys, scores that depend on distance only."""
    w = RIVER_BANK
    sentence, amb = w.sentences[0], w.ambiguous
    n, d_k = len(sentence), len(w.channels)
    ctx = n - 2  # the context word; the ambiguous word is last
    X = w.embed(sentence)  # (n_words, d_model)
    Q, K = X @ w.wired_W_Q, X @ w.wired_W_K  # (n_words, d_k) each: S4's queries and keys
    pos = np.arange(n)  # (n_words,)
    Qr, Kr = P.rope(Q, pos, BASE), P.rope(K, pos, BASE)  # (n_words, d_k) each
    scores = Qr @ Kr.T  # (n_words, n_words)
    theta = P.rope_frequencies(d_k, BASE)  # (d_k/2,) = (1,): one pair

    with log.span("p3"):
        log.line("[P3] rotary positions (RoPE) on the wired head")
        with log.span("p3.theta"):
            channels = ", ".join(w.channels)
            log.line(f"  S4's head has {d_k} channels ({channels}): one pair in either pairing, so RoPE turns each q and k")
            log.line(
                f"  in that plane by position * theta, with theta = base^(-2i/d_k) at i = 0 -> "
                f"{log.number('p3.theta', theta[0])} rad per position"
            )
            log.line("  (the fastest pair of any RoPE head turns this fast; with one pair the base plays no part)")
        with log.span("p3.qk"):
            log.line(f"  rotated queries and keys for {quoted(sentence)}:")
            for i, word in enumerate(sentence):
                q = bracket(log.row(f"p3.q.{i}", Qr[i], w.channels), 6)
                k = bracket(log.row(f"p3.k.{i}", Kr[i], w.channels), 6)
                log.line(f"    {word:<7} position {i}, turned {fixed(i * theta[0])} rad   q = {q}   k = {k}")
        log.matrix("p3.scores", "score matrix rope(Q) @ rope(K).T:", scores, sentence, sentence)
        plain = Q @ K.T  # (n_words, n_words): S4's scores
        weights = M.softmax(scores / np.sqrt(d_k))  # (n_words, n_words)
        with log.span("p3.reading"):
            same = bool(np.abs(np.diag(scores) - np.diag(plain)).max() < ZERO_BOUND)
            log.line(f"  the diagonal keeps S4's scores (distance 0, no turn): {same}")
            before, after = fixed(plain[-1, ctx]), log.number("p3.score.ambiguous_to_context", scores[-1, ctx])
            log.line(f"  {amb}->{sentence[ctx]}: {before} in S4, {after} with RoPE ({n - 1 - ctx} position apart)")
            old = bracket(fixed(v) for v in M.softmax(plain / np.sqrt(d_k))[-1])
            log.line(f"  {amb}'s weights, S4 vs RoPE: {old} -> {bracket(log.row('p3.weights', weights[-1], range(n)))}")

        with log.span("p3.shift"):
            # The relative property, checked: move every word by k, every score stays put.
            moved = max(np.abs(P.rope(Q, pos + k, BASE) @ P.rope(K, pos + k, BASE).T - scores).max() for k in SHIFTS)
            shifts = f"{SHIFTS[0]}..{SHIFTS[-1]}"
            log.line(f"  every position shifted by k = {shifts}: max |score change| {_bound(log, 'p3.shift', moved)}")
        with log.span("p3.swap"):
            # Swap the context word and the ambiguous word; compare word pair by word pair.
            order = list(range(n))
            order[ctx], order[-1] = order[-1], order[ctx]
            swapped = [sentence[i] for i in order]
            Qs, Ks = P.rope(Q[order], pos, BASE), P.rope(K[order], pos, BASE)  # (n_words, d_k) each
            back = np.argsort(order)  # word of the original sentence -> its place in the swapped one
            swapped_scores = (Qs @ Ks.T)[np.ix_(back, back)]  # (n_words, n_words), rows/cols in original word order
            change = log.number("p3.swap.max_diff", np.abs(swapped_scores - scores).max())
            now = log.number("p3.swap.ambiguous_to_context", swapped_scores[-1, ctx])
            log.line(
                f"  swap {sentence[ctx]} and {amb} ({quoted(swapped)}): {amb}->{sentence[ctx]} {after} -> {now}; "
                f"largest score change {change}"
            )
            log.line(f"  (without positions both orders give {amb}->{sentence[ctx]} = {fixed(plain[-1, ctx])})")
        _p3_pairings(log)
        with log.span("p3.values"):
            log.line("  values are not rotated: position enters through the scores only; turning v would move")
            log.line("  the content a word hands over, not compare where the two words sit")

        angle = FIGURE_SHIFT * theta[0]
        q0, k0 = Q[-1], K[ctx]  # (d_k,) each: the ambiguous word's question, the context word's key
        panels = [
            dict(title="no positions", q=q0, k=k0, score=fixed(q0 @ k0)),
            dict(title=f"{amb} at {n - 1}, {sentence[ctx]} at {ctx}", q=Qr[-1], k=Kr[ctx], score=after),
            dict(
                title=f"both shifted by {FIGURE_SHIFT} ({n - 1 + FIGURE_SHIFT} and {ctx + FIGURE_SHIFT})",
                q=P.rotate_2d(Qr[-1], angle),
                k=P.rotate_2d(Kr[ctx], angle),
                score=fixed(P.rotate_2d(Qr[-1], angle) @ P.rotate_2d(Kr[ctx], angle)),
            ),
        ]
        with log.span("p3.figure_note"):
            log.line(
                f"  drawn: {amb}'s q and {sentence[ctx]}'s k, unturned, at their positions, and both moved "
                f"{log.value('p3.figure.shift', FIGURE_SHIFT)} places on"
            )
        log.figure(
            FigureJob("rope_rotation", figures.rope_rotation,
                dict(panels=panels, query_word=amb, key_word=sentence[ctx], channels=list(w.channels)),
            )
        )
    log.line()


def _p3_pairings(log: SectionLog) -> None:
    """The two pairing conventions on a 4-channel example: different scores, the same rotation."""
    w = RIVER_BANK
    sentence = w.sentences[0]
    n = len(sentence)
    ctx = n - 2
    # The toy embeddings as a 4-channel query and key, at their positions in the sentence.
    q, k = w.vector(sentence[-1]), w.vector(sentence[ctx])  # (4,) each
    m, j = n - 1, ctx
    d = len(q)
    order = P.interleaved_to_halves(d)  # (d,)
    with log.span("p3.pairings"):
        log.line(
            f"  two pairings on {d} channels (q = {sentence[-1]}'s embedding at position {m}, "
            f"k = {sentence[ctx]}'s at {j}, base {BASE:.0f}):"
        )
        theta = P.rope_frequencies(d, BASE)  # (d/2,)
        log.line(f"    theta = [{', '.join(fixed(t) for t in theta)}] radian per position")
        rotated = {}
        for pairing, pairs in (
            ("halves", [(i, i + d // 2) for i in range(d // 2)]),
            ("interleaved", [(2 * i, 2 * i + 1) for i in range(d // 2)]),
        ):
            qr, kr = P.rope(q, m, BASE, pairing), P.rope(k, j, BASE, pairing)  # (d,) each
            rotated[pairing] = qr
            named = ", ".join(f"{w.axes[a]}+{w.axes[b]}" for a, b in pairs)
            score = log.number(f"p3.pairing.{pairing}.score", qr @ kr)
            log.line(f"    {pairing:<11} pairs ({named}): score = {score}")
            qs = bracket(log.row(f"p3.pairing.{pairing}.q", qr, range(d)), 6)
            ks = bracket(log.row(f"p3.pairing.{pairing}.k", kr, range(d)), 6)
            log.line(f"      rope(q) = {qs}   rope(k) = {ks}")
        log.line("    same idea, different channels paired, so different scores: a checkpoint needs its own convention")
        via_halves = P.rope(q[order], m, BASE, "halves")[np.argsort(order)]  # (d,)
        gap = _bound(log, "p3.pairing.same", np.abs(via_halves - rotated["interleaved"]).max())
        log.line(f"    reorder channels [{', '.join(map(str, order))}], rotate with halves, restore the order:")
        log.line(f"      max |difference| from interleaved {gap}")
        log.line("    (Hugging Face's Llama conversion reorders W_q's and W_k's output channels this way, once)")


def p4_alibi(log: SectionLog) -> None:
    """ALiBi: a fixed penalty per step of distance, added to the wired head's scaled scores."""
    w = RIVER_BANK
    sentence, amb = w.sentences[0], w.ambiguous
    n, d_k = len(sentence), len(w.channels)
    X = w.embed(sentence)  # (n_words, d_model)
    Q, K = X @ w.wired_W_Q, X @ w.wired_W_K  # (n_words, d_k) each
    scaled = Q @ K.T / np.sqrt(d_k)  # (n_words, n_words)
    bias = P.alibi_bias(n, ALIBI_SLOPE)  # (n_words, n_words)
    mask = M.causal_mask(n)  # (n_words, n_words), True above the diagonal
    masked = M.softmax(np.where(mask, -np.inf, scaled))  # (n_words, n_words): S6's causal weights
    weights = M.softmax(np.where(mask, -np.inf, scaled + bias))  # (n_words, n_words)
    slopes = P.alibi_slopes(ALIBI_HEADS)  # (heads,)

    with log.span("p4"):
        log.line("[P4] ALiBi: a penalty for distance, added to the scores")
        with log.span("p4.slope"):
            slope = log.value("p4.slope", ALIBI_SLOPE, "{:g}")
            log.line(f"  slope m = {slope}: word i pays m * (i - j) to look at an earlier word j, nothing to look at itself")
            listed = [log.value(f"p4.slopes.{k}", s, "{:g}") for k, s in enumerate(slopes, start=1)]
            heads = log.value("p4.heads", ALIBI_HEADS)
            log.line(f"  standard slopes for h heads: 2^(-8k/h), k = 1..h; for h = {heads} (m is the first):")
            log.line(f"    {', '.join(listed)}")
            log.line("  nothing is added to X, q or k: the bias is a formula in i - j, so any length has one")
        log.matrix("p4.bias", "bias matrix (0 above the diagonal: the causal mask hides those cells anyway):", bias, sentence, sentence)
        log.matrix("p4.weights", f"weights: softmax(Q @ K.T / sqrt({d_k}) + bias), causal mask on:", weights, sentence, sentence)
        with log.span("p4.rows"):
            causal = bracket(log.row("p4.causal_weights", masked[-1], range(n)))
            log.line(f"  {amb}'s row, causal (S6) vs causal + ALiBi: {causal} -> {bracket(fixed(v) for v in weights[-1])}")
        with log.span("p4.reading"):
            # Built from the weights, so the sentence stays true of the numbers.
            before = log.value("p4.top.causal", sentence[int(np.argmax(masked[-1]))])
            after = log.value("p4.top.alibi", sentence[int(np.argmax(weights[-1]))])
            change = "still" if before == after else f"now, not '{before}'"
            log.line(f"  the further back a word, the larger its cut: {amb} listens most to '{after}' {change}")
    log.line()


def environment() -> str:
    """Line 3: the versions that make this log (no torch and no seed: neither is used)."""
    return versions_line(("numpy", "matplotlib"))


def write(log: SectionLog, context: RunContext) -> None:
    """P1-P4 on the canonical world, through `log`."""
    log.header("positions log", "Module 4: how word order gets into attention, on the toy world of the experiment log")
    p1_sinusoidal(log)
    p2_learned(log)
    p3_rope(log)
    p4_alibi(log)
