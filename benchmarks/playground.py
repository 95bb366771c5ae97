#!/usr/bin/env python3
"""Measure how long the playground takes to answer one edit, in a real browser.

    python benchmarks/playground.py           # print the table
    python benchmarks/playground.py --write   # also write benchmarks/results/playground.md

The site is built into a temporary folder and served on 127.0.0.1; Debian's Chromium opens the
playground and 100 scripted edits are made, the way a learner makes them (a number typed into
a cell, a switch flipped, a test sentence clicked). The page times itself: each update's
performance.now() span covers the recompute (math.js), the redraw (view.js) and the layout the
browser would do before the next frame, and main.js keeps them in
window.AttentionPlayground.timings. The budget is one frame at 60 Hz, 16 ms, for the median.

Two worlds: the canonical one (3-word sentences) and the largest the page allows (12 words,
an 8-word sentence); each also with Chromium's CPU slowed 4x, roughly a modest phone.
A benchmark reports; it asserts nothing. Chromium rounds performance.now() to 0.1 ms.
"""

from __future__ import annotations

import functools
import http.server
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

from benchlib import Parser, RESULTS, ROOT, write

RESULT = RESULTS / "playground.md"
EDITS = 100
BUDGET_MS = 16.0  # one frame at 60 Hz
CHROMIUM_ARGS = ["--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-gpu"]
EXTRA_WORDS = ["stream", "loan", "shore", "cash", "mud", "vault", "reed", "coin"]  # 4 + 8 = 12, the page's limit


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def edits(page, axes: list[str], words: list[str]) -> None:
    """EDITS edits: mostly numbers typed into cells, every tenth a switch or a sentence."""
    for n in range(EDITS):
        if n % 10 == 9:
            page.get_by_label("causal mask").set_checked(n % 20 == 9)
        elif n % 10 == 4:
            page.locator(f"[data-test-sentence='{n // 10 % 2}']").click()
        else:
            word, axis = words[n % len(words)], axes[n % len(axes)]
            page.get_by_label(f"{word}, {axis}", exact=True).fill(f"{(n % 7) / 10 + 0.05:.2f}")


def measure(browser, url: str, large: bool, slowdown: int) -> list[float]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("document.getElementById('playground').dataset.ready === 'true'")
    words = ["the", "river", "money", "bank"]
    if large:
        for word in EXTRA_WORDS:
            page.get_by_label("Add a word").fill(word)
            page.get_by_role("button", name="Add word").click()
        words += EXTRA_WORDS
        page.get_by_label("Or type a sentence").fill("the river " + " ".join(EXTRA_WORDS[:5]) + " bank")
        page.get_by_role("button", name="Show", exact=True).click()
    page.get_by_label("the wired head").check()
    if slowdown > 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
    before = page.evaluate("window.AttentionPlayground.timings.length")
    edits(page, ["water", "money", "place", "filler"], words)
    timings = page.evaluate(f"window.AttentionPlayground.timings.slice({before})")
    context.close()
    return timings


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = Parser(prog="playground.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write the table to {RESULT.relative_to(ROOT)}")
    parser.add_argument("--site", type=Path, help="an already built site to measure (default: build workshop/ now)")
    args = parser.parse_args()

    chromium = shutil.which("chromium")
    if chromium is None:
        print("no `chromium` on PATH (install Debian's chromium package)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    from attention_by_hand.site.website import build_site

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or Path(tmp) / "site"
        if args.site is None:
            code, printed = build_site(ROOT / "workshop", site, ROOT / "captures")
            if code != 0:
                print(printed, file=sys.stderr)
                return 1
        httpd, base = serve(site)
        rows = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            version = browser.version
            for large, label in ((False, "canonical world, 3-word sentence"), (True, "12 words, 8-word sentence")):
                for slowdown in (1, 4):
                    t = measure(browser, f"{base}/playground.html", large, slowdown)
                    rows.append((label, slowdown, len(t), statistics.median(t), percentile(t, 0.95), max(t)))
            browser.close()
        httpd.shutdown()
        httpd.server_close()

    lines = [
        f"Measured on {os.cpu_count()} cores, Chromium {version}, {platform.system()}; {EDITS} scripted edits per row "
        f"(median, 95th percentile, max of the page's own timings; budget {BUDGET_MS:.0f} ms = one frame at 60 Hz):",
        "",
        "| world | CPU | updates | median | p95 | max |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, slowdown, count, median, p95, top in rows:
        cpu = "as is" if slowdown == 1 else f"{slowdown}x slower"
        lines.append(f"| {label} | {cpu} | {count} | {median:.1f} ms | {p95:.1f} ms | {top:.1f} ms |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        heading = "# Playground: time per update\n\n`python benchmarks/playground.py --write`\n\n"
        write(RESULT, heading + table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
