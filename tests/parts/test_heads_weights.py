"""The heads part's shipped weights, and `attention-by-hand train heads`, which makes them again.

Training both models takes about 15 s of one core here (measured: the README's Speed section), so
the test that trains runs once and its file is marked slow (it starts first). The weights' bytes
are compared only where they can be equal: on the PyTorch and Python versions and the kind of CPU
the shipped weights.json names; elsewhere the test says why it skips.
"""

import json

import pytest
import torch

from attention_by_hand.cli import main
from attention_by_hand.math.attention_only import AttentionOnly
from attention_by_hand.parts.heads import weights

pytestmark = pytest.mark.slow  # one training of both models (tests/conftest.py starts it first)


@pytest.fixture(scope="module")
def retrained(tmp_path_factory):
    """`attention-by-hand train heads --out DIR`, once: (exit code, what it printed, DIR)."""
    out = tmp_path_factory.mktemp("trained")
    code = main(["train", "heads", "--out", str(out)])
    return code, out


def same_machine_kind() -> None:
    """Skip unless this machine makes the shipped weights' bytes: their versions and CPU kind."""
    then, now = weights.shipped_stamp()["made_on"], weights.made_on()
    if then != now:
        pytest.skip(f"the weights' bytes depend on the versions and the CPU kind: shipped {then}, here {now}")


def test_train_heads_writes_both_models_and_the_stamp(retrained):
    code, out = retrained
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["one_layer.pt", "two_layer.pt", "weights.json"]


@pytest.mark.parametrize("name", ["two_layer", "one_layer"])
def test_training_again_reproduces_the_shipped_weights_byte_for_byte(retrained, name):
    same_machine_kind()
    _, out = retrained
    assert (out / weights.filename(name)).read_bytes() == weights.shipped(weights.filename(name))


def test_training_again_writes_the_shipped_stamp_byte_for_byte(retrained):
    same_machine_kind()
    _, out = retrained
    assert (out / weights.STAMP).read_bytes() == weights.shipped(weights.STAMP)


def test_the_stamp_says_how_the_weights_were_made():
    stamp = weights.shipped_stamp()
    assert stamp["schedule"] == weights.SCHEDULE.as_dict()
    assert set(stamp["made_on"]) == {"torch", "python", "architecture", "cpu_capability", "cpu_vendor"}
    assert stamp["schedule"]["threads"] == 1
    for name, model in stamp["models"].items():
        assert model["sizes"] == weights.MODELS[name].as_dict()
        assert model["parameters"] == AttentionOnly(weights.MODELS[name]).n_parameters()
        assert set(model["final"]) == {"training_loss_last_50_steps", "probe_loss_on_the_repeat", "heads"}


@pytest.mark.parametrize("name", ["two_layer", "one_layer"])
def test_the_shipped_weights_are_a_small_float32_state_dict_with_the_hash_the_stamp_names(name):
    import hashlib

    data = weights.shipped(weights.filename(name))
    assert len(data) < 64 * 1024
    assert hashlib.sha256(data).hexdigest() == weights.shipped_stamp()["models"][name]["sha256"]
    state = weights.load(name).state_dict()
    assert {tensor.dtype for tensor in state.values()} == {torch.float32}


# --- bad input: one line, exit 2, nothing written ------------------------------------------------


def test_train_with_out_naming_an_existing_file_exits_2_and_keeps_the_file(tmp_path, capsys):
    out = tmp_path / "weights.txt"
    out.write_bytes(b"keep me\n")
    assert main(["train", "heads", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(out) in err and "--out must be a folder" in err
    assert out.read_bytes() == b"keep me\n"


@pytest.mark.parametrize("argv", [["train", "everything"], ["train", "heads", "--steps", "0"], ["train", "heads", "--seed", "-1"]])
def test_train_with_a_bad_argument_exits_2_before_training(tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--out", str(tmp_path / "w")])
    assert stopped.value.code == 2
    assert "error:" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


def test_the_stamp_json_is_strict(retrained):
    _, out = retrained

    def refuse(constant):
        raise ValueError(constant)

    json.loads((out / weights.STAMP).read_text(encoding="utf-8"), parse_constant=refuse)


def test_training_in_two_processes_gives_the_bytes_of_training_in_one(monkeypatch):
    """train_all puts the control in a second process on two cores: the same bytes as one process."""
    from dataclasses import replace

    short = replace(weights.SCHEDULE, steps=3)
    monkeypatch.setattr(weights, "_cores", lambda: 2)
    both = {t.name: (t.state_bytes(), t.losses) for t in weights.train_all(short)}
    monkeypatch.setattr(weights, "_cores", lambda: 1)
    alone = {t.name: (t.state_bytes(), t.losses) for t in weights.train_all(short)}
    assert list(both) == list(weights.MODELS) and both == alone

