"""`attention-by-hand`: the one command, with a subcommand for each job.

    attention-by-hand run [--world FILE.toml] [--out DIR] [--figure-format svg]
    attention-by-hand check [PATH] [--expected FILE]
    attention-by-hand build [--handout [PDF]] | serve [--port N]
    attention-by-hand lab list | run N | check N [FILE] | check N --room FOLDER | notebook N

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
    from attention_by_hand import parts
    from attention_by_hand.run.part import RunContext
    from attention_by_hand.run.world import RIVER_BANK, load_world

    chosen = parts.PARTS if args.part == "all" else (parts.get_part(args.part),)
    if args.world and not all(part.takes_world for part in chosen):
        others = ", ".join(part.name for part in chosen if not part.takes_world)
        raise UserError(f"{args.world}: --world goes with the {_takers()} part only; the {others} part runs on the toy world")
    # Validate everything before touching the disk: a bad world leaves --out as it was.
    world = load_world(args.world) if args.world else RIVER_BANK
    out = Path(args.out)
    # The nearest part of the path that exists must be a folder, or nothing can be written.
    for step in (out, *out.parents):
        if step.exists():
            if not step.is_dir():
                raise UserError(f"{out}: --out must be a folder, and {step} is a file")
            break
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


def _lab_check(a: argparse.Namespace) -> int:
    """`lab check N [FILE]`, or with --room a whole folder of learners' files."""
    from attention_by_hand.lab import commands

    if a.room is None:
        if a.out or a.no_sandbox:
            raise UserError("--out and --no-sandbox go with --room FOLDER")
        return commands.check(a.number, a.file, a.timeout, a.memory, a.seed)
    if a.file is not None:
        raise UserError(f"{a.file}: give either FILE or --room FOLDER, not both")
    from attention_by_hand.lab.room import check_room
    from attention_by_hand.lab.runner import Limits

    return check_room(a.number, a.room, a.out, Limits(timeout=a.timeout, memory_mb=a.memory), a.seed, a.no_sandbox)


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


def _port(text: str) -> int:
    """A TCP port number, checked before anything is built (argparse reports the error, exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535; 0 = any free port)")
    return port


# --- the `lab` subcommands -------------------------------------------------------------------

_MAX_TIMEOUT = 24 * 3600  # seconds: a day, far beyond any lab; a bound keeps the deadline arithmetic sane
_MAX_MEMORY_MB = 1024 * 1024  # a terabyte: the address-space limit in bytes stays well inside 64 bits
_MAX_SEED = 2**64 - 1  # torch.Generator.manual_seed takes no larger seed


def _bounded(kind, low, high, what: str, bounds: str):
    """An argparse type: `kind(text)` within [low, high], else one line naming the value (exit 2)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:  # NaN fails every comparison, inf the upper bound
            raise argparse.ArgumentTypeError(f"{text!r}: must be {bounds}")
        return value

    return parse


_seconds = _bounded(float, 1e-9, _MAX_TIMEOUT, "a number of seconds", f"more than 0 and at most {_MAX_TIMEOUT} seconds")
_megabytes = _bounded(int, 1, _MAX_MEMORY_MB, "a whole number of MB", f"from 1 to {_MAX_MEMORY_MB} MB")
_seed = _bounded(int, 0, _MAX_SEED, "a whole number", "from 0 to 2**64 - 1")


class _LabParser(argparse.ArgumentParser):
    """The parser of the lab subcommands: an optional FILE may also come after the options.

    argparse fills `N [FILE]` from the first run of positionals only: in `check 4 --timeout 30
    mine.py` it leaves FILE empty at "4", and "mine.py" comes back unrecognized. This takes the
    first such leftover as FILE, so that options and FILE go in any order and --help is unchanged.
    """

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if getattr(namespace, "file", False) is None and extras and not extras[0].startswith("-"):
            namespace.file = extras.pop(0)
        return namespace, extras


_LAB_WORKFLOW = """\
from a first run to a passing check:
  attention-by-hand lab list             the labs, and the functions each leaves to you
  attention-by-hand lab run 4            watch the reference lab 4 run and check itself
  attention-by-hand lab start 4          write your version here: lab-04-attention.py
  attention-by-hand lab run 4 lab-04-attention.py
                                         run yours, step by step
  attention-by-hand lab check 4          compare your functions with the reference, with hints
  attention-by-hand lab start 4 --notebook
                                         the same as a notebook: lab-04-attention.ipynb

exit codes of check: 0 all passed, 1 some failed, 2 the file could not be run at all
(syntax error, import error, missing function, time limit, memory limit, too much output).

for an instructor, a whole room's files at once (each sandboxed; one table, and which mistakes
how many learners made):
  attention-by-hand lab check 4 --room FOLDER
"""


def _add_lab_parser(sub) -> None:
    from attention_by_hand.lab import commands
    from attention_by_hand.lab.registry import LABS

    lab = sub.add_parser(
        "lab",
        help="the labs: list, start your version, run, check it with hints, make a notebook",
        description=f"{len(LABS)} labs that build attention in PyTorch step by step, each a script that checks\n"
        "itself; your version of each, and a checker that names your mistakes.",
        epilog=_LAB_WORKFLOW,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lab.set_defaults(func=lambda args: (lab.print_help(), 2)[1])
    labs = lab.add_subparsers(dest="lab_command", metavar="SUBCOMMAND", parser_class=_LabParser)
    number = {"metavar": "N", "help": f"the lab's number, 1-{len(LABS)}"}

    p = labs.add_parser("list", help="list the labs", description="List the labs, what each builds and the functions you write.")
    p.set_defaults(func=lambda args: commands.list_labs())

    p = labs.add_parser(
        "start",
        help="write your version of a lab, with its functions left to write",
        description="Write your version of lab N: the reference lab with the functions you write replaced by "
        "`raise NotImplementedError(<what to compute>)`. Refuses to overwrite a file unless --force.",
    )
    p.add_argument("number", **number)
    p.add_argument("file", nargs="?", metavar="FILE", help="where to write it (default: ./lab-0N-<name>.py)")
    p.add_argument("--notebook", action="store_true", help="write a Jupyter notebook (default ./lab-0N-<name>.ipynb)")
    p.add_argument("--force", action="store_true", help="replace an existing file")
    p.set_defaults(func=lambda a: commands.start(a.number, a.file, a.notebook, a.force))

    p = labs.add_parser(
        "run",
        help="run a lab, or your version of it, as a script",
        description="Run the reference lab N, or your FILE, with this Python. It prints numbered STEP lines and a "
        "self-check, and exits 1 when an invariant fails. Arguments after N (and FILE) go to the script "
        "(labs 6 and 7: --quick for a short schedule; lab 6: --out DIR for its figure).",
    )
    p.add_argument("number", **number)
    p.add_argument("file", nargs="?", metavar="FILE", help="your lab file (default: the reference lab)")
    p.add_argument("script_args", nargs=argparse.REMAINDER, metavar="...", help="passed to the lab script")
    p.set_defaults(func=lambda a: commands.run(a.number, a.file, a.script_args))

    p = labs.add_parser(
        "check",
        help="check your version of a lab's functions, with hints",
        description="Run FILE (a .py or a notebook) in a separate process with a time and a memory limit, call "
        "its functions on fixed and random inputs, and compare them with the reference lab. One line per check; "
        "a failed check names the mistake it shows, or what it observed. Exit 0 all passed, 1 some failed, "
        "2 FILE cannot be run.",
    )
    p.add_argument("number", **number)
    p.add_argument("file", nargs="?", metavar="FILE", help="your lab file (default: ./lab-0N-<name>.py, else .ipynb)")
    p.add_argument("--timeout", type=_seconds, default=20.0, metavar="S", help="seconds for the whole run of FILE (default: 20)")
    p.add_argument("--memory", type=_megabytes, default=1024, metavar="MB", help="memory FILE may use beyond torch itself (default: 1024)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the random inputs (default: 0); the fixed ones never change")
    p.add_argument(
        "--room", metavar="FOLDER", help="check every learner's file in FOLDER (each sandboxed, two at a time); "
        "write room-lab-NN.csv, room-lab-NN-summary.csv and room-lab-NN.html"
    )
    p.add_argument("--out", metavar="DIR", help="with --room: the folder for the tables (default: the current one)")
    p.add_argument(
        "--no-sandbox", action="store_true", help="with --room: run the files with your own rights where no sandbox "
        "(bubblewrap) can be had; only for files you trust"
    )
    p.set_defaults(func=_lab_check)

    p = labs.add_parser(
        "notebook",
        help="write a lab as a Jupyter notebook",
        description="Write lab N as a Jupyter notebook, made from the same script (its # %% cells): the solved "
        "lab, or with --exercise your version (as `lab start N --notebook`). Refuses to overwrite unless --force.",
    )
    p.add_argument("number", **number)
    p.add_argument("--exercise", action="store_true", help="your version, with the functions left to write")
    p.add_argument("--out", metavar="PATH", help="a .ipynb file or a folder (default: ./lab-0N-<name>-solved.ipynb, "
                   "or ./lab-0N-<name>.ipynb with --exercise)")
    p.add_argument("--force", action="store_true", help="replace an existing notebook")
    p.set_defaults(func=lambda a: commands.notebook(a.number, a.exercise, a.out, a.force))


def build_parser() -> argparse.ArgumentParser:
    from attention_by_hand import parts

    PARTS, first = parts.PARTS, parts.default_part()

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="LLM Self-Attention by Hand: run the workshop's experiment, check a log against it, "
        "build its site, and do its labs.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

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
            p.add_argument("--port", type=_port, default=8000, help="port on 127.0.0.1 (default 8000; 0 = any free port)")
        else:
            p.add_argument("--handout", nargs="?", const="", metavar="PATH", help="also print the handout, one PDF of the "
                           "modules, the log, the labs and the answers, with Chromium (default PATH: OUT/handout.pdf)")
        p.set_defaults(func=func)

    _add_lab_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    stdout, sys.stdout = sys.stdout, _GuardedOutput(sys.stdout)
    try:
        code = args.func(args)
        sys.stdout.flush()  # here, so that output that cannot be written is reported below
        return code
    except UserError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`attention-by-hand check | head`): stop quietly, as cat would.
        _silence(stdout)
        return 1
    except _OutputLost as err:
        # `run > /dev/full`: the files are complete (each is written before anything is printed
        # about it); only the report is lost, and the one line on stderr says so.
        _silence(stdout)
        print(f"{PROG}: error: cannot write to standard output ({err})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Every file is written atomically, so an interrupted run leaves the old outputs whole.
        print(f"{PROG}: interrupted; files already on disk are unchanged or complete", file=sys.stderr)
        return 130
    finally:
        sys.stdout = stdout


class _OutputLost(Exception):
    """Standard output refused what a command printed (a full disk, /dev/full)."""


class _GuardedOutput:
    """sys.stdout while a command runs: a failed write raises _OutputLost instead of OSError.

    An OSError alone cannot say whether it came from printing or from writing one of the
    run's files; only the first is the learner's redirection and deserves a one-line message.
    """

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._guard(self._stream.write, text)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def _guard(self, action, *args):
        try:
            return action(*args)
        except BrokenPipeError:
            raise  # a reader that went away is handled on its own, quietly
        except OSError as err:
            raise _OutputLost(err.strerror or str(err)) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)  # fileno, isatty, buffer, encoding: the real stream's


def _silence(stdout) -> None:
    """Point stdout's file at /dev/null, so the text still buffered cannot fail again at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())


def entry() -> None:
    """The console script: run main(), then leave without the interpreter's teardown.

    Tearing down Matplotlib's and NumPy's module state takes about 0.1 s, a sixth of what the
    run itself costs on the main process (benchmarks/run_breakdown.py), and achieves nothing:
    every file main() wrote is complete, fsynced and renamed into place before it returns.
    """
    code = main()
    try:
        sys.stdout.flush()  # main() flushed already, unless it printed its help and returned
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    except OSError as err:
        print(f"{PROG}: error: cannot write to standard output ({err.strerror or err})", file=sys.stderr)
        code = 2
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
