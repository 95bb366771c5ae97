"""`lab`: list, start, run, check and notebook, for the labs of lab/labs/."""

from __future__ import annotations

import argparse

from attention_by_hand.cli.arguments import bounded
from attention_by_hand.errors import UserError

__all__ = ["add"]

_MAX_TIMEOUT = 24 * 3600  # seconds: a day, far beyond any lab; a bound keeps the deadline arithmetic sane
_MAX_MEMORY_MB = 1024 * 1024  # a terabyte: the address-space limit in bytes stays well inside 64 bits
_MAX_SEED = 2**64 - 1  # torch.Generator.manual_seed takes no larger seed


_seconds = bounded(float, 1e-9, _MAX_TIMEOUT, "a number of seconds", f"more than 0 and at most {_MAX_TIMEOUT} seconds")
_megabytes = bounded(int, 1, _MAX_MEMORY_MB, "a whole number of MB", f"from 1 to {_MAX_MEMORY_MB} MB")
_seed = bounded(int, 0, _MAX_SEED, "a whole number", "from 0 to 2**64 - 1")


def _check(a: argparse.Namespace) -> int:
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


def add(sub) -> None:
    """Add lab and its subcommands to the subcommands `sub`."""
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
    from attention_by_hand.lab.registry import numbers

    number = {"metavar": "N", "help": f"the lab's number: {numbers()}"}

    p = labs.add_parser("list", help="list the labs", description="List the labs, what each builds and the functions you write.")
    p.set_defaults(func=lambda args: commands.list_labs())

    p = labs.add_parser(
        "start",
        help="write your version of a lab, with its functions left to write",
        description="Write your version of lab N: the reference lab with the functions you write replaced by "
        "`raise NotImplementedError(<what to compute>)`. Refuses to overwrite a file unless --force.",
    )
    p.add_argument("number", **number)
    p.add_argument("file", nargs="?", metavar="FILE", help="where to write it (default: ./lab-NN-<name>.py)")
    p.add_argument("--notebook", action="store_true", help="write a Jupyter notebook (default ./lab-NN-<name>.ipynb)")
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
    p.add_argument("file", nargs="?", metavar="FILE", help="your lab file (default: ./lab-NN-<name>.py, else .ipynb)")
    p.add_argument("--timeout", type=_seconds, default=20.0, metavar="S", help="seconds for FILE's own part: importing it and every call, not the checker's start (default: 20)")
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
    p.set_defaults(func=_check)

    p = labs.add_parser(
        "notebook",
        help="write a lab as a Jupyter notebook",
        description="Write lab N as a Jupyter notebook, made from the same script (its # %% cells): the solved "
        "lab, or with --exercise your version (as `lab start N --notebook`). Refuses to overwrite unless --force.",
    )
    p.add_argument("number", **number)
    p.add_argument("--exercise", action="store_true", help="your version, with the functions left to write")
    p.add_argument("--out", metavar="PATH", help="a .ipynb file or a folder (default: ./lab-NN-<name>-solved.ipynb, "
                   "or ./lab-NN-<name>.ipynb with --exercise)")
    p.add_argument("--force", action="store_true", help="replace an existing notebook")
    p.set_defaults(func=lambda a: commands.notebook(a.number, a.exercise, a.out, a.force))
