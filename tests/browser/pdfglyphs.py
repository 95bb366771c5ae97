"""Where each glyph of a PDF that Chromium printed lands on its page, read with pypdf.

Chromium writes text as BT ... ET blocks of Tf, Tm, Td and Tj, in Type0 fonts (two-byte glyph
ids, widths in the font's /W) and, for web fonts such as the math font, Type3 fonts (one-byte
codes, /Widths in glyph space). This follows those operators, and the rest of the text state
for good measure, to give each glyph a box on the page: enough to tell whether two pieces of
text print over each other. The box is the glyph's core, not its ink: its advance narrowed by
a sixth on each side, and from 0.1 to 0.6 of the font size above the baseline, so that letters
that merely touch (kerning, a subscript against its base) are not counted as overlapping.

Left out: text inside form XObjects (Chromium draws text in the page's own stream), vertical
writing, and text drawn as paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pypdf import PdfReader
from pypdf.generic import ContentStream

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """m x n, in PDF's row-vector convention: apply m first, then n."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s, e * p + f * r + t, e * q + f * s + u)


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return x * a + y * c + e, x * b + y * d + f


@dataclass(frozen=True)
class Glyph:
    """One glyph's core box on its page, in PDF points, y measured up from the bottom."""

    page: int
    x0: float
    x1: float
    y0: float
    y1: float

    def overlaps(self, other: Glyph) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1


class _Font:
    """How wide each code of one font is, in text space per unit of font size."""

    def __init__(self, font):
        font = font.get_object()
        self.two_byte = font["/Subtype"] == "/Type0"
        self.widths: dict[int, float] = {}
        if self.two_byte:
            cid_font = font["/DescendantFonts"][0].get_object()
            self.default = float(cid_font.get("/DW", 1000)) / 1000
            w = list(cid_font.get("/W", []))
            i = 0
            while i < len(w):  # /W is [first [w1 w2 ...]] or [first last w], repeated
                first = int(w[i])
                if isinstance(w[i + 1].get_object(), list):
                    for k, width in enumerate(w[i + 1].get_object()):
                        self.widths[first + k] = float(width) / 1000
                    i += 2
                else:
                    for code in range(first, int(w[i + 1]) + 1):
                        self.widths[code] = float(w[i + 2]) / 1000
                    i += 3
        else:
            # Type3 widths are in glyph space, which its /FontMatrix maps to text space.
            scale = float(font["/FontMatrix"][0]) if font["/Subtype"] == "/Type3" else 1 / 1000
            first = int(font.get("/FirstChar", 0))
            for k, width in enumerate(font.get("/Widths", [])):
                self.widths[first + k] = float(width) * scale
            self.default = 0.0

    def codes(self, data: bytes) -> list[int]:
        if self.two_byte:
            return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data) - 1, 2)]
        return list(data)

    def width(self, code: int) -> float:
        return self.widths.get(code, self.default)


def glyphs(path: Path) -> list[Glyph]:
    """The core box of every glyph shown on every page of the PDF at `path`."""
    reader = PdfReader(path)
    found: list[Glyph] = []
    for number, page in enumerate(reader.pages):
        fonts = {name: _Font(font) for name, font in page["/Resources"].get("/Font", {}).items()}
        found.extend(_page_glyphs(number, ContentStream(page.get_contents(), reader).operations, fonts))
    return found


def _page_glyphs(number: int, operations, fonts: dict[str, _Font]) -> list[Glyph]:
    out: list[Glyph] = []
    ctm, stack = IDENTITY, []
    tm = tlm = IDENTITY
    font, size, char_space, word_space, h_scale, leading, rise = None, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0

    def show(string) -> None:
        nonlocal tm
        # pypdf reads a string as bytes, or as text that keeps its bytes in original_bytes.
        data = string.original_bytes if hasattr(string, "original_bytes") else bytes(string)
        for code in font.codes(data):
            advance = font.width(code) * size
            to_page = multiply(tm, ctm)
            xs, ys = zip(
                *(apply(to_page, x * h_scale, rise + y * size) for x in (advance / 6, advance * 5 / 6) for y in (0.1, 0.6))
            )
            out.append(Glyph(number, min(xs), max(xs), min(ys), max(ys)))
            spacing = char_space + (word_space if code == 32 and not font.two_byte else 0.0)
            tm = multiply((1.0, 0.0, 0.0, 1.0, (advance + spacing) * h_scale, 0.0), tm)

    def move(tx: float, ty: float) -> None:
        nonlocal tm, tlm
        tm = tlm = multiply((1.0, 0.0, 0.0, 1.0, tx, ty), tlm)

    for operands, operator in operations:
        op = operator.decode("latin-1")
        if op == "q":
            stack.append(ctm)
        elif op == "Q":
            ctm = stack.pop()
        elif op == "cm":
            ctm = multiply(tuple(float(v) for v in operands), ctm)
        elif op == "BT":
            tm = tlm = IDENTITY
        elif op == "Tf":
            font, size = fonts[operands[0]], float(operands[1])
        elif op == "Tc":
            char_space = float(operands[0])
        elif op == "Tw":
            word_space = float(operands[0])
        elif op == "Tz":
            h_scale = float(operands[0]) / 100
        elif op == "TL":
            leading = float(operands[0])
        elif op == "Ts":
            rise = float(operands[0])
        elif op == "Tm":
            tm = tlm = tuple(float(v) for v in operands)
        elif op in ("Td", "TD"):
            if op == "TD":
                leading = -float(operands[1])
            move(float(operands[0]), float(operands[1]))
        elif op == "T*":
            move(0.0, -leading)
        elif op == "Tj":
            show(operands[0])
        elif op == "'":
            move(0.0, -leading)
            show(operands[0])
        elif op == '"':
            word_space, char_space = float(operands[0]), float(operands[1])
            move(0.0, -leading)
            show(operands[2])
        elif op == "TJ":
            for item in operands[0]:
                if isinstance(item, (bytes, str)):
                    show(item)
                else:  # a number: move back by thousandths of the font size
                    tm = multiply((1.0, 0.0, 0.0, 1.0, -float(item) / 1000 * size * h_scale, 0.0), tm)
    return out


def overlapping(found: list[Glyph]) -> list[tuple[Glyph, Glyph]]:
    """Every pair of glyph cores on the same page that overlap (a sweep along x)."""
    pairs = []
    active: list[Glyph] = []
    for glyph in sorted(found, key=lambda g: (g.page, g.x0)):
        active = [a for a in active if a.page == glyph.page and a.x1 > glyph.x0]
        pairs.extend((a, glyph) for a in active if a.overlaps(glyph))
        active.append(glyph)
    return pairs
