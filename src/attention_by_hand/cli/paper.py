"""`worksheet`: a worksheet for pencils and its answer key, for any world, or one per learner."""

from __future__ import annotations

import argparse
from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["add"]


def _cmd_worksheet(args: argparse.Namespace) -> int:
    from attention_by_hand.site import printing, sheets

    # Everything that can be refused is, before any world is run or any file written.
    if args.room is None and args.first_seed is not None:
        raise UserError(f"--first-seed {args.first_seed}: goes with --room N (a single sheet takes --seed)")
    if args.room is not None and (args.world or args.seed is not None):
        given = f"--world {args.world}" if args.world else f"--seed {args.seed}"
        raise UserError(f"{given}: a room is made of worlds for pencils, one seed each; give --room N --first-seed S instead")
    out = Path(args.out or ("room" if args.room is not None else "worksheet"))
    sheets.check_out(out)
    if args.room is not None:
        seeds = sheets.room_seeds(args.room, args.first_seed if args.first_seed is not None else "1")
        made = sheets.write_room(out, seeds, args.paper, printing.require_chromium())
        print(f"wrote {out}/index.html and {made.sheets} sheets ({out}/sheets/) with their keys ({out}/keys/) in {made.seconds:.1f} s")
        return 0
    choice = sheets.choose(args.world, args.seed)
    made = sheets.write_one(out, choice, args.paper, printing.require_chromium())
    papers = " and ".join(sheets.PAPERS[p].name for p in sheets.papers_of(args.paper))
    print(
        f"wrote {out}/: the worksheet on {choice.source} ({made.worksheet_pages} pages, {papers}), its key "
        f"({made.key_pages} page{'s' if made.key_pages != 1 else ''}) and world.toml in {made.seconds:.1f} s"
    )
    return 0


_WORKSHEET_EPILOG = """examples:
  attention-by-hand worksheet                       the canonical world -> ./worksheet/
  attention-by-hand worksheet --seed 7              a world for pencils, the same for seed 7 everywhere
  attention-by-hand worksheet --world my.toml --paper a4
  attention-by-hand worksheet --room 30 --first-seed 100 --out room
                                                    30 sheets (seeds 100-129), their keys, and an index

one world writes OUT/worksheet.html, worksheet-<paper>.pdf, key.html, key-<paper>.pdf and world.toml;
a room writes OUT/index.html, OUT/sheets/ (to hand out, with each world file) and OUT/keys/ (to keep).
Needs Debian's chromium to print. Exit 2, with one line and nothing written, on bad input.
"""


def add(sub) -> None:
    """Add worksheet to the subcommands `sub`."""
    p = sub.add_parser(
        "worksheet",
        help="print a worksheet for pencils and its answer key, for any world; or one per learner for a room",
        description="Write a printable worksheet (HTML and PDF): the world's embeddings, then one exercise per page "
        "(dot products, softmax with a table of e^x, the weighted sum, the wired head's q, k and scores), and a "
        "separate answer key that gives every box's answer as the run prints it, with the log line that prints it. "
        "The world is run first; its world file is written beside the sheet.",
        epilog=_WORKSHEET_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # --world and --seed exclude each other: sheets.choose says so in one line (argparse would take two).
    p.add_argument("--world", metavar="FILE.toml", help="a world file (default: the canonical world)")
    p.add_argument("--seed", metavar="N", help="a random world made for pencils: one decimal, small whole weights, "
                       "every answer well posed (0 to 999,999,999)")
    p.add_argument("--room", metavar="N", help="a room: N worlds for pencils, one sheet and key each, and an index")
    p.add_argument("--first-seed", metavar="S", help="the room's first seed; the others follow (default: 1)")
    p.add_argument("--out", metavar="DIR", help="the folder to write into (default: ./worksheet, or ./room for --room)")
    p.add_argument("--paper", choices=("a4", "letter", "both"), default="both",
                   help="the PDFs' paper: a4, letter or both (default: both)")
    p.set_defaults(func=_cmd_worksheet)
