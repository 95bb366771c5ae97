"""The data the attention-only model learns from: random tokens whose segment repeats.

Every sequence starts with the start token (0). A segment of random tokens (1 .. vocab - 1)
follows, then the same segment again and again until the sequence is full. The first time
through, the next token is chance; from the first repeat on, it is the token that followed the
current one the last time it appeared. Only a model that looks back can use that.

    training:  a segment length drawn for each sequence from `lengths` (3 .. 16), tokens drawn
               with replacement: the model cannot memorise one offset (a model trained on a
               single length learns that offset instead of the rule)
    probe:     one fixed batch of segments of 16 distinct tokens, written once and then 15 of
               them again: every token of the repeat has exactly one earlier occurrence, so a
               detector knows the one cell an induction head should look at

Shapes: n sequences of context + 1 tokens; the model reads the first context (inputs = seq[:, :-1])
and is scored on predicting the last context (targets = seq[:, 1:]).

Left out: the model (attention_only.py) and training on it (training.py).
"""

from __future__ import annotations

import torch

__all__ = ["START", "PROBE_PERIOD", "PROBE_SEED", "PROBE_SEQUENCES", "repeated_sequences", "probe", "repeat_rows", "first_rows"]

START = 0  # the start token, position 0 of every sequence
PROBE_PERIOD = 16  # the longest training length: 1 + 16 + 15 = 32 positions, one repeat of each token
PROBE_SEED, PROBE_SEQUENCES = 1000, 64  # a generator of its own: the probe never meets a training batch


def repeated_sequences(
    generator: torch.Generator, n: int, lengths: list[int], vocab: int, context: int, distinct: bool = False
) -> torch.Tensor:
    """n sequences of context + 1 tokens: the start token, then a segment repeated to the end.

    Each sequence's segment length is drawn from `lengths`; distinct: no token twice in a segment
    (needs every length < vocab).   -> (n, context + 1), integers
    """
    choices = torch.tensor(lengths)  # (n_lengths,)
    period = choices[torch.randint(0, len(choices), (n,), generator=generator)]  # (n,): each sequence's length
    longest = int(choices.max())
    if distinct:
        # A random order of tokens 1 .. vocab - 1 for each sequence, cut to the longest segment.
        segment = torch.rand(n, vocab - 1, generator=generator).argsort(dim=1)[:, :longest] + 1  # (n, longest)
    else:
        segment = torch.randint(1, vocab, (n, longest), generator=generator)  # (n, longest)
    place = torch.arange(context)[None, :] % period[:, None]  # (n, context): where in its segment each token is
    start = torch.full((n, 1), START, dtype=torch.long)  # (n, 1)
    return torch.cat([start, segment.gather(1, place)], dim=1)  # (n, context + 1)


def probe(vocab: int, context: int, period: int = PROBE_PERIOD, seed: int = PROBE_SEED, n: int = PROBE_SEQUENCES) -> torch.Tensor:
    """The fixed batch the detectors read: n segments of `period` distinct tokens, repeated.   -> (n, context + 1)"""
    return repeated_sequences(torch.Generator().manual_seed(seed), n, [period], vocab, context, distinct=True)


def repeat_rows(period: int, context: int) -> torch.Tensor:
    """The positions whose token appeared `period` places before: period + 1 .. context - 1.

    At these the next token is predictable by looking back (an induction head's rows).   -> (n_rows,)
    """
    return torch.arange(period + 1, context)


def first_rows(period: int) -> torch.Tensor:
    """The positions 0 .. period - 1, whose next token is the segment's first time through (chance).   -> (period,)"""
    return torch.arange(period)
