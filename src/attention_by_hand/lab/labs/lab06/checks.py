"""Lab 06's checks: embeddings with positions, layer norm by hand, one transformer block."""

from __future__ import annotations

import torch
import torch.nn as nn

from attention_by_hand.lab.inputs import embedding, fixed, layer_norm_module, linear, randn, seeded
from attention_by_hand.lab.judging import Check, Probe, judge_tensor, mismatched_sizes


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
    return judge_tensor(got, expected, "(..., T, d_model)", variants)


def _explain_embed_error(type_name, message, args, shapes):
    tokens, _, position_embedding = args
    sizes = mismatched_sizes(message)
    if not sizes:
        return None
    T, rows = tokens.shape[-1], position_embedding.weight.shape[0]
    if rows != T and sorted(sizes) == sorted((T, rows)):
        # the whole table (or a lookup of every row) meets the tokens: said by what met, the table's rows
        return (
            f"a length of {T} (T) met one of {rows}, as many as the position table has rows (every position the "
            "model can take, not the text's): the positions added are the first T, position_embedding(torch.arange(T))"
        )
    if tokens.dim() < 2:
        return None
    batch = tokens.shape[0]
    if batch != T and sizes == (T, batch):
        # said by what met, not by its cause (the 2 of `tokens.ndim` meets T as the batch size 2 would),
        # nor by which side holds which: positions added first, or tokens transposed, meet so too
        return (
            f"a length of {T} (T) met one of {batch}, as many as the batch size: the positions are "
            "torch.arange(T) with T = tokens.shape[-1] (tokens is (batch, T); len(tokens) and tokens.shape[0] are "
            "the batch size)"
        )
    return None


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
            "divided by x.std(dim=-1) + eps: std is the unbiased one (divides by d_model - 1) and eps goes "
            "inside the square root: sqrt(var(dim=-1, unbiased=False) + eps)",
            lambda: (x - mean) / (x.std(dim=-1, keepdim=True) + eps) * weight + bias,
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
    return judge_tensor(got, expected, "the shape of x", variants)


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
    return judge_tensor(got, expected, "the shape of x", variants)


def _embed_probes() -> tuple[Probe, ...]:
    """Inputs that tell causes apart (never judged; diagnosis.py uses them): fewer tokens than the
    position table has rows, so that positions off by one still index the table and give an
    output where, on the cases, they ran past its end and raised."""
    p = torch.Generator().manual_seed(22)  # their own generator: the checks' inputs stay as they were
    return (Probe("3 tokens, 6 positions in the table", (torch.tensor([2, 5, 1]), embedding(p, 7, 4), embedding(p, 6, 4))),)


def checks(seed: int) -> list[Check]:
    f, g = fixed(), seeded(seed)
    # its own generator, so that the other checks' inputs stay as they were: the whole position table
    # fits a text exactly as long as the table, and only a longer table tells it from the first T rows
    longer = torch.Generator().manual_seed(23)

    def norm_case(gen, *shape):
        x = randn(gen, *shape)
        # A nearly constant vector (spread near 1e-3, variance below eps) exposes the eps mistakes.
        # Its values are 0.5 + m / 4096 for small integers m that come in pairs +m, -m, so that
        # they, their mean (0.5) and their deviations are exact in float32: dividing by a spread
        # this small would turn float32 rounding into errors past the tolerance, and tell a
        # learner's float32 answer from the float64 one of the same mistake apart.
        d = shape[-1]
        half = torch.randint(1, 5, (d // 2,), generator=gen)
        m = torch.cat([half, -half, torch.zeros(d % 2, dtype=half.dtype)])[torch.randperm(d, generator=gen)]
        x[..., 0, :] = 0.5 + m / 4096
        return (x, 1 + randn(gen, shape[-1], scale=0.3), randn(gen, shape[-1], scale=0.3), 1e-5)

    def block_case(gen, *shape):
        d = shape[-1]
        mlp = nn.Sequential(linear(gen, d, 4 * d, bias=True), nn.GELU(), linear(gen, 4 * d, d, bias=True))
        # A linear layer stands in for attention: block_forward only has to call it in the right place.
        return (
            randn(gen, *shape),
            layer_norm_module(gen, d),
            linear(gen, d, d, bias=True),
            layer_norm_module(gen, d),
            mlp,
        )

    return [
        Check(
            "embed",
            "5 fixed tokens, vocabulary 7, d_model 4",
            ((torch.tensor([3, 0, 6, 3, 1]), embedding(f, 7, 4), embedding(f, 5, 4)),),
            _judge_embed,
            probes=_embed_probes(),
        ),
        Check(
            "embed",
            "a random batch of (2, 6) tokens",
            ((torch.randint(0, 9, (2, 6), generator=g), embedding(g, 9, 3), embedding(g, 6, 3)),),
            _judge_embed,
            _explain_embed_error,
        ),
        Check(
            "embed",
            "4 tokens, a table of 7 positions (a context longer than the text)",
            ((torch.tensor([1, 4, 4, 0]), embedding(longer, 6, 3), embedding(longer, 7, 3)),),
            _judge_embed,
            _explain_embed_error,
        ),
        Check("layer_norm", "a fixed (3, 8) with a nearly constant row", (norm_case(f, 3, 8),), _judge_layer_norm),
        Check("layer_norm", "a random (2, 4, 6)", (norm_case(g, 2, 4, 6),), _judge_layer_norm),
        Check(
            "block_forward", "a fixed (4, 8), with stand-in layers", (block_case(f, 4, 8),), _judge_block_forward
        ),
        Check("block_forward", "a random batch (2, 5, 6)", (block_case(g, 2, 5, 6),), _judge_block_forward),
    ]
