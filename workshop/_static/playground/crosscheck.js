// crosscheck.js: does the page show the run's own numbers? With the canonical world and a
// setting the log prints (raw attention on either test sentence; the wired head, scaled, with
// and without the mask, on the first), every displayed weight, score and output is compared
// with the text results.log printed, which the site build embedded (playground.py), and the
// page says so with a link to those lines.
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

  /**
   * state, computed: as main.js has them; canonical: the canonical world; cases: the run's
   * numbers per logged setting -> {kind: "run", equal, href, lines} | {kind: "own" | "none", text}
   */
  function check(state, computed, canonical, cases) {
    if (!AP.world.same(state.world, canonical)) {
      return {
        kind: "own",
        text: "Your own world: download its file below and run it with attention-by-hand run --world; " +
          "the log prints its test sentences' numbers.",
      };
    }
    var k = state.world.sentences.findIndex(function (t) { return t.join(" ") === state.sentence.join(" "); });
    var match = cases.find(function (c) {
      return c.mode === state.mode && c.scale === state.scale && c.causal === state.causal && c.sentence === k;
    });
    if (!match) {
      return {
        kind: "none",
        text: "The run's log prints raw attention (unscaled) for both test sentences and the wired head " +
          "(scaled, with and without the mask) for the first; these settings are yours alone.",
      };
    }
    var c = computed.current;
    var equal = sameMatrix(c.weights, match.weights) && (!match.scores || sameMatrix(c.scores, match.scores)) &&
      (!match.output || sameMatrix([c.output[match.output.row]], [match.output.values]));
    return { kind: "run", equal: equal, href: match.href, lines: match.lines };
  }

  AP.crosscheck = { check: check };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
