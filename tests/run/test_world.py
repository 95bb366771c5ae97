"""The world loader: the canonical file, and one test per refusal of a malformed world.

Every refusal is a UserError with one line, `<file>: <key>: <what is wrong>`. Bad worlds are
built from a valid baseline (the canonical world, written out below fragment by fragment)
by changing exactly one thing, so each test shows which fault it is about.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_by_hand.run import world as world_module
from attention_by_hand.errors import UserError
from attention_by_hand.run.world import RIVER_BANK, World, dump_world, load_world, parse_world

WORLD_FILE = Path(__file__).resolve().parents[2] / "worlds" / "river-bank.toml"

# The canonical world as TOML fragments, in file order (top-level keys before the tables).
PARTS = {
    "axes": 'axes = ["water", "money", "place", "filler"]',
    "channels": 'channels = ["topic", "place"]',
    "sentences": 'sentences = [["the", "river", "bank"], ["the", "money", "bank"]]',
    "embeddings": "\n".join(
        [
            "[embeddings]",
            "the = [0.0, 0.0, 0.0, 1.0]",
            "river = [0.9, 0.0, 0.3, 0.0]",
            "money = [0.0, 0.9, 0.1, 0.0]",
            "bank = [0.3, 0.3, 0.9, 0.0]",
        ]
    ),
    "wired": "\n".join(
        [
            "[wired]",
            "W_Q = [[0.0, 0.0], [0.0, 0.0], [2.0, 0.0], [0.0, 1.5]]",
            "W_K = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]",
        ]
    ),
}


def world_text(**parts: str | None) -> str:
    """The canonical world as TOML; a keyword replaces that fragment, None drops it."""
    merged = {**PARTS, **parts}
    return "\n".join(text for text in merged.values() if text is not None) + "\n"


def edited(old: str, new: str) -> str:
    """The canonical world text with `old` (which must occur exactly once) replaced by `new`."""
    text = world_text()
    assert text.count(old) == 1, f"test bug: {old!r} is not in the baseline exactly once"
    return text.replace(old, new)


def refusal(tmp_path: Path, text: str) -> tuple[Path, str]:
    """Write `text` to a world file, load it, and return (path, message) of the refusal."""
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as info:
        load_world(path)
    message = str(info.value)
    assert "\n" not in message, f"not a one-line message: {message!r}"
    return path, message


def refused(tmp_path: Path, text: str, key: str) -> str:
    """Assert the refusal names the file and `key`; return what it says is wrong."""
    path, message = refusal(tmp_path, text)
    prefix = f"{path}: {key}: "
    assert message.startswith(prefix), f"{message!r} does not start with {prefix!r}"
    return message[len(prefix) :]


# --- valid worlds -------------------------------------------------------------------------


def test_canonical_world_file_loads_equal_to_river_bank():
    assert load_world(WORLD_FILE) == RIVER_BANK


def test_baseline_text_of_these_tests_is_the_canonical_world():
    # Guards every refusal below: the baseline itself is accepted, so a refusal is the edit's.
    assert parse_world(world_text()) == RIVER_BANK


def test_custom_world_parses_to_tuples_in_file_order():
    text = "\n".join(
        [
            'axes = ["zeta", "alpha", "mid"]',
            'channels = ["only"]',
            'sentences = [["b", "z", "a"], ["z", "b", "a"]]',
            "[embeddings]",
            "z = [1, 0, 0]",
            "b = [0.5, -2, 0.0]",
            "a = [0, 0.5, 1]",
            "[wired]",
            "W_Q = [[1], [0], [2]]",
            "W_K = [[0.5], [1], [0]]",
        ]
    )
    world = parse_world(text)
    assert world == World(
        axes=("zeta", "alpha", "mid"),
        channels=("only",),
        sentences=(("b", "z", "a"), ("z", "b", "a")),
        embeddings={"z": (1.0, 0.0, 0.0), "b": (0.5, -2.0, 0.0), "a": (0.0, 0.5, 1.0)},
        W_Q=((1.0,), (0.0,), (2.0,)),
        W_K=((0.5,), (1.0,), (0.0,)),
    )
    # dict equality ignores order; the vocabulary order is the file's.
    assert world.words == ["z", "b", "a"]
    assert all(type(v) is float for row in world.embeddings.values() for v in row)


def test_canonical_world_prints_with_one_decimal():
    assert RIVER_BANK.decimals == 1


def test_world_with_a_quarter_prints_with_two_decimals():
    world = parse_world(edited("river = [0.9, 0.0, 0.3, 0.0]", "river = [0.9, 0.0, 0.25, 0.0]"))
    assert world.decimals == 2


# --- refusals: the file itself ------------------------------------------------------------


def test_missing_world_file_is_refused(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(UserError, match="no such file") as info:
        load_world(path)
    assert str(info.value).startswith(f"{path}: ")


def test_non_utf8_world_file_is_refused(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"axes = [\xff\xfe\x81]\n")
    with pytest.raises(UserError, match="not UTF-8 text") as info:
        load_world(path)
    assert str(info.value).startswith(f"{path}: ")


def test_world_file_with_a_nul_byte_is_refused_as_binary(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"axes = [\x00]\n")
    with pytest.raises(UserError, match="a binary file") as info:
        load_world(path)
    assert str(info.value).startswith(f"{path}: ")


def test_world_file_over_the_size_limit_is_refused(tmp_path):
    path = tmp_path / "huge.toml"
    # A valid world padded with a comment: only the size is wrong.
    text = world_text() + "#" * world_module.MAX_FILE_BYTES
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match="too large for a world file") as info:
        load_world(path)
    assert str(info.value).startswith(f"{path}: ")


def test_text_that_is_not_toml_is_refused_with_its_line(tmp_path):
    path, message = refusal(tmp_path, world_text() + "this is not toml\n")
    line = world_text().count("\n") + 1
    assert message.startswith(f"{path}: not valid TOML (")
    assert f"line {line}," in message


# --- refusals: top-level keys -------------------------------------------------------------


@pytest.mark.parametrize("key", ["axes", "channels", "sentences", "embeddings", "wired"])
def test_missing_top_level_key_is_refused(tmp_path, key):
    assert refused(tmp_path, world_text(**{key: None}), key=key) == "missing"


def test_unknown_top_level_key_is_refused(tmp_path):
    what = refused(tmp_path, "colour = 1\n" + world_text(), key="colour")
    assert what.startswith("unknown key")


# --- refusals: axes and channels ----------------------------------------------------------


def test_axes_with_fewer_than_two_names_are_refused(tmp_path):
    text = world_text(axes='axes = ["water"]')
    assert refused(tmp_path, text, key="axes") == "must be a list of at least 2 names"


def test_duplicate_axis_name_is_refused(tmp_path):
    text = world_text(axes='axes = ["water", "money", "water", "filler"]')
    assert refused(tmp_path, text, key="axes") == "'water' appears twice"


def test_axis_name_with_a_slash_is_refused(tmp_path):
    # Axis names become parts of figure file names.
    text = world_text(axes='axes = ["water", "money/cash", "place", "filler"]')
    assert "'money/cash' is not a name" in refused(tmp_path, text, key="axes")


def test_empty_channels_are_refused(tmp_path):
    text = world_text(channels="channels = []")
    assert refused(tmp_path, text, key="channels") == "must be a list of at least 1 names"


# --- refusals: embeddings -----------------------------------------------------------------


def test_embedding_row_of_the_wrong_length_is_refused(tmp_path):
    text = edited("river = [0.9, 0.0, 0.3, 0.0]", "river = [0.9, 0.0, 0.3]")
    what = refused(tmp_path, text, key="embeddings.river")
    assert what == "must be 4 numbers (one per axis), got 3"


def test_string_in_an_embedding_row_is_refused(tmp_path):
    text = edited("river = [0.9, 0.0, 0.3, 0.0]", 'river = [0.9, "high", 0.3, 0.0]')
    assert refused(tmp_path, text, key="embeddings.river") == "'high' is not a number"


def test_boolean_in_an_embedding_row_is_refused(tmp_path):
    # `true` is an int to Python; in a world file it is a typo, not the number 1.
    text = edited("river = [0.9, 0.0, 0.3, 0.0]", "river = [0.9, true, 0.3, 0.0]")
    assert refused(tmp_path, text, key="embeddings.river") == "True is not a number"


@pytest.mark.parametrize("number", ["inf", "-inf", "nan"])
def test_non_finite_number_in_an_embedding_row_is_refused(tmp_path, number):
    text = edited("river = [0.9, 0.0, 0.3, 0.0]", f"river = [0.9, {number}, 0.3, 0.0]")
    assert refused(tmp_path, text, key="embeddings.river") == f"{float(number)} is not a finite number"


def test_integer_too_large_for_a_float_is_refused(tmp_path):
    # TOML integers are 64-bit, but the parser accepts any length; 400 digits cannot be a float.
    text = edited("river = [0.9, 0.0, 0.3, 0.0]", f"river = [{'9' * 400}, 0.0, 0.3, 0.0]")
    what = refused(tmp_path, text, key="embeddings.river")
    assert "not a finite number" in what or "not a number" in what or "too large" in what


def test_duplicate_word_is_refused_as_invalid_toml_at_its_line(tmp_path):
    text = edited("bank = [0.3, 0.3, 0.9, 0.0]", "bank = [0.3, 0.3, 0.9, 0.0]\nriver = [0.1, 0.1, 0.1, 0.1]")
    line = text.splitlines().index("river = [0.1, 0.1, 0.1, 0.1]") + 1
    path, message = refusal(tmp_path, text)
    assert message.startswith(f"{path}: not valid TOML (")
    assert f"line {line}," in message


@pytest.mark.parametrize("word", ["river bank", "river/bank"])
def test_word_name_that_cannot_be_a_file_name_part_is_refused(tmp_path, word):
    text = edited("the = [0.0, 0.0, 0.0, 1.0]", f'the = [0.0, 0.0, 0.0, 1.0]\n"{word}" = [0.1, 0.1, 0.1, 0.1]')
    what = refused(tmp_path, text, key=f"embeddings.{word}")
    assert what == "a word must be 1-16 letters, digits, _ or -"


# --- refusals: sentences ------------------------------------------------------------------


def test_sentence_word_without_embedding_is_refused(tmp_path):
    text = world_text(sentences='sentences = [["the", "lake", "bank"], ["the", "money", "bank"]]')
    assert refused(tmp_path, text, key="sentences[0]") == "'lake' has no row under [embeddings]"


@pytest.mark.parametrize(
    "sentences",
    [
        '[["the", "river", "bank"]]',
        '[["the", "river", "bank"], ["the", "money", "bank"], ["money", "river", "bank"]]',
    ],
    ids=["one", "three"],
)
def test_not_exactly_two_sentences_are_refused(tmp_path, sentences):
    text = world_text(sentences=f"sentences = {sentences}")
    assert refused(tmp_path, text, key="sentences") == "must hold exactly two sentences"


def test_sentences_of_different_lengths_are_refused(tmp_path):
    text = world_text(sentences='sentences = [["the", "river", "bank"], ["money", "bank"]]')
    assert refused(tmp_path, text, key="sentences") == "must have equal length (got 3 and 2)"


def test_sentences_with_different_last_words_are_refused(tmp_path):
    text = world_text(sentences='sentences = [["the", "river", "bank"], ["the", "bank", "money"]]')
    what = refused(tmp_path, text, key="sentences")
    assert what == "must end in the same (ambiguous) word (got 'bank' and 'money')"


def test_sentence_of_one_word_is_refused(tmp_path):
    text = world_text(sentences='sentences = [["bank"], ["bank"]]')
    assert refused(tmp_path, text, key="sentences[0]") == "must be a list of at least two words"


# --- refusals: the wired head -------------------------------------------------------------


def test_W_Q_with_the_wrong_number_of_rows_is_refused(tmp_path):
    text = edited(
        "W_Q = [[0.0, 0.0], [0.0, 0.0], [2.0, 0.0], [0.0, 1.5]]",
        "W_Q = [[0.0, 0.0], [0.0, 0.0], [2.0, 0.0]]",
    )
    assert refused(tmp_path, text, key="wired.W_Q") == "must have 4 rows (one per axis)"


def test_W_K_row_of_the_wrong_length_is_refused(tmp_path):
    text = edited(
        "W_K = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]",
        "W_K = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0]]",
    )
    assert refused(tmp_path, text, key="wired.W_K[2]") == "must be 2 numbers (one per channel), got 3"


def test_missing_W_K_is_refused(tmp_path):
    text = edited("W_K = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]\n", "")
    assert refused(tmp_path, text, key="wired.W_K") == "missing"


# --- the message format -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '"col\\nour" = 1\n' + world_text(),
        edited('["the", "river", "bank"],', '["the", "ri\\nver", "bank"],'),
        edited("the = [0.0", '"th\\ne" = [0.1, 0.1, 0.1, 0.1]\nthe = [0.0'),
        edited("W_K = [", '"W\\nV" = 1\nW_K = ['),
    ],
    ids=["top-level key", "sentence word", "embedding word", "wired key"],
)
def test_refusal_stays_on_one_line_when_the_bad_name_holds_a_newline(tmp_path, text):
    # TOML allows "\n" in quoted keys and strings; the one-line message must not break.
    path, message = refusal(tmp_path, text)  # refusal() asserts there is no newline
    assert message.startswith(f"{path}: ")


def test_a_number_beyond_the_magnitude_bound_is_refused(tmp_path):
    # 1e308 is finite, but its products are not: the run would print NaN.
    bound = world_module.MAX_MAGNITUDE
    path, message = refusal(tmp_path, edited("bank = [0.3, 0.3, 0.9, 0.0]", f"bank = [0.3, {bound * 10}, 0.9, 0.0]"))
    assert message == f"{path}: embeddings.bank: {bound * 10} is too large (keep every number within ±{bound:,})"


def test_a_number_at_the_magnitude_bound_is_accepted():
    bound = world_module.MAX_MAGNITUDE
    world = parse_world(edited("bank = [0.3, 0.3, 0.9, 0.0]", f"bank = [0.3, {-bound}, 0.9, 0.0]"))
    assert world.embeddings["bank"][1] == -bound


# --- writing a world back out -------------------------------------------------------------------


def test_the_canonical_world_written_out_reads_back_equal(tmp_path):
    path = tmp_path / "world.toml"
    path.write_text(dump_world(RIVER_BANK, "The canonical world."))
    assert load_world(path) == RIVER_BANK


def test_a_written_world_keeps_every_digit_of_its_numbers():
    world = World(
        axes=("a", "b"), channels=("c",), sentences=(("x", "y"), ("y", "y")),
        embeddings={"x": (0.1 + 0.2, -1e-7), "y": (1e6, 0.0)}, W_Q=((1.0,), (0.5,)), W_K=((0.0,), (2.0,)),
    )  # fmt: skip
    assert parse_world(dump_world(world)) == world


def test_a_word_that_is_no_bare_toml_key_is_written_quoted():
    world = World(
        axes=("a", "b"), channels=("c",), sentences=(("café", "x"), ("x", "x")),
        embeddings={"café": (0.1, 0.2), "x": (0.3, 0.4)}, W_Q=((1.0,), (0.0,)), W_K=((0.0,), (1.0,)),
    )  # fmt: skip
    text = dump_world(world)
    assert '"café" = [0.1, 0.2]' in text
    assert parse_world(text) == world


def test_the_comment_heads_the_file_one_hash_per_line():
    assert dump_world(RIVER_BANK, "one\ntwo").startswith("# one\n# two\n\naxes = ")
