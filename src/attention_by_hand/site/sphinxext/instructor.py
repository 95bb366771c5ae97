"""The instructor's page: lesson plans timed from the pages' and labs' sizes, and where learners stall.

    ```{lesson-plan}
    :minutes: 90
    module-0
    lab 2
    module-1
    break
    ```

lays the steps out in order, each with its minutes and the clock at its start, and names the
steps that no longer fit in the session's minutes: they are left for after it. A page's minutes
come from its size: the words of its prose (code, log excerpts, formulas and figures not
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
itself: the page gives the order, this module only times it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

__all__ = [
    "setup",
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


class LessonPlan(SphinxDirective):
    """One session's steps, timed; see the module docstring."""

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
        steps = []  # (what, minutes)
        for line in (line.strip() for line in self.content):
            if not line:
                continue
            step = self.step(line, registry)
            if step is None:
                return []
            steps.append(step)

        budget = self.options["minutes"]
        rows, left, clock = [], [], 0
        for what, minutes in steps:
            if left or clock + minutes > budget:
                left.append((what, minutes))
                continue
            rows.append(f"| {_clock(clock)} | {what} | {minutes} |")
            clock += minutes
        table = ["| from | step | minutes |", "| --- | --- | --- |", *rows]
        said = [f"Planned: {clock} of the session's {budget} minutes."]
        if left:
            names = "; ".join(what for what, _ in left)
            said.append(f"Left for after the session ({sum(m for _, m in left)} minutes more): {names}.")
        said.append(
            f"Minutes are estimates: a page's prose at {READING_WORDS_PER_MINUTE} words a minute and "
            f"{QUESTION_MINUTES} per check-yourself question; a lab {LAB_START_MINUTES} to start, run and "
            f"check, and {FUNCTION_MINUTES} per function to write; a break {BREAK_MINUTES}."
        )
        return self.parse_text_to_nodes("\n".join(table) + "\n\n" + " ".join(said))

    def step(self, line: str, registry) -> tuple[str, int] | None:
        """(what, minutes) for one line: a page's docname, `lab N`, or `break`."""
        if line == "break":
            return "break", BREAK_MINUTES
        lab_number = re.fullmatch(r"lab (\d+)", line)
        if lab_number:
            lab = next((lab for lab in registry.LABS if lab.number == int(lab_number.group(1))), None)
            if lab is None:
                self.warn(f"lesson-plan: no {line!r} in the lab registry")
                return None
            functions = len(lab.functions)
            minutes = LAB_START_MINUTES + FUNCTION_MINUTES * functions
            return f"Lab {lab.number:02d}, {lab.title} (`lab start {lab.number}`: {functions} functions to write)", minutes
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
        return f"[{title}]({line}.md) ({counted})", minutes


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
