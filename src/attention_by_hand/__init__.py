"""LLM Self-Attention by Hand: attention built from a dot product up to a real PyTorch head.

The public API is small on purpose:

    World, RIVER_BANK, load_world          the toy world (world.py)
    dot, softmax, causal_mask,              the mechanism, as plain NumPy (mechanism.py)
    raw_attention, wired_attention, attention
    run                                    sections S1-S6 -> results.log, index, figures (experiment.py)
    compare                                a log against the canonical capture (check.py)

Names are imported on first use (PEP 562), so `attention-by-hand check` or the run's helper
process load only the modules they need, not Matplotlib's or the run's.
"""

from importlib import import_module

__version__ = "0.1.0"

_HOMES = {
    "World": "world",
    "RIVER_BANK": "world",
    "load_world": "world",
    "dot": "mechanism",
    "softmax": "mechanism",
    "causal_mask": "mechanism",
    "raw_attention": "mechanism",
    "wired_attention": "mechanism",
    "attention": "mechanism",
    "run": "experiment",
    "compare": "check",
}

__all__ = list(_HOMES)


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(import_module(f"attention_by_hand.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'attention_by_hand' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
