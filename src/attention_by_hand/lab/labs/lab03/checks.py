"""Lab 03's checks: counting character pairs, counts to probabilities, the average loss."""

from __future__ import annotations

import torch

from attention_by_hand.lab.inputs import fixed, randn, seeded
from attention_by_hand.lab.judging import Check, judge_number, judge_tensor


def _judge_bigram_counts(got, expected, args):
    ids, vocab_size = args
    wrapped = expected.double().clone()
    wrapped[ids[-1], ids[0]] += 1
    itself = "each character was paired with itself: pair ids[i] with the NEXT one, ids[i + 1]"
    variants = [
        ("transposed: counts[a, b] counts b right AFTER a (row = current character, column = next)", expected.T),
        (
            "repeated pairs were counted once: add 1 for every occurrence (index_put_ with accumulate=True, "
            "or a loop with +=; counts[a, b] += 1 with index tensors does not add up repeats)",
            (expected > 0).double(),
        ),
        ("one pair too many: the last character has no next one, so there are N - 1 pairs", wrapped),
        # Over all N characters (zip(ids, ids)) or over the N - 1 of a loop to len(ids) - 1.
        (itself, lambda: torch.diag(torch.bincount(ids, minlength=vocab_size)).double()),
        (itself, lambda: torch.diag(torch.bincount(ids[:-1], minlength=vocab_size)).double()),
    ]
    return judge_tensor(got, expected, "(vocab_size, vocab_size)", variants)


def _judge_counts_to_probs(got, expected, args):
    counts, smoothing = args
    c, s = counts.double(), smoothing
    variants = [
        (
            "each COLUMN sums to 1, rows must: divide each row by its own sum (dim=1, keepdim=True)",
            lambda: (c + s) / (c + s).sum(dim=0, keepdim=True),
        ),
        (
            "no smoothing reached the table: yours is each count divided by its row's sum, with nothing added; "
            "add the smoothing to every count before dividing (a row of zeros gives 0 / 0 = NaN)",
            lambda: c / c.sum(dim=1, keepdim=True),
        ),
        ("divided by the total of all counts: divide each ROW by its own sum", lambda: (c + s) / (c + s).sum()),
        (
            "cell [a, b] was divided by row b's sum, not row a's: the (V,) row sums lined up with the COLUMNS (as "
            "`sum(dim=1)` without keepdim=True does in a division, or a (V, 1) column of sums against the table "
            "transposed); divide each row of the table as it stands by its own sum, a column: sum(dim=1, keepdim=True)",
            lambda: (c + s) / (c + s).sum(dim=1),
        ),
        (
            "the smoothing was added after dividing: add it to the counts first, then divide",
            lambda: c / c.sum(dim=1, keepdim=True) + s,
        ),
        (
            "the smoothing was added to the counts but not to the row sums: divide (counts + smoothing) by "
            "ITS row sums",
            lambda: (c + s) / c.sum(dim=1, keepdim=True),
        ),
    ]

    def observe(got):
        sums = got.double().sum(dim=1)
        if not torch.allclose(sums, torch.ones_like(sums), atol=1e-4):
            i = int((sums - 1).abs().nan_to_num(float("inf")).argmax())
            return f"row {i} sums to {sums[i]:.4g}, not 1"
        return None

    return judge_tensor(got, expected, "(V, V)", variants, observe)


def _judge_average_nll(got, expected, args):
    probs, ids = args
    p = probs.double()
    picked = p[ids[:-1], ids[1:]]  # (N - 1,)
    variants = [
        ("the sign is flipped: the loss is MINUS the mean log-probability (lower is better)", -expected),
        ("summed over the pairs: take the mean", lambda: -picked.log().sum()),
        (
            "used probs[next, current]: rows are the CURRENT character, probs[ids[:-1], ids[1:]]",
            lambda: -p[ids[1:], ids[:-1]].log().mean(),
        ),
        ("use the natural log, torch.log (not log2 or log10)", lambda: -picked.log2().mean()),
        ("use the natural log, torch.log (not log2 or log10)", lambda: -picked.log10().mean()),
        ("the log is missing: average MINUS the log of each probability", lambda: -picked.mean()),
    ]
    return judge_number(got, expected, variants)


def checks(seed: int) -> list[Check]:
    g = seeded(seed)
    alphabet = "abcdr"
    abracadabra = torch.tensor([alphabet.index(c) for c in "abracadabra"])
    random_ids = torch.randint(0, 7, (200,), generator=g)
    with_empty_row = torch.tensor(
        [[2.0, 1.0, 0.0, 3.0], [0.0, 0.0, 5.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 4.0, 0.0, 0.0]]
    )
    random_counts = torch.randint(0, 9, (7, 7), generator=g).float()
    random_probs = torch.softmax(randn(g, 7, 7), dim=1)
    return [
        Check(
            "bigram_counts",
            "'abracadabra' over the alphabet 'abcdr', and over 'abcdrz', whose 'z' it never uses",
            ((abracadabra, 5), (abracadabra, 6)),
            _judge_bigram_counts,
        ),
        Check("bigram_counts", "200 random ids, vocab_size 7", ((random_ids, 7),), _judge_bigram_counts),
        Check(
            "counts_to_probs",
            "a (4, 4) table with a row of zeros, smoothing 1",
            ((with_empty_row, 1.0),),
            _judge_counts_to_probs,
        ),
        Check(
            "counts_to_probs", "random (7, 7) counts, smoothing 0.5", ((random_counts, 0.5),), _judge_counts_to_probs
        ),
        Check(
            "average_nll",
            "'abracadabra' under uniform and random tables",
            ((torch.full((5, 5), 0.2), abracadabra), (torch.softmax(randn(fixed(), 5, 5), dim=1), abracadabra)),
            _judge_average_nll,
        ),
        Check("average_nll", "200 random ids, a random table", ((random_probs, random_ids),), _judge_average_nll),
    ]
