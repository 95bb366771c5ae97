"""Printing a worksheet's HTML to PDF with the system's Chromium: measured first, the same bytes every time.

    with Printer(chromium) as printer:
        pdf = printer.pdf(html, "a4", what="the worksheet", pages=5)

Before it prints, Chromium lays the HTML out for the paper's printable area (print media, a
viewport of the paper less its margins, at CSS's 96 px per inch) and measures it: every `.page`
box must fit the paper, nothing may stick out of its page or out of the paper's width. A sheet
that does not fit is refused (`DoesNotFit`): that is a fault of the templates or of
worksheet.LIMITS, never of the learner. After printing, the PDF must have `pages` pages when
given: one page per `.page` box, so no exercise spilled onto a second sheet.

Chromium writes the time into every PDF (/CreationDate, /ModDate); both are set to one fixed
date, so the same HTML gives the same bytes (with the same Chromium). The PDF's title is the
HTML's <title>.

The browser starts on the first `pdf` call (or `start_later`). `CachedPrinter` keeps the PDFs in a
folder by a hash of what decides their bytes: the site's build reprints nothing that did not
change, and starts no browser then. Left out: what is printed (worksheet.py), which files
(sheets.py).
"""

from __future__ import annotations

import hashlib
import io
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from attention_by_hand.errors import UserError
from attention_by_hand.run.atomic import write_atomic
from attention_by_hand.site.handout import CHROMIUM_ARGS

__all__ = ["Paper", "PAPERS", "MARGIN_MM", "DoesNotFit", "Printer", "CachedPrinter", "fixed_dates", "print_identity", "chromium_or_none",
           "require_chromium"]

MARGIN_MM = 12  # every side; sheet.css's @page says the same for a browser's own print
PX_PER_MM = 96 / 25.4  # CSS pixels


@dataclass(frozen=True)
class Paper:
    """A paper size: its name for Chromium and its size in mm."""

    name: str
    width_mm: float
    height_mm: float

    @property
    def printable_px(self) -> tuple[float, float]:
        """The area inside the margins, in CSS pixels: (width, height)."""
        return ((self.width_mm - 2 * MARGIN_MM) * PX_PER_MM, (self.height_mm - 2 * MARGIN_MM) * PX_PER_MM)


PAPERS = {"a4": Paper("A4", 210.0, 297.0), "letter": Paper("Letter", 215.9, 279.4)}


class DoesNotFit(RuntimeError):
    """A sheet that Chromium measured as larger than its paper: a bug in the sheet's layout."""


# Returns what does not fit, in words ([] when all fits). Half a pixel of slack for rounding.
_MEASURE = """([width, height]) => {
    const problems = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > width + 0.5) problems.push(`the document is ${doc.scrollWidth}px wide, the paper ${width.toFixed(1)}px`);
    document.querySelectorAll('.page').forEach((page, i) => {
        const box = page.getBoundingClientRect();
        const name = page.id || `page ${i + 1}`;
        if (box.height > height + 0.5) problems.push(`${name} is ${box.height.toFixed(1)}px tall, the paper ${height.toFixed(1)}px`);
        for (const el of page.querySelectorAll('*')) {
            const r = el.getBoundingClientRect();
            if (r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5) {
                problems.push(`${name}: a ${el.tagName.toLowerCase()} sticks out of its page`);
                break;
            }
        }
    });
    return problems;
}"""


# Chromium's only varying bytes: the two dates of the document information, e.g.
# /CreationDate (D:20261201134732+00'00'). A date of the same length keeps every offset valid.
_DATE = re.compile(rb"/(CreationDate|ModDate) \(D:\d{14}[^)]*\)")
FIXED_DATE = b"D:20000101000000+00'00'"


def fixed_dates(pdf: bytes) -> bytes:
    """The PDF with both of Chromium's dates set to FIXED_DATE: the same HTML, the same bytes.

    Rewritten in place, byte for byte the same length, so the cross-reference table stays
    true (rewriting the whole file with pypdf gives the same result, ten times slower).
    """

    def fixed(m: re.Match) -> bytes:
        old = m.group(0)
        new = b"/" + m.group(1) + b" (" + FIXED_DATE + b")"
        if len(new) != len(old):
            raise ValueError(f"a PDF date of another length: {old!r}")
        return new

    out, n = _DATE.subn(fixed, pdf)
    if n != 2:
        raise ValueError(f"expected Chromium's two PDF dates, found {n}")
    return out


def print_identity(chromium: str) -> str:
    """What decides a PDF's bytes besides its HTML: this Chromium binary and this module's code."""
    binary = Path(chromium).resolve()
    stat = binary.stat()
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return f"{binary}:{stat.st_size}:{stat.st_mtime_ns}:{code}"


class Printer:
    """One Chromium, started on first use, that prints HTML to PDF, one document after another.

    Playwright's sync API runs in a thread of its own here: it refuses to start in a thread that
    already drives a browser (a test session, a caller's own Playwright), and its own thread
    leaves the caller's free (sheets.py runs the next worlds there while Chromium prints).
    """

    def __init__(self, chromium: str):
        self.chromium = chromium
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chromium")
        self._playwright = None
        self._browser = None
        self._page = None
        self._loaded: str | None = None  # the HTML in the tab: a second paper only lays it out again

    def __enter__(self) -> Printer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _call(self, action, *args):
        return self._thread.submit(action, *args).result()

    def start_later(self) -> None:
        """Start Chromium in the printer's thread now (it takes seconds), while this one goes on."""
        self._thread.submit(self._tab)

    def close(self) -> None:
        self._call(self._close)
        self._thread.shutdown()

    def measure(self, html: str, paper: str) -> list[str]:
        """Lay `html` out for `paper` and say what does not fit ([] when everything does)."""
        return self._call(self._measure, html, paper)

    def pdf(self, html: str, paper: str, what: str, pages: int | None = None) -> bytes:
        """`html` as a PDF on `paper` ("a4" or "letter"), measured first; refused if it does not fit.

        what: the document, for the message of a refusal; pages: the pages it must have.
        """
        return self.pdf_later(html, paper, what, pages).result()

    def pdf_later(self, html: str, paper: str, what: str, pages: int | None = None) -> Future:
        """`pdf`, queued: its future PDF. Two printers print at once (sheets.py: one per paper)."""
        return self._thread.submit(self._pdf, html, paper, what, pages)

    # --- in the printer's thread --------------------------------------------------------------

    def _pdf(self, html: str, paper: str, what: str, pages: int | None) -> bytes:
        from pypdf import PdfReader

        problems = self._measure(html, paper)
        if problems:
            raise DoesNotFit(f"{what} on {PAPERS[paper].name}: " + "; ".join(problems))
        pdf = fixed_dates(self._print(paper))
        if pages is not None and (printed := len(PdfReader(io.BytesIO(pdf)).pages)) != pages:
            raise DoesNotFit(f"{what} on {PAPERS[paper].name}: printed {printed} pages, expected {pages} (one per page box)")
        return pdf

    def _tab(self):
        if self._page is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(executable_path=self.chromium, args=CHROMIUM_ARGS)
            self._page = self._browser.new_page()
            self._page.emulate_media(media="print")
        return self._page

    def _close(self) -> None:
        if self._browser is not None:
            self._browser.close()
        if self._playwright is not None:
            self._playwright.stop()
        self._playwright = self._browser = self._page = self._loaded = None

    def _measure(self, html: str, paper: str) -> list[str]:
        page = self._tab()
        width, height = PAPERS[paper].printable_px
        page.set_viewport_size({"width": round(width), "height": round(height)})
        if html != self._loaded:
            page.set_content(html, wait_until="load")
            self._loaded = html
        return page.evaluate(_MEASURE, [width, height])

    def _print(self, paper: str) -> bytes:
        """The page last measured, printed: Chromium's own bytes, dates and all."""
        margin = f"{MARGIN_MM}mm"
        return self._tab().pdf(
            format=PAPERS[paper].name,
            margin={"top": margin, "right": margin, "bottom": margin, "left": margin},
            print_background=True,
        )


class CachedPrinter:
    """A Printer whose PDFs are kept in `folder`, named by a hash of their HTML, paper, expected
    pages and `print_identity`: the same request is answered from the folder, byte for byte."""

    KEEP = 16  # PDFs kept: the canonical sheet and key on two papers, several times over

    def __init__(self, chromium: str, folder: Path):
        self.printer = Printer(chromium)
        self.folder = Path(folder)
        self.identity = print_identity(chromium)

    def __enter__(self) -> CachedPrinter:
        return self

    def __exit__(self, *exc) -> None:
        self.printer.close()

    def pdf_later(self, html: str, paper: str, what: str, pages: int | None = None) -> Future:
        """`pdf`, as a future already done (Printer's interface)."""
        done: Future = Future()
        done.set_result(self.pdf(html, paper, what, pages))
        return done

    def pdf(self, html: str, paper: str, what: str, pages: int | None = None) -> bytes:
        key = hashlib.sha256(f"{self.identity}\n{paper}\n{pages}\n{html}".encode()).hexdigest()
        path = self.folder / f"{key}.pdf"
        if path.is_file():
            return path.read_bytes()
        pdf = self.printer.pdf(html, paper, what, pages)
        write_atomic(path, pdf)
        for old in sorted(self.folder.glob("*.pdf"), key=_age)[self.KEEP :]:
            old.unlink(missing_ok=True)  # another build may have removed it first
        return pdf


def _age(path: Path) -> float:
    """Seconds since `path` was written (a file another build just removed counts as oldest)."""
    try:
        return -path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


_PACKAGES = ("playwright", "pypdf", "jinja2")  # driving Chromium, reading its PDFs, the templates


def chromium_or_none() -> str | None:
    """The system's Chromium when it and the packages a worksheet needs are all here, else None."""
    try:
        return require_chromium()
    except UserError:
        return None


def require_chromium() -> str:
    """The system's Chromium, or one line saying what is missing to print a worksheet."""
    import shutil
    from importlib.util import find_spec

    path = shutil.which("chromium")
    if path is None:
        raise UserError("cannot print the worksheet: no `chromium` on PATH; install it with `sudo apt-get install chromium`")
    for package in _PACKAGES:
        if find_spec(package) is None:
            raise UserError(
                f"cannot print the worksheet: the Python package {package} is missing; "
                'install the site\'s packages with `.venv/bin/pip install -e ".[site]"`'
            )
    return path
