"""The random and the PyTorch half of the run: S5's sampling and S6's reference answers.

Everything the run draws at random, and everything it asks PyTorch, happens here, drawn in
one fixed order from one generator seeded with 0. Each result has a name:

    s5.table        (len(S5_DIMS), 3)  4 x 2000 rows of random queries and keys -> per size:
                                       spread of q.k, mean top weight unscaled and scaled
    s6.W_q, s6.W_k, s6.W_v  (d_model, 3)  the random general head's matrices
    s6.torch.full   (n_words, 3)       torch's scaled_dot_product_attention on X
    s6.torch.causal (n_words, 3)       the same with its causal mask
    torch.version   ()                 the torch that answered, for line 3 of the log

`measure(X)` yields (name, result) pairs. It is the slow part of the run (5.9 million normal
draws, and an import of torch that takes about a second), and it needs nothing from S1-S4, so
`Measurements` runs it in a helper process started first thing, while the main process writes
S1-S4 and draws the figures. The helper streams each result back as soon as it has it, framed
with its name, and the run asks for results by name (`measured["s5.table"]`), so the sections
need not read them in the order they were drawn. Same float64 bytes as running it in-process
(background=False), which the tests check.
"""

from __future__ import annotations

import functools
import io
import os
import struct
import subprocess
import sys
from typing import Iterator

import numpy as np

from attention_by_hand.math.mechanism import softmax

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


@functools.cache
def _scaling() -> tuple[np.ndarray, dict]:
    """S5's table, and the generator's state after S5's draws: the same for every world.

    Kept for the process, so that one which runs many worlds (a room of worksheets) makes the
    5.9 million draws once; the state lets S6 go on drawing exactly where S5 stopped.
    """
    rng = np.random.default_rng(SEED)
    table = np.array([sample_scaling(rng, d, S5_ROW, S5_TRIALS) for d in S5_DIMS])  # (len(S5_DIMS), 3)
    return table, rng.bit_generator.state


def measure(X: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    """Yield (name, result) for every result in the module docstring. X: (n_words, d_model).

    The order is the generator's: S5 draws first, then S6's matrices, so every run draws the
    same numbers. The torch answers come last because they wait for `import torch`.
    """
    table, state = _scaling()
    rng = np.random.default_rng(SEED)
    rng.bit_generator.state = state  # where S5's draws left the generator
    yield "s5.table", table.copy()  # (len(S5_DIMS), 3)
    # Random stand-ins for trained weights: enough to check that two implementations agree.
    W = {name: rng.standard_normal((X.shape[1], S6_HEAD_SIZE)) for name in ("W_q", "W_k", "W_v")}  # (d_model, 3) each
    for name, matrix in W.items():
        yield f"s6.{name}", matrix
    Q, K, V = (X @ w for w in W.values())  # (n_words, 3) each
    yield "s6.torch.full", torch_attention(Q, K, V, causal=False)  # (n_words, 3)
    yield "s6.torch.causal", torch_attention(Q, K, V, causal=True)  # (n_words, 3)
    yield "torch.version", np.array(_torch_version())


def _torch_version() -> str:
    import torch

    return torch.__version__


class Measurements:
    """The results of `measure(X)` by name, computed in a helper process (background) or here.

    `measured[name]` waits until that result has arrived (keeping any that come before it),
    so a section asks for what it needs in whatever order it needs it.
    """

    def __init__(self, X: np.ndarray, background: bool = True):
        self._proc = None
        self._local = None
        self._arrived: dict[str, np.ndarray] = {}
        if not background:
            self._local = measure(X)
            return
        self._proc = subprocess.Popen(
            # -c, not -m: run as __main__, this module would be imported twice (its package imports it).
            [sys.executable, "-c", "from attention_by_hand.parts.canonical.measurements import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _send(self._proc.stdin, "X", X)
        self._proc.stdin.close()

    def __getitem__(self, name: str) -> np.ndarray:
        """The result called `name`, waiting for the helper if it is not there yet."""
        while name not in self._arrived:
            arrived = self._next()
            if arrived is None:
                raise KeyError(f"measure() has no result called {name!r}")
            self._arrived[arrived[0]] = arrived[1]
        return self._arrived[name]

    def _next(self) -> tuple[str, np.ndarray] | None:
        """The next (name, result), or None once every result has come."""
        if self._local is not None:
            return next(self._local, None)
        try:
            return _receive(self._proc.stdout)
        except EOFError:
            if self._proc.wait() == 0:
                return None  # the helper sent everything and finished
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


# One frame on the pipe: the name's length and the array's length, then the name (UTF-8) and
# the array's .npy bytes. np.save needs a seekable file for some arrays and np.load always
# seeks, and a pipe cannot: hence the lengths, and the .npy bytes read into memory first.
_FRAME = struct.Struct("<HQ")


def _send(stream, name: str, array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    label, data = name.encode(), buffer.getvalue()
    stream.write(_FRAME.pack(len(label), len(data)) + label + data)
    stream.flush()


def _receive(stream) -> tuple[str, np.ndarray]:
    header = stream.read(_FRAME.size)
    if len(header) != _FRAME.size:
        raise EOFError("the helper closed its pipe")
    label_size, size = _FRAME.unpack(header)
    label, data = stream.read(label_size), stream.read(size)
    if len(label) != label_size or len(data) != size:
        raise EOFError("the helper closed its pipe mid-frame")
    return label.decode(), np.load(io.BytesIO(data), allow_pickle=False)


def serve() -> None:
    """The helper process: read X from stdin, send every result on stdout, leave."""
    _, X = _receive(sys.stdin.buffer)
    for name, result in measure(X):
        _send(sys.stdout.buffer, name, result)
    # All sent and flushed; skipping interpreter teardown saves torch's ~0.2 s unload.
    os._exit(0)
