"""The handout (handout.py): the built site printed into one PDF by Chromium, read back with pypdf.

A title page and a contents page that gives each part's first page by the number printed at its
foot; then the parts in order, each starting on a page that opens with its title; every page's
number at its foot and no other text in the margins; every figure the printed pages show; every
check-yourself answer after the last module; no words that only mean something on a screen, and
each log quote's source printed as text; and as many pages as the pages' own layout needs. What
is expected comes from the built site, the pages' sources and the run's index, never from
handout.py's own account of what it printed.
"""

from __future__ import annotations

import html
import math
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from patience import HUNG
from pdfglyphs import glyphs, overlapping
from PIL import Image
from pypdf import PdfReader
from test_questions import expected_answers, straight

from attention_by_hand.site.handout import ANSWERS_TITLE, CONTENTS_TITLE, MARGIN_CM, page_label

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
PT_PER_CM = 72 / 2.54  # PDF points are 1/72 inch
PX_PER_PT = 96 / 72  # CSS px are 1/96 inch

# Prints the handout in a process of its own: Playwright's sync API cannot run a second time
# inside the test session's, which the `browser` fixture holds.
PRINT = """
import sys
from pathlib import Path
from attention_by_hand.site.handout import print_handout
print_handout(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
"""


def modules(site: Path) -> list[str]:
    """The module pages of the built site, in order: module-0, module-1, ..."""
    return sorted((p.stem for p in site.glob("module-*.html")), key=lambda name: int(name.split("-")[1]))


def printed_pages(site: Path) -> list[str]:
    """The site's pages the handout prints before its answers, in its order."""
    return [*modules(site), "log", "labs"]


def article(site: Path, page: str) -> str:
    text = (site / f"{page}.html").read_text(encoding="utf-8")
    return text[text.index("<article") : text.index("</article>")]


def title(site: Path, page: str) -> str:
    """A page's <h1>, as text, without its "¶" link."""
    heading = re.search(r"<h1>(.*?)<a class=\"headerlink\"", article(site, page), re.S).group(1)
    return html.unescape(re.sub(r"<[^>]+>", "", heading)).strip()


def on_paper(markup: str) -> str:
    """A page's markup without its words for the screen (the print styles hide class screen-only)."""
    return re.sub(r'<span class="screen-only">[^<]*</span>', "", markup)


def pixels(path: Path) -> tuple[int, int]:
    with Image.open(path) as image:
        return image.size


def squeezed(text: str) -> str:
    """Text with no whitespace and straight quotes: how the PDF's words compare with the page's,
    whatever lines Chromium broke them into."""
    return re.sub(r"\s+", "", straight(text))


@pytest.fixture(scope="module")
def handout(browser, site, tmp_path_factory) -> Path:
    """The handout of the session's site (`browser` first: it skips, or fails in CI, without Chromium)."""
    path = tmp_path_factory.mktemp("handout") / "handout.pdf"
    done = subprocess.run(
        [sys.executable, "-c", PRINT, str(site), str(path), shutil.which("chromium")],
        capture_output=True, text=True, timeout=HUNG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def texts(handout) -> list[str]:
    """Each PDF page's text, squeezed."""
    return [squeezed(page.extract_text()) for page in PdfReader(handout).pages]


@pytest.fixture(scope="module")
def printed(handout) -> list:
    """Every glyph the PDF prints, with its page and box (pdfglyphs.py): read once, a few seconds."""
    return glyphs(handout)


def opening_pages(site: Path, texts: list[str]) -> dict[str, int]:
    """For each part's title, the first page whose text starts with it."""
    titles = [title(site, page) for page in printed_pages(site)] + [ANSWERS_TITLE]
    return {t: next((n for n, text in enumerate(texts) if text.startswith(squeezed(t))), -1) for t in titles}


def contents_page(texts: list[str]) -> int:
    """The page that opens with the contents' heading."""
    return next(n for n, text in enumerate(texts) if text.startswith(squeezed(CONTENTS_TITLE)))


def test_the_first_page_is_a_title_page_with_the_sites_title_and_opening_paragraph(site, texts):
    home = article(site, "index")
    opening = re.search(r"</h1>\s*<p>(.*?)</p>", home, re.S).group(1)
    assert texts[0].startswith(squeezed(title(site, "index")))
    assert squeezed(html.unescape(re.sub(r"<[^>]+>", "", opening))) in texts[0]
    assert contents_page(texts) == 1


def test_each_part_starts_a_page_with_its_title_in_the_handouts_order_after_the_contents(site, texts):
    opening = opening_pages(site, texts)
    assert -1 not in opening.values(), opening
    assert list(opening.values()) == sorted(opening.values())
    assert opening[title(site, "module-0")] == contents_page(texts) + 1


def test_the_contents_give_each_part_the_number_printed_on_its_first_page(site, texts):
    contents = texts[contents_page(texts)]
    for part, page in opening_pages(site, texts).items():
        listed = re.search(re.escape(squeezed(part)) + r"(\d+)", contents)
        assert listed, f"{part} is not in the contents"
        number = int(listed.group(1))
        assert number == page + 1, part
        assert squeezed(page_label(number, len(texts))) in texts[page]


def test_every_page_carries_its_number_at_its_foot(texts):
    missing = [n for n, text in enumerate(texts, start=1) if squeezed(page_label(n, len(texts))) not in text]
    assert missing == []


def test_each_part_and_the_contents_have_a_bookmark_to_their_first_page(site, handout, texts):
    reader = PdfReader(handout)
    bookmarks = {item.title: reader.get_destination_page_number(item) for item in reader.outline}
    assert bookmarks == {CONTENTS_TITLE: contents_page(texts), **opening_pages(site, texts)}


def screen_words(site: Path, page: str) -> list[str]:
    """The words of a printed page that only a screen shows (class screen-only), as text."""
    found = re.findall(r'<(span|div) class="screen-only[^"]*">(.*?)</\1>', article(site, page), re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", words)).strip() for _, words in found]


def test_no_words_meant_for_a_screen_are_printed(site, texts):
    words = {w for page in printed_pages(site) for w in screen_words(site, page)}
    assert "cross-check:" in words  # the pages have such words at all
    whole = "".join(texts)
    assert [w for w in words if squeezed(w) in whole] == []
    # Nor the theme's footer of credits, printed under every part before.
    assert "MadewithSphinx" not in whole


def test_each_log_quote_prints_where_its_lines_come_from(site, texts):
    opening = sorted(opening_pages(site, texts).values()) + [len(texts)]
    for number, page in enumerate(printed_pages(site)):
        own = "".join(texts[opening[number] : opening[number + 1]])
        for link in re.findall(r'<p class="cross-check"><a [^>]*>(.*?)</a></p>', article(site, page), re.S):
            source = html.unescape(re.sub(r"<[^>]+>", "", on_paper(link)))
            assert re.fullmatch(r"\w+\.log lines? \d+(-\d+)?", source), source
            assert squeezed(source) in own, f"{page}: {source}"


def test_the_words_before_a_modules_questions_say_on_paper_where_the_answers_are(site, texts):
    opening = sorted(opening_pages(site, texts).values())
    for number, page in enumerate(modules(site)):
        own = "".join(texts[opening[number] : opening[number + 1]])
        section = re.search(r'<section[^>]*>(?:(?!<section).)*?<div class="question', article(site, page), re.S).group()
        # The paragraphs before the first question told a reader on screen to open each answer.
        for before in re.findall(r"<p>(.*?)</p>", section, re.S):
            assert squeezed(html.unescape(re.sub(r"<[^>]+>", "", before))) not in own
        assert squeezed(f"the answers are at the end of the handout, under Module {number}.") in own


def test_every_figure_the_printed_pages_show_is_in_the_pdf_at_its_size(site, handout):
    shown = [src for page in printed_pages(site) for src in re.findall(r"<img [^>]*src=\"([^\"]+)\"", article(site, page))]
    assert shown  # the pages show figures at all
    expected = Counter(pixels(site / src) for src in shown)
    found = Counter(image.image.size for page in PdfReader(handout).pages for image in page.images)
    assert found == expected


def test_every_figure_caption_is_in_the_pdf(site, texts):
    whole = "".join(texts)
    captions = [
        squeezed(html.unescape(re.sub(r"<[^>]+>", "", caption)))
        for page in printed_pages(site)
        for caption in re.findall(r'<span class="caption-text">(.*?)</span>', on_paper(article(site, page)), re.S)
    ]
    assert captions
    assert [c for c in captions if c not in whole] == []


def test_every_answer_is_printed_after_the_last_module_in_the_modules_order(site, texts):
    opening = opening_pages(site, texts)
    start = opening[ANSWERS_TITLE]
    assert start > opening[title(site, modules(site)[-1])]
    answers = "".join(texts[start:])
    position = 0
    for page in modules(site):
        for answer in expected_answers(page):
            found = answers.find(squeezed(answer), position)
            assert found >= 0, f"{page}: answer {answer!r} is not in the answers section, in order"
            position = found + 1


def test_a_module_points_to_its_answers_instead_of_showing_them(site, texts):
    opening = sorted(opening_pages(site, texts).values())
    for number, page in enumerate(modules(site)):
        own = "".join(texts[opening[number] : opening[number + 1]])
        answers = expected_answers(page)
        assert own.count(squeezed("Answer: at the end of the handout")) == len(answers)
        # An answer with words in it ("water 0.3, place 0.9") appears nowhere else by chance.
        assert [a for a in answers if re.search("[a-z]{2}", a) and squeezed(a) in own] == []


def test_no_printed_text_lies_in_the_margins_but_each_pages_number_at_its_foot(handout, printed):
    reader = PdfReader(handout)
    margin = MARGIN_CM * PT_PER_CM
    outside = []
    for glyph in printed:
        box = reader.pages[glyph.page].mediabox
        inside = margin <= glyph.x0 and glyph.x1 <= float(box.width) - margin
        if not (inside and margin <= glyph.y0 and glyph.y1 <= float(box.height) - margin):
            outside.append(glyph)
    # The page number is the one text of the margins: in the bottom one, about the middle of the line.
    middle = float(reader.pages[0].mediabox.width) / 2
    assert [g for g in outside if not (g.y1 <= margin and abs((g.x0 + g.x1) / 2 - middle) < 3 * PT_PER_CM)][:5] == []
    assert {g.page for g in outside} == set(range(len(reader.pages)))


def test_no_answer_is_printed_over_another(site, printed, texts):
    start = opening_pages(site, texts)[ANSWERS_TITLE]
    assert overlapping([g for g in printed if g.page >= start])[:5] == []


# Each page laid out as on paper (print styles, the paper's printable width): its height, and the
# height of the blocks that are kept whole (a figure, a code box, a question), outermost ones only.
LAYOUT = """(selector) => {
    const parts = selector ? Array.from(document.querySelectorAll(selector)) : [];
    const height = selector ? parts.reduce((sum, e) => sum + e.getBoundingClientRect().height, 0)
                            : document.documentElement.scrollHeight;
    const kept = Array.from(document.querySelectorAll('article *')).filter(e => {
        const style = getComputedStyle(e);
        return style.breakInside === 'avoid' || /^H[1-6]$/.test(e.tagName);
    });
    const outermost = kept.filter(e => !kept.some(other => other !== e && other.contains(e)));
    const inside = outermost.filter(e => !selector || parts.some(part => part.contains(e)));
    return {height, kept: inside.reduce((sum, e) => sum + e.getBoundingClientRect().height, 0)};
}"""


def test_the_page_count_is_what_the_pages_layout_needs(browser, server, site, handout, texts):
    box = PdfReader(handout).pages[0].mediabox
    margins = 2 * MARGIN_CM * PT_PER_CM
    printable = {"width": (float(box.width) - margins) * PX_PER_PT, "height": (float(box.height) - margins) * PX_PER_PT}
    page = browser.new_page(viewport={k: round(v) for k, v in printable.items()})
    page.emulate_media(media="print")
    layouts = []
    # The answers part holds the questions the instructor's list shows, answers shown.
    for name, selector in [*((p, None) for p in printed_pages(site)), ("instructor", ".question-list-group")]:
        page.goto(f"{server}/{name}.html", wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        layouts.append(page.evaluate(LAYOUT, selector))
    page.close()
    full = printable["height"]
    # Fewer pages than the content's height cannot hold it. More than its height plus that of every
    # block kept whole (each moves to the next page at most once, leaving less than itself blank)
    # means blank or repeated pages.
    least = sum(max(1, math.floor(layout["height"] / full)) for layout in layouts)
    most = sum(math.ceil((layout["height"] + layout["kept"]) / full) for layout in layouts)
    front = opening_pages(site, texts)[title(site, "module-0")]  # the title page and the contents
    assert front + least <= len(PdfReader(handout).pages) <= front + most


def test_without_chromium_the_handout_is_refused_in_one_line_before_any_build(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = str(Path(sys.executable).parent)  # the venv's commands, and no chromium
    done = subprocess.run(
        [sys.executable, "-m", "attention_by_hand", "build", "--out", str(tmp_path / "site"), "--handout"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HUNG,
    )  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "chromium" in line and "apt-get install chromium" in line
    assert not (tmp_path / "site").exists()
