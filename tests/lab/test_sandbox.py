"""Other people's code in a room check runs in bubblewrap (sandbox.py): files that try to write into
the instructor's folder and home, delete a file and open a connection each get their row, the
attempt named, and nothing outside the sandbox changes.

Skipped where bwrap cannot run, except with ABH_REQUIRE_SANDBOX=1 (set by .ci/run): there a missing
sandbox fails these tests. The hostile files run only inside the sandbox, never without it.
"""

from __future__ import annotations

import csv
import os
import pwd
import socket
import uuid
from pathlib import Path

import pytest

from attention_by_hand.lab import sandbox
from labhelpers import REFERENCES, lab_main, patch_lab


@pytest.fixture(scope="module")
def bwrap():
    reason = sandbox.available()
    if reason:
        if os.environ.get("ABH_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"the sandbox tests are required here but cannot run: {reason}")
        pytest.skip(reason)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def hostile_room(bwrap, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    planted = home / f"planted-{uuid.uuid4().hex}.txt"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    reference = REFERENCES["lab-04-attention.py"].read_text(encoding="utf-8")
    attempts = {
        "writes_folder.py": 'from pathlib import Path\nPath(__file__).with_name("planted.txt").write_text("x")\n',
        "writes_home.py": f'from pathlib import Path\nPath({str(planted)!r}).write_text("x")\n',
        "deletes.py": 'import os\nfrom pathlib import Path\nos.remove(Path(__file__).with_name("keep-me.txt"))\n',
        "connects.py": f'import socket\nsocket.create_connection(("127.0.0.1", {port}), timeout=5).sendall(b"hello")\n',
    }
    for name, code in attempts.items():
        (folder / name).write_text(patch_lab(reference, code), encoding="utf-8")
    (folder / "keep-me.txt").write_text("the instructor's notes", encoding="utf-8")
    before = snapshot(folder)
    out = tmp_path_factory.mktemp("out")
    # A generous time limit: each of these stops at its first line; the limit is not what is tested.
    code = lab_main("lab", "check", "4", "--room", str(folder), "--out", str(out), "--timeout", "60")
    try:
        accepted = listener.accept()[0]
        accepted.close()
        connected = True
    except BlockingIOError:
        connected = False
    listener.close()
    with open(out / "room-lab-04.csv", encoding="utf-8", newline="") as f:
        table = {r["file"]: r for r in csv.DictReader(f)}
    yield {"code": code, "table": table, "before": before, "after": snapshot(folder), "planted": planted, "connected": connected}
    planted.unlink(missing_ok=True)


def test_a_hostile_room_is_still_checked_to_the_end(hostile_room):
    assert hostile_room["code"] == 0 and len(hostile_room["table"]) == 4


def test_a_file_that_writes_into_the_instructors_folder_gets_its_row_and_writes_nothing(hostile_room):
    row = hostile_room["table"]["writes_folder.py"]
    assert row["result"] == "not checked" and "outside its own folder, and the sandbox refused" in row["note"]
    assert "planted.txt" not in hostile_room["after"]


def test_a_file_that_writes_into_the_instructors_home_gets_its_row_and_writes_nothing(hostile_room):
    row = hostile_room["table"]["writes_home.py"]
    assert "the sandbox refused" in row["note"] and not hostile_room["planted"].exists()


def test_a_file_that_deletes_a_file_gets_its_row_and_deletes_nothing(hostile_room):
    assert "the sandbox refused" in hostile_room["table"]["deletes.py"]["note"]
    assert hostile_room["after"] == hostile_room["before"]


def test_a_file_that_opens_a_connection_gets_its_row_and_reaches_nothing(hostile_room):
    assert "no network" in hostile_room["table"]["connects.py"]["note"]
    assert hostile_room["connected"] is False
