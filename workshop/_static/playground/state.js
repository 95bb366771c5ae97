// state.js: everything on screen as one small object, and that object in the address's
// fragment (#world=...), so that a link shares a world. The fragment never reaches a server.
//
//   state = { world (see world.js), sentence: [words], mode: "raw" | "wired", scale, causal,
//             positions: "none" | "sinusoidal" | "rope" }
//
// The fragment is the state as JSON, UTF-8, then base64url: opaque, but short and safe to
// paste anywhere. Reading one checks the world with world.js's rules, as a world file is.
(function (AP) {
  "use strict";

  var W = AP.world;
  var PREFIX = "#world=";
  var VERSION = 1;
  // How word order gets in (positions.py's P1 and P3). A link written before the switch existed
  // has no positions and means "none": it still opens as it did.
  var POSITIONS = ["none", "sinusoidal", "rope"];

  /** The page's first state: the canonical world, its first test sentence, raw attention. */
  function initial(world) {
    return {
      world: W.copy(world), sentence: world.sentences[0].slice(), mode: "raw", scale: false, causal: false, positions: "none",
    };
  }

  function toBase64url(text) {
    var bytes = new TextEncoder().encode(text);
    var binary = "";
    bytes.forEach(function (b) { binary += String.fromCharCode(b); });
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromBase64url(text) {
    if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
    var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = Uint8Array.from(binary, function (c) { return c.charCodeAt(0); });
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  }

  /** The fragment for `state`, starting with '#'. */
  function encode(state) {
    var w = state.world;
    var data = {
      v: VERSION, axes: w.axes, channels: w.channels, sentences: w.sentences,
      embeddings: w.words.map(function (word, i) { return [word, w.embeddings[i]]; }),
      W_Q: w.W_Q, W_K: w.W_K,
      sentence: state.sentence, mode: state.mode, scale: state.scale, causal: state.causal, positions: state.positions,
    };
    return PREFIX + toBase64url(JSON.stringify(data));
  }

  /**
   * The state a fragment holds; null when the fragment is not the playground's (a heading's
   * anchor, say). Throws WorldError with a specific message when it is ours but broken.
   */
  function decode(hash) {
    if (hash.indexOf(PREFIX) !== 0) return null;
    var data;
    try {
      data = JSON.parse(fromBase64url(hash.slice(PREFIX.length)));
    } catch (err) {
      throw new W.WorldError("link: the world in this link is damaged (it is not what the playground writes)");
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      throw new W.WorldError("link: the world in this link is damaged (it is not what the playground writes)");
    }
    if (data.v !== VERSION) throw new W.WorldError("link: written by another version of the playground (v = " + data.v + ")");
    var pairs = data.embeddings;
    if (!Array.isArray(pairs) || !pairs.every(function (p) { return Array.isArray(p) && p.length === 2 && typeof p[0] === "string"; })) {
      throw new W.WorldError("link: embeddings: must be a list of [word, row] pairs");
    }
    var table = new Map(pairs);
    if (table.size !== pairs.length) throw new W.WorldError("link: embeddings: a word appears twice");
    var world = W.checkWorld(new Map([
      ["axes", data.axes], ["channels", data.channels], ["sentences", data.sentences],
      ["embeddings", table], ["wired", new Map([["W_Q", data.W_Q], ["W_K", data.W_K]])],
    ]), "link");
    var sentence = Array.isArray(data.sentence) ? data.sentence : [];
    var problem = W.sentenceProblem(world, sentence);
    if (problem) throw new W.WorldError("link: sentence: " + problem);
    if (data.mode !== "raw" && data.mode !== "wired") throw new W.WorldError("link: mode: must be raw or wired");
    if (typeof data.scale !== "boolean" || typeof data.causal !== "boolean") {
      throw new W.WorldError("link: scale and causal must each be true or false");
    }
    var positions = data.positions === undefined ? "none" : data.positions;
    if (POSITIONS.indexOf(positions) < 0) throw new W.WorldError("link: positions: must be one of " + POSITIONS.join(", "));
    return { world: world, sentence: sentence.slice(), mode: data.mode, scale: data.scale, causal: data.causal, positions: positions };
  }

  AP.state = { initial: initial, encode: encode, decode: decode, PREFIX: PREFIX, POSITIONS: POSITIONS };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
