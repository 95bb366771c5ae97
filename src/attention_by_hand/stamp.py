"""The run's stamp: what its outputs were made from, and whether they are still current.

Each run part writes its stamp after everything else (the canonical part `captures/.run-inputs`,
the others `captures/.<log>.run-inputs`). It records what the outputs were
made from (the versions line of the log, a hash of the world, a hash of each module whose code
decides the outputs) and a hash of every file the run wrote:

    {"format": 2, "environment": "torch ... | seed 0", "world": "<sha256>",
     "code": {"experiment.py": "<sha256>", ...}, "outputs": {"captures/results.log": "<sha256>", ...}}

`why_stale` compares a stamp with what a run would make now and names every difference, so
`attention-by-hand build` can say why it runs the experiment again, not just that it does.

Left out: running the experiment (`experiment.py`), and knowing which world and versions the
site's run uses (`website.py`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from attention_by_hand.atomic import write_atomic

from attention_by_hand.parts import PARTS, Part

if TYPE_CHECKING:
    from attention_by_hand.world import World

__all__ = ["STAMP_PATH", "RUN_MODULES", "stamp_path", "made_from", "write", "why_stale"]

STAMP_PATH = "captures/.run-inputs"  # the canonical part's, relative to the run's output folder
FORMAT = 2  # 1 held one hash of everything, which could say THAT something changed, not what

# The package modules whose code decides the canonical outputs (a test checks the list is complete).
RUN_MODULES = PARTS[0].code


def stamp_path(part: Part = PARTS[0]) -> str:
    return STAMP_PATH if part is PARTS[0] else f"captures/.{part.log}.run-inputs"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def made_from(world: World | None, environment_line: str, modules: tuple[str, ...] = RUN_MODULES) -> dict:
    """What a run of `world` under these versions makes its outputs from, as the stamp holds it."""
    here = Path(__file__).parent
    return {
        "environment": environment_line,
        "world": _sha256(repr(world).encode()),
        "code": {f"{name}.py": _sha256((here / f"{name}.py").read_bytes()) for name in modules},
    }


def write(out: Path, inputs: dict, outputs: list[Path], part: Part = PARTS[0]) -> None:
    """Stamp the run in `out`: its inputs, and the hash of every file it wrote under `out`."""
    stamp = {"format": FORMAT, **inputs, "outputs": {p.relative_to(out).as_posix(): _sha256(p.read_bytes()) for p in outputs}}
    write_atomic(out / stamp_path(part), (json.dumps(stamp, indent=1, sort_keys=True) + "\n").encode())


def why_stale(root: Path, inputs: dict, part: Part = PARTS[0]) -> list[str]:
    """Why the outputs under `root` are not what a run from `inputs` would make: one phrase per
    difference, empty when they are current. A hand-edited log is stale like a code change."""
    path = stamp_path(part)
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
    code = [name for name, digest in inputs["code"].items() if stamp["code"].get(name) != digest]
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
