"""The worksheet and its key: every answer is the run's, with the log line that prints it.

The canonical sheet is checked against the committed canonical run; fifty worlds for pencils are
each written to a file, read back, run, and their keys checked against their own runs, along with
what the page promises about them (exact sums, no ties, the table's path landing on the run's
numbers, the story each world tells), read from each run's index, not from the generator.
Printing (Chromium) is tests/browser/test_worksheet_print.py's.
"""

from __future__ import annotations

import html
import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from attention_by_hand import parts
from attention_by_hand.cli import main
from attention_by_hand.errors import UserError
from attention_by_hand.run.capture import printed_in
from attention_by_hand.run.part import RunContext
from attention_by_hand.run.pencil_worlds import pencil_world, table_exp, world_comment
from attention_by_hand.run.world import RIVER_BANK, World, dump_world, load_world
from attention_by_hand.site import printing, sheets, worksheet
from runhelpers import ROOT

CAPTURES = ROOT / "captures"
INDEX = json.loads((CAPTURES / "results.index.json").read_text(encoding="utf-8"))
LOG = (CAPTURES / "results.log").read_text(encoding="utf-8").split("\n")[:-1]
BOX = re.compile(r'<span class="blank" data-blank="([\d.]+)"[^>]*><span class="blank-number">([\d.]+)</span></span>')


def canonical_sheet(index: dict | None = None) -> worksheet.Sheet:
    choice = sheets.choose(None, None)
    return sheets.make_sheet(choice.world, choice.source, choice.title, "world.toml", index)


@pytest.fixture(scope="module")
def canonical():
    """The canonical sheet, its world run afresh (as the command does)."""
    return canonical_sheet()


def check_answers(sheet: worksheet.Sheet, index: dict, lines: list[str]) -> None:
    """Every blank's answer is the index's text, on a line that prints it (or its source, derived)."""
    assert sheet.blanks
    for blank in sheet.blanks:
        a = blank.answer
        assert a.text == index["values"][a.name]["text"], blank
        if a.derived:
            assert index["values"][a.name].get("derived") is True, blank
            assert any(printed_in(v["text"], lines[a.line - 1]) for v in index["values"].values() if v.get("line") == a.line), blank
        else:
            assert a.line == index["values"][a.name]["line"], blank
            assert printed_in(a.text, lines[a.line - 1]), blank


# --- the canonical sheet ---------------------------------------------------------------------------


def test_the_canonical_worksheets_answers_are_the_canonical_runs_values(canonical):
    check_answers(canonical, INDEX, LOG)


def test_the_canonical_sheet_asks_for_every_dot_of_bank_and_the_scores_weights_and_rows_the_log_prints(canonical):
    names = {b.answer.name for b in canonical.blanks}
    assert {f"s2.dot.{w}" for w in RIVER_BANK.words} <= names
    assert {f"s2.weights.{i}" for i in range(3)} | {f"s2.exp.{i}" for i in range(3)} | {"s2.exp_sum"} <= names
    assert {f"s3.output.0.{a}" for a in RIVER_BANK.axes} <= names
    assert {"s4.q.2.topic", "s4.q.2.place", "s4.k.2.topic", "s4.k.2.place"} | {f"s4.scores.2.{j}" for j in range(3)} <= names


def test_the_key_lists_every_box_with_its_answer_and_line(canonical):
    key = worksheet.render_key(canonical)
    rows = re.findall(r'<tr data-blank="([\d.]+)" data-name="([\w.]+)" data-line="(\d+)">.*?<td class="answer">([^<]*)</td>', key, re.S)
    assert [(n, name, int(line), text) for n, name, line, text in rows] == [
        (b.number, b.answer.name, b.answer.line, html.escape(b.answer.text)) for b in canonical.blanks
    ]


def test_every_box_on_the_worksheet_is_empty_but_for_its_number(canonical):
    page = worksheet.render_worksheet(canonical)
    boxes = BOX.findall(page)  # in the page's order: exercise 2 goes row by row
    assert sorted(a for a, b in boxes if a == b) == sorted(b.number for b in canonical.blanks)
    assert page.count('class="blank"') == len(canonical.blanks)


def test_the_worksheet_has_a_page_for_the_world_and_one_per_exercise(canonical):
    page = worksheet.render_worksheet(canonical)
    assert page.count('<section class="page') == sheets.WORKSHEET_PAGES == 1 + len(canonical.exercises)


def test_the_e_to_the_x_table_holds_every_score_with_the_runs_exponential(canonical):
    table = canonical.layout["table"]
    rows = dict(table.rows)
    for i in range(3):
        score = INDEX["values"][f"s2.scores.{i}"]["text"]  # "0.540"
        row, column = score[:3], int(score[3])
        assert rows[row][column] == INDEX["values"][f"s2.exp.{i}"]["text"]


def test_the_worksheet_gives_no_answer_on_its_pages(canonical):
    # The keys of the other words are given; bank's own q, k and scores are not.
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", worksheet.render_worksheet(canonical), flags=re.S))
    for name in ("s2.dot.river", "s2.weights.1", "s3.output.0.water", "s4.scores.2.1"):
        exact = INDEX["values"][name]["value"]
        for shown in {INDEX["values"][name]["text"], f"{exact:.2f}", f"{exact:g}"}:
            assert not printed_in(shown, text), (name, shown)


def test_a_worlds_table_with_scores_far_apart_shows_only_their_rows():
    table = worksheet.exp_table([0.0, 4.21])
    assert [label for label, _ in table.rows] == ["0.0", "4.2"] and table.gaps
    assert table.rows[1][1][1] == table_exp(4.21)


# --- refusals ----------------------------------------------------------------------------------------


def test_a_world_too_big_for_a_page_is_refused_in_one_line():
    axes = tuple(f"a{i}" for i in range(worksheet.LIMITS["axes"] + 1))
    big = World(axes, ("c",), (("x", "y"), ("y", "y")), {"x": (0.1,) * len(axes), "y": (0.2,) * len(axes)},
                tuple((1.0,) for _ in axes), tuple((1.0,) for _ in axes))  # fmt: skip
    with pytest.raises(UserError, match=r"big\.toml: a worksheet holds at most 5 axes .*this world has 6"):
        worksheet.check_fits(big, "big.toml")


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["worksheet", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--seed", "abc"], "--seed 'abc': not a whole number"),
        (["--seed", "-1"], "--seed -1: must be from 0 to 999,999,999"),
        (["--seed", "1000000000"], "--seed 1000000000: must be from 0"),
        (["--room", "0"], "--room 0: must be from 1"),
        (["--room", "3", "--first-seed", "999999999"], "would need seeds up to 1,000,000,001"),
        (["--first-seed", "3"], "--first-seed 3: goes with --room N"),
        (["--room", "2", "--seed", "3"], "a room is made of worlds for pencils"),
        (["--seed", "3", "--world", "w.toml"], "--world and --seed each choose the world"),
    ],
)
def test_a_bad_seed_or_room_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, argv, says):
    out = tmp_path / "out"
    code, printed, err = cli(capsys, *argv, "--out", str(out))
    assert (code, printed) == (2, "")
    assert err.count("\n") == 1 and err.startswith("attention-by-hand: error: ") and says in err
    assert not out.exists()


@pytest.mark.parametrize(
    "text, says",
    [
        ("axes = [\n", "not valid TOML"),
        ('axes = ["a", "b"]\n', "channels: missing"),
        ("\x00binary", "binary"),
    ],
)
def test_a_malformed_world_file_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, text, says):
    world, out = tmp_path / "bad.toml", tmp_path / "out"
    world.write_text(text)
    code, printed, err = cli(capsys, "--world", str(world), "--out", str(out))
    assert (code, printed) == (2, "")
    assert err.count("\n") == 1 and str(world) in err and says in err
    assert not out.exists()


def test_a_world_file_too_big_for_a_page_exits_2_before_anything_runs(tmp_path, capsys):
    names = [f"w{i}" for i in range(worksheet.LIMITS["words"] + 1)]
    rows = "".join(f"{n} = [0.1, 0.2]\n" for n in names)
    world, out = tmp_path / "many.toml", tmp_path / "out"
    world.write_text(
        f'axes = ["a", "b"]\nchannels = ["c"]\nsentences = [["w0", "w1"], ["w2", "w1"]]\n[embeddings]\n{rows}'
        "[wired]\nW_Q = [[1.0], [0.0]]\nW_K = [[0.0], [1.0]]\n"
    )
    code, _, err = cli(capsys, "--world", str(world), "--out", str(out))
    assert code == 2 and "at most 6 words" in err and err.count("\n") == 1
    assert not out.exists()


def test_an_out_that_is_a_file_exits_2(tmp_path, capsys):
    out = tmp_path / "taken"
    out.write_text("mine")
    code, _, err = cli(capsys, "--seed", "3", "--out", str(out))
    assert code == 2 and "must be a folder" in err
    assert out.read_text() == "mine"


def test_a_room_takes_consecutive_seeds_from_the_first():
    assert sheets.room_seeds("4", "98") == [98, 99, 100, 101]


# --- PDFs without Chromium's dates ---------------------------------------------------------------


def test_fixed_dates_sets_both_dates_and_keeps_every_offset():
    pdf = b"%PDF-1.4\n1 0 obj <</CreationDate (D:20261201134732+00'00')\n/ModDate (D:20261201134739+00'00')>>\nendobj\n"
    fixed = printing.fixed_dates(pdf)
    assert len(fixed) == len(pdf)
    assert fixed.count(printing.FIXED_DATE) == 2 and b"2026" not in fixed


def test_fixed_dates_refuses_a_pdf_without_chromiums_two_dates():
    with pytest.raises(ValueError, match="found 1"):
        printing.fixed_dates(b"/CreationDate (D:20261201134732+00'00')")


# --- fifty worlds for pencils, each run ----------------------------------------------------------


def half_up(x: Decimal, places: int = 3) -> str:
    return str(x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def check_promises(world: World, index: dict) -> None:
    """What the page promises of a world for pencils, read from its run's index."""
    v = {name: entry["text"] for name, entry in index["values"].items()}
    sentence, last, ctx = world.sentences[0], len(world.sentences[0]) - 1, len(world.sentences[0]) - 2
    # Exact sums of at most three digits: the printed dot products, q, k and scores.
    exact = [v[f"s2.dot.{w}"] for w in world.words] + [v[f"s4.scores.{last}.{j}"] for j in range(len(sentence))]
    exact += [v[f"s4.{qk}.{last}.{c}"] for qk in "qk" for c in world.channels]
    for text in exact:
        assert abs(Decimal(text)) < 10 and Decimal(text) == Decimal(text).quantize(Decimal("0.01")), text
    # The table's path: e^score from the table, weights rounded, then the weighted sum.
    exps = [Decimal(table_exp(float(v[f"s2.scores.{i}"]))) for i in range(len(sentence))]
    weights = [half_up(e / sum(exps)) for e in exps]
    assert weights == [v[f"s2.weights.{i}"] for i in range(len(sentence))]
    for axis in world.axes:
        by_hand = sum(Decimal(w) * Decimal(v[f"s1.embedding.{word}.{axis}"]) for w, word in zip(weights, sentence))
        assert half_up(by_hand) == v[f"s3.output.0.{axis}"], axis
    # No ties: weights at least a hundredth apart.
    numbers = [index["values"][f"s2.weights.{i}"]["value"] for i in range(len(sentence))]
    assert min(abs(a - b) for i, a in enumerate(numbers) for b in numbers[i + 1 :]) >= 0.01
    # The story: each sentence's sense wins in raw attention; the context wins the wired head.
    a0, a1 = world.axes[:2]
    assert float(v[f"s3.output.0.{a0}"]) > float(v[f"s3.output.0.{a1}"])
    assert float(v[f"s3.output.1.{a1}"]) > float(v[f"s3.output.1.{a0}"])
    scores = [index["values"][f"s4.scores.{last}.{j}"]["value"] for j in range(len(sentence))]
    assert max(range(len(scores)), key=scores.__getitem__) == ctx and sorted(scores)[-2] < scores[ctx]


@pytest.mark.slow
def test_fifty_worlds_for_pencils_pass_the_checks_run_and_their_keys_equal_their_runs(tmp_path):
    for seed in range(50):
        world = pencil_world(seed)
        path = tmp_path / f"seed-{seed}.toml"
        path.write_text(dump_world(world, world_comment(seed)), encoding="utf-8")
        assert load_world(path) == world  # the world file's own checks
        result = parts.default_part().run(RunContext(out=tmp_path / str(seed), world=world, background=False, figures=False))
        index = worksheet.read_index(result.index_path)
        sheet = sheets.make_sheet(world, f"seed {seed}", f"seed {seed}", path.name, index)
        check_answers(sheet, index, result.log_text.split("\n")[:-1])
        check_promises(world, index)


def test_the_canonical_world_keeps_the_promises_of_a_world_for_pencils():
    check_promises(RIVER_BANK, INDEX)


def test_the_site_writes_the_commands_canonical_files_without_a_run(canonical):
    # From the committed index, no Chromium: the HTML files and the world file the command writes.
    files = sheets.canonical_files(INDEX, None, ())
    assert set(files) == {"worksheet.html", "key.html", "world.toml"}
    assert files["worksheet.html"].decode() == worksheet.render_worksheet(canonical)
    assert files["key.html"].decode() == worksheet.render_key(canonical)
    assert load_world_text(files["world.toml"]) == RIVER_BANK


def load_world_text(data: bytes) -> World:
    from attention_by_hand.run.world import parse_world

    return parse_world(data.decode("utf-8"))


def test_a_key_line_of_a_derived_answer_is_where_its_source_is_printed(canonical):
    exp = next(b for b in canonical.blanks if b.answer.name == "s2.exp.1")
    assert exp.answer.derived and exp.answer.line == INDEX["values"]["s2.scores.1"]["line"]


def test_the_run_index_is_a_run_of_that_world(tmp_path):
    world = pencil_world(11)
    index = sheets.run_index(world)
    assert [index["values"][f"s1.embedding.{w}.{a}"]["value"] for w in world.words for a in world.axes] == [
        x for w in world.words for x in world.embeddings[w]
    ]
    assert Path(index["log"]).name == "results.log"


def test_the_readme_states_the_limits_the_code_keeps():
    from attention_by_hand.run.pencil_worlds import MAX_SEED, WEIGHT_GAP

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    limits = worksheet.LIMITS
    stated = (
        f"at most {limits['words']} words, sentences of {limits['sentence']}, {limits['axes']} axes, "
        f"{limits['channels']} channels and names of {limits['name']} characters"
    )
    assert stated in readme
    assert f"(0 to {MAX_SEED:,})" in readme and f"(at most {sheets.MAX_ROOM})" in readme
    assert f"two weights closer than {WEIGHT_GAP}" in readme
