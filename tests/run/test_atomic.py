"""Atomic writes: an interrupted write or run never leaves a half-written file."""

import os

import pytest

from attention_by_hand import parts
from attention_by_hand.parts.canonical import sections
from attention_by_hand.run.atomic import write_atomic
from attention_by_hand.run.part import RunContext


def test_write_atomic_replaces_the_whole_file(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"old contents that are longer")
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new"


def test_write_atomic_creates_missing_folders(tmp_path):
    path = tmp_path / "a" / "b" / "f.txt"
    write_atomic(path, b"x")
    assert path.read_bytes() == b"x"


def test_failed_rename_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "f.txt"
    path.write_bytes(b"old")

    def boom(src, dst):
        raise KeyboardInterrupt  # as if Ctrl-C landed between writing and renaming

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_written_file_has_ordinary_permissions(tmp_path):
    path = tmp_path / "f.txt"
    write_atomic(path, b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_run_interrupted_in_s5_leaves_the_previous_log_untouched(tmp_path, monkeypatch):
    log = tmp_path / "captures" / "results.log"
    log.parent.mkdir()
    log.write_text("a previous, complete log\n")

    def interrupted(log, measured):
        raise KeyboardInterrupt

    monkeypatch.setattr(sections, "s5_scaling", interrupted)
    with pytest.raises(KeyboardInterrupt):
        parts.default_part().run(RunContext(out=tmp_path, background=False))
    assert log.read_text() == "a previous, complete log\n"
    assert not (tmp_path / "captures" / "results.index.json").exists()
    leftovers = [p for p in tmp_path.rglob("*.tmp")]
    assert leftovers == []
