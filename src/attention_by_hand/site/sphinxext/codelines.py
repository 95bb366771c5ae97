"""Every line of a highlighted code block in an element of its own, so that it can wrap.

On a wide screen a code block or a log excerpt shows its whole lines: it uses the free width
beside the text column where there is some, and a line still too long wraps, each of its
continued rows marked (workshop.css). Wrapping one line at a time needs each line to be an
element: Pygments writes a block's lines as text separated by newlines, so this formatter puts
each in a `<span class="code-line">`, its newline inside it. The text is unchanged: a block
copied from the page is the code, and on a narrow screen, where the styles leave the lines
inline, a block scrolls sideways as before.

Left out: the whole log on the log page, whose lines are elements already (runlog.py).
"""

from __future__ import annotations

from pygments.formatters import HtmlFormatter

__all__ = ["CodeLineFormatter", "setup"]


class CodeLineFormatter(HtmlFormatter):
    """Pygments' HTML, each line of the code in <span class="code-line">."""

    def wrap(self, source):
        # `source` yields (1, a line of code, its newline included) and (0, markup around them).
        lines = ((1, f'<span class="code-line">{text}</span>') if is_code else (0, text) for is_code, text in source)
        return super().wrap(lines)


def _use_code_lines(app) -> None:
    highlighter = getattr(app.builder, "highlighter", None)  # HTML builders have one
    if highlighter is not None and issubclass(highlighter.formatter, HtmlFormatter):
        highlighter.formatter = CodeLineFormatter


def setup(app):
    app.connect("builder-inited", _use_code_lines)
