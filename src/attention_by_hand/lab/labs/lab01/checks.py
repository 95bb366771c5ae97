"""Lab 01's checks: a sentence as rows of the table, a dot product, a matrix product by loops."""

from __future__ import annotations

import re

import torch

from attention_by_hand.lab.inputs import fixed, randn, seeded, toy_world
from attention_by_hand.lab.judging import Check, judge_number, judge_tensor, shape_text


def _judge_sentence_matrix(got, expected, args):
    table, vocabulary, sentence = args
    rows = [vocabulary.index(w) for w in sentence]
    variants = [
        ("each word is a ROW of the table (table[rows]), not a column", lambda: table[:, rows]),
        ("the words are in the wrong order: keep the sentence's order, one row per word", lambda: table[sorted(rows)]),
        (
            "took the rows of the words the sentence contains, in the vocabulary's order and once each: "
            "one row per word of the sentence, in the sentence's order",
            lambda: table[sorted(set(rows))],
        ),
        (
            "a repeated word must give its row again each time: one row per word of the sentence",
            lambda: table[sorted(set(rows), key=rows.index)],
        ),
    ]
    return judge_tensor(got, expected, "(n_words, d_model)", variants)


def _judge_dot(got, expected, args):
    a, b = args
    variants = [
        ("the products are not added up: sum them", a * b),
        ("added instead of multiplied: multiply each pair, then add the products", lambda: (a + b).sum()),
    ]
    return judge_number(got, expected, variants)


def _judge_matmul(got, expected, args):
    a, b = args
    n, m = a.shape[0], b.shape[1]
    variants = [
        (
            "out[i, j] used ROW j of b; a matrix product takes COLUMN j of b, b[:, j]",
            lambda: a @ b.T if a.shape[1] == b.shape[1] else None,
        ),
        ("transposed: out[i, j] belongs to row i of a and column j of b, and has shape (n, m)", lambda: (a @ b).T),
        (
            "multiplied element by element, out[i, j] = a[i, j] * b[i, j]; a matrix product takes the dot "
            "product of row i of a and column j of b",
            lambda: a[:n, :m] * b[:n, :m] if a.shape[1] >= m and b.shape[0] >= n else None,
        ),
    ]
    return judge_tensor(got, expected, "(n, m)", variants)


# torch's error for `out[i, j] = t` when t holds more than one number.
_INTO_A_CELL = re.compile(r"expand\(torch\.\w+\{\[([\d, ]*)\]\}, size=\[\]\)")


def _explain_matmul_error(type_name, message, args, shapes):
    found = _INTO_A_CELL.search(message)
    if not found:
        return None
    shape = tuple(int(n) for n in found.group(1).split(","))
    return (
        f"a single cell (such as out[i, j]) was given a tensor of shape {shape_text(shape)}: each cell holds "
        "one number, the dot product of row i of a and column j of b"
    )


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)
    vocabulary, table = toy_world()
    words = ["w0", "w1", "w2", "w3", "w4", "w5"]
    random_table = randn(g, 6, 3)
    order = torch.randperm(6, generator=g)[:5].tolist()  # 5 different words, in a random order
    if order == sorted(order):
        order[0], order[1] = order[1], order[0]
    # Out of the vocabulary's order and with a repeated word, whatever the seed: sorting the rows
    # or dropping a repeat then changes the answer.
    sentence = [words[i] for i in order[:3] + [order[0]] + order[3:]]
    rows = [vocabulary.index(w) for w in ("the", "river", "bank")]
    X = table[rows]  # "the river bank"
    return [
        Check(
            "sentence_matrix",
            "the toy world's 'the river bank'",
            ((table, vocabulary, ["the", "river", "bank"]),),
            _judge_sentence_matrix,
        ),
        Check(
            "sentence_matrix",
            "a random table and a sentence with repeated words",
            ((random_table, words, sentence),),
            _judge_sentence_matrix,
        ),
        Check("dot", "bank . river", ((table[vocabulary.index("bank")], table[vocabulary.index("river")]),), _judge_dot),
        Check("dot", "3 random pairs of vectors", tuple((randn(g, n), randn(g, n)) for n in (1, 5, 9)), _judge_dot),
        # The square product comes first: there a row-for-column mistake still runs, and is named.
        Check(
            "matmul_by_loops",
            "a square (4, 4) @ (4, 4)",
            ((randn(f, 4, 4), randn(f, 4, 4)),),
            _judge_matmul,
            _explain_matmul_error,
        ),
        Check(
            "matmul_by_loops",
            "X @ X.T on 'the river bank', (3, 4) @ (4, 3)",
            ((X, X.T.contiguous()),),
            _judge_matmul,
            _explain_matmul_error,
        ),
        Check(
            "matmul_by_loops",
            "random (5, 7) @ (7, 3) and (1, 3) @ (3, 1)",
            ((randn(g, 5, 7), randn(g, 7, 3)), (randn(g, 1, 3), randn(g, 3, 1))),
            _judge_matmul,
            _explain_matmul_error,
        ),
    ]
