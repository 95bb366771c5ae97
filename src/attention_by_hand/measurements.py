"""The random and the PyTorch half of the run: S5's sampling and S6's reference answers.

Everything the run draws at random, and everything it asks PyTorch, happens here, in one
fixed order from one generator seeded with 0:

    S5  4 x 2000 rows of random queries and keys  -> the table of spreads and top weights
    S6  random W_q, W_k, W_v (d_model -> 3)       -> the matrices themselves
        torch's scaled_dot_product_attention      -> its outputs, plain and causal

`measure(X)` yields those results in that order. It is the slow part of the run (5.9
million normal draws, and an import of torch that takes about a second), and it needs
nothing from S1-S4, so `Measurements` runs it in a helper process started first thing,
while the main process writes S1-S4 and draws the figures. The helper streams each result
back as soon as it has it, as a length-framed .npy array on its stdout. Same float64 bytes
as running it in-process (background=False), which the tests check.
"""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
from typing import Iterator

import numpy as np

from attention_by_hand.mechanism import softmax

__all__ = ["SEED", "S5_ROW", "S5_TRIALS", "S5_DIMS", "S6_HEAD_SIZE", "sample_scaling", "torch_attention", "measure", "Measurements"]

SEED = 0

# S5: one softmax row of 8 keys (an 8-word sentence), 2000 rows for each query/key size.
S5_ROW = 8
S5_TRIALS = 2000
S5_DIMS = (4, 16, 64, 256)

# S6: the random general head maps d_model axes to this many query/key/value dimensions.
S6_HEAD_SIZE = 3


def sample_scaling(rng: np.random.Generator, d: int, row: int, trials: int) -> np.ndarray:
    """Dot-product spread and softmax sharpness for random queries and keys of size d.

    Returns [std of q.k, mean top weight of softmax(scores), mean top weight of
    softmax(scores / sqrt(d))]: shape (3,).
    """
    # One call draws what `trials` rounds of "q, then row keys" would draw, in the same order:
    # the generator's stream does not depend on how it is cut into calls.
    block = rng.standard_normal((trials, (row + 1) * d))  # (trials, (row+1) * d)
    q = block[:, :d, None]  # (trials, d, 1)
    keys = block[:, d:].reshape(trials, row, d)  # (trials, row, d)
    scores = (keys @ q)[..., 0]  # (trials, row): one softmax row per trial
    top_unscaled = softmax(scores).max(axis=-1)  # (trials,)
    top_scaled = softmax(scores / np.sqrt(d)).max(axis=-1)  # (trials,)
    return np.array([np.std(scores), np.mean(top_unscaled), np.mean(top_scaled)])


def torch_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, causal: bool = False) -> np.ndarray:
    """torch.nn.functional.scaled_dot_product_attention on already projected Q, K, V.

    Q, K: (n_words, d_k), V: (n_words, d_v) -> output: (n_words, d_v), float64 as given.
    """
    import torch  # here, not at the top: only S6 and the tests pay for the import
    import torch.nn.functional as F

    out = F.scaled_dot_product_attention(torch.from_numpy(Q), torch.from_numpy(K), torch.from_numpy(V), is_causal=causal)
    return out.numpy()


def measure(X: np.ndarray) -> Iterator[np.ndarray]:
    """Yield, in order: S5's table (len(S5_DIMS), 3), W_q, W_k, W_v (d_model, 3) each,
    torch's output for X (n_words, 3) without and then with the causal mask."""
    rng = np.random.default_rng(SEED)
    yield np.array([sample_scaling(rng, d, S5_ROW, S5_TRIALS) for d in S5_DIMS])
    # Random stand-ins for trained weights: enough to check that two implementations agree.
    W = [rng.standard_normal((X.shape[1], S6_HEAD_SIZE)) for _ in range(3)]
    yield from W
    Q, K, V = (X @ w for w in W)  # (n_words, 3) each
    yield torch_attention(Q, K, V, causal=False)
    yield torch_attention(Q, K, V, causal=True)
    yield np.array(_torch_version())


def _torch_version() -> str:
    import torch

    return torch.__version__


class Measurements:
    """The stream of `measure(X)`, computed in a helper process (background) or lazily here."""

    def __init__(self, X: np.ndarray, background: bool = True):
        self._proc = None
        self._local = None
        if not background:
            self._local = measure(X)
            return
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "attention_by_hand.measurements"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _send(self._proc.stdin, X)
        self._proc.stdin.close()

    def next(self) -> np.ndarray:
        """The next result of `measure`, waiting for the helper if it is not there yet."""
        if self._local is not None:
            return next(self._local)
        try:
            return _receive(self._proc.stdout)
        except EOFError:
            self._proc.wait()
            problem = self._proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
            from attention_by_hand.errors import UserError

            raise UserError(
                "the measurement helper (S5, S6) stopped: " + (problem[-1] if problem else "no output")
            ) from None

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()  # a no-op once it has finished; stops it if the run failed early
            self._proc.wait()
            self._proc.stdout.close()
            self._proc.stderr.close()

    def __enter__(self) -> "Measurements":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _send(stream, array: np.ndarray) -> None:
    # np.save needs a seekable file for some arrays and np.load always seeks, and a pipe cannot:
    # so each array travels as 8 bytes of length and then its .npy bytes.
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    data = buffer.getvalue()
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _receive(stream) -> np.ndarray:
    header = stream.read(8)
    if len(header) != 8:
        raise EOFError("the helper closed its pipe")
    (size,) = struct.unpack("<Q", header)
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("the helper closed its pipe mid-array")
    return np.load(io.BytesIO(data), allow_pickle=False)


def _serve() -> None:
    X = _receive(sys.stdin.buffer)
    for result in measure(X):
        _send(sys.stdout.buffer, result)
    # All sent and flushed; skipping interpreter teardown saves torch's ~0.2 s unload.
    os._exit(0)


if __name__ == "__main__":
    _serve()
