"""The built site in a real browser: loads clean, offline, readable on a phone, accessible."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p.stem for p in (ROOT / "workshop").glob("*.md"))
MODULES = [p for p in PAGES if p.startswith("module-")]
PHONE = {"width": 390, "height": 844}


def visit(watched, server: str, page: str):
    watched.page.goto(f"{server}/{page}.html", wait_until="load")
    watched.page.evaluate("document.fonts.ready.then(() => true)")
    return watched.page


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_without_console_error_failed_or_foreign_request(watched, server, page):
    visit(watched, server, page)
    assert watched.problems() == []


@pytest.mark.parametrize("page", PAGES)
def test_page_names_a_favicon_that_the_site_serves(watched, server, page):
    p = visit(watched, server, page)
    href = p.evaluate("document.querySelector('link[rel~=icon]').href")
    assert p.request.get(href).status == 200


@pytest.mark.parametrize("page", PAGES)
def test_every_image_decodes_and_says_what_it_shows(watched, server, page):
    p = visit(watched, server, page)
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
    named = set(re.findall(r"diagrams/(\S+\.png)", (ROOT / "captures" / "results.log").read_text()))
    assert named <= shown


def test_math_renders_as_mathml_in_the_bundled_font(watched, server):
    p = visit(watched, server, "module-0")
    sizes = p.evaluate("Array.from(document.querySelectorAll('math')).map(m => m.getBoundingClientRect().height)")
    assert sizes and all(h > 10 for h in sizes)
    loaded = p.evaluate("document.fonts.load('20px \"Latin Modern Math\"').then(fs => fs.length)")
    assert loaded >= 1


@pytest.mark.parametrize("page", MODULES)
def test_each_cross_check_link_highlights_exactly_its_lines(watched, server, page):
    p = visit(watched, server, page)
    quotes = p.evaluate(
        """Array.from(document.querySelectorAll('.log-quote')).map(q => ({
            href: q.querySelector('p.cross-check a').getAttribute('href'),
            text: q.querySelector('pre').innerText}))"""
    )
    assert quotes, f"{page} quotes no log lines"
    for quote in quotes:
        match = re.fullmatch(r"log\.html#L(\d+)(?:-L(\d+))?", quote["href"])
        first = int(match.group(1))
        last = int(match.group(2) or first)
        p.goto(f"{server}/{quote['href']}")
        p.wait_for_function("document.querySelector('.log-line.highlighted') !== null")
        highlighted = p.evaluate("Array.from(document.querySelectorAll('.log-line.highlighted')).map(l => l.id)")
        assert highlighted == [f"L{n}" for n in range(first, last + 1)]
        # The theme scrolls smoothly, so give the scroll its time (up to 5 s) to arrive.
        p.wait_for_function(
            f"(() => {{ const r = document.getElementById('L{first}').getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= window.innerHeight; })()",
            timeout=5000,
        )
        # The excerpt on the module page is those very lines, under the same line numbers.
        log_lines = p.evaluate(
            f"Array.from(document.querySelectorAll('.log-line')).slice({first - 1}, {last}).map(l => l.innerText)"
        )
        excerpt = quote["text"].strip("\n").split("\n")
        assert [int(re.match(r"\s*(\d+)", line).group(1)) for line in excerpt] == list(range(first, last + 1))
        assert [re.sub(r"^\s*\d+", "", line) for line in excerpt] == [re.sub(r"^\s*\d+ ", "", line) for line in log_lines]
        p.go_back()


@pytest.mark.parametrize("watched", [PHONE], indirect=True)
@pytest.mark.parametrize("page", PAGES)
def test_no_page_scrolls_sideways_at_390_px(watched, server, page):
    p = visit(watched, server, page)
    assert p.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.parametrize("page", PAGES)
def test_no_serious_or_critical_accessibility_violation(watched, server, page):
    from axe_playwright_python.sync_playwright import Axe

    p = visit(watched, server, page)
    results = Axe().run(p)
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
        "['.sidebar-drawer', '.toc-drawer', '.mobile-header'].map(s => document.querySelector(s))"
        ".filter(e => e).every(e => getComputedStyle(e).display === 'none')"
    )
    assert hidden
    overflowing = p.evaluate(
        "Array.from(document.querySelectorAll('pre')).filter(e => e.scrollWidth > e.clientWidth + 1).length"
    )
    assert overflowing == 0
