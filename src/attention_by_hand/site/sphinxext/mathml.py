r"""Math as MathML, converted when the site is built, so pages need no script and no CDN.

MyST's `$...$` and `$$...$$` become Sphinx math nodes; this renderer turns their LaTeX into
MathML with latex2mathml. Browsers draw MathML natively; the site's CSS points it at the
bundled Latin Modern Math font, so it looks the same offline and on a phone.

Browsers do not break a MathML line, so a display formula of several equations set apart by
`\qquad` (`S = XX^T, \qquad A = ...`) becomes one <math> per equation, and the CSS lets them
wrap onto the next line on a narrow screen. A single equation too wide for the screen scrolls
in its box. Left out: breaking inside one equation.
"""

from __future__ import annotations

import re

from docutils import nodes
from latex2mathml.converter import convert

__all__ = ["setup"]


def visit_math(self, node: nodes.math) -> None:
    self.body.append(convert(node.astext()))
    raise nodes.SkipNode


def equations(latex: str, separator: str = r"\qquad") -> list[str]:
    """`latex` cut at each `separator` that stands outside braces and \\left ... \\right."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(latex):
        if latex[i] == "\\":
            command = re.match(r"\\([A-Za-z]+|.?)", latex[i:]).group(1)
            if command == separator[1:] and depth == 0:
                parts.append(latex[start:i])
                start = i + len(separator)
            depth += {"left": 1, "right": -1}.get(command, 0)
            i += 1 + len(command)
            continue
        depth += {"{": 1, "}": -1}.get(latex[i], 0)
        i += 1
    parts.append(latex[start:])
    return [part.strip() for part in parts if part.strip()]


def visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math-display"))
    for block in node.astext().split("\n\n"):
        for equation in equations(block):
            self.body.append(convert(equation, display="block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", inline_renderers=(visit_math, None), block_renderers=(visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
