"""Worlds for pencils: a random toy world for each seed, drawn so that it can be worked by hand.

`pencil_world(seed)` draws a world shaped like the canonical one: a filler word "the", an
ambiguous word with two senses, one context word for each, four named axes (the two senses,
the ambiguous word's own kind, filler) and a wired head whose ambiguous word asks, on a
"topic" channel, for the words that carry a sense. What a learner computes is kept small:

    embeddings   one decimal, 0.0 to 1.0
    W_Q, W_K     whole numbers 0, 1 or 2, so q and k keep one decimal
    dot products, q.k scores   two decimals and under 10: three digits, summed exactly

A draw is kept only when every answer is well posed (`pencil_problems` says what is wrong with
one that is not, and the next draw of the same seed is tried):

- no two scores of the softmax exercise are equal, and no two of its weights are closer than
  `WEIGHT_GAP`: the ranking is never a tie, even with a last digit off;
- a learner who reads e^x from the worksheet's table (`table_exp`, three decimals), rounds each
  weight to three decimals and sums weight x embedding lands exactly on the numbers the run
  prints (rounding half up, and no number exactly half way);
- every score of the e^x exercise lies in the table's rows, [0, `MAX_TABLE_X`);
- raw attention already pulls the ambiguous word towards each sentence's own sense (S3), and
  the wired head gives the context word the ambiguous word's highest score (S4): each world
  tells the workshop's story;
- the world passes the world file's own checks (`parse_world(dump_world(world))` equals it).

The same seed gives the same world on every machine and Python: the draws are SHA-256 of the
seed and a counter, not a library's random stream, which may change between versions.

Left out: running the world (the canonical part does, `run --world`), the worksheet (site/).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from attention_by_hand.math import mechanism as M
from attention_by_hand.run.world import World, dump_world, parse_world

__all__ = ["MAX_SEED", "MAX_TABLE_X", "WEIGHT_GAP", "THEMES", "Theme", "pencil_world", "pencil_problems", "table_exp", "world_comment"]

MAX_SEED = 999_999_999  # nine digits: a seed stays short enough to read out in a room
MAX_TABLE_X = 1.5  # the e^x table of a pencil world needs no row past 1.4: 15 rows fit its page
WEIGHT_GAP = 0.01  # weights this close would read as a tie to a learner a digit or two off
_ATTEMPTS = 10_000  # draws per seed; about one in five is kept (seeds 0-999 needed at most 41)


@dataclass(frozen=True)
class Theme:
    """An ambiguous word, a context word for each of its two senses, and the axes' names."""

    ambiguous: str
    contexts: tuple[str, str]
    senses: tuple[str, str]  # the axes the two context words load on
    kind: str  # the axis of what the ambiguous word is, and the channel it advertises on


THEMES = (
    Theme("bank", ("river", "money"), ("water", "money"), "place"),
    Theme("bat", ("cave", "cricket"), ("animal", "sport"), "thing"),
    Theme("bark", ("dog", "tree"), ("animal", "plant"), "sound"),
    Theme("mouse", ("cat", "keyboard"), ("animal", "computer"), "thing"),
    Theme("crane", ("bird", "building"), ("animal", "machine"), "thing"),
    Theme("seal", ("ocean", "letter"), ("sea", "paper"), "thing"),
    Theme("match", ("fire", "tennis"), ("fire", "sport"), "thing"),
    Theme("key", ("piano", "door"), ("music", "house"), "thing"),
    Theme("pitch", ("song", "football"), ("music", "sport"), "thing"),
    Theme("bass", ("fish", "guitar"), ("water", "music"), "thing"),
    Theme("palm", ("beach", "hand"), ("tree", "body"), "part"),
    Theme("jam", ("toast", "traffic"), ("food", "road"), "thing"),
    Theme("bow", ("violin", "arrow"), ("music", "weapon"), "thing"),
    Theme("trunk", ("elephant", "car"), ("animal", "vehicle"), "part"),
    Theme("club", ("golf", "dance"), ("sport", "music"), "place"),
    Theme("plant", ("garden", "factory"), ("nature", "industry"), "place"),
)
FILLER_WORD, FILLER_AXIS, TOPIC = "the", "filler", "topic"


def table_exp(x: float) -> str:
    """e^x as the worksheet's table prints it: three decimals."""
    return f"{math.exp(x):.3f}"


class _Draws:
    """Whole numbers drawn from SHA-256(seed, attempt, counter): the same on every machine."""

    def __init__(self, seed: int, attempt: int):
        self._prefix = f"pencil-world/{seed}/{attempt}/"
        self._count = 0

    def below(self, n: int) -> int:
        """A whole number in [0, n); 256 bits modulo a small n is uniform to 1 part in 2^240."""
        self._count += 1
        digest = hashlib.sha256(f"{self._prefix}{self._count}".encode()).digest()
        return int.from_bytes(digest, "big") % n

    def tenths(self, low: int, high: int) -> float:
        """One decimal between low/10 and high/10, both included."""
        return (low + self.below(high - low + 1)) / 10


def _draw(seed: int, attempt: int) -> World:
    d = _Draws(seed, attempt)
    theme = THEMES[d.below(len(THEMES))]
    flip = d.below(2)  # which sense the first sentence is about
    first, second = theme.contexts[flip], theme.contexts[1 - flip]
    axes = (*theme.senses, theme.kind, FILLER_AXIS)

    def context_row(sense: int) -> tuple[float, ...]:
        strong, weak = d.tenths(6, 10), d.tenths(0, 2)
        return (strong, weak) if sense == 0 else (weak, strong)

    rows = {
        # "the": filler, a trace of the ambiguous word's kind at most
        FILLER_WORD: (0.0, 0.0, d.tenths(0, 2), d.tenths(8, 10)),
        theme.contexts[0]: (*context_row(0), d.tenths(0, 4), 0.0),
        theme.contexts[1]: (*context_row(1), d.tenths(0, 4), 0.0),
        # the ambiguous word: mostly its kind, a little of both senses
        theme.ambiguous: (d.tenths(1, 4), d.tenths(1, 4), d.tenths(6, 10), d.tenths(0, 1)),
    }
    asks, filler_asks, advertises = 1 + d.below(2), 1 + d.below(2), 1 + d.below(2)
    # Rows are the axes, columns the channels (topic, kind). The kind ASKS for topic words; filler
    # asks for the kind. Both senses ADVERTISE topic; the kind advertises that it is one.
    W_Q = ((0.0, 0.0), (0.0, 0.0), (float(asks), 0.0), (0.0, float(filler_asks)))
    W_K = ((1.0, 0.0), (1.0, 0.0), (0.0, float(advertises)), (0.0, 0.0))
    return World(
        axes=axes,
        channels=(TOPIC, theme.kind),
        sentences=((FILLER_WORD, first, theme.ambiguous), (FILLER_WORD, second, theme.ambiguous)),
        embeddings=rows,
        W_Q=W_Q,
        W_K=W_K,
    )


def _half_up(x: Decimal, places: int) -> Decimal:
    return x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _on_half(x: Decimal, places: int) -> bool:
    """Whether x sits exactly half way between two numbers of `places` decimals."""
    return (x.scaleb(places) % 1) == Decimal("0.5")


def _near_half(x: float, places: int) -> bool:
    """Whether the run's float x prints a fragile last digit (within 1e-6 of half way)."""
    scaled = abs(x) * 10**places
    return abs(scaled - math.floor(scaled) - 0.5) < 1e-6


def pencil_problems(world: World) -> list[str]:
    """What makes `world` unfit for a pencil, in words; [] when every answer is well posed."""
    problems = []
    if parse_world(dump_world(world)) != world:
        problems.append("the world file does not read back as the same world")
    amb = world.vector(world.ambiguous)  # (d_model,)
    sentence = world.sentences[0]
    n = len(sentence)

    # Dot products, q and k, q.k scores: sums the learner adds exactly, so two decimals, under 10.
    X = world.embed(sentence)  # (n_words, d_model)
    Q, K = X @ world.wired_W_Q, X @ world.wired_W_K  # (n_words, d_k) each
    sums = [M.dot(amb, world.vector(w)) for w in world.words] + list(Q.ravel()) + list(K.ravel())
    sums += list(Q[-1] @ K.T)
    if any(abs(s) >= 10 or abs(s * 100 - round(s * 100)) > 1e-9 for s in sums):
        problems.append("a dot product or score needs more than three digits")

    # The softmax exercise: the learner's path through the table must land on the run's numbers.
    scores = np.array([M.dot(amb, world.vector(w)) for w in sentence])  # (n_words,)
    weights = M.softmax(scores)  # (n_words,)
    if len({round(s, 2) for s in scores}) < n:
        problems.append("two scores of the softmax exercise are equal")
    if min(abs(a - b) for i, a in enumerate(weights) for b in weights[i + 1 :]) < WEIGHT_GAP:
        problems.append(f"two weights are closer than {WEIGHT_GAP}")
    if not all(0 <= s < MAX_TABLE_X for s in scores):
        problems.append(f"a score of the softmax exercise lies outside the e^x table [0, {MAX_TABLE_X})")
        return problems  # the path below reads the table
    exps = [Decimal(table_exp(round(s, 2))) for s in scores]
    total = sum(exps)
    pencil = [e / total for e in exps]
    if any(_on_half(p, 3) for p in pencil) or any(_near_half(w, 3) for w in weights):
        problems.append("a weight sits half way between two printed weights")
    pencil = [_half_up(p, 3) for p in pencil]
    if [str(p) for p in pencil] != [f"{w:.3f}" for w in weights]:
        problems.append("the table's exponentials give weights other than the run's")

    # The weighted sum of the same row, from the learner's three-decimal weights.
    out = weights @ X  # (d_model,): the ambiguous word's raw-attention output in sentence 1
    for axis, printed in enumerate(out):
        by_hand = sum(p * Decimal(repr(float(x))) for p, x in zip(pencil, X[:, axis]))
        if _on_half(by_hand, 3) or _near_half(printed, 3) or str(_half_up(by_hand, 3)) != f"{printed:.3f}":
            problems.append(f"the weighted sum on {world.axes[axis]} by hand differs from the run's")

    # The story: each sentence's sense wins in raw attention; the wired head finds the context.
    for k in (0, 1):
        row = M.raw_attention(world.embed(world.sentences[k]))[0][-1]  # (d_model,)
        if not row[k] > row[1 - k]:
            problems.append(f"raw attention does not lean to {world.axes[k]} in sentence {k + 1}")
    wired = Q[-1] @ K.T  # (n_words,): the ambiguous word's q.k scores
    top = np.flatnonzero(np.isclose(wired, wired.max()))
    if list(top) != [n - 2]:
        problems.append("the wired head does not give the context word the highest score")
    return problems


def pencil_world(seed: int) -> World:
    """The world for pencils of this seed (0 to MAX_SEED): the first draw without a problem."""
    if not (isinstance(seed, int) and 0 <= seed <= MAX_SEED):
        raise ValueError(f"a pencil world's seed is a whole number from 0 to {MAX_SEED:,}, not {seed!r}")
    for attempt in range(_ATTEMPTS):
        world = _draw(seed, attempt)
        if not pencil_problems(world):
            return world
    raise RuntimeError(f"no world for pencils in {_ATTEMPTS} draws of seed {seed}")  # a bug: see _ATTEMPTS


def world_comment(seed: int) -> str:
    """The comment that heads a pencil world's file: where it came from, and how to run it."""
    return (
        f"A world for pencils, seed {seed}: `attention-by-hand worksheet --seed {seed}` made it.\n"
        "Run it with `attention-by-hand run --world <this file> --out <folder>`; the worksheet's key\n"
        "names the line of <folder>/captures/results.log that prints each answer."
    )
