#!/usr/bin/env python3
"""Measure the site build: a clean build of every page, and a rebuild after touching one page.

    python benchmarks/site_build.py                  # print the table
    python benchmarks/site_build.py --update-readme  # also write it into README.md

Each build runs Sphinx in a fresh interpreter (`attention-by-hand build` with fresh outputs),
as a learner's command would, so interpreter start and imports are included. The experiment
is not re-run: its committed outputs are fresh. A benchmark reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BEGIN, END = "<!-- benchmark:site -->", "<!-- /benchmark:site -->"

BUILD = (
    "import sys; from pathlib import Path; from attention_by_hand.website import build_site; "
    "code, out = build_site(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])); sys.exit(code)"
)


def timed_build(source: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", BUILD, str(source), str(out), str(ROOT / "captures")], check=True)
    return time.perf_counter() - start


def measure(repeat: int) -> tuple[list[float], list[float], int]:
    import shutil

    clean, one_page = [], []
    # The copy sits beside workshop/ so its relative paths (../src, ../captures) still hold;
    # the edits below touch the copy, never the real pages.
    source = Path(tempfile.mkdtemp(dir=ROOT, prefix=".bench-workshop-"))
    try:
        shutil.copytree(ROOT / "workshop", source, dirs_exist_ok=True)
        pages = len(list(source.glob("*.md")))
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(repeat):
                out = Path(tmp) / f"site{i}"
                clean.append(timed_build(source, out))
                page = source / "module-1.md"
                page.write_text(page.read_text() + "\n")  # a real edit: the page's bytes change
                one_page.append(timed_build(source, out))
    finally:
        shutil.rmtree(source)
    return clean, one_page, pages


def table(clean: list[float], one_page: list[float], pages: int) -> str:
    import os

    return "\n".join(
        [
            f"Measured on {os.cpu_count()} cores, {len(clean)} runs each (median, min-max), {pages} pages:",
            "",
            "| site build | wall time |",
            "| --- | --- |",
            f"| clean build of the whole site | {statistics.median(clean):.2f} s ({min(clean):.2f}-{max(clean):.2f}) |",
            f"| rebuild after editing one page | {statistics.median(one_page):.2f} s ({min(one_page):.2f}-{max(one_page):.2f}) |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args()
    text = table(*measure(args.repeat))
    print(text)
    if args.update_readme:
        readme = README.read_text(encoding="utf-8")
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        if not pattern.search(readme):
            sys.exit(f"{README}: no {BEGIN} ... {END} block to update")
        README.write_text(pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", readme), encoding="utf-8")
        print(f"\nupdated {README.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
