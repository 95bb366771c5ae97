// data.js: the facts the site build embedded in the page (sphinxext/playground.py), read once
// before any other script needs them. The playground types none of them itself: the canonical
// world, world.py's name rule and bounds, the page's size limits, the colours of the figures,
// and the run's own numbers all come from the Python sources through this one object.
(function (AP) {
  "use strict";

  AP.data = JSON.parse(document.getElementById("playground-data").textContent);
})((window.AttentionPlayground = window.AttentionPlayground || {}));
