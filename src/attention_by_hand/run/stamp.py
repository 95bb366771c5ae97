"""The stamp: what a part's outputs were made from, and whether they are still current.

Each part writes its stamp after everything else, `captures/.<log>.run-inputs`. It records
what the outputs were made from (line 3 of the log, a hash of the world, a hash of each source
file whose code decides the outputs) and a hash of every file the run wrote:

    {"format": 3, "environment": "torch ... | seed 0", "world": "<sha256>",
     "code": {"parts/canonical/sections.py": "<sha256>", "run/capture.py": ...},
     "outputs": {"captures/results.log": "<sha256>", ...}}

`why_stale` compares a stamp with what a run would make now (the part's code, the canonical
world, the installed versions) and names every difference, so `attention-by-hand build` can say
why it runs a part again, not just that it does. A hand-edited log is stale like a code change.

Left out: running a part (part.py) and building the site (site/).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from attention_by_hand.run.atomic import write_atomic
from attention_by_hand.run.world import RIVER_BANK, World

__all__ = ["made_from", "write", "why_stale"]

# 1 held one hash of everything (it could say THAT something changed, not what); 2 listed the
# modules by hand; 3 hashes the part's package, run/ and math/, keyed by path.
FORMAT = 3


class Part(Protocol):
    """What the stamp reads of a run part (run/part.py's Part has it): the stamp sits below the
    part in the house, so it names these few attributes rather than importing the class."""

    environment: Callable[[], str]
    takes_world: bool

    @property
    def log_path(self) -> str: ...

    @property
    def stamp_path(self) -> str: ...

    def code_files(self) -> dict[str, Path]: ...


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def made_from(part: Part, world: World | None) -> dict:
    """What a run of `part` on `world` under the installed versions makes its outputs from."""
    return {
        "environment": part.environment(),
        "world": _sha256(repr(world).encode()),
        "code": {name: _sha256(path.read_bytes()) for name, path in part.code_files().items()},
    }


def write(out: Path, part: Part, world: World | None, outputs: list[Path]) -> None:
    """Stamp the part's run in `out`: its inputs, and the hash of every file it wrote under `out`."""
    stamp = {
        "format": FORMAT,
        **made_from(part, world),
        "outputs": {p.relative_to(out).as_posix(): _sha256(p.read_bytes()) for p in outputs},
    }
    write_atomic(out / part.stamp_path, (json.dumps(stamp, indent=1, sort_keys=True) + "\n").encode())


def why_stale(root: Path, part: Part) -> list[str]:
    """Why the part's outputs under `root` are not what a run would make now (the canonical world,
    the installed versions): one phrase per difference, empty when they are current."""
    path = part.stamp_path
    try:
        stamp = json.loads((root / path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"no stamp yet: the run writes {path}"]
    except OSError as err:
        return [f"the stamp {path} cannot be read ({err.strerror})"]
    except ValueError:  # not JSON, or not UTF-8
        return [f"the stamp {path} is not the JSON the run writes"]
    if not isinstance(stamp, dict) or stamp.get("format") != FORMAT:
        return [f"the stamp {path} was written by another version of the package"]
    inputs = made_from(part, RIVER_BANK if part.takes_world else None)
    try:
        return _differences(root, stamp, inputs, part.log_path)
    except (KeyError, TypeError, AttributeError):
        return [f"the stamp {path} is damaged"]


def _differences(root: Path, stamp: dict, inputs: dict, log: str) -> list[str]:
    reasons = []
    if stamp["environment"] != inputs["environment"]:
        # The versions line: "torch X | numpy Y | matplotlib Z | python W | seed 0".
        before, now = stamp["environment"].split(" | "), inputs["environment"].split(" | ")
        changed = [f"{b} -> {n}" for b, n in zip(before, now) if b != n] or [f"{stamp['environment']} -> {inputs['environment']}"]
        reasons.append(f"the versions changed ({', '.join(changed)})")
    if stamp["world"] != inputs["world"]:
        reasons.append("the outputs were made from another world")
    code = sorted(set(inputs["code"]) ^ set(stamp["code"]) | {n for n, d in inputs["code"].items() if stamp["code"].get(n) != d})
    if code:
        reasons.append(f"the run's code changed ({', '.join(code)})")
    outputs = stamp["outputs"]
    if log not in outputs:
        reasons.append(f"the stamp lists no {log}")
    for name, digest in outputs.items():
        path = root / name
        if not path.is_file():
            reasons.append(f"{name} is missing")
        elif _sha256(path.read_bytes()) != digest:
            reasons.append(f"{name} changed since the run wrote it")
    return reasons
