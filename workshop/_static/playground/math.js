// math.js: the attention of mechanism.py, line for line, in plain JavaScript.
//
// A matrix is an array of rows; shapes are named as in the Python: n_words is the sentence
// length, d_model the number of embedding axes, d_k the number of query/key channels. Both
// sides compute in float64 with the same formulas, so the page agrees with the run to every
// printed digit. The last bits may differ (NumPy's matrix product may add in another order),
// far below the third decimal.
//
// Left out, as in mechanism.py: batches, several heads, learned weights.
(function (AP) {
  "use strict";

  /** mechanism.dot: a . b = sum_i a_i * b_i.   a, b: (d,) */
  function dot(a, b) {
    var sum = 0;
    for (var i = 0; i < a.length; i++) sum += a[i] * b[i];
    return sum;
  }

  /** A.T: (n, m) -> (m, n) */
  function transpose(A) {
    return A[0].map(function (_, j) {
      return A.map(function (row) { return row[j]; });
    });
  }

  /** A @ B: (n, m) @ (m, p) -> (n, p); entry [i][j] is row i of A dotted with column j of B. */
  function matmul(A, B) {
    var columns = transpose(B); // (p, m)
    return A.map(function (row) {
      return columns.map(function (column) { return dot(row, column); });
    });
  }

  /**
   * mechanism.softmax, on one row:  softmax(s)_i = exp(s_i - m) / sum_j exp(s_j - m),  m = max_j s_j.
   * Subtracting the maximum changes nothing (exp(-m) cancels) but keeps exp from overflowing.
   * A score of -Infinity (a masked word) gets exactly zero weight.   scores: (n,) -> weights: (n,)
   */
  function softmax(scores) {
    var m = Math.max.apply(null, scores);
    var exps = scores.map(function (s) { return Math.exp(s - m); });
    var total = exps.reduce(function (a, b) { return a + b; }, 0);
    return exps.map(function (e) { return e / total; });
  }

  /** mechanism.causal_mask: true where word i would look at a LATER word j > i.   (n, n) */
  function causalMask(n) {
    var mask = [];
    for (var i = 0; i < n; i++) {
      mask.push([]);
      for (var j = 0; j < n; j++) mask[i].push(j > i); // the diagonal stays visible
    }
    return mask;
  }

  /**
   * One head, the page's way: mechanism.attention with W_v = identity, as the run's wired head
   * has it (the values stay the raw embeddings, readable on the named axes). W_Q = W_K = null
   * stands for the identity: the scores are X @ X.T, as in mechanism.raw_attention, and the keys
   * are the embeddings themselves, so d_k = d_model. options.scale and options.causal switch
   * the two steps on and off; the run uses raw attention unscaled and the wired head scaled.
   * options.rotate, when given, turns the queries and the keys before they meet (RoPE: see
   * main.js and positional.js); the values are never turned, as in positions.py's P3.
   *
   *   weights = softmax(mask(scores / sqrt(d_k)))      output = weights @ X
   *
   * X: (n_words, d_model), W_Q and W_K: (d_model, d_k) or null, options.rotate: null or
   * (n_words, d_k) -> (n_words, d_k)
   * -> queries, keys (turned, if rotate): (n_words, d_k) each,
   *    scores (unscaled, unmasked, as the log prints them): (n_words, n_words),
   *    weights: (n_words, n_words), output: (n_words, d_model), d_k
   */
  function attend(X, W_Q, W_K, options) {
    var raw = W_Q === null;
    var Q = raw ? X : matmul(X, W_Q); // (n_words, d_k): what each word asks for
    var K = raw ? X : matmul(X, W_K); // (n_words, d_k): what each word advertises
    if (options.rotate) {
      Q = options.rotate(Q); // (n_words, d_k): each query turned by its word's position
      K = options.rotate(K); // (n_words, d_k): each key too, so a score sees their distance
    }
    var scores = matmul(Q, transpose(K)); // (n_words, n_words); scores[i][j] = Q[i] . K[j]
    var d_k = K[0].length;
    var root = Math.sqrt(d_k);
    var mask = causalMask(X.length);
    var logits = scores.map(function (row, i) { // (n_words, n_words): what softmax receives
      return row.map(function (s, j) {
        if (options.causal && mask[i][j]) return -Infinity; // exp(-inf) = 0: no weight
        return options.scale ? s / root : s;
      });
    });
    var weights = logits.map(softmax); // each ROW sums to 1
    return { queries: Q, keys: K, scores: scores, weights: weights, output: matmul(weights, X), d_k: d_k };
  }

  AP.math = { dot: dot, transpose: transpose, matmul: matmul, softmax: softmax, causalMask: causalMask, attend: attend };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
