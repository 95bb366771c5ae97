"""Printed pages, as Chromium prints them to PDF: no text over text, no skip link, and the log on
the pages its lines need single-spaced. The PDF is read back with pypdf (pdfglyphs.py, whose own
reader of content streams is held here to pypdf's)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pytest
from pdfglyphs import glyphs, operations, overlapping
from pypdf import PdfReader
from pypdf.generic import ArrayObject, BooleanObject, ByteStringObject, ContentStream, DictionaryObject, NullObject, TextStringObject

LOG = Path(__file__).resolve().parents[2] / "captures" / "results.log"
# A4 with 1 cm margins, about what a browser's print dialog offers.
MARGIN_CM = 1
PAPER = {"format": "A4", "margin": {side: f"{MARGIN_CM}cm" for side in ("top", "right", "bottom", "left")}}
PX_PER_PT = 96 / 72  # CSS px are 1/96 inch, PDF points 1/72
PX_PER_CM = 96 / 2.54


@dataclass
class Printed:
    pdf: Path
    skip_text: str  # what the theme's "skip to content" link says, read from the page


@pytest.fixture(scope="module")
def printed(browser, server, tmp_path_factory):
    """printed(page): that page printed to PDF, once per page for the whole module."""
    folder = tmp_path_factory.mktemp("printed")
    context = browser.new_context()
    done: dict[str, Printed] = {}

    def get(page: str) -> Printed:
        if page not in done:
            p = context.new_page()
            p.goto(f"{server}/{page}.html", wait_until="load")
            p.evaluate("document.fonts.ready.then(() => true)")
            p.pdf(path=str(folder / f"{page}.pdf"), **PAPER)
            skip_text = p.evaluate("document.querySelector('.skip-to-content').textContent.trim()")
            done[page] = Printed(folder / f"{page}.pdf", skip_text)
            p.close()
        return done[page]

    yield get
    context.close()


def printable_px(pdf) -> tuple[float, float]:
    """Width and height, in CSS px, of the part of the PDF's first page inside the margins."""
    box = PdfReader(pdf).pages[0].mediabox
    margins = 2 * MARGIN_CM * PX_PER_CM
    return float(box.width) * PX_PER_PT - margins, float(box.height) * PX_PER_PT - margins


@pytest.mark.parametrize("page", ["module-2", "log"])
def test_no_printed_text_lands_on_other_text(printed, page):
    found = glyphs(printed(page).pdf)
    assert len(found) > 1000  # the reader saw the page's text at all
    assert overlapping(found)[:5] == []


def plain(value):
    """A pypdf operand as pdfglyphs.operations gives it: numbers as floats, names as text,
    strings as their bytes, arrays as lists, dictionaries as dicts."""
    if isinstance(value, TextStringObject):
        return value.original_bytes
    if isinstance(value, ByteStringObject):
        return bytes(value)
    if isinstance(value, (BooleanObject, NullObject)):
        return None if isinstance(value, NullObject) else bool(value)
    if isinstance(value, DictionaryObject):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (ArrayObject, list)):
        return [plain(v) for v in value]
    if isinstance(value, str):  # a name
        return str(value)
    return float(value)


def test_pdfglyphs_reads_every_operator_and_operand_of_a_printed_page_as_pypdf_does(printed):
    reader = PdfReader(printed("module-2").pdf)
    read = 0
    for number, page in enumerate(reader.pages):
        ours = operations(ContentStream(page.get_contents(), reader).get_data())
        theirs = [(plain(list(operands)), operator) for operands, operator in ContentStream(page.get_contents(), reader).operations]
        assert ours == theirs, number
        read += len(ours)
    assert read > 1000  # the pages' drawing was read at all


@pytest.mark.parametrize("page", ["module-2", "log"])
def test_the_skip_link_is_not_printed(printed, page):
    text = "".join(p.extract_text() for p in PdfReader(printed(page).pdf).pages)
    assert printed(page).skip_text and printed(page).skip_text not in text


def test_the_printed_log_takes_the_pages_its_lines_need_single_spaced(printed, watched, server):
    pdf = printed("log").pdf
    width, height = printable_px(pdf)
    # Lay the page out as on paper, to count the rows the log needs there: a long line wraps.
    p = watched.page
    p.set_viewport_size({"width": round(width), "height": round(height)})
    p.goto(f"{server}/log.html", wait_until="load")
    p.emulate_media(media="print")
    layout = p.evaluate(
        """(() => {
            const pres = Array.from(document.querySelectorAll('pre.results-log'));
            const rows = pres.flatMap(pre => Array.from(pre.querySelectorAll('.log-line')).map(line => {
                const range = document.createRange();
                range.selectNodeContents(line.lastChild);  // the line's text; its number is CSS
                return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size || 1;
            }));
            return {rows: rows.reduce((a, b) => a + b, 0), lines: rows.length, logs: pres.length,
                    lineHeight: parseFloat(getComputedStyle(pres[0]).lineHeight)};
        })()"""
    )
    logs = sorted(LOG.parent.glob("*.log"))  # every part's log is on the page
    assert layout["logs"] == len(logs)
    assert layout["lines"] == sum(len(log.read_text(encoding="utf-8").splitlines()) for log in logs)
    log_pages = layout["rows"] * layout["lineHeight"] / height
    # The logs' rows, one line-height each, plus at most one page for the title, the text around
    # the logs, each log's heading and download line, and the page's footer.
    assert len(PdfReader(pdf).pages) <= math.ceil(log_pages) + 1
