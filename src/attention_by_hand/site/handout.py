"""The handout: the workshop as one PDF for a room, printed by Chromium from the built site.

    attention-by-hand build --handout [PATH]        (default: <site>/handout.pdf)

The PDF holds, in this order: every module page (module-0, module-1, ... as the built site has
them), the log page, the labs page, and last the answers: every check-yourself question of every
module under its module's title, numbered Q1, Q2, ..., with its answer shown. On a module's own
pages a question keeps its text and gets its number, and its answer (a `<details class="answer">`,
sphinxext/questions.py) is replaced by a line saying where the answer is, so that the questions
can be worked on paper before the answers are seen.

How it is made: the built site is served on 127.0.0.1 (as `serve` does), Chromium opens each page
through Playwright and prints it with `page.pdf` on A4 (PAPER), through the site's own print
stylesheet, the one tests/browser/test_print.py checks; the answers are printed from the index
page with its article replaced by the questions gathered from the modules (their own markup,
moved, so figures, MathML and log links print as on the pages). pypdf joins the parts into one
file, each part a bookmark, written atomically. Each part starts on a new page.

Left out: page numbers (Chromium prints them in the margin, and each part is printed on its own),
the playground (it is made to be clicked), the instructor's page, the reproduce page, the index.
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

__all__ = ["DEFAULT_NAME", "MARGIN_CM", "PAPER", "ANSWERS_TITLE", "Part", "Handout", "handout_path", "find_chromium", "print_handout"]

DEFAULT_NAME = "handout.pdf"
ANSWERS_TITLE = "Answers to the check-yourself questions"
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
# page's own markup, for the answers part.
_TAKE_ANSWERS = """(module) => Array.from(document.querySelectorAll('article .question')).map((q, i) => {
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
})"""

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


@dataclass(frozen=True)
class Part:
    """One part of the handout: its title (its bookmark) and the PDF page it starts on (0-based)."""

    title: str
    first_page: int
    pages: int


@dataclass(frozen=True)
class Handout:
    """What was printed: the PDF, its parts in order, how many questions it answers, how long it took."""

    path: Path
    parts: tuple[Part, ...]
    questions: int
    seconds: float

    @property
    def pages(self) -> int:
        return sum(part.pages for part in self.parts)


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

            def print_page(title: str) -> None:
                # The math font and the figures must be in before Chromium lays the page out for paper.
                page.evaluate("document.fonts.ready.then(() => true)")
                printed.append((title, page.pdf(**PAPER)))

            for number, name in modules:
                title = open_page(name)
                gathered.append({"title": title, "questions": page.evaluate(_TAKE_ANSWERS, f"Module {number}")})
                print_page(title)
            for name in ("log.html", "labs.html"):
                if (site / name).is_file():
                    print_page(open_page(name))
            open_page("index.html")
            page.evaluate(_SHOW_ANSWERS, [ANSWERS_TITLE, gathered])
            print_page(ANSWERS_TITLE)
        finally:
            browser.close()

    writer = PdfWriter()
    parts = []
    for title, pdf in printed:
        first = len(writer.pages)
        # Chromium's own outline is empty here (untagged print): one bookmark per part instead.
        writer.append(PdfReader(io.BytesIO(pdf)), outline_item=title, import_outline=False)
        parts.append(Part(title, first, len(writer.pages) - first))
    writer.add_metadata({"/Title": "LLM Self-Attention by Hand: the handout"})
    out = io.BytesIO()
    writer.write(out)
    write_atomic(path, out.getvalue())
    questions = sum(len(module["questions"]) for module in gathered)
    return Handout(path, tuple(parts), questions, time.perf_counter() - started)
