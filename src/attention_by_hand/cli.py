"""`attention-by-hand`: the one command, with a subcommand for each job.

    attention-by-hand run [--world FILE.toml] [--out DIR] [--figure-format svg]
    attention-by-hand check [PATH] [--expected FILE]
    attention-by-hand build | serve [--port N]
    attention-by-hand lab list | run N | check N [FILE] | notebook N

Exit codes: 0 done (or logs equal), 1 logs differ, 2 bad input (one line on stderr saying
which input and what is wrong). Anything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from attention_by_hand import __version__
from attention_by_hand.errors import UserError

__all__ = ["main", "entry"]

PROG = "attention-by-hand"


def _cmd_run(args: argparse.Namespace) -> int:
    from attention_by_hand.experiment import run
    from attention_by_hand.world import RIVER_BANK, load_world

    # Validate everything before touching the disk: a bad world leaves --out as it was.
    world = load_world(args.world) if args.world else RIVER_BANK
    out = Path(args.out)
    # The nearest part of the path that exists must be a folder, or nothing can be written.
    for part in (out, *out.parents):
        if part.exists():
            if not part.is_dir():
                raise UserError(f"{out}: --out must be a folder, and {part} is a file")
            break
    result = run(world, out, formats=tuple(args.figure_format or ()))
    if not args.quiet:
        print(result.log_text, end="")
        print(f"wrote {result.log_path}, {result.index_path.name} and {len(result.figure_paths)} figure files")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from attention_by_hand.check import canonical_log, compare, read_log, report

    got = read_log(args.path)
    if args.expected:
        expected, expected_name = read_log(args.expected), str(args.expected)
    else:
        expected, expected_name = canonical_log(), "the canonical capture"
    comparison = compare(got, expected)
    for line in report(comparison, str(args.path), expected_name):
        print(line)
    return 0 if comparison.equal else 1


def _build(args: argparse.Namespace) -> Path:
    """Run the experiment if stale, then build the site; return the site folder."""
    from attention_by_hand import website

    source = website.find_sources(args.source)
    root = Path(".")
    if website.capture_is_stale(root):
        from attention_by_hand.experiment import run

        print("the run's outputs are stale or missing: running the experiment first")
        run(out=root)
    out = Path(args.out)
    code, printed = website.build_site(source, out, root / "captures")
    if code != 0:
        print(printed.rstrip(), file=sys.stderr)
        raise SystemExit(code)
    print(f"built {out}/ from {source}/ (open {out / 'index.html'})")
    return out


def _cmd_build(args: argparse.Namespace) -> int:
    _build(args)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from attention_by_hand import website

    site = _build(args)
    try:
        website.serve(site, args.port, ready=lambda line: print(line, flush=True))
    except KeyboardInterrupt:  # Ctrl-C is how a learner stops serving: not an error
        print("stopped serving")
    return 0


def _port(text: str) -> int:
    """A TCP port number, checked before anything is built (argparse reports the error, exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535; 0 = any free port)")
    return port


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="LLM Self-Attention by Hand: run the workshop's experiment, check a log against it, "
        "build its site, and do its labs.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "run",
        help="run sections S1-S6; write captures/results.log, its index and diagrams/",
        description="Run the experiment (S1-S6) on the canonical toy world or on --world, and write "
        "OUT/captures/results.log, OUT/captures/results.index.json and the seven figures in OUT/diagrams/.",
    )
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
        help="compare a results.log with the canonical capture",
        description="Compare a log with the canonical capture line by line. Line 3 (the versions that "
        "made the log) is reported, not judged. Exit 0 when equal, 1 when lines differ, 2 on bad input.",
    )
    p.add_argument("path", nargs="?", default="captures/results.log", metavar="PATH", help="the log to check (default: captures/results.log)")
    p.add_argument("--expected", metavar="FILE", help="compare with this log instead of the canonical capture")
    p.set_defaults(func=_cmd_check)

    for name, func, text in (
        ("build", _cmd_build, "run the experiment if its outputs are stale, then build the site into site/"),
        ("serve", _cmd_serve, "build, then serve the site on 127.0.0.1 and print its address"),
    ):
        p = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ". Sphinx warnings are errors.")
        p.add_argument("--source", metavar="DIR", help="the site's sources (default: ./workshop)")
        p.add_argument("--out", metavar="DIR", default="site", help="where the HTML goes (default: site)")
        if name == "serve":
            p.add_argument("--port", type=_port, default=8000, help="port on 127.0.0.1 (default 8000; 0 = any free port)")
        p.set_defaults(func=func)

    from attention_by_hand.labs import register as register_labs

    register_labs(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except UserError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`attention-by-hand check | head`): stop quietly, as cat would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        # Every file is written atomically, so an interrupted run leaves the old outputs whole.
        print(f"{PROG}: interrupted; files already on disk are unchanged or complete", file=sys.stderr)
        return 130


def entry() -> None:
    """The console script: run main(), then leave without the interpreter's teardown.

    Tearing down Matplotlib's and NumPy's module state takes about 0.1 s, a sixth of what the
    run itself costs on the main process (benchmarks/run_breakdown.py), and achieves nothing:
    every file main() wrote is complete, fsynced and renamed into place before it returns.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
