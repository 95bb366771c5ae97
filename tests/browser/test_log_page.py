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


@pytest.mark.parametrize("log", LOGS)
def test_every_log_line_is_one_line_high(log_page, log):
    line_height = log_page.evaluate(f"parseFloat(getComputedStyle(document.querySelector('{block(log)}')).lineHeight)")
    heights = log_page.evaluate(
        f"Array.from(document.querySelectorAll('{block(log)} .log-line')).map(l => l.getBoundingClientRect().height)"
    )
    assert len(heights) == len(log_file(log).read_text(encoding="utf-8").splitlines())
    assert all(abs(h - line_height) < 1 for h in heights), sorted(set(heights))


@pytest.mark.parametrize("log", LOGS)
def test_the_log_block_is_as_tall_as_its_lines_single_spaced(log_page, log):
    pre = log_page.evaluate(
        f"""(() => {{ const pre = document.querySelector('{block(log)}'), s = getComputedStyle(pre);
            return {{height: pre.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom),
                    lineHeight: parseFloat(s.lineHeight)}}; }})()"""
    )
    lines = len(log_file(log).read_text(encoding="utf-8").splitlines())
    # One line box per line, and at most one more for the newline that closes the block.
    assert pre["height"] <= (lines + 1) * pre["lineHeight"] + 1


@pytest.mark.parametrize("log", LOGS)
def test_the_download_link_gives_the_file_itself_from_this_site(log_page, server, log):
    link = log_page.locator("a.download", has_text=f"{log}.log")
    href = link.evaluate("a => a.href")
    assert href.startswith(f"{server}/") and link.get_attribute("download") is not None
    response = log_page.request.get(href)
    assert response.status == 200 and response.body() == log_file(log).read_bytes()
