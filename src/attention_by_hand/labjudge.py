"""What the lab checker asks of each lab, and how it explains a wrong answer.

For every lab: the functions a learner writes, the inputs each is called on (fixed inputs, the
same for everyone, and random ones from a seeded generator), and a judge that compares the
learner's output with the reference lab's output for the same inputs.

A bare "wrong" teaches nothing, so a judge works out WHICH mistake the output shows. It
recomputes the answer with each usual mistake (softmax over the wrong axis, the mask on the
wrong side, a scale by d_model, no max-shift, a missing residual, ...) and names the one the
learner's output equals. When none does, it falls back to properties (a future token with
weight, rows that do not sum to 1) and last to the largest difference, with its position.

Outputs are compared in float64 with rtol = 1e-4, atol = 1e-5: learners' float32 code adds the
same products in other orders (differences near 1e-7), while the mistakes below move some values
by 1e-2 or more on these inputs (tests/fixtures/labs holds one small patch of a reference lab per mistake).

Left out: running the learner's file, which happens in a child process (labcheck.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import product

import torch
import torch.nn as nn
import torch.nn.functional as F

from attention_by_hand.labharness import Foreign, NumpyArray, Oversized

__all__ = ["Check", "checks_for", "hint_for_exception", "RTOL", "ATOL"]

RTOL, ATOL = 1e-4, 1e-5

# judge(got, expected, args) -> None when got is right, else the hint to print.
Judge = Callable[[object, object, tuple], "str | None"]
# A typical mistake: its hint, and the output it produces (or a function computing it, so that
# the costly ones are only computed when the cheaper ones did not match).
Variant = tuple[str, "torch.Tensor | Callable[[], torch.Tensor]"]

# Lab 02's softmax and the attention weights of labs 04 and 05 make the same mistake the same way.
_NO_MAX_SHIFT = "NaN for large scores: no max-shift; subtract each row's maximum before exp"


@dataclass(frozen=True)
class Check:
    """One line of the report: `function` called on every case; it passes when each case does."""

    function: str
    label: str
    cases: tuple[tuple, ...]
    judge: Judge


# --- comparing and describing outputs -------------------------------------------------------


def _shape(shape) -> str:
    return "(" + ", ".join(str(n) for n in shape) + (",)" if len(shape) == 1 else ")")


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape and equal within the tolerance; NaN equals NaN (a mistake may produce NaN)."""
    if tuple(a.shape) != tuple(b.shape):
        return False
    return bool(torch.allclose(a.double(), b.double(), rtol=RTOL, atol=ATOL, equal_nan=True))


def _index(flat: int, shape) -> str:
    """A flat position as [i, j] in `shape`."""
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return "[" + ", ".join(str(i) for i in reversed(index)) + "]" if index else ""


def _difference(got: torch.Tensor, expected: torch.Tensor) -> str:
    """The largest difference and where it is: the last resort when no mistake matched."""
    g, e = got.double().flatten(), expected.double().flatten()
    distance = (g - e).abs()
    distance[torch.isnan(distance)] = math.inf  # a NaN is the worst difference there is
    worst = int(distance.argmax())
    where = _index(worst, expected.shape)
    where = f" at {where}" if where else ""
    if math.isnan(g[worst]) and not math.isnan(e[worst]):
        return f"NaN{where} where the reference has {e[worst]:.4g}"
    return f"values differ from the reference: largest difference{where}: expected {e[worst]:.4g}, got {g[worst]:.4g}"


def _brief(value) -> str:
    """What a non-tensor output was, in a few words."""
    if value is None:
        return "None (is a `return` missing?)"
    if isinstance(value, NumpyArray):
        return "a NumPy array (return a torch tensor: stay in torch, or torch.from_numpy)"
    if isinstance(value, Foreign):
        return f"a {value.name}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    if isinstance(value, bool):
        return f"the bool {value}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return f"a {type(value).__name__}"


def _match(got, variants: Iterable[Variant]) -> str | None:
    """The hint of the first mistake whose output equals `got`, if any."""
    if not isinstance(got, torch.Tensor):
        return None
    for hint, output in variants:
        try:
            output = output() if callable(output) else output
        except (RuntimeError, IndexError, ValueError):
            continue  # this mistake cannot even be made on these inputs: it does not match
        if output is not None and _close(got, output):
            return hint
    return None


def _judge_tensor(
    got, expected: torch.Tensor, names: str, variants: Iterable[Variant] = (), fallback=None
) -> str | None:
    """None when `got` equals `expected`; otherwise the most specific hint there is.

    names: the expected shape in named dimensions, e.g. "(T, T)", for the shape message.
    fallback(got) -> hint or None: property checks, tried when no variant matches.
    """
    if not isinstance(got, (torch.Tensor, Oversized)):
        return f"returned {_brief(got)}, expected a tensor of shape {names}"
    if tuple(got.shape) != tuple(expected.shape):
        named = f"{names} = {_shape(expected.shape)}" if names != _shape(expected.shape) else names
        message = f"wrong output shape: expected {named}, got {_shape(got.shape)}"
        hint = _match(got, variants)
        return f"{message}: {hint}" if hint else message
    if _close(got, expected):
        return None
    return _match(got, variants) or (fallback(got) if fallback else None) or _difference(got, expected)


def _judge_number(got, expected: torch.Tensor, variants: Iterable[Variant] = ()) -> str | None:
    """A 0-d result: a 0-d tensor or a plain Python number are both fine."""
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        got = torch.tensor(float(got), dtype=torch.float64)
    return _judge_tensor(got, expected, "()", variants)


def _pair(got, names: str) -> str | None:
    """None when got is a pair, else what it is instead."""
    if isinstance(got, (tuple, list)) and len(got) == 2:
        return None
    return f"returned {_brief(got)}, expected a pair {names}"


def hint_for_exception(type_name: str, message: str) -> str:
    """A hint for the usual errors torch raises on a wrong shape or dtype, else nothing."""
    if "shapes cannot be multiplied" in message or "must match the size" in message:
        return " (shapes that do not fit: (n, k) @ (k, m) needs equal k; print the shapes, check which needs .T)"
    if "scalar type" in message or "same dtype" in message or "dtype" in message:
        return " (integer and float tensors mixed: convert with .float() or .to(other.dtype))"
    if type_name == "IndexError" or "out of range" in message:
        return " (an index out of range: check which axis you index)"
    return ""


# --- attention weights: every usual mistake, alone and combined ----------------------------


def _hidden(kind: str, T: int) -> torch.Tensor:
    """The cells a mask hides. (T, T) bool, True = hidden."""
    ones = torch.ones(T, T, dtype=torch.bool)
    return {
        "future": torch.triu(ones, diagonal=1),  # the right mask
        "past": torch.tril(ones, diagonal=-1),
        "diagonal": torch.triu(ones, diagonal=0),
        "none": torch.zeros(T, T, dtype=torch.bool),
    }[kind]


def _attention_variants(q: torch.Tensor, k: torch.Tensor, d_model: int):
    """Weights computed with each usual mistake, fewest mistakes first.   q, k: (..., T, head_size)"""
    head_size, T = q.shape[-1], q.shape[-2]
    right = math.sqrt(head_size)
    scales = [
        (right, None),
        (1.0, f"the scores are not scaled: divide q @ k^T by sqrt(head_size) = sqrt({head_size})"),
        (
            math.sqrt(d_model),
            f"scaled by sqrt(d_model) = sqrt({d_model}); scale by sqrt(head_size) = sqrt({head_size}), "
            "the length of each query and key",
        ),
        (float(head_size), f"divided by head_size = {head_size}; divide by its square root, sqrt({head_size})"),
    ]
    masks = [
        ("future", None),
        (
            "none",
            "a future token has weight: the causal mask is missing; set the scores of j > i to -inf before the softmax",
        ),
        (
            "past",
            "a future token has weight: the mask is on the wrong side (it hides the past, j < i); "
            "hide j > i, torch.triu(..., diagonal=1)",
        ),
        ("diagonal", "the diagonal is hidden too: a token must be able to see itself (triu with diagonal=1, not 0)"),
    ]
    axes = [(-1, None), (-2, "softmax over the wrong axis: columns sum to 1, rows must (softmax along dim=-1)")]
    raw = q.double() @ k.double().transpose(-2, -1)  # (..., T, T)
    candidates = []
    for (scale, scale_hint), (mask, mask_hint), (axis, axis_hint) in product(scales, masks, axes):
        if scale_hint and math.isclose(scale, right):
            continue  # this "mistake" is the right scale for these sizes (e.g. d_model == head_size)
        hints = [h for h in (mask_hint, scale_hint, axis_hint) if h]
        if hints:
            candidates.append((len(hints), hints, scale, mask, axis))
    candidates.sort(key=lambda c: c[0])  # stable: one mistake before two, two before three
    for _, hints, scale, mask, axis in candidates:
        scores = (raw / scale).masked_fill(_hidden(mask, T), float("-inf"))
        yield "; ".join(hints), (lambda s=scores, a=axis: torch.softmax(s, dim=a))


def _weights_properties(w: torch.Tensor) -> str | None:
    """Properties every row of causal attention weights has, checked one by one.   w: (..., T, T)"""
    if w.dim() == 3:
        for h in range(w.shape[0]):
            hint = _weights_properties(w[h])
            if hint:
                return f"head {h}: {hint}"
        return None
    T = w.shape[-1]
    w = w.double()
    if torch.isnan(w).any():
        i = int(torch.isnan(w).any(dim=-1).nonzero()[0])
        return (
            f"NaN in row {i} of the weights: a row whose every score is -inf (is the diagonal hidden?), "
            "or exp overflowing"
        )
    future = w.masked_fill(~_hidden("future", T), 0.0).abs()  # (T, T), only cells with j > i kept
    if future.max() > 1e-6:
        i, j = divmod(int(future.argmax()), T)
        return (
            f"a future token has weight: row {i} gives {w[i, j]:.3f} to token {j} > {i}; "
            "the mask is on the wrong side or missing"
        )
    rows = w.sum(dim=-1)  # (T,)
    if not torch.allclose(rows, torch.ones_like(rows), atol=1e-4):
        if torch.allclose(w.sum(dim=-2), torch.ones_like(rows), atol=1e-4):
            return "softmax over the wrong axis: columns sum to 1, rows must (softmax along dim=-1)"
        i = int((rows - 1).abs().argmax())
        return f"rows do not sum to 1 (row {i} sums to {rows[i]:.3f}): take the softmax along each row"
    return None


def _judge_weights(got, expected, q, k, d_model: int, names: str) -> str | None:
    def properties(got):
        # NaN or inf where the reference has none, on scores float32's exp cannot take (past 88):
        # exp without the max-shift. torch.softmax shifts by itself; a softmax by hand must too.
        scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
        if scores.abs().max() > 80 and not torch.isfinite(got).all():
            return f"{_NO_MAX_SHIFT} (or use torch.softmax, which does)"
        return _weights_properties(got)

    return _judge_tensor(got, expected, names, _attention_variants(q, k, d_model), properties)


# --- inputs ---------------------------------------------------------------------------------


def _randn(g: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=g) * scale


def _linear(g: torch.Generator, d_in: int, d_out: int, bias: bool = False) -> nn.Linear:
    """An nn.Linear with weights from `g`, scaled 1/sqrt(d_in) so outputs stay near unit size."""
    layer = nn.Linear(d_in, d_out, bias=bias)
    with torch.no_grad():
        layer.weight.copy_(_randn(g, d_out, d_in, scale=1 / math.sqrt(d_in)))
        if bias:
            layer.bias.copy_(_randn(g, d_out, scale=0.1))
    return layer


def _layer_norm_module(g: torch.Generator, d: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(d)
    with torch.no_grad():
        norm.weight.copy_(1 + _randn(g, d, scale=0.3))
        norm.bias.copy_(_randn(g, d, scale=0.3))
    return norm


def _embedding(g: torch.Generator, n: int, d: int) -> nn.Embedding:
    table = nn.Embedding(n, d)
    with torch.no_grad():
        table.weight.copy_(_randn(g, n, d))
    return table


def _fixed() -> torch.Generator:
    """The generator of the fixed inputs: the same for every learner and every --seed."""
    return torch.Generator().manual_seed(20240604)


# --- lab 01: tensors ------------------------------------------------------------------------

_TOY_VOCABULARY = ["the", "river", "money", "bank"]
_TOY_TABLE = [[0.0, 0.0, 0.0, 1.0], [0.9, 0.0, 0.3, 0.0], [0.0, 0.9, 0.1, 0.0], [0.3, 0.3, 0.9, 0.0]]


def _judge_sentence_matrix(got, expected, args):
    table, vocabulary, sentence = args
    rows = [vocabulary.index(w) for w in sentence]
    variants = [("each word is a ROW of the table (table[rows]), not a column", lambda: table[:, rows])]
    return _judge_tensor(got, expected, "(n_words, d_model)", variants)


def _judge_dot(got, expected, args):
    a, b = args
    return _judge_number(got, expected, [("the products are not added up: sum them", a * b)])


def _judge_matmul(got, expected, args):
    a, b = args
    variants = [
        (
            "out[i, j] used ROW j of b; a matrix product takes COLUMN j of b, b[:, j]",
            lambda: a @ b.T if a.shape[1] == b.shape[1] else None,
        ),
        ("transposed: out[i, j] belongs to row i of a and column j of b, and has shape (n, m)", lambda: (a @ b).T),
    ]
    return _judge_tensor(got, expected, "(n, m)", variants)


def _lab1(seed: int) -> list[Check]:
    fixed, g = _fixed(), torch.Generator().manual_seed(seed)
    table = torch.tensor(_TOY_TABLE)
    words = ["w0", "w1", "w2", "w3", "w4", "w5"]
    random_table = _randn(g, 6, 3)
    sentence = [words[int(i)] for i in torch.randint(0, 6, (5,), generator=g)]
    X = table[[0, 1, 3]]  # "the river bank"
    return [
        Check(
            "sentence_matrix",
            "the toy world's 'the river bank'",
            ((table, _TOY_VOCABULARY, ["the", "river", "bank"]),),
            _judge_sentence_matrix,
        ),
        Check(
            "sentence_matrix",
            "a random table and a sentence with repeated words",
            ((random_table, words, sentence),),
            _judge_sentence_matrix,
        ),
        Check("dot", "bank . river", ((table[3], table[1]),), _judge_dot),
        Check("dot", "3 random pairs of vectors", tuple((_randn(g, n), _randn(g, n)) for n in (1, 5, 9)), _judge_dot),
        # The square product comes first: there a row-for-column mistake still runs, and is named.
        Check(
            "matmul_by_loops", "a square (4, 4) @ (4, 4)", ((_randn(fixed, 4, 4), _randn(fixed, 4, 4)),), _judge_matmul
        ),
        Check(
            "matmul_by_loops", "X @ X.T on 'the river bank', (3, 4) @ (4, 3)", ((X, X.T.contiguous()),), _judge_matmul
        ),
        Check(
            "matmul_by_loops",
            "random (5, 7) @ (7, 3) and (1, 3) @ (3, 1)",
            ((_randn(g, 5, 7), _randn(g, 7, 3)), (_randn(g, 1, 3), _randn(g, 3, 1))),
            _judge_matmul,
        ),
    ]


# --- lab 02: embeddings and softmax ---------------------------------------------------------


def _judge_one_hot_lookup(got, expected, args):
    ids, weight = args
    one_hot = F.one_hot(ids, num_classes=weight.shape[0]).double()  # (n, n_vocabulary)
    variants = [("returned the one-hot rows themselves: multiply them by weight", one_hot)]
    return _judge_tensor(got, expected, "(n, d_model)", variants)


def _softmax_variants(scores: torch.Tensor):
    s = scores.double()
    row_max = s.max(dim=-1, keepdim=True).values
    yield _NO_MAX_SHIFT, lambda: s.exp() / s.exp().sum(dim=-1, keepdim=True)
    if s.dim() >= 2:
        yield "softmax over the wrong axis: columns sum to 1, rows must (work along dim=-1)", lambda: torch.softmax(
            s, dim=0
        )
        yield (
            "subtract each ROW's maximum (max(dim=-1, keepdim=True)), not the maximum of the whole tensor",
            lambda: (s - s.max()).exp() / (s - s.max()).exp().sum(dim=-1, keepdim=True),
        )
        yield (
            "divided by the sum of the whole tensor: divide each ROW by its own sum (dim=-1, keepdim=True)",
            lambda: (s - row_max).exp() / (s - row_max).exp().sum(),
        )
    yield "not normalised: divide each row by its sum", lambda: (s - row_max).exp()
    yield "exp is missing: softmax divides exp(s) by the sum of exp(s)", lambda: s / s.sum(dim=-1, keepdim=True)


def _judge_softmax(got, expected, args):
    (scores,) = args

    def properties(got):
        # No variant matched: NaN or inf where the reference is finite, on large scores?
        if scores.abs().max() > 80 and not torch.isfinite(got).all():
            return "NaN for large scores: exp overflows without the max-shift; subtract each row's maximum first"
        if got.dim() >= 2:
            rows, columns = got.double().sum(dim=-1), got.double().sum(dim=-2)
            if not torch.allclose(rows, torch.ones_like(rows), atol=1e-4):
                if torch.allclose(columns, torch.ones_like(columns), atol=1e-4):
                    return "softmax over the wrong axis: columns sum to 1, rows must (work along dim=-1)"
                return "rows do not sum to 1: divide each row by its own sum"
        return None

    return _judge_tensor(got, expected, "the shape of scores", _softmax_variants(scores), properties)


def _lab2(seed: int) -> list[Check]:
    fixed, g = _fixed(), torch.Generator().manual_seed(seed)
    table = torch.tensor(_TOY_TABLE)
    return [
        Check(
            "one_hot_lookup",
            "'the river bank' in the toy world's table",
            ((torch.tensor([0, 1, 3]), table),),
            _judge_one_hot_lookup,
        ),
        Check(
            "one_hot_lookup",
            "random ids into a random (6, 3) table",
            ((torch.randint(0, 6, (7,), generator=g), _randn(g, 6, 3)),),
            _judge_one_hot_lookup,
        ),
        Check("softmax", "a vector of 4 scores", ((torch.tensor([1.0, 2.0, 3.0, 0.5]),),), _judge_softmax),
        Check(
            "softmax",
            "a (3, 5) matrix, row by row",
            ((_randn(fixed, 3, 5, scale=2.0),), (_randn(g, 4, 2, scale=2.0),)),
            _judge_softmax,
        ),
        Check(
            "softmax",
            "large scores [[1000, 1001, 1002], [1, 2, 3]]",
            ((torch.tensor([[1000.0, 1001.0, 1002.0], [1.0, 2.0, 3.0]]),),),
            _judge_softmax,
        ),
        Check(
            "softmax",
            "masked scores with -inf entries",
            ((torch.tensor([[0.0, float("-inf"), 1.0], [2.0, 3.0, float("-inf")]]),),),
            _judge_softmax,
        ),
    ]


# --- lab 03: bigram -------------------------------------------------------------------------


def _judge_bigram_counts(got, expected, args):
    ids, vocab_size = args
    wrapped = expected.double().clone()
    wrapped[ids[-1], ids[0]] += 1
    variants = [
        ("transposed: counts[a, b] counts b right AFTER a (row = current character, column = next)", expected.T),
        (
            "repeated pairs were counted once: add 1 for every occurrence (index_put_ with accumulate=True, "
            "or a loop with +=; counts[a, b] += 1 with index tensors does not add up repeats)",
            (expected > 0).double(),
        ),
        ("one pair too many: the last character has no next one, so there are N - 1 pairs", wrapped),
    ]
    return _judge_tensor(got, expected, "(vocab_size, vocab_size)", variants)


def _judge_counts_to_probs(got, expected, args):
    counts, smoothing = args
    c, s = counts.double(), smoothing
    variants = [
        (
            "each COLUMN sums to 1, rows must: divide each row by its own sum (dim=1, keepdim=True)",
            lambda: (c + s) / (c + s).sum(dim=0, keepdim=True),
        ),
        (
            "the smoothing is missing: add it to every count before dividing (a row of zeros gives 0 / 0 = NaN)",
            lambda: c / c.sum(dim=1, keepdim=True),
        ),
        ("divided by the total of all counts: divide each ROW by its own sum", lambda: (c + s) / (c + s).sum()),
    ]

    def rows(got):
        sums = got.double().sum(dim=1)
        if not torch.allclose(sums, torch.ones_like(sums), atol=1e-4):
            i = int((sums - 1).abs().nan_to_num(math.inf).argmax())
            return f"rows must sum to 1, row {i} sums to {sums[i]:.3f}"
        return None

    return _judge_tensor(got, expected, "(V, V)", variants, rows)


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
    ]
    return _judge_number(got, expected, variants)


def _lab3(seed: int) -> list[Check]:
    g = torch.Generator().manual_seed(seed)
    alphabet = "abcdr"
    abracadabra = torch.tensor([alphabet.index(c) for c in "abracadabra"])
    random_ids = torch.randint(0, 7, (200,), generator=g)
    with_empty_row = torch.tensor(
        [[2.0, 1.0, 0.0, 3.0], [0.0, 0.0, 5.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 4.0, 0.0, 0.0]]
    )
    random_counts = torch.randint(0, 9, (7, 7), generator=g).float()
    random_probs = torch.softmax(_randn(g, 7, 7), dim=1)
    return [
        Check("bigram_counts", "'abracadabra' over the alphabet 'abcdr'", ((abracadabra, 5),), _judge_bigram_counts),
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
            ((torch.full((5, 5), 0.2), abracadabra), (torch.softmax(_randn(_fixed(), 5, 5), dim=1), abracadabra)),
            _judge_average_nll,
        ),
        Check("average_nll", "200 random ids, a random table", ((random_probs, random_ids),), _judge_average_nll),
    ]


# --- lab 04: one head -----------------------------------------------------------------------


def _judge_causal_mask(got, expected, args):
    (T,) = args
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype != torch.bool:
        if _close(got, torch.tril(torch.ones(T, T))) and T > 1:
            return "this marks what is VISIBLE (torch.tril of ones); return a bool tensor, True where j > i is HIDDEN"
        return f"return a bool tensor (True = hidden), got {str(got.dtype).removeprefix('torch.')}"
    variants = [
        ("True must mark what is HIDDEN (j > i); yours marks what is visible", lambda: ~expected),
        (
            "the mask is on the wrong side: it hides the past (j < i); hide the future, j > i",
            lambda: _hidden("past", T),
        ),
        ("the diagonal is hidden too: a token must be able to see itself (diagonal=1)", lambda: _hidden("diagonal", T)),
    ]
    return _judge_tensor(got, expected, "(T, T)", variants)


def _judge_attention_weights(got, expected, args):
    x, query, key = args
    return _judge_weights(got, expected, query(x), key(x), x.shape[-1], "(T, T)")


def _judge_self_attention(got, expected, args):
    x, query, key, value = args
    out_expected, weights_expected = expected
    problem = _pair(got, "(out, weights)")
    if problem:
        return problem
    out, weights = got
    hint = _judge_attention_weights(weights, weights_expected, (x, query, key))
    if hint:
        return f"weights: {hint}"
    v = value(x)  # (T, head_size)
    variants = [
        ("blend the values v = value(x), not x", lambda: weights_expected @ x),
        (
            "each output row must mix the values with its OWN row of weights: weights @ v, not weights.T @ v",
            lambda: weights_expected.T @ v,
        ),
    ]
    hint = _judge_tensor(out, out_expected, "(T, head_size)", variants)
    return f"out: {hint}" if hint else None


def _head_cases(g: torch.Generator, sizes) -> tuple[tuple, ...]:
    """(x, query, key) or (x, query, key, value) per (T, d_model, head_size), from `g`."""
    return tuple((_randn(g, T, d), _linear(g, d, hs), _linear(g, d, hs), _linear(g, d, hs)) for T, d, hs in sizes)


def _lab4(seed: int) -> list[Check]:
    fixed, g = _fixed(), torch.Generator().manual_seed(seed)
    fixed_head = _head_cases(fixed, [(4, 8, 4)])
    # x * 10 makes the scores 100 times larger (q and k both grow tenfold): from -333 to 276 here,
    # where float32's exp overflows (past 88) or gives 0 for a whole row, so a softmax by hand
    # without the max-shift gives NaN. The rows are then nearly one-hot, far from any tie, so
    # float32 rounding in the scores moves no weight past the tolerance.
    x, query, key, _ = _head_cases(fixed, [(5, 8, 4)])[0]
    large_scores = ((x * 10, query, key),)
    random_heads = _head_cases(g, [(6, 12, 3), (9, 6, 2), (1, 4, 4)])
    return [
        Check("causal_mask", "T = 1, 4 and 7", ((1,), (4,), (7,)), _judge_causal_mask),
        Check(
            "attention_weights",
            "a fixed input (T=4, d_model=8, head_size=4)",
            tuple(c[:3] for c in fixed_head),
            _judge_attention_weights,
        ),
        Check(
            "attention_weights",
            "3 random inputs (T = 6, 9, 1)",
            tuple(c[:3] for c in random_heads),
            _judge_attention_weights,
        ),
        Check(
            "attention_weights",
            "large scores, in the hundreds (a fixed x times 10, T=5)",
            large_scores,
            _judge_attention_weights,
        ),
        Check("self_attention", "a fixed input (T=4, d_model=8, head_size=4)", fixed_head, _judge_self_attention),
        Check("self_attention", "3 random inputs (T = 6, 9, 1)", random_heads, _judge_self_attention),
    ]


# --- lab 05: several heads ------------------------------------------------------------------


def _split(t: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(T, d_model) -> (n_heads, T, head_size): the checker's own split, to rebuild mistakes."""
    T, d = t.shape
    return t.reshape(T, n_heads, d // n_heads).transpose(0, 1)


def _judge_split_heads(got, expected, args):
    t, n_heads = args
    T, d = t.shape
    variants = [
        ("transpose(0, 1) to put the heads first", lambda: t.reshape(T, n_heads, d // n_heads)),
        (
            "cut each token's vector, not the sequence: view as (T, n_heads, head_size) first, then transpose(0, 1)",
            lambda: t.reshape(n_heads, T, d // n_heads),
        ),
    ]
    return _judge_tensor(got, expected, "(n_heads, T, head_size)", variants)


def _judge_merge_heads(got, expected, args):
    (t,) = args
    n_heads, T, head_size = t.shape
    variants = [
        ("concatenate the heads side by side, along the last axis", lambda: t.reshape(n_heads * T, head_size)),
        (
            "the heads are interleaved: transpose to (T, n_heads, head_size) before reshaping to (T, d_model)",
            lambda: t.reshape(T, n_heads * head_size),
        ),
    ]
    return _judge_tensor(got, expected, "(T, n_heads * head_size)", variants)


def _judge_multi_head_attention(got, expected, args):
    x, query, key, value, proj, n_heads = args
    out_expected, weights_expected = expected
    problem = _pair(got, "(out, weights)")
    if problem:
        return problem
    out, weights = got
    T, d_model = x.shape
    q, k = _split(query(x), n_heads), _split(key(x), n_heads)  # (n_heads, T, head_size) each
    hint = _judge_weights(weights, weights_expected, q, k, d_model, "(n_heads, T, T)")
    if hint:
        return f"weights: {hint}"
    heads = weights_expected @ _split(value(x), n_heads)  # (n_heads, T, head_size)
    variants = [
        (
            "the output projection is missing: return proj(merged heads)",
            lambda: heads.transpose(0, 1).reshape(T, d_model),
        ),
        (
            "the heads are interleaved: transpose to (T, n_heads, head_size) before reshaping",
            lambda: proj(heads.reshape(T, d_model)),
        ),
    ]
    hint = _judge_tensor(out, out_expected, "(T, d_model)", variants)
    return f"out: {hint}" if hint else None


def _lab5(seed: int) -> list[Check]:
    fixed, g = _fixed(), torch.Generator().manual_seed(seed)

    def mha_case(gen, T, d, n_heads):
        return (_randn(gen, T, d), *(_linear(gen, d, d) for _ in range(4)), n_heads)

    return [
        Check("split_heads", "a fixed (5, 8) into 2 heads", ((_randn(fixed, 5, 8), 2),), _judge_split_heads),
        Check(
            "split_heads",
            "random (7, 12) into 3 heads, (3, 6) into 6",
            ((_randn(g, 7, 12), 3), (_randn(g, 3, 6), 6)),
            _judge_split_heads,
        ),
        Check("merge_heads", "a fixed (2, 5, 4)", ((_randn(fixed, 2, 5, 4),),), _judge_merge_heads),
        Check(
            "merge_heads",
            "random (3, 7, 4) and (6, 3, 1)",
            ((_randn(g, 3, 7, 4),), (_randn(g, 6, 3, 1),)),
            _judge_merge_heads,
        ),
        Check(
            "multi_head_attention",
            "a fixed input (T=5, d_model=8, 2 heads)",
            (mha_case(fixed, 5, 8, 2),),
            _judge_multi_head_attention,
        ),
        Check(
            "multi_head_attention",
            "random inputs (T=6, d_model=12, 3 heads; T=3, d_model=8, 4 heads)",
            (mha_case(g, 6, 12, 3), mha_case(g, 3, 8, 4)),
            _judge_multi_head_attention,
        ),
    ]


# --- lab 06: a tiny transformer -------------------------------------------------------------


def _judge_embed(got, expected, args):
    tokens, token_embedding, position_embedding = args
    T = tokens.shape[-1]
    variants = [
        ("the positions are missing: add position_embedding(torch.arange(T))", lambda: token_embedding(tokens)),
        (
            "positions are looked up by position 0 .. T-1 (torch.arange(T)), not by token id",
            lambda: token_embedding(tokens) + position_embedding(tokens),
        ),
        (
            "add the two rows, do not concatenate them",
            lambda: torch.cat(
                [token_embedding(tokens), position_embedding(torch.arange(T)).expand(*tokens.shape, -1)], dim=-1
            ),
        ),
    ]
    return _judge_tensor(got, expected, "(..., T, d_model)", variants)


def _judge_layer_norm(got, expected, args):
    x, weight, bias, eps = args
    x = x.double()
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    variants = [
        (
            "used the unbiased variance (divides by d_model - 1); layer norm divides by d_model: "
            "var(dim=-1, unbiased=False)",
            lambda: (x - mean) / torch.sqrt(x.var(dim=-1, keepdim=True) + eps) * weight + bias,
        ),
        (
            "normalised over the wrong axis: mean and variance go over each token's own vector, "
            "the LAST axis (dim=-1, keepdim=True)",
            lambda: (x - x.mean(dim=0, keepdim=True))
            / torch.sqrt(x.var(dim=0, keepdim=True, unbiased=False) + eps)
            * weight
            + bias,
        ),
        (
            "eps goes inside the square root: sqrt(var + eps)",
            lambda: (x - mean) / (torch.sqrt(var) + eps) * weight + bias,
        ),
        (
            "eps is missing: divide by sqrt(var + eps), which stays finite when a vector is constant",
            lambda: (x - mean) / torch.sqrt(var) * weight + bias,
        ),
        (
            "divided by the variance: divide by its square root, sqrt(var + eps)",
            lambda: (x - mean) / (var + eps) * weight + bias,
        ),
        (
            "the scale and shift are missing: multiply by weight, then add bias",
            lambda: (x - mean) / torch.sqrt(var + eps),
        ),
    ]
    return _judge_tensor(got, expected, "the shape of x", variants)


def _judge_block_forward(got, expected, args):
    x, ln1, attn, ln2, mlp = args

    def chain(attention_branch, mlp_branch):
        h = attention_branch(x)
        return mlp_branch(h)

    variants = [
        (
            "the attention branch lost its residual: x = x + attn(ln1(x))",
            lambda: chain(lambda x: attn(ln1(x)), lambda h: h + mlp(ln2(h))),
        ),
        (
            "the MLP branch lost its residual: return x + mlp(ln2(x))",
            lambda: chain(lambda x: x + attn(ln1(x)), lambda h: mlp(ln2(h))),
        ),
        (
            "no residual connections: add each branch's output back to x (x = x + ...)",
            lambda: chain(lambda x: attn(ln1(x)), lambda h: mlp(ln2(h))),
        ),
        (
            "post-norm: the layer norm goes INSIDE each branch, before attn and mlp: x + attn(ln1(x))",
            lambda: chain(lambda x: ln1(x + attn(x)), lambda h: ln2(h + mlp(h))),
        ),
        (
            "the MLP must see the x that attention updated: do the two steps one after the other",
            lambda: x + attn(ln1(x)) + mlp(ln2(x)),
        ),
        (
            "ln1 goes with attention and ln2 with the MLP",
            lambda: chain(lambda x: x + attn(ln2(x)), lambda h: h + mlp(ln1(h))),
        ),
        (
            "the layer norms are missing: attn(ln1(x)) and mlp(ln2(x))",
            lambda: chain(lambda x: x + attn(x), lambda h: h + mlp(h)),
        ),
    ]
    return _judge_tensor(got, expected, "the shape of x", variants)


def _lab6(seed: int) -> list[Check]:
    fixed, g = _fixed(), torch.Generator().manual_seed(seed)

    def norm_case(gen, *shape):
        x = _randn(gen, *shape)
        x[..., 0, :] = 0.5 + _randn(gen, shape[-1], scale=1e-3)  # a nearly constant vector: exposes eps mistakes
        return (x, 1 + _randn(gen, shape[-1], scale=0.3), _randn(gen, shape[-1], scale=0.3), 1e-5)

    def block_case(gen, *shape):
        d = shape[-1]
        mlp = nn.Sequential(_linear(gen, d, 4 * d, bias=True), nn.GELU(), _linear(gen, 4 * d, d, bias=True))
        # A linear layer stands in for attention: block_forward only has to call it in the right place.
        return (
            _randn(gen, *shape),
            _layer_norm_module(gen, d),
            _linear(gen, d, d, bias=True),
            _layer_norm_module(gen, d),
            mlp,
        )

    return [
        Check(
            "embed",
            "5 fixed tokens, vocabulary 7, d_model 4",
            ((torch.tensor([3, 0, 6, 3, 1]), _embedding(fixed, 7, 4), _embedding(fixed, 5, 4)),),
            _judge_embed,
        ),
        Check(
            "embed",
            "a random batch of (2, 6) tokens",
            ((torch.randint(0, 9, (2, 6), generator=g), _embedding(g, 9, 3), _embedding(g, 6, 3)),),
            _judge_embed,
        ),
        Check("layer_norm", "a fixed (3, 8) with a nearly constant row", (norm_case(fixed, 3, 8),), _judge_layer_norm),
        Check("layer_norm", "a random (2, 4, 6)", (norm_case(g, 2, 4, 6),), _judge_layer_norm),
        Check(
            "block_forward", "a fixed (4, 8), with stand-in layers", (block_case(fixed, 4, 8),), _judge_block_forward
        ),
        Check("block_forward", "a random batch (2, 5, 6)", (block_case(g, 2, 5, 6),), _judge_block_forward),
    ]


_CHECKS = {1: _lab1, 2: _lab2, 3: _lab3, 4: _lab4, 5: _lab5, 6: _lab6}


def checks_for(number: int, seed: int = 0) -> list[Check]:
    """The checks of lab `number`; random inputs come from `seed`, fixed ones never change."""
    with torch.no_grad():
        return _CHECKS[number](seed)
