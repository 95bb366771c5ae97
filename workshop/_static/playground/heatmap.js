// heatmap.js: the attention weights as the workshop's figures draw them (figures.heatmap):
// Matplotlib's "Blues" from 0 to 1, each cell annotated with three decimals, row = the word
// doing the looking, column = the word looked at. An HTML table rather than a picture, so the
// numbers are text a screen reader reads and a test finds, and the colour is never the only
// carrier of a value.
(function (AP) {
  "use strict";

  var dom = AP.dom;
  var fixed3 = AP.format.fixed3;

  /**
   * The colour Matplotlib gives v with vmin=0, vmax=1: entry floor(v * 256) of the 256-colour
   * table (v = 1 takes the last), the table sampled from Matplotlib when the site was built.
   * Text turns white from palette.whiteFrom on; see playground.py for why not at 0.55.
   */
  function colour(v, palette) {
    var n = palette.blues.length;
    var i = Math.min(n - 1, Math.max(0, Math.floor(v * n)));
    return { background: palette.blues[i], dark: i >= palette.whiteFrom };
  }

  /** weights: (n_words, n_words), drawn as a table into `container`; cells carry data-row, data-col. */
  function heatmap(container, weights, words, caption, palette) {
    dom.tableInto(container, caption, "looking \u2193 / at \u2192", words, words, function (i, j) {
      var c = colour(weights[i][j], palette);
      return {
        text: fixed3(weights[i][j]),
        "data-row": i, "data-col": j,
        class: c.dark ? "pg-cell pg-dark" : "pg-cell",
        style: "background-color: " + c.background,
      };
    }, "pg-heatmap");
  }

  AP.heatmap = { heatmap: heatmap, colour: colour };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
