// plane.js: the plane of the first two axes, as the run's figure <ambiguous>_<x>_<y>_plane
// draws it: the context word of each test sentence, the ambiguous word's one embedding, and
// an arrow from it to its output in each sentence. The same numbers follow as a list, the
// figure's text alternative.
(function (AP) {
  "use strict";

  var dom = AP.dom;
  var fixed3 = AP.format.fixed3;
  var SIZE = { width: 360, height: 300, left: 44, right: 16, top: 14, bottom: 40 };
  var FONT_PX = 11; // the labels' size, as playground.css sets it for svg.pg-plane
  var MAGENTA = AP.data.colours.output; // the run's figure draws the outputs and their arrows in it

  /** Tick positions from lo to hi, about five of them, at a round step (0.2, 0.25, 0.5, 1, ...). */
  function ticks(lo, hi) {
    var raw = (hi - lo) / 5;
    var power = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 2.5, 5, 10].map(function (m) { return m * power; }).find(function (s) { return s >= raw; });
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) out.push(Math.abs(t) < 1e-12 ? 0 : t);
    return out;
  }

  /** The figure's limits: the unit square, widened to fit a world that leaves it. */
  function limits(values) {
    return [Math.min(-0.05, Math.min.apply(null, values) - 0.05), Math.max(1.05, Math.max.apply(null, values) + 0.05)];
  }

  /** Limits, and functions from data coordinates to the picture's. */
  function frame(points, moves) {
    var X = limits(points.map(function (p) { return p.x; }).concat(moves.map(function (m) { return m.to[0]; })));
    var Y = limits(points.map(function (p) { return p.y; }).concat(moves.map(function (m) { return m.to[1]; })));
    var w = SIZE.width - SIZE.left - SIZE.right;
    var h = SIZE.height - SIZE.top - SIZE.bottom;
    return {
      X: X, Y: Y, w: w, h: h,
      sx: function (x) { return SIZE.left + ((x - X[0]) / (X[1] - X[0])) * w; },
      sy: function (y) { return SIZE.top + (1 - (y - Y[0]) / (Y[1] - Y[0])) * h; },
    };
  }

  /**
   * Places labels one by one, each beside its marker on the first side that stays inside the
   * picture and clear of the markers and the labels placed before it: above right, below right,
   * above left, below left, then a line further up or down. With positions on, outputs often
   * land side by side or far right, where one fixed side would pile the labels up. Widths are
   * estimated (0.62 em a character, a little over the labels' font), not measured: measuring
   * would cost the browser a layout on every edit.
   */
  function labeller(markers) {
    var taken = markers.map(function (m) { return { x0: m[0] - 7, x1: m[0] + 7, y0: m[1] - 7, y1: m[1] + 7 }; });
    function free(box) {
      return box.x0 >= 0 && box.x1 <= SIZE.width && box.y0 >= 0 && box.y1 <= SIZE.height && taken.every(function (t) {
        return box.x1 < t.x0 || box.x0 > t.x1 || box.y1 < t.y0 || box.y0 > t.y1;
      });
    }
    return function (x, y, text) {
      var width = text.length * 0.62 * FONT_PX;
      var sides = [[8, -6], [8, 16], [-8, -6], [-8, 16], [8, -20], [-8, -20], [8, 30], [-8, 30]].map(function (d) {
        var ax = x + d[0];
        var box = d[0] > 0 ? { x0: ax, x1: ax + width } : { x0: ax - width, x1: ax };
        box.y0 = y + d[1] - FONT_PX;
        box.y1 = y + d[1] + 2;
        return { x: ax, y: y + d[1], anchor: d[0] > 0 ? "start" : "end", box: box };
      });
      var inside = function (c) { return c.box.x0 >= 0 && c.box.x1 <= SIZE.width; };
      var side = sides.find(function (c) { return free(c.box); }) || sides.find(inside) || sides[0];
      taken.push(side.box);
      return { class: "pg-label", x: side.x, y: side.y, "text-anchor": side.anchor, text: text };
    };
  }

  /** The parts that move when the numbers change: [name, tag, attributes]. */
  function movingParts(f, points, moves) {
    var parts = [];
    var label = labeller(points.map(function (p) { return [f.sx(p.x), f.sy(p.y)]; })
      .concat(moves.map(function (m) { return [f.sx(m.to[0]), f.sy(m.to[1])]; })));
    moves.forEach(function (m, k) {
      parts.push(["arrow" + k, "line", {
        x1: f.sx(m.from[0]), y1: f.sy(m.from[1]), x2: f.sx(m.to[0]), y2: f.sy(m.to[1]),
        stroke: MAGENTA, "stroke-width": 1.6, "marker-end": "url(#pg-arrowhead)",
      }]);
    });
    points.forEach(function (p, k) {
      parts.push(["point" + k, "circle", { cx: f.sx(p.x), cy: f.sy(p.y), r: 5.5, fill: p.colour }]);
      parts.push(["point-label" + k, "text", label(f.sx(p.x), f.sy(p.y), p.label)]);
    });
    moves.forEach(function (m, k) {
      var x = f.sx(m.to[0]);
      var y = f.sy(m.to[1]);
      parts.push(["output" + k, "path", { d: "M" + x + "," + (y - 7) + " l7,7 l-7,7 l-7,-7 z", fill: MAGENTA }]);
      parts.push(["output-label" + k, "text", label(x, y, m.label)]);
    });
    return parts;
  }

  /** The numbers under the picture: [name, text] for each coordinate. */
  function numbers(axes, points, moves) {
    var out = [];
    points.forEach(function (p, k) {
      out.push(["point" + k + "-0", axes[0] + " " + fixed3(p.x)], ["point" + k + "-1", axes[1] + " " + fixed3(p.y)]);
    });
    moves.forEach(function (m, k) {
      out.push(["output" + k + "-0", axes[0] + " " + fixed3(m.to[0])], ["output" + k + "-1", axes[1] + " " + fixed3(m.to[1])]);
    });
    return out;
  }

  function draw(f, axes, points, moves) {
    var short = function (v) { return String(Number(v.toFixed(6))); };
    var parts = [dom.svg("defs", {}, [dom.svg("marker", {
      id: "pg-arrowhead", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse",
    }, [dom.svg("path", { d: "M0,0 L10,5 L0,10 z", fill: MAGENTA })])])];
    ticks(f.X[0], f.X[1]).forEach(function (t) {
      parts.push(dom.svg("line", { class: "pg-grid", x1: f.sx(t), x2: f.sx(t), y1: SIZE.top, y2: SIZE.top + f.h }));
      parts.push(dom.svg("text", { class: "pg-tick", x: f.sx(t), y: SIZE.top + f.h + 14, "text-anchor": "middle", text: short(t) }));
    });
    ticks(f.Y[0], f.Y[1]).forEach(function (t) {
      parts.push(dom.svg("line", { class: "pg-grid", x1: SIZE.left, x2: SIZE.left + f.w, y1: f.sy(t), y2: f.sy(t) }));
      parts.push(dom.svg("text", { class: "pg-tick", x: SIZE.left - 5, y: f.sy(t) + 4, "text-anchor": "end", text: short(t) }));
    });
    parts.push(dom.svg("rect", { class: "pg-frame", x: SIZE.left, y: SIZE.top, width: f.w, height: f.h }));
    parts.push(dom.svg("text", { class: "pg-axis", x: SIZE.left + f.w / 2, y: SIZE.height - 6, "text-anchor": "middle", text: axes[0] + " axis" }));
    parts.push(dom.svg("text", {
      class: "pg-axis", x: 12, y: SIZE.top + f.h / 2, "text-anchor": "middle",
      transform: "rotate(-90 12 " + (SIZE.top + f.h / 2) + ")", text: axes[1] + " axis",
    }));
    movingParts(f, points, moves).forEach(function (part) {
      parts.push(dom.svg(part[1], Object.assign({ "data-part": part[0] }, part[2])));
    });
    var picture = dom.svg("svg", {
      viewBox: "0 0 " + SIZE.width + " " + SIZE.height, role: "img", class: "pg-plane",
      "aria-label": "The " + axes[0] + "-" + axes[1] + " plane; the numbers are listed below it.",
    }, parts);

    var text = new Map(numbers(axes, points, moves));
    function item(label, name, kind, sentence) {
      return dom.el("li", { "data-kind": kind, "data-sentence": sentence }, [
        label + ": ",
        dom.el("span", { "data-axis": axes[0], "data-part": name + "-0", text: text.get(name + "-0") }), ", ",
        dom.el("span", { "data-axis": axes[1], "data-part": name + "-1", text: text.get(name + "-1") }),
      ]);
    }
    var list = points.map(function (p, k) { return item(p.label, "point" + k, "point", null); })
      .concat(moves.map(function (m, k) { return item(m.label, "output" + k, "output", m.sentence); }));
    return dom.el("figure", { class: "pg-figure" }, [
      picture,
      dom.el("figcaption", { text: "One embedding, two context-aware outputs (the " + axes[0] + " and " + axes[1] + " axes):" }),
      dom.el("ul", { class: "pg-plane-numbers" }, list),
    ]);
  }

  /**
   * Draw the plane into `container`. axes: the two axis names; points: [{label, x, y, colour}];
   * moves: [{label, sentence, from: [x, y], to: [x, y]}]. When only the numbers changed (same
   * labels, same limits), the points, arrows and numbers are moved in place, not redrawn.
   */
  function plane(container, axes, points, moves) {
    var f = frame(points, moves);
    var shape = JSON.stringify([axes, f.X, f.Y, points.map(function (p) { return p.label; }), moves.map(function (m) { return m.label; })]);
    if (container.dataset.shape !== shape || !container.firstChild) {
      dom.replace(container, [draw(f, axes, points, moves)]);
      container.dataset.shape = shape;
      return;
    }
    var find = function (name) { return container.querySelector('[data-part="' + name + '"]'); };
    movingParts(f, points, moves).forEach(function (part) {
      var node = find(part[0]);
      Object.keys(part[2]).forEach(function (name) {
        if (name === "text") node.textContent = part[2][name];
        else node.setAttribute(name, String(part[2][name]));
      });
    });
    numbers(axes, points, moves).forEach(function (pair) { find(pair[0]).textContent = pair[1]; });
  }

  AP.plane = { plane: plane, ticks: ticks };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
