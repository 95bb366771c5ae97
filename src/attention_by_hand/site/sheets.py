"""Writing worksheets as files: one world's sheet and key, or a room of them, one world each.

    attention-by-hand worksheet [--world FILE.toml | --seed N] [--out DIR] [--paper a4|letter|both]
    attention-by-hand worksheet --room N [--first-seed S] [--out DIR] [--paper ...]

One world (the canonical one, a world file, or the world for pencils of a seed) writes into OUT:

    worksheet.html  worksheet-a4.pdf  worksheet-letter.pdf    the sheet: the world, then one exercise per page
    key.html        key-a4.pdf        key-letter.pdf          every box's answer and the log line that prints it
    world.toml                                                the world, to run: `run --world world.toml`

A room of N writes N worlds for pencils, seeds S, S+1, ..., S+N-1, one per learner:

    OUT/index.html                                the instructor's index: which seed is on which sheet, where its key is
    OUT/sheets/sheet-NN-seed-S.html, -a4.pdf, -letter.pdf, .toml     to hand out
    OUT/keys/key-NN-seed-S.html, -a4.pdf, -letter.pdf                to keep

Each world is run first (the canonical part, in a temporary folder, without figures: the key
reads only its index), so the key's answers and line numbers are the run's own. Everything a
command could refuse (a world file, a seed, the folder, a missing Chromium) is refused before
anything is written; every file is written atomically.

Left out: what a sheet says (worksheet.py), how it is printed (printing.py).
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from attention_by_hand.errors import UserError
from attention_by_hand.run.atomic import write_atomic
from attention_by_hand.run.pencil_worlds import MAX_SEED, pencil_world, world_comment
from attention_by_hand.run.world import RIVER_BANK, World, dump_world, load_world
from attention_by_hand.site import worksheet
from attention_by_hand.site.printing import PAPERS, Printer

__all__ = ["MAX_ROOM", "PAPERS", "WORKSHEET_PAGES", "Choice", "Written", "choose", "papers_of", "check_out", "run_index", "make_sheet",
           "canonical_files", "room_seeds", "write_one", "write_room"]

MAX_ROOM = 500  # a room, not a school: 500 sheets already take minutes to print
WORKSHEET_PAGES = 5  # the world, then four exercises: one page each
RUN_OUT = "my-run"  # the folder a sheet tells its learner to run the world into


@dataclass(frozen=True)
class Choice:
    """Which world a single sheet is about, and how the sheet names it."""

    world: World
    source: str  # "the canonical world", "a world for pencils, seed 7", "the world in my.toml"
    title: str
    comment: str  # the world file's heading comment


@dataclass(frozen=True)
class Written:
    """What a command wrote: the files (relative to OUT), the sheets, their pages, how long it took."""

    out: Path
    files: tuple[str, ...]
    sheets: int
    worksheet_pages: int
    key_pages: int
    seconds: float


def _whole(text: str, flag: str, low: int, high: int) -> int:
    """A whole number from the command line, within [low, high], or one line naming the flag."""
    try:
        number = int(text.strip())
    except ValueError:
        raise UserError(f"{flag} {text!r}: not a whole number") from None
    if not low <= number <= high:
        raise UserError(f"{flag} {number}: must be from {low:,} to {high:,}")
    return number


def choose(world_file: str | None, seed: str | None) -> Choice:
    """The world of a single sheet: a file, a seed's world for pencils, else the canonical one."""
    if world_file and seed is not None:
        raise UserError(f"{world_file}: --world and --seed each choose the world; give one of them")
    if world_file:
        world = load_world(world_file)
        worksheet.check_fits(world, world_file)  # now, before Chromium starts or the world runs
        name = Path(world_file).name
        return Choice(world, f"the world in {name}", f"Attention by hand: {name}", f"The world of {name}, as the worksheet read it.")
    if seed is not None:
        n = _whole(seed, "--seed", 0, MAX_SEED)
        return Choice(pencil_world(n), f"a world for pencils, seed {n}", f"Attention by hand: seed {n}", world_comment(n))
    return Choice(RIVER_BANK, "the canonical world", "Attention by hand: the canonical world", "The canonical world of the workshop.")


def papers_of(choice: str) -> tuple[str, ...]:
    return ("a4", "letter") if choice == "both" else (choice,)


def check_out(out: Path, flag: str = "--out") -> None:
    """Refuse an output folder that cannot be one (a file on its path)."""
    for step in (out, *out.parents):
        if step.exists():
            if not step.is_dir():
                raise UserError(f"{out}: {flag} must be a folder, and {step} is a file")
            break


def run_index(world: World) -> dict:
    """The index of the canonical part's run on `world`: made in a temporary folder, figures skipped."""
    from attention_by_hand import parts
    from attention_by_hand.run.part import RunContext

    with tempfile.TemporaryDirectory(prefix="abh-worksheet-") as folder:
        result = parts.default_part().run(RunContext(out=Path(folder), world=world, background=False, figures=False))
        return worksheet.read_index(result.index_path)


def make_sheet(world: World, source: str, title: str, world_file: str, index: dict | None = None) -> worksheet.Sheet:
    """The sheet of `world`, answered from `index`, the index of its run (else it is run now)."""
    worksheet.check_fits(world, source)
    command = f"attention-by-hand run --world {world_file} --out {RUN_OUT}"
    index = run_index(world) if index is None else index
    return worksheet.build_sheet(world, index, title=title, source=source, world_file=world_file, run_command=command)


def canonical_files(index: dict, printer, papers: tuple[str, ...]) -> dict[str, bytes]:
    """The files `attention-by-hand worksheet` writes for the canonical world, from its run's index.

    The site writes these (sphinxext/paper.py) from the captures it is built from, with no new run.
    """
    return _files(_single(choose(None, None), index), {paper: printer for paper in papers})[0]


@dataclass(frozen=True)
class _Job:
    """One sheet to print: the sheet, and the paths its files go to under OUT."""

    sheet: worksheet.Sheet
    sheet_stem: str
    key_stem: str
    world_path: str
    comment: str


def _ahead(make, items, depth: int = 2):
    """make(item) for each item, in order, computed by a helper thread up to `depth` items ahead.

    The helper runs the next worlds (NumPy, in this process) while Chromium prints the sheets
    before them (in its own processes): on two cores that overlap is most of a room's speed.
    """
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="worksheet-runs")
    pending: deque = deque()
    try:
        for item in items:
            pending.append(pool.submit(make, item))
            if len(pending) > depth:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _single(choice: Choice, index: dict | None = None) -> _Job:
    """The job of a single sheet: its files straight under OUT."""
    sheet = make_sheet(choice.world, choice.source, choice.title, "world.toml", index)
    return _Job(sheet, "worksheet", "key", "world.toml", choice.comment)


def _files(job: _Job, printers: dict[str, Printer]) -> tuple[dict[str, bytes], int]:
    """Every file of one job, by its path under OUT, and how many pages its key has.

    printers: paper -> the printer of that paper (one Chromium each: they print at the same time).
    """
    sheet_html, key_html = worksheet.render_worksheet(job.sheet), worksheet.render_key(job.sheet)
    files = {f"{job.sheet_stem}.html": sheet_html.encode("utf-8"), f"{job.key_stem}.html": key_html.encode("utf-8")}
    pdfs = {f"{job.sheet_stem}-{paper}.pdf": printer.pdf_later(sheet_html, paper, job.sheet.title, WORKSHEET_PAGES)
            for paper, printer in printers.items()}  # fmt: skip
    pdfs |= {f"{job.key_stem}-{paper}.pdf": printer.pdf_later(key_html, paper, f"the key of {job.sheet.title}")
             for paper, printer in printers.items()}  # fmt: skip
    files |= {name: future.result() for name, future in pdfs.items()}
    files[job.world_path] = dump_world(job.sheet.world, job.comment).encode("utf-8")
    key_pages = max((_pages(files[f"{job.key_stem}-{paper}.pdf"]) for paper in printers), default=0)
    return files, key_pages


@contextlib.contextmanager
def _printers(chromium: str, paper: str):
    """One started Printer per paper of `paper` ("both": A4 and Letter), closed at the end."""
    with contextlib.ExitStack() as stack:
        printers = {p: stack.enter_context(Printer(chromium)) for p in papers_of(paper)}
        for printer in printers.values():
            printer.start_later()  # Chromium starts while the first world runs
        yield printers


def _pages(pdf: bytes) -> int:
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(pdf)).pages)


def _write(out: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        write_atomic(out / name, data)


def write_one(out: Path, choice: Choice, paper: str, chromium: str) -> Written:
    """One world's sheet, key and world file into `out` (see the module docstring)."""
    started = time.perf_counter()
    check_out(out)
    with _printers(chromium, paper) as printers:
        files, key_pages = _files(_single(choice), printers)
    _write(out, files)  # only now: a sheet that failed leaves `out` as it was
    return Written(out, tuple(files), 1, WORKSHEET_PAGES, key_pages, time.perf_counter() - started)


def room_seeds(size: str, first_seed: str) -> list[int]:
    """The seeds of a room: --room N from --first-seed S, checked before anything is made."""
    n = _whole(size, "--room", 1, MAX_ROOM)
    first = _whole(first_seed, "--first-seed", 0, MAX_SEED)
    if first + n - 1 > MAX_SEED:
        raise UserError(f"--first-seed {first}: a room of {n} would need seeds up to {first + n - 1:,}, past {MAX_SEED:,}")
    return list(range(first, first + n))


def write_room(out: Path, seeds: list[int], paper: str, chromium: str) -> Written:
    """A room: one world for pencils per seed, its sheet and its key, and the instructor's index."""
    started = time.perf_counter()
    check_out(out)
    width = max(2, len(str(len(seeds))))

    def job(number: int) -> _Job:
        seed = seeds[number - 1]
        stem = f"{number:0{width}d}-seed-{seed}"
        world_path = f"sheets/sheet-{stem}.toml"
        title = f"Attention by hand: sheet {number} of {len(seeds)}, seed {seed}"
        sheet = make_sheet(pencil_world(seed), f"a world for pencils, seed {seed}", title, Path(world_path).name)
        return _Job(sheet, f"sheets/sheet-{stem}", f"keys/key-{stem}", world_path, world_comment(seed))

    entries, written, key_pages = [], [], 0
    with _printers(chromium, paper) as printers:
        for number, made in enumerate(_ahead(job, range(1, len(seeds) + 1)), start=1):
            files, pages = _files(made, printers)
            key_pages = max(key_pages, pages)
            _write(out, files)
            written.extend(files)
            entries.append({
                "number": number, "seed": seeds[number - 1], "world": made.sheet.world,
                "sheet": [name for name in files if name.startswith("sheets/")],
                "key": [name for name in files if name.startswith("keys/")],
            })  # fmt: skip
    index = worksheet.render_room(entries, papers_of(paper))
    write_atomic(out / "index.html", index.encode("utf-8"))
    return Written(out, ("index.html", *written), len(seeds), WORKSHEET_PAGES, key_pages, time.perf_counter() - started)
