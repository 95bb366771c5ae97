// dom.js: the only way the playground makes elements. Text goes in through textContent and
// attributes through setAttribute, never through innerHTML, so a word a learner typed (or a
// link they were sent) is always shown as text and can never become markup or script.
(function (AP) {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";

  function fill(node, attrs, children) {
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  /** An HTML element: el("td", {text: "0.576", "data-row": 0}, [children]). */
  function el(tag, attrs, children) {
    return fill(document.createElement(tag), attrs, children);
  }

  /** An SVG element, the same way. */
  function svg(tag, attrs, children) {
    return fill(document.createElementNS(SVG, tag), attrs, children);
  }

  /**
   * A labelled table: a caption, column headers, one header per row, and a cell for each
   * (row, column) made by cell(i, j): a <td> element, or the attributes of one ({text, ...}).
   */
  function table(caption, corner, columns, rows, cell, className) {
    var head = el("tr", {}, [el("td", { class: "pg-corner", text: corner })].concat(
      columns.map(function (c) { return el("th", { scope: "col", text: c }); })
    ));
    var body = rows.map(function (label, i) {
      return el("tr", {}, [el("th", { scope: "row", text: label })].concat(
        columns.map(function (_, j) {
          var made = cell(i, j);
          return made instanceof Node ? made : el("td", made);
        })
      ));
    });
    return el("table", { class: "pg-table " + (className || "") }, [
      el("caption", { text: caption }), el("thead", {}, [head]), el("tbody", {}, body),
    ]);
  }

  /**
   * table(), drawn into `container`; when the container already holds a table with the same
   * row and column labels, only its caption and cells are rewritten. Rewriting text is about
   * ten times cheaper for the browser than building new elements, and it keeps the page well
   * inside one frame per edit (benchmarks/playground.py). cell(i, j) returns attributes, and
   * an attribute it sets to null is removed.
   */
  function tableInto(container, caption, corner, columns, rows, cell, className) {
    var key = JSON.stringify([columns, rows]);
    var existing = container.firstChild;
    if (!existing || container.dataset.shape !== key) {
      replace(container, [table(caption, corner, columns, rows, cell, className)]);
      container.dataset.shape = key;
      return;
    }
    existing.caption.textContent = caption;
    Array.from(existing.tBodies[0].rows).forEach(function (tr, i) {
      Array.from(tr.cells).slice(1).forEach(function (td, j) {
        var attrs = cell(i, j);
        Object.keys(attrs).forEach(function (name) {
          var value = attrs[name];
          if (name === "text") td.textContent = value;
          else if (value === null || value === undefined || value === false) td.removeAttribute(name);
          else td.setAttribute(name, String(value));
        });
      });
    });
  }

  /** Replace everything inside `node` with `children`. */
  function replace(node, children) {
    node.replaceChildren.apply(node, children.filter(function (c) { return c; }));
  }

  AP.dom = { el: el, svg: svg, table: table, tableInto: tableInto, replace: replace };
})((window.AttentionPlayground = window.AttentionPlayground || {}));
