// positional.js: telling attention where each word sits, as positional.py does it, in plain
// JavaScript: one function here per function of positional.py the page uses, with its name.
//
// Shapes are named as in the Python: n_positions the number of positions, d_model or d the
// width of the vectors being given positions (the embeddings, or a head's queries and keys).
// Nothing here is typed from Python: the base and the pairing are arguments, and the pairings
// rope knows arrive in the page data (playground.py's position_facts), as main.js passes them.
//
// Left out, as the page has no switch for them: positional.rotate_2d (rope turns each pair
// itself, as the Python does), interleaved_to_halves, and ALiBi (alibi_bias, alibi_slopes).
(function (AP) {
  "use strict";

  var PAIRINGS = AP.data.positions.pairings; // positional.PAIRINGS

  /** positional._even_width: both schemes work on pairs of channels. */
  function evenWidth(d, what) {
    if (!(d > 0) || d % 2 !== 0) {
      throw new RangeError(what + " must be a positive even number (channels come in pairs), got " + d);
    }
  }

  /**
   * positional.sinusoidal_positions: the Transformer's fixed position vectors, one row per position.
   *
   *   PE[pos][2i]   = sin(pos / base^(2i / d_model))
   *   PE[pos][2i+1] = cos(pos / base^(2i / d_model))      i = 0 .. d_model/2 - 1
   *
   * -> PE: (n_positions, d_model)
   */
  function sinusoidalPositions(nPositions, d_model, base) {
    evenWidth(d_model, "d_model");
    var wavelength = []; // (d_model/2,): base^(2i/d_model)
    for (var c = 0; c < d_model; c += 2) wavelength.push(Math.pow(base, c / d_model));
    var PE = []; // (n_positions, d_model)
    for (var pos = 0; pos < nPositions; pos++) {
      var row = [];
      wavelength.forEach(function (w) {
        var angle = pos / w;
        row.push(Math.sin(angle), Math.cos(angle)); // even channel, then odd
      });
      PE.push(row);
    }
    return PE;
  }

  /** positional.rope_frequencies: theta_i = base^(-2i/d), the angle per position of pair i.   -> (d/2,) */
  function ropeFrequencies(d, base) {
    evenWidth(d, "the width d");
    var theta = [];
    for (var c = 0; c < d; c += 2) theta.push(Math.pow(base, -c / d));
    return theta;
  }

  /**
   * Which channels make each pair, as positional.rope slices them: {first, second}, pair i being
   * channels first[i] and second[i].   -> two (d/2,) lists of channel numbers
   *   halves         channel i with channel i + d/2
   *   otherwise      channel 2i with channel 2i + 1 (interleaved)
   */
  function pairedChannels(d, pairing) {
    if (PAIRINGS.indexOf(pairing) < 0) {
      throw new RangeError("pairing must be one of " + PAIRINGS.join(", ") + ", got " + JSON.stringify(pairing));
    }
    var first = [];
    var second = [];
    for (var i = 0; i < d / 2; i++) {
      if (pairing === "halves") {
        first.push(i);
        second.push(i + d / 2);
      } else {
        first.push(2 * i);
        second.push(2 * i + 1);
      }
    }
    return { first: first, second: second };
  }

  /**
   * positional.rope: rotary positions, each pair of channels of a row turned by position * theta_i.
   *
   *   [a', b'] = [a cos(pos theta_i) - b sin(pos theta_i),  a sin(pos theta_i) + b cos(pos theta_i)]
   *
   * x: (n_words, d) queries or keys, positions: (n_words,), one per row -> (n_words, d).
   * A query at m and a key at n then score q . R((n - m) theta) k: the distance counts, not the place.
   */
  function rope(x, positions, base, pairing) {
    var d = x[0].length;
    var theta = ropeFrequencies(d, base); // (d/2,)
    var pairs = pairedChannels(d, pairing);
    return x.map(function (row, r) {
      var out = new Array(d); // (d,)
      theta.forEach(function (t, i) {
        var angle = positions[r] * t;
        var cos = Math.cos(angle);
        var sin = Math.sin(angle);
        var a = row[pairs.first[i]];
        var b = row[pairs.second[i]];
        out[pairs.first[i]] = a * cos - b * sin;
        out[pairs.second[i]] = a * sin + b * cos;
      });
      return out;
    });
  }

  AP.positional = {
    evenWidth: evenWidth, sinusoidalPositions: sinusoidalPositions, ropeFrequencies: ropeFrequencies,
    pairedChannels: pairedChannels, rope: rope,
  };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
