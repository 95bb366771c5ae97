"""The playground page: its HTML skeleton, and the data it needs, embedded when the site builds.

    ```{playground}
    ```

emits the page's controls and empty containers, one `<script type="application/json">` with
everything the page must not type by hand, and the classic `<script defer>` tags of the
JavaScript in `_static/playground/` (classic scripts, not modules: Chromium refuses module
imports and fetch() on file://, and the page must work from a folder as well as a server).
`data.js`, the first of them, reads the data; the others take their facts from it.

The embedded data:

    world          the canonical world, read from `world.RIVER_BANK`
    name           world.py's rule for a name (word, axis, channel): a JavaScript pattern
                   translated from `world.NAME_RULE`, and the words its messages use for it
    max_magnitude  `world.MAX_MAGNITUDE`, the largest number a world may hold
    max_file_bytes the largest world file world.py reads
    limits         `PAGE_LIMITS`: the page's own limits on words, axes, channels, sentence
    blues          Matplotlib's "Blues" colour map, its 256 colours as hex, sampled here
    white_from     the first of those colours on which white text passes WCAG's 4.5:1 contrast
    colours        the plane figure's colours (run/figures.py), for the page's plane
    run            the run's own numbers for the settings the log prints (results.index.json),
                   so the page can show, and check, that it agrees with the run digit for digit
    positions      what positional.js needs from Python: the run's base (the positions part's BASE), the
                   pairing its RoPE uses (math.positions.rope's default) and the pairings rope knows
    run_positions  the positions part's numbers for the settings positions.log prints (P1 with
                   the first test sentence in both orders, P3), checked the same way

The arithmetic is not here: it is in `_static/playground/math.js`, which mirrors `mechanism.py`,
and `positional.js`, which mirrors `math/positions.py`.
"""

from __future__ import annotations

import inspect
import json
import posixpath
import re
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from attention_by_hand.parts import default_part
from attention_by_hand.site.sphinxext.runlog import log_href, run_index
from attention_by_hand.run.world import MAX_FILE_BYTES, MAX_MAGNITUDE, NAME_RULE, RIVER_BANK, World

__all__ = ["setup", "page_data", "page_facts", "SCRIPTS", "PAGE_LIMITS", "POSITION_CASES"]

logger = logging.getLogger(__name__)

# Load order matters: each file adds to window.AttentionPlayground what the later ones use.
SCRIPTS = (
    "data.js",  # the embedded data below, read once
    "format.js", "math.js", "positional.js", "world.js", "toml.js", "state.js",  # numbers, math, rules, files, links
    "dom.js", "heatmap.js", "plane.js", "view.js",  # drawing, text only
    "crosscheck.js", "main.js",  # the run's numbers; the wiring, which starts the page
)  # fmt: skip

# The settings the run's log prints, and the names under which its index files them.
# (mode, scale, causal mask, test sentence) -> span of weights, prefix of score values, output
RUN_CASES = (
    {"mode": "raw", "scale": False, "causal": False, "sentence": 0,
     "weights": "s3.weights.0", "scores": "s3.scores", "output": "s3.output.0"},
    {"mode": "raw", "scale": False, "causal": False, "sentence": 1,
     "weights": "s3.weights.1", "scores": None, "output": "s3.output.1"},
    {"mode": "wired", "scale": True, "causal": False, "sentence": 0,
     "weights": "s4.weights", "scores": "s4.scores", "output": "s4.output"},
    {"mode": "wired", "scale": True, "causal": True, "sentence": 0,
     "weights": "s6.mask", "scores": None, "output": None},
)  # fmt: skip

# The settings positions.log prints, and how its index files them. rows: the page's table -> (prefix of
# the values, which rows the log prints: every word's or the ambiguous word's only, the columns' keys:
# the axes' or channels' names, or their numbers 0, 1, ... over the axes or the sentence's words).
# P1: raw attention, unscaled, on X + P, for the first test sentence as written and reversed;
# P3: the wired head, scaled, with RoPE on its queries and keys (parts/positions/sections.py).
POSITION_CASES = (
    {"positions": "sinusoidal", "mode": "raw", "scale": False, "causal": False, "reversed": False,
     "span": ("p1.pe", "p1.outputs"),
     "rows": {"pe": ("p1.pe", "all", "axis numbers"), "x_plus_p": ("p1.x_plus_p", "all", "axis numbers"),
              "output": ("p1.output.0", "ambiguous", "axes")}},
    {"positions": "sinusoidal", "mode": "raw", "scale": False, "causal": False, "reversed": True,
     "span": ("p1.pe", "p1.outputs"),
     "rows": {"pe": ("p1.pe", "all", "axis numbers"), "output": ("p1.output.1", "ambiguous", "axes")}},
    {"positions": "rope", "mode": "wired", "scale": True, "causal": False, "reversed": False,
     "span": ("p3.qk", "p3.reading"),
     "rows": {"queries": ("p3.q", "all", "channels"), "keys": ("p3.k", "all", "channels"),
              "scores": ("p3.scores", "all", "word numbers"), "weights": ("p3.weights", "ambiguous", "word numbers")}},
)  # fmt: skip

# WCAG 2 AA: normal-size text needs a contrast of at least 4.5:1 with its background.
_MIN_CONTRAST = 4.5

# The playground's own limits, so that its tables stay readable on a phone (390 px wide). The
# run has no such limits; a bigger world is refused by the page with a message, never cut.
PAGE_LIMITS = {"words": 12, "axes": 8, "channels": 8, "sentence": 8}


def world_data(world: World) -> dict:
    """The world as the page holds it: lists only, so JSON keeps the vocabulary's order."""
    return {
        "axes": list(world.axes),
        "channels": list(world.channels),
        "sentences": [list(s) for s in world.sentences],
        "embeddings": [[word, list(row)] for word, row in world.embeddings.items()],
        "W_Q": [list(row) for row in world.W_Q],
        "W_K": [list(row) for row in world.W_K],
    }


def name_rule() -> dict:
    """world.py's rule for names, as the page needs it: a JavaScript pattern and the words
    its messages use ("1-16 letters, digits, _ or -")."""
    bounds = re.fullmatch(r"\[\\w-\]\{(\d+),(\d+)\}", NAME_RULE.pattern)
    if bounds is None:  # the rule changed shape: translating it by guess could let the two drift
        raise RuntimeError(f"world.NAME_RULE is now {NAME_RULE.pattern!r}: teach playground.name_rule to translate it")
    low, high = bounds.groups()
    # Python's \w on text is a Unicode letter or number, or _ (a browser test checks the two
    # patterns agree on letters, digits and symbols of several scripts).
    return {"pattern": f"^[\\p{{L}}\\p{{N}}_-]{{{low},{high}}}$", "rule": f"{low}-{high} letters, digits, _ or -"}


def plane_colours() -> dict:
    """The plane figure's colours: each test sentence's context word, the ambiguous word's
    embedding (as the canonical part's S3 hands them to its plane figure), and its outputs' arrows."""
    from attention_by_hand.run.figures import BLUE, GREEN, GREY, MAGENTA

    return {"context": [BLUE, GREEN], "embedding": GREY, "output": MAGENTA}


def _luminance(hex_colour: str) -> float:
    """WCAG relative luminance of an sRGB colour '#rrggbb'."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def blues() -> tuple[list[str], int]:
    """The 256 colours of Matplotlib's "Blues", and the index from which cell text turns white.

    The figures turn their text white above 0.55, which suits print; on a screen that white on
    mid-blue is below 3:1. The page switches where white first reaches 4.5:1, and checks that
    black still reaches it on every lighter colour, so every cell is legible.
    """
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps["Blues"]
    colours = [to_hex(cmap(i)) for i in range(cmap.N)]
    contrast = [(1.05 / (_luminance(c) + 0.05), (_luminance(c) + 0.05) / 0.05) for c in colours]  # (white, black)
    white_from = next(i for i, (white, _) in enumerate(contrast) if white >= _MIN_CONTRAST)
    if any(black < _MIN_CONTRAST for _, black in contrast[:white_from]):
        raise RuntimeError("no text colour rule on 'Blues' passes 4.5:1 contrast everywhere")
    return colours, white_from


def run_cases(index, docname: str) -> list[dict]:
    """The run's printed numbers for each setting the log covers, with a link to its lines.

    Empty when the captures are not the canonical world's (a site built by hand with
    `-D abh_captures=` set to another world's run): the page must not claim to agree with a
    run of a different world.
    """
    world = RIVER_BANK
    try:
        ran = {
            (word, axis): index.values[f"s1.embedding.{word}.{axis}"]["value"]
            for word in world.words
            for axis in world.axes
        }
    except KeyError:
        return []
    if ran != {(word, axis): v for word, row in world.embeddings.items() for axis, v in zip(world.axes, row)}:
        return []
    cases = []
    for case in RUN_CASES:
        sentence = world.sentences[case["sentence"]]
        n = len(sentence)
        first, last = index.spans[case["weights"]]
        values = index.values

        def text(name: str) -> str:
            return values[name]["text"]

        entry = {key: case[key] for key in ("mode", "scale", "causal", "sentence")}
        entry["log"] = default_part().log_stem
        entry["href"] = log_href(docname, first, last)
        entry["lines"] = [first, last]
        entry["weights"] = [[text(f"{case['weights']}.{i}.{j}") for j in range(n)] for i in range(n)]
        if case["scores"]:
            entry["scores"] = [[text(f"{case['scores']}.{i}.{j}") for j in range(n)] for i in range(n)]
        if case["output"]:
            # The log prints the ambiguous word's output: the last row.
            entry["output"] = {"row": n - 1, "values": [text(f"{case['output']}.{a}") for a in world.axes]}
        cases.append(entry)
    return cases


def position_facts() -> dict:
    """What positional.js takes from Python rather than retyping: the base the positions part
    runs with, the pairing its RoPE uses (rope's default, which P3 keeps) and the pairings rope knows."""
    from attention_by_hand.math import positions
    from attention_by_hand.parts.positions import sections

    pairing = inspect.signature(positions.rope).parameters["pairing"].default
    return {"base": sections.BASE, "pairing": pairing, "pairings": list(positions.PAIRINGS)}


def position_cases(index, docname: str) -> list[dict]:
    """The positions part's printed numbers for each setting positions.log covers, with a link.

    Each case names the sentence by its words (P1 also runs the first test sentence reversed) and
    holds, per table of the page, {row: [texts]} for the rows the log prints. Empty without a
    positions index (a site built from another world's run has none).
    """
    if index is None:
        return []
    world = RIVER_BANK
    cases = []
    for case in POSITION_CASES:
        words = list(world.sentences[0])[:: -1 if case["reversed"] else 1]
        n = len(words)
        keys = {"axes": world.axes, "channels": world.channels, "axis numbers": range(len(world.axes)), "word numbers": range(n)}
        first, last = index.spans[case["span"][0]][0], index.spans[case["span"][1]][1]
        entry = {key: case[key] for key in ("positions", "mode", "scale", "causal")}
        entry |= {"words": words, "log": "positions", "href": log_href(docname, first, last, "positions"), "lines": [first, last]}
        entry["rows"] = {}
        for table, (prefix, which, columns) in case["rows"].items():
            names = keys[columns]
            if which == "all":
                entry["rows"][table] = {str(i): [index.values[f"{prefix}.{i}.{k}"]["text"] for k in names] for i in range(n)}
            else:  # the log prints the ambiguous word's row only, wherever the word stands
                row = words.index(world.ambiguous)
                entry["rows"][table] = {str(row): [index.values[f"{prefix}.{k}"]["text"] for k in names]}
        cases.append(entry)
    return cases


def page_data(index, docname: str, positions_index=None) -> dict:
    colours, white_from = blues()
    cases = run_cases(index, docname)
    return {
        "world": world_data(RIVER_BANK),
        "name": name_rule(),
        "max_magnitude": MAX_MAGNITUDE,
        "max_file_bytes": MAX_FILE_BYTES,
        "limits": PAGE_LIMITS,
        "blues": colours,
        "white_from": white_from,
        "colours": plane_colours(),
        "run": cases,
        "positions": position_facts(),
        # Only beside a canonical results run: the positions part is the canonical world's.
        "run_positions": position_cases(positions_index, docname) if cases else [],
    }


def _json_for_html(data: dict) -> str:
    """JSON that cannot end its <script> element early: every '<' is written as \\u003c."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


# The page's fixed parts. Tables, the plane and the editors are drawn by view.js into the
# empty containers; every text a learner typed reaches the page through textContent only.
SKELETON = """\
<div class="playground" id="playground" data-ready="false">
<noscript><p class="pg-notice">The playground needs JavaScript. Everything else on this site works without it.</p></noscript>
<div class="pg-notice" id="pg-notice" role="status" aria-live="polite" hidden></div>

<section class="pg-panel" aria-labelledby="pg-h-head">
<h2 id="pg-h-head">Sentence and head</h2>
<div class="pg-sentence">
<p class="pg-label" id="pg-tests-label">The world's two test sentences:</p>
<div class="pg-tests" id="pg-tests" role="group" aria-labelledby="pg-tests-label"></div>
<form id="pg-sentence-form" class="pg-inline-form" novalidate>
<label for="pg-sentence">Or type a sentence (2 to {limits[sentence]} words of the vocabulary, spaces between)</label>
<span class="pg-row"><input type="text" id="pg-sentence" autocomplete="off" spellcheck="false" aria-describedby="pg-sentence-error">
<button type="submit">Show</button></span>
<span class="pg-error" id="pg-sentence-error" aria-live="polite"></span>
</form>
</div>
<fieldset class="pg-mode">
<legend>Which attention</legend>
<label><input type="radio" name="pg-mode" value="raw" id="pg-mode-raw"> raw attention: scores X&#8201;X<sup>T</sup>, no learned parts</label>
<label><input type="radio" name="pg-mode" value="wired" id="pg-mode-wired"> the wired head: scores (X&#8201;W<sub>Q</sub>)(X&#8201;W<sub>K</sub>)<sup>T</sup></label>
</fieldset>
<fieldset class="pg-switches">
<legend>Switches</legend>
<label><input type="checkbox" id="pg-scale"> divide the scores by &#8730;d<sub>k</sub> <span id="pg-scale-note"></span></label>
<label><input type="checkbox" id="pg-causal"> causal mask: a word sees only itself and the words before it</label>
<p class="pg-hint">Choosing raw or wired sets the scale as the run has it (raw: off, wired: on); then switch it freely.</p>
</fieldset>
<fieldset class="pg-positions">
<legend>Word order: positions</legend>
<label><input type="radio" name="pg-positions" value="none" id="pg-positions-none"> none: attention is blind to word order</label>
<label><input type="radio" name="pg-positions" value="sinusoidal" id="pg-positions-sinusoidal"> sinusoidal: add a position vector P to each word's embedding</label>
<label><input type="radio" name="pg-positions" value="rope" id="pg-positions-rope"> RoPE: turn each query and key by its position</label>
<p class="pg-hint">Positions count from 0 at the sentence's first word: type the same words in another order and compare.
<span id="pg-positions-hint" aria-live="polite"></span></p>
</fieldset>
</section>

<section class="pg-panel" aria-labelledby="pg-h-results">
<h2 id="pg-h-results">What attention does with it</h2>
<p class="pg-crosscheck" id="pg-crosscheck"></p>
<div class="pg-results" id="pg-positioned" hidden>
<div class="pg-block" id="pg-pe" data-playground="pe" hidden></div>
<div class="pg-block" id="pg-x-plus-p" data-playground="x_plus_p" hidden></div>
<div class="pg-block" id="pg-rope-q" data-playground="queries" hidden></div>
<div class="pg-block" id="pg-rope-k" data-playground="keys" hidden></div>
</div>
<div class="pg-results">
<div class="pg-block" id="pg-scores" data-playground="scores"></div>
<div class="pg-block" id="pg-weights" data-playground="weights"></div>
<div class="pg-block" id="pg-outputs" data-playground="outputs"></div>
<div class="pg-block" id="pg-plane" data-playground="plane"></div>
</div>
</section>

<section class="pg-panel" aria-labelledby="pg-h-world">
<h2 id="pg-h-world">The world</h2>
<p class="pg-error" id="pg-world-error" aria-live="polite"></p>
<div class="pg-block" id="pg-embeddings"></div>
<form id="pg-add-form" class="pg-inline-form" novalidate>
<label for="pg-add-word">Add a word ({name[rule]}; its row starts at zero)</label>
<span class="pg-row"><input type="text" id="pg-add-word" autocomplete="off" spellcheck="false" aria-describedby="pg-add-error">
<button type="submit">Add word</button></span>
<span class="pg-error" id="pg-add-error" aria-live="polite"></span>
</form>
<div class="pg-matrices">
<div class="pg-block" id="pg-wq"></div>
<div class="pg-block" id="pg-wk"></div>
</div>
<p class="pg-actions"><button type="button" id="pg-reset">Reset to the canonical world</button></p>
</section>

<section class="pg-panel" aria-labelledby="pg-h-file">
<h2 id="pg-h-file">The world as a file</h2>
<p>This is your world as the TOML file that <code>attention-by-hand run --world</code> reads.</p>
<p class="pg-actions"><button type="button" id="pg-export">Download world file</button></p>
<details class="pg-file-view"><summary>Show the world file</summary><pre id="pg-world-file" tabindex="0"></pre></details>
<label for="pg-toml">World file (edit or paste one here, then load it)</label>
<textarea id="pg-toml" rows="12" spellcheck="false" autocomplete="off"></textarea>
<p class="pg-actions"><button type="button" id="pg-load-text">Load this text</button>
<label class="pg-file">Or load a file: <input type="file" id="pg-load-file" accept=".toml,text/plain"></label></p>
<p class="pg-error" id="pg-load-error" aria-live="polite"></p>
</section>
</div>
"""


class Playground(SphinxDirective):
    """The playground: skeleton, embedded data, and the scripts that bring it to life."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        index = run_index(self.env)
        # The page must be rebuilt when the canonical world changes, as it does for a new run.
        package = Path(__file__).resolve().parents[2]
        for source in ("run/world.py", "run/figures.py", "math/positions.py", "parts/positions/sections.py"):  # + the positions' base, pairing
            self.env.note_dependency(str(package / source))
        try:
            positions_index = run_index(self.env, "positions")
        except FileNotFoundError:  # captures of another world's run: no positions part beside them
            positions_index = None
        data = _json_for_html(page_data(index, self.env.docname, positions_index))
        static = posixpath.relpath("_static/playground", posixpath.dirname(self.env.docname) or ".")
        scripts = "".join(f'<script defer src="{static}/{name}"></script>\n' for name in SCRIPTS)
        body = (
            f'<link rel="stylesheet" href="{static}/playground.css">\n'
            + SKELETON.format(limits=PAGE_LIMITS, name=name_rule())
            + f'<script type="application/json" id="playground-data">{data}</script>\n'
            + scripts
        )
        return [nodes.raw("", body, format="html")]


def page_facts() -> dict[str, str]:
    """What the pages' prose may quote by name, so none retypes a limit or a rule: the
    playground's limits, and world.py's name rule and bound on numbers, which it shares."""
    return {
        **{name: str(limit) for name, limit in PAGE_LIMITS.items()},
        "name-rule": name_rule()["rule"],
        "max-magnitude": f"{MAX_MAGNITUDE:,}",  # as world.py's message prints it
    }


class PlaygroundFact(SphinxRole):
    """{playground-fact}`words`: one of `page_facts()`, as text; an unknown name fails the build."""

    def run(self):
        facts = page_facts()
        name = self.text.strip()
        if name not in facts:
            logger.warning(f"playground fact {name!r} does not exist (known: {', '.join(facts)})", location=self.get_location())
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        return [nodes.Text(facts[name])], []


def setup(app):
    app.add_directive("playground", Playground)
    app.add_role("playground-fact", PlaygroundFact())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
