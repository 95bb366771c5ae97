"""A room at once: `attention-by-hand lab check N --room FOLDER` checks every learner's file in a
folder and writes one table for the instructor.

Each file (`*.py`, `*.ipynb`) is checked exactly as `lab check N FILE` checks it (runner.py: its own
child process, the same time, memory and output limits), inside the sandbox (sandbox.py), two at a
time on two cores. A file that is broken, endless or hostile costs only its own row. Written, in
the folder given by --out (default: the current one):

    room-lab-NN.csv           one row per file: its result, then each function's verdict ("ok" or the hint)
    room-lab-NN-summary.csv   which mistakes how many learners made, most common first
    room-lab-NN.html          both tables in one page that opens offline (no script, no link outside)

A learner who made one mistake in three checks is counted once for it.

Left out: judging (verdict.py), the sandbox itself (sandbox.py), the command line (cli.py).
"""

from __future__ import annotations

import csv
import html
import io
import re
import multiprocessing
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from attention_by_hand.errors import UserError
from attention_by_hand.lab.registry import Lab, get_lab
from attention_by_hand.run.atomic import write_atomic

__all__ = ["Row", "learner_files", "check_room", "summary", "csv_text", "summary_csv_text", "html_text", "WORKERS"]

WORKERS = 2  # files checked at once: one per core of the workshop's machines
SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Row:
    """One learner's file: its result, each function's verdict, and the mistakes it counts for."""

    file: str
    result: str  # "passed", "failed" or "not checked"
    passed: int
    failed: int
    functions: dict[str, str]  # function -> "ok", the first failing check's hint, or "" (not reached)
    mistakes: tuple[tuple[str, str], ...]  # (key, words) of each mistake, once per learner
    note: str = ""  # why the file could not be checked, and what it tried that the sandbox stopped


def learner_files(folder: Path) -> list[Path]:
    """The learners' files in `folder`, sorted by name; a UserError when there are none."""
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder" if not folder.exists() else f"{folder}: not a folder")
    files = sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES and p.is_file() and not p.name.startswith("."))
    if not files:
        raise UserError(f"{folder}: no learner's file in it (*.py or *.ipynb)")
    return files


def _row(path: Path, lab: Lab, run) -> Row:
    from attention_by_hand.lab.sandbox import attempt

    functions = {name: "" for name in lab.functions}
    mistakes: dict[str, str] = {}
    for result in run.results:
        function = result.label.split(":", 1)[0]
        if result.passed:
            functions[function] = functions[function] or "ok"
            continue
        if functions.get(function) in ("", "ok"):
            functions[function] = result.hint
        # One mistake, one key, whichever function's check showed it (a head whose weights are
        # unscaled fails the weights' check and the head's, for one mistake).
        if result.through:  # counted once, at the function it is wrong through (helped.py)
            continue
        if result.mistake and result.mistake.split(": ", 1)[0] in functions:
            key = words = result.mistake  # found by the mutation engine: "function: change"
        elif result.mistake:
            key, words = result.mistake, f"{function}: {result.hint}"
        elif result.mended:  # the same words for the same mend in every file (mend_words.py)
            key = words = f"{function}: {result.mended}"
        else:
            key, words = f"{function}: not named", f"{function}: a wrong output that no known mistake explains"
        mistakes.setdefault(key, words)
    note = ""
    if run.failure:
        tried = attempt(run.failure)
        note = run.failure + (f" ({tried})" if tried else "")
        kind = tried or re.sub(r", (line|cell) \d+", "", run.failure.split(":")[0].split(" (")[0])
        mistakes.setdefault(f"not checked: {kind}", f"could not be checked: {kind}")
    result = "not checked" if run.failure else "passed" if run.failed == 0 else "failed"
    return Row(path.name, result, run.passed, run.failed, functions, tuple(mistakes.items()), note)


def _check_one(path: Path, lab: Lab, limits, seed: int, sandboxed: bool) -> Row:
    from attention_by_hand.lab.commands import check_learner
    from attention_by_hand.lab.verdict import CheckRun

    try:
        run = check_learner(path, lab, limits=limits, seed=seed, sandboxed=sandboxed)
    except UserError as error:
        run = CheckRun(failure=str(error))
    except Exception as error:  # noqa: BLE001 - one file's surprise costs its own row, not the room
        run = CheckRun(failure=f"the checker failed on this file ({type(error).__name__}: {error}); please report it")
    return _row(path, lab, run)


def summary(rows: list[Row]) -> list[tuple[str, int, list[str]]]:
    """(mistake, how many learners, which files), most common first, then by name."""
    counts: Counter[str] = Counter()
    words: dict[str, str] = {}
    files: dict[str, list[str]] = {}
    for row in rows:
        for key, said in row.mistakes:
            counts[key] += 1
            words.setdefault(key, said)
            files.setdefault(key, []).append(row.file)
    ordered = sorted(counts, key=lambda k: (-counts[k], words[k]))
    return [(words[k], counts[k], files[k]) for k in ordered]


def _table(rows: list[Row], functions: list[str]) -> list[list[str]]:
    header = ["file", "result", "passed", "failed", *functions, "note"]
    body = [[r.file, r.result, str(r.passed), str(r.failed), *(r.functions.get(f, "") for f in functions), r.note] for r in rows]
    return [header, *body]


def _csv(table: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(table)
    return out.getvalue()


def csv_text(rows: list[Row], functions: list[str]) -> str:
    return _csv(_table(rows, functions))


def summary_csv_text(rows: list[Row]) -> str:
    return _csv([["mistake", "learners", "files"]] + [[m, str(n), " ".join(f)] for m, n, f in summary(rows)])


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
table { border-collapse: collapse; margin-bottom: 2rem; font-size: 0.9rem; }
th, td { border: 1px solid #bbb; padding: 0.3rem 0.5rem; vertical-align: top; text-align: left; max-width: 28rem; }
th { background: #eee; }
td.ok { background: #e6f4e6; } td.failed { background: #fbe9e7; } td.not { background: #fff3cd; }
"""


def html_text(rows: list[Row], functions: list[str], title: str) -> str:
    """The room's two tables as one self-contained page."""
    e = html.escape
    table = _table(rows, functions)
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f"<p>{len(rows)} files: {sum(r.result == 'passed' for r in rows)} passed every check, "
        f"{sum(r.result == 'failed' for r in rows)} failed some, {sum(r.result == 'not checked' for r in rows)} could not be checked.</p>",
        "<h2>Which mistakes, how many learners</h2>",
        "<table><thead><tr><th>mistake</th><th>learners</th><th>files</th></tr></thead><tbody>",
    ]
    for mistake, count, files in summary(rows):
        lines.append(f"<tr><td>{e(mistake)}</td><td>{count}</td><td>{e(', '.join(files))}</td></tr>")
    lines += ["</tbody></table>", "<h2>Every file</h2>", "<table><thead><tr>"]
    lines.append("".join(f"<th>{e(h)}</th>" for h in table[0]) + "</tr></thead><tbody>")
    for row, cells in zip(rows, table[1:]):
        kind = {"passed": "ok", "failed": "failed"}.get(row.result, "not")
        tds = []
        for i, cell in enumerate(cells):
            cls = kind if i == 1 else "ok" if cell == "ok" else "failed" if 4 <= i < 4 + len(functions) and cell else ""
            tds.append(f'<td class="{cls}">{e(cell)}</td>' if cls else f"<td>{e(cell)}</td>")
        lines.append("<tr>" + "".join(tds) + "</tr>")
    lines += ["</tbody></table>", "</body></html>", ""]
    return "\n".join(lines)


def check_room(number: str, folder: str, out: str | None, limits, seed: int, no_sandbox: bool) -> int:
    from attention_by_hand.lab.sandbox import available

    lab = get_lab(number)
    files = learner_files(Path(folder))
    out_dir = Path(out) if out else Path(".")
    if not out_dir.is_dir():
        raise UserError(f"{out_dir}: no such folder for the room's tables")
    if no_sandbox:
        print("no sandbox (--no-sandbox): every file runs with your rights; use this only for files you trust")
    else:
        why = available()
        if why:
            raise UserError(
                f"no sandbox for the learners' files: {why}; --no-sandbox runs them with your rights (only for files you trust)"
            )
    print(f"Checking {len(files)} files in {folder} against lab {lab.number} ({lab.title}), {WORKERS} at a time:", flush=True)
    done: list[Row] = []

    def one(row: Row) -> None:
        done.append(row)
        said = row.note or f"{row.passed} passed, {row.failed} failed"
        print(f"  [{len(done)}/{len(files)}] {row.file}: {said}", flush=True)

    # Processes, not threads: judging (and the mutation engine) is Python work in the parent, and
    # two of them run on two cores only as two processes. Spawned: this one may hold threads.
    with ProcessPoolExecutor(max_workers=WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_check_one, path, lab, limits, seed, not no_sandbox): path for path in files}
        for future in as_completed(futures):
            one(future.result())
    rows = sorted(done, key=lambda row: files.index(Path(folder) / row.file))
    functions = list(lab.functions)
    stem = out_dir / f"room-lab-{lab.number:02d}"
    title = f"Lab {lab.number} ({lab.title}): {len(files)} learners' files in {Path(folder).name}"
    written = [
        (stem.with_name(stem.name + ".csv"), csv_text(rows, functions)),
        (stem.with_name(stem.name + "-summary.csv"), summary_csv_text(rows)),
        (stem.with_name(stem.name + ".html"), html_text(rows, functions, title)),
    ]
    for path, text in written:
        try:
            write_atomic(path, text.encode("utf-8"))
        except OSError as error:
            raise UserError(f"{path}: cannot write it ({error.strerror})") from None
    print("Most common mistakes:")
    for mistake, count, _ in summary(rows)[:10]:
        print(f"  {count:3d}  {mistake}")
    print("wrote " + ", ".join(str(p) for p, _ in written))
    return 0
