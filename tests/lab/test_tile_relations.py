"""tile_relations.last_tile_left_out: a tiled function whose loop counts its tiles one short gives the
reference's outputs on its inputs cut to the tiles it visited; said only when one rule holds on
every input tried, and never of a function wrong some other way."""

from __future__ import annotations

import math

import torch

from attention_by_hand.lab.outcomes import alike, call
from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.tile_relations import last_tile_left_out
from labhelpers import REFERENCES, load_lab

NAMES = ["q", "k", "v", "block", "causal"]


def _reference():
    return load_lab(REFERENCES[LABS[8].filename]).tiled_attention


def _whole_tiles_only(q, k, v, block, causal):
    """Lab 09's tiled forward, written with `range(T // block)`: a last, shorter tile is never visited."""
    T_q, T_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in (b * block for b in range(T_q // block)):
        qb = q[..., i:i + block, :]  # (..., block, hs)
        m = torch.full(qb.shape[:-1], float("-inf"), dtype=q.dtype)
        l = torch.zeros(qb.shape[:-1], dtype=q.dtype)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=q.dtype)
        for j in (b * block for b in range(T_k // block)):
            if causal and j > i:
                break
            s = qb @ k[..., j:j + block, :].transpose(-2, -1) * scale
            if causal and j == i:
                s = s.masked_fill(torch.ones(block, block, dtype=torch.bool).triu(1), float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp(s - m_new[..., None])
            rescale = torch.exp(m - m_new)
            l, acc, m = rescale * l + p.sum(dim=-1), rescale[..., None] * acc + p @ v[..., j:j + block, :], m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)


def _inputs(T_q: int, T_k: int, block: int, causal: bool, seed: int) -> tuple:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(2, T_q, 4, generator=g), torch.randn(2, T_k, 4, generator=g), torch.randn(2, T_k, 3, generator=g),
            block, causal)


def _said(function, inputs: list[tuple]) -> str | None:
    reference = _reference()
    gots = [call(function, args) for args in inputs]
    expected = [call(reference, args) for args in inputs]
    return last_tile_left_out(lambda args: call(reference, args), NAMES, inputs, gots, expected, alike)


def test_a_loop_over_whole_tiles_only_is_said_to_leave_the_last_tile_out():
    said = _said(_whole_tiles_only, [_inputs(13, 13, 4, True, 0), _inputs(8, 8, 4, False, 1), _inputs(8, 13, 4, False, 2)])
    assert said is not None and said.startswith("yours is the reference's output on its inputs cut to the tiles before the "
                                                "last (on one input, `q`, `k` and `v` cut from 13 rows to the first 12, in "
                                                "tiles of 4)")


def test_a_function_right_on_every_input_is_said_nothing():
    assert _said(_reference(), [_inputs(13, 13, 4, True, 0), _inputs(7, 13, 4, False, 1)]) is None


def test_outputs_wrong_beyond_the_cut_are_said_nothing():
    def halved(*args):
        out, lse = _whole_tiles_only(*args)
        return out / 2, lse

    assert _said(halved, [_inputs(13, 13, 4, True, 0), _inputs(8, 8, 4, False, 1)]) is None


def test_a_function_without_a_block_argument_is_said_nothing():
    reference = _reference()
    inputs = [_inputs(13, 13, 4, True, 0)]
    gots = [call(_whole_tiles_only, args) for args in inputs]
    said = last_tile_left_out(lambda args: call(reference, args), ["q", "k", "v", "size", "causal"], inputs, gots,
                              [call(reference, args) for args in inputs], alike)
    assert said is None
