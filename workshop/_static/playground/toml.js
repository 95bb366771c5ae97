// toml.js: the world as the TOML file `attention-by-hand run --world` reads, both ways.
//
// write() makes a file that world.py's load_world accepts and that holds exactly the page's
// world (every number written in its shortest exact form, so Python reads back the same
// double). read() is a small TOML reader for exactly what world files use: comments, `key =
// value`, [table] headers, strings, decimal numbers, booleans and arrays (over several lines
// too). Anything else TOML allows (dotted keys, inline tables, dates, hex numbers, multi-line
// strings) gets a message naming the line; it is never guessed at.
(function (AP) {
  "use strict";

  var WorldError = AP.world.WorldError;
  var MAX_BYTES = AP.data.max_file_bytes; // world.py's limit on a world file
  var BARE_KEY = /^[A-Za-z0-9_-]+$/;

  // ---- writing -------------------------------------------------------------------------

  /** A float TOML and Python read back as the same double: 0.3, 2.0, -0.0, 1e-07 stays 1e-7. */
  function number(x) {
    if (Object.is(x, -0)) return "-0.0";
    if (Number.isInteger(x) && Math.abs(x) < 1e21) return String(x) + ".0"; // 2 -> 2.0, a float
    return String(x); // shortest round-trip text; exponents such as 1e-7 or 5e+22 are valid TOML
  }

  function string(s) {
    return JSON.stringify(s); // a TOML basic string: the same quotes and escapes as JSON for names
  }

  function key(s) {
    return BARE_KEY.test(s) ? s : string(s);
  }

  function list(values, item) {
    return "[" + values.map(item).join(", ") + "]";
  }

  /** The world file of `world` (the page's world; see world.js). */
  function write(world) {
    var rows = function (m) { return list(m, function (row) { return list(row, number); }); };
    return [
      "# A toy world for \"LLM Self-Attention by Hand\", written by the playground.",
      "# Run it:  attention-by-hand run --world this-file.toml --out my-run",
      "",
      "axes = " + list(world.axes, string),
      "channels = " + list(world.channels, string),
      "sentences = " + list(world.sentences, function (s) { return list(s, string); }),
      "",
      "[embeddings]",
    ].concat(world.words.map(function (w, i) { return key(w) + " = " + list(world.embeddings[i], number); }), [
      "",
      "[wired]",
      "W_Q = " + rows(world.W_Q),
      "W_K = " + rows(world.W_K),
      "",
    ]).join("\n");
  }

  // ---- reading -------------------------------------------------------------------------

  /** Parse world-file text into Maps (tables) and arrays; throw WorldError naming the line. */
  function read(text, source) {
    var pos = 0;
    var root = new Map();
    var table = root;

    function fail(what) {
      var line = text.slice(0, pos).split("\n").length;
      return new WorldError(source + ": line " + line + ": " + what);
    }
    function spaces() {
      while (text[pos] === " " || text[pos] === "\t") pos++;
    }
    function comment() {
      if (text[pos] === "#") while (pos < text.length && text[pos] !== "\n") pos++;
    }
    function newline() {
      if (text[pos] === "\r" && text[pos + 1] === "\n") pos++;
      if (text[pos] === "\n") { pos++; return true; }
      return false;
    }
    function blank() { // spaces, comments and line breaks, as between the items of an array
      for (;;) {
        spaces();
        comment();
        if (!newline()) return;
      }
    }
    function endOfLine() {
      spaces();
      comment();
      if (pos < text.length && !newline()) throw fail("expected the end of the line, found '" + text[pos] + "'");
    }
    function keyName() {
      var name;
      if (text[pos] === '"' || text[pos] === "'") {
        name = str();
      } else {
        var bare = /[A-Za-z0-9_-]+/y;
        bare.lastIndex = pos;
        var found = bare.exec(text);
        if (!found) throw fail("expected a key name");
        pos = bare.lastIndex;
        name = found[0];
      }
      spaces();
      if (text[pos] === ".") throw fail("dotted keys (a.b) are not part of a world file");
      return name;
    }
    function str() {
      var quote = text[pos];
      if (text.startsWith(quote.repeat(3), pos)) throw fail("multi-line strings are not part of a world file");
      var out = "";
      pos++;
      for (;;) {
        var c = text[pos];
        if (c === undefined || c === "\n" || c === "\r") throw fail("a string is not closed on its line");
        pos++;
        if (c === quote) return out;
        if (c === "\\" && quote === '"') out += escape();
        else out += c;
      }
    }
    function escape() {
      var simple = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };
      var c = text[pos++];
      if (c in simple) return simple[c];
      var width = c === "u" ? 4 : c === "U" ? 8 : 0;
      var hex = text.substr(pos, width);
      if (!width || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== width) throw fail("unknown escape \\" + c + " in a string");
      pos += width;
      var code = parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw fail("\\" + c + hex + " is not a character");
      return String.fromCodePoint(code);
    }
    function value() {
      var c = text[pos];
      if (c === '"' || c === "'") return str();
      if (c === "[") return array();
      if (c === "{") throw fail("inline tables {...} are not part of a world file");
      var word = /(true|false)(?=[\s,\]#]|$)/y;
      word.lastIndex = pos;
      var found = word.exec(text);
      if (found) { pos = word.lastIndex; return found[1] === "true"; }
      return num();
    }
    function num() {
      var decimal = /([+-]?)(?:(inf|nan)|(0|[1-9](?:_?[0-9])*)(\.[0-9](?:_?[0-9])*)?([eE][+-]?[0-9](?:_?[0-9])*)?)(?=[\s,\]#]|$)/y;
      decimal.lastIndex = pos;
      var m = decimal.exec(text);
      if (!m) {
        if (/^[+-]?0[xob]/.test(text.slice(pos, pos + 4))) throw fail("write numbers in decimal (0x, 0o and 0b are not read here)");
        throw fail("'" + text.slice(pos).split(/[\s,\]]/)[0] + "' is not a value a world file holds");
      }
      pos = decimal.lastIndex;
      if (m[2]) return m[2] === "nan" ? NaN : m[1] === "-" ? -Infinity : Infinity;
      return Number(m[0].replace(/_/g, ""));
    }
    function array() {
      var items = [];
      pos++; // [
      for (;;) {
        blank();
        if (text[pos] === "]") { pos++; return items; }
        if (pos >= text.length) throw fail("an array is not closed (missing ']')");
        items.push(value());
        blank();
        if (text[pos] === ",") pos++;
        else if (text[pos] !== "]") throw fail("expected ',' or ']' in an array");
      }
    }

    if (text.length > MAX_BYTES) throw new WorldError(source + ": more than " + MAX_BYTES + " characters, too large for a world file");
    if (!text.trim()) throw new WorldError(source + ": the world file is empty");
    for (;;) {
      blank();
      if (pos >= text.length) return root;
      if (text[pos] === "[") {
        if (text[pos + 1] === "[") throw fail("arrays of tables [[...]] are not part of a world file");
        pos++;
        spaces();
        var name = keyName();
        spaces();
        if (text[pos] !== "]") throw fail("expected ']' after the table name");
        pos++;
        if (root.has(name)) throw fail("'" + name + "' is defined twice");
        table = new Map();
        root.set(name, table);
      } else {
        var k = keyName();
        spaces();
        if (text[pos] !== "=") throw fail("expected '=' after the key '" + k + "'");
        pos++;
        spaces();
        if (table.has(k)) throw fail("'" + k + "' is defined twice");
        table.set(k, value());
      }
      endOfLine();
    }
  }

  /**
   * A file's bytes as text, refused the way textfile.py refuses them: empty, too large,
   * binary, not UTF-8. bytes: an ArrayBuffer.
   */
  function decode(bytes, source) {
    var data = new Uint8Array(bytes);
    if (data.length === 0) throw new WorldError(source + ": the world file is empty");
    if (data.length > MAX_BYTES) throw new WorldError(source + ": more than " + MAX_BYTES + " bytes, too large for a world file");
    if (data.indexOf(0) >= 0) throw new WorldError(source + ": a binary file, not a world file");
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(data);
    } catch (err) {
      throw new WorldError(source + ": not UTF-8 text, not a world file");
    }
  }

  AP.toml = { write: write, read: read, decode: decode, number: number };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
