"""The site build: pages quote the run by reference only, and a stale reference fails the build."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import attention_by_hand.experiment as experiment
from attention_by_hand.cli import main
from attention_by_hand.website import build_site, capture_is_stale

ROOT = Path(__file__).resolve().parents[1]
WORKSHOP = ROOT / "workshop"
CAPTURES = ROOT / "captures"
# What a page may use to say a number: the {value} role, or a {name} placeholder in an :alt: text.
ROLE = re.compile(r"\{value\}`[^`]*`|\{[a-z][\w.\-]*\}")


def mini_site(tmp_path: Path, page: str) -> Path:
    """A site with the real conf.py and static files and one page, `page.md`."""
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(WORKSHOP / "conf.py", source / "conf.py")
    shutil.copytree(WORKSHOP / "_static", source / "_static")
    (source / "index.md").write_text("# Index\n\n```{toctree}\npage\nlog\n```\n")
    (source / "log.md").write_text("# Log\n\n```{results-log}\n```\n")
    (source / "page.md").write_text(page)
    return source


def build(source: Path, out: Path, captures: Path = CAPTURES) -> tuple[int, str]:
    return build_site(source, out, captures)


# --- nothing typed by hand -------------------------------------------------------------------


@pytest.mark.parametrize("page", sorted(p.name for p in WORKSHOP.glob("*.md")))
def test_page_types_no_decimal_number_outside_a_value_reference(page):
    text = ROLE.sub("", (WORKSHOP / page).read_text())
    typed = [line for line in text.splitlines() if re.search(r"\d\.\d", line)]
    assert typed == []


# --- a missing reference fails the build, naming the page and line ----------------------------


def test_missing_span_fails_the_build_with_page_and_line(tmp_path):
    source = mini_site(tmp_path, "# Page\n\nText.\n\n```{log-lines} s2.no_such_span\n```\n")
    code, printed = build(source, tmp_path / "out")
    assert code != 0
    assert re.search(r"page\.md:5: WARNING: span 's2\.no_such_span' is not in the run's index", printed)


def test_missing_value_fails_the_build_with_page_and_line(tmp_path):
    source = mini_site(tmp_path, "# Page\n\nThe dot is {value}`s2.dot.nowhere`.\n")
    code, printed = build(source, tmp_path / "out")
    assert code != 0
    assert re.search(r"page\.md:3: WARNING: value 's2\.dot\.nowhere' is not in the run's index", printed)


def test_missing_function_fails_the_build_with_page_and_line(tmp_path):
    mechanism = os.path.relpath(ROOT / "src" / "attention_by_hand" / "mechanism.py", tmp_path / "src")
    source = mini_site(tmp_path, f"# Page\n\n```{{literalinclude}} {mechanism}\n:pyobject: no_such_function\n```\n")
    code, printed = build(source, tmp_path / "out")
    assert code != 0
    assert re.search(r"page\.md:3: WARNING: .*no_such_function", printed)


def test_figure_without_alt_text_fails_the_build(tmp_path):
    source = mini_site(tmp_path, "# Page\n\n```{run-figure} causal_mask\nA caption.\n```\n")
    code, printed = build(source, tmp_path / "out")
    assert code != 0
    assert "causal_mask" in printed and "alt" in printed


def test_value_role_prints_the_text_the_log_printed(tmp_path):
    source = mini_site(tmp_path, "# Page\n\nThe dot is {value}`s2.dot.river`.\n")
    code, printed = build(source, tmp_path / "out")
    assert code == 0, printed
    index = json.loads((CAPTURES / "results.index.json").read_text())
    html = (tmp_path / "out" / "page.html").read_text()
    assert f'<span class="run-value">{index["values"]["s2.dot.river"]["text"]}</span>' in html


# --- one more log line renumbers every cross-check, with no page touched ----------------------


def cross_checks(site: Path) -> dict[str, list[tuple[int, int]]]:
    """Per module page, the (first, last) lines of every cross-check link, in page order."""
    found = {}
    for page in sorted(site.glob("module-*.html")):
        hrefs = re.findall(r'href="log\.html#L(\d+)(?:-L(\d+))?"', page.read_text())
        found[page.name] = [(int(a), int(b or a)) for a, b in hrefs]
    return found


def test_one_more_log_line_in_s2_renumbers_every_cross_check(tmp_path, monkeypatch):
    original_s2 = experiment.s2_dot_and_softmax

    def s2_with_one_more_line(r):
        with r.log.span("s2.extra"):
            r.log.line("  (one more line, as if S2 had learned something new)")
        original_s2(r)

    monkeypatch.setattr(experiment, "s2_dot_and_softmax", s2_with_one_more_line)
    experiment.run(out=tmp_path / "changed", background=False)
    code, printed = build(WORKSHOP, tmp_path / "site-changed", tmp_path / "changed" / "captures")
    assert code == 0, printed
    code, printed = build(WORKSHOP, tmp_path / "site-canonical", CAPTURES)
    assert code == 0, printed

    before, after = cross_checks(tmp_path / "site-canonical"), cross_checks(tmp_path / "site-changed")
    assert before.keys() == after.keys() and sum(map(len, before.values())) > 10
    s2_starts = json.loads((CAPTURES / "results.index.json").read_text())["spans"]["s2"][0]
    for page in before:
        expected = [(a + 1, b + 1) if a >= s2_starts else (a, b) for a, b in before[page]]
        assert after[page] == expected, page


# --- build: staleness and the command ---------------------------------------------------------


def test_outputs_without_a_stamp_are_stale(tmp_path):
    (tmp_path / "captures").mkdir()
    shutil.copy(CAPTURES / "results.log", tmp_path / "captures" / "results.log")
    assert capture_is_stale(tmp_path)


def test_a_fresh_run_is_not_stale_and_an_edited_stamp_is(tmp_path):
    experiment.run(out=tmp_path)
    assert not capture_is_stale(tmp_path)
    (tmp_path / experiment.STAMP_PATH).write_text("something else\n")
    assert capture_is_stale(tmp_path)


def test_a_hand_edited_log_is_stale(tmp_path):
    experiment.run(out=tmp_path)
    log = tmp_path / "captures" / "results.log"
    log.write_text(log.read_text().replace("= 0.540", "= 0.999"))
    assert capture_is_stale(tmp_path)


def test_a_missing_figure_is_stale(tmp_path):
    experiment.run(out=tmp_path)
    (tmp_path / "diagrams" / "causal_mask.png").unlink()
    assert capture_is_stale(tmp_path)


def test_the_stamp_changes_with_the_world():
    from attention_by_hand.world import RIVER_BANK, parse_world

    other = parse_world((ROOT / "worlds" / "river-bank.toml").read_text().replace("bank = [0.3", "bank = [0.4"))
    assert experiment.fingerprint(RIVER_BANK, "env") != experiment.fingerprint(other, "env")


def test_run_modules_list_every_module_the_run_imports():
    code = (
        "import sys, attention_by_hand.experiment, attention_by_hand.measurements\n"
        "print(sorted(m.split('.')[1] for m in sys.modules if m.startswith('attention_by_hand.')))"
    )
    imported = set(eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout))
    assert imported <= set(experiment.RUN_MODULES)


def test_build_command_runs_a_missing_experiment_then_builds(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--source", str(WORKSHOP), "--out", "site"]) == 0
    said = capsys.readouterr().out
    assert "running the experiment first" in said
    assert (tmp_path / "captures" / "results.log").is_file()
    assert (tmp_path / "site" / "log.html").is_file()


def test_server_serves_the_site_on_loopback_only(tmp_path):
    import threading
    import urllib.request

    from attention_by_hand.website import make_server

    (tmp_path / "index.html").write_text("<p>hello</p>")
    server = make_server(tmp_path, 0)
    host, port = server.server_address
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=5) as response:
            assert response.read() == b"<p>hello</p>"
    finally:
        server.shutdown()
        server.server_close()
    assert host == "127.0.0.1"


def test_serving_on_a_port_in_use_is_a_one_line_error(tmp_path):
    from attention_by_hand.errors import UserError
    from attention_by_hand.website import make_server

    first = make_server(tmp_path, 0)
    try:
        with pytest.raises(UserError, match=r"cannot serve there"):
            make_server(tmp_path, first.server_address[1])
    finally:
        first.server_close()
