"""The site build: pages quote the run by reference only, and a stale reference fails the build.

Tests that only read a build's warnings or pages share one build: `faulty_site` per module,
`canonical_site` per session (with the browser tests); a test that changes what is built (another
log, the build command) makes its own.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from attention_by_hand import parts
from attention_by_hand.parts.canonical import sections
from attention_by_hand.run.part import RunContext
from attention_by_hand.cli import main
from attention_by_hand.lab.registry import get_lab
from attention_by_hand.site.sphinxext import instructor
from attention_by_hand.site.sphinxext.mathml import equations
from attention_by_hand.site.website import build_site
from sitehelpers import named_in

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
WORKSHOP = ROOT / "workshop"
CAPTURES = ROOT / "captures"
# What a page may use to say a number: the {value} role, or a {name} placeholder in an :alt: text
# or a question's :answer: (a name may start with its log's: {positions:p3.scores.2.1}).
ROLE = re.compile(r"\{value\}`[^`]*`|\{[a-z][\w.:\-]*\}")
# Nor is a paper's section ("§3.2.1") or a link's address (an arXiv number, a file's path) a
# number a page types: the run has no say in those.
CITATION = re.compile(r"§\d+(?:\.\d+)*|\]\([^)\s]*\)")


# Pages that each hold one fault, for a site that builds them all at once (`faulty_site`), from
# a copy of the captures whose figure NOT_DRAWN is missing.
NOT_DRAWN = "softmax_in_action"
FAULTY_PAGES = {
    "missing_span": "# Page\n\nText.\n\n```{log-lines} s2.no_such_span\n```\n",
    "missing_value": "# Page\n\nThe dot is {value}`s2.dot.nowhere`.\n",
    "missing_function": "# Page\n\n```{literalinclude} MECHANISM\n:pyobject: no_such_function\n```\n",
    "figure_without_alt": "# Page\n\n```{run-figure} causal_mask\nA caption.\n```\n",
    "figure_not_drawn": f"# Page\n\n```{{run-figure}} {NOT_DRAWN}\n:alt: A figure whose file is gone.\n```\n",
    "value": "# Page\n\nThe dot is {value}`s2.dot.river`.\n",  # no fault: the control
    "question_without_answer": "# Page\n\n```{question}\nWhat is bank . river?\n```\n",
    "question_unknown_value": "# Page\n\n```{question}\n:answer: {s2.dot.nowhere}\nWhat is bank . river?\n```\n",
    "question_typed_answer": "# Page\n\n```{question}\n:answer: 0.540\nWhat is bank . river?\n```\n",
    "question_typed_label": "# Page\n\n```{question}\n:answer: {s2.dot.river}, or 1 in 2\nWhat is bank . river?\n```\n",
    # No fault, the controls: a question with two values, one with a derived value, and the list.
    "question": (
        "# Questions\n\n```{question}\n:answer: river {s2.dot.river}, money {s2.dot.money}\nWhat are bank . river and bank . money?\n```\n\n"
        "```{question}\n:answer: {s2.exp_sum}\nWhat do the three exponentials add up to?\n```\n"
    ),
    "question_list": "# Every question\n\n```{question-list}\n```\n",
    "plan_unknown_step": "# Page\n\n```{lesson-plan}\n:minutes: 60\nlab 4\nmodule-9\n```\n",
    "plan": "# Plan\n\n```{lesson-plan}\n:minutes: 60\nlab 4\nlab 7\n```\n",  # no fault: lab 7 does not fit
    # A module page must end with its sources (sphinxext/sources.py); other pages need not.
    "module-nosources": "# Module\n\nText.\n\n## Summary\n\n- A point.\n",
    "module-sources-early": "# Module\n\n## Sources\n\n- [A paper](https://example.org/a)\n\n## Summary\n\nText.\n",
    "module-sources-empty": "# Module\n\nText.\n\n## Sources\n\nNone yet.\n",
    "module-sources-unlinked": "# Module\n\nText.\n\n## Sources\n\n- A paper nobody can find, §2\n",
    "module-sourced": "# Module\n\nText.\n\n## Sources\n\n- [A paper](https://example.org/a), §2\n",  # no fault
}


def mini_site(folder: Path, pages: dict[str, str]) -> Path:
    """A site with the real conf.py and static files, a log page and `pages` (name -> text)."""
    source = folder / "src"
    source.mkdir()
    shutil.copy(WORKSHOP / "conf.py", source / "conf.py")
    shutil.copytree(WORKSHOP / "_static", source / "_static")
    (source / "index.md").write_text("# Index\n\n```{toctree}\n" + "".join(f"{name}\n" for name in pages) + "log\n```\n")
    (source / "log.md").write_text("# Log\n\n```{run-log}\n```\n")
    for name, text in pages.items():
        (source / f"{name}.md").write_text(text)
    return source


def build(source: Path, out: Path, captures: Path = CAPTURES) -> tuple[int, str]:
    return build_site(source, out, captures)


@dataclass
class Built:
    out: Path
    code: int
    printed: str


@pytest.fixture(scope="module")
def faulty_site(tmp_path_factory) -> Built:
    """One build of every page of FAULTY_PAGES (Sphinx keeps going past each warning)."""
    folder = tmp_path_factory.mktemp("faulty")
    shutil.copytree(CAPTURES, folder / "run" / "captures")
    shutil.copytree(ROOT / "diagrams", folder / "run" / "diagrams", ignore=shutil.ignore_patterns(f"{NOT_DRAWN}.*"))
    mechanism = os.path.relpath(ROOT / "src" / "attention_by_hand" / "math" / "mechanism.py", folder / "src")
    source = mini_site(folder, {name: text.replace("MECHANISM", mechanism) for name, text in FAULTY_PAGES.items()})
    return Built(folder / "out", *build(source, folder / "out", folder / "run" / "captures"))


@pytest.fixture
def canonical_site(built_site) -> Built:
    """The workshop from workshop/ and the committed captures, built once per session for the
    tests that read it (tests/conftest.py; the browser tests read the same build)."""
    return Built(*built_site)


# --- nothing typed by hand -------------------------------------------------------------------


@pytest.mark.parametrize("page", sorted(p.name for p in WORKSHOP.glob("*.md")))
def test_page_types_no_decimal_number_outside_a_value_reference(page):
    text = CITATION.sub("", ROLE.sub("", (WORKSHOP / page).read_text()))
    typed = [line for line in text.splitlines() if re.search(r"\d\.\d", line)]
    assert typed == []


def test_a_decimal_number_beside_a_citation_is_still_caught():
    line = "See [the paper](https://arxiv.org/abs/1706.03762), §3.2.1: the scale is 0.125."
    assert re.findall(r"\d\.\d", CITATION.sub("", ROLE.sub("", line))) == ["0.1"]


# --- a missing reference fails the build, naming the page and line ----------------------------


def test_a_warning_fails_the_build(faulty_site):
    assert faulty_site.code != 0


def test_missing_span_is_named_with_page_and_line(faulty_site):
    assert re.search(r"missing_span\.md:5: WARNING: span 's2\.no_such_span' is not in the run's index", faulty_site.printed)


def test_missing_value_is_named_with_page_and_line(faulty_site):
    assert re.search(r"missing_value\.md:3: WARNING: value 's2\.dot\.nowhere' is not in the run's index", faulty_site.printed)


def test_missing_function_is_named_with_page_and_line(faulty_site):
    assert re.search(r"missing_function\.md:3: WARNING: .*no_such_function", faulty_site.printed)


def test_figure_without_alt_text_is_named(faulty_site):
    assert re.search(r"figure_without_alt\.md:3: WARNING: figure 'causal_mask' needs an :alt: text", faulty_site.printed)


def test_figure_whose_file_is_missing_is_named(faulty_site):
    assert re.search(rf"figure_not_drawn\.md:3: WARNING: figure '{NOT_DRAWN}': .*{NOT_DRAWN}\.png is missing", faulty_site.printed)


def test_value_role_prints_the_text_the_log_printed(faulty_site):
    assert "/value.md" not in faulty_site.printed  # the control page has no warning of its own
    index = json.loads((CAPTURES / "results.index.json").read_text())
    page = (faulty_site.out / "value.html").read_text()
    assert f'<span class="run-value">{index["values"]["s2.dot.river"]["text"]}</span>' in page


def test_a_decimal_number_beside_a_citation_is_still_caught():
    line = "See [the paper](https://arxiv.org/abs/1706.03762), §3.2.1: the scale is 0.125."
    assert re.findall(r"\d\.\d", CITATION.sub("", ROLE.sub("", line))) == ["0.1"]


# --- every module page ends with its sources ----------------------------------------------------


@pytest.mark.parametrize(
    "page, problem",
    [
        ("module-nosources", r"does not end with a 'Sources' section"),
        ("module-sources-early", r"does not end with a 'Sources' section"),  # a Summary follows it
        ("module-sources-empty", r"has a 'Sources' section with no list of sources"),
        ("module-sources-unlinked", r"lists a source without a link .*'A paper nobody can find"),
    ],
)
def test_a_module_page_that_does_not_end_with_linked_sources_is_named(faulty_site, page, problem):
    assert re.search(rf"{page}\.md: WARNING: module page '{page}' {problem}", faulty_site.printed)


def test_a_module_page_that_ends_with_linked_sources_passes_and_other_pages_need_none(faulty_site):
    assert "module-sourced" not in faulty_site.printed
    assert "/value.md" not in faulty_site.printed  # not a module page: no Sources section, no warning


# --- check-yourself questions -------------------------------------------------------------


def test_question_without_an_answer_is_named_with_page_and_line(faulty_site):
    assert re.search(r"question_without_answer\.md:3: WARNING: question without an :answer:", faulty_site.printed)


def test_question_whose_answer_is_not_in_the_index_is_named_with_page_and_line(faulty_site):
    assert re.search(r"question_unknown_value\.md:3: WARNING: .*value 's2\.dot\.nowhere' is not in the run's index", faulty_site.printed)


def test_question_whose_answer_is_typed_is_named_with_page_and_line(faulty_site):
    assert re.search(r"question_typed_answer\.md:3: WARNING: question's answer '0\.540' is not a value of the run", faulty_site.printed)


def test_question_whose_answer_types_a_number_beside_a_value_is_named(faulty_site):
    assert re.search(r"question_typed_label\.md:3: WARNING: question's answer .* types a number by hand", faulty_site.printed)


def answers(page: str) -> list[str]:
    """The answers of a built page, in order, each as the HTML of its <details> or shown <div>."""
    return re.findall(r'<(details|div) class="answer[^"]*">(.*?)</\1>', page, re.S)


def test_question_answer_is_hidden_in_details_with_the_values_the_log_printed(faulty_site):
    assert "/question.md" not in faulty_site.printed
    values = json.loads((CAPTURES / "results.index.json").read_text())["values"]
    page = (faulty_site.out / "question.html").read_text()
    tag, first = answers(page)[0]
    river, money = values["s2.dot.river"]["text"], values["s2.dot.money"]["text"]
    assert tag == "details" and "<summary>Answer</summary>" in first
    assert f'river <span class="run-value">{river}</span>, money <span class="run-value">{money}</span>' in first


def test_question_answer_links_the_log_lines_that_print_it(faulty_site):
    spans = json.loads((CAPTURES / "results.index.json").read_text())["spans"]
    first, last = spans["s2.dots"]
    tag, answer = answers((faulty_site.out / "question.html").read_text())[0]
    on_screen = '<span class="screen-only">cross-check: </span>'
    assert f'href="log.html#L{first}-L{last}">{on_screen}results.log lines {first}-{last}</a>' in answer


def test_a_derived_answer_links_the_lines_it_is_worked_out_from(faulty_site):
    first, last = json.loads((CAPTURES / "results.index.json").read_text())["spans"]["s2"]
    tag, answer = answers((faulty_site.out / "question.html").read_text())[1]
    assert f"worked out from: results.log lines {first}-{last}</a>" in answer


def test_question_list_shows_every_question_with_its_answer_open(faulty_site):
    value = json.loads((CAPTURES / "results.index.json").read_text())["values"]["s2.exp_sum"]["text"]
    page = (faulty_site.out / "question_list.html").read_text()
    shown = answers(page)
    assert [tag for tag, _ in shown] == ["div", "div"]
    assert "What do the three exponentials add up to?" in page
    assert f'<span class="run-value">{value}</span>' in shown[1][1]


# --- the instructor's lesson plans ------------------------------------------------------------


def test_a_lesson_plan_step_that_is_no_page_lab_or_break_is_named(faulty_site):
    assert re.search(r"plan_unknown_step\.md:3: WARNING: lesson-plan: 'module-9' is neither a page", faulty_site.printed)


def test_a_lesson_plan_times_a_lab_by_the_functions_it_asks_for(faulty_site):
    lab = get_lab("4")
    minutes = instructor.LAB_START_MINUTES + instructor.FUNCTION_MINUTES * len(lab.functions)
    page = html.unescape(re.sub(r"<[^>]+>", "", (faulty_site.out / "plan.html").read_text()))
    assert re.search(rf"0:00\s+Lab 04, {lab.title} .*{len(lab.functions)} functions to write\)\s+{minutes}\s", page)


def test_a_lesson_plan_leaves_what_does_not_fit_for_after_the_session(faulty_site):
    lab = get_lab("7")
    minutes = instructor.LAB_START_MINUTES + instructor.FUNCTION_MINUTES * len(lab.functions)
    page = html.unescape(re.sub(r"<[^>]+>", "", (faulty_site.out / "plan.html").read_text()))
    assert f"Not in this plan, left for after the session ({minutes} minutes more): Lab 07, {lab.title}" in page


def test_a_lesson_plans_heading_is_made_from_the_session_and_the_steps_that_fit(faulty_site):
    page = (faulty_site.out / "plan.html").read_text()
    assert re.search(r"<h2>An hour: Lab 04<a class=\"headerlink\"", page)


def lesson_plans(page: str) -> list[tuple[str, str, str]]:
    """(heading, table, what is left) of each lesson plan of a built page, as text."""
    text = lambda part: html.unescape(re.sub(r"<[^>]+>", " ", part))  # noqa: E731
    plans = []
    for section in re.findall(r'<section class="lesson-plan" id="[^"]*">(.*?)</section>', page, re.S):
        title = re.search(r"<h\d>(.*?)<a class=\"headerlink\"", section, re.S).group(1)
        table = re.search(r"<table.*?</table>", section, re.S).group()
        left = re.search(r"Not in this plan, left for after the session[^:]*:(.*?)\. Minutes", text(section), re.S)
        plans.append((text(title).strip(), text(table), left.group(1) if left else ""))
    return plans


def steps_named(text: str) -> set[tuple[str, int]]:
    """The module pages and labs a plan's table or list names by their titles ("Module 3: the
    real head", "Lab 04, one head ..."), as ("module", 3), ("lab", 4)."""
    return {(kind.lower(), int(n)) for kind, n in re.findall(r"\b(Module|Lab) (\d+)(?=[:,])", text)}


def test_each_instructor_plans_heading_names_the_steps_of_its_table_and_no_other(canonical_site):
    plans = lesson_plans((canonical_site.out / "instructor.html").read_text(encoding="utf-8"))
    assert len(plans) == (WORKSHOP / "instructor.md").read_text().count("{lesson-plan}")
    for title, table, left in plans:
        assert named_in(title) == steps_named(table), title
        assert steps_named(left) & steps_named(table) == set()  # what is left is not in the plan


def test_a_pages_reading_words_leave_out_its_sources_and_link_addresses():
    page = "# Two words\n\n[One](https://arxiv.org/abs/1706.03762) two.\n\n## Sources\n\n- Many words here, §3.\n"
    assert instructor.prose_words(page) == 4  # Two, words, One, two


def test_a_pages_reading_words_leave_out_code_log_excerpts_and_formulas():
    page = "# Two words\n\nOne {value}`s2.dot.river` three.\n\n```{log-lines} s2.dots\n```\n\n$$a \\cdot b$$\n\n```python\nx = 1\n```\n"
    assert instructor.prose_words(page) == 5


# --- shell blocks ----------------------------------------------------------------------------


def builtins_after_the_command(block: str) -> list[str]:
    """The words of a highlighted shell block coloured as a builtin (`nb`) though they stand after
    a command's first word, as `test` in `make test` ("make test" for each)."""
    found = []
    for line in block.split("\n"):
        for match in re.finditer(r'<span class="nb">([^<]*)</span>', line):
            before = html.unescape(re.sub(r"<[^>]+>", "", line[: match.start()])).strip()
            if before and not before.endswith((";", "&&", "||", "|", "(")):
                found.append(f"{before} {match.group(1)}")
    return found


def test_a_shell_builtin_is_coloured_only_where_a_command_starts():
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    from attention_by_hand.site.sphinxext.shell import CommandLexer

    block = highlight("make test   # all of it\nsource .venv/bin/activate && test -f x\n", CommandLexer(), HtmlFormatter())
    assert builtins_after_the_command(block) == []
    assert re.findall(r'<span class="nb">(\w+)</span>', block) == ["source", "test"]


def test_no_shell_block_of_the_site_colours_a_commands_argument_as_a_builtin(canonical_site):
    blocks = [
        block
        for page in sorted(canonical_site.out.glob("*.html"))
        for block in re.findall(r'<div class="highlight-(?:sh|bash|shell)[^"]*"><div class="highlight"><pre>(.*?)</pre>', page.read_text(), re.S)
    ]
    assert blocks  # the site has shell blocks at all
    assert [word for block in blocks for word in builtins_after_the_command(block)] == []


# --- the log page ----------------------------------------------------------------------------


def test_the_canonical_site_builds_without_a_warning(canonical_site):
    assert canonical_site.code == 0, canonical_site.printed


def test_the_log_page_text_is_the_log_file_text(canonical_site):
    page = (canonical_site.out / "log.html").read_text(encoding="utf-8")
    block = re.search(r'<pre class="results-log"[^>]*>(.*?)</pre>', page, re.S).group(1)
    # Tags out, entities decoded: what a reader's copy holds. The block ends with one more newline
    # than the file, which Chromium neither draws nor copies (tests/browser/test_log_page.py).
    assert html.unescape(re.sub(r"<[^>]+>", "", block)) == (CAPTURES / "results.log").read_text(encoding="utf-8") + "\n"


def test_the_log_page_links_a_copy_of_the_log_file_inside_the_site(canonical_site):
    page = (canonical_site.out / "log.html").read_text(encoding="utf-8")
    href = re.search(r'<a class="reference download internal" download="" href="([^"]+)"', page).group(1)
    assert (canonical_site.out / href).read_bytes() == (CAPTURES / "results.log").read_bytes()


# --- display math ------------------------------------------------------------------------------


def test_a_display_formula_is_cut_into_its_equations_at_each_qquad():
    assert equations(r"S = X X^\top, \qquad A = \operatorname{softmax}(S)") == [r"S = X X^\top,", r"A = \operatorname{softmax}(S)"]


def test_a_qquad_inside_braces_or_left_right_does_not_cut():
    latex = r"f\left(a \qquad b\right) = \text{x {\qquad} y}"
    assert equations(latex) == [latex]


# --- one more log line renumbers every cross-check, with no page touched ----------------------


def cross_checks(site: Path) -> dict[str, list[tuple[int, int]]]:
    """Per module page, the (first, last) lines of every cross-check link, in page order."""
    found = {}
    for page in sorted(site.glob("module-*.html")):
        hrefs = re.findall(r'href="log\.html#L(\d+)(?:-L(\d+))?"', page.read_text())
        found[page.name] = [(int(a), int(b or a)) for a, b in hrefs]
    return found


def test_one_more_log_line_in_s2_renumbers_every_cross_check(canonical_site, tmp_path, monkeypatch):
    original_s2 = sections.s2_dot_and_softmax

    def s2_with_one_more_line(log, world):
        with log.span("s2.extra"):
            log.line("  (one more line, as if S2 had learned something new)")
        original_s2(log, world)

    monkeypatch.setattr(sections, "s2_dot_and_softmax", s2_with_one_more_line)
    # No figures drawn: the committed ones are copied in below (one more log line draws none other).
    parts.default_part().run(RunContext(out=tmp_path / "changed", background=False, figures=False))
    # The other parts' logs, indexes and figures, as committed: only results.log gains a line.
    for name in (part.log_stem for part in parts.PARTS[1:]):
        for suffix in (".log", ".index.json"):
            shutil.copy(CAPTURES / f"{name}{suffix}", tmp_path / "changed" / "captures")
    shutil.copytree(ROOT / "diagrams", tmp_path / "changed" / "diagrams", dirs_exist_ok=True)
    code, printed = build(WORKSHOP, tmp_path / "site-changed", tmp_path / "changed" / "captures")
    assert code == 0, printed

    before, after = cross_checks(canonical_site.out), cross_checks(tmp_path / "site-changed")
    assert before.keys() == after.keys() and sum(map(len, before.values())) > 10
    s2_starts = json.loads((CAPTURES / "results.index.json").read_text())["spans"]["s2"][0]
    for page in before:
        expected = [(a + 1, b + 1) if a >= s2_starts else (a, b) for a, b in before[page]]
        assert after[page] == expected, page


def test_a_rebuild_after_a_new_run_quotes_the_new_values_not_the_last_builds(tmp_path):
    """Sphinx keeps its environment between builds: the index it read last time must not outlive it."""
    captures = tmp_path / "run" / "captures"
    shutil.copytree(CAPTURES, captures)
    source = mini_site(tmp_path, {"value": "# Page\n\nThe dot is {value}`s2.dot.river`.\n"})
    assert build(source, tmp_path / "out", captures)[0] == 0
    index = json.loads((captures / "results.index.json").read_text())
    index["values"]["s2.dot.river"]["text"] = "9.999"  # as if a new run had printed another number
    (captures / "results.index.json").write_text(json.dumps(index))
    code, printed = build(source, tmp_path / "out", captures)
    assert code == 0, printed
    assert '<span class="run-value">9.999</span>' in (tmp_path / "out" / "value.html").read_text()


# --- the build command (staleness itself: tests/run/test_stamp.py) --------------------------------


def test_build_command_runs_a_missing_experiment_then_builds(run_all, tmp_path, monkeypatch, capsys):
    # Every other part's outputs are there and current (a copy of the session's `run all`): the
    # canonical part's are missing, and only it has to run (the rule per part: tests/run/test_stamp.py).
    shutil.copytree(run_all, tmp_path, dirs_exist_ok=True)
    canonical = parts.default_part()
    for name in (canonical.log_path, canonical.log_path.replace(".log", ".index.json"), canonical.stamp_path):
        (tmp_path / name).unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--source", str(WORKSHOP), "--out", "site"]) == 0
    said = capsys.readouterr().out
    assert "outputs are stale, running it first" in said
    assert (tmp_path / "captures" / "results.log").is_file()
    assert (tmp_path / "site" / "log.html").is_file()


def test_server_serves_the_site_on_loopback_only(tmp_path):
    import threading
    import urllib.request

    from attention_by_hand.site.website import make_server

    (tmp_path / "index.html").write_text("<p>hello</p>")
    server = make_server(tmp_path, 0)
    host, port = server.server_address
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=60) as response:
            assert response.read() == b"<p>hello</p>"
    finally:
        server.shutdown()
        server.server_close()
    assert host == "127.0.0.1"


def test_serving_on_a_port_in_use_is_a_one_line_error(tmp_path):
    from attention_by_hand.errors import UserError
    from attention_by_hand.site.website import make_server

    first = make_server(tmp_path, 0)
    try:
        with pytest.raises(UserError, match=r"cannot serve there"):
            make_server(tmp_path, first.server_address[1])
    finally:
        first.server_close()
