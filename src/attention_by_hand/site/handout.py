"""The handout: the workshop as one PDF for a room, printed by Chromium from the built site.

    attention-by-hand build --handout [PATH]        (default: <site>/handout.pdf)

The PDF holds, in this order: a title page (the site's title and the opening paragraph of its
home page, and how the handout is meant to be worked through); a contents page, each part with
the number of the page it starts on; every module page (module-0, module-1, ... as the built site
has them), the log page, the labs page, and last the answers: every check-yourself question of
every module under its module's title, numbered Q1, Q2, ..., with its answer shown. Every page
carries its number at the foot ("page 7 of 88"). On a module's own pages a question keeps its
text and gets its number, and its answer (a `<details class="answer">`, sphinxext/questions.py)
is replaced by a line saying where the answer is; the words before the questions, which tell a
reader on screen to open each answer, are replaced by a line that says where the answers are.
What only a screen can do is not printed: the site's print styles hide its `screen-only` words
("cross-check:" before a quote's source, which stays: "results.log lines 9-13"), the theme's
footer and the log page's download link.

How it is made: the built site is served on 127.0.0.1 (as `serve` does), Chromium opens each page
through Playwright and prints it with `page.pdf` on A4 (PAPER), through the site's own print
stylesheet, the one tests/browser/test_print.py checks; the answers are printed from the index
page with its article replaced by the questions gathered from the modules (their own markup,
moved, so figures, MathML and log links print as on the pages), and so are the title and
contents pages, once the parts' page counts are known. pypdf joins the parts into one file, each
part a bookmark; the page numbers are printed by Chromium too, as the footers of a document of
as many blank pages (its own page numbers are the handout's), and laid over the handout's pages,
since each part is printed on its own and would count from 1. The file is written atomically.
Each part starts on a new page.

Left out: the playground (it is made to be clicked), the instructor's page, the reproduce page,
the index.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = [
    "DEFAULT_NAME", "MARGIN_CM", "PAPER", "ANSWERS_TITLE", "CONTENTS_TITLE", "page_label",
    "Part", "Handout", "handout_path", "find_chromium", "print_handout",
]  # fmt: skip

DEFAULT_NAME = "handout.pdf"
ANSWERS_TITLE = "Answers to the check-yourself questions"
CONTENTS_TITLE = "Contents"
MARGIN_CM = 1  # what a browser's print dialog offers; the print CSS is tuned for it (test_print.py)
PAPER = {"format": "A4", "margin": {side: f"{MARGIN_CM}cm" for side in ("top", "right", "bottom", "left")}}

# Without the background-networking flags Chromium tries to reach Google's hosts as it starts,
# which a closed network refuses: slow, and nothing a handout needs (the browser tests use these too).
CHROMIUM_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-gpu",
]

_MODULE = re.compile(r"module-(\d+)\.html")

# The page's title, without the heading's "¶" link.
_TITLE = """() => {
    const h1 = document.querySelector('article h1').cloneNode(true);
    h1.querySelectorAll('.headerlink').forEach(a => a.remove());
    return h1.textContent.trim();
}"""

# Numbers each question of a module page (Q1, Q2, ...: not "2.3", which reads as an answer),
# replaces its answer by a pointer to the end, and returns each question and answer as the
# page's own markup, for the answers part. The paragraphs between the questions' heading and the
# first question tell a reader on screen how to open the answers: on paper, one line says where
# they are instead.
_TAKE_ANSWERS = """(module) => {
  const first = document.querySelector('article .question');
  if (first) {
    for (const element of Array.from(first.parentElement.children)) {
        if (element === first) break;
        if (element.tagName === 'P') element.remove();
    }
    const note = document.createElement('p');
    note.className = 'answer-pointer';
    note.textContent = `Work each question out on paper first: the answers are at the end of the handout, under ${module}.`;
    first.before(note);
  }
  return Array.from(document.querySelectorAll('article .question')).map((q, i) => {
    const label = `Q${i + 1}`;
    const tag = document.createElement('strong');
    tag.className = 'question-number';
    tag.textContent = label + ' ';
    (q.querySelector(':scope > p') || q).prepend(tag);
    const details = q.querySelector('details.answer');
    const answer = details ? details.cloneNode(true) : document.createElement('div');
    answer.querySelectorAll(':scope > summary').forEach(s => s.remove());
    const question = q.cloneNode(true);
    question.querySelectorAll('details.answer').forEach(d => d.remove());
    if (details) {
        const pointer = document.createElement('p');
        pointer.className = 'answer-pointer';
        pointer.textContent = `Answer: at the end of the handout, under ${module}, ${label}.`;
        details.replaceWith(pointer);
    }
    return {question: question.innerHTML, answer: answer.innerHTML};
  });
}"""

# The answers part: the page's article replaced by each module's questions, answers shown, with
# the classes the instructor's list uses (questions.py), so the site's CSS lays them out.
_SHOW_ANSWERS = """([title, modules]) => {
    document.title = title;
    const article = document.querySelector('article');
    const h1 = document.createElement('h1');
    h1.textContent = title;
    article.replaceChildren(h1);
    for (const module of modules) {
        const heading = document.createElement('p');
        heading.className = 'question-list-page';
        heading.textContent = module.title;
        const group = document.createElement('div');
        group.className = 'question-list-group';
        group.append(heading);
        for (const q of module.questions) {
            const box = document.createElement('div');
            box.className = 'question';
            box.innerHTML = q.question;
            const shown = document.createElement('div');
            shown.className = 'answer answer-shown';
            shown.innerHTML = '<p class="answer-label">Answer</p>' + q.answer;
            box.append(shown);
            group.append(box);
        }
        article.append(group);
    }
}"""


# The title page and the contents: the index page's article replaced by the site's title, the
# home page's opening paragraph, how to work through the handout, and each part with its first
# page's number (in the classes of the site's print styles, workshop.css).
_FRONT = """([intro, contents_title, contents]) => {
    const article = document.querySelector('article');
    const cover = document.createElement('div');
    cover.className = 'handout-cover';
    cover.append(article.querySelector('h1'), article.querySelector('h1 ~ p') || '');
    const how = document.createElement('p');
    how.textContent = intro;
    cover.append(how);
    cover.querySelectorAll('.headerlink').forEach(a => a.remove());
    const toc = document.createElement('div');
    toc.className = 'handout-contents';
    const heading = document.createElement('h2');
    heading.textContent = contents_title;
    const list = document.createElement('ol');
    for (const [title, page] of contents) {
        const item = document.createElement('li');
        const name = document.createElement('span');
        name.textContent = title;
        const number = document.createElement('span');
        number.className = 'handout-page';
        number.textContent = page;
        item.append(name, number);
        list.append(item);
    }
    toc.append(heading, list);
    article.replaceChildren(cover, toc);
}"""

_HOW_TO_USE = (
    "This handout holds the workshop's modules, the run's log, the labs and, at the end, the answers "
    "to every check-yourself question. Work each question out on paper before you turn to its answer."
)


def page_label(number: int, total: int) -> str:
    """What the foot of page `number` (from 1) of `total` says: the footer below, filled in."""
    return f"page {number} of {total}"


# The foot of every page, page_label's words: Chromium fills pageNumber and totalPages in its own
# footer. Sized and coloured here, since a footer template inherits nothing from the page.
_FOOTER = (
    '<div style="width: 100%; text-align: center; font-size: 8pt; color: #444;">'
    'page <span class="pageNumber"></span> of <span class="totalPages"></span></div>'
)
_BLANK_PAGES = "<style>div {{ height: 1px; }} div + div {{ break-before: page; }}</style>{}"


@dataclass(frozen=True)
class Part:
    """One part of the handout: its title (its bookmark) and the PDF page it starts on (0-based)."""

    title: str
    first_page: int
    pages: int


@dataclass(frozen=True)
class Handout:
    """What was printed: the PDF, its front pages (title and contents), its parts in order, how
    many questions it answers, how long it took."""

    path: Path
    front_pages: int
    parts: tuple[Part, ...]
    questions: int
    seconds: float

    @property
    def pages(self) -> int:
        return self.front_pages + sum(part.pages for part in self.parts)


def handout_path(given: str | None, site: Path) -> Path:
    """Where the handout goes: `given`, else <site>/handout.pdf; refused before anything is built."""
    path = Path(given) if given else site / DEFAULT_NAME
    if path.is_dir():
        raise UserError(f"{path}: --handout names a folder; give the PDF's file name, e.g. {path / DEFAULT_NAME}")
    if path.suffix.lower() != ".pdf":
        raise UserError(f"{path}: --handout writes a PDF; give a name ending in .pdf")
    # The nearest part of the path that exists must be a folder, or the PDF cannot be written there.
    for step in path.parents:
        if step.exists():
            if not step.is_dir():
                raise UserError(f"{path}: cannot write the handout there, {step} is a file")
            break
    return path


def find_chromium() -> str:
    """The system's Chromium and the Python packages that drive it, or one line saying what is missing."""
    path = shutil.which("chromium")
    if path is None:
        raise UserError("cannot print the handout: no `chromium` on PATH; install it with `sudo apt-get install chromium`")
    for module, package in (("playwright", "playwright"), ("pypdf", "pypdf")):
        try:
            __import__(module)
        except ImportError:
            raise UserError(
                f"cannot print the handout: the Python package {package} is missing; "
                'install the site\'s packages with `.venv/bin/pip install -e ".[site]"`'
            ) from None
    return path


def _modules(site: Path) -> list[tuple[int, str]]:
    """(number, file name) of every module page of the built site, in the modules' order."""
    found = [(int(m.group(1)), p.name) for p in site.glob("module-*.html") if (m := _MODULE.fullmatch(p.name))]
    return sorted(found)


@contextlib.contextmanager
def _served(site: Path):
    """The site on 127.0.0.1, any free port, for as long as the block runs; yields its base URL."""
    from attention_by_hand.site.website import make_server

    server = make_server(site, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def print_handout(site: Path, path: Path, chromium: str) -> Handout:
    """Print the built `site` into one PDF at `path` (see the module docstring)."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter

    from attention_by_hand.run.atomic import write_atomic

    modules = _modules(site)
    if not modules:
        raise UserError(f"{site}: no module pages (module-N.html) in the built site to print")
    started = time.perf_counter()
    printed: list[tuple[str, bytes]] = []  # (title, PDF) per part, in the handout's order
    gathered = []  # per module: its title and its questions, for the answers part
    with _served(site) as base, sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        except PlaywrightError as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise UserError(f"cannot print the handout: {chromium} did not start ({first})") from None
        try:
            page = browser.new_page()

            def open_page(name: str) -> str:
                page.goto(f"{base}/{name}", wait_until="load")
                return page.evaluate(_TITLE)

            def print_page(**options) -> bytes:
                # The math font and the figures must be in before Chromium lays the page out for paper.
                page.evaluate("document.fonts.ready.then(() => true)")
                return page.pdf(**PAPER, **options)

            for number, name in modules:
                title = open_page(name)
                gathered.append({"title": title, "questions": page.evaluate(_TAKE_ANSWERS, f"Module {number}")})
                printed.append((title, print_page()))
            for name in ("log.html", "labs.html"):
                if (site / name).is_file():
                    printed.append((open_page(name), print_page()))
            open_page("index.html")
            page.evaluate(_SHOW_ANSWERS, [ANSWERS_TITLE, gathered])
            printed.append((ANSWERS_TITLE, print_page()))

            counts = [_pages(pdf) for _, pdf in printed]
            front = _print_front(open_page, print_page, page, [title for title, _ in printed], counts)
            total = _pages(front) + sum(counts)
            page.set_content(_BLANK_PAGES.format("<div></div>" * total))
            numbers = PdfReader(io.BytesIO(page.pdf(**PAPER, display_header_footer=True, header_template="<span></span>", footer_template=_FOOTER)))
        finally:
            browser.close()

    writer = PdfWriter()
    front_pages = _pages(front)
    # The contents start on the page after the title page (the print styles break after it).
    writer.append(PdfReader(io.BytesIO(front)), import_outline=False)
    writer.add_outline_item(CONTENTS_TITLE, min(1, front_pages - 1))
    parts = []
    for title, pdf in printed:
        first = len(writer.pages)
        # Chromium's own outline is empty here (untagged print): one bookmark per part instead.
        writer.append(PdfReader(io.BytesIO(pdf)), outline_item=title, import_outline=False)
        parts.append(Part(title, first, len(writer.pages) - first))
    if len(numbers.pages) != len(writer.pages):
        raise RuntimeError(f"the page numbers came out on {len(numbers.pages)} pages for {len(writer.pages)}")
    for page_, number in zip(writer.pages, numbers.pages):
        page_.merge_page(number)
    writer.add_metadata({"/Title": "LLM Self-Attention by Hand: the handout"})
    out = io.BytesIO()
    writer.write(out)
    write_atomic(path, out.getvalue())
    questions = sum(len(module["questions"]) for module in gathered)
    return Handout(path, front_pages, tuple(parts), questions, time.perf_counter() - started)


def _pages(pdf: bytes) -> int:
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(pdf)).pages)


def _print_front(open_page, print_page, page, titles: list[str], counts: list[int]) -> bytes:
    """The title and contents pages, each part listed with the number of its first page. Those
    numbers count the front pages too, so it is printed again until its own length is the one
    its numbers assumed (once, unless the contents run onto a third page)."""
    assumed = 2  # the title page and one page of contents
    for _ in range(4):
        firsts = [assumed + 1 + sum(counts[:i]) for i in range(len(counts))]
        open_page("index.html")
        page.evaluate(_FRONT, [_HOW_TO_USE, CONTENTS_TITLE, [[t, str(n)] for t, n in zip(titles, firsts)]])
        front = print_page()
        pages = _pages(front)
        if pages == assumed:
            return front
        assumed = pages
    raise RuntimeError("the contents' length never settled")
