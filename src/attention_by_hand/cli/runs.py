"""The run's subcommands: `run` a part, `check` a log against its canonical capture, `build`
and `serve` the site."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attention_by_hand.cli.arguments import folder, port
from attention_by_hand.errors import UserError

__all__ = ["add"]


def _cmd_run(args: argparse.Namespace) -> int:
    from attention_by_hand import parts
    from attention_by_hand.run.part import RunContext
    from attention_by_hand.run.world import RIVER_BANK, load_world

    chosen = parts.PARTS if args.part == "all" else (parts.get_part(args.part),)
    if args.world and not all(part.takes_world for part in chosen):
        others = ", ".join(part.name for part in chosen if not part.takes_world)
        raise UserError(f"{args.world}: --world goes with the {_takers()} part only; the {others} part runs on the toy world")
    # Validate everything before touching the disk: a bad world leaves --out as it was.
    world = load_world(args.world) if args.world else RIVER_BANK
    out = folder(args.out)
    context = RunContext(out=out, formats=tuple(args.figure_format or ()), world=world)
    for part in chosen:
        result = part.run(context)
        if not args.quiet:
            if len(chosen) == 1:
                print(result.log_text, end="")
            print(f"wrote {result.log_path}, {result.index_path.name} and {len(result.figure_paths)} figure files")
    return 0


def _takers() -> str:
    """The parts that take --world, as the error names them."""
    from attention_by_hand import parts

    return " and ".join(part.name for part in parts.PARTS if part.takes_world) or "no"


def _cmd_check(args: argparse.Namespace) -> int:
    from attention_by_hand import parts
    from attention_by_hand.run.check import compare, read_log, report

    got = read_log(args.path)
    if args.expected:
        expected, expected_name = read_log(args.expected), str(args.expected)
    else:
        # The canonical copy of the part the log belongs to, by its name (positions.log), unless named.
        part = parts.get_part(args.part) if args.part else parts.part_of_log(args.path) or parts.default_part()
        expected = part.canonical_log()
        expected_name = "the canonical capture" if part is parts.default_part() else f"the canonical {part.log_name}"
    comparison = compare(got, expected)
    for line in report(comparison, str(args.path), expected_name):
        print(line)
    return 0 if comparison.equal else 1


def _build(args: argparse.Namespace) -> Path:
    """Run every part whose outputs are stale, then build the site; return the site folder."""
    from attention_by_hand import parts
    from attention_by_hand.run import stamp
    from attention_by_hand.run.part import RunContext
    from attention_by_hand.site import website

    source = website.find_sources(args.source)
    root = Path(".")
    for part in parts.PARTS:
        stale = stamp.why_stale(root, part)
        if stale:
            # Named, so a learner who edited the log by hand sees why it was put back.
            print(f"the {part.name} part's outputs are stale, running it first: {'; '.join(stale)}")
            part.run(RunContext(out=root))
    out = Path(args.out)
    code, printed = website.build_site(source, out, root / "captures")
    if code != 0:
        print(printed.rstrip(), file=sys.stderr)
        raise SystemExit(code)
    print(f"built {out}/ from {source}/ (open {out / 'index.html'})")
    return out


def _cmd_build(args: argparse.Namespace) -> int:
    if args.handout is None:
        _build(args)
        return 0
    from attention_by_hand.site import handout

    # Checked before the build: a missing browser or a bad path costs no build.
    path = handout.handout_path(args.handout or None, Path(args.out))
    chromium = handout.find_chromium()
    made = handout.print_handout(_build(args), path, chromium)
    print(f"wrote {made.path}: {made.pages} pages ({len(made.parts)} parts, {made.questions} questions answered at the end) in {made.seconds:.1f} s")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from attention_by_hand.site import website

    site = _build(args)
    try:
        website.serve(site, args.port, ready=lambda line: print(line, flush=True))
    except KeyboardInterrupt:  # Ctrl-C is how a learner stops serving: not an error
        print("stopped serving")
    return 0


def add(sub) -> None:
    """Add run, check, build and serve to the subcommands `sub`."""
    from attention_by_hand import parts

    PARTS, first = parts.PARTS, parts.default_part()

    p = sub.add_parser(
        "run",
        help=f"run a part of the experiment (default: {first.summary.split(':')[0]}); write its log, index and figures",
        description="Run a part of the experiment and write OUT/captures/<log>.log, its index "
        "OUT/captures/<log>.index.json and its figures in OUT/diagrams/. The parts: "
        + "; ".join(f"{p.name} ({p.log_name}) {p.summary}" for p in PARTS)
        + f"; all: every part. Only the {_takers()} part takes --world.",
    )
    p.add_argument("part", nargs="?", default=first.name, choices=[*(p.name for p in PARTS), "all"], metavar="PART",
                   help=f"which part: {', '.join(p.name for p in PARTS)} or all (default: {first.name})")
    p.add_argument("--world", metavar="FILE.toml", help="a toy world file (format: see README); default: the canonical world")
    p.add_argument("--out", metavar="DIR", default=".", help="folder to write captures/ and diagrams/ under (default: .)")
    p.add_argument(
        "--figure-format",
        action="append",
        choices=("png", "svg", "pdf"),
        help="also write the figures in this format (repeatable); PNG is always written",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser(
        "check",
        help=f"compare a log ({', '.join(p.log_name for p in PARTS)}) with its canonical capture",
        description="Compare a log with the canonical capture of its part, line by line. Line 3 (the versions "
        "that made the log) is reported, not judged. Exit 0 when equal, 1 when lines differ, 2 on bad input.",
    )
    p.add_argument("path", nargs="?", default=first.log_path, metavar="PATH", help=f"the log to check (default: {first.log_path})")
    p.add_argument("--expected", metavar="FILE", help="compare with this log instead of the canonical capture")
    p.add_argument("--part", choices=[p.name for p in PARTS], help="the part whose canonical capture to compare with "
                   f"(default: the part whose log has PATH's file name, else {first.name})")
    p.set_defaults(func=_cmd_check)

    for name, func, text in (
        ("build", _cmd_build, "run the experiment if its outputs are stale, then build the site into site/"),
        ("serve", _cmd_serve, "build, then serve the site on 127.0.0.1 and print its address"),
    ):
        p = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ". Sphinx warnings are errors.")
        p.add_argument("--source", metavar="DIR", help="the site's sources (default: ./workshop)")
        p.add_argument("--out", metavar="DIR", default="site", help="where the HTML goes (default: site)")
        if name == "serve":
            p.add_argument("--port", type=port, default=8000, help="port on 127.0.0.1 (default 8000; 0 = any free port)")
        else:
            p.add_argument("--handout", nargs="?", const="", metavar="PATH", help="also print the handout, one PDF of the "
                           "modules, the log, the labs and the answers, with Chromium (default PATH: OUT/handout.pdf)")
        p.set_defaults(func=func)
