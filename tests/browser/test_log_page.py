"""The log page is the logs: each single-spaced, copied from the page it is the file, and
downloadable. Every registered part's log is on the page."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_by_hand import parts

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
LOGS = [part.log_stem for part in parts.PARTS]


def log_file(log: str) -> Path:
    return ROOT / "captures" / f"{log}.log"


def block(log: str) -> str:
    return f'pre.results-log[data-log="{log}"]'


@pytest.fixture(scope="module")
def log_page(browser, server):
    """The log page in a window tall enough to show every log, allowed to use the clipboard.

    One for the module: a test reads it, or makes a selection of its own and copies it (a press
    of the mouse clears the last selection), and a page that tall is costly to draw."""
    context = browser.new_context(viewport={"width": 1200, "height": 900}, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{server}/log.html", wait_until="load")
    page.evaluate("document.fonts.ready.then(() => true)")
    bottom = page.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('pre.results-log')).map(p => p.getBoundingClientRect().bottom))"
        " + window.scrollY"
    )
    page.set_viewport_size({"width": 1200, "height": int(bottom) + 50})
    page.evaluate("window.scrollTo(0, 0)")
    yield page
    context.close()


@pytest.mark.parametrize("log", LOGS)
def test_selecting_and_copying_the_whole_log_gives_the_file_byte_for_byte(log_page, log):
    box = log_page.locator(block(log)).bounding_box()
    # As a reader does it: press in the box's top padding, above line 1's number (pressing on a
    # number would drag its link), drag to the bottom right corner past the last line, copy.
    log_page.mouse.move(box["x"] + 2, box["y"] + 2)
    log_page.mouse.down()
    log_page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] - 2, steps=10)
    log_page.mouse.up()
    log_page.keyboard.press("Control+C")
    copied = log_page.evaluate("navigator.clipboard.readText()")
    assert copied.encode("utf-8") == log_file(log).read_bytes()


def rows(log_page, log: str) -> tuple[list[float], float]:
    """(each log line's height in rows of the block's line height, that line height). A line wider
    than the block wraps onto more rows on a wide screen (workshop.css): a whole number of them."""
    line_height = log_page.evaluate(f"parseFloat(getComputedStyle(document.querySelector('{block(log)}')).lineHeight)")
    heights = log_page.evaluate(
        f"Array.from(document.querySelectorAll('{block(log)} .log-line')).map(l => l.getBoundingClientRect().height)"
    )
    return [h / line_height for h in heights], line_height


@pytest.mark.parametrize("log", LOGS)
def test_every_log_line_is_one_row_high_when_no_line_wraps(log_page, log):
    # Lines kept whole, as a narrow screen keeps them (the block scrolls sideways instead).
    log_page.evaluate(f"document.querySelector('{block(log)}').style.whiteSpace = 'pre'")
    try:
        counted, _ = rows(log_page, log)
    finally:
        log_page.evaluate(f"document.querySelector('{block(log)}').style.whiteSpace = ''")
    assert len(counted) == len(log_file(log).read_text(encoding="utf-8").splitlines())
    assert all(abs(n - 1) < 0.05 for n in counted), sorted(set(counted))


@pytest.mark.parametrize("log", LOGS)
def test_a_wrapped_log_line_takes_a_whole_number_of_rows(log_page, log):
    counted, _ = rows(log_page, log)
    assert all(n >= 0.95 and abs(n - round(n)) < 0.05 for n in counted), sorted(set(counted))


@pytest.mark.parametrize("log", LOGS)
def test_the_log_block_is_as_tall_as_its_rows_single_spaced(log_page, log):
    height = log_page.evaluate(
        f"""(() => {{ const pre = document.querySelector('{block(log)}'), s = getComputedStyle(pre);
            return pre.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom); }})()"""
    )
    counted, line_height = rows(log_page, log)
    # One line box per row, and at most one more for the newline that closes the block.
    assert height <= (round(sum(counted)) + 1) * line_height + 1


@pytest.mark.parametrize("log", LOGS)
def test_the_download_link_gives_the_file_itself_from_this_site(log_page, server, log):
    link = log_page.locator("a.download", has_text=f"{log}.log")
    href = link.evaluate("a => a.href")
    assert href.startswith(f"{server}/") and link.get_attribute("download") is not None
    response = log_page.request.get(href)
    assert response.status == 200 and response.body() == log_file(log).read_bytes()
