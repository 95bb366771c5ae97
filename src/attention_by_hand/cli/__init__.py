"""`attention-by-hand`: the one command, with a subcommand for each job.

    attention-by-hand run [--world FILE.toml] [--out DIR] [--figure-format svg]
    attention-by-hand check [PATH] [--expected FILE]
    attention-by-hand build [--handout [PDF]] | serve [--port N]
    attention-by-hand worksheet [--world FILE.toml | --seed N | --room N [--first-seed S]] [--out DIR] [--paper P]
    attention-by-hand train heads [--out DIR] [--seed N] [--steps N]
    attention-by-hand lab list | run N | check N [FILE] | check N --room FOLDER | notebook N

Exit codes: 0 done (or logs equal), 1 logs differ, 2 bad input (one line on stderr saying
which input and what is wrong). Anything else that escapes is a bug and keeps its traceback.

One module per group of subcommands, each with an `add(sub)` that adds its parsers:

    runs.py       run, check, build, serve
    paper.py      worksheet
    train.py      train heads
    lab.py        lab list | start | run | check | notebook
    arguments.py  the argument types they share (a folder to write into, bounded numbers, a port)
"""

from __future__ import annotations

import argparse
import os
import sys

from attention_by_hand import __version__
from attention_by_hand.cli import lab, paper, runs, train
from attention_by_hand.errors import UserError

__all__ = ["main", "entry", "build_parser"]

PROG = "attention-by-hand"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="LLM Self-Attention by Hand: run the workshop's experiment, check a log against it, "
        "build its site, print worksheets, and do its labs.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (runs, paper, train, lab):
        group.add(sub)
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
