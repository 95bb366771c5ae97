"""Check-yourself questions whose answers are values of the run, and the instructor's list of them.

    ```{question}
    :answer: {s3.weights.0.2.0}
    What share of its attention does bank give to "the" in "the river bank"?
    ```

renders the question, then its answer in a `<details>` element that opens on a click ("Answer"):
the run's value exactly as the log printed it, and a link to the log lines that print it.

    :answer:  one or more values of the run as {name} placeholders, in a text that labels
              them: `{s5.unscaled.64}`, or `unscaled {s5.unscaled.64}, scaled {s5.scaled.64}`.
              A name may start with its log's name, `{positions:p3.scores.2.1}` (runlog.py).
              The text around the placeholders holds words only: a digit there would be a
              number typed by hand.
    :span:    optional: the named span to link to, when the one found is not the one to show.

The link goes to a span that prints the value: of the spans inside the value's section, the one
whose name shares the most with the value's, then the shortest (s2.dot.river -> s2.dots, not
s2.softmax, which prints it as a score). A derived value, which the log does not print, links
to the section it is worked out from. A question without an :answer:, with a
name the index does not have or with a typed answer is a warning naming the page and line, and the
site builds with warnings as errors.

    ```{question-list}
    ```

lists every question of every page, grouped by page in the order of the table of contents, each
with its answer shown. The questions are collected while the pages are read (QuestionCollector,
merged across parallel reads, as sphinx.ext.todo collects todos) and the list is filled in when
its page is written, once every page has been read.

Left out: numbering, scoring, anything that needs a script: an answer is opened by the browser.
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from attention_by_hand.site.sphinxext.runlog import RunIndex, cross_check, lines_label, log_href, run_index, split_name

__all__ = ["setup", "find_span", "printed_in"]

logger = logging.getLogger(__name__)

_PLACEHOLDER = re.compile(r"\{([a-z][\w.:\-]*)\}")  # {s2.dot.river}, {positions:p3.scores.2.1}


class question(nodes.General, nodes.Element):
    """A question: its text, then its `answer`."""


class answer(nodes.General, nodes.Element):
    """A question's answer: hidden in a <details> on its page, shown in the question list."""


class question_list(nodes.General, nodes.Element):
    """Where the list of every question goes, once every page has been read."""


def printed_in(text: str, line: str) -> bool:
    """Whether `line` prints `text` as a whole number: "0.5" is not in "0.500", "8" not in "28"."""
    return re.search(rf"(?<![\w.]){re.escape(text)}(?!\w|\.\d)", line) is not None


def _shared(a: str, b: str) -> int:
    """How many leading characters two names share."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def find_span(index: RunIndex, key: str) -> tuple[str, bool] | None:
    """(span name, printed?) for value `key`: the span that prints it, or for a derived value the
    section it is worked out in (printed False); None when no span of its section prints it.

    The section is the longest span whose name is a dotted prefix of the value's (s3.weights.0 for
    s3.weights.0.2.0). Among the spans inside it that print the value, the one whose name shares
    the most with the value's wins, then the shortest: s2.dot.river is printed both in s2.dots
    and in s2.softmax (as a score), and s2.dots is the line that computes it.
    """
    parts = key.split(".")
    prefixes = (".".join(parts[:n]) for n in range(len(parts) - 1, 0, -1))
    section = next((p for p in prefixes if p in index.spans), None)
    if section is None:
        return None
    top, bottom = index.spans[section]
    text = index.values[key]["text"]
    printing = [
        (-_shared(name, key), last - first, first, name)
        for name, (first, last) in index.spans.items()
        if top <= first and last <= bottom and any(printed_in(text, index.lines[n - 1]) for n in range(first, last + 1))
    ]
    if printing:
        return min(printing)[3], True
    if index.values[key].get("derived"):
        return section, False
    return None


class Question(SphinxDirective):
    """One question and its answer, from the run's index; see the module docstring."""

    has_content = True
    option_spec = {"answer": directives.unchanged, "span": directives.unchanged_required}

    def warn(self, message: str) -> list[nodes.Node]:
        logger.warning(message, location=self.get_location())
        return []

    def run(self) -> list[nodes.Node]:
        if not self.content:
            return self.warn("a question needs its text, below the options")
        spec = (self.options.get("answer") or "").strip()
        if not spec:
            return self.warn("question without an :answer:: name the run's value that answers it, :answer: {s2.dot.river}")
        names = _PLACEHOLDER.findall(spec)
        if not names:
            braced = f"{{{spec}}}"
            fix = f"write it in braces, {braced}" if _PLACEHOLDER.fullmatch(braced) else "name one in braces, e.g. {s2.dot.river}"
            return self.warn(f"question's answer {spec!r} is not a value of the run: {fix}")
        if re.search(r"\d", _PLACEHOLDER.sub("", spec)):
            return self.warn(f"question's answer {spec!r} types a number by hand: each number must be a {{name}} of the run")

        values = {}  # name -> (log, key, index)
        for name in names:
            log, key = split_name(name)
            index = run_index(self.env, log)
            if key not in index.values:
                return self.warn(f"question's answer: value {key!r} is not in the run's index ({log}.index.json)")
            values[name] = (log, key, index)
        spans = []  # (log, span, printed), each once, in the order of the answer's values
        for log, key, index in values.values():
            span = self.span_of(log, key, index)
            if span is None:
                return []
            if span not in spans:
                spans.append(span)

        node = question("", classes=["question"])
        self.set_source_info(node)
        node += self.parse_content_to_nodes()
        node += answer("", self.answer_text(spec, values), self.links(spans))
        return [node]

    def span_of(self, log: str, key: str, index: RunIndex) -> tuple[str, str, bool] | None:
        """(log, span, printed?) to cross-check value `key` against: the :span: option's, or the
        one find_span finds; None, after a warning, when no span can be named."""
        forced = self.options.get("span")
        if not forced:
            found = find_span(index, key)
            if found is None:
                self.warn(f"question's answer: no span of {log}.log prints {key!r}; name the lines with :span:")
                return None
            return (log, *found)
        span_log, span = split_name(forced)
        where = run_index(self.env, span_log)
        if span not in where.spans:
            self.warn(f"question's :span: {span!r} is not in the run's index ({span_log}.index.json)")
            return None
        first, last = where.spans[span]
        value = index.values[key]
        printed = span_log == log and any(printed_in(value["text"], where.lines[n - 1]) for n in range(first, last + 1))
        if not printed and not value.get("derived"):
            self.warn(f"question's :span: {forced!r} does not print {key!r} ({value['text']})")
            return None
        return span_log, span, printed

    @staticmethod
    def answer_text(spec: str, values: dict) -> nodes.paragraph:
        """The :answer: text with each {name} replaced by the value's text, as the log printed it."""
        text = nodes.paragraph("", "", classes=["answer-text"])
        position = 0
        for m in _PLACEHOLDER.finditer(spec):
            log, key, index = values[m.group(1)]
            text += nodes.Text(spec[position : m.start()])
            text += nodes.inline(m.group(0), index.values[key]["text"], classes=["run-value"])
            position = m.end()
        text += nodes.Text(spec[position:])
        return text

    def links(self, spans: list[tuple[str, str, bool]]) -> nodes.paragraph:
        """One link per span: "cross-check: ..." to lines that print a value, "worked out from:
        ..." to the lines a derived value comes from."""
        paragraph = nodes.paragraph("", "", classes=["answer-check"])
        for n, (log, span, printed) in enumerate(spans):
            first, last = run_index(self.env, log).spans[span]
            href = log_href(self.env.docname, first, last, log)
            if printed:
                link = cross_check(href, first, last, log)
            else:
                link = nodes.reference("", f"worked out from: {lines_label(first, last, log)}", refuri=href)
            link["abh_lines"] = (log, first, last)  # so that a copy on another page can point here again
            if n:
                paragraph += nodes.Text(" ")
            paragraph += link
        return paragraph


class QuestionList(SphinxDirective):
    """The place of the instructor's list; QuestionListFiller fills it when the page is written."""

    def run(self) -> list[nodes.Node]:
        return [question_list("")]


class QuestionCollector(EnvironmentCollector):
    """Each page's questions, and which pages hold a question list, kept in the environment:
    env.abh_questions[docname] = [question, ...], env.abh_question_lists = {docname, ...}."""

    @staticmethod
    def questions(env) -> dict[str, list[question]]:
        if not hasattr(env, "abh_questions"):
            env.abh_questions = {}
        return env.abh_questions

    @staticmethod
    def lists(env) -> set[str]:
        if not hasattr(env, "abh_question_lists"):
            env.abh_question_lists = set()
        return env.abh_question_lists

    def clear_doc(self, app, env, docname: str) -> None:
        self.questions(env).pop(docname, None)
        self.lists(env).discard(docname)

    def merge_other(self, app, env, docnames: set[str], other) -> None:
        theirs = self.questions(other)
        for docname in docnames:
            if docname in theirs:
                self.questions(env)[docname] = theirs[docname]
        self.lists(env).update(self.lists(other) & docnames)

    def process_doc(self, app, doctree: nodes.document) -> None:
        docname = app.env.docname
        found = [node.deepcopy() for node in doctree.findall(question)]
        if found:
            self.questions(app.env)[docname] = found
        if next(iter(doctree.findall(question_list)), None) is not None:
            self.lists(app.env).add(docname)

    def get_outdated_docs(self, app, env, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
        """A page with a question list is read again whenever another page changes: its questions may have."""
        if not (added | changed | removed):
            return []
        return sorted(self.lists(env) - removed)


def _page_order(env) -> list[str]:
    """Docnames in the order of the table of contents from the root page; any others after, sorted."""
    order: list[str] = []

    def visit(docname: str) -> None:
        if docname in order:
            return
        order.append(docname)
        for child in env.toctree_includes.get(docname, []):
            visit(child)

    visit(env.config.root_doc)
    return order + sorted(set(env.found_docs) - set(order))


class QuestionListFiller(SphinxPostTransform):
    """Replaces each question_list with every page's questions, answers shown.

    Priority 5: before references are resolved (myst's at 9, Sphinx's at 10), so the links inside
    the copied questions are resolved for this page like any other.
    """

    default_priority = 5

    def run(self, **kwargs) -> None:
        for placeholder in list(self.document.findall(question_list)):
            placeholder.replace_self(self.content())

    def content(self) -> list[nodes.Node]:
        store = getattr(self.env, "abh_questions", {})
        pages = [docname for docname in _page_order(self.env) if store.get(docname)]
        if not pages:
            return [nodes.paragraph("", "No page has a question yet.")]
        out: list[nodes.Node] = []
        for docname in pages:
            uri = self.app.builder.get_relative_uri(self.env.docname, docname)
            title = self.env.titles[docname].astext()
            link = nodes.reference("", title, refuri=uri, internal=True)
            heading = nodes.paragraph("", "", link, classes=["question-list-page"])
            group = nodes.container("", heading, classes=["question-list-group"])
            for original in store[docname]:
                group += self.shown(original)
            out.append(group)
        return out

    def shown(self, original: question) -> question:
        """A copy of a question for this page: no ids (they belong to the question's own page),
        the answer shown, and the cross-check links made relative to this page."""
        copy = original.deepcopy()
        for node in copy.findall(nodes.Element):
            node["ids"] = []
        for link in copy.findall(nodes.reference):
            if "abh_lines" in link:
                log, first, last = link["abh_lines"]
                link["refuri"] = log_href(self.env.docname, first, last, log)
        for node in copy.findall(answer):
            node["shown"] = True
        return copy


def visit_question(self, node: question) -> None:
    self.body.append(self.starttag(node, "div", CLASS="question"))


def depart_question(self, node: question) -> None:
    self.body.append("</div>\n")


def visit_answer(self, node: answer) -> None:
    if node.get("shown"):
        self.body.append(self.starttag(node, "div", CLASS="answer answer-shown"))
        self.body.append('<p class="answer-label">Answer</p>\n')
    else:
        self.body.append(self.starttag(node, "details", CLASS="answer"))
        self.body.append("<summary>Answer</summary>\n")


def depart_answer(self, node: answer) -> None:
    self.body.append("</div>\n" if node.get("shown") else "</details>\n")


def _pass(self, node) -> None:
    """Other builders show the question and its answer as plain text."""


def setup(app):
    for node, visit, depart in ((question, visit_question, depart_question), (answer, visit_answer, depart_answer)):
        app.add_node(node, html=(visit, depart), text=(_pass, _pass), latex=(_pass, _pass))
    app.add_node(question_list)
    app.add_directive("question", Question)
    app.add_directive("question-list", QuestionList)
    app.add_env_collector(QuestionCollector)
    app.add_post_transform(QuestionListFiller)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
