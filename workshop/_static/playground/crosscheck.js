// crosscheck.js: does the page show the run's own numbers? With the canonical world and a
// setting the log prints (raw attention on either test sentence; the wired head, scaled, with
// and without the mask, on the first), every displayed weight, score and output is compared
// with the text results.log printed, which the site build embedded (playground.py), and the
// page says so with a link to those lines. With positions on, the same for the settings
// positions.log prints: sinusoidal positions under raw attention (unscaled) on the first test
// sentence as written and reversed (P1), RoPE on the wired head (scaled) on the first (P3).
(function (AP) {
  "use strict";

  var fixed3 = AP.format.fixed3;

  /** The page's text equals the log's; the page writes "0.000" where Python wrote "-0.000". */
  function same(shown, logged) {
    return shown === logged.replace(/^-0\.000$/, "0.000");
  }

  function sameMatrix(matrix, logged) {
    return logged.every(function (row, i) {
      return row.every(function (text, j) { return same(fixed3(matrix[i][j]), text); });
    });
  }

  /** The page's rows equal the log's: rows = {table: {row: [texts]}}, table named as computed's. */
  function sameRows(computed, rows) {
    return Object.keys(rows).every(function (table) {
      return Object.keys(rows[table]).every(function (i) {
        return computed[table] !== null && sameMatrix([computed[table][+i]], [rows[table][i]]);
      });
    });
  }

  /** The positions part's case for this state, or undefined. */
  function positionsCase(state, positionCases) {
    var sentence = state.sentence.join(" ");
    return positionCases.find(function (c) {
      return c.positions === state.positions && c.mode === state.mode && c.scale === state.scale &&
        c.causal === state.causal && c.words.join(" ") === sentence;
    });
  }

  /**
   * state, computed: as main.js has them; canonical: the canonical world; cases: the run's
   * numbers per logged setting; positionCases: the positions part's
   * -> {kind: "run", equal, log, href, lines} | {kind: "own" | "none", text}
   */
  function check(state, computed, canonical, cases, positionCases) {
    if (!AP.world.same(state.world, canonical)) {
      return {
        kind: "own",
        text: "Your own world: download its file below and run it with attention-by-hand run --world; " +
          "the log prints its test sentences' numbers.",
      };
    }
    var c = computed.current;
    if (state.positions !== "none") {
      var placed = positionsCase(state, positionCases);
      if (placed) return { kind: "run", equal: sameRows(c, placed.rows), log: placed.log, href: placed.href, lines: placed.lines };
    }
    var k = state.world.sentences.findIndex(function (t) { return t.join(" ") === state.sentence.join(" "); });
    var match = state.positions === "none" && cases.find(function (c) {
      return c.mode === state.mode && c.scale === state.scale && c.causal === state.causal && c.sentence === k;
    });
    if (!match) {
      return {
        kind: "none",
        text: "The run's logs print raw attention (unscaled) for both test sentences and the wired head " +
          "(scaled, with and without the mask) for the first; with positions, raw attention (unscaled) with " +
          "sinusoidal positions for the first test sentence and the same words reversed, and the wired head " +
          "(scaled) with RoPE for the first. These settings are yours alone.",
      };
    }
    var equal = sameMatrix(c.weights, match.weights) && (!match.scores || sameMatrix(c.scores, match.scores)) &&
      (!match.output || sameMatrix([c.output[match.output.row]], [match.output.values]));
    return { kind: "run", equal: equal, log: match.log, href: match.href, lines: match.lines };
  }

  AP.crosscheck = { check: check };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
