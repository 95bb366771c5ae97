"""Lab 08's checks: positions that start where the cache ends, the cache update, one decode step.

Every decode step's output is judged against the layer run without a cache on the whole
sequence so far (its row `position`), and the cache it returns against the reference's: the
cache it is given holds the keys and values of the words before it, made by the same layer
from real inputs.

The usual mistakes, each with its own output on these inputs: positions restarting at 0 for
each new word; the cache grown along another axis than time, with the new word in front, not
kept, or not updated; the new word's mask taken as row 0 of the causal mask (it sees only
position 0), one row too early (it is hidden from itself), or the whole (T, T) mask (T rows
come out); and each step seeing only itself (the cache not kept; or kept, then not read or its
earlier words masked: the cache returned tells the first from the others). Positions 3 and 5
tell row 0 from "one row too early", which agree at position 1.

Left out: the model around the layer (its layer norms and MLP work on each word alone).
"""

from __future__ import annotations

import math
import re
from functools import partial

import torch
import torch.nn as nn

from attention_by_hand.lab.inputs import embedding, fixed, linear, randn, seeded
from attention_by_hand.lab.judging import Check, judge_pair, judge_tensor

# One mistake, one hint, whichever function shows it: the test of the fixtures asks that a
# mistake seen by two checks is named in the same words by both.
RESTART = (
    "the positions restart at 0: these words sit at start, start + 1, ..., so look up "
    "position_embedding(torch.arange(start, start + T)), not torch.arange(T)"
)
NOT_KEPT = (
    "each step sees only its own word: the cache is not kept (or not used); add the new key and value "
    "AFTER the cached ones, torch.cat([keys, k_new], dim=2), and let the new query meet them all"
)
# The same output as NOT_KEPT, with the cache returned right: the cache was kept, so the new word
# was kept from it after (its own k and v attended alone, or the earlier words masked).
SEES_ONLY_ITSELF = (
    "the new word attends to its own key alone, though the cache you return holds every word: the "
    "attention reads the new k and v instead of the cache's keys and values, or the mask hides the "
    "earlier words; hide only keys j > position, which for the new word hides none"
)


def new_first(name: str) -> str:
    """Said of keys and of values apart (under "keys: " or "values: "), with that tensor's own line."""
    added = {"keys": "k_new", "values": "v_new"}[name]
    return (
        "the new words went in front of the cached ones: the cache keeps the words in order, "
        "place t for word t (attention cannot tell while it sees every word; a mask by place can); "
        f"torch.cat([{name}, {added}], dim=2)"
    )


NOT_ADDED = (
    "the new word's key and value are missing from the cache returned: return the cache with them "
    "appended, so that the next step sees this word"
)
ROW_ZERO = (
    "the new word's mask is row 0 of the causal mask (hidden[:1, :T], or a query position of 0), so it "
    "sees only position 0: its row is row `position`, key j hidden only when j > position, which hides nothing"
)
HIDES_ITSELF = (
    "the new word does not see itself: its mask row is one too early (row position - 1), or it "
    "attends before its key is in the cache; append first, then use row `position` of the mask"
)
WHOLE_MASK = (
    "the mask was built for the whole sequence, (T, T), so T rows came out: the new word is ONE row "
    "of it, row `position`, of shape (1, T); the output is (B, 1, d_model)"
)
# said of a reshape that raised with T rows where one was due: what the error shows, not its cause
T_ROWS = (
    "T rows came out where the new word makes ONE: the output is (B, 1, d_model), one row per word given; "
    "where a mask covers the whole sequence, (T, T), the new word's part of it is its row `position`, (1, T)"
)
NO_SCALE = "the scores are not scaled: divide q @ keys^T by sqrt(head_size)"


def wrong_axis(dim: int) -> str:
    return (
        f"the cache grows along the wrong axis, dim={dim}: the time axis is dim=2 of "
        "(B, heads, T, head_size); torch.cat([keys, k_new], dim=2)"
    )


_CAT_ERROR = re.compile(r"must match except in dimension (\d+)\. Expected size (\d+) but got size (\d+)")


def _lengths(args) -> set[int]:
    """The cache's length and the new words' count: (cache, k_new, v_new) or (x_new, cache, position, ...)."""
    if isinstance(args[0], tuple):
        return {args[0][0].shape[2], args[1].shape[2]}
    return {args[1][0].shape[2], args[0].shape[-2]}


def _explain_cat_error(type_name, message, args, shapes):
    """torch.cat's "Sizes of tensors must match except in dimension 3. Expected size 4 but got size 1":
    the axis the cache grew on, where the sizes that disagree are the cache's length and the new
    words' (both tensors laid out alike, joined on another axis). Sizes of two other axes (a batch of
    2 against 3 heads) say the tensors were laid out differently (one moved, the other not): not said."""
    found = _CAT_ERROR.search(message)
    if not found or found.group(1) == "2":
        return None
    sizes = {int(found.group(2)), int(found.group(3))}
    return wrong_axis(int(found.group(1))) if sizes == _lengths(args) else None


# --- embed_at ---------------------------------------------------------------------------------


def _judge_embed_at(got, expected, args):
    tokens, start, token_embedding, position_embedding = args
    T = tokens.shape[-1]
    rows = token_embedding(tokens)  # (B, T, d)
    variants = [
        (RESTART, lambda: rows + position_embedding(torch.arange(T))),
        ("the positions are missing: add position_embedding(torch.arange(start, start + T))", lambda: rows),
        (
            "positions are looked up by position (start, start + 1, ...), not by token id",
            lambda: rows + position_embedding(tokens),
        ),
        (
            "every word got position `start`: word i of these sits at start + i, torch.arange(start, start + T)",
            lambda: rows + position_embedding(torch.tensor(start)),
        ),
        (
            "the positions are one place too far: the first of these words sits at `start` itself",
            lambda: rows + position_embedding(torch.arange(start + 1, start + T + 1)),
        ),
    ]
    return judge_tensor(got, expected, "(B, T, d_model)", variants)


def _explain_embed_error(type_name, message, args, shapes):
    if "must be Tensor, not int" in message:
        return "an nn.Embedding looks up a tensor of positions: position_embedding(torch.arange(start, start + T))"
    return None


# --- append_to_cache --------------------------------------------------------------------------


def _grown(old: torch.Tensor, new: torch.Tensor, name: str):
    """The cache tensor `name` ("keys" or "values") as each usual mistake grows it.
    old: (B, nh, T, hs); new: (B, nh, T_new, hs)"""
    return [
        *((wrong_axis(dim), lambda dim=dim: torch.cat([old, new], dim=dim)) for dim in (0, 1, 3)),
        (new_first(name), lambda: torch.cat([new, old], dim=2)),
        (NOT_KEPT, lambda: new),
        (NOT_ADDED, lambda: old),
    ]


def _judge_cache(got, expected, old: tuple, new: tuple, grown: str = "(B, heads, T + 1, head_size)"):
    """A returned (keys, values) against the expected pair; old and new: (keys, values) each;
    grown: the shape the cache should have, in words (a decoding step adds one word, a prompt several)."""
    problem = judge_pair(got, "(keys, values)")
    if problem:
        return problem
    for name, i in (("keys", 0), ("values", 1)):
        miss = judge_tensor(got[i], expected[i], grown, _grown(old[i], new[i], name))
        if miss:
            return miss.under(f"{name}: ")
    return None


def _judge_append(got, expected, args):
    cache, k_new, v_new = args
    return _judge_cache(got, expected, cache, (k_new, v_new), "(B, heads, T + T_new, head_size)")


# --- decode_step ------------------------------------------------------------------------------


def _new_word(x_new: torch.Tensor, qkv: nn.Linear, n_heads: int):
    """The new word's q, k, v, each (B, nh, 1, hs), as the layer makes them."""
    B, _, C = x_new.shape
    return tuple(t.view(B, 1, n_heads, C // n_heads).transpose(1, 2) for t in qkv(x_new).split(C, dim=-1))


def _attend(q, keys, values, proj, hidden, scale: bool = True):
    """proj(softmax(q keys^T / sqrt(hs), hiding `hidden`) values), heads merged.

    q: (B, nh, T_q, hs); keys, values: (B, nh, T, hs); hidden: (rows, T) bool, broadcast as a
    learner's masked_fill broadcasts it (one query and rows > 1: the whole mask, rows of output)
    ->  (B, max(T_q, rows), C)
    """
    hs = q.shape[-1]
    scores = q @ keys.transpose(-2, -1) / (math.sqrt(hs) if scale else 1.0)  # (B, nh, T_q, T)
    weights = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)  # (B, nh, rows, T)
    heads = weights @ values  # (B, nh, rows, hs)
    B, nh, rows, _ = heads.shape
    return proj(heads.transpose(1, 2).reshape(B, rows, nh * hs))


def _judge_decode_step(got, expected, args, uncached: dict):
    """uncached: position -> row `position` of the layer run on the whole sequence, no cache."""
    x_new, cache, position, qkv, proj, n_heads = args
    out_expected, cache_expected = uncached[position], expected[1]
    problem = judge_pair(
        got, "(out, cache)", lambda a, b: isinstance(a, (tuple, list)) and isinstance(b, torch.Tensor)
    )
    if problem:
        return problem
    out, new_cache = got
    q, k, v = _new_word(x_new, qkv, n_heads)
    keys, values = (torch.cat([c, t], dim=2) for c, t in zip(cache, (k, v)))  # (B, nh, T, hs)
    T = keys.shape[2]
    columns = torch.arange(T)  # (T,)
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T)
    cache_kept = _judge_cache(new_cache, cache_expected, cache, (k, v)) is None
    variants = [
        (SEES_ONLY_ITSELF if cache_kept else NOT_KEPT, lambda: _attend(q, k, v, proj, torch.zeros(1, 1, dtype=torch.bool))),
        (ROW_ZERO, lambda: _attend(q, keys, values, proj, causal[:1])),
        (HIDES_ITSELF, lambda: _attend(q, keys, values, proj, (columns >= position)[None])),
        (WHOLE_MASK, lambda: _attend(q, keys, values, proj, causal)),
        (NO_SCALE, lambda: _attend(q, keys, values, proj, causal[position : position + 1], scale=False)),
    ]
    miss = judge_tensor(out, out_expected, "(B, 1, d_model)", variants)
    if miss:
        return miss.under("out: ")
    miss = _judge_cache(new_cache, cache_expected, cache, (k, v))
    return miss.under("cache: ") if miss else None


def _explain_decode_error(type_name, message, args, shapes):
    x_new, cache, position = args[:3]
    found = re.search(r"shape '\[(\d+), 1, (\d+)\]' is invalid for input of size (\d+)", message)
    B, _, C = x_new.shape
    if found and position > 0 and int(found.group(3)) == B * (position + 1) * C:
        return T_ROWS
    return _explain_cat_error(type_name, message, args, shapes)


def _decode_check(label: str, g: torch.Generator, B: int, positions, d_model: int, n_heads: int) -> Check:
    """decode_step at each position, on words made by one layer: the case gets the cache of the
    words before, the judge the layer's output on all of them, row `position` (no cache)."""
    cases, uncached = [], {}
    for position in positions:
        qkv, proj = linear(g, d_model, 3 * d_model), linear(g, d_model, d_model, bias=True)
        x = randn(g, B, position + 1, d_model)  # (B, T, d_model): the words so far, T = position + 1
        T, head_size = position + 1, d_model // n_heads
        q, k, v = (t.view(B, T, n_heads, head_size).transpose(1, 2) for t in qkv(x).split(d_model, dim=-1))
        hidden = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T), True = a later word
        whole = _attend(q, k, v, proj, hidden)  # (B, T, d_model): every word, no cache
        uncached[position] = whole[:, position:]  # (B, 1, d_model)
        cache = (k[:, :, :position].contiguous(), v[:, :, :position].contiguous())  # (B, nh, position, hs)
        cases.append((x[:, position:], cache, position, qkv, proj, n_heads))
    judge = partial(_judge_decode_step, uncached=uncached)
    return Check("decode_step", label, tuple(cases), judge, _explain_decode_error)


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)

    def cache_case(gen, B, nh, T, hs, T_new=1):
        """(cache, k_new, v_new): a cache of T words and T_new new ones."""
        cache = (randn(gen, B, nh, T, hs), randn(gen, B, nh, T, hs))  # (B, nh, T, hs) each
        return (cache, randn(gen, B, nh, T_new, hs), randn(gen, B, nh, T_new, hs))  # (B, nh, T_new, hs) each

    return [
        Check(
            "embed_at",
            "one new word at position 5 (a batch of 2, vocabulary 7, d_model 4)",
            ((torch.tensor([[4], [1]]), 5, embedding(f, 7, 4), embedding(f, 9, 4)),),
            _judge_embed_at,
            _explain_embed_error,
        ),
        Check(
            # a start other than 2 with several words: at start 2, T - 1 + 2 and T + 1 are one number, so a
            # range that ends at T + 1 (or starts wrong and ends right) passed on the random check alone
            "embed_at",
            "3 words from position 4 (a batch of 2, vocabulary 7, d_model 4)",
            ((torch.tensor([[3, 0, 6], [2, 5, 1]]), 4, *(lambda h: (embedding(h, 7, 4), embedding(h, 9, 4)))(fixed())),),
            _judge_embed_at,
            _explain_embed_error,
        ),
        Check(
            "embed_at",
            "random: 4 words from position 2, then 1 word at position 8",
            (
                (torch.randint(0, 6, (3, 4), generator=g), 2, embedding(g, 6, 5), embedding(g, 9, 5)),
                (torch.randint(0, 6, (1, 1), generator=g), 8, embedding(g, 6, 5), embedding(g, 9, 5)),
            ),
            _judge_embed_at,
            _explain_embed_error,
        ),
        Check(
            "append_to_cache",
            "a cache of 1 word, B=2, 3 heads, head_size 4 (every axis differs)",
            (cache_case(f, 2, 3, 1, 4),),
            _judge_append,
            _explain_cat_error,
        ),
        Check(
            "append_to_cache",
            "random: an empty cache (the first word), a cache of 4 words, then 3 new words after 4",
            # the 3 words (a prompt read at once) from a generator of their own: the draws after stay as they were
            (cache_case(g, 2, 2, 0, 5), cache_case(g, 1, 2, 4, 3), cache_case(seeded(seed + 1), 2, 3, 4, 2, T_new=3)),
            _judge_append,
            _explain_cat_error,
        ),
        _decode_check(
            "the word at position 3, against the layer without a cache (B=1, d_model 8, 2 heads)", f, 1, (3,), 8, 2
        ),
        _decode_check(
            "random: positions 5 and 0, against the layer without a cache (B=2, d_model 12, 3 heads)",
            g,
            2,
            (5, 0),
            12,
            3,
        ),
    ]
