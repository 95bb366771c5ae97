"""Math as MathML, converted when the site is built, so pages need no script and no CDN.

MyST's `$...$` and `$$...$$` become Sphinx math nodes; this renderer turns their LaTeX into
MathML with latex2mathml. Browsers draw MathML natively; the site's CSS points it at the
bundled Latin Modern Math font, so it looks the same offline and on a phone.
"""

from __future__ import annotations

from docutils import nodes
from latex2mathml.converter import convert

__all__ = ["setup"]


def visit_math(self, node: nodes.math) -> None:
    self.body.append(convert(node.astext()))
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math-display"))
    for part in (p for p in node.astext().split("\n\n") if p.strip()):
        self.body.append(convert(part, display="block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", inline_renderers=(visit_math, None), block_renderers=(visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
