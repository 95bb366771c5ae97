// main.js: the wiring. It owns the one state (see state.js), turns every edit into a new
// state, recomputes with math.js and redraws with view.js. An edit that would break the page
// (a cell that is not a finite number, an unknown word, a broken link or file) changes
// nothing on screen but a message: the last valid state stays, and no NaN is ever shown.
(function (AP) {
  "use strict";

  var W = AP.world;
  var view = AP.view;
  var root = document.getElementById("playground");
  var data = AP.data;
  var palette = { blues: data.blues, whiteFrom: data.white_from };
  var POSITIONS = data.positions; // {base, pairing, pairings}: positions.py's base, the pairing its RoPE uses
  var canonical = W.checkWorld(new Map([
    ["axes", data.world.axes], ["channels", data.world.channels], ["sentences", data.world.sentences],
    ["embeddings", new Map(data.world.embeddings)], ["wired", new Map([["W_Q", data.world.W_Q], ["W_K", data.world.W_K]])],
  ]), "canonical world");

  var state = null;
  var invalid = new Map(); // input key -> what is wrong with it, until the learner fixes it
  var timings = []; // ms per update: recompute + redraw + layout, for benchmarks/playground.py
  AP.timings = timings;

  /**
   * Why `positions` cannot apply to this world and head, or null. Both schemes turn or fill
   * channels in pairs (positional.py refuses an odd width): sinusoidal positions are added to the
   * embeddings (d_model = the number of axes); RoPE turns the queries and keys, which are the
   * embeddings in raw attention and the wired head's channels otherwise.
   */
  function positionsProblem(world, mode, positions) {
    var what = positions === "sinusoidal" || mode === "raw" ? "axes" : "channels";
    var d = world[what].length;
    if (positions === "none" || d % 2 === 0) return null;
    return (positions === "sinusoidal" ? "sinusoidal positions fill" : "RoPE turns") + " pairs of " + what +
      ": it needs an even number of them, and this world has " + d;
  }

  /**
   * One sentence through the head, with the positions switch: sinusoidal adds P's rows to the
   * embeddings (positions.py's P1: X + P, then attention); RoPE turns each query and key by its
   * position (P3). Positions are 0 .. n_words - 1, the sentence's own order.
   */
  function attendWithPositions(s, heads, sentence) {
    var X = W.embed(s.world, sentence); // (n_words, d_model)
    var n = X.length;
    var order = X.map(function (_, i) { return i; }); // (n_words,): each word's position
    var pe = null;
    var input = X;
    if (s.positions === "sinusoidal") {
      pe = AP.positional.sinusoidalPositions(n, X[0].length, POSITIONS.base); // (n_words, d_model)
      input = X.map(function (row, i) { return row.map(function (x, j) { return x + pe[i][j]; }); }); // X + P
    }
    var rotate = s.positions !== "rope" ? null : function (M) { // (n_words, d_k) -> (n_words, d_k)
      return AP.positional.rope(M, order, POSITIONS.base, POSITIONS.pairing);
    };
    var r = AP.math.attend(input, heads[0], heads[1], { scale: s.scale, causal: s.causal, rotate: rotate });
    r.pe = pe;
    r.x_plus_p = pe && input;
    return r;
  }

  /** Every number the page shows for `s`, or null if any is not finite (a score overflowed). */
  function compute(s) {
    var w = s.world;
    var heads = s.mode === "raw" ? [null, null] : [w.W_Q, w.W_K];
    var run = function (sentence) { return attendWithPositions(s, heads, sentence); };
    var computed = { current: run(s.sentence), tests: w.sentences.map(run) };
    var all = [computed.current].concat(computed.tests);
    var finite = all.every(function (r) {
      return [r.x_plus_p || [], r.queries, r.keys, r.scores, r.weights, r.output].every(function (m) {
        return m.every(function (row) { return row.every(Number.isFinite); });
      });
    });
    return finite ? computed : null;
  }

  // ---- the address: the state in the fragment ---------------------------------------------

  var fragmentTimer = null;
  function writeFragment() {
    // Once things settle, not on every keystroke: Chromium throttles a page that rewrites its
    // address hundreds of times in a few seconds (holding an arrow key on a number does that).
    // data-address says whether the address is still to be written ("pending") or holds the
    // state ("current"): a test of links waits for it, however long a busy machine takes.
    clearTimeout(fragmentTimer);
    root.dataset.address = "pending";
    fragmentTimer = setTimeout(function () {
      root.dataset.address = "current";
      var hash = AP.state.encode(state);
      if (hash === window.location.hash) return;
      // A first visit keeps its plain address until the learner changes something.
      if (!window.location.hash && hash === AP.state.encode(AP.state.initial(canonical))) return;
      try {
        history.replaceState(null, "", hash);
      } catch (err) {
        window.location.replace(hash); // the same, where replaceState is refused
      }
    }, 150);
  }

  function readFragment() {
    try {
      return { state: AP.state.decode(window.location.hash) };
    } catch (err) {
      if (!(err instanceof W.WorldError)) throw err;
      return { error: err.message };
    }
  }

  // ---- updates ------------------------------------------------------------------------------

  /** Make `next` the state if its numbers are all finite; redraw the results. */
  function commit(next) {
    var t0 = performance.now();
    // A world or head whose width the chosen positions cannot pair: positions go off, and the
    // switch says why (its option is disabled for as long as the width stays odd).
    if (positionsProblem(next.world, next.mode, next.positions)) next = changed(next, { positions: "none" });
    var computed = compute(next);
    if (computed === null) return false;
    state = next;
    var problems = {};
    AP.state.POSITIONS.forEach(function (p) { problems[p] = positionsProblem(state.world, state.mode, p); });
    view.controls(state, computed.current.d_k, problems);
    view.results(state, computed, palette);
    view.crossCheck(AP.crosscheck.check(state, computed, canonical, data.run, data.run_positions));
    var file = document.getElementById("pg-world-file");
    var text = AP.toml.write(state.world);
    if (file.textContent !== text) file.textContent = text;
    root.getBoundingClientRect(); // the layout the browser would do before the next frame
    timings.push(performance.now() - t0);
    writeFragment();
    return true;
  }

  /** A whole new state (reset, a file, a link): new editors, no leftover marks. */
  function adopt(next, source) {
    if (!commit(next)) {
      return source + ": the numbers are too large to compute (a score overflows); nothing changed";
    }
    invalid.clear();
    view.editors(state);
    showInvalid();
    return "";
  }

  function showInvalid() {
    var problems = Array.from(invalid.values());
    view.message("pg-world-error", problems.length ? problems.join("; ") + ". The numbers above are from the last valid world." : "");
  }

  function mark(input, key, problem) {
    if (problem) invalid.set(key, problem);
    else invalid.delete(key);
    if (problem) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    showInvalid();
  }

  /** A copy of state `s` with `changes`. */
  function changed(s, changes) {
    var next = {
      world: s.world, sentence: s.sentence, mode: s.mode, scale: s.scale, causal: s.causal, positions: s.positions,
    };
    Object.keys(changes).forEach(function (k) { next[k] = changes[k]; });
    return next;
  }

  function withChanges(changes) {
    return changed(state, changes);
  }

  /** A number cell: a finite number goes into the world; anything else only marks the cell. */
  function onNumber(input) {
    var table = input.dataset.table;
    var i = +input.dataset.row;
    var j = +input.dataset.col;
    var key = table + ":" + i + ":" + j;
    var label = input.getAttribute("aria-label");
    var text = input.value.trim();
    var value = Number(text);
    if (input.validity.badInput || text === "" || !Number.isFinite(value)) {
      mark(input, key, label + ": not a number");
      return;
    }
    if (Math.abs(value) > W.maxMagnitude) {
      mark(input, key, label + ": " + W.tooLarge(value));
      return;
    }
    var world = W.copy(state.world);
    (table === "embeddings" ? world.embeddings : world[table])[i][j] = value;
    if (!commit(withChanges({ world: world }))) {
      mark(input, key, label + ": too large, a score overflows");
      return;
    }
    mark(input, key, null);
  }

  function onRename(input) {
    var i = +input.dataset.word;
    var name = input.value.trim();
    var old = state.world.words[i];
    if (name === old) {
      mark(input, "name:" + i, null);
      return;
    }
    var problem = W.nameProblem(state.world, name, i);
    if (problem) {
      mark(input, "name:" + i, "word " + (i + 1) + ": " + problem);
      return;
    }
    var sentence = state.sentence.map(function (w) { return w === old ? name : w; });
    commit(withChanges({ world: W.rename(state.world, i, name), sentence: sentence }));
    mark(input, "name:" + i, null);
    view.relabel(state);
  }

  function onAddWord(event) {
    event.preventDefault();
    var input = document.getElementById("pg-add-word");
    var name = input.value.trim();
    var problem = state.world.words.length >= W.LIMITS.words
      ? "the playground holds at most " + W.LIMITS.words + " words"
      : W.nameProblem(state.world, name, -1);
    view.message("pg-add-error", problem || "");
    if (problem) {
      input.setAttribute("aria-invalid", "true");
      return;
    }
    input.removeAttribute("aria-invalid");
    input.value = "";
    adopt(withChanges({ world: W.addWord(state.world, name) }), "add");
  }

  function onSentence(event) {
    event.preventDefault();
    var input = document.getElementById("pg-sentence");
    var words = input.value.trim().split(/\s+/).filter(Boolean);
    var problem = W.sentenceProblem(state.world, words);
    if (problem) {
      input.setAttribute("aria-invalid", "true");
      view.message("pg-sentence-error", problem + "; still showing " + state.sentence.join(" "));
      return;
    }
    commit(withChanges({ sentence: words }));
  }

  /** A world file's text: checked with world.py's rules, then shown with its first sentence. */
  function loadText(text, source) {
    var world;
    try {
      world = W.checkWorld(AP.toml.read(text, source), source);
    } catch (err) {
      if (!(err instanceof W.WorldError)) throw err;
      view.message("pg-load-error", err.message);
      return;
    }
    var problem = adopt(withChanges({ world: world, sentence: world.sentences[0].slice() }), source);
    view.message("pg-load-error", problem || "Loaded " + source + ".");
  }

  function download() {
    var blob = new Blob([AP.toml.write(state.world)], { type: "application/toml" });
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "my-world.toml";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
  }

  // ---- start --------------------------------------------------------------------------------

  function listen() {
    var on = function (id, type, handler) { document.getElementById(id).addEventListener(type, handler); };
    root.addEventListener("input", function (e) {
      if (e.target.classList.contains("pg-number")) onNumber(e.target);
    });
    root.addEventListener("change", function (e) {
      if (e.target.classList.contains("pg-name")) onRename(e.target);
    });
    on("pg-tests", "click", function (e) {
      var k = e.target.closest("[data-test-sentence]");
      if (k) commit(withChanges({ sentence: state.world.sentences[+k.dataset.testSentence].slice() }));
    });
    on("pg-sentence-form", "submit", onSentence);
    ["pg-mode-raw", "pg-mode-wired"].forEach(function (id) {
      // Choosing a mode sets the scale as the run has it: S3's raw attention is unscaled, S4's head is scaled.
      on(id, "change", function (e) { commit(withChanges({ mode: e.target.value, scale: e.target.value === "wired" })); });
    });
    on("pg-scale", "change", function (e) { commit(withChanges({ scale: e.target.checked })); });
    on("pg-causal", "change", function (e) { commit(withChanges({ causal: e.target.checked })); });
    AP.state.POSITIONS.forEach(function (p) {
      on("pg-positions-" + p, "change", function () { commit(withChanges({ positions: p })); });
    });
    on("pg-add-form", "submit", onAddWord);
    on("pg-reset", "click", function () {
      adopt(withChanges({ world: W.copy(canonical), sentence: canonical.sentences[0].slice() }), "reset");
      view.message("pg-notice", "");
    });
    on("pg-export", "click", download);
    on("pg-load-text", "click", function () { loadText(document.getElementById("pg-toml").value, "pasted world file"); });
    on("pg-load-file", "change", function (e) {
      var file = e.target.files[0];
      if (!file) return;
      file.arrayBuffer().then(function (bytes) {
        try {
          loadText(AP.toml.decode(bytes, file.name), file.name);
        } catch (err) {
          if (!(err instanceof W.WorldError)) throw err;
          view.message("pg-load-error", err.message);
        }
        e.target.value = ""; // the same file may be loaded again after more edits
      });
    });
    window.addEventListener("hashchange", fromAddress);
  }

  /** The state the address holds; the canonical world, with a notice, when it cannot be read. */
  function fromAddress() {
    var read = readFragment();
    if (read.state === null) return; // not the playground's fragment: a heading's anchor
    if (state && read.state && AP.state.encode(read.state) === AP.state.encode(state)) return;
    var notice = read.error ? read.error + ". Showing the canonical world instead." : "";
    if (read.state) {
      var problem = adopt(read.state, "link");
      if (problem) notice = problem + ". Showing the canonical world instead.";
    }
    if (notice) adopt(AP.state.initial(canonical), "canonical world");
    view.message("pg-notice", notice);
  }

  listen();
  adopt(AP.state.initial(canonical), "canonical world");
  fromAddress();
  root.dataset.ready = "true";
})((window.AttentionPlayground = window.AttentionPlayground || {}));
