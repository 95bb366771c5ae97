"""The heads part (Module 7): H1-H5, what the heads of a model trained here do, from its shipped weights.

    H1 the patterns: every head's attention on one repeated sequence
    H2 the detectors: previous-token, induction and first-token scores of every head
    H3 the circuit by hand: one query followed through the previous-token head and an induction head
    H4 ablations: each head's output removed in turn
    H5 in-context learning: the loss before and after the repeat, on lengths the training never used

The model is math/attention_only.py, trained by math/training.py (`attention-by-hand train heads`)
on repeated segments (math/repeats.py); its weights ship in this package (weights.py). The run
trains nothing: it reads the shipped weights, so its log is the same on every run. The weights
are float32; every forward pass here runs in float64 on them, so a number can differ between
two CPUs only by float64's rounding, and each is printed through `fixed`, which refuses a
number that rounding could tip: the log is the same on any machine.

Left out: training curves (they depend on the machine: benchmarks/phase_change.py), composition
scores computed from weight matrices (H3 follows one query instead), MLPs and larger models.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from attention_by_hand.math import detectors as D
from attention_by_hand.math.attention_only import AttentionOnly, Trace
from attention_by_hand.math.repeats import PROBE_PERIOD, PROBE_SEED, PROBE_SEQUENCES, START, first_rows, probe, repeat_rows
from attention_by_hand.parts.heads import figures, weights
from attention_by_hand.run.capture import fixed
from attention_by_hand.run.figures import FigureJob
from attention_by_hand.run.part import RunContext
from attention_by_hand.run.section_log import SectionLog

__all__ = ["write"]

MODEL_NAMES = {"two_layer": "the two-layer model", "one_layer": "the one-layer control"}
SEQUENCE = 0  # the probe's sequence that H1 draws and H3 follows
QUERY = PROBE_PERIOD + 5  # H3's query: a token of the repeat, its earlier occurrence at QUERY - PERIOD
ROWS_SHOWN = (5, QUERY)  # H1's rows: the same token the first time through and in the repeat
TOP = 3  # H1 lists each row's largest weights
TRAINED_LENGTHS = (8, PROBE_PERIOD)  # H5: two lengths the training used (3 .. 16)
NEW_LENGTHS = (20, 24)  # and two it never used
IN_CONTEXT_FIGURE = 20  # the length H5 prints and draws position by position


def _heads(model: AttentionOnly) -> list[tuple[int, int]]:
    return [(layer, h) for layer in range(model.sizes.n_layers) for h in range(model.sizes.n_heads)]


def _losses(trace: Trace, sequences: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy at every position.   sequences: (n, T + 1) -> (n, T)"""
    logits = trace.logits  # (n, T, V)
    return F.cross_entropy(logits.transpose(1, 2), sequences[:, 1:], reduction="none")  # (n, T)


def _models() -> dict[str, AttentionOnly]:
    """The shipped models in float64: the float32 weights exactly, the arithmetic float64's."""
    return {name: weights.load(name).double() for name in weights.MODELS}


def _scores(trace: Trace, period: int) -> dict[tuple[int, int], dict[str, float]]:
    """Every head's three detector scores on a batch repeating with `period`."""
    found = {}
    for layer, pattern in enumerate(trace.patterns):
        previous, induction, first = D.previous_token_score(pattern), D.induction_score(pattern, period), D.first_token_score(pattern)
        for h in range(pattern.shape[1]):
            found[layer, h] = {"previous_token": previous[h].item(), "induction": induction[h].item(), "first_token": first[h].item()}
    return found


def _names(scores: dict[str, float]) -> str:
    """A head's name(s) by the threshold: the detectors it passes, or 'none'."""
    passed = [name.replace("_", "-") for name, score in scores.items() if score > D.THRESHOLD]
    return ", ".join(passed) or "none"


def h1_patterns(log: SectionLog, models, sequences, traces) -> None:
    """The models, their training, the probe, and each head's largest weights on two rows."""
    stamp = weights.shipped_stamp()
    schedule = stamp["schedule"]
    tokens = sequences[SEQUENCE, :-1].tolist()  # the T positions the model reads
    with log.span("h1"):
        log.line("[H1] the patterns: what each head looks at")
        with log.span("h1.models"):
            for name, model in models.items():
                s = model.sizes
                log.line(
                    f"  {MODEL_NAMES[name] + ':':<23}{log.value(f'h1.{name}.layers', s.n_layers)} layer{'s' if s.n_layers > 1 else ''} "
                    f"of {s.n_heads} heads, d_model {s.d_model}, d_head {s.d_head}, attention only: "
                    f"{log.value(f'h1.{name}.parameters', model.n_parameters(), '{:,}')} parameters"
                )
            s = models["two_layer"].sizes
            log.line(f"  vocabulary {log.value('h1.vocab', s.vocab)} (token {START} = the start token), context {log.value('h1.context', s.context)}")
            log.line("  positions go into the queries' and keys' input only, never into the stream")
        with log.span("h1.training"):
            log.line(
                f"  trained here ({weights.STAMP}): {log.value('h1.steps', schedule['steps'])} steps of AdamW, learning rate "
                f"{schedule['learning_rate']}, batches of {schedule['batch']}, seed {schedule['seed']}, {schedule['threads']} thread"
            )
            log.line(
                f"  each training sequence: the start token, then a segment of {log.value('h1.shortest', schedule['shortest'])} "
                f"to {log.value('h1.longest', schedule['longest'])} random tokens, repeated to the end"
            )
        with log.span("h1.probe"):
            log.line(
                f"  the probe: {log.value('h1.probe.sequences', PROBE_SEQUENCES)} sequences (seed {PROBE_SEED}): the start token, "
                f"{log.value('h1.probe.period', PROBE_PERIOD)} distinct random tokens,"
            )
            log.line(f"  then {s.context - 1 - PROBE_PERIOD} of them again")
            first, repeat = tokens[1 : PROBE_PERIOD + 1], tokens[PROBE_PERIOD + 1 :]
            log.line(f"  sequence {SEQUENCE}: {tokens[0]} | {' '.join(map(str, first))} | {' '.join(map(str, repeat))}")
            log.line(f"    positions: 0 | 1 .. {PROBE_PERIOD} | {PROBE_PERIOD + 1} .. {s.context - 1}")
        with log.span("h1.rows"):
            for row in ROWS_SHOWN:
                where = "the first time through" if row <= PROBE_PERIOD else f"seen before at {row - PROBE_PERIOD}"
                log.line(f"  row {row} (token {log.value(f'h1.row.{row}.token', tokens[row])}, {where}): its {TOP} largest weights, position weight")
                for name, trace in traces.items():
                    for layer, h in _heads(models[name]):
                        weights_row = trace.patterns[layer][SEQUENCE, h, row, : row + 1]  # (row + 1,)
                        top = torch.argsort(weights_row, descending=True)[:TOP].tolist()
                        key = f"h1.{name}.{D.head_name(layer, h)}.row.{row}"
                        cells = [f"{p:>2} {log.number(f'{key}.{i}', weights_row[p].item())}" for i, p in enumerate(top)]
                        log.value(f"{key}.top", top[0])
                        label = f"{'two layers' if name == 'two_layer' else 'control'}, head {D.head_name(layer, h)}"
                        log.line(f"    {label:<22}" + "   ".join(cells))
        drawn = {
            f"{name}:{D.head_name(layer, h)}": [[float(fixed(w, 3)) for w in row] for row in trace.patterns[layer][SEQUENCE, h].tolist()]
            for name, trace in traces.items()
            for layer, h in _heads(models[name])
        }
        log.figure(FigureJob("heads_patterns", figures.patterns, {"patterns": drawn, "period": PROBE_PERIOD, "tokens": tokens}))
    log.line()


def h2_detectors(log: SectionLog, models, traces) -> dict:
    """The three detectors, defined, for every head of both models; the heads named by the threshold."""
    found = {name: _scores(trace, PROBE_PERIOD) for name, trace in traces.items()}
    with log.span("h2"):
        log.line("[H2] the detectors: three numbers per head, on the probe's 64 sequences")
        with log.span("h2.definitions"):
            log.line("  previous-token score: the mean weight on position i - 1, over rows i = 1 .. T-1")
            log.line("  induction score: the mean weight on position i - period + 1 (the token after the current token's")
            log.line(f"    earlier occurrence), over rows i = period + 1 .. T-1; period = {PROBE_PERIOD}, T = {models['two_layer'].sizes.context}")
            log.line("  first-token score: the mean weight on position 0 (the start token), over rows i = 1 .. T-1")
            log.line("  (row 0 can only look at itself; each mean is over the 64 sequences and the rows)")
            log.line(f"  a head is named by each score above {log.value('h2.threshold', D.THRESHOLD)}")
        with log.span("h2.table"):
            log.line(f"    {'model':<12}{'head':<6}{'previous':>10}{'induction':>11}{'first':>8}   named")
            for name, scores in found.items():
                for (layer, h), s in scores.items():
                    key = f"h2.{name}.{D.head_name(layer, h)}"
                    cells = [log.number(f"{key}.{detector}", score) for detector, score in s.items()]
                    named = log.value(f"{key}.named", _names(s))
                    log.line(f"    {name:<12}{D.head_name(layer, h):<6}{cells[0]:>10}{cells[1]:>11}{cells[2]:>8}   {named}")
        _h2_counts(log, found)
        _h2_resting(log, models["two_layer"], traces["two_layer"], found["two_layer"])
        data = {
            f"{name}:{D.head_name(*head)}": [float(fixed(v, 3)) for v in s.values()] for name, scores in found.items() for head, s in scores.items()
        }
        log.figure(FigureJob("heads_detectors", figures.detectors, {"scores": data, "threshold": D.THRESHOLD}))
    log.line()
    return found


def _h2_counts(log: SectionLog, found) -> None:
    """How many heads of each model pass each detector."""
    with log.span("h2.counts"):
        for name, scores in found.items():
            counts = []
            for detector in ("previous_token", "induction", "first_token"):
                n = sum(s[detector] > D.THRESHOLD for s in scores.values())
                counts.append(f"{log.value(f'h2.{name}.count.{detector}', n)} {detector.replace('_', '-')}")
            log.line(f"  {MODEL_NAMES[name]}: heads above the threshold: {', '.join(counts)}")


def _h2_resting(log: SectionLog, model, trace, scores) -> None:
    """Where the induction heads look when nothing has repeated yet: the start token."""
    first, repeat = torch.arange(1, PROBE_PERIOD + 1), repeat_rows(PROBE_PERIOD, model.sizes.context)
    with log.span("h2.resting"):
        log.line("  the induction heads' weight on the start token, rows of the first time through and of the repeat:")
        for (layer, h), s in scores.items():
            if s["induction"] <= D.THRESHOLD:
                continue
            pattern = trace.patterns[layer][:, h]  # (n, T, T)
            before = log.number(f"h2.resting.{D.head_name(layer, h)}.first", pattern[:, first, 0].mean().item())
            after = log.number(f"h2.resting.{D.head_name(layer, h)}.repeat", pattern[:, repeat, 0].mean().item())
            log.line(f"    head {D.head_name(layer, h)}: rows 1 .. {PROBE_PERIOD} {before}, rows {PROBE_PERIOD + 1} .. {model.sizes.context - 1} {after}")
        log.line(f"  so each first-token score is its resting weight times {PROBE_PERIOD} / {model.sizes.context - 1}: the rows with nothing to copy yet")


def _best(scores: dict, detector: str, layer: int | None = None) -> tuple[int, int]:
    """The head with the highest score on `detector` (in `layer`, if given)."""
    heads = [head for head in scores if layer is None or head[0] == layer]
    return max(heads, key=lambda head: scores[head][detector])


def h3_circuit(log: SectionLog, model: AttentionOnly, sequences, trace, scores) -> None:
    """One query of the repeat, followed through the previous-token head, an induction head and the unembedding."""
    previous, induction = _best(scores, "previous_token", 0), _best(scores, "induction", 1)
    b, i = SEQUENCE, QUERY
    earlier, after = i - PROBE_PERIOD, i - PROBE_PERIOD + 1  # the token's earlier occurrence, and the one after it
    tokens = sequences[b, :-1]
    a_token, b_token = int(tokens[i]), int(tokens[after])
    p_name, i_name = D.head_name(*previous), D.head_name(*induction)
    with log.span("h3"):
        log.line("[H3] the circuit by hand, on one query")
        with log.span("h3.query"):
            log.line(
                f"  sequence {b}, row {log.value('h3.query', i)}: token A = {log.value('h3.a', a_token)}, seen before at "
                f"{log.value('h3.earlier', earlier)}; the token after it there, at {log.value('h3.after', after)}, "
                f"is B = {log.value('h3.b', b_token)}"
            )
            log.line(f"  the previous-token head: {log.value('h3.previous_head', p_name)}; the induction head followed: {log.value('h3.induction_head', i_name)}")
        _h3_previous(log, model, trace, previous, tokens, earlier, after)
        _h3_key(log, model, trace, previous, induction, tokens, i, after)
        _h3_copy(log, model, trace, induction, b_token, i, sequences)
    log.line()


def _h3_previous(log: SectionLog, model, trace, previous, tokens, earlier, after) -> None:
    """Step 1: at position `after`, the previous-token head writes token A into the stream."""
    layer, h = previous
    pattern = trace.patterns[layer][SEQUENCE, h, after]  # (T,): what position `after` looks at
    write = trace.writes[layer][SEQUENCE, h, after]  # (d,)
    value_a = model.values(layer, trace.streams[layer][SEQUENCE : SEQUENCE + 1])[0, h, earlier]  # (d,): A's value
    cosine = F.cosine_similarity(write, value_a, dim=0).item()
    with log.span("h3.step1"):
        log.line(f"  step 1, layer {layer}: at position {after}, head {D.head_name(*previous)} looks one back")
        log.line(f"    its weight on position {earlier} (token A): {log.number('h3.step1.weight', pattern[earlier].item())}")
        log.line("    it writes that weight times A's value (A's embedding times W_V W_O), and little else:")
        log.line(f"    the cosine of its write with A's value is {log.number('h3.step1.cosine', cosine)}")
        log.line(f"    position {after} now carries \"the token before me was A\" in the stream")


def _h3_key(log: SectionLog, model, trace, previous, induction, tokens, i, after) -> None:
    """Step 2: the induction head's query at i matches the key at `after`, because of what step 1 wrote there."""
    layer, h = induction
    stream = trace.streams[layer][SEQUENCE]  # (T, d): what layer 1 reads

    def split(position: int) -> dict[str, torch.Tensor]:
        """The stream at `position`, by what put each part there (d,) each; and its position row."""
        parts = {"token": model.embed[int(tokens[position])]}
        for lower in range(layer):
            for head in range(model.sizes.n_heads):
                parts[f"head {D.head_name(lower, head)}"] = trace.writes[lower][SEQUENCE, head, position]
        parts["pos"] = model.pos[position]
        return parts

    q_parts, k_parts = split(i), split(after)
    # The parts add up to the stream (plus the position row): a check that the split is complete.
    gap = max((sum(p for n, p in parts.items() if n != "pos") - stream[pos]).abs().max().item() for pos, parts in ((i, q_parts), (after, k_parts)))
    scale = math.sqrt(model.sizes.d_head)
    q = {n: p @ model.W_Q[layer, h] for n, p in q_parts.items()}  # (d_head,) each
    k = {n: p @ model.W_K[layer, h] for n, p in k_parts.items()}
    table = np.array([[(q[a] @ k[c]).item() / scale for c in k] for a in q])  # (parts, parts)
    score = trace.scores[layer][SEQUENCE, h, i]  # (T,): the row's scores, -inf after i
    weights_row = trace.patterns[layer][SEQUENCE, h, i]  # (T,)
    label = f"head {D.head_name(*previous)}"
    without = score.clone()
    without[after] = score[after] - table[:, list(k).index(label)].sum()  # the key without step 1's write
    with log.span("h3.step2"):
        log.line(f"  step 2, layer {layer}: head {D.head_name(*induction)}'s query at row {i} against the key at position {after}")
        log.line(f"    query input = the stream at {i} + position row {i}; key input = the stream at {after} + position row {after};")
        log.line("    each split into what put it there: the token's embedding, each layer-0 head's write, the position row")
        log.line(f"    (the parts add up to the stream: {log.bound('h3.step2.complete', gap, 1e-12)})")
        log.line("    the score q . k / sqrt(d_head), as the sum of every query part against every key part:")
        log.matrix("h3.step2.table", "  query part (rows) against key part (columns)", table, [n.replace("head ", "") for n in q], [n.replace("head ", "") for n in k])
        log.line(f"    the score: {log.number('h3.step2.score', score[after].item())}, the sum of the table")
        log.line(
            f"    its largest part: the query's token (A) against {label}'s write in the key: "
            f"{log.number('h3.step2.match', table[0, list(k).index(label)])}"
        )
        top_other = max((j for j in range(i + 1) if j != after), key=lambda j: score[j].item())
        log.line(
            f"    the weight on position {after}: {log.number('h3.step2.weight', weights_row[after].item())}; the next "
            f"highest score, at position {log.value('h3.step2.other_position', top_other)}: "
            f"{log.number('h3.step2.other', score[top_other].item())}"
        )
        log.line(
            f"    without {label}'s write in that key its score would be {log.number('h3.step2.without', without[after].item())} "
            f"and its weight {log.number('h3.step2.without_weight', torch.softmax(without[: i + 1], dim=0)[after].item())}:"
        )
        log.line("    the key is found through what the layer below wrote into it (K-composition)")


def _h3_copy(log: SectionLog, model, trace, induction, b_token, i, sequences) -> None:
    """Step 3: what the induction head writes at i raises B's logit; the model's answer."""
    layer, h = induction
    logits = trace.writes[layer][SEQUENCE, h, i] @ model.unembed  # (V,): this head's write, read as logits
    rank = int((logits > logits[b_token]).sum()) + 1
    probability = torch.softmax(trace.logits[SEQUENCE, i], dim=0)[b_token].item()
    with log.span("h3.step3"):
        log.line(f"  step 3: head {D.head_name(*induction)} copies: its write at row {i} times the unembedding: the logits it adds")
        log.line(
            f"    B's logit from this head alone: {log.number('h3.step3.logit', logits[b_token].item())}, "
            f"rank {log.value('h3.step3.rank', rank)} of {model.sizes.vocab}; the mean of the others: "
            f"{log.number('h3.step3.others', (logits.sum() - logits[b_token]).item() / (model.sizes.vocab - 1))}"
        )
        log.line(
            f"    the model's probability for B at row {i}: {log.number('h3.step3.probability', probability)} "
            f"(the truth: the next token is {int(sequences[SEQUENCE, i + 1])})"
        )


def h4_ablations(log: SectionLog, models, sequences, traces, scores) -> None:
    """Each head of the two-layer model removed in turn: the loss on the repeat, the induction scores."""
    model, inputs = models["two_layer"], sequences[:, :-1]
    rows = repeat_rows(PROBE_PERIOD, model.sizes.context)
    induction_heads = [head for head, s in scores["two_layer"].items() if s["induction"] > D.THRESHOLD]
    previous = _best(scores["two_layer"], "previous_token", 0)
    with log.span("h4"):
        log.line("[H4] ablations: one head's output removed at a time (zero-ablation)")
        with log.span("h4.rule"):
            log.line("  the head's term leaves the sum its layer adds to the stream; its own pattern is unchanged,")
            log.line(f"  the later layers lose what it wrote. loss: the mean cross-entropy on rows {rows[0].item()} .. {rows[-1].item()} of the probe")
        with log.span("h4.table"):
            columns = "".join(f"{'induction ' + D.head_name(*head):>16}" for head in induction_heads)
            log.line(f"    {'removed':<12}{'loss':>8}{columns}")
            results = {}
            for removed in [None, *_heads(model)]:
                trace = traces["two_layer"] if removed is None else model(inputs, ablate=removed)
                loss = _losses(trace, sequences)[:, rows].mean().item()
                key = "h4.none" if removed is None else f"h4.{D.head_name(*removed)}"
                induction = [D.induction_score(trace.patterns[layer], PROBE_PERIOD)[h].item() for layer, h in induction_heads]
                cells = "".join(f"{log.number(f'{key}.induction.{D.head_name(*head)}', v):>16}" for head, v in zip(induction_heads, induction))
                log.line(f"    {'nothing' if removed is None else 'head ' + D.head_name(*removed):<12}{log.number(f'{key}.loss', loss):>8}{cells}")
                results[removed] = (loss, induction)
            control = _losses(traces["one_layer"], sequences)[:, rows].mean().item()
            log.line(f"    {'(the one-layer control, nothing removed)':<44}{log.number('h4.control.loss', control):>8}")
        with log.span("h4.verdict"):
            broken = all(v < D.THRESHOLD for v in results[previous][1])
            log.line(
                f"  removing the previous-token head {D.head_name(*previous)} takes every induction score below {D.THRESHOLD}: "
                f"{log.value('h4.breaks_induction', broken)}"
            )
            others = [head for head in _heads(model) if head != previous]
            worst = max(others, key=lambda head: results[head][0])
            log.line(
                f"  the next most costly head to lose, {log.value('h4.next_head', D.head_name(*worst))}, raises the loss to "
                f"{fixed(results[worst][0])}; the previous-token head's to {fixed(results[previous][0])}"
            )
    log.line()


def h5_in_context(log: SectionLog, models) -> None:
    """Loss before and after the repeat, on lengths the training used and lengths it never used."""
    context = models["two_layer"].sizes.context
    chance = math.log(models["two_layer"].sizes.vocab - 1)  # a uniform guess among tokens 1 .. vocab - 1
    drawn = {}
    with log.span("h5"):
        log.line("[H5] in-context learning: the loss before the repeat and in it")
        with log.span("h5.setup"):
            log.line(f"  probes like H2's at other periods ({PROBE_SEQUENCES} sequences, seed {PROBE_SEED}):")
            log.line(
                f"  the training used {TRAINED_LENGTHS[0]} and {TRAINED_LENGTHS[1]} (among 3 .. 16), never "
                f"{log.value('h5.new.0', NEW_LENGTHS[0])} or {log.value('h5.new.1', NEW_LENGTHS[1])}"
            )
            log.line(
                f"  first time through: rows 0 .. period - 1; the repeat: rows period + 1 .. {context - 1}; "
                f"chance: ln 31 = {log.number('h5.chance', chance)}"
            )
            log.line("  ln period: the loss of a guess spread evenly over the tokens the context has shown")
        with log.span("h5.table"):
            log.line(f"    {'period':>6}  {'trained on':<11}{'model':<12}{'first time':>11}{'repeat':>8}{'ln period':>11}")
            for period in (*TRAINED_LENGTHS, *NEW_LENGTHS):
                sequences = probe(models["two_layer"].sizes.vocab, context, period=period)
                # A guess spread evenly over the period's tokens, the ones the context has shown: ln(period).
                spread = log.number(f"h5.{period}.spread", math.log(period))
                for name, model in models.items():
                    losses = _losses(model(sequences[:, :-1]), sequences)  # (n, T)
                    first = log.number(f"h5.{period}.{name}.first", losses[:, first_rows(period)].mean().item())
                    repeat = log.number(f"h5.{period}.{name}.repeat", losses[:, repeat_rows(period, context)].mean().item())
                    trained = "yes" if period in TRAINED_LENGTHS else "never"
                    log.line(f"    {period:>6}  {trained:<11}{name:<12}{first:>11}{repeat:>8}{spread:>11}")
                    if period == IN_CONTEXT_FIGURE:
                        drawn[name] = losses.mean(dim=0).tolist()  # (T,)
        with log.span("h5.positions"):
            log.line(f"  period {IN_CONTEXT_FIGURE} (never trained on), the mean loss at each row:")
            for name, per_row in drawn.items():
                texts = log.row(f"h5.row.{name}", per_row)
                log.line(f"    {name}:")
                for start in range(0, context, 8):
                    log.line(f"      rows {start:>2} .. {start + 7:>2}: " + " ".join(f"{t:>6}" for t in texts[start : start + 8]))
        data = {"losses": {n: [float(fixed(v)) for v in r] for n, r in drawn.items()}, "period": IN_CONTEXT_FIGURE, "chance": float(fixed(chance))}
        log.figure(FigureJob("heads_in_context", figures.in_context, data))
    log.line()


def write(log: SectionLog, context: RunContext) -> None:
    """H1-H5 from the shipped weights, through `log`."""
    log.header("heads log", "Module 7: what a trained head does: previous-token and induction heads, in a model trained here")
    models = _models()
    sizes = models["two_layer"].sizes
    sequences = probe(sizes.vocab, sizes.context)  # (n, T + 1)
    with torch.no_grad():
        traces = {name: model(sequences[:, :-1]) for name, model in models.items()}
        h1_patterns(log, models, sequences, traces)
        scores = h2_detectors(log, models, traces)
        h3_circuit(log, models["two_layer"], sequences, traces["two_layer"], scores["two_layer"])
        h4_ablations(log, models, sequences, traces, scores)
        h5_in_context(log, models)
