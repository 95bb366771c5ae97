"""A worksheet for pencils and its answer key, for any world, with every answer from its run.

    build_sheet(world, index, ...)  what the sheet gives and asks, and the run's answers
    render_worksheet(sheet)         HTML: a page for the world, then one page per exercise
    render_key(sheet)               HTML: every blank's answer and the log line that prints it

The exercises follow the run's sections:

    1  S2  dot products: the ambiguous word with every word, the first one term by term
    2  S2  e^score and the softmax of the first sentence's scores, e^x read from a table
    3  S3  the weighted sum: the ambiguous word's new row in the first sentence
    4  S4  the wired head: the ambiguous word's query and key, then its scores

Every blank is answered by a value of the run's index, by name (`s2.dot.river`), in the text
the log printed, with the log line the index files it under. A derived value (e^score, a
product of two printed factors) is answered with the line it is worked out from. Nothing the
run prints is computed here. What a sheet gives the learner comes from the world (W_Q, W_K) and
the index (the embeddings, the other words' keys); only the e^x table is computed here: a
reference table, not an answer (the tests hold it to the run's own e^score values).

Left out: running the world and writing files (sheets.py), printing (printing.py), the site's
page (sphinxext/paper.py).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from attention_by_hand.errors import UserError
from attention_by_hand.run.pencil_worlds import table_exp
from attention_by_hand.run.world import World

__all__ = [
    "LIMITS", "Answer", "Blank", "Exercise", "ExpTable", "Sheet",
    "check_fits", "build_sheet", "read_index", "render_worksheet", "render_key", "render_room", "plain",
]  # fmt: skip

# The most a world may hold for each exercise to fit one page of A4 or Letter, cells large
# enough to write in (tests/browser/test_worksheet_print.py prints a world at every limit).
LIMITS = {"words": 6, "sentence": 4, "axes": 5, "channels": 3, "name": 10}
MAX_TABLE_ROWS = 15  # the e^x table's rows in one run (a pencil world's never need more); else only the rows of the scores


def check_fits(world: World, source: str) -> None:
    """Refuse, in one line naming `source`, a world too big for a page per exercise."""
    names = [*world.words, *world.axes, *world.channels]
    longest = max(names, key=len)
    sizes = {
        "words": (len(world.words), "words"),
        "sentence": (len(world.sentences[0]), "words in a sentence"),
        "axes": (len(world.axes), "axes"),
        "channels": (len(world.channels), "channels"),
        "name": (len(longest), f"characters in a name ('{longest}' has {len(longest)})"),
    }
    for key, limit in LIMITS.items():
        size, what = sizes[key]
        if size > limit:
            raise UserError(f"{source}: a worksheet holds at most {limit} {what.split(' (')[0]} (one page per exercise); "
                            f"this world has {size}" + (f": '{longest}'" if key == "name" else ""))


def plain(x: float) -> str:
    """A number a learner typed, without trailing zeros: 2.0 -> "2", 1.5 -> "1.5"."""
    text = f"{x:f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


@dataclass(frozen=True)
class Answer:
    """A blank's answer: a value of the run's index, and where the log prints it.

    line: the log line that prints the value, or, when `derived` says how it is worked out, the
    line that prints what it is worked out from.
    """

    name: str
    text: str
    line: int
    derived: str = ""


@dataclass(frozen=True)
class Blank:
    """One cell to fill: its number on the sheet ("2.5"), what goes there, and its answer."""

    number: str
    label: str
    answer: Answer


@dataclass(frozen=True)
class ExpTable:
    """e^x to three decimals, x = row + column: rows of tenths, columns of hundredths."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    gaps: bool  # True when only the rows that hold a score are shown


@dataclass
class Exercise:
    """One page of exercises: its title, the section of the run it follows, and its blanks."""

    number: int
    section: str
    short: str  # "Dot products": the page's heading
    title: str  # what it asks, in the key
    blanks: list[Blank] = field(default_factory=list)

    def blank(self, label: str, answer: Answer) -> Blank:
        """Add the next blank of this exercise (numbered 1.1, 1.2, ... in the order added)."""
        made = Blank(f"{self.number}.{len(self.blanks) + 1}", label, answer)
        self.blanks.append(made)
        return made


@dataclass
class Sheet:
    """Everything a worksheet and its key show; `layout` holds each exercise's own arrangement."""

    title: str
    source: str  # how the world came: "a world for pencils, seed 7"
    world: World
    world_file: str  # the world file written beside the sheet, to run it
    run_command: str  # the command that makes the log the key refers to
    log: str  # "results.log"
    exercises: list[Exercise]
    layout: dict

    @property
    def blanks(self) -> list[Blank]:
        return [b for exercise in self.exercises for b in exercise.blanks]


def read_index(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


class _Values:
    """The run's values by name, as answers; a name the index lacks is a bug here, not bad input."""

    def __init__(self, index: dict):
        self.values: dict[str, dict] = index["values"]

    def text(self, name: str) -> str:
        return self._get(name)["text"]

    def number(self, name: str) -> float:
        return self._get(name)["value"]

    def printed(self, name: str) -> Answer:
        v = self._get(name)
        return Answer(name, v["text"], v["line"])

    def derived(self, name: str, source: str, how: str) -> Answer:
        """A derived value, with the line that prints the value `source` it is worked out from."""
        return Answer(name, self._get(name)["text"], self._get(source)["line"], how)

    def _get(self, name: str) -> dict:
        if name not in self.values:
            raise KeyError(f"the run's index has no value {name!r}: the worksheet and the run disagree")
        return self.values[name]


def exp_table(scores: list[float]) -> ExpTable:
    """The e^x rows a learner needs for these scores (each rounded to two decimals)."""
    tenths = sorted({math.floor(round(s, 2) * 10 + 1e-9) for s in scores})
    if tenths[-1] - tenths[0] < MAX_TABLE_ROWS:
        tenths, gaps = list(range(tenths[0], tenths[-1] + 1)), False
    else:
        gaps = True
    rows = tuple((f"{t / 10:.1f}", tuple(table_exp((t * 10 + c) / 100) for c in range(10))) for t in tenths)
    return ExpTable(columns=tuple(f"0.0{c}" for c in range(10)), rows=rows, gaps=gaps)


def build_sheet(world: World, index: dict, *, title: str, source: str, world_file: str, run_command: str) -> Sheet:
    """The sheet for `world` and its answers from `index`, the index of that world's canonical run."""
    v = _Values(index)
    amb = world.ambiguous
    sentence = world.sentences[0]
    last = len(sentence) - 1
    first = world.context(0)
    partners = list(dict.fromkeys([world.context(0), world.context(1), *world.words, amb]))  # the log's S2 order
    partners.remove(amb)
    partners.append(amb)

    def row(word: str) -> list[str]:
        return [v.text(f"s1.embedding.{word}.{axis}") for axis in world.axes]

    # 1. S2 dot products
    dots = Exercise(1, "S2", "Dot products", f"Dot products: how much {amb} has in common with each word")
    terms = [
        (axis, a, b, dots.blank(f"{axis}: {a} × {b}", v.derived(f"s2.term.{axis}", f"s2.dot.{first}", "the product of the two numbers printed there")))
        for axis, a, b in zip(world.axes, row(amb), row(first))
    ]
    first_total = dots.blank(f"{amb} · {first}", v.printed(f"s2.dot.{first}"))
    others = [(word, dots.blank(f"{amb} · {word}", v.printed(f"s2.dot.{word}"))) for word in partners[1:]]

    # 2. S2 exponentials and softmax, over the first sentence
    soft = Exercise(2, "S2", "Softmax", f"Softmax: {amb}'s scores in \u201c{' '.join(sentence)}\u201d become weights")
    scores = [soft.blank(f"score of {word}", v.printed(f"s2.scores.{i}")) for i, word in enumerate(sentence)]
    exps = [
        soft.blank(f"e to the score of {word}", v.derived(f"s2.exp.{i}", f"s2.scores.{i}", "e to the score printed there"))
        for i, word in enumerate(sentence)
    ]
    exp_sum = soft.blank("their sum", v.derived("s2.exp_sum", "s2.scores.0", "the sum of e to each score printed there"))
    weights = [soft.blank(f"weight of {word}", v.printed(f"s2.weights.{i}")) for i, word in enumerate(sentence)]
    table = exp_table([v.number(f"s2.scores.{i}") for i in range(len(sentence))])

    # 3. S3 weighted sum: the ambiguous word's row of raw attention in the first sentence
    mix = Exercise(3, "S3", "The weighted sum", f"The weighted sum: {amb}'s new row in \u201c{' '.join(sentence)}\u201d")
    mix_weights = [mix.blank(f"weight of {word}", v.printed(f"s3.weights.0.{last}.{j}")) for j, word in enumerate(sentence)]
    outputs = [mix.blank(f"new {axis}", v.printed(f"s3.output.0.{axis}")) for axis in world.axes]

    # 4. S4 the wired head: q and k of the ambiguous word, then its scores
    head = Exercise(4, "S4", "The wired head", f"The wired head: {amb} asks a question")
    q = [head.blank(f"q of {amb}, {c}", v.printed(f"s4.q.{last}.{c}")) for c in world.channels]
    k = [head.blank(f"k of {amb}, {c}", v.printed(f"s4.k.{last}.{c}")) for c in world.channels]
    given_keys = [(word, [v.text(f"s4.k.{j}.{c}") for c in world.channels]) for j, word in enumerate(sentence) if j != last]
    wired_scores = [head.blank(f"q({amb}) · k({word})", v.printed(f"s4.scores.{last}.{j}")) for j, word in enumerate(sentence)]

    layout = {
        "embeddings": [(word, row(word)) for word in world.words],
        "sentence_rows": [(word, row(word)) for word in sentence],
        "amb_row": row(amb),
        "first": first,
        "terms": terms,
        "first_total": first_total,
        "others": others,
        "scores": scores,
        "exps": exps,
        "exp_sum": exp_sum,
        "weights": weights,
        "table": table,
        "mix_weights": mix_weights,
        "outputs": outputs,
        "W_Q": [(axis, [plain(x) for x in r]) for axis, r in zip(world.axes, world.W_Q)],
        "W_K": [(axis, [plain(x) for x in r]) for axis, r in zip(world.axes, world.W_K)],
        "q": q,
        "k": k,
        "given_keys": given_keys,
        "wired_scores": wired_scores,
    }
    return Sheet(
        title=title,
        source=source,
        world=world,
        world_file=world_file,
        run_command=run_command,
        log=index["log"],
        exercises=[dots, soft, mix, head],
        layout=layout,
    )


@cache
def _environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("attention_by_hand.site", "templates"),
        autoescape=True,
        undefined=StrictUndefined,  # a misspelt name in a template fails, never prints ""
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_worksheet(sheet: Sheet) -> str:
    return _environment().get_template("worksheet.html").render(sheet=sheet, L=sheet.layout, w=sheet.world)


def render_key(sheet: Sheet) -> str:
    return _environment().get_template("key.html").render(sheet=sheet, w=sheet.world)


def render_room(entries: list[dict], papers: tuple[str, ...]) -> str:
    """The instructor's index of a room: each sheet's number, seed, world, and its files and key's."""
    return _environment().get_template("room.html").render(entries=entries, papers=papers)
