// view.js: the state and its numbers, drawn into the page's skeleton (see playground.py).
// It reads nothing back from the page and decides nothing: main.js owns the state and calls
// these functions after every change. All text goes in through dom.js, as text.
(function (AP) {
  "use strict";

  var dom = AP.dom;
  var fixed3 = AP.format.fixed3;
  var W = AP.world;
  var MINUS_INFINITY = "\u2212\u221e";
  var COLOURS = AP.data.colours; // the run's plane figure's: {context: [first, second], embedding, output}
  var POSITIONS = AP.data.positions; // {base, pairing, pairings}, from positions.py and positional.py

  function byId(id) {
    return document.getElementById(id);
  }

  /** Set a node's text only when it changes: an unchanged write still costs the browser a layout. */
  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function quoted(sentence) {
    return "\u201c" + sentence.join(" ") + "\u201d";
  }

  function same(a, b) {
    return a.length === b.length && a.every(function (x, i) { return x === b[i]; });
  }

  /** "water+place, money+filler": the pairs RoPE turns together, named. names: (d,), d even. */
  function pairsText(names) {
    var pairs = AP.positional.pairedChannels(names.length, POSITIONS.pairing);
    return pairs.first.map(function (a, i) { return names[a] + "+" + names[pairs.second[i]]; }).join(", ");
  }

  /** What RoPE turns in this head, and which channels it pairs; or why an option is off. */
  function positionsHint(state, problems) {
    var raw = state.mode === "raw";
    var names = raw ? state.world.axes : state.world.channels;
    var parts = [];
    if (!problems.rope) {
      parts.push("RoPE pairs " + (raw ? "the axes " : "the channels ") + pairsText(names) + " (positional.rope's \u201c" +
        POSITIONS.pairing + "\u201d pairing)" + (raw
        ? ": raw attention has no W_Q or W_K, so RoPE turns the embeddings where they serve as queries and keys; the values stay as they are."
        : "; the values are not turned."));
    }
    ["sinusoidal", "rope"].forEach(function (p) {
      if (problems[p]) parts.push("Off: " + problems[p] + ".");
    });
    return parts.join(" ");
  }

  /** The sentence buttons, the mode, the switches, the positions, the typed sentence. */
  function controls(state, d_k, problems) {
    var tests = byId("pg-tests");
    var labels = state.world.sentences.map(function (s) { return s.join(" "); });
    if (Array.from(tests.children).map(function (b) { return b.textContent; }).join("|") !== labels.join("|")) {
      // Rebuilt only when a word is renamed: a button that keeps focus must not be replaced.
      dom.replace(tests, labels.map(function (text, k) {
        return dom.el("button", { type: "button", class: "pg-test", "data-test-sentence": k, text: text });
      }));
    }
    Array.from(tests.children).forEach(function (button, k) {
      button.setAttribute("aria-pressed", String(same(state.world.sentences[k], state.sentence)));
    });
    byId("pg-mode-raw").checked = state.mode === "raw";
    byId("pg-mode-wired").checked = state.mode === "wired";
    byId("pg-scale").checked = state.scale;
    byId("pg-causal").checked = state.causal;
    AP.state.POSITIONS.forEach(function (p) {
      var radio = byId("pg-positions-" + p);
      radio.checked = state.positions === p;
      radio.disabled = Boolean(problems[p]);
    });
    setText(byId("pg-positions-hint"), positionsHint(state, problems));
    setText(byId("pg-scale-note"), "(d_k = " + d_k + ", so \u00f7 " + fixed3(Math.sqrt(d_k)) + ")");
    var typed = byId("pg-sentence");
    var sentence = state.sentence.join(" ");
    if (typed.dataset.shown !== sentence) {
      // A new sentence on screen: the box shows it. Otherwise what the learner typed stays.
      typed.dataset.shown = sentence;
      typed.value = sentence;
      typed.removeAttribute("aria-invalid");
      setText(byId("pg-sentence-error"), "");
    }
  }

  /**
   * The numbers: score matrix, weight heatmap, every word's output, and the plane.
   * computed = {current: math.attend(...) on the sentence, tests: [attend(...) on each test sentence]}
   */
  /** A block shown only for some positions: hidden and emptied otherwise, so no stale number stays in it. */
  function shown(id, on) {
    var node = byId(id);
    if (node.hidden === on) node.hidden = !on;
    if (!on && node.firstChild) {
      dom.replace(node, []);
      delete node.dataset.shape;
    }
    return on;
  }

  /** theta per pair as the log prints it: "[1.000, 0.010]". */
  function thetas(d) {
    return "[" + AP.positional.ropeFrequencies(d, POSITIONS.base).map(fixed3).join(", ") + "]";
  }

  /**
   * What the positions did before the scores: P and X + P (sinusoidal), or the turned queries
   * and keys (RoPE; in raw attention one table, the turned embeddings serving as both).
   */
  function positionTables(state, c) {
    var s = state.sentence;
    var axes = state.world.axes;
    var raw = state.mode === "raw";
    var numbered = function (M) { return function (i, j) { return { text: fixed3(M[i][j]), "data-row": i, "data-col": j }; }; };
    var sinusoidal = state.positions === "sinusoidal";
    var rope = state.positions === "rope";
    var all = byId("pg-positioned"); // the blocks' box: hidden, never emptied, when positions are off
    if (all.hidden !== !(sinusoidal || rope)) all.hidden = !(sinusoidal || rope);
    if (shown("pg-pe", sinusoidal)) {
      var positions = c.pe.map(function (_, i) { return "pos " + i; });
      dom.tableInto(byId("pg-pe"), "Position vectors P: sin and cos of pos / base^(2i/d_model), base " + POSITIONS.base +
        ", d_model = " + axes.length + " (added onto the named axes)", "", axes, positions, numbered(c.pe));
    }
    if (shown("pg-x-plus-p", sinusoidal)) {
      dom.tableInto(byId("pg-x-plus-p"), "X + P for " + quoted(s) + ": each word plus its position's row, what attention now sees",
        "", axes, s, numbered(c.x_plus_p));
    }
    var labels = s.map(function (word, i) { return word + " " + i; }); // the word and its position
    if (shown("pg-rope-q", rope)) {
      var channels = raw ? axes : state.world.channels;
      var turn = "turned by position \u00d7 \u03b8, \u03b8 = " + thetas(channels.length) + " rad per position (pairs " +
        pairsText(channels) + ")";
      var caption = raw ? "rope(X): each embedding " + turn + ", serving as query and as key" : "rope(Q): each word's query " + turn;
      dom.tableInto(byId("pg-rope-q"), caption, "word, position", channels, labels, numbered(c.queries));
    }
    if (shown("pg-rope-k", rope && !raw)) {
      dom.tableInto(byId("pg-rope-k"), "rope(K): each word's key, turned the same way", "word, position",
        state.world.channels, labels, numbered(c.keys));
    }
  }

  function results(state, computed, palette) {
    var s = state.sentence;
    var c = computed.current;
    positionTables(state, c);
    var what = {
      raw: { none: "X \u00b7 X\u1d40", sinusoidal: "(X + P) \u00b7 (X + P)\u1d40", rope: "rope(X) \u00b7 rope(X)\u1d40" },
      wired: { none: "Q \u00b7 K\u1d40", sinusoidal: "Q \u00b7 K\u1d40 from X + P", rope: "rope(Q) \u00b7 rope(K)\u1d40" },
    }[state.mode][state.positions];
    var steps = [state.scale ? "divided by \u221a" + c.d_k + " = " + fixed3(Math.sqrt(c.d_k)) : "not scaled",
      state.causal ? "later words masked to " + MINUS_INFINITY : "no mask"];
    dom.tableInto(byId("pg-scores"), "Scores " + what + " for " + quoted(s) + " (then " + steps.join(", ") + ")", "", s, s, function (i, j) {
      var masked = state.causal && j > i;
      return { text: masked ? MINUS_INFINITY : fixed3(c.scores[i][j]), "data-row": i, "data-col": j, "data-masked": masked ? "true" : null };
    });

    var caption = "Attention weights for " + quoted(s) + ": row = word doing the looking; each ROW sums to 1";
    AP.heatmap.heatmap(byId("pg-weights"), c.weights, s, caption, palette);

    var axes = state.world.axes;
    var values = state.positions === "sinusoidal" ? "weights \u00d7 (X + P)" : "weights \u00d7 embeddings";
    dom.tableInto(byId("pg-outputs"), "Each word's output (" + values + "), on the named axes", "", axes, s, function (i, j) {
      return { text: fixed3(c.output[i][j]), "data-row": i, "data-axis": axes[j] };
    });

    var world = state.world;
    var amb = W.ambiguous(world);
    var embedding = W.embed(world, [amb])[0];
    var points = world.sentences.map(function (sentence, k) {
      var context = sentence[sentence.length - 2];
      var v = W.embed(world, [context])[0];
      return { label: context, x: v[0], y: v[1], colour: COLOURS.context[k] };
    });
    points.push({ label: amb + " (embedding)", x: embedding[0], y: embedding[1], colour: COLOURS.embedding });
    var moves = world.sentences.map(function (sentence, k) {
      var out = computed.tests[k].output[sentence.length - 1];
      return { label: amb + " after " + quoted(sentence), sentence: k, from: [embedding[0], embedding[1]], to: [out[0], out[1]] };
    });
    AP.plane.plane(byId("pg-plane"), axes.slice(0, 2), points, moves);
  }

  /** One number input of a world table; data-* say which cell it edits. */
  function numberInput(table, i, j, value, label) {
    return dom.el("input", {
      type: "number", step: "0.1", inputmode: "decimal", class: "pg-number",
      value: AP.format.plain(value), "aria-label": label, "data-table": table, "data-row": i, "data-col": j,
    });
  }

  /** The editable tables: embeddings (with each word's name), W_Q and W_K. */
  function editors(state) {
    var w = state.world;
    var head = dom.el("tr", {}, [dom.el("th", { scope: "col", text: "word" })].concat(
      w.axes.map(function (a) { return dom.el("th", { scope: "col", text: a }); })
    ));
    var rows = w.words.map(function (word, i) {
      return dom.el("tr", {}, [dom.el("th", { scope: "row" }, [dom.el("input", {
        type: "text", class: "pg-name", value: word, "aria-label": "name of word " + (i + 1), "data-word": i,
        autocomplete: "off", spellcheck: "false", maxlength: 32,
      })])].concat(w.axes.map(function (a, j) {
        return dom.el("td", {}, [numberInput("embeddings", i, j, w.embeddings[i][j], word + ", " + a)]);
      })));
    });
    dom.replace(byId("pg-embeddings"), [dom.el("table", { class: "pg-table pg-editor" }, [
      dom.el("caption", { text: "Embeddings: one row per word, one number per axis (rename a word in its first cell)" }),
      dom.el("thead", {}, [head]), dom.el("tbody", {}, rows),
    ])]);
    [["W_Q", "pg-wq", "what each axis asks for"], ["W_K", "pg-wk", "what each axis advertises"]].forEach(function (m) {
      var name = m[0];
      dom.replace(byId(m[1]), [dom.table(name + ": " + m[2] + " (rows: axes, columns: channels)", "", w.channels, w.axes, function (i, j) {
        return dom.el("td", {}, [numberInput(name, i, j, w[name][i][j], name + ", " + w.axes[i] + ", " + w.channels[j])]);
      }, "pg-editor")]);
    });
  }

  /** After a rename: the labels of the embedding inputs follow the new names. */
  function relabel(state) {
    document.querySelectorAll('input[data-table="embeddings"]').forEach(function (input) {
      input.setAttribute("aria-label", state.world.words[+input.dataset.row] + ", " + state.world.axes[+input.dataset.col]);
    });
    document.querySelectorAll("input.pg-name").forEach(function (input) {
      input.value = state.world.words[+input.dataset.word];
    });
  }

  /** Does the page show the run's numbers? match = {href, lines, equal} or a reason. */
  function crossCheck(check) {
    var node = byId("pg-crosscheck");
    var key = JSON.stringify(check);
    if (node.dataset.check === key) return;
    node.dataset.check = key;
    node.dataset.match = check.kind;
    if (check.kind === "run") {
      dom.replace(node, [
        (check.equal ? "\u2713 Digit for digit the run's numbers: " : "\u2717 These differ from the run's: "),
        dom.el("a", { href: check.href, text: check.log + ".log lines " + check.lines[0] + "-" + check.lines[1] }),
      ]);
    } else {
      node.textContent = check.text;
    }
  }

  /** A message in one of the page's message areas ("" clears it). */
  function message(id, text) {
    var node = byId(id);
    setText(node, text);
    if (node.id === "pg-notice") node.hidden = !text;
  }

  AP.view = { controls: controls, results: results, editors: editors, relabel: relabel, crossCheck: crossCheck, message: message };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
