"""LLM Self-Attention by Hand: attention built from a dot product up to a real PyTorch head.

The package, by role (each folder's docstring says what it holds and what it may import):

    math/       the math the pages quote: dot product, softmax, heads, positions, tiling, the cache
    run/        what every run part shares: the part object, the section log, figures, stamp, world
    parts/      the run's parts (canonical S1-S6, positions P1-P4, memory L1-L5, gradients G1-G4,
                heads H1-H5) and their registry
    site/       building, serving and printing the workshop site; the Sphinx extension
    lab/        the labs, the learner's version of each, and the checker that names mistakes
    cli/        the `attention-by-hand` command, a module per group of subcommands

The public API is small on purpose:

    World, RIVER_BANK, load_world          the toy world (run/world.py)
    dot, softmax, causal_mask,              the mechanism, as plain NumPy (math/mechanism.py)
    raw_attention, wired_attention, attention
    run                                    the canonical part, S1-S6 -> results.log, index, figures
    compare                                a log against a canonical capture (run/check.py)

Names are imported on first use (PEP 562), so `attention-by-hand check` or the run's helper
process load only the modules they need.
"""

from importlib import import_module

__version__ = "0.1.0"

_HOMES = {
    "World": "run.world",
    "RIVER_BANK": "run.world",
    "load_world": "run.world",
    "dot": "math.mechanism",
    "softmax": "math.mechanism",
    "causal_mask": "math.mechanism",
    "raw_attention": "math.mechanism",
    "wired_attention": "math.mechanism",
    "attention": "math.mechanism",
    "compare": "run.check",
}

__all__ = [*_HOMES, "run"]


def run(world=None, out=".", formats=("png",)):
    """Run the canonical part (S1-S6) on `world` (default: the canonical one) into `out`.

    Returns the RunResult: the log's and the index's paths, the figures, the log's text.
    """
    from attention_by_hand.parts import default_part
    from attention_by_hand.run.part import RunContext
    from attention_by_hand.run.world import RIVER_BANK

    from pathlib import Path

    return default_part().run(RunContext(out=Path(out), formats=tuple(formats), world=world or RIVER_BANK))


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(import_module(f"attention_by_hand.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'attention_by_hand' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
