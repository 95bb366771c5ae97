"""Directives and roles that quote the run by reference, so a page can never drift from it.

    ```{log-lines} s2.softmax          the log lines of a named span, with their real line
    ```                                numbers and a "cross-check: results.log lines 22-23" link
                                       (on paper: "results.log lines 22-23", where they come from)

    {value}`s2.dot.river`              a number, as the log printed it ("0.540")
    {cross-check}`s2.softmax`          an inline link: "results.log lines 22-23"

    ```{run-figure} causal_mask        a figure the run drew, with alt text whose {names} are
    :alt: ... {s6.mask.1.0} ...        filled from the run's values, and a link to its log line
    caption text
    ```

    ```{run-log} positions             the whole log, each line numbered and an anchor (#L22 for
    ```                                results.log, #positions-L22 for the others), and a link that
                                       downloads the file itself

    ```{run-logs}                      a section per registered part (attention_by_hand.parts),
    ```                                each with its whole log: the log page

Every part of the run writes its own log: a name may start with the log's name and a colon,
`positions:p3.scores`, `memory:l2.trace`; without one it is the first part's (results.log). Spans and values
come from the run's index (<log>.index.json), never from the page. A name that is not in the
index is a warning with the page and line, and the site builds with warnings as errors, so a
stale page cannot be published.
"""

from __future__ import annotations

import html
import json
import os
import posixpath
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from attention_by_hand import parts

__all__ = ["setup"]

logger = logging.getLogger(__name__)

LOG_PAGE = "log"  # the docname of the page that shows the whole log
_PLACEHOLDER = re.compile(r"\{((?:[\w\-]+:)?[\w.\-]+)\}")  # {s6.mask.1.0} or {positions:p3.theta}
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")  # a line with its newline; not str.splitlines, which also cuts at \r, \f, ...


def default_log() -> str:
    """The log a name without "<log>:" belongs to: the first registered part's (results)."""
    return parts.default_part().log_stem


class RunIndex:
    """One log's lines and index, read once per build."""

    def __init__(self, captures: Path, log: str):
        self.log = log
        self.log_path = captures / f"{log}.log"
        self.index_path = captures / f"{log}.index.json"
        self.text = self.log_path.read_text(encoding="utf-8")
        self.lines = self.text.split("\n")[:-1]
        index = json.loads(self.index_path.read_text(encoding="utf-8"))
        self.spans: dict[str, list[int]] = index["spans"]
        self.values: dict[str, dict] = index["values"]


def split_name(name: str) -> tuple[str, str]:
    """"positions:p3.scores" -> ("positions", "p3.scores"); a name without a log is results.log's."""
    log, _, key = name.rpartition(":")
    return (log or default_log()), key


def run_index(env, log: str | None = None) -> RunIndex:
    """The index of `log` for this build, read once; the page being read now depends on it.

    The dependency is what makes an incremental build re-read every quoting page after a new
    run: Sphinx compares the files' times with the last build's. The cache lives on the
    environment, which Sphinx saves between builds, so every build starts it afresh
    (`forget_indexes`): a page re-read after a new run must see the new index, not the last one.
    """
    log = log or default_log()
    captures = Path(env.srcdir, env.config.abh_captures).resolve()
    cache = getattr(env, "_abh_indexes", None)
    if cache is None or cache.get("captures") != captures:
        cache = env._abh_indexes = {"captures": captures}
    if log not in cache:
        cache[log] = RunIndex(captures, log)
    index = cache[log]
    env.note_dependency(str(index.index_path))
    env.note_dependency(str(index.log_path))
    return index


def forget_indexes(app, env, docnames) -> None:
    """Before a build reads its pages: drop the indexes the last build read (see run_index)."""
    env._abh_indexes = None


def anchor(log: str, line: int) -> str:
    """The id of a log line on the log page: L22 in results.log (as ever), positions-L22 in another."""
    return f"L{line}" if log == default_log() else f"{log}-L{line}"


def log_href(docname: str, first: int, last: int, log: str | None = None) -> str:
    """Relative link from `docname` to lines first..last of `log` on the log page."""
    log = log or default_log()
    page = posixpath.relpath(LOG_PAGE, posixpath.dirname(docname) or ".") + ".html"
    return f"{page}#{anchor(log, first)}" if first == last else f"{page}#{anchor(log, first)}-L{last}"


def lines_label(first: int, last: int, log: str | None = None) -> str:
    log = log or default_log()
    return f"{log}.log line {first}" if first == last else f"{log}.log lines {first}-{last}"


def cross_check(href: str, first: int, last: int, log: str | None = None) -> nodes.reference:
    """A link "cross-check: results.log lines 22-23" to those lines on the log page. Its first
    words say what a click does, so they are for the screen only (class screen-only, hidden by the
    print styles): paper keeps where the lines come from, "results.log lines 22-23"."""
    on_screen = nodes.inline("", "cross-check: ", classes=["screen-only"])
    return nodes.reference("", "", on_screen, nodes.Text(lines_label(first, last, log)), refuri=href)


def _missing(kind: str, name: str, location, log: str) -> None:
    logger.warning(f"{kind} {name!r} is not in the run's index ({log}.index.json)", location=location)


class LogLines(SphinxDirective):
    """The lines of one named span, numbered as in results.log, with a cross-check link."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        log, name = split_name(self.arguments[0])
        index = run_index(self.env, log)
        if name not in index.spans:
            _missing("span", name, self.get_location(), log)
            return []
        first, last = index.spans[name]
        text = "\n".join(index.lines[first - 1 : last])
        block = nodes.literal_block(text, text, language="text", classes=["log-excerpt"])
        block["linenos"] = True
        block["highlight_args"] = {"linenostart": first}
        self.set_source_info(block)
        href = log_href(self.env.docname, first, last, log)
        note = nodes.paragraph("", "", cross_check(href, first, last, log), classes=["cross-check"])
        return [nodes.container("", block, note, classes=["log-quote"])]


class ValueRole(SphinxRole):
    """A named value of the run, in the text the log printed."""

    def run(self):
        log, name = split_name(self.text.strip())
        index = run_index(self.env, log)
        if name not in index.values:
            _missing("value", name, self.get_location(), log)
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        return [nodes.inline(self.rawtext, index.values[name]["text"], classes=["run-value"])], []


class CrossCheckRole(SphinxRole):
    """An inline link to a named span on the log page."""

    def run(self):
        log, name = split_name(self.text.strip())
        index = run_index(self.env, log)
        if name not in index.spans:
            _missing("span", name, self.get_location(), log)
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        first, last = index.spans[name]
        href = log_href(self.env.docname, first, last, log)
        return [nodes.reference(self.rawtext, lines_label(first, last, log), refuri=href)], []


# A run figure is never drawn below this fraction of its own size: figures.py sets its text at
# 11-12 pt at 110 dpi, 17-18 px in the PNG, so at 0.6 a heatmap's numbers stay near 11 px. On a
# phone the figure keeps that width and scrolls sideways in its frame instead of shrinking.
MIN_FIGURE_SCALE = 0.6


class figure_frame(nodes.General, nodes.Element):
    """The box a run figure's image sits in, carrying the image's smallest legible width."""


# Shown only while the figure is wider than its frame (workshop.js marks the frame, workshop.css
# shows this): a phone hides scroll bars until touched, so nothing else says the figure goes on.
SCROLL_CUE = "This figure is wider than the page: scroll it sideways to see all of it."


def visit_figure_frame(self, node: figure_frame) -> None:
    self.body.append(f'<p class="scroll-cue">{SCROLL_CUE}</p>\n')
    self.body.append(self.starttag(node, "div", CLASS="figure-frame", style=f"--min-width: {node['min_width']}px"))


def depart_figure_frame(self, node: figure_frame) -> None:
    self.body.append("</div>\n")


def png_width(path: Path) -> int:
    """The width in a PNG's header (IHDR: bytes 16-19, big-endian), without decoding the image."""
    with path.open("rb") as f:
        return int.from_bytes(f.read(24)[16:20], "big")


class RunFigure(SphinxDirective):
    """A figure the run drew, found through its "[plot saved: ...]" line in the log."""

    required_arguments = 1
    has_content = True
    option_spec = {"alt": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        log, stem = split_name(self.arguments[0])
        index = run_index(self.env, log)
        span = index.spans.get(f"figure.{stem}")
        if span is None:
            _missing("figure", stem, self.get_location(), log)
            return []
        line = index.lines[span[0] - 1]
        match = re.search(r"\[plot saved: (\S+)\]", line)
        image_path = index.log_path.parent.parent / match.group(1)
        if not image_path.is_file():
            logger.warning(f"figure {stem!r}: {image_path} is missing (run the experiment)", location=self.get_location())
            return []

        alt = self.options.get("alt")
        if not alt:
            logger.warning(f"figure {stem!r} needs an :alt: text that says what it shows", location=self.get_location())
            return []

        def fill(m: re.Match) -> str:
            value_log, key = split_name(m.group(1))
            value = run_index(self.env, value_log).values.get(key) if value_log != log else index.values.get(key)
            if value is None:
                _missing("value", key, self.get_location(), value_log)
                return m.group(0)
            return value["text"]

        # Sphinx wants image paths relative to the source folder (or absolute from it).
        rel = posixpath.relpath(image_path.as_posix(), Path(self.env.srcdir).as_posix())
        figure = nodes.figure("", classes=["run-figure"])
        frame = figure_frame("", min_width=round(png_width(image_path) * MIN_FIGURE_SCALE))
        filled = _PLACEHOLDER.sub(fill, alt)
        left = re.search(r"\{[^{}]*\}", filled)
        if left:  # a name the placeholder pattern does not take would be published as typed
            logger.warning(f"figure {stem!r}: alt text keeps {left.group()}, which names no value", location=self.get_location())
        frame += nodes.image(uri=rel, alt=filled, candidates={"*": rel})
        figure += frame
        caption = nodes.caption()
        if self.content:
            parsed = self.parse_content_to_nodes()
            for node in parsed:
                caption.extend(node.children if isinstance(node, nodes.paragraph) else [node])
            caption += nodes.Text(" ")
        href = log_href(self.env.docname, *span, log)
        caption += [nodes.Text("("), cross_check(href, *span, log), nodes.Text(")")]
        figure += caption
        self.env.note_dependency(str(image_path))
        return [figure]


class RunLog(SphinxDirective):
    """Every line of one log (the first part's unless named), each an anchor the cross-checks link
    to, and a link to download the file itself.

    The page's text is the file's text, so a learner can copy the log from the page: each line
    is a block that ends with its own newline, and its number is drawn by CSS from data-line
    (generated content is neither selected nor copied). Chromium neither draws nor copies the
    newline that ends the last block, so when the file ends with one, one more closes the log:
    copying all of it then ends exactly as the file does (tests/browser/test_log_page.py checks
    what Chromium copies).
    """

    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        log = self.arguments[0] if self.arguments else default_log()
        try:
            index = run_index(self.env, log)
        except OSError:
            logger.warning(f"no log {log!r}: captures/{log}.log is missing (run that part)", location=self.get_location())
            return []
        rows = "".join(
            f'<span class="log-line" id="{anchor(log, n)}"><a class="log-lineno" href="#{anchor(log, n)}" '
            f'data-line="{n}" aria-label="line {n}"></a>{html.escape(line, quote=False)}</span>'
            for n, line in enumerate(_LINE.findall(index.text), start=1)
        )
        closing = "\n" if index.text.endswith("\n") else ""
        label = f' aria-label="{log}.log"'
        log_block = nodes.raw(
            "", f'<pre class="results-log" data-log="{log}" tabindex="0"{label}>{rows}{closing}</pre>\n', format="html"
        )
        return [self.download_link(index), log_block]

    def download_link(self, index: RunIndex) -> nodes.paragraph:
        """The line "Download <log>.log": Sphinx copies the very file into the site (_downloads/)."""
        doc_dir = Path(self.env.doc2path(self.env.docname)).parent
        target = Path(os.path.relpath(index.log_path, doc_dir)).as_posix()
        name = index.log_path.name
        link = addnodes.download_reference("", "", nodes.literal("", name), reftarget=target, refexplicit=True)
        return nodes.paragraph(
            "", "", nodes.Text("Download "), link, nodes.Text(": the file itself, byte for byte."), classes=["log-download"]
        )


class RunLogs(SphinxDirective):
    """One section per registered part, titled with its log's name, holding its whole log: so the
    log page lists every part without a list of its own."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        sections = []
        for part in parts.PARTS:
            section = nodes.section(ids=[nodes.make_id(part.log_name)], names=[part.log_name])
            section += nodes.title("", part.log_name)
            section += nodes.paragraph("", f"The {part.name} part, {part.summary}.")
            directive = RunLog(
                "run-log", [part.log_stem], {}, [], self.lineno, self.content_offset, "", self.state, self.state_machine
            )
            section.extend(directive.run())
            sections.append(section)
        return sections


def setup(app):
    app.add_config_value("abh_captures", "../captures", "env", types=frozenset({str}))
    app.connect("env-before-read-docs", forget_indexes)
    app.add_directive("log-lines", LogLines)
    app.add_node(figure_frame, html=(visit_figure_frame, depart_figure_frame))
    app.add_directive("run-figure", RunFigure)
    app.add_directive("run-log", RunLog)
    app.add_directive("run-logs", RunLogs)
    app.add_role("value", ValueRole())
    app.add_role("cross-check", CrossCheckRole())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
