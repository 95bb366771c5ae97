#!/usr/bin/env python3
# %% [markdown]
# # Lab 11 (your version): induction heads, found and tested in a trained model
#
# The package ships a small model trained on this kind of CPU: two layers of two attention heads,
# nothing else (no MLP, no layer norm), trained on random tokens whose segment repeats. It learned
# to predict the repeat. This lab finds out how, with three numbers per head and one surgery:
#
#     previous-token score   how much a head looks one position back
#     induction score        how much it looks at the token AFTER the current token's earlier occurrence
#     first-token score      how much it looks at the start token
#     ablation               the model run again without one head's output
#
# You write the four. The lab runs them on the shipped model and on its one-layer control
# (trained the same way), names each head by a threshold, removes each head in turn, and checks
# what Module 7 claims: a previous-token head in layer 0, induction heads in layer 1, none in the
# control, and no induction without the previous-token head.
#
# Left out: training (`attention-by-hand train heads` trains the same models again), composition
# scores from the weight matrices, and any model with MLPs.

# %% [markdown] tags=["how-to-run"]
# This is your version of lab 11. Each function below that raises `NotImplementedError` is yours
# to write; its message says what to compute. Run it: `attention-by-hand lab run 11 lab11-03.py`
# (it stops at the first function not written yet). Check it:
# `attention-by-hand lab check 11 lab11-03.py`. The solved lab: `attention-by-hand lab run 11`.
# The steps sit under `if __name__ == "__main__":`, so that the checker can import your
# functions without running them.

# %%
import sys
import traceback

try:
    import torch
except ModuleNotFoundError:  # a Python without PyTorch: one line that says what to do instead
    print(
        f"{sys.argv[0]}: this lab needs PyTorch, which {sys.executable} does not have; run it with the "
        f"Python that has attention-by-hand: attention-by-hand lab run 11 {sys.argv[0]}",
        file=sys.stderr,
    )
    sys.exit(2)
import torch.nn.functional as F

# %% [markdown]
# ## The functions you write
#
# A pattern is a head's attention weights on a batch: `pattern[b, h, i, j]` is what query
# position `i` of sequence `b` gives key position `j`, in head `h`. Each row sums to 1 and gives
# the future nothing. Position 0 of every sequence is the start token. Each score is one number
# per head: the mean over the batch and over the rows where the cell it reads means something.
# The checker (`attention-by-hand lab check 11 FILE`) calls these four by name on patterns it
# makes up, and compares them with the reference.


# %%
def previous_token_score(pattern: torch.Tensor) -> torch.Tensor:
    """The mean weight on the previous position, per head.

    pattern: (batch, heads, T, T)  ->  (heads,)
        mean over b and over rows i = 1 .. T-1 of pattern[b, h, i, i - 1]
    Row 0 has no previous position: it is left out, not counted as 0.
    """
    b, T = pattern.shape[0], pattern.shape[-1]
    return torch.einsum('bhii->h', pattern[..., 1:, :-1]) / (b * (T - 1))


def first_token_score(pattern: torch.Tensor) -> torch.Tensor:
    """The mean weight on position 0, the start token, per head.

    pattern: (batch, heads, T, T)  ->  (heads,)
        mean over b and over rows i = 1 .. T-1 of pattern[b, h, i, 0]
    Row 0 can only look at itself: its weight on position 0 is always 1, and says nothing.
    """
    b, T = pattern.shape[0], pattern.shape[-2]
    return torch.einsum('bhi->h', pattern[:, :, 1:, 0]) / (b * T - 1)


def induction_score(pattern: torch.Tensor, period: int) -> torch.Tensor:
    """The mean weight on the token after the current token's earlier occurrence, per head.

    pattern: (batch, heads, T, T) on sequences that are the start token, then `period` tokens,
    then the same tokens again (positions period + 1 .. repeat positions 1 ..)  ->  (heads,)
        mean over b and over rows i = period + 1 .. T-1 of pattern[b, h, i, i - period + 1]
    The token at i appeared before at i - period; the one that followed it is at i - period + 1.
    """
    b, T = pattern.shape[0], pattern.shape[-1]
    block = pattern[..., period + 1:, 2:T - period + 1]
    return torch.einsum('bhii->h', block) / (b * (T - period - 1))


def ablate_head(scores: torch.Tensor, values: torch.Tensor, head: int) -> torch.Tensor:
    """A layer's output with one head removed (zero-ablation).

    scores: (batch, heads, T, T), the future already at -inf; values: (batch, heads, T, d_model),
    what each head would write from each position  ->  (batch, T, d_model)
        sum over the heads h != head of softmax(scores_h) @ values_h
    The head's output is removed; its scores are not touched (zero scores would make it attend
    uniformly, and still write).
    """
    w = torch.special.softmax(scores, dim=-1)
    outs = torch.einsum('bhij,bhjd->bhid', w, values)
    keep = [h for h in range(scores.shape[1]) if h != head]
    return outs[:, keep].sum(1)


# %% [markdown]
# ## The shipped models, and the probe
#
# The package's own: the model (math/attention_only.py), its weights as trained (the heads
# part), and the batch its detectors read (math/repeats.py): 64 sequences of the start token,
# 16 distinct random tokens, then 15 of them again. A head is named by its layer and its number
# in the layer: L1H0 is head 0 of layer 1.

# %%
from attention_by_hand.math.detectors import head_name  # noqa: E402
from attention_by_hand.math.repeats import PROBE_PERIOD, probe, repeat_rows  # noqa: E402
from attention_by_hand.parts.heads.weights import load, shipped_stamp  # noqa: E402

THRESHOLD = 0.4  # a head is named by a score above this: a weight of 0.4 on one cell of every row


def named(previous: float, induction: float, first: float) -> str:
    """A head's names by the threshold."""
    names = [n for n, s in (("previous-token", previous), ("induction", induction), ("first-token", first)) if s > THRESHOLD]
    return ", ".join(names) or "none"


def repeat_loss(logits: torch.Tensor, sequences: torch.Tensor, period: int) -> float:
    """The mean cross-entropy on the rows whose next token is a repeat.   logits: (n, T, V)"""
    rows = repeat_rows(period, logits.shape[1])  # (n_rows,)
    return F.cross_entropy(logits[:, rows].flatten(0, 1), sequences[:, rows + 1].flatten()).item()


# %% [markdown]
# ## How the lab talks
#
# One `STEP n:` line per step; the last line is the self-check, and the script exits with
# status 1 when an invariant fails, so a shell or CI can tell.


# %%
def step(number: int, text: str) -> None:
    """Print one numbered step."""
    print(f"STEP {number}: {text}")


def show(rows: list[list], header: list[str]) -> None:
    """Print a small table, one line per row, right-aligned under its header."""
    widths = [max(len(str(v)) for v in column) for column in zip(header, *rows)]
    for row in [header, *rows]:
        print("    " + "  ".join(f"{str(v):>{w}}" for v, w in zip(row, widths)))


def self_check(invariants: dict[str, bool]) -> bool:
    """Print the closing self-check line. True when every invariant holds."""
    failed = [name for name, holds in invariants.items() if not holds]
    if failed:
        print(f"SELF-CHECK: FAIL: {len(failed)} of {len(invariants)} invariants broken: " + "; ".join(failed))
    else:
        print("SELF-CHECK: PASS: " + "; ".join(invariants))
    return not failed


def report_unfinished(kind, error, tb) -> None:
    """sys.excepthook: a function still to be written gets one friendly line, not a traceback."""
    if issubclass(kind, NotImplementedError):
        print(f"NOT WRITTEN YET: {traceback.extract_tb(tb)[-1].name}(): {error}", file=sys.stderr)
    else:
        sys.__excepthook__(kind, error, tb)


# %% [markdown]
# ## Step 1: the two models
#
# Loaded from the package, as trained; nothing in this lab trains.

# %%
if __name__ == "__main__":
    sys.excepthook = report_unfinished
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)  # 64 sequences of 32 tokens: one thread is plenty
    models = {"two_layer": load("two_layer"), "one_layer": load("one_layer")}
    schedule = shipped_stamp()["schedule"]
    sizes = models["two_layer"].sizes
    step(
        1,
        f"two models of {sizes.n_heads} heads per layer, d_model {sizes.d_model}, vocabulary {sizes.vocab}, context "
        f"{sizes.context}: two layers ({models['two_layer'].n_parameters():,} parameters) and one "
        f"({models['one_layer'].n_parameters():,}), each trained {schedule['steps']} steps on segments of "
        f"{schedule['shortest']} to {schedule['longest']} random tokens, repeated",
    )

# %% [markdown]
# ## Step 2: the probe, and every head's pattern on it

# %%
if __name__ == "__main__":
    sequences = probe(sizes.vocab, sizes.context)  # (64, T + 1): the model reads the first T
    runs = {name: model(sequences[:, :-1]) for name, model in models.items()}
    tokens = sequences[0, :-1].tolist()
    step(
        2,
        f"the probe: {len(sequences)} sequences, e.g. {tokens[0]} | {' '.join(map(str, tokens[1:PROBE_PERIOD + 1]))} | "
        f"{' '.join(map(str, tokens[PROBE_PERIOD + 1:]))}; patterns of shape {tuple(runs['two_layer'].patterns[0].shape)} per layer",
    )

# %% [markdown]
# ## Step 3: your three detectors, on every head of both models

# %%
if __name__ == "__main__":
    scores, table = {}, []
    for name, run in runs.items():
        for layer, pattern in enumerate(run.patterns):
            found = zip(previous_token_score(pattern), induction_score(pattern, PROBE_PERIOD), first_token_score(pattern))
            for h, (previous, induction, first) in enumerate(found):
                scores[name, layer, h] = (previous.item(), induction.item(), first.item())
                table.append([name, head_name(layer, h), *(f"{s:.3f}" for s in scores[name, layer, h]), named(*scores[name, layer, h])])
    step(3, f"the detectors, on rows of period {PROBE_PERIOD}; a head is named by a score above {THRESHOLD}:")
    show(table, ["model", "head", "previous", "induction", "first", "named"])

# %% [markdown]
# ## Step 4: your ablation, one head at a time
#
# The model calls your `ablate_head` for the layer of the head removed. The loss is on the
# rows of the repeat, where the next token can be known by looking back.

# %%
if __name__ == "__main__":
    model = models["two_layer"]
    induction_heads = [(layer, h) for (name, layer, h), s in scores.items() if name == "two_layer" and s[1] > THRESHOLD]
    previous_head = max(((layer, h) for (name, layer, h) in scores if name == "two_layer"), key=lambda k: scores[("two_layer", *k)][0])
    ablated, table = {}, []
    for head in [None, *[(layer, h) for layer in range(sizes.n_layers) for h in range(sizes.n_heads)]]:
        run = runs["two_layer"] if head is None else model(sequences[:, :-1], ablate=head, ablation=ablate_head)
        induction = [induction_score(run.patterns[layer], PROBE_PERIOD)[h].item() for layer, h in induction_heads]
        ablated[head] = (repeat_loss(run.logits, sequences, PROBE_PERIOD), induction)
        table.append(["nothing" if head is None else head_name(*head), f"{ablated[head][0]:.3f}", *(f"{v:.3f}" for v in induction)])
    step(4, "the two-layer model with one head removed: the loss on the repeat, and the induction scores")
    show(table, ["removed", "loss", *(f"induction {head_name(*head)}" for head in induction_heads)])

# %% [markdown]
# ## Step 5: your ablation against the model's own sum
#
# With every head kept, a layer adds the sum of its heads' outputs; your ablation of head h plus
# head h's output must give the same.

# %%
if __name__ == "__main__":
    run = runs["two_layer"]
    gaps = []
    for layer in range(sizes.n_layers):
        stream = run.streams[layer]  # (64, T, d_model): what the layer reads
        kept = [ablate_head(run.scores[layer], model.values(layer, stream), h) + run.writes[layer][:, h] for h in range(sizes.n_heads)]
        gaps += [(k - run.writes[layer].sum(dim=1)).abs().max().item() for k in kept]
    sum_gap = max(gaps)
    step(5, f"ablate_head(layer, h) + head h's output vs the layer's whole output: max |difference| = {sum_gap:.1e}")

# %% [markdown]
# ## Self-check

# %%
if __name__ == "__main__":
    two_layer = {(layer, h): s for (name, layer, h), s in scores.items() if name == "two_layer"}
    control = [s for (name, _, _), s in scores.items() if name == "one_layer"]
    passed = self_check(
        {
            "a previous-token head in layer 0": any(s[0] > THRESHOLD for (layer, _), s in two_layer.items() if layer == 0),
            "an induction head in layer 1": any(s[1] > THRESHOLD for (layer, _), s in two_layer.items() if layer == 1),
            "no induction head in the one-layer control": all(s[1] <= THRESHOLD for s in control),
            "every score a mean weight, in [0, 1]": all(0 <= v <= 1 for s in scores.values() for v in s),
            f"without head {head_name(*previous_head)} every induction score is below {THRESHOLD}": bool(induction_heads)
            and all(v < THRESHOLD for v in ablated[previous_head][1]),
            "removing the previous-token head costs the most loss": max(ablated, key=lambda k: ablated[k][0]) == previous_head,
            "ablate_head plus the head's output is the layer's output (within 1e-5)": sum_gap <= 1e-5,
        }
    )
    if not passed:
        sys.exit(1)
