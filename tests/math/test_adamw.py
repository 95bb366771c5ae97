"""AdamW written out (math/adamw.py) against `torch.optim.AdamW`: tolerance zero, the same bytes.

The training reproduces weights byte for byte, so the hand-written update must make exactly
PyTorch's float32 operations, not merely close ones.
"""

from __future__ import annotations

import pytest
import torch

from attention_by_hand.math.adamw import AdamW

SHAPES = [(32, 32), (2, 2, 32, 16), (7,)]


def parameters(seed: int) -> list[torch.nn.Parameter]:
    g = torch.Generator().manual_seed(seed)
    return [torch.nn.Parameter(torch.randn(*shape, generator=g)) for shape in SHAPES]


def run(params, optimizer, steps: int, seed: int, clear) -> None:
    """`steps` updates on gradients drawn from `seed`: a loss whose gradient is that draw times the weights."""
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        loss = sum((p * p * torch.randn(p.shape, generator=g)).sum() for p in params)
        loss.backward()
        optimizer.step()
        clear()


@pytest.mark.parametrize("lr, weight_decay", [(1e-2, 1e-2), (3e-3, 0.0), (0.1, 0.5)])
def test_hand_written_adamw_makes_torch_optims_bytes(lr, weight_decay):
    ours, theirs = parameters(0), parameters(0)
    mine = AdamW(ours, lr=lr, weight_decay=weight_decay)
    torchs = torch.optim.AdamW(theirs, lr=lr, weight_decay=weight_decay)
    run(ours, mine, 40, seed=1, clear=lambda: None)
    run(theirs, torchs, 40, seed=1, clear=torchs.zero_grad)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype == torch.float32
        assert torch.equal(a, b)


def test_a_step_moves_the_weights_and_clears_the_gradients():
    params = parameters(2)
    before = [p.detach().clone() for p in params]
    optimizer = AdamW(params, lr=1e-2)
    sum((p * p).sum() for p in params).backward()
    optimizer.step()
    assert all(p.grad is None for p in params)
    assert all(not torch.equal(p, q) for p, q in zip(params, before))
