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

The page's content stream is read by `operations` here, not by pypdf's ContentStream: the same
operators and operands (tests/browser/test_print.py compares the two on a printed page), read
about four times faster, which is most of the seconds a handout's glyphs took. A page with an
inline image, which this reader does not parse, is left to pypdf.
"""

from __future__ import annotations

import re
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


# One token of a content stream (PDF 1.7, 7.2 and 7.3): a comment, a literal string's start, a
# hex string, a dictionary's or an array's bracket, a name, a number, or a keyword (an operator,
# true, false, null). Whitespace between them is skipped by the match's start.
_TOKEN = re.compile(
    rb"[\x00\t\n\x0c\r ]*(?:(%[^\r\n]*)|(\()|<([0-9A-Fa-f\x00\t\n\x0c\r ]*)>|(<<|>>|\[|\])"
    rb"|(/[^\x00\t\n\x0c\r ()<>\[\]{}/%]*)|([+-]?(?:\d+\.?\d*|\.\d+))|([^\x00\t\n\x0c\r ()<>\[\]{}/%]+))"
)
_COMMENT, _LITERAL, _HEX, _BRACKET, _NAME, _NUMBER, _KEYWORD = range(1, 8)  # _TOKEN's groups
_CONSTANTS = {b"true": True, b"false": False, b"null": None}
_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}
_OCTAL = b"01234567"


def _literal(data: bytes, i: int) -> tuple[bytes, int]:
    """The literal string whose "(" is just before `i`, and the index after its ")"."""
    out, depth = bytearray(), 1
    while True:
        c = data[i]
        i += 1
        if c == 0x5C:  # backslash
            e = data[i]
            i += 1
            if e in _ESCAPES:
                out += _ESCAPES[e]
            elif e in _OCTAL:
                j = i
                while j < i + 2 and data[j] in _OCTAL:
                    j += 1
                out.append(int(data[i - 1 : j], 8) & 0xFF)
                i = j
            elif e == 0x0D:  # a backslash before an end of line continues the string
                i += data[i] == 0x0A
            elif e != 0x0A:
                out.append(e)
        elif c == 0x28:
            depth += 1
            out.append(c)
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return bytes(out), i
            out.append(c)
        else:
            out.append(c)


class _InlineImage(Exception):
    """The stream holds an inline image (BI ... ID ... EI), whose data this reader does not parse."""


def operations(data: bytes) -> list[tuple[list, bytes]]:
    """(operands, operator) for each operator of a content stream, as pypdf's ContentStream gives
    them: numbers as floats, names as text with their slash, strings as bytes, arrays as lists."""
    ops: list[tuple[list, bytes]] = []
    stack: list[list] = [[]]  # the operands, then one list for each array or dictionary open
    i, n = 0, len(data)
    match, hexless, blank = _TOKEN.match, re.compile(rb"[\x00\t\n\x0c\r ]").sub, b"\x00\t\n\x0c\r "
    while i < n:
        m = match(data, i)
        if m is None:
            if data[i:].strip(blank) == b"":
                break
            raise ValueError(f"content stream unreadable at byte {i}: {data[i : i + 20]!r}")
        i = m.end()
        kind, token = m.lastindex, m.group(m.lastindex)
        if kind == _NUMBER:
            stack[-1].append(float(token))
        elif kind == _KEYWORD:
            if token in _CONSTANTS:
                stack[-1].append(_CONSTANTS[token])
            elif token == b"BI":
                raise _InlineImage
            else:
                ops.append((stack[0], token))
                stack[0] = []
        elif kind == _NAME:
            if b"#" in token:  # #xx: a byte by its two hex digits
                token = re.sub(rb"#([0-9A-Fa-f]{2})", lambda h: bytes.fromhex(h.group(1).decode()), token)
            stack[-1].append(token.decode("latin-1"))
        elif kind == _HEX:
            digits = hexless(b"", token)
            stack[-1].append(bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode()))
        elif kind == _LITERAL:
            value, i = _literal(data, i)
            stack[-1].append(value)
        elif kind == _BRACKET:
            if token in (b"[", b"<<"):
                stack.append([])
            else:
                closed = stack.pop()
                stack[-1].append(closed if token == b"]" else dict(zip(closed[::2], closed[1::2])))
        # else a comment
    return ops


def glyphs(path: Path) -> list[Glyph]:
    """The core box of every glyph shown on every page of the PDF at `path`."""
    reader = PdfReader(path)
    found: list[Glyph] = []
    for number, page in enumerate(reader.pages):
        fonts = {name: _Font(font) for name, font in page["/Resources"].get("/Font", {}).items()}
        stream = ContentStream(page.get_contents(), reader)
        try:
            ops = operations(stream.get_data())
        except _InlineImage:
            ops = stream.operations
        found.extend(_page_glyphs(number, ops, fonts))
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
