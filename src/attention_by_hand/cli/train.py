"""`train heads`: train the heads part's two models again, and say whether they are the shipped bytes."""

from __future__ import annotations

import argparse

from attention_by_hand.cli.arguments import bounded, folder

__all__ = ["add"]


def _cmd_train(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from attention_by_hand.parts.heads import weights

    out = folder(args.out)
    schedule = replace(weights.SCHEDULE, **{k: v for k, v in (("seed", args.seed), ("steps", args.steps)) if v is not None})
    # Read before writing: --out may be the package's own folder (how new weights are shipped).
    shipped = {name: weights.shipped(weights.filename(name)) for name in weights.MODELS}
    made_on = weights.shipped_stamp()["made_on"]
    trained = weights.train_all(schedule)
    weights.write(out, trained, schedule)
    differ = []
    for t in trained:
        same = t.state_bytes() == shipped[t.name]
        differ += [] if same else [t.name]
        print(
            f"{t.name}: {t.model.n_parameters():,} parameters, {schedule.steps} steps in {t.seconds:.1f} s on "
            f"{schedule.threads} thread; wrote {out / weights.filename(t.name)}, "
            + ("the shipped weights' bytes" if same else "not the shipped weights' bytes")
        )
    if differ:
        # Name what differs from how the shipped weights were made, so the difference is explained.
        reasons = [f"{key} {made_on.get(key)} -> {value}" for key, value in weights.made_on().items() if value != made_on.get(key)]
        reasons = (["another schedule (--seed or --steps)"] if schedule != weights.SCHEDULE else []) + reasons
        print("the shipped weights were made otherwise: " + ("; ".join(reasons) or "by nothing the stamp records (please report it)"))
    print(f"wrote {out / weights.STAMP}: how they were made, and their final scores")
    return 0


def add(sub) -> None:
    """Add train to the subcommands `sub`."""
    p = sub.add_parser(
        "train",
        help="train the heads part's two models again and write their weights",
        description="Train the heads part's attention-only models (two layers, and the one-layer control) as the "
        "shipped weights were trained, write OUT/two_layer.pt, OUT/one_layer.pt and OUT/weights.json (how they were "
        "made, their final scores), and say whether they are the shipped weights' bytes: on the same versions and "
        "kind of CPU they are.",
    )
    p.add_argument("what", choices=("heads",), metavar="heads", help="what to train: the heads part's models")
    p.add_argument("--out", metavar="DIR", default="trained-heads", help="folder for the weights (default: trained-heads)")
    p.add_argument("--seed", type=bounded(int, 0, 2**32, "a whole number", "from 0 to 2**32"),
                   help="another seed (default: the shipped weights')")
    p.add_argument("--steps", type=bounded(int, 1, 1_000_000, "a whole number", "from 1 to 1,000,000"),
                   help="another number of training steps (default: the shipped weights')")
    p.set_defaults(func=_cmd_train)
