"""The instructor's page: lesson plans timed from the pages' and labs' sizes, and where learners stall.

    ```{lesson-plan}
    :minutes: 90
    module-0
    lab 2
    module-1
    break
    ```

makes one plan: a heading, then the steps in order, each with its minutes and the clock at its
start, then the steps that no longer fit in the session's minutes, named as left for after it.
The heading is made from the plan itself, the session's length and the steps that fit ("An hour
and a half: Modules 0 to 3, Lab 02"), so it can name nothing the plan leaves out. A page's
minutes come from its size: the words of its prose (code, log excerpts, formulas and figures not
counted) at READING_WORDS_PER_MINUTE, plus QUESTION_MINUTES per check-yourself question. A lab's
come from the functions its learner writes (lab/registry.py's LABS). The rates are estimates,
not measurements, and the page says so under each plan.

    ```{lab-stalls}
    ```

lists, lab by lab, the functions a learner writes with the hint the lab gives for each, and the
mistakes `lab check` recognises in them, from the lab package's own catalogue when it ships one
(`attention_by_hand.lab.mistakes.shipped_mistakes()`, read from its mistakes.json). Working the
catalogue out calls every check's judge with torch, seconds per build, so it is read from what
the lab package ships rather than computed here.

Left out: measured timings of real sessions (none exist yet); a plan that reorders steps by
itself: the page gives the order, this module only times it and names what fits.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

__all__ = [
    "setup",
    "Step",
    "fit",
    "heading",
    "session_length",
    "prose_words",
    "questions_in",
    "READING_WORDS_PER_MINUTE",
    "QUESTION_MINUTES",
    "LAB_START_MINUTES",
    "FUNCTION_MINUTES",
    "BREAK_MINUTES",
]

logger = logging.getLogger(__name__)

# Estimates, stated on the page under each plan. A module is read closely, with a pencil on its
# numbers: well under the ~240 words a minute of ordinary non-fiction read silently (Brysbaert
# 2019, a meta-analysis of reading rates).
READING_WORDS_PER_MINUTE = 120
QUESTION_MINUTES = 1  # one check-yourself question, answered with a pencil
LAB_START_MINUTES = 5  # `lab start`, a first `lab run`, the final `lab check`
FUNCTION_MINUTES = 8  # one function: read its hint, write it, run it, fix what `lab check` says
BREAK_MINUTES = 15

_FENCE = re.compile(r"^(`{3,}|~{3,}|:{3,})[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)  # code, directives, questions
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_ROLE = re.compile(r"\{[\w-]+\}`[^`]*`")  # {value}`s2.dot.river`: one word, whatever the name's length
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SOURCES = re.compile(r"^## Sources[ \t]*$.*", re.S | re.M)  # a module page's list of sources, at its end
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")  # [text](address): the text is read, the address is not
_WORD = re.compile(r"[^\W_][\w'’.,-]*")
_QUESTION = re.compile(r"^(`{3,}|:{3,})\{question\}", re.M)


def prose_words(markdown: str) -> int:
    """The words of a page's prose: fenced blocks (code, log excerpts, figures, questions),
    display math, comments, links' addresses and the closing Sources section left out (a
    reader follows those after the session); a role counts as one word."""
    text = _COMMENT.sub(" ", _DISPLAY_MATH.sub(" ", _FENCE.sub(" ", _SOURCES.sub(" ", markdown))))
    return len(_WORD.findall(_ROLE.sub(" x ", _LINK_TARGET.sub("] ", text))))


def questions_in(markdown: str) -> int:
    return len(_QUESTION.findall(markdown))


def _minutes(x: float) -> int:
    return max(1, math.ceil(x))


@dataclass(frozen=True)
class Step:
    """One step of a plan. `kind` is "module" (a page module-N), "lab", "page" (any other page)
    or "break"; `number` is the module's or the lab's; `name` is how a heading names a page."""

    kind: str
    number: int | None
    name: str
    row: str  # the step as its table row says it (Markdown)
    minutes: int


def fit(steps: list[Step], budget: int) -> tuple[list[Step], list[Step]]:
    """(the steps that fit in `budget` minutes, in order; the rest). Once one step does not fit,
    neither does any after it: the page's order is the order of teaching."""
    clock = 0
    for i, step in enumerate(steps):
        if clock + step.minutes > budget:
            return steps[:i], steps[i:]
        clock += step.minutes
    return list(steps), []


_NUMBER_WORDS = "one two three four five six seven eight nine ten eleven twelve".split()


def session_length(minutes: int) -> str:
    """A session's length as it is said: "45 minutes", "An hour and a half", "Four hours"."""
    hours, rest = divmod(minutes, 60)
    if hours == 0:
        return f"{minutes} minutes"
    said = _NUMBER_WORDS[hours - 1] if hours <= len(_NUMBER_WORDS) else str(hours)
    if rest == 30:
        return "An hour and a half" if hours == 1 else f"{said.capitalize()} and a half hours"
    whole = "An hour" if hours == 1 else f"{said.capitalize()} hours"
    return whole if rest == 0 else f"{whole} and {rest} minutes"


def _numbers(kind: str, numbers: list[int], width: int) -> str:
    """"Module 0", "Modules 0 and 1", "Labs 01 to 03 and 05": runs of three or more as ranges."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = []
    for run in runs:
        first, last = f"{run[0]:0{width}d}", f"{run[-1]:0{width}d}"
        parts.extend([f"{first} to {last}"] if len(run) >= 3 else [f"{n:0{width}d}" for n in run])
    plural = len(set(numbers)) > 1
    return f"{kind}{'s' if plural else ''} {_listed(parts)}"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def heading(minutes: int, fitted: list[Step]) -> str:
    """The plan's heading, made only from the steps that fit: "An hour and a half: Modules 0 to 3,
    Lab 02". Breaks are not named; a session with no step that fits says so."""
    modules = [s.number for s in fitted if s.kind == "module"]
    labs = [s.number for s in fitted if s.kind == "lab"]
    pages = list(dict.fromkeys(s.name for s in fitted if s.kind == "page"))
    named = ([_numbers("Module", modules, 1)] if modules else []) + ([_numbers("Lab", labs, 2)] if labs else []) + pages
    # Groups apart with commas, since "and" joins the numbers inside a group.
    return f"{session_length(minutes)}: {', '.join(named) if named else 'no step fits'}"


class LessonPlan(SphinxDirective):
    """One session's steps, timed, under a heading made from the steps that fit; see the module docstring."""

    has_content = True
    option_spec = {"minutes": directives.positive_int}

    def warn(self, message: str) -> list[nodes.Node]:
        logger.warning(message, location=self.get_location())
        return []

    def run(self) -> list[nodes.Node]:
        from attention_by_hand.lab import registry

        if "minutes" not in self.options:
            return self.warn("lesson-plan needs :minutes:, the length of the session")
        self.env.note_dependency(registry.__file__)
        steps = []
        for line in (line.strip() for line in self.content):
            if not line:
                continue
            step = self.step(line, registry)
            if step is None:
                return []
            steps.append(step)

        budget = self.options["minutes"]
        fitted, left = fit(steps, budget)
        rows, clock = [], 0
        for step in fitted:
            rows.append(f"| {_clock(clock)} | {step.row} | {step.minutes} |")
            clock += step.minutes
        table = ["| from | step | minutes |", "| --- | --- | --- |", *rows]
        said = [f"Planned: {clock} of the session's {budget} minutes."]
        if left:
            names = "; ".join(step.row for step in left)
            said.append(f"Not in this plan, left for after the session ({sum(s.minutes for s in left)} minutes more): {names}.")
        said.append(
            f"Minutes are estimates: a page's prose at {READING_WORDS_PER_MINUTE} words a minute and "
            f"{QUESTION_MINUTES} per check-yourself question; a lab {LAB_START_MINUTES} to start, run and "
            f"check, and {FUNCTION_MINUTES} per function to write; a break {BREAK_MINUTES}."
        )
        title = heading(budget, fitted)
        section = nodes.section(ids=[nodes.make_id(title)], names=[nodes.fully_normalize_name(title)], classes=["lesson-plan"])
        self.set_source_info(section)
        section += nodes.title(title, title)
        section.extend(self.parse_text_to_nodes("\n".join(table) + "\n\n" + " ".join(said)))
        self.state.document.note_implicit_target(section, section)
        return [section]

    def step(self, line: str, registry) -> Step | None:
        """One line: a page's docname, `lab N`, or `break`."""
        if line == "break":
            return Step("break", None, "a break", "break", BREAK_MINUTES)
        lab_number = re.fullmatch(r"lab (\d+)", line)
        if lab_number:
            lab = next((lab for lab in registry.LABS if lab.number == int(lab_number.group(1))), None)
            if lab is None:
                self.warn(f"lesson-plan: no {line!r} in the lab registry")
                return None
            functions = len(lab.functions)
            minutes = LAB_START_MINUTES + FUNCTION_MINUTES * functions
            row = f"Lab {lab.number:02d}, {lab.title} (`lab start {lab.number}`: {functions} functions to write)"
            return Step("lab", lab.number, f"Lab {lab.number:02d}", row, minutes)
        path = Path(self.env.doc2path(line))
        if line not in self.env.found_docs or not path.is_file():
            self.warn(f"lesson-plan: {line!r} is neither a page of the site, `lab N` nor `break`")
            return None
        self.env.note_dependency(str(path))
        text = path.read_text(encoding="utf-8")
        words, questions = prose_words(text), questions_in(text)
        minutes = _minutes(words / READING_WORDS_PER_MINUTE + questions * QUESTION_MINUTES)
        title = next((m.group(1) for m in re.finditer(r"^# (.+)$", text, re.M)), line)
        counted = f"{words} words" + (f", {questions} questions" if questions else "")
        module = re.fullmatch(r"module-(\d+)", line)
        kind, number = ("module", int(module.group(1))) if module else ("page", None)
        return Step(kind, number, title, f"[{title}]({line}.md) ({counted})", minutes)


def _clock(minutes: int) -> str:
    """Minutes since the start as h:mm, the way a room's clock is read."""
    return f"{minutes // 60}:{minutes % 60:02d}"


def shipped_catalogue(env) -> dict | None:
    """{lab number: {function: (mistake, ...)}} as the lab package ships it, or None before it
    does; the page depends on the shipped file, so a new catalogue rebuilds it."""
    try:
        from attention_by_hand.lab import mistakes
    except ImportError:
        return None
    env.note_dependency(str(Path(mistakes.__file__).with_name(mistakes.CATALOGUE)))
    return mistakes.shipped_mistakes()


class LabStalls(SphinxDirective):
    """Lab by lab: each function to write, its hint, and the mistakes `lab check` recognises in it."""

    def run(self) -> list[nodes.Node]:
        from attention_by_hand.lab import registry

        self.env.note_dependency(registry.__file__)
        catalogue = shipped_catalogue(self.env)
        lines = []
        for lab in registry.LABS:
            lines.append(f"**Lab {lab.number:02d}, {lab.title}**: {lab.summary}.\n")
            known = (catalogue or {}).get(lab.number, {})
            for function, hint in lab.functions.items():
                mistakes = known.get(function, ())
                said = " `lab check` recognises:" if mistakes else ""
                lines.append(f"- `{function}`, hint: *{_markdown_text(hint)}*.{said}")
                lines.extend(f"  - {_markdown_text(mistake)}" for mistake in mistakes)
            lines.append("")
        if catalogue is None:
            lines.append(
                "The mistakes `lab check` recognises in each function are listed here once the lab "
                "package ships its catalogue of them (`attention_by_hand.lab.mistakes`)."
            )
        return self.parse_text_to_nodes("\n".join(lines))


def _markdown_text(text: str) -> str:
    """A hint as literal text in Markdown: code-like parts stay readable, nothing is emphasised."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


def setup(app):
    app.add_directive("lesson-plan", LessonPlan)
    app.add_directive("lab-stalls", LabStalls)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
