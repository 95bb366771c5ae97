"""Check-yourself questions in a real browser: an answer stays hidden until its summary is clicked,
then shows the run's values; the instructor's page lists every module's questions, answers shown.

The expected answers are worked out here from the pages' own :answer: lines and the run's
indexes, not from the extension that renders them.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from attention_by_hand.site.sphinxext.runlog import split_name

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p.stem for p in (ROOT / "workshop").glob("module-*.md"))
_ANSWER = re.compile(r"^`{3,}\{question\}\n(?::\w+:.*\n)*?:answer: (.*)$", re.M)

# Each question on a page: the text of its question (everything but the answer) and its answer.
QUESTIONS = """Array.from(document.querySelectorAll('article .question')).map(q => ({
    question: Array.from(q.children).filter(c => !c.classList.contains('answer')).map(c => c.textContent.trim()).join(' '),
    answer: q.querySelector('.answer-text').textContent.trim(),
    visible: q.querySelector('.answer-text').checkVisibility(),
}))"""


@cache
def values(log: str) -> dict:
    return json.loads((ROOT / "captures" / f"{log}.index.json").read_text(encoding="utf-8"))["values"]


def expected_answers(page: str) -> list[str]:
    """Each question's answer on `page` as it should read: its :answer: with every {name} filled."""

    def fill(m: re.Match) -> str:
        log, key = split_name(m.group(1))
        return values(log)[key]["text"]

    specs = _ANSWER.findall((ROOT / "workshop" / f"{page}.md").read_text(encoding="utf-8"))
    return [re.sub(r"\{([a-z][\w.:\-]*)\}", fill, spec.strip()) for spec in specs]


def visit(watched, server: str, page: str):
    watched.page.goto(f"{server}/{page}.html", wait_until="load")
    return watched.page


def straight(text: str) -> str:
    """A page's text with docutils' curly quotes made straight again, as the page's source has them."""
    return text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'")


@pytest.mark.parametrize("page", MODULES)
def test_every_module_has_three_to_five_questions(page):
    assert 3 <= len(expected_answers(page)) <= 5


@pytest.mark.parametrize("page", MODULES)
def test_an_answer_is_hidden_until_its_summary_is_clicked_then_shows_the_runs_values(watched, server, page):
    p = visit(watched, server, page)
    expected = expected_answers(page)
    before = p.evaluate(QUESTIONS)
    assert [q["visible"] for q in before] == [False] * len(expected)
    for summary in p.locator("article .question details.answer > summary").all():
        summary.click()
    after = p.evaluate(QUESTIONS)
    assert [q["visible"] for q in after] == [True] * len(expected)
    assert [straight(q["answer"]) for q in after] == expected
    assert watched.problems() == []


def test_the_instructor_page_lists_every_question_of_every_module_with_its_answer_shown(watched, server):
    asked = {}
    for page in MODULES:
        asked[page] = [{"question": q["question"], "answer": q["answer"]} for q in visit(watched, server, page).evaluate(QUESTIONS)]
    p = visit(watched, server, "instructor")
    listed = p.evaluate(
        """Array.from(document.querySelectorAll('.question-list-group')).map(g => ({
            page: g.querySelector('.question-list-page a').getAttribute('href').replace(/\\.html$/, ''),
            questions: Array.from(g.querySelectorAll('.question')).map(q => ({
                question: Array.from(q.children).filter(c => !c.classList.contains('answer')).map(c => c.textContent.trim()).join(' '),
                answer: q.querySelector('.answer-text').textContent.trim(),
                visible: q.querySelector('.answer-text').checkVisibility(),
                hidden: q.querySelector('details') !== null,
            })),
        }))"""
    )
    shown = {group["page"]: group["questions"] for group in listed if group["page"] in asked}
    assert list(shown) == MODULES
    for page in MODULES:
        assert [{"question": q["question"], "answer": q["answer"]} for q in shown[page]] == asked[page], page
        assert all(q["visible"] and not q["hidden"] for q in shown[page]), page
