// format.js: numbers as the run's log prints them, so the page and results.log can be compared
// by eye, digit for digit.
(function (AP) {
  "use strict";

  /**
   * x with three decimals, as Python's f"{x:.3f}" prints it, with one change: a value that
   * rounds to zero is "0.000", never "-0.000" (a tiny negative rounding error is not a sign
   * worth showing a learner).
   *
   * toFixed and Python both round the exact binary value, so they agree everywhere except on
   * an exact tie. A tie at the third decimal is a number ending in ...x5 at the fourth, which a
   * double can hold exactly only when x is an odd number of sixteenths (0.0625, 0.1875, ...).
   * There toFixed rounds away from zero and Python to the even neighbour; we do as Python.
   */
  function fixed3(x) {
    var sixteenths = x * 16; // exact: multiplying by a power of two never rounds
    var text;
    if (Number.isInteger(sixteenths) && sixteenths % 2 !== 0 && Math.abs(x) < 1e12) {
      var below = Math.floor(x * 1000); // x * 1000 is exactly below + 0.5 here
      var even = below % 2 === 0 ? below : below + 1;
      text = (even / 1000).toFixed(3);
    } else {
      text = x.toFixed(3);
    }
    return text === "-0.000" ? "0.000" : text;
  }

  /** A number as a person types it: 0.3, not 0.30000000000000004 (the shortest exact text). */
  function plain(x) {
    return Object.is(x, -0) ? "-0" : String(x);
  }

  AP.format = { fixed3: fixed3, plain: plain };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
