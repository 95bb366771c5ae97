"""What the gradients part's sections share: the seed, the float64 bound of a check, G2's loss gradient.

G2 states the loss (half the squared distance from bank's output to its context word's
embedding) and G3 descends on it, so its gradient at the output lives here, beside the seed that
draws G3's start and G4's random head and the bound every toy check prints.
"""

from __future__ import annotations

import numpy as np

from attention_by_hand.run.section_log import SectionLog

__all__ = ["SEED", "TOY_BOUND", "bound", "largest", "last_word_dO"]

SEED = 0  # G3's start and G4's random head (the same seed, and so the same head, as L3's)

TOY_BOUND = 1e-12  # float64 noise on numbers of order 1 is about 1e-16


def bound(log: SectionLog, name: str, difference: float, limit: float = TOY_BOUND) -> str:
    """A difference printed as a bound ("< 1e-12 -> True"), never as its float64 noise."""
    return log.bound(name, float(difference), limit)


def largest(*pairs) -> float:
    """The largest |a - b| over pairs of arrays."""
    return max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in pairs)


def last_word_dO(out: np.ndarray, target: np.ndarray) -> np.ndarray:
    """d loss / dO for loss = 1/2 |o_last - target|^2: o_last - target on the last row, 0 above it."""
    dO = np.zeros_like(out)  # (n_words, d_model)
    dO[-1] = out[-1] - target
    return dO
