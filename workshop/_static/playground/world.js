// world.js: the toy world and the rules of world.py's parse_world, so that every world the
// page accepts is one `attention-by-hand run --world` accepts too.
//
// The page holds a world as plain lists (JSON keeps their order; a JavaScript object would
// move a word named "42" to the front):
//   { axes: [d_model names], channels: [d_k names], sentences: [[words], [words]],
//     words: [n_vocab names], embeddings: (n_vocab, d_model), W_Q: (d_model, d_k), W_K: (d_model, d_k) }
(function (AP) {
  "use strict";

  // world.py's _NAME, translated for the browser, and the words its messages use for it.
  var NAME = new RegExp(AP.data.name.pattern, "u");
  var NAME_RULE = AP.data.name.rule;

  // The playground's own limits, for a page that stays readable on a phone (PAGE_LIMITS in
  // playground.py). The run has no such limits; a bigger world is refused here, never cut.
  var LIMITS = AP.data.limits;

  // world.MAX_MAGNITUDE: every number of a world stays within it, or the run's products overflow.
  var MAX_MAGNITUDE = AP.data.max_magnitude;

  /** A fault a learner can cause and fix; its message names the input, like world.py's. */
  class WorldError extends Error {}

  /** A value as Python's repr prints it in world.py's messages: 'bank', True, inf, 0.5. */
  function quoted(value) {
    if (typeof value === "string") return "'" + value + "'";
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value === "number" && !Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
    return String(value);
  }

  /** world.py's message for a number beyond MAX_MAGNITUDE. */
  function tooLarge(v) {
    return v + " is too large (keep every number within \u00b1" + MAX_MAGNITUDE.toLocaleString("en-US") + ")";
  }

  function isList(value) {
    return Array.isArray(value);
  }

  /**
   * Check a parsed world file (a Map, as toml.js makes it) and return the page's world; throw
   * WorldError("<source>: <key>: <what>") on the first fault, in world.py's order and words.
   */
  function checkWorld(data, source) {
    function fail(key, what) {
      return new WorldError(source + ": " + key + ": " + what);
    }
    var known = ["axes", "channels", "embeddings", "sentences", "wired"];
    data.forEach(function (_, key) {
      if (known.indexOf(key) < 0) throw fail(key, "unknown key (expected only " + known.join(", ") + ")");
    });
    ["axes", "channels", "sentences", "embeddings", "wired"].forEach(function (key) {
      if (!data.has(key)) throw fail(key, "missing");
    });
    var axes = names(data.get("axes"), "axes", fail, 2, LIMITS.axes);
    var channels = names(data.get("channels"), "channels", fail, 1, LIMITS.channels);

    var table = data.get("embeddings");
    if (!(table instanceof Map) || table.size === 0) throw fail("embeddings", "must be a table with one row per word");
    if (table.size > LIMITS.words) throw fail("embeddings", "the playground holds at most " + LIMITS.words + " words");
    var words = [];
    var embeddings = [];
    table.forEach(function (row, word) {
      var key = "embeddings." + word;
      if (!NAME.test(word)) throw fail(key, "a word must be " + NAME_RULE);
      words.push(word);
      embeddings.push(numbers(row, axes.length, key, fail, "one per axis"));
    });

    var sentences = data.get("sentences");
    if (!isList(sentences) || sentences.length !== 2) throw fail("sentences", "must hold exactly two sentences");
    sentences.forEach(function (sentence, i) {
      var key = "sentences[" + i + "]";
      if (!isList(sentence) || sentence.length < 2) throw fail(key, "must be a list of at least two words");
      sentence.forEach(function (word) {
        if (typeof word !== "string") throw fail(key, quoted(word) + " is not a word (expected a string)");
        if (words.indexOf(word) < 0) throw fail(key, "'" + word + "' has no row under [embeddings]");
      });
      if (sentence.length > LIMITS.sentence) throw fail(key, "the playground shows at most " + LIMITS.sentence + " words");
    });
    var a = sentences[0];
    var b = sentences[1];
    if (a.length !== b.length) throw fail("sentences", "must have equal length (got " + a.length + " and " + b.length + ")");
    if (a[a.length - 1] !== b[b.length - 1]) {
      throw fail("sentences", "must end in the same (ambiguous) word (got '" + a[a.length - 1] + "' and '" + b[b.length - 1] + "')");
    }

    var wired = data.get("wired");
    if (!(wired instanceof Map)) throw fail("wired", "must be a table holding W_Q and W_K");
    wired.forEach(function (_, key) {
      if (key !== "W_Q" && key !== "W_K") throw fail("wired." + key, "unknown key (expected only W_Q and W_K)");
    });
    var matrices = {};
    ["W_Q", "W_K"].forEach(function (name) {
      var key = "wired." + name;
      if (!wired.has(name)) throw fail(key, "missing");
      var rows = wired.get(name);
      if (!isList(rows) || rows.length !== axes.length) throw fail(key, "must have " + axes.length + " rows (one per axis)");
      matrices[name] = rows.map(function (row, i) {
        return numbers(row, channels.length, key + "[" + i + "]", fail, "one per channel");
      });
    });

    return {
      axes: axes, channels: channels, sentences: [a.slice(), b.slice()],
      words: words, embeddings: embeddings, W_Q: matrices.W_Q, W_K: matrices.W_K,
    };
  }

  function names(value, key, fail, minimum, maximum) {
    if (!isList(value) || value.length < minimum) throw fail(key, "must be a list of at least " + minimum + " names");
    value.forEach(function (name) {
      if (typeof name !== "string" || !NAME.test(name)) throw fail(key, quoted(name) + " is not a name (" + NAME_RULE + ")");
    });
    value.forEach(function (name, i) {
      if (value.indexOf(name) !== i) throw fail(key, "'" + name + "' appears twice");
    });
    if (value.length > maximum) throw fail(key, "the playground holds at most " + maximum);
    return value.slice();
  }

  function numbers(value, length, key, fail, what) {
    if (!isList(value) || value.length !== length) {
      var got = isList(value) ? value.length : typeof value;
      throw fail(key, "must be " + length + " numbers (" + what + "), got " + got);
    }
    return value.map(function (v) {
      if (typeof v !== "number") throw fail(key, quoted(v) + " is not a number");
      if (!Number.isFinite(v)) throw fail(key, quoted(v) + " is not a finite number");
      if (Math.abs(v) > MAX_MAGNITUDE) throw fail(key, tooLarge(v));
      return v;
    });
  }

  /** The page's world as the Map checkWorld reads: the shape of a parsed world file. */
  function toData(world) {
    return new Map([
      ["axes", world.axes],
      ["channels", world.channels],
      ["sentences", world.sentences],
      ["embeddings", new Map(world.words.map(function (w, i) { return [w, world.embeddings[i]]; }))],
      ["wired", new Map([["W_Q", world.W_Q], ["W_K", world.W_K]])],
    ]);
  }

  /** A deep copy: edits make a new world and leave the last valid one untouched. */
  function copy(world) {
    return JSON.parse(JSON.stringify(world));
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  /** Why `name` cannot be a new word (or the new name of word `except`), or null if it can. */
  function nameProblem(world, name, except) {
    if (!NAME.test(name)) return "'" + name + "' is not a word: use " + NAME_RULE;
    var at = world.words.indexOf(name);
    if (at >= 0 && at !== except) return "'" + name + "' is already a word";
    return null;
  }

  /** Rename word i everywhere: its row, both test sentences. The caller checks the name. */
  function rename(world, i, name) {
    var next = copy(world);
    var old = next.words[i];
    next.words[i] = name;
    next.sentences = next.sentences.map(function (s) {
      return s.map(function (w) { return w === old ? name : w; });
    });
    return next;
  }

  /** Add a word whose row is all zeros: it matches nothing until the learner gives it meaning. */
  function addWord(world, name) {
    var next = copy(world);
    next.words.push(name);
    next.embeddings.push(next.axes.map(function () { return 0; }));
    return next;
  }

  /** Why `words` cannot be the sentence on screen (2 to LIMITS.sentence words of the vocabulary), or null. */
  function sentenceProblem(world, words) {
    if (words.length < 2) return "a sentence needs at least 2 words (got " + words.length + ")";
    if (words.length > LIMITS.sentence) return "the playground shows at most " + LIMITS.sentence + " words (got " + words.length + ")";
    for (var i = 0; i < words.length; i++) {
      if (typeof words[i] !== "string" || world.words.indexOf(words[i]) < 0) {
        return quoted(words[i]) + " is not in the vocabulary (" + world.words.join(", ") + ")";
      }
    }
    return null;
  }

  /** The word both test sentences end in: the one whose meaning depends on context. */
  function ambiguous(world) {
    return world.sentences[0][world.sentences[0].length - 1];
  }

  /** X: (n_words, d_model), one embedding row per word of the sentence. */
  function embed(world, sentence) {
    return sentence.map(function (w) { return world.embeddings[world.words.indexOf(w)]; });
  }

  AP.world = {
    NAME: NAME, LIMITS: LIMITS, WorldError: WorldError, checkWorld: checkWorld, toData: toData,
    copy: copy, same: same, nameProblem: nameProblem, sentenceProblem: sentenceProblem, rename: rename, addWord: addWord,
    ambiguous: ambiguous, embed: embed, tooLarge: tooLarge, maxMagnitude: MAX_MAGNITUDE,
  };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
