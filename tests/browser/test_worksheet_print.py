"""The printed worksheet (sheets.py, printing.py): PDFs on A4 and Letter, read back with pypdf.

One exercise per page, nothing cut (measured in Chromium before printing, and the page count
checked after), boxes large enough to write in, the same bytes for the same seed, a room with its
index, and the site's canonical worksheet: the very files the command writes. What is expected
comes from the templates' page boxes, the run's index and pypdf, not from the printer's account.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from attention_by_hand.cli import main
from attention_by_hand.run.pencil_worlds import pencil_world
from attention_by_hand.run.world import World, load_world
from attention_by_hand.site import printing, sheets, worksheet

pytestmark = pytest.mark.slow  # prints several sheets: starts first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
INDEX = json.loads((ROOT / "captures" / "results.index.json").read_text(encoding="utf-8"))
PT_PER_MM = 72 / 25.4
SIZES_MM = {"a4": (210, 297), "letter": (215.9, 279.4)}
HEADINGS = ("1. Dot products", "2. Softmax", "3. The weighted sum", "4. The wired head")


@pytest.fixture(scope="module")
def chromium(browser) -> str:
    """The system's Chromium; `browser` skips, or fails where the browser is required, without one."""
    return shutil.which("chromium")


@pytest.fixture(scope="module")
def canonical(tmp_path_factory, chromium) -> Path:
    """`attention-by-hand worksheet` on the canonical world, both papers."""
    out = tmp_path_factory.mktemp("canonical")
    sheets.write_one(out, sheets.choose(None, None), "both", chromium)
    return out


@pytest.fixture(scope="module")
def seed_twice(tmp_path_factory, chromium) -> tuple[Path, Path, str]:
    """Seed 7's sheet written twice, into two folders: by the command (and what it said), then again."""
    one, two = tmp_path_factory.mktemp("seed-7-one"), tmp_path_factory.mktemp("seed-7-two")
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        assert main(["worksheet", "--seed", "7", "--out", str(one)]) == 0
    sheets.write_one(two, sheets.choose(None, "7"), "both", chromium)
    return one, two, said.getvalue()


def pages(pdf: Path) -> list:
    return PdfReader(pdf).pages


# --- the PDFs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_worksheet_pdf_has_the_world_then_one_page_per_exercise(canonical, paper):
    texts = [page.extract_text() for page in pages(canonical / f"worksheet-{paper}.pdf")]
    assert len(texts) == 1 + len(HEADINGS)
    assert "The embeddings" in texts[0] and not any(h in texts[0] for h in HEADINGS)
    for text, heading in zip(texts[1:], HEADINGS):
        assert [h for h in HEADINGS if h in text] == [heading]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_page_is_of_its_paper(canonical, paper):
    width, height = (mm * PT_PER_MM for mm in SIZES_MM[paper])
    for name in ("worksheet", "key"):
        for page in pages(canonical / f"{name}-{paper}.pdf"):
            # Chromium sizes the page in whole CSS pixels: A4 comes out 596 x 843 pt, not 595.3 x 841.9.
            assert abs(float(page.mediabox.width) - width) < 1.5 and abs(float(page.mediabox.height) - height) < 1.5


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_each_exercise_page_shows_all_its_boxes(canonical, paper):
    # A box's number is printed in its corner: a page cut short would lose the last ones.
    sheet = canonical_sheet()
    texts = [page.extract_text() for page in pages(canonical / f"worksheet-{paper}.pdf")]
    for exercise, text in zip(sheet.exercises, texts[1:]):
        numbers = re.findall(r"\b\d\.\d{1,2}\b", text)
        assert [b.number for b in exercise.blanks if b.number not in numbers] == []


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_key_pdf_prints_every_answer(canonical, paper):
    text = "".join(page.extract_text() for page in pages(canonical / f"key-{paper}.pdf"))
    for blank in canonical_sheet().blanks:
        assert blank.answer.text in text, blank


def canonical_sheet() -> worksheet.Sheet:
    choice = sheets.choose(None, None)
    return sheets.make_sheet(choice.world, choice.source, choice.title, "world.toml", INDEX)


def test_the_same_seed_gives_the_same_bytes_pdfs_included(seed_twice):
    one, two, _ = seed_twice
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir())
    assert {"worksheet-a4.pdf", "worksheet-letter.pdf", "key-a4.pdf", "key-letter.pdf", "world.toml"} <= set(names)
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_a_pdf_carries_no_date_of_its_printing(seed_twice):
    data = (seed_twice[0] / "worksheet-a4.pdf").read_bytes()
    dates = re.findall(rb"/(?:CreationDate|ModDate) \((D:[^)]*)\)", data)
    assert dates == [printing.FIXED_DATE] * 2


def test_the_world_file_beside_the_sheet_is_the_seeds_world(seed_twice):
    assert load_world(seed_twice[0] / "world.toml") == pencil_world(7)


# --- measured before printing ------------------------------------------------------------------


def biggest_world(letter: str) -> World:
    """A world at every limit of worksheet.LIMITS, its names as long as allowed, of one wide letter."""
    n = worksheet.LIMITS["name"]

    def name(i: int, first: str = letter) -> str:
        return (first * n)[: n - 1] + str(i)

    axes = tuple(name(i) for i in range(worksheet.LIMITS["axes"]))
    channels = tuple(name(i, "c") for i in range(worksheet.LIMITS["channels"]))
    words = [name(i, letter.upper()) for i in range(worksheet.LIMITS["words"])]
    length = worksheet.LIMITS["sentence"]
    rows = {w: tuple(((i * 7 + j * 3) % 10) / 10 for j in range(len(axes))) for i, w in enumerate(words)}
    sentences = (tuple(words[: length - 1]) + (words[-1],), tuple(words[1:length]) + (words[-1],))
    return World(axes, channels, sentences, rows, tuple((1.0, 0.0, 2.0) for _ in axes), tuple((0.0, 1.0, 1.0) for _ in axes))


@pytest.fixture(scope="module")
def printer(chromium):
    with printing.Printer(chromium) as p:
        yield p


@pytest.mark.parametrize("letter", ["w", "m"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_world_at_every_limit_fits_every_page_and_prints_five_pages(printer, letter, paper):
    world = biggest_world(letter)
    worksheet.check_fits(world, "the biggest world")  # at the limits, not past them
    sheet = sheets.make_sheet(world, "the biggest world", "Attention by hand: the biggest world", "world.toml")
    html = worksheet.render_worksheet(sheet)
    assert printer.measure(html, paper) == []
    assert len(PdfReader(io.BytesIO(printer.pdf(html, paper, "the biggest world", pages=5))).pages) == 5
    assert printer.measure(worksheet.render_key(sheet), paper) == []


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize(
    "extra, says",
    [
        ('<div style="height: 300mm">a long answer</div>', "tall"),
        ('<div style="width: 400mm">a wide one</div>', "wide"),
    ],
)
def test_a_sheet_that_would_be_cut_is_refused_before_printing(printer, paper, extra, says):
    html = worksheet.render_worksheet(canonical_sheet()).replace('<div class="scratch">', extra + '<div class="scratch">', 1)
    with pytest.raises(printing.DoesNotFit, match=says):
        printer.pdf(html, paper, "a sheet with too much on it", pages=5)


def test_every_box_is_large_enough_to_write_in_as_printed(printer):
    printer.measure(worksheet.render_worksheet(canonical_sheet()), "a4")  # lays the sheet out for A4, print media
    sizes = printer._call(lambda: printer._tab().eval_on_selector_all(".blank", "els => els.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])"))
    px_per_mm = printing.PX_PER_MM
    assert len(sizes) == len(canonical_sheet().blanks)
    assert min(w for w, _ in sizes) >= 25 * px_per_mm and min(h for _, h in sizes) >= 10 * px_per_mm


# --- a room --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def room(tmp_path_factory, chromium) -> Path:
    out = tmp_path_factory.mktemp("room")
    sheets.write_room(out, sheets.room_seeds("3", "41"), "a4", chromium)
    return out


def test_a_room_writes_a_sheet_a_world_file_and_a_key_per_seed(room):
    for number, seed in enumerate((41, 42, 43), start=1):
        stem = f"{number:02d}-seed-{seed}"
        for name in (f"sheets/sheet-{stem}.html", f"sheets/sheet-{stem}-a4.pdf", f"keys/key-{stem}.html", f"keys/key-{stem}-a4.pdf"):
            assert (room / name).is_file(), name
        assert load_world(room / f"sheets/sheet-{stem}.toml") == pencil_world(seed)
        assert len(pages(room / f"sheets/sheet-{stem}-a4.pdf")) == 5
    assert not list(room.rglob("*letter*"))


def test_the_rooms_index_says_which_seed_is_on_which_sheet_and_links_every_file(room):
    index = (room / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'data-sheet="(\d+)" data-seed="(\d+)"', index) == [("1", "41"), ("2", "42"), ("3", "43")]
    links = re.findall(r'href="([^"]+)"', index)
    assert len(links) == 3 * 5  # per sheet: HTML, PDF, world file; key: HTML, PDF
    assert all((room / link).is_file() for link in links)


def test_a_rooms_key_has_the_answers_of_the_same_seed_alone(room):
    choice = sheets.choose(None, "42")
    alone = worksheet.render_key(sheets.make_sheet(choice.world, choice.source, choice.title, "world.toml"))
    answers = re.compile(r'data-name="([\w.]+)" data-line="(\d+)">.*?<td class="answer">([^<]*)</td>', re.S)
    assert answers.findall((room / "keys/key-02-seed-42.html").read_text()) == answers.findall(alone)


def test_the_command_prints_what_it_wrote(seed_twice):
    one, _, said = seed_twice
    assert said.startswith(f"wrote {one}/: the worksheet on a world for pencils, seed 7 (5 pages, A4 and Letter), its key")
    assert {p.name for p in one.iterdir()} == {
        "worksheet.html", "worksheet-a4.pdf", "worksheet-letter.pdf", "key.html", "key-a4.pdf", "key-letter.pdf", "world.toml",
    }  # fmt: skip


# --- the site ------------------------------------------------------------------------------------


def test_the_sites_canonical_worksheet_is_the_commands_byte_for_byte(site, canonical):
    written = sorted(p.name for p in canonical.iterdir())
    assert sorted(p.name for p in (site / "worksheet").iterdir()) == written
    for name in written:
        assert (site / "worksheet" / name).read_bytes() == (canonical / name).read_bytes(), name


def test_the_paper_page_links_files_that_are_in_the_site(site):
    page = (site / "paper.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="(worksheet/[^"#]+)"', page))
    assert links == {f"worksheet/{n}" for n in ("worksheet-a4.pdf", "worksheet-letter.pdf", "worksheet.html", "world.toml",
                                               "key-a4.pdf", "key-letter.pdf", "key.html")}  # fmt: skip
    assert all((site / link).is_file() for link in links)


def test_the_paper_page_keeps_its_key_closed_with_the_runs_answers(site):
    page = (site / "paper.html").read_text(encoding="utf-8")
    key = page[page.index('<details class="answer worksheet-key">') : page.index("</details>")]
    assert "<details" in key and " open" not in key.split(">", 1)[0]
    rows = re.findall(r'<tr data-name="([\w.]+)">.*?<span class="run-value">([^<]*)</span>.*?href="log\.html#L(\d+)"', key)
    assert [(name, text, int(line)) for name, text, line in rows] == [
        (b.answer.name, INDEX["values"][b.answer.name]["text"], b.answer.line) for b in canonical_sheet().blanks
    ]


@pytest.mark.parametrize("page", ["index.html", "instructor.html"])
def test_the_index_and_the_instructors_page_link_the_paper_page(site, page):
    assert 'href="paper.html"' in (site / page).read_text(encoding="utf-8")


def test_the_paper_page_opens_its_key_on_a_click(watched, server):
    page = watched.page
    page.goto(f"{server}/paper.html")
    key = page.locator("details.worksheet-key")
    assert not key.evaluate("d => d.open")
    key.locator("summary").click()
    assert key.evaluate("d => d.open")
    assert page.locator("table.worksheet-key-table .run-value").first.is_visible()
    assert watched.problems() == []
