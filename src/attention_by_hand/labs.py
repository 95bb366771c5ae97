"""The labs: which there are, where their files live, and the `lab` command that runs them.

    attention-by-hand lab list                       the six labs, and where they are
    attention-by-hand lab run N [--exercise] [...]   run lab N (or your exercise copy) as a script
    attention-by-hand lab check N [FILE]             judge your functions against the reference
    attention-by-hand lab notebook N [--exercise]    the same lab as a Jupyter notebook

A lab is a plain script under `labs/` (`labs/lab-04-attention.py`) written in jupytext's
percent format: `# %%` starts a cell, `# %% [markdown]` a cell of prose. Its learner version,
with the key functions left to write, is the same file under `labs/exercises/`. The labs folder
is found in the current folder first, then beside the package source (an editable install).

Left out: what `check` checks and how it runs the learner's file (labjudge.py, labcheck.py).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["Lab", "LABS", "register", "get_lab", "labs_folder", "lab_path", "notebook_text"]


@dataclass(frozen=True)
class Lab:
    """One lab: `labs/lab-0N-<slug>.py`, and the functions its learner writes."""

    number: int
    slug: str
    title: str
    summary: str
    functions: tuple[str, ...]  # what the exercise leaves to write, and what `check` calls
    quick: tuple[str, ...] = ()  # arguments for a short run (CI), same self-check

    @property
    def filename(self) -> str:
        return f"lab-{self.number:02d}-{self.slug}.py"


LABS = (
    Lab(
        1,
        "tensors",
        "tensors",
        "the toy world as torch tensors; a matrix product is many dot products",
        ("sentence_matrix", "dot", "matmul_by_loops"),
    ),
    Lab(
        2,
        "embeddings-softmax",
        "embeddings and softmax",
        "nn.Embedding is a lookup table; softmax by hand, safe on huge scores",
        ("one_hot_lookup", "softmax"),
    ),
    Lab(
        3,
        "bigram",
        "a bigram model",
        "count character pairs, then train nn.Embedding to the same table; sample",
        ("bigram_counts", "counts_to_probs", "average_nll"),
    ),
    Lab(
        4,
        "attention",
        "one head of self-attention",
        "q, k, v by nn.Linear; scale, causal mask, softmax, weighted sum",
        ("causal_mask", "attention_weights", "self_attention"),
    ),
    Lab(
        5,
        "multihead",
        "several heads",
        "heads in parallel, merged, projected; equal to nn.MultiheadAttention",
        ("split_heads", "merge_heads", "multi_head_attention"),
    ),
    Lab(
        6,
        "transformer",
        "a tiny transformer",
        "embeddings, attention, MLP, residuals, layer norm; trained to copy",
        ("embed", "layer_norm", "block_forward"),
        quick=("--quick",),
    ),
)

_GUARD = 'if __name__ == "__main__":'


def get_lab(text: str) -> Lab:
    """The lab numbered `text` ("4" or "04"), or a UserError listing the numbers there are."""
    try:
        number = int(text)
    except ValueError:
        number = None
    for lab in LABS:
        if lab.number == number:
            return lab
    raise UserError(f"no lab {text!r}: the labs are numbered 1 to {len(LABS)} (see: attention-by-hand lab list)")


def labs_folder() -> Path:
    """The labs folder: ./labs if there is one, else the one beside the package source."""
    candidates = [Path.cwd() / "labs", Path(__file__).resolve().parents[2] / "labs"]
    for folder in candidates:
        if (folder / LABS[0].filename).is_file():
            return folder
    raise UserError(
        f"cannot find the labs: no {LABS[0].filename} in {candidates[0]} or {candidates[1]}; "
        "run from the project's root folder"
    )


def lab_path(lab: Lab, exercise: bool = False) -> Path:
    """The lab's script, or its learner version under exercises/."""
    folder = labs_folder()
    path = folder / "exercises" / lab.filename if exercise else folder / lab.filename
    if not path.is_file():
        raise UserError(f"{path}: missing; the labs folder {folder} is incomplete")
    return path


# --- notebooks ------------------------------------------------------------------------------


def _unwrap_guard(source: str) -> str:
    """A cell that is all `if __name__ == "__main__":` block becomes its body, dedented.

    In a script the guard keeps the steps from running on import (the checker imports the
    file); in a notebook every cell is meant to run, and the guard would only be noise.
    """
    lines = source.split("\n")
    if lines[0].rstrip() != _GUARD:
        return source
    body = lines[1:]
    if any(line.strip() and not line.startswith("    ") for line in body):
        return source  # something after the block: leave the cell as written
    return "\n".join(line[4:] for line in body).strip("\n")


def notebook_text(source: str) -> str:
    """A lab script (jupytext percent format) -> the text of an .ipynb notebook, validated.

    Same source, same bytes: cell ids are numbered, not random, and only the kernel metadata is
    kept (no jupytext bookkeeping).
    """
    try:
        import jupytext
        import nbformat
    except ImportError:
        raise UserError("making notebooks needs jupytext and nbformat: pip install jupytext nbformat") from None
    notebook = jupytext.reads(source, fmt="py:percent")
    notebook.metadata = nbformat.from_dict(
        {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        }
    )
    for i, cell in enumerate(notebook.cells):
        cell.id = f"cell-{i:02d}"
        cell.metadata = nbformat.from_dict({})
        if cell.cell_type == "code":
            cell.source = _unwrap_guard(cell.source)
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


# --- the `lab` command ----------------------------------------------------------------------


def _cmd_help(args: argparse.Namespace) -> int:
    args.lab_parser.print_help()
    return 2


def _cmd_list(args: argparse.Namespace) -> int:
    try:
        where = str(labs_folder())
    except UserError:
        where = "not found (run from the project's root folder)"
    print(f"The labs (folder: {where}):")
    for lab in LABS:
        print(f"  {lab.number}  {lab.filename:<29} {lab.summary}")
    print("Run one:          attention-by-hand lab run N")
    print("Your version:     labs/exercises/<the same name>; fill in what raises NotImplementedError")
    print("Check yours:      attention-by-hand lab check N [FILE]   (FILE defaults to the exercise)")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    lab = get_lab(args.number)
    path = lab_path(lab, exercise=args.exercise)
    sys.stdout.flush()
    code = subprocess.run([sys.executable, str(path), *args.script_args]).returncode
    return code if code in (0, 1) else 1  # a crash or a signal is a failed lab, not bad input


_MAX_TIMEOUT = 24 * 3600  # seconds: a day, far beyond any lab; a bound keeps the deadline arithmetic sane
_MAX_MEMORY_MB = 1024 * 1024  # a terabyte: the address-space limit in bytes stays well inside 64 bits
_MAX_SEED = 2**64 - 1  # torch.Generator.manual_seed takes no larger seed


def _seconds(text: str) -> float:
    """--timeout: seconds above 0, finite. An ArgumentTypeError is one line and exit 2, as argparse does."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= _MAX_TIMEOUT:  # NaN fails every comparison, inf the upper bound
        raise argparse.ArgumentTypeError(f"{text!r}: must be more than 0 and at most {_MAX_TIMEOUT} seconds")
    return value


def _megabytes(text: str) -> int:
    """--memory: a whole number of megabytes, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of MB") from None
    if not 1 <= value <= _MAX_MEMORY_MB:
        raise argparse.ArgumentTypeError(f"{text!r}: must be from 1 to {_MAX_MEMORY_MB} MB")
    return value


def _seed(text: str) -> int:
    """--seed: a whole number torch takes as a seed."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= _MAX_SEED:
        raise argparse.ArgumentTypeError(f"{text!r}: must be from 0 to 2**64 - 1")
    return value


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


def _cmd_check(args: argparse.Namespace) -> int:
    from attention_by_hand.labcheck import check_file, report_lines

    lab = get_lab(args.number)
    learner = Path(args.file) if args.file else lab_path(lab, exercise=True)
    if not learner.exists():
        raise UserError(f"{learner}: no such file (copy labs/exercises/{lab.filename} and fill it in)")
    if not learner.is_file():
        raise UserError(f"{learner}: not a file")
    reference = lab_path(lab)
    print(f"Checking {learner} against lab {lab.number} ({lab.title}):", flush=True)
    run = check_file(learner, reference, lab.number, timeout=args.timeout, memory_mb=args.memory, seed=args.seed)
    for line in report_lines(run):
        print(line)
    if run.failure:
        sys.stdout.flush()
        raise UserError(f"{learner}: cannot be checked: {run.failure}")
    return run.exit_code


def _cmd_notebook(args: argparse.Namespace) -> int:
    from attention_by_hand.atomic import write_atomic

    lab = get_lab(args.number)
    source = lab_path(lab, exercise=args.exercise)
    name = Path(lab.filename).stem + ("-exercise" if args.exercise else "") + ".ipynb"
    out = Path(args.out) if args.out else Path(name)
    if out.is_dir():
        out = out / name
    if out.suffix != ".ipynb":
        raise UserError(f"{out}: a notebook's name must end in .ipynb (or give a folder)")
    if out.exists() and not args.force:
        raise UserError(f"{out}: already exists; --force replaces it (your edits in it would be lost)")
    text = notebook_text(source.read_text(encoding="utf-8"))
    try:
        write_atomic(out, text.encode("utf-8"))
    except OSError as error:
        raise UserError(f"{out}: cannot write the notebook ({error.strerror})") from None
    print(f"wrote {out} (from {source})")
    return 0


_WORKFLOW = textwrap.dedent("""\
    from a first run to a passing check:
      attention-by-hand lab list                    the six labs and where they are
      attention-by-hand lab run 4                   run lab 4: numbered STEP lines, then a self-check
      cp labs/exercises/lab-04-attention.py mine.py
                                                    your copy: fill in each function that raises
                                                    NotImplementedError (its message says what to compute)
      python3 mine.py                               run your version, step by step
      attention-by-hand lab check 4 mine.py         compare your functions with the reference, with hints
      attention-by-hand lab notebook 4 --exercise   the same, as a Jupyter notebook

    exit codes of check: 0 all passed, 1 some failed, 2 the file could not be run at all
    (syntax error, import error, missing function, time limit, memory limit, too much output).
    """)


def register(subparsers) -> argparse.ArgumentParser:
    """Add the `lab` command (list, run, check, notebook) to an argparse subparsers object."""
    lab = subparsers.add_parser(
        "lab",
        help="the labs: list, run, check your solution, make a notebook",
        description="Six labs that build attention in PyTorch step by step, each a script that checks\n"
        "itself; and a checker for your own version of each.",
        epilog=_WORKFLOW,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lab.set_defaults(func=_cmd_help, lab_parser=lab)
    sub = lab.add_subparsers(dest="lab_command", metavar="SUBCOMMAND", parser_class=_LabParser)

    p = sub.add_parser("list", help="list the labs", description="List the six labs, their files and what each builds.")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser(
        "run",
        help="run a lab as a script",
        description="Run lab N (labs/lab-0N-*.py) or, with --exercise, its learner version. It prints numbered "
        "STEP lines and a self-check, and exits 1 when an invariant fails. Arguments after N go to the script "
        "(lab 6: --quick for a short schedule, --out DIR for its figure).",
    )
    p.add_argument("number", metavar="N", help="the lab's number, 1-6")
    p.add_argument("--exercise", action="store_true", help="run labs/exercises/lab-0N-*.py instead")
    p.add_argument("script_args", nargs=argparse.REMAINDER, metavar="...", help="passed to the lab script")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser(
        "check",
        help="check your version of a lab's functions, with hints",
        description="Run FILE in a separate process with a time and a memory limit, call its functions on "
        "fixed and random inputs, and compare them with the reference lab. One line per check; a failed "
        "check says which mistake it looks like. Exit 0 all passed, 1 some failed, 2 FILE cannot be run.",
    )
    p.add_argument("number", metavar="N", help="the lab's number, 1-6")
    p.add_argument("file", nargs="?", metavar="FILE", help="your lab file (default: labs/exercises/lab-0N-*.py)")
    p.add_argument(
        "--timeout", type=_seconds, default=20.0, metavar="S", help="seconds for the whole run of FILE (default: 20)"
    )
    p.add_argument(
        "--memory",
        type=_megabytes,
        default=1024,
        metavar="MB",
        help="memory FILE may use beyond torch itself (default: 1024)",
    )
    p.add_argument(
        "--seed", type=_seed, default=0, help="seed of the random inputs (default: 0); the fixed ones never change"
    )
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser(
        "notebook",
        help="write a lab as a Jupyter notebook",
        description="Write lab N as a Jupyter notebook, made from the same script (its # %% cells). "
        "The steps run cell by cell. Refuses to overwrite a notebook unless --force.",
    )
    p.add_argument("number", metavar="N", help="the lab's number, 1-6")
    p.add_argument("--exercise", action="store_true", help="the learner version, with the functions left to write")
    p.add_argument(
        "--out", metavar="PATH", help="a .ipynb file or a folder (default: ./lab-0N-<name>[-exercise].ipynb)"
    )
    p.add_argument("--force", action="store_true", help="replace an existing notebook")
    p.set_defaults(func=_cmd_notebook)
    return lab
