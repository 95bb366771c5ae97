#!/usr/bin/env python3
"""Copy the measured tables of benchmarks/results/*.md into README.md, so no figure is typed.

Each results/<name>.md replaces the README block between `<!-- benchmark:<name> -->` and
`<!-- /benchmark:<name> -->`. Run the benchmarks with --write first (`make bench` does both).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def table_of(result: Path) -> str:
    """The result's text without its generated-by comment and its own top heading."""
    lines = [
        line
        for line in result.read_text(encoding="utf-8").strip().splitlines()
        if not line.startswith("<!-- generated") and not line.startswith("# ")
    ]
    return "\n".join(lines).strip()


def main() -> int:
    readme = README.read_text(encoding="utf-8")
    for result in sorted((ROOT / "benchmarks" / "results").glob("*.md")):
        name = result.stem
        pattern = re.compile(rf"(<!-- benchmark:{name} -->\n).*?(\n<!-- /benchmark:{name} -->)", re.S)
        if not pattern.search(readme):
            print(f"README.md has no block for {result.name}; skipped", file=sys.stderr)
            continue
        readme = pattern.sub(lambda m: m.group(1) + table_of(result) + m.group(2), readme)
        print(f"README.md <- {result.relative_to(ROOT)}")
    from attention_by_hand.atomic import write_atomic

    write_atomic(README, readme.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
