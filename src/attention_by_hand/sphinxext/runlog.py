"""Directives and roles that quote the run by reference, so a page can never drift from it.

    ```{log-lines} s2.softmax          the log lines of a named span, with their real line
    ```                                numbers and a "cross-check: results.log lines 22-23" link

    {value}`s2.dot.river`              a number, as the log printed it ("0.540")
    {cross-check}`s2.softmax`          an inline link: "results.log lines 22-23"

    ```{run-figure} causal_mask        a figure the run drew, with alt text whose {names} are
    :alt: ... {s6.mask.1.0} ...        filled from the run's values, and a link to its log line
    caption text
    ```

    ```{results-log}                   the whole log, each line numbered and an anchor (#L22)
    ```

Spans and values come from the run's index (results.index.json), never from the page. A name
that is not in the index is a warning with the page and line, and the site builds with
warnings as errors, so a stale page cannot be published.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

__all__ = ["setup"]

logger = logging.getLogger(__name__)

LOG_PAGE = "log"  # the docname of the page that shows the whole log
_PLACEHOLDER = re.compile(r"\{([\w.\-]+)\}")


class RunIndex:
    """The run's log lines and index, read once per build."""

    def __init__(self, captures: Path):
        self.log_path = captures / "results.log"
        self.index_path = captures / "results.index.json"
        self.lines = self.log_path.read_text(encoding="utf-8").split("\n")[:-1]
        index = json.loads(self.index_path.read_text(encoding="utf-8"))
        self.spans: dict[str, list[int]] = index["spans"]
        self.values: dict[str, dict] = index["values"]


def run_index(env) -> RunIndex:
    """The index for this build, read once; the page being read now depends on it.

    The dependency is what makes an incremental build re-read every quoting page after a new
    run: Sphinx compares the files' times with the last build's.
    """
    captures = Path(env.srcdir, env.config.abh_captures).resolve()
    cached = getattr(env, "_abh_index", None)
    if cached is None or cached.log_path.parent != captures:
        env._abh_index = RunIndex(captures)
    env.note_dependency(str(env._abh_index.index_path))
    env.note_dependency(str(env._abh_index.log_path))
    return env._abh_index


def log_href(docname: str, first: int, last: int) -> str:
    """Relative link from `docname` to lines first..last on the log page."""
    page = posixpath.relpath(LOG_PAGE, posixpath.dirname(docname) or ".") + ".html"
    return f"{page}#L{first}" if first == last else f"{page}#L{first}-L{last}"


def lines_label(first: int, last: int) -> str:
    return f"results.log line {first}" if first == last else f"results.log lines {first}-{last}"


def _missing(kind: str, name: str, location) -> None:
    logger.warning(f"{kind} {name!r} is not in the run's index (results.index.json)", location=location)


class LogLines(SphinxDirective):
    """The lines of one named span, numbered as in results.log, with a cross-check link."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        index = run_index(self.env)
        if name not in index.spans:
            _missing("span", name, self.get_location())
            return []
        first, last = index.spans[name]
        text = "\n".join(index.lines[first - 1 : last])
        block = nodes.literal_block(text, text, language="text", classes=["log-excerpt"])
        block["linenos"] = True
        block["highlight_args"] = {"linenostart": first}
        self.set_source_info(block)
        link = nodes.reference("", f"cross-check: {lines_label(first, last)}", refuri=log_href(self.env.docname, first, last))
        note = nodes.paragraph("", "", link, classes=["cross-check"])
        return [nodes.container("", block, note, classes=["log-quote"])]


class ValueRole(SphinxRole):
    """A named value of the run, in the text the log printed."""

    def run(self):
        index = run_index(self.env)
        name = self.text.strip()
        if name not in index.values:
            _missing("value", name, self.get_location())
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        return [nodes.inline(self.rawtext, index.values[name]["text"], classes=["run-value"])], []


class CrossCheckRole(SphinxRole):
    """An inline link to a named span on the log page."""

    def run(self):
        index = run_index(self.env)
        name = self.text.strip()
        if name not in index.spans:
            _missing("span", name, self.get_location())
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        first, last = index.spans[name]
        ref = nodes.reference(self.rawtext, lines_label(first, last), refuri=log_href(self.env.docname, first, last))
        return [ref], []


class RunFigure(SphinxDirective):
    """A figure the run drew, found through its "[plot saved: ...]" line in the log."""

    required_arguments = 1
    has_content = True
    option_spec = {"alt": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        stem = self.arguments[0]
        index = run_index(self.env)
        span = index.spans.get(f"figure.{stem}")
        if span is None:
            _missing("figure", stem, self.get_location())
            return []
        line = index.lines[span[0] - 1]
        match = re.search(r"\[plot saved: (\S+)\]", line)
        image_path = index.log_path.parent.parent / match.group(1)

        alt = self.options.get("alt")
        if not alt:
            logger.warning(f"figure {stem!r} needs an :alt: text that says what it shows", location=self.get_location())
            return []

        def fill(m: re.Match) -> str:
            value = index.values.get(m.group(1))
            if value is None:
                _missing("value", m.group(1), self.get_location())
                return m.group(0)
            return value["text"]

        # Sphinx wants image paths relative to the source folder (or absolute from it).
        rel = posixpath.relpath(image_path.as_posix(), Path(self.env.srcdir).as_posix())
        figure = nodes.figure("", classes=["run-figure"])
        figure += nodes.image(uri=rel, alt=_PLACEHOLDER.sub(fill, alt), candidates={"*": rel})
        caption = nodes.caption()
        if self.content:
            parsed = self.parse_content_to_nodes()
            for node in parsed:
                caption.extend(node.children if isinstance(node, nodes.paragraph) else [node])
            caption += nodes.Text(" ")
        caption += nodes.reference("", f"(cross-check: {lines_label(*span)})", refuri=log_href(self.env.docname, *span))
        figure += caption
        self.env.note_dependency(str(image_path))
        return [figure]


class ResultsLog(SphinxDirective):
    """Every line of results.log, numbered, each line an anchor #L<n> the cross-checks link to."""

    def run(self) -> list[nodes.Node]:
        index = run_index(self.env)
        width = len(str(len(index.lines)))
        rows = [
            f'<span class="log-line" id="L{n}"><a class="log-lineno" href="#L{n}" aria-label="line {n}">'
            f"{n:>{width}}</a> {html.escape(text)}</span>"
            for n, text in enumerate(index.lines, start=1)
        ]
        body = '<pre class="results-log" tabindex="0">' + "\n".join(rows) + "</pre>"
        return [nodes.raw("", body, format="html")]


def setup(app):
    app.add_config_value("abh_captures", "../captures", "env", types=frozenset({str}))
    app.add_directive("log-lines", LogLines)
    app.add_directive("run-figure", RunFigure)
    app.add_directive("results-log", ResultsLog)
    app.add_role("value", ValueRole())
    app.add_role("cross-check", CrossCheckRole())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
