"""The built site in a real browser: loads clean, offline, readable on a phone, accessible."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from attention_by_hand import parts

from attention_by_hand.site.sphinxext.runlog import MIN_FIGURE_SCALE

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p.stem for p in (ROOT / "workshop").glob("*.md"))
MODULES = [p for p in PAGES if p.startswith("module-")]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


WINDOWS = {"390px": PHONE, "1280px": DESKTOP}


def visit(watched, server: str, page: str):
    watched.page.goto(f"{server}/{page}.html", wait_until="load")
    watched.page.evaluate("document.fonts.ready.then(() => true)")
    return watched.page


@pytest.fixture(scope="module")
def reading_context(browser):
    """A context for the pages that tests only read (reduced motion, as `watched`)."""
    context = browser.new_context(reduced_motion="reduce")
    yield context
    context.close()


@pytest.fixture(scope="module", params=[(page, width) for page in PAGES for width in WINDOWS], ids="-".join)
def shown(request, reading_context, server, watching):
    """One page of the site in one window, loaded once for all the tests that only read it:
    pytest runs those tests one after another for each (page, window). `shown.problems()` is
    what went wrong on it since before its load (conftest.watch)."""
    page, width = request.param
    p = reading_context.new_page()
    p.problems = watching(p).problems
    p.set_viewport_size(WINDOWS[width])
    p.goto(f"{server}/{page}.html", wait_until="load")
    p.evaluate("document.fonts.ready.then(() => true)")
    yield p
    p.close()


def test_page_loads_without_console_error_failed_or_foreign_request(shown):
    assert shown.problems() == []


def test_page_names_a_favicon_that_the_site_serves(shown):
    href = shown.evaluate("document.querySelector('link[rel~=icon]').href")
    assert shown.request.get(href).status == 200


def test_every_image_decodes_and_says_what_it_shows(shown):
    p = shown
    images = p.evaluate(
        "Array.from(document.images).map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0, alt: i.alt}))"
    )
    for image in images:
        assert image["ok"], f"{image['src']} did not decode"
        if "_images/" in image["src"]:
            assert len(image["alt"]) > 20, f"{image['src']} has no real alt text"


def test_every_figure_of_the_run_appears_on_some_page(watched, server):
    shown = set()
    for page in MODULES:
        p = visit(watched, server, page)
        shown |= set(p.evaluate("Array.from(document.querySelectorAll('figure.run-figure img')).map(i => i.src.split('/').pop())"))
    logs = [part.log_name for part in parts.PARTS]  # every part's figures, each drawn for a module
    named = {name for log in logs for name in re.findall(r"diagrams/(\S+\.png)", (ROOT / "captures" / log).read_text())}
    assert named <= shown


def test_math_renders_as_mathml_in_the_bundled_font(watched, server):
    p = visit(watched, server, "module-0")
    sizes = p.evaluate("Array.from(document.querySelectorAll('math')).map(m => m.getBoundingClientRect().height)")
    assert sizes and all(h > 10 for h in sizes)
    loaded = p.evaluate("document.fonts.load('20px \"Latin Modern Math\"').then(fs => fs.length)")
    assert loaded >= 1


def in_view(line_id: str) -> str:
    """A page condition: the log line with this id is inside the window."""
    return (
        f"(() => {{ const r = document.getElementById('{line_id}').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= window.innerHeight; })()"
    )


@pytest.mark.parametrize("page", MODULES)
def test_each_cross_check_link_highlights_exactly_its_lines(watched, server, page):
    p = visit(watched, server, page)
    quotes = p.evaluate(
        """Array.from(document.querySelectorAll('.log-quote')).map(q => {
            const pre = q.querySelector('pre').cloneNode(true);
            const numbers = Array.from(pre.querySelectorAll('.linenos')).map(n => parseInt(n.textContent, 10));
            pre.querySelectorAll('.linenos').forEach(n => n.remove());
            return {href: q.querySelector('p.cross-check a').getAttribute('href'), numbers: numbers,
                    lines: pre.textContent.replace(/\\n$/, '').split('\\n')};
        })"""
    )
    assert quotes, f"{page} quotes no log lines"
    # One log page for all the links: after the first, following a link changes only the
    # address's fragment, as it does for a reader who comes back to the log by another link.
    log_page = p.context.new_page()
    for quote in quotes:
        match = re.fullmatch(r"log\.html#(?:([a-z]+)-)?L(\d+)(?:-L(\d+))?", quote["href"])
        log, prefix = (match.group(1), f"{match.group(1)}-") if match.group(1) else (parts.default_part().log_stem, "")
        first = int(match.group(2))
        last = int(match.group(3) or first)
        log_page.goto(f"{server}/{quote['href']}")
        log_page.wait_for_function(f"document.getElementById('{prefix}L{first}').classList.contains('highlighted')")
        highlighted = log_page.evaluate("Array.from(document.querySelectorAll('.log-line.highlighted')).map(l => l.id)")
        assert highlighted == [f"{prefix}L{n}" for n in range(first, last + 1)]
        log_page.wait_for_function(in_view(f"{prefix}L{first}"))
        # The excerpt on the module page is those very lines, under the same line numbers. A log
        # line's text is the file's line and its newline; its number is drawn by CSS.
        log_lines = log_page.evaluate(
            f"Array.from(document.querySelectorAll('pre[data-log=\"{log}\"] .log-line'))"
            f".slice({first - 1}, {last}).map(l => l.textContent)"
        )
        assert quote["numbers"] == list(range(first, last + 1))
        assert [line + "\n" for line in quote["lines"]] == log_lines


def test_a_clicked_cross_check_link_scrolls_the_log_smoothly_to_its_first_line(watched_in_motion, server):
    # The default reader: the theme scrolls smoothly, so the scroll gets its time (Playwright's
    # bound for a wait, 30 s: a busy machine scrolls slowly, not wrongly).
    p = visit(watched_in_motion, server, "module-2")
    link = p.locator(".log-quote p.cross-check a").last
    first = re.fullmatch(r"log\.html#(L\d+)(?:-L\d+)?", link.get_attribute("href")).group(1)
    link.click()
    p.wait_for_url(re.compile(r"/log\.html#"))
    assert p.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "smooth"
    p.wait_for_function(in_view(first))


def test_a_reader_who_asked_for_less_motion_is_not_scrolled_smoothly(watched, server):
    p = visit(watched, server, "log")
    assert p.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    assert p.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "auto"


def test_no_page_scrolls_sideways(shown):
    assert shown.evaluate("document.documentElement.scrollWidth") <= shown.viewport_size["width"]


# Each table cell, formula, code block and figure of the page, whose content does not fit in its
# box (or whose box does not fit in the page) without a box that scrolls to show it: a clipping
# ancestor cuts it, or it sticks out left of a scrolling box (where no scroll reaches), or out of
# the window. A box that scrolls itself shows all of its content.
CLIPPED = """(() => {
    const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
    const name = e => e.tagName.toLowerCase() + ' "' + e.textContent.trim().slice(0, 40) + '"';
    const found = [];
    for (const e of document.querySelectorAll('article td, article th, article math, article pre, article figure img')) {
        if (!e.getClientRects().length) continue;  // not shown at this width
        const box = e.getBoundingClientRect();
        // What it needs: its box, or all of its content if that is wider and it does not scroll.
        const left = box.left, right = scrolls(e) ? box.right : box.left + Math.max(box.width, e.scrollWidth);
        for (let a = e.parentElement; a; a = a.parentElement) {
            const r = a.getBoundingClientRect();
            if (a === document.documentElement) {
                if (left < -1 || right > window.innerWidth + 1) found.push(name(e) + ' runs out of the window');
                break;
            }
            if (scrolls(a)) {
                if (left < r.left - a.scrollLeft - 1) found.push(name(e) + ' starts left of where its box scrolls');
                break;
            }
            if (['hidden', 'clip'].includes(getComputedStyle(a).overflowX) && (left < r.left - 1 || right > r.right + 1)) {
                found.push(name(e) + ' is cut by ' + a.tagName.toLowerCase() + '.' + a.className);
                break;
            }
        }
    }
    return found;
})()"""


def test_no_table_cell_formula_code_line_or_figure_is_clipped(shown):
    assert shown.evaluate(CLIPPED) == []


def test_every_text_box_that_scrolls_sideways_shows_a_shadow_at_its_edge(shown):
    # Phones show no scrollbar until touched: a box with hidden content must say so by itself,
    # with the scrolling shadows of workshop.css (covers that scroll with the content).
    silent = shown.evaluate(
        """Array.from(document.querySelectorAll('article pre, article .table-wrapper, article .math-display'))
            .filter(e => e.scrollWidth > e.clientWidth + 1)
            .filter(e => { const s = getComputedStyle(e);
                           return !(s.backgroundAttachment.includes('local') && s.backgroundImage.includes('gradient')); })
            .map(e => e.tagName.toLowerCase() + '.' + e.className)"""
    )
    assert silent == []


# The pages in the desktop window only (the `shown` ones: each loaded once per window).
AT_DESKTOP = pytest.mark.parametrize("shown", [(page, "1280px") for page in PAGES], indirect=True, ids="-".join)
AT_PHONE = pytest.mark.parametrize("shown", [(page, "390px") for page in PAGES], indirect=True, ids="-".join)

# Each log or code block of the page whose lines do not all show: it scrolls sideways.
SCROLLING_BLOCKS = """Array.from(document.querySelectorAll('article pre, article div.highlight'))
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.tagName.toLowerCase() + ' "' + e.textContent.trim().slice(0, 50) + '"')"""


@AT_DESKTOP
def test_at_desktop_width_every_log_and_code_block_shows_its_whole_lines(shown):
    assert shown.evaluate(SCROLLING_BLOCKS) == []


# Where a log's or a code block's line wraps, its second row: the box of the hanging space at its
# start, where the continuation mark is drawn, and the line's whole box.
WRAPPED_ROWS = """Array.from(document.querySelectorAll('article pre .code-line, article pre .log-line')).map(line => {
    const box = line.getBoundingClientRect(), style = getComputedStyle(line);
    const row = parseFloat(style.lineHeight), hang = parseFloat(style.paddingLeft);
    return {rows: Math.round(box.height / row), x: box.left, y: box.top + row, width: hang, height: row};
}).filter(line => line.rows > 1)"""


def test_a_wrapped_line_marks_each_row_it_continues_on(watched, server):
    # Just above the desktop layout's smallest width the log's long lines must wrap.
    p = visit(watched, server, "log")
    p.set_viewport_size({"width": 1010, "height": 800})
    rows = p.evaluate(WRAPPED_ROWS)
    assert rows, "no line of the log wraps at 1010 px"
    assert p.evaluate(SCROLLING_BLOCKS) == []
    row = rows[0]
    p.evaluate(f"window.scrollBy(0, {row['y']} - 100)")
    box = {k: v for k, v in p.evaluate(WRAPPED_ROWS)[0].items() if k in ("x", "y", "width", "height")}
    marked = p.screenshot(clip=box)
    # The same space with the marks taken away: what differs is the mark's ink.
    p.add_style_tag(content="article pre .log-line::after { display: none; }")
    unmarked = p.screenshot(clip=box)
    colours = lambda png: Image.open(io.BytesIO(png)).convert("RGB").getcolors(1 << 16)  # noqa: E731
    assert len(colours(unmarked)) == 1  # nothing else is drawn there
    assert len(colours(marked)) > 1


@AT_PHONE
def test_on_a_phone_a_figure_wider_than_the_screen_says_it_scrolls_and_no_other_does(shown):
    figures = shown.evaluate(
        """Array.from(document.querySelectorAll('figure.run-figure')).map(f => {
            const frame = f.querySelector('.figure-frame'), cue = f.querySelector('.scroll-cue');
            const box = cue.getBoundingClientRect();
            return {name: f.querySelector('img').src.split('/').pop(), scrolls: frame.scrollWidth > frame.clientWidth + 1,
                    cue: box.height > 0 && box.left >= 0 && box.right <= innerWidth && cue.textContent.includes('scroll'),
                    faded: getComputedStyle(frame).maskImage !== 'none'};
        })"""
    )
    assert [f["name"] for f in figures if f["cue"] != f["scrolls"] or f["faded"] != f["scrolls"]] == []


def test_the_memory_wall_is_wider_than_a_phone_and_says_so(watched, server):
    watched.page.set_viewport_size(PHONE)
    p = visit(watched, server, "module-5")
    figure = p.locator("figure.run-figure", has=p.locator("img[src*='memory_wall']"))
    assert figure.locator(".scroll-cue").is_visible()
    frame = figure.locator(".figure-frame")
    frame.evaluate("f => f.scrollTo(f.scrollWidth, 0)")
    # Scrolled to its end, the figure hides nothing on the right any more, and says so at the left.
    p.wait_for_function("f => !f.classList.contains('more-right') && f.classList.contains('more-left')", arg=frame.element_handle())


@pytest.mark.parametrize("watched", [PHONE], indirect=True)
@pytest.mark.parametrize("page", MODULES)
def test_figures_stay_legible_on_a_phone(watched, server, page):
    # Below MIN_FIGURE_SCALE of its drawn size a figure's numbers get too small to read: it keeps
    # that width and scrolls in its frame instead.
    p = visit(watched, server, page)
    scales = p.evaluate(
        """Array.from(document.querySelectorAll('figure.run-figure img'))
            .map(i => [i.src.split('/').pop(), i.getBoundingClientRect().width / i.naturalWidth])"""
    )
    assert scales
    assert [name for name, scale in scales if scale < MIN_FIGURE_SCALE - 0.005] == []


# At desktop width (1280 px), after the tests that read the same loaded page: axe adds its script to it.
@AT_DESKTOP
def test_no_serious_or_critical_accessibility_violation(shown):
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(shown)
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == []


@pytest.mark.parametrize("page", MODULES)
def test_printed_module_hides_navigation_and_wraps_code(watched, server, page):
    p = visit(watched, server, page)
    p.emulate_media(media="print")
    hidden = p.evaluate(
        "['.sidebar-drawer', '.toc-drawer', '.mobile-header', '.skip-to-content'].map(s => document.querySelector(s))"
        ".filter(e => e).every(e => getComputedStyle(e).display === 'none')"
    )
    assert hidden
    overflowing = p.evaluate(
        "Array.from(document.querySelectorAll('pre')).filter(e => e.scrollWidth > e.clientWidth + 1).length"
    )
    assert overflowing == 0
