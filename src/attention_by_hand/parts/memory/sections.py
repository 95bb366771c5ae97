"""The memory part (Module 5): L1-L5, attention at scale, by hand, with no times in its log.

    L1 the memory wall: the n x n score matrix      L4 the key/value cache, word by word
    L2 online softmax by hand                        L5 sharing keys and values (MHA, GQA, MQA)
    L3 tiled attention by hand, then at 4,096 words

S6 of the canonical run counts GPT-2's attention parameters; what makes attention hard at
scale is elsewhere: one n x n score matrix per head, and the keys and values a decoder would
recompute for every new word. This part builds the answers by hand with `math.tiling`
and `math.kv_cache`, on the toy world's numbers and on one seeded random head, and
reports only what is the same on every machine: sizes and multiply-adds (computed from
formulas the log names), printed digits that sit far from a rounding boundary, and
differences as bounds ("< 1e-10 -> True").

Left out: times and measured memory (they depend on the machine and on which temporaries
NumPy reuses: the benchmarks measure them), and other worlds (the toy world's sentence is
the one traced by hand).
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.math import kv_cache as C
from attention_by_hand.math import mechanism as M
from attention_by_hand.math import tiling as T
from attention_by_hand.parts.memory import figures
from attention_by_hand.run.capture import fixed
from attention_by_hand.run.environment import versions_line
from attention_by_hand.run.figures import FigureJob
from attention_by_hand.run.gpt2 import GPT2
from attention_by_hand.run.part import RunContext
from attention_by_hand.run.section_log import SectionLog, binary_size, bracket, quoted
from attention_by_hand.run.world import RIVER_BANK

__all__ = ["write", "environment"]

SEED = 0  # L3's random head; the same seed the canonical part draws from

LENGTHS = (1_024, 8_192, 32_768, 131_072)  # GPT-2's context, then the long contexts of today
DTYPES = (("fp32", 4), ("fp16", 2))  # name, bytes per number
TILE = 128  # a typical FlashAttention tile side (it must fit in a GPU's on-chip memory)
TOY_BLOCKS = (1, 2)  # L3's blocks on the three-word sentence
RANDOM_WORDS, RANDOM_D_K, RANDOM_BLOCK = 4_096, 64, 512  # L3's random head: an 8 x 8 grid of tiles
REFERENCE_ROWS = 1_024  # rows of the plain head L3's references compute at a time (32 MiB of scores)
DECODE_WORDS = 1_024  # L4: GPT-2's full context
CACHE_WORDS, CACHE_DTYPE = 8_192, ("fp16", 2)  # L5
SERVED_TEXTS = 32  # L5: texts decoded at once by a server, for the page's "the cache is the next wall"

# L5's models: key, name, layers, query heads, d_k, key/value heads as built, groups for the
# grouped-query row. GPT-2 small is multi-head only, so its 4 groups are hypothetical; the
# Llama-shaped model has the attention shape of Llama 3 8B (8 key/value heads).
MODELS = (
    ("gpt2", "GPT-2 small", GPT2["layers"], GPT2["heads"], GPT2["d_k"], GPT2["heads"], 4),
    ("llama", "Llama-shaped", 32, 32, 128, 8, 8),
)

# Differences that mathematics says are 0: float64 noise of order 1e-15 at 4,096 words, printed
# as a bound that the noise clears by five orders of magnitude on any machine.
RANDOM_BOUND = 1e-10
TOY_BOUND = 1e-12


def llama3_8b_weights() -> int:
    """Meta-Llama-3-8B's weights, counted from its config.json: vocabulary 128,256, width 4,096,
    32 layers of 32 query heads and 8 key/value heads of 128 channels, an MLP of 14,336 with three
    matrices (SwiGLU), two norms per layer and one at the end, separate input and output tables."""
    vocab, width, layers, kv_width, mlp = 128_256, 4_096, 32, 8 * 128, 14_336
    attention = 2 * width * width + 2 * width * kv_width  # q and o: width x width; k and v: width x kv_width
    layer = attention + 3 * width * mlp + 2 * width
    return layers * layer + 2 * vocab * width + width  # 8,030,261,248


def l1_memory_wall(log: SectionLog) -> None:
    """The score matrix's bytes for GPT-2 small's shape at four lengths, and the tiled head's."""
    heads, layers = GPT2["heads"], GPT2["layers"]
    with log.span("l1"):
        log.line("[L1] the memory wall: one n x n score matrix per head")
        with log.span("l1.formula"):
            log.line(
                f"  computed: n * n * bytes per head; GPT-2 small has {log.value('l1.heads', heads)} heads per layer "
                f"and {log.value('l1.layers', layers)} layers"
            )
        with log.span("l1.table"):
            log.line(f"  {'words':>9}  dtype  {'per head':>11}  {'per layer':>11}  {'per model':>11}")
            for n in LENGTHS:
                for dtype, size in DTYPES:
                    cells = [
                        log.size(f"l1.{where}.{n}.{dtype}", T.score_matrix_bytes(n, size, *count))
                        for where, count in (("head", (1, 1)), ("layer", (heads, 1)), ("model", (heads, layers)))
                    ]
                    words = log.value(f"l1.words.{n}", n, "{:,}") if dtype == DTYPES[0][0] else f"{n:,}"
                    log.line(f"  {words:>9}  {dtype:<5}  " + "  ".join(f"{c:>11}" for c in cells))
        with log.span("l1.tiled"):
            tile = log.value("l1.tile", TILE)
            log.line(f"  a tiled head holds one {tile} x {tile} tile of scores and a running max and sum per row:")
            log.line("  computed: (b * b + 2 * n) * bytes per head")
            for dtype, size in DTYPES:
                cells = [f"{log.size(f'l1.tiled.{n}.{dtype}', T.tiled_working_bytes(n, TILE, size))} at {n:,}" for n in LENGTHS]
                log.line(f"    {dtype}: " + ", ".join(cells))
        with log.span("l1.peak"):
            # tracemalloc would count NumPy's temporaries, and NumPy reuses a temporary in place only
            # where it can inspect the C stack (not on Windows, for one): the same head traces 1x or
            # 2x the score matrix depending on the platform and version. So it is not a log number.
            log.line("  traced peak memory of the NumPy head: measured in the benchmarks, not here (it counts")
            log.line("  NumPy's temporaries, and which ones NumPy reuses depends on its version and platform)")
        lengths = [2**k for k in range(8, 18)]  # 256 .. 128 K words, for the figure's lines
        series = {
            f"{where}, {dtype}": [float(T.score_matrix_bytes(n, size, *count)) for n in lengths]
            for where, count in ((f"one model ({heads * layers} heads)", (heads, layers)), ("one head", (1, 1)))
            for dtype, size in DTYPES
        }
        tiled = {dtype: [float(T.tiled_working_bytes(n, TILE, size)) for n in lengths] for dtype, size in DTYPES}
        data = dict(lengths=lengths, marked=list(LENGTHS), series=series, tiled=tiled, tile=TILE)
        log.figure(FigureJob("memory_wall", figures.memory_wall, data))
    log.line()


def _bank_scores():
    """S2's row: the ambiguous word's dot product with each word of the first sentence."""
    w = RIVER_BANK
    sentence = w.sentences[0]
    return sentence, np.array([M.dot(w.vector(w.ambiguous), w.vector(word)) for word in sentence])  # (n_words,)


def l2_online_softmax(log: SectionLog) -> None:
    """S2's softmax row again, its maximum and sum in one pass: running maximum, running sum, rescale."""
    w = RIVER_BANK
    sentence, scores = _bank_scores()
    weights, trace = T.online_softmax(scores)
    plain = M.softmax(scores)  # (n_words,): S2's weights
    with log.span("l2"):
        log.line("[L2] online softmax by hand")
        with log.span("l2.scores"):
            log.line(f"  {w.ambiguous}'s scores against {quoted(sentence)} (S2): {bracket(log.row('l2.scores', scores))}")
        with log.span("l2.rule"):
            log.line("  one pass, left to right: m = the largest score so far, l = the sum of exp(score - m) so far;")
            log.line("  when m grows, l was summed against the old m: multiply it by rescale = exp(m_old - m_new)")
        with log.span("l2.trace"):
            log.line(f"    step  {'word':<7}{'score':>7}{'m':>8}{'rescale':>9}{'l':>8}")
            for i, (word, step) in enumerate(zip(sentence, trace)):
                # Step 1 has nothing to rescale (m_old = -inf, l = 0): printed as "-", not as exp(-inf).
                rescale = "-" if i == 0 else log.number(f"l2.rescale.{i}", step.rescale)
                m, l = log.number(f"l2.m.{i}", step.m), log.number(f"l2.l.{i}", step.l)  # noqa: E741
                log.line(f"    {i + 1:>4}  {word:<7}{fixed(step.score):>7}{m:>8}{rescale:>9}{l:>8}")
            log.line(f"  weights = exp(score - m) / l with the last m = {fixed(trace[-1].m)} and l = {fixed(trace[-1].l)}")
        with log.span("l2.equal"):
            online, s2 = bracket(log.row("l2.weights", weights)), bracket(fixed(v) for v in plain)
            log.line(f"    online softmax:  {online}")
            log.line(f"    S2's softmax:    {s2}")
            gap = log.bound("l2.close", np.abs(weights - plain).max(), TOY_BOUND)
            log.line(f"  equal -> {log.value('l2.equal', online == s2)} (max |difference| {gap})")
    log.line()


def _tile_lines(log: SectionLog, name: str, steps, words, block: int, rows_shown=None) -> None:
    """One line per query row per tile: the keys it saw, m, rescale, l and the partial output.

    Filed as `<name>.<row>.<key block>.<m|rescale|l|partial.i>`, by position: a sentence may hold
    the same word twice.
    """
    w = RIVER_BANK
    for step in steps:
        keys = "[" + " ".join(words[step.keys[0] : step.keys[1]]) + "]"
        for i, row in enumerate(range(*step.rows)):
            if rows_shown is not None and row not in rows_shown:
                continue
            key = f"{name}.{row}.{step.keys[0] // block}"
            # The first tile of a row has nothing to rescale (m_old = -inf): "-", as in L2.
            rescale = "-" if step.keys[0] == 0 else log.number(f"{key}.rescale", step.rescale[i])
            m, l = log.number(f"{key}.m", step.m[i]), log.number(f"{key}.l", step.l[i])  # noqa: E741
            partial = bracket(log.row(f"{key}.partial", step.partial[i]))
            log.line(f"    {words[row]:<7}{keys:<13}{m:>7}{rescale:>9}{l:>7}  {partial}")
    log.line(f"    ({', '.join(w.axes)}: the partial output is acc / l, the answer if the keys ended here)")


def l3_tiled(log: SectionLog) -> None:
    """S4's wired head in tiles of one and two words, then a random head of 4,096 words vs PyTorch."""
    w = RIVER_BANK
    sentence, amb = w.sentences[0], w.ambiguous
    X = w.embed(sentence)  # (n_words, d_model)
    Q, K, V = X @ w.wired_W_Q, X @ w.wired_W_K, X  # (n_words, d_k), (n_words, d_k), (n_words, d_model)
    full, _, _ = M.wired_attention(X, w.wired_W_Q, w.wired_W_K)  # (n_words, d_model): S4's head
    d_k = len(w.channels)
    toy_steps = {}
    with log.span("l3"):
        log.line("[L3] tiled attention by hand")
        with log.span("l3.head"):
            log.line(f"  S4's wired head on {quoted(sentence)}: Q = X W_Q, K = X W_K, V = X, scores / sqrt({d_k})")
            log.line("  per query row: m = running max, l = running sum of exp(s - m), acc = running sum of exp(s - m) v;")
            log.line("  a new tile multiplies l and acc by rescale = exp(m_old - m_new), then adds its own terms")
        for block in TOY_BLOCKS:
            steps: list[T.TileStep] = []
            out, _ = T.tiled_attention(Q, K, V, block, trace=steps)
            toy_steps[block] = steps
            with log.span(f"l3.block{block}"):
                if block == 1:
                    log.line(f"  tiles of 1 word, {amb}'s row (one key at a time):")
                    shown = [len(sentence) - 1]
                else:
                    log.line(f"  tiles of {block} words, every row (query blocks down, key blocks across):")
                    shown = None
                log.line(f"    {'row':<7}{'keys':<13}{'m':>7}{'rescale':>9}{'l':>7}  partial output")
                _tile_lines(log, f"l3.block{block}", steps, sentence, block, shown)
                gap = log.bound(f"l3.block{block}.equal", np.abs(out - full).max(), TOY_BOUND)
                final = bracket(fixed(v) for v in out[-1])
                log.line(f"  all {len(sentence)} rows vs S4's full head: max |difference| {gap}; {amb}'s row = {final}")
        _l3_random(log, toy_steps)
    log.line()


def _references(Q: np.ndarray, K: np.ndarray, V: np.ndarray, causal: bool) -> dict[str, np.ndarray]:
    """The plain head's output and log-sum-exp, from NumPy and from PyTorch, for L3's random head.

    Q, K, V: (n_words, d_k) -> "numpy.output", "torch.output": (n_words, d_k); "*.lse": (n_words,)

    Each row is softmaxed over ALL its keys at once, as mechanism.attention does (no running
    rescale). The rows go REFERENCE_ROWS at a time only to keep the reference small: 32 MiB of
    scores per copy where all 4,096 rows would need 128 MiB (and the whole run about twice the
    memory); a softmax never mixes rows, so the numbers are the full head's.
    """
    import torch
    import torch.nn.functional as F

    n, d_k = Q.shape
    parts: dict[str, list] = {"numpy.output": [], "numpy.lse": [], "torch.output": [], "torch.lse": []}
    for r0 in range(0, n, REFERENCE_ROWS):
        r1 = min(r0 + REFERENCE_ROWS, n)
        scores = Q[r0:r1] @ K.T / np.sqrt(d_k)  # (rows, n_words): every key of these rows
        later = np.arange(n)[None, :] > np.arange(r0, r1)[:, None]  # (rows, n_words): the causal mask's rows
        if causal:
            scores = np.where(later, -np.inf, scores)
        parts["numpy.output"].append(M.softmax(scores) @ V)  # (rows, d_k)
        parts["numpy.lse"].append(T.log_sum_exp(scores))  # (rows,)
        parts["torch.lse"].append(torch.logsumexp(torch.from_numpy(scores), dim=-1).numpy())
        # is_causal would align the mask to the block's first row; an explicit mask says where the rows are.
        allowed = torch.from_numpy(~later) if causal else None  # True: may attend
        out = F.scaled_dot_product_attention(torch.from_numpy(Q[r0:r1]), torch.from_numpy(K), torch.from_numpy(V), attn_mask=allowed)
        parts["torch.output"].append(out.numpy())
    return {name: np.concatenate(blocks) for name, blocks in parts.items()}


def _l3_random(log: SectionLog, toy_steps) -> None:
    """A seeded random head at 4,096 words, tiled, against the plain head in NumPy and PyTorch."""
    n, d_k, b = RANDOM_WORDS, RANDOM_D_K, RANDOM_BLOCK
    rng = np.random.default_rng(SEED)
    # Entries N(0, 1): scores / sqrt(d_k) then have spread 1, as S5 shows.
    Q, K, V = (rng.standard_normal((n, d_k)) for _ in range(3))  # (n_words, d_k) each
    grid = T.tile_grid(n, b, causal=True)
    kinds = {kind: sum(row.count(kind) for row in grid) for kind in (T.FULL, T.DIAGONAL, T.SKIPPED)}
    with log.span("l3.random"):
        log.line(
            f"  a random head (seed {SEED}): {log.value('l3.random.words', n, '{:,}')} words, "
            f"d_k = {log.value('l3.random.d_k', d_k)}, tiles of {log.value('l3.random.block', b)} x {b} "
            f"(a grid of {len(grid)} x {len(grid)} = {log.value('l3.random.tiles', len(grid) ** 2)} tiles)"
        )
        log.line("  against the plain head: each row softmaxed over all its keys at once (NumPy: mechanism.softmax;")
        log.line("  PyTorch: scaled_dot_product_attention, and torch.logsumexp of the scores)")
        for causal in (False, True):
            case = "causal" if causal else "full"
            tiled, lse = T.tiled_attention(Q, K, V, b, causal=causal)  # (n, d_k), (n,)
            ref = _references(Q, K, V, causal)
            if causal:
                skipped, masked, whole = (log.value(f"l3.random.{k}", kinds[k]) for k in (T.SKIPPED, T.DIAGONAL, T.FULL))
                log.line(f"    causal: {skipped} tiles skipped above the diagonal, {masked} masked on it, {whole} whole")
            else:
                log.line(f"    not causal: all {len(grid) ** 2} tiles computed")
            for against, label in (("numpy", "NumPy"), ("torch", "PyTorch")):
                out_gap = log.bound(f"l3.random.{case}.{against}.output", np.abs(tiled - ref[f"{against}.output"]).max(), RANDOM_BOUND)
                lse_gap = log.bound(f"l3.random.{case}.{against}.lse", np.abs(lse - ref[f"{against}.lse"]).max(), RANDOM_BOUND)
                log.line(f"      max |tiled - {label:<7}|: output {out_gap}, log-sum-exp per row {lse_gap}")
        with log.span("l3.random.memory"):
            whole = log.size("l3.random.matrix_bytes", T.score_matrix_bytes(n, 8))
            tile = log.size("l3.random.tile_bytes", b * b * 8)
            log.line(f"  the tiled head never held the {n:,} x {n:,} score matrix ({whole} in float64),")
            log.line(f"  only one {b} x {b} tile at a time ({tile})")
        # The printed numbers, not the float64 ones: the figure's pixels cannot depend on the last bits.
        row = [s for s in toy_steps[1] if s.rows[0] == len(RIVER_BANK.sentences[0]) - 1]  # the last word's tiles
        trace = {name: [float(fixed(getattr(s, name)[0])) for s in row] for name in ("m", "l", "rescale")}
        keys = [RIVER_BANK.sentences[0][s.keys[0]] for s in row]
        data = dict(keys=keys, **trace, word=RIVER_BANK.ambiguous, grid=grid, n_words=n, block=b)
        log.figure(FigureJob("tiled_blocks", figures.tiled_blocks, data))


def l4_kv_cache(log: SectionLog) -> None:
    """The causal wired head decoded word by word with a cache, then what the cache saves."""
    w = RIVER_BANK
    sentence = w.sentences[0]
    X = w.embed(sentence)  # (n_words, d_model)
    eye = np.eye(len(w.axes))  # W_V = identity: the values are the raw embeddings, as in S4
    outputs, cache = C.decode_with_cache(X, w.wired_W_Q, w.wired_W_K, eye)  # (n_words, d_model)
    places = w.decimals
    with log.span("l4"):
        log.line("[L4] the key/value cache")
        with log.span("l4.intro"):
            log.line(f"  S4's wired head with the causal mask, decoding {quoted(sentence)} one word at a time:")
            log.line("  each word's key and value are computed once, appended to the cache and kept;")
            log.line("  its query meets every cached key (the newest row of the causal mask: no mask needed)")
        with log.span("l4.steps"):
            for t, word in enumerate(sentence):
                log.line(f"    after '{word}' the cache holds {t + 1} row{'s' if t else ''} (k: {', '.join(w.channels)}; v: {', '.join(w.axes)}):")
                for j in range(t + 1):
                    k = bracket(log.row(f"l4.k.{t}.{j}", cache.keys[j], places=2))
                    v = bracket(log.row(f"l4.v.{t}.{j}", cache.values[j], places=places))
                    log.line(f"      {sentence[j]:<6} k = {k}   v = {v}{'   (new)' if j == t else ''}")
                # Recompute everything: the causal head on the words so far; its last row is this word's.
                again, _ = M.attention(X[: t + 1], w.wired_W_Q, w.wired_W_K, eye, causal=True)
                out = bracket(log.row(f"l4.output.{t}", outputs[t]))
                gap = log.bound(f"l4.equal.{t}", np.abs(outputs[t] - again[-1]).max(), TOY_BOUND)
                log.line(f"      output = {out}")
                log.line(f"      = the causal head recomputed on all {t + 1} word{'s' if t else ''}, last row: max |difference| {gap}")
        _l4_cost(log)
    log.line()


def _l4_cost(log: SectionLog) -> None:
    """Multiply-adds for one new word at GPT-2's full context, with and without the cache."""
    n, d_model, d_k, heads, layers = DECODE_WORDS, GPT2["d_model"], GPT2["d_k"], GPT2["heads"], GPT2["layers"]
    with_cache = C.decode_multiply_adds(n, d_model, d_k, heads, layers, cached=True)
    without = C.decode_multiply_adds(n, d_model, d_k, heads, layers, cached=False)
    with log.span("l4.cost"):
        log.line(f"  multiply-adds of the attention heads for one new word at n = {log.value('l4.cost.words', n, '{:,}')} words,")
        log.line(f"  GPT-2 small: {heads} heads x {layers} layers, d_model {d_model}, d_k {d_k} (d_v = d_k)")
        log.line("    computed, with a cache:    heads * layers * (3 * d_model * d_k + 2 * n * d_k)")
        log.line(f"      = {log.value('l4.cost.cached', with_cache, '{:,}'):>14}  (q, k, v of the new word; its n scores; its blend of n values)")
        log.line("    computed, without a cache: heads * layers * n * (3 * d_model * d_k + 2 * n * d_k)")
        log.line(f"      = {log.value('l4.cost.uncached', without, '{:,}'):>14}  (the same for every one of the n words, again)")
        ratio = log.value("l4.cost.ratio", without // with_cache, "{:,}")
        # A head that skips the masked half: word i computes i scores and blends i values, not n.
        causal = heads * layers * (n * 3 * d_model * d_k + 2 * d_k * n * (n + 1) // 2)
        log.value("l4.cost.causal_ratio", causal / with_cache, "{:,.0f}", derived=True)
        log.value("l4.cost.causal_share", causal / with_cache / (without // with_cache), "{:.0%}", derived=True)
        log.line(f"    {ratio} times fewer with the cache: n, since no earlier word's share is done again")
        log.line("    (without one, every layer runs again on all n words: each earlier word's keys and values")
        log.line("    depend on the layers below; output projections and the MLP are left out of both)")


def l5_sharing(log: SectionLog) -> None:
    """Cache bytes for multi-head, grouped-query and multi-query attention at 8 K words."""
    n, (dtype, size) = CACHE_WORDS, CACHE_DTYPE
    with log.span("l5"):
        log.line("[L5] sharing keys and values: the cache at 8 K words")
        with log.span("l5.formula"):
            log.line(
                f"  computed: 2 (keys and values) * layers * kv_heads * d_k * n * bytes, n = "
                f"{log.value('l5.words', n, '{:,}')}, {dtype}"
            )
            log.line("  kv_heads: every query head has its own (multi-head), a group of query heads shares one")
            log.line("  (grouped-query), or all share one (multi-query); the queries stay as many as before")
        for key, name, layers, heads, d_k, built, groups in MODELS:
            with log.span(f"l5.{key}"):
                log.line(f"  {name}: {layers} layers, {heads} query heads, d_k {d_k}")
                log.line(f"    {'attention':<14}{'kv_heads':>9}{'per word':>12}{'cache':>12}")
                for kind, kv_heads in (("multi-head", heads), ("grouped-query", groups), ("multi-query", 1)):
                    slug = kind.replace("-", "_")
                    word = log.size(f"l5.{key}.{slug}.per_word", C.kv_cache_bytes(1, layers, kv_heads, d_k, size))
                    total = log.size(f"l5.{key}.{slug}.cache", C.kv_cache_bytes(n, layers, kv_heads, d_k, size))
                    log.value(f"l5.{key}.{slug}.kv_heads", kv_heads)
                    note = "as built" if kv_heads == built else "hypothetical"
                    log.line(f"    {kind:<14}{kv_heads:>9}{word:>12}{total:>12}   ({note})")
        # For the page: many texts' caches against the weights, both in 16-bit numbers (not printed).
        log.value("l5.served_texts", SERVED_TEXTS, derived=True)
        _, _, layers, _, d_k, built, _ = MODELS[1]  # the Llama-shaped model, as built
        served = SERVED_TEXTS * C.kv_cache_bytes(n, layers, built, d_k, size)
        log.value("l5.llama.served_cache", served, binary_size(served), derived=True)
        weights = llama3_8b_weights() * size
        log.value("l5.llama.weight_bytes", weights, binary_size(weights), derived=True)
        with log.span("l5.notes"):
            log.line("  GPT-2 small is built with multi-head attention: its other two rows are what it would need.")
            log.line(f"  the Llama-shaped model is built with {MODELS[1][5]} groups, as Llama 3 8B is: its other rows are hypothetical.")
    log.line()


def environment() -> str:
    """Line 3: the versions that make this log (torch answers L3's references; the seed draws its head)."""
    return versions_line(("torch", "numpy", "matplotlib"), seed=SEED)


def write(log: SectionLog, context: RunContext) -> None:
    """L1-L5 on the canonical world and GPT-2's sizes, through `log`."""
    log.header("memory log", "Module 5: attention at scale, by hand: sizes and multiply-adds computed, no times")
    l1_memory_wall(log)
    l2_online_softmax(log)
    l3_tiled(log)
    l4_kv_cache(log)
    l5_sharing(log)
