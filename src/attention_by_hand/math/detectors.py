"""What a head does, in three numbers, and what the model does without it (zero-ablation).

A head's pattern is its attention weights on a batch of sequences: `pattern[b, h, i, j]` is
how much query position i of sequence b gives key position j, in head h. Each detector is the
mean of one cell per row, over the batch and over the rows where that cell means something:

    previous-token score  the weight on i - 1, over rows 1 .. T-1 (row 0 has no previous token)
    first-token score     the weight on position 0 (the start token), over rows 1 .. T-1
                          (row 0 can only look at itself: its weight there is always 1)
    induction score       on sequences that repeat with `period` after a start token (positions
                          1 .. period, then period + 1 .. again): the weight on i - period + 1,
                          the token AFTER the current token's earlier occurrence, over rows
                          period + 1 .. T-1 (the rows whose token appeared before)

A head is called by a detector's name when its score passes THRESHOLD: a weight of 0.4 on one
cell of every row is far above what a head that spreads its attention gives any one cell.

Ablation: a layer adds to the residual stream the sum of what its heads write; ablating a head
removes its term. Its pattern in its own layer is unchanged: the later layers lose what it wrote.

Left out: composition scores (Elhage et al. 2021 compare weight matrices; the run's H3 follows one
query through the circuit instead), and mean-ablation (replacing a head's output by its average).
"""

from __future__ import annotations

import torch

__all__ = ["THRESHOLD", "head_name", "previous_token_score", "first_token_score", "induction_score", "ablate_head"]

# A head that spreads its weight over the up to 32 positions of a row gives any one cell far less;
# the previous-token and induction heads found here score far above it (the heads part, H2).
THRESHOLD = 0.4


def head_name(layer: int, head: int) -> str:
    """'L1H0': layer 1, head 0, as the log, the pages and the labs name a head."""
    return f"L{layer}H{head}"


def previous_token_score(pattern: torch.Tensor) -> torch.Tensor:
    """pattern: (batch, heads, T, T)  ->  (heads,): mean over b and i >= 1 of pattern[b, h, i, i - 1]"""
    below = torch.diagonal(pattern, offset=-1, dim1=-2, dim2=-1)  # (batch, heads, T - 1): cells (i, i - 1)
    return below.mean(dim=(0, 2))  # (heads,)


def first_token_score(pattern: torch.Tensor) -> torch.Tensor:
    """pattern: (batch, heads, T, T)  ->  (heads,): mean over b and i >= 1 of pattern[b, h, i, 0]"""
    return pattern[:, :, 1:, 0].mean(dim=(0, 2))  # (heads,): column 0, row 0 left out


def induction_score(pattern: torch.Tensor, period: int) -> torch.Tensor:
    """pattern: (batch, heads, T, T) on sequences repeating with `period` after a start token  ->  (heads,)

    mean over b and i >= period + 1 of pattern[b, h, i, i - period + 1]
    """
    T = pattern.shape[-1]
    rows = torch.arange(period + 1, T)  # (n_rows,): tokens seen once before, period places back
    return pattern[:, :, rows, rows - period + 1].mean(dim=(0, 2))  # (heads,)


def ablate_head(scores: torch.Tensor, values: torch.Tensor, head: int) -> torch.Tensor:
    """The layer's output with one head's term removed (zero-ablation).

    scores: (batch, heads, T, T), the causal mask already applied (-inf above the diagonal);
    values: (batch, heads, T, d_model), what each head would write from each position (x W_V W_O)
        ->  (batch, T, d_model) = sum over h != head of softmax(scores_h) @ values_h
    """
    writes = torch.softmax(scores, dim=-1) @ values  # (batch, heads, T, d_model): each head's term
    keep = torch.ones(writes.shape[1], dtype=writes.dtype)  # (heads,)
    keep[head] = 0.0  # the head's term times 0: removed, and the input left as it was
    return (writes * keep[:, None, None]).sum(dim=1)  # (batch, T, d_model)
