"""The attention-only model, its data and its training, against a NumPy forward pass written out here.

Tolerance 1e-10 for float64 (the two forward passes add the same products in other orders).
"""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
import torch

from attention_by_hand.math import detectors as D
from attention_by_hand.math.attention_only import AttentionOnly, Sizes
from attention_by_hand.math.repeats import START, first_rows, probe, repeat_rows, repeated_sequences
from attention_by_hand.math.training import Schedule, train

TOL = 1e-10


@pytest.fixture(scope="module")
def model():
    return AttentionOnly(Sizes(), torch.Generator().manual_seed(3)).double().requires_grad_(False)


@pytest.fixture(scope="module")
def tokens():
    return probe(32, 32, period=7, n=3)[:, :-1]  # (3, 32)


def numpy_forward(model: AttentionOnly, tokens: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The model's logits and patterns, one sequence, one head at a time, in NumPy."""
    s = model.sizes
    W = {name: getattr(model, name).numpy() for name in ("embed", "pos", "W_Q", "W_K", "W_V", "W_O", "unembed")}
    T = len(tokens)
    x = W["embed"][tokens]  # (T, d)
    patterns = []
    for layer in range(s.n_layers):
        added = np.zeros_like(x)
        layer_patterns = []
        for h in range(s.n_heads):
            q = (x + W["pos"][:T]) @ W["W_Q"][layer, h]  # (T, dh)
            k = (x + W["pos"][:T]) @ W["W_K"][layer, h]
            v = x @ W["W_V"][layer, h]  # (T, dh): no positions in the values
            scores = q @ k.T / np.sqrt(s.d_head)
            scores[np.triu_indices(T, 1)] = -np.inf
            e = np.exp(scores - scores.max(axis=1, keepdims=True))
            a = e / e.sum(axis=1, keepdims=True)  # (T, T)
            layer_patterns.append(a)
            added += a @ v @ W["W_O"][layer, h]  # (T, d)
        patterns.append(np.stack(layer_patterns))
        x = x + added
    return x @ W["unembed"], patterns


def test_the_model_has_the_issues_11264_parameters_and_its_control_7168():
    assert AttentionOnly(Sizes()).n_parameters() == 11_264
    assert AttentionOnly(Sizes(n_layers=1)).n_parameters() == 7_168


def test_the_forward_pass_equals_numpy_head_by_head(model, tokens):
    trace = model(tokens)
    for b in range(tokens.shape[0]):
        logits, patterns = numpy_forward(model, tokens[b].numpy())
        assert np.abs(trace.logits[b].numpy() - logits).max() <= TOL
        for layer, pattern in enumerate(patterns):
            assert np.abs(trace.patterns[layer][b].numpy() - pattern).max() <= TOL


def test_every_pattern_row_sums_to_1_and_gives_the_future_nothing(model, tokens):
    for pattern in model(tokens).patterns:
        assert (pattern.sum(dim=-1) - 1).abs().max() <= TOL
        assert (pattern.triu(1) == 0).all()


def test_the_stream_is_the_embedding_plus_every_heads_write(model, tokens):
    trace = model(tokens)
    stream = model.embed[tokens] + sum(writes.sum(dim=1) for writes in trace.writes)  # (B, T, d)
    assert (stream @ model.unembed - trace.logits).abs().max() <= TOL


def test_ablating_a_head_removes_exactly_its_write_from_its_layer(model, tokens):
    full, ablated = model(tokens), model(tokens, ablate=(1, 0))
    # Layer 1 is the last: the logits lose head 1.0's write, through the unembedding, and nothing else.
    expected = full.logits - full.writes[1][:, 0] @ model.unembed
    assert (ablated.logits - expected).abs().max() <= TOL


def test_ablating_a_layer_0_head_changes_what_layer_1_reads_but_not_its_own_pattern(model, tokens):
    full, ablated = model(tokens, ablate=None), model(tokens, ablate=(0, 1))
    assert torch.equal(full.patterns[0], ablated.patterns[0])
    assert (full.patterns[1] - ablated.patterns[1]).abs().max() > 1e-3


def test_the_forward_pass_calls_the_ablation_it_is_given(model, tokens):
    calls = []

    def spy(scores, values, head):
        calls.append((tuple(scores.shape), head))
        return D.ablate_head(scores, values, head)

    model(tokens, ablate=(1, 1), ablation=spy)
    assert calls == [((3, 2, 32, 32), 1)]


# --- the data ---------------------------------------------------------------------------------


def test_every_training_sequence_starts_with_the_start_token_then_repeats_its_segment():
    sequences = repeated_sequences(torch.Generator().manual_seed(0), 50, list(range(3, 17)), 32, 32)  # (50, 33)
    assert (sequences[:, 0] == START).all() and (sequences[:, 1:] != START).all()
    for row in sequences.tolist():
        body = row[1:]
        period = next(p for p in range(3, 17) if all(body[i] == body[i - p] for i in range(p, len(body))))
        assert period in range(3, 17)


def test_the_probes_segments_hold_distinct_tokens_written_once_then_again():
    sequences = probe(32, 32)  # (64, 33)
    for row in sequences.tolist():
        segment = row[1:17]
        assert len(set(segment)) == 16 and row[17:] == segment


def test_the_probe_is_the_same_batch_every_time():
    assert torch.equal(probe(32, 32), probe(32, 32))


def test_the_repeat_rows_are_those_whose_token_appeared_a_period_before():
    sequences = probe(32, 32, period=9)
    rows = repeat_rows(9, 32)
    assert (sequences[:, rows] == sequences[:, rows - 9]).all()
    assert rows.tolist() == list(range(10, 32)) and first_rows(9).tolist() == list(range(9))


# --- training ---------------------------------------------------------------------------------


def state_bytes(model) -> bytes:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getvalue()


def test_training_twice_with_one_seed_gives_the_same_bytes():
    schedule = Schedule(steps=15)
    first, losses = train(Sizes(), schedule)
    second, again = train(Sizes(), schedule)
    assert state_bytes(first) == state_bytes(second) and losses == again


def test_another_seed_gives_other_weights():
    assert state_bytes(train(Sizes(), Schedule(steps=3))[0]) != state_bytes(train(Sizes(), Schedule(steps=3, seed=1))[0])


def test_training_leaves_the_thread_count_as_it_found_it():
    before = torch.get_num_threads()
    train(Sizes(n_layers=1), Schedule(steps=1, threads=2))
    assert torch.get_num_threads() == before


def test_the_loss_falls_in_a_short_training():
    _, losses = train(Sizes(), Schedule(steps=60))
    assert sum(losses[-10:]) / 10 < sum(losses[:10]) / 10


def test_training_does_not_import_torch_dynamo():
    # torch.optim's optimizers import torch._dynamo when made, 1.5-2 s of CPU here, a tenth of
    # `train heads`: the training uses math/adamw.py instead. A fresh process, since this one's
    # other tests may have imported it already.
    code = (
        "import sys\n"
        "from attention_by_hand.math.attention_only import Sizes\n"
        "from attention_by_hand.math.training import Schedule, train\n"
        "train(Sizes(), Schedule(steps=2))\n"
        "print('torch._dynamo' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
