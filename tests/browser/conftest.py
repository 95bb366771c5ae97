"""Browser tests: the built site, served from 127.0.0.1, in Debian's Chromium via Playwright.

No `playwright install`: the browser is the system's `chromium`. Where there is none the tests
skip with the reason, except when ABH_REQUIRE_BROWSER=1 (set by .ci/run), where a missing
browser is a failure: CI must run these, not skip them.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# The browser starts with the handout's flags (without the background-networking ones Chromium
# tries to reach Google's hosts at start, which a closed network refuses: noise, and slow).
from attention_by_hand.site.handout import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]


def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        reason = "no `chromium` on PATH (install Debian's chromium package)"
        if os.environ.get("ABH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required here but cannot run: {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def site(built_site) -> Path:
    """The workshop site, built once per session from workshop/ and the committed captures
    (tests/conftest.py: shared with tests/site/ and the other worker; read-only)."""
    out, code, printed = built_site
    assert code == 0, printed
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002
        pass


@pytest.fixture(scope="session")
def server(site) -> str:
    """The site on 127.0.0.1, any free port; yields its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@dataclass
class Watched:
    """A page plus everything that went wrong on it: console errors, failed or foreign requests."""

    page: object
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return self.console_errors + self.failed_requests + self.foreign_requests


# Any network request to a host other than 127.0.0.1 (file:, data:, blob: and about: are no
# network requests).
FOREIGN = re.compile(r"^(?:https?|wss?|ftp)://(?!127\.0\.0\.1(?:[:/]|$))", re.IGNORECASE)


def watch(page) -> Watched:
    """Record every problem of this page from now on.

    Any request to a host other than 127.0.0.1 is recorded and aborted, so a test can assert
    that a page works offline and fetches nothing from outside.
    """
    w = Watched(page)
    page.on("console", lambda m: w.console_errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: w.console_errors.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: w.failed_requests.append(f"failed: {r.url} ({r.failure})"))
    # A 404 is an answer, not a failed request, but for a site it is just as broken.
    page.on("response", lambda r: w.failed_requests.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)

    def refuse(route):
        w.foreign_requests.append(f"foreign: {route.request.url}")
        route.abort()

    # Only requests off 127.0.0.1 are routed (the pattern is matched inside Playwright's driver):
    # routing every request through this process would add a round trip to each of them.
    page.route(FOREIGN, refuse)
    return w


DESKTOP_WINDOW = {"width": 1200, "height": 900}


@pytest.fixture(scope="session")
def watching():
    """`watch`, for a fixture that opens pages of its own (a test file cannot import conftest)."""
    return watch


@pytest.fixture(scope="session")
def tab(browser):
    """One watched tab for the session's tests, for a reader who asked for reduced motion.

    A test gets this tab on a blank page, its problems forgotten: whatever it opens next is a
    new document with its own script state, as after a reader's click on a link, but the tab,
    its renderer and the HTTP cache are kept. A new tab per test cost about twice the CPU of a
    page load; on two cores that is most of what the browser tests spend. No page of the site
    keeps state in storage, so nothing else carries over.

    Reduced motion: the theme's smooth scrolling would make every click on an element below
    the fold wait about a second for the scroll to settle. `watched_in_motion` is the default
    reader, for the tests of the scrolling itself.

    The cache hides none of the problems recorded: a 404 or a refused request is not cached,
    and a script's errors happen on every load.
    """
    context = browser.new_context(viewport=DESKTOP_WINDOW, reduced_motion="reduce")
    yield watch(context.new_page())
    context.close()


@pytest.fixture
def watched(tab, request):
    """The session's tab, blank, in the window the test asks for (desktop by default)."""
    page = tab.page
    page.goto("about:blank")
    page.emulate_media(media="null")
    page.set_viewport_size(getattr(request, "param", None) or DESKTOP_WINDOW)
    for problems in (tab.console_errors, tab.failed_requests, tab.foreign_requests):
        problems.clear()
    yield tab
    for other in page.context.pages:  # any page the test opened besides
        if other is not page:
            other.close()


@pytest.fixture
def watched_in_motion(browser):
    """A fresh desktop page for a reader with the system's default motion: smooth scrolling."""
    context = browser.new_context(viewport=DESKTOP_WINDOW, reduced_motion="no-preference")
    yield watch(context.new_page())
    context.close()
