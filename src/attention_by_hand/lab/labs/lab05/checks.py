"""Lab 05's checks: splitting into heads, merging them back, several heads at once."""

from __future__ import annotations

import torch

from attention_by_hand.lab.attention_judges import explain_size_error, judge_weights, right_weights
from attention_by_hand.lab.inputs import fixed, linear, randn, seeded
from attention_by_hand.lab.judging import Check, judge_pair, judge_tensor, reversed_of


# One mistake, one hint: merge_heads and multi_head_attention name it in the same words.
INTERLEAVED = "the heads are interleaved: transpose to (T, n_heads, head_size) before reshaping to (T, d_model)"


STRIDED = ("each head must get a block of neighbouring columns (head h: columns h * head_size up to (h + 1) * "
           "head_size); yours takes every n_heads-th column (head h: columns h, h + n_heads, ...), a stride")


def strides(t: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Head h as every n_heads-th column from h (`t[:, h::n_heads]`).   (T, d) -> (n_heads, T, d // n_heads)"""
    T, d = t.shape
    return t.reshape(T, d // n_heads, n_heads).permute(2, 0, 1)


def split(t: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(T, d_model) -> (n_heads, T, head_size): the checker's own split, to rebuild mistakes."""
    T, d = t.shape
    return t.reshape(T, n_heads, d // n_heads).transpose(0, 1)


def _judge_split_heads(got, expected, args):
    t, n_heads = args
    T, d = t.shape
    variants = [
        # the effect, not a cause: a transpose left out and one too many (after `stack`, which already
        # puts the heads first) both give it
        ("the first two axes the other way round: the tokens first and the heads second, (T, n_heads, head_size), "
         "where the heads' axis goes first, (n_heads, T, head_size)", lambda: t.reshape(T, n_heads, d // n_heads)),
        (
            "cut each token's vector, not the sequence: view as (T, n_heads, head_size) first, then transpose(0, 1)",
            lambda: t.reshape(n_heads, T, d // n_heads),
        ),
        (
            "each head must get a block of neighbouring columns (head h: columns h * head_size onwards): "
            "view as (T, n_heads, head_size), not (T, head_size, n_heads)",
            lambda: strides(t, n_heads),
        ),
    ]
    return judge_tensor(got, expected, "(n_heads, T, head_size)", variants)


def _judge_merge_heads(got, expected, args):
    (t,) = args
    n_heads, T, head_size = t.shape
    variants = [
        ("concatenate the heads side by side, along the last axis", lambda: t.reshape(n_heads * T, head_size)),
        (INTERLEAVED, lambda: t.reshape(T, n_heads * head_size)),
        (
            "the heads were averaged: merging puts them side by side, (T, n_heads * head_size)",
            lambda: t.mean(dim=0),
        ),
    ]
    return judge_tensor(got, expected, "(T, n_heads * head_size)", variants)


def _judge_multi_head_attention(got, expected, args):
    x, query, key, value, proj, n_heads = args
    out_expected, weights_expected = expected
    problem = judge_pair(got, "(out, weights)", reversed_of(out_expected, weights_expected))
    if problem:
        return problem
    out, weights = got
    T, d_model = x.shape
    q, k = split(query(x), n_heads), split(key(x), n_heads)  # (n_heads, T, head_size) each
    strided = [(STRIDED, lambda: right_weights(strides(query(x), n_heads), strides(key(x), n_heads)))]
    miss = judge_weights(weights, weights_expected, q, k, d_model, "(n_heads, T, T)", strided)
    if miss:
        return miss.under("weights: ")
    heads = weights_expected @ split(value(x), n_heads)  # (n_heads, T, head_size)
    variants = [
        (
            "the output projection is missing: return proj(merged heads)",
            lambda: heads.transpose(0, 1).reshape(T, d_model),
        ),
        (INTERLEAVED, lambda: proj(heads.reshape(T, d_model))),
        (
            "the values must go through value(x), not x itself",
            lambda: proj((weights_expected @ split(x, n_heads)).transpose(0, 1).reshape(T, d_model)),
        ),
    ]
    miss = judge_tensor(out, out_expected, "(T, d_model)", variants)
    return miss.under("out: ") if miss else None


def _explain_error(type_name, message, args, shapes):
    x, n_heads = args[0], args[5]
    return explain_size_error(message, x.shape[-2], x.shape[-1], others=(x.shape[-1] // n_heads,))


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)

    def mha_case(gen, T, d, n_heads):
        return (randn(gen, T, d), *(linear(gen, d, d) for _ in range(4)), n_heads)

    return [
        Check("split_heads", "a fixed (5, 8) into 2 heads", ((randn(f, 5, 8), 2),), _judge_split_heads),
        Check(
            "split_heads",
            "random (7, 12) into 3 heads, (3, 6) into 6",
            ((randn(g, 7, 12), 3), (randn(g, 3, 6), 6)),
            _judge_split_heads,
        ),
        Check("merge_heads", "a fixed (2, 5, 4)", ((randn(f, 2, 5, 4),),), _judge_merge_heads),
        Check(
            "merge_heads",
            "random (3, 7, 4) and (6, 3, 1)",
            ((randn(g, 3, 7, 4),), (randn(g, 6, 3, 1),)),
            _judge_merge_heads,
        ),
        Check(
            "multi_head_attention",
            "a fixed input (T=5, d_model=8, 2 heads)",
            (mha_case(f, 5, 8, 2),),
            _judge_multi_head_attention,
            _explain_error,
        ),
        Check(
            "multi_head_attention",
            "random inputs (T=6, d_model=12, 3 heads; T=3, d_model=8, 4 heads)",
            (mha_case(g, 6, 12, 3), mha_case(g, 3, 8, 4)),
            _judge_multi_head_attention,
            _explain_error,
        ),
    ]
