// The workshop's small page behaviours; nothing here is needed to read a page.
(function () {
  "use strict";

  // On the log page, log.html#L22-L23 highlights lines 22 to 23 of results.log and scrolls to
  // the first; log.html#positions-L5-L7 does the same in positions.log. A plain anchor (#L22)
  // scrolls without this script; a range needs it.
  function highlightLogLines() {
    var lines = document.querySelectorAll("pre.results-log .log-line");
    if (!lines.length) return;
    lines.forEach(function (line) { line.classList.remove("highlighted"); });
    var match = /^#(?:([a-z]+)-)?L(\d+)(?:-L(\d+))?$/.exec(window.location.hash);
    if (!match) return;
    var prefix = match[1] ? match[1] + "-L" : "L";
    var first = parseInt(match[2], 10);
    var last = match[3] ? parseInt(match[3], 10) : first;
    for (var n = first; n <= last; n++) {
      var line = document.getElementById(prefix + n);
      if (line) line.classList.add("highlighted");
    }
    var target = document.getElementById(prefix + first);
    if (target) target.scrollIntoView({ block: "center" });
  }

  // A box that scrolls sideways (code, the log, a formula, a table, a figure) must be reachable
  // from the keyboard, or a keyboard user cannot read its hidden part (WCAG 2.1.1); only boxes
  // that actually overflow get a stop.
  function makeScrollableBoxesFocusable() {
    var boxes = "div.highlight pre, pre.results-log, .math-display, .table-wrapper, .figure-frame";
    document.querySelectorAll(boxes).forEach(function (box) {
      var overflows = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight;
      if (overflows && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
      }
    });
  }

  // A figure wider than the screen scrolls inside its frame, which a phone does not show until
  // touched: the frame is marked "scrolls" (its cue, runlog.py, is then shown), and "more-left" /
  // "more-right" while it hides part of the figure on that side (the styles fade that edge).
  function markEdges(frame) {
    var scrolls = frame.scrollWidth > frame.clientWidth + 1;
    frame.classList.toggle("scrolls", scrolls);
    frame.classList.toggle("more-left", scrolls && frame.scrollLeft > 1);
    frame.classList.toggle("more-right", scrolls && frame.scrollLeft + frame.clientWidth < frame.scrollWidth - 1);
  }

  function markWideFigures() {
    document.querySelectorAll(".figure-frame").forEach(markEdges);
  }

  function start() {
    highlightLogLines();
    makeScrollableBoxesFocusable();
    markWideFigures();
  }

  // A scroll does not bubble, but it can be caught on its way down: one listener for every frame.
  document.addEventListener("scroll", function (event) {
    var frame = event.target;
    if (frame.classList && frame.classList.contains("figure-frame")) markEdges(frame);
  }, { capture: true, passive: true });
  window.addEventListener("hashchange", highlightLogLines);
  window.addEventListener("resize", makeScrollableBoxesFocusable);
  window.addEventListener("resize", markWideFigures);
  // Again once fonts and images are in: they change the layout, hence the scroll position and
  // which boxes overflow.
  window.addEventListener("load", start);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
