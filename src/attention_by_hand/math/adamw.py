"""AdamW written out: the update `torch.optim.AdamW` makes with its default settings, op for op.

    for each parameter p with gradient g, at step t (from 1):
        p   <- p * (1 - lr * weight_decay)                      decoupled weight decay
        m   <- m + (g - m) * (1 - beta1)                         the gradient's running mean
        v   <- v * beta2 + g * g * (1 - beta2)                   its running mean square
        p   <- p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

Why not `torch.optim.AdamW` itself: creating one imports `torch._dynamo` (and SymPy with it), about
1.5-2 s of CPU on this machine, a tenth of `attention-by-hand train heads`; and each of its steps
goes through hooks, a profiler record and a dispatch over implementations that this model's seven
small tensors do not need. The ops here are those of PyTorch's single-tensor path (torch/optim/adam.py,
`_single_tensor_adam`, non-capturable, non-amsgrad), in its order and with its Python-float
coefficients, so the weights come out with the same bytes (tests/math/test_adamw.py checks it
against `torch.optim.AdamW`).

Left out: amsgrad, maximize, complex parameters, learning-rate schedules, saving the state: the
training here uses none of them.
"""

from __future__ import annotations

import torch

__all__ = ["AdamW"]


class AdamW:
    """AdamW over `params`, PyTorch's defaults (betas 0.9, 0.999; eps 1e-8; weight decay 0.01)."""

    def __init__(self, params, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2):
        self.params = list(params)
        self.lr, (self.beta1, self.beta2), self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]  # each as its parameter's shape
        self.v = [torch.zeros_like(p) for p in self.params]

    @torch.no_grad()
    def step(self) -> None:
        """One update from the gradients in `p.grad`, which it then clears (to None, as `zero_grad` does)."""
        self.t += 1
        lr, beta1, beta2 = self.lr, self.beta1, self.beta2
        # Python floats, as PyTorch computes them (its step count is read back as a float).
        step = float(self.t)
        step_size = lr / (1 - beta1**step)
        root = (1 - beta2**step) ** 0.5
        for p, m, v in zip(self.params, self.m, self.v):
            g = p.grad
            p.mul_(1 - lr * self.weight_decay)
            m.lerp_(g, 1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            p.addcdiv_(m, (v.sqrt() / root).add_(self.eps), value=-step_size)
            p.grad = None
