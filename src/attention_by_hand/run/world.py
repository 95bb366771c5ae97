"""The toy world: a tiny, hand-designed vocabulary that every section runs on.

A world is a handful of words, each with one embedding row on a few *named* axes, two test
sentences that end in the same ambiguous word, and the two small matrices W_Q and W_K of the
hand-wired query/key head. Real models learn thousands of unnamed dimensions; naming four of
them by hand is what lets a learner check every later number with a pencil.

This module holds the canonical world (`RIVER_BANK`), reads other worlds from TOML files and
refuses a malformed one with a message that names the key, and writes a world back out as
TOML (`dump_world`, which `load_world` reads back equal). It computes nothing about
attention: that is `mechanism.py`.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from attention_by_hand.errors import UserError
from attention_by_hand.run.textfile import read_text_file

__all__ = ["World", "RIVER_BANK", "load_world", "parse_world", "dump_world", "MAX_MAGNITUDE", "NAME_RULE", "MAX_FILE_BYTES"]

# A name is printed in log tables, figure labels and file names (the plane figure is named after
# the ambiguous word and the first two axes), so it is one short token of letters, digits, _ or -.
NAME_RULE = re.compile(r"[\w-]{1,16}")

# A world file is for hand-sized worlds; anything bigger is almost surely the wrong file.
MAX_FILE_BYTES = 256 * 1024

# Every product the run forms (scores are sums of products of products) stays finite in float64
# when the numbers stay within this bound; a world of 1e308s would print NaN instead.
MAX_MAGNITUDE = 1_000_000


@dataclass(frozen=True)
class World:
    """One toy world. Tuples, not arrays, so that two worlds compare with `==`.

    axes:       the names of the embedding axes, d_model of them.
    channels:   the names of the wired query/key channels, d_k of them.
    sentences:  exactly two sentences of equal length that end in the same (ambiguous) word.
    embeddings: word -> one row of d_model numbers, in vocabulary order.
    W_Q, W_K:   d_model rows x d_k columns each.
    """

    axes: tuple[str, ...]
    channels: tuple[str, ...]
    sentences: tuple[tuple[str, ...], tuple[str, ...]]
    embeddings: dict[str, tuple[float, ...]]
    W_Q: tuple[tuple[float, ...], ...]
    W_K: tuple[tuple[float, ...], ...]

    def __hash__(self) -> int:
        return hash((self.axes, self.channels, self.sentences, tuple(self.embeddings.items())))

    @property
    def words(self) -> list[str]:
        """The vocabulary, in the order the world lists it."""
        return list(self.embeddings)

    @property
    def ambiguous(self) -> str:
        """The word both sentences end in: the one whose meaning depends on context."""
        return self.sentences[0][-1]

    def context(self, sentence: int) -> str:
        """The word just before the ambiguous one: the word that should disambiguate it."""
        return self.sentences[sentence][-2]

    def vector(self, word: str) -> np.ndarray:
        """One embedding row. Shape: (d_model,)."""
        return np.array(self.embeddings[word], dtype=np.float64)

    def embed(self, sentence: list[str] | tuple[str, ...]) -> np.ndarray:
        """Stack one embedding row per word. X: (n_words, d_model)."""
        return np.array([self.embeddings[w] for w in sentence], dtype=np.float64)

    @property
    def wired_W_Q(self) -> np.ndarray:
        """W_Q: (d_model, d_k)."""
        return np.array(self.W_Q, dtype=np.float64)

    @property
    def wired_W_K(self) -> np.ndarray:
        """W_K: (d_model, d_k)."""
        return np.array(self.W_K, dtype=np.float64)

    @property
    def decimals(self) -> int:
        """Decimals that print every embedding entry exactly (at least 1, at most 4).

        The canonical world needs one; a world with 0.25 in it needs two, so its tables
        show the numbers the learner actually typed rather than a rounded copy.
        """
        for places in range(1, 4):
            if all(round(v, places) == v for row in self.embeddings.values() for v in row):
                return places
        return 4


# The canonical world of the workshop. "bank" is mostly a place, with a little of both
# meanings (water and money), because out of context it really is ambiguous. "the" carries
# only filler: our stand-in for grammatical glue.
RIVER_BANK = World(
    axes=("water", "money", "place", "filler"),
    channels=("topic", "place"),
    sentences=(("the", "river", "bank"), ("the", "money", "bank")),
    embeddings={
        "the": (0.0, 0.0, 0.0, 1.0),
        "river": (0.9, 0.0, 0.3, 0.0),
        "money": (0.0, 0.9, 0.1, 0.0),
        "bank": (0.3, 0.3, 0.9, 0.0),
    },
    # Rows are the input axes, columns the channels (topic, place). A place word ASKS for
    # topic words (row "place" -> topic); a filler word asks for places.
    W_Q=(
        (0.0, 0.0),  # water asks for nothing
        (0.0, 0.0),  # money asks for nothing
        (2.0, 0.0),  # place -> asks on the topic channel
        (0.0, 1.5),  # filler -> asks on the place channel
    ),
    # Watery and money words ADVERTISE topic; place words advertise that they are a place.
    W_K=(
        (1.0, 0.0),  # water advertises topic
        (1.0, 0.0),  # money advertises topic
        (0.0, 1.0),  # place advertises place
        (0.0, 0.0),  # filler advertises nothing
    ),
)


def load_world(path: str | Path) -> World:
    """Read and validate a world file; raise UserError naming the file and key on any fault."""
    return parse_world(read_text_file(path, "world file", MAX_FILE_BYTES), source=str(path))


def parse_world(text: str, source: str = "<world>") -> World:
    """Parse TOML text into a World; every fault raises UserError('<source>: <key>: <what>')."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"{source}: not valid TOML ({err})") from None

    def fail(key: str, what: str) -> UserError:
        return UserError(f"{source}: {key}: {what}")

    known = {"axes", "channels", "sentences", "embeddings", "wired"}
    for key in data:
        if key not in known:
            raise fail(key, f"unknown key (expected only {', '.join(sorted(known))})")
    for key in ("axes", "channels", "sentences", "embeddings", "wired"):
        if key not in data:
            raise fail(key, "missing")

    axes = _names(data["axes"], "axes", fail, minimum=2)
    channels = _names(data["channels"], "channels", fail, minimum=1)

    table = data["embeddings"]
    if not isinstance(table, dict) or not table:
        raise fail("embeddings", "must be a table with one row per word")
    embeddings: dict[str, tuple[float, ...]] = {}
    for word, row in table.items():
        key = f"embeddings.{word}"
        if not NAME_RULE.fullmatch(word):
            raise fail(key, "a word must be 1-16 letters, digits, _ or -")
        embeddings[word] = _row(row, len(axes), key, fail, what="one per axis")

    sentences = data["sentences"]
    if not isinstance(sentences, list) or len(sentences) != 2:
        raise fail("sentences", "must hold exactly two sentences")
    for i, sentence in enumerate(sentences):
        key = f"sentences[{i}]"
        if not isinstance(sentence, list) or len(sentence) < 2:
            raise fail(key, "must be a list of at least two words")
        for word in sentence:
            if not isinstance(word, str):
                raise fail(key, f"{word!r} is not a word (expected a string)")
            if word not in embeddings:
                raise fail(key, f"'{word}' has no row under [embeddings]")
    if len(sentences[0]) != len(sentences[1]):
        raise fail("sentences", f"must have equal length (got {len(sentences[0])} and {len(sentences[1])})")
    if sentences[0][-1] != sentences[1][-1]:
        raise fail(
            "sentences",
            f"must end in the same (ambiguous) word (got '{sentences[0][-1]}' and '{sentences[1][-1]}')",
        )

    wired = data["wired"]
    if not isinstance(wired, dict):
        raise fail("wired", "must be a table holding W_Q and W_K")
    for key in wired:
        if key not in ("W_Q", "W_K"):
            raise fail(f"wired.{key}", "unknown key (expected only W_Q and W_K)")
    matrices = {}
    for name in ("W_Q", "W_K"):
        key = f"wired.{name}"
        if name not in wired:
            raise fail(key, "missing")
        rows = wired[name]
        if not isinstance(rows, list) or len(rows) != len(axes):
            raise fail(key, f"must have {len(axes)} rows (one per axis)")
        matrices[name] = tuple(
            _row(row, len(channels), f"{key}[{i}]", fail, what="one per channel") for i, row in enumerate(rows)
        )

    return World(
        axes=axes,
        channels=channels,
        sentences=(tuple(sentences[0]), tuple(sentences[1])),
        embeddings=embeddings,
        W_Q=matrices["W_Q"],
        W_K=matrices["W_K"],
    )


def dump_world(world: World, comment: str = "") -> str:
    """The world as a world file (TOML) that `parse_world` reads back equal; `comment` heads it.

    Every number is written as the shortest text that reads back as the same float (repr), so
    nothing is rounded on the way out.
    """

    def name(text: str) -> str:  # a TOML string; json's escapes are TOML's
        return json.dumps(text, ensure_ascii=False)

    def key(text: str) -> str:  # TOML's bare keys are ASCII only; NAME_RULE also allows "café"
        return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else name(text)

    def row(numbers) -> str:
        return "[" + ", ".join(repr(float(v)) for v in numbers) + "]"

    def names(texts) -> str:
        return "[" + ", ".join(name(t) for t in texts) + "]"

    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    lines += [
        *([""] if lines else []),
        f"axes = {names(world.axes)}",
        f"channels = {names(world.channels)}",
        f"sentences = [{', '.join(names(s) for s in world.sentences)}]",
        "",
        "[embeddings]",
        *(f"{key(word)} = {row(numbers)}" for word, numbers in world.embeddings.items()),
        "",
        "[wired]",
        f"W_Q = [{', '.join(row(r) for r in world.W_Q)}]",
        f"W_K = [{', '.join(row(r) for r in world.W_K)}]",
    ]
    return "\n".join(lines) + "\n"


def _names(value, key, fail, minimum):
    if not isinstance(value, list) or len(value) < minimum:
        raise fail(key, f"must be a list of at least {minimum} names")
    for name in value:
        if not isinstance(name, str) or not NAME_RULE.fullmatch(name):
            raise fail(key, f"{name!r} is not a name (1-16 letters, digits, _ or -)")
    seen = set()
    for name in value:
        if name in seen:
            raise fail(key, f"'{name}' appears twice")
        seen.add(name)
    return tuple(value)


def _row(value, length, key, fail, what):
    if not isinstance(value, list) or len(value) != length:
        got = len(value) if isinstance(value, list) else type(value).__name__
        raise fail(key, f"must be {length} numbers ({what}), got {got}")
    numbers = []
    for v in value:
        # bool is an int in Python; `true` in a world file is a typo, not the number 1.
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise fail(key, f"{v!r} is not a number")
        try:
            number = float(v)
        except OverflowError:  # TOML integers have no size limit; floats do
            raise fail(key, f"{v} is too large for a number") from None
        if not math.isfinite(number):
            raise fail(key, f"{v} is not a finite number")
        if abs(number) > MAX_MAGNITUDE:
            raise fail(key, f"{v} is too large (keep every number within ±{MAX_MAGNITUDE:,})")
        numbers.append(number)
    return tuple(numbers)
