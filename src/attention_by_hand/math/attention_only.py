"""A transformer of attention heads only: the smallest model in which an induction circuit forms.

    tokens -> x = embed[tokens]                                  the residual stream, (B, T, d_model)
    each layer, each head h:
        scores  = (x + pos) W_Q^h . (x + pos) W_K^h / sqrt(d_head), the future at -inf
        pattern = softmax(scores)                                 (B, T, T) per head
        write   = pattern @ (x W_V^h W_O^h)                       (B, T, d_model) per head
    x = x + the sum of the heads' writes                         each layer adds to the stream
    logits = x @ unembed                                          (B, T, vocab)

No MLP, no layer norm, no biases: the stream is the token's embedding plus what each head wrote,
so a head's output can be read against the embeddings by hand (Elhage et al. 2021 study this
family of models). The learned positions go into the queries' and keys' input only, never into
the stream: a head can find "the position before mine", but what it copies is a token, not a
place.

Shapes: B sequences, T positions, H heads of d_head channels, V tokens in the vocabulary.

Left out: training (training.py), the data (repeats.py), reading the heads (detectors.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn as nn

from attention_by_hand.math.detectors import ablate_head

__all__ = ["Sizes", "AttentionOnly", "Trace"]


@dataclass(frozen=True)
class Sizes:
    """The model's sizes: those of the probe in the issue that asked for it (11,264 parameters)."""

    n_layers: int = 2
    n_heads: int = 2
    d_model: int = 32
    vocab: int = 32  # token 0 is the start token; sequences are made of tokens 1 .. 31
    context: int = 32  # positions the model reads, the start token included

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def as_dict(self) -> dict:
        return {"n_layers": self.n_layers, "n_heads": self.n_heads, "d_model": self.d_model, "vocab": self.vocab, "context": self.context}


@dataclass
class Trace:
    """One forward pass, with what the analysis reads: per layer, the stream it read, each head's
    scores, pattern and write (lists indexed by layer)."""

    logits: torch.Tensor  # (B, T, V)
    streams: list[torch.Tensor]  # (B, T, d_model): the input of each layer
    scores: list[torch.Tensor]  # (B, H, T, T), the future at -inf
    patterns: list[torch.Tensor]  # (B, H, T, T)
    writes: list[torch.Tensor]  # (B, H, T, d_model): what each head adds


class AttentionOnly(nn.Module):
    """The weights as named tensors, every layer's stacked in one (the state dict is seven tensors).

    embed: (V, d_model)   pos: (context, d_model)   unembed: (d_model, V)
    W_Q, W_K, W_V: (layers, H, d_model, d_head)    W_O: (layers, H, d_head, d_model)
    """

    def __init__(self, sizes: Sizes = Sizes(), generator: torch.Generator | None = None):
        super().__init__()
        self.sizes = s = sizes

        def draw(*shape: int) -> nn.Parameter:
            # N(0, 1/d_model): a unit-size stream gives unit-size queries, keys and logits at the start.
            return nn.Parameter(torch.randn(*shape, generator=generator) / math.sqrt(s.d_model))

        L, H, d, dh = s.n_layers, s.n_heads, s.d_model, s.d_head
        self.embed, self.pos = draw(s.vocab, d), draw(s.context, d)
        self.W_Q, self.W_K, self.W_V, self.W_O = draw(L, H, d, dh), draw(L, H, d, dh), draw(L, H, d, dh), draw(L, H, dh, d)
        self.unembed = draw(d, s.vocab)

    def values(self, layer: int, x: torch.Tensor) -> torch.Tensor:
        """What each head would write from each position: x W_V W_O.   x: (B, T, d) -> (B, H, T, d)"""
        v = torch.einsum("btd,hde->bhte", x, self.W_V[layer])  # (B, H, T, dh)
        return torch.einsum("bhte,hef->bhtf", v, self.W_O[layer])  # (B, H, T, d)

    def scores(self, layer: int, x: torch.Tensor) -> torch.Tensor:
        """Each head's scores, the future at -inf.   x: (B, T, d) -> (B, H, T, T)"""
        T = x.shape[1]
        placed = x + self.pos[:T]  # (B, T, d): positions in the queries' and keys' input only
        # einsum: b sequence, t position, d model channel, h head, e head channel. One matrix
        # product for all heads, twice as fast as broadcasting (B, 1, T, d) @ (H, d, dh) here.
        q = torch.einsum("btd,hde->bhte", placed, self.W_Q[layer])  # (B, H, T, dh)
        k = torch.einsum("btd,hde->bhte", placed, self.W_K[layer])  # (B, H, T, dh)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.sizes.d_head)  # (B, H, T, T)
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)  # (T, T): key j after query i
        return scores.masked_fill(future, -math.inf)

    def forward(
        self,
        tokens: torch.Tensor,
        ablate: tuple[int, int] | None = None,
        ablation: Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor] = ablate_head,
    ) -> Trace:
        """tokens: (B, T) -> Trace. ablate = (layer, head): that head's write is removed by
        `ablation(scores, values, head)` (detectors.ablate_head; a lab passes its own)."""
        x = self.embed[tokens]  # (B, T, d): the stream starts as the tokens' embeddings
        streams, all_scores, patterns, all_writes = [], [], [], []
        for layer in range(self.sizes.n_layers):
            scores, values = self.scores(layer, x), self.values(layer, x)  # (B, H, T, T), (B, H, T, d)
            pattern = torch.softmax(scores, dim=-1)  # (B, H, T, T): each row sums to 1
            writes = pattern @ values  # (B, H, T, d)
            streams.append(x)
            all_scores.append(scores)
            patterns.append(pattern)
            all_writes.append(writes)
            if ablate is not None and ablate[0] == layer:
                x = x + ablation(scores, values, ablate[1])  # (B, T, d): the other heads only
            else:
                x = x + writes.sum(dim=1)  # (B, T, d)
        return Trace(x @ self.unembed, streams, all_scores, patterns, all_writes)  # logits: (B, T, V)

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())
