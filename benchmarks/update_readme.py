#!/usr/bin/env python3
"""Copy the measured tables of benchmarks/results/*.md into README.md, so no figure is typed.

Each results/<name>.md replaces the README block between `<!-- benchmark:<name> -->` and
`<!-- /benchmark:<name> -->` (`<name>` is the file's stem, but for the few in BLOCK_NAMES). Run
the benchmarks with --write first (`make bench` does both). Whole-line HTML comments of a
result (its generated-by line, lab06's details marker) are left out, and its image links,
written relative to benchmarks/results/, are made relative to the README. A result without a
block in the README is skipped with a note; the README's other text is never touched.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

from benchlib import RESULTS, ROOT, write

README = ROOT / "README.md"
# A markdown image whose target is a relative path: ![alt](target), target without a scheme or leading /.
_IMAGE = re.compile(r"(!\[[^\]]*\]\()(?![a-z][a-z0-9+.-]*:|/)([^)\s]+)\)")
_COMMENT_LINE = re.compile(r"^\s*<!--.*-->\s*$")
# A result's README block is named after its file, except these (the file name says what was timed,
# the block name what the README section is about).
BLOCK_NAMES = {"test_suite": "tests"}


def table_of(result: Path, readme: Path = README) -> str:
    """The result's text without comment lines and its own top heading, image links made README-relative."""
    lines = [
        line
        for line in result.read_text(encoding="utf-8").strip().splitlines()
        if not _COMMENT_LINE.match(line) and not line.startswith("# ")
    ]
    folder = posixpath.relpath(result.parent.as_posix(), readme.parent.as_posix())
    text = "\n".join(lines).strip()
    return _IMAGE.sub(lambda m: f"{m.group(1)}{posixpath.normpath(posixpath.join(folder, m.group(2)))})", text)


def update(readme_text: str, results: list[Path], readme: Path = README) -> str:
    """`readme_text` with each result's block replaced by its table; a result without a block is skipped."""
    for result in results:
        name = BLOCK_NAMES.get(result.stem, result.stem)
        pattern = re.compile(rf"(<!-- benchmark:{name} -->\n).*?(\n<!-- /benchmark:{name} -->)", re.S)
        if not pattern.search(readme_text):
            print(f"{readme.name} has no block for {result.name}; skipped", file=sys.stderr)
            continue
        readme_text = pattern.sub(lambda m: m.group(1) + table_of(result, readme) + m.group(2), readme_text)
        print(f"{readme.name} <- {result.relative_to(ROOT) if result.is_relative_to(ROOT) else result}")
    return readme_text


def main() -> int:
    readme = update(README.read_text(encoding="utf-8"), sorted(RESULTS.glob("*.md")))
    write(README, readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
