"""Which labs there are: their files, what each builds, and the functions a learner writes.

A lab is one reference script shipped inside the package (`reference/lab-04-attention.py`),
written in jupytext's percent format (`# %%` starts a cell). It is the only copy: the learner's
version is generated from it (exercise.py) by emptying the functions named here, each with the
hint written beside its name. Adding a lab is a file in reference/, an entry here and a checks
module in checks/.

Left out: generating the learner's version (exercise.py), judging it (checks/, report.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["Lab", "LABS", "get_lab", "reference_path"]


@dataclass(frozen=True, eq=False)  # eq=False: each lab is one object, hashed by identity
class Lab:
    """One lab: `reference/lab-0N-<slug>.py`, and the functions its learner writes."""

    number: int
    slug: str
    title: str
    summary: str
    # name -> the hint the learner's version raises in its place: what to compute, not the code.
    functions: dict[str, str]

    @property
    def filename(self) -> str:
        return f"lab-{self.number:02d}-{self.slug}.py"

    @property
    def stem(self) -> str:
        return f"lab-{self.number:02d}-{self.slug}"


LABS = (
    Lab(
        1,
        "tensors",
        "tensors",
        "the toy world as torch tensors; a matrix product is many dot products",
        {
            "sentence_matrix": "find each word's row number with vocabulary.index(word), "
            "then take those rows of the table: table[rows]",
            "dot": "multiply a and b element by element, then add up the products "
            "(no torch.dot: that is what you are writing)",
            "matmul_by_loops": "start from an (n, m) tensor of zeros, then in two loops set "
            "out[i, j] = dot(row i of a, column j of b)",
        },
    ),
    Lab(
        2,
        "embeddings-softmax",
        "embeddings and softmax",
        "nn.Embedding is a lookup table; softmax by hand, safe on huge scores",
        {
            "one_hot_lookup": "make one-hot rows with F.one_hot(ids, num_classes=weight.shape[0]), "
            "turn them into floats like weight, then multiply: one_hot @ weight",
            "softmax": "subtract each row's maximum (max over dim=-1, keepdim=True), take exp, "
            "then divide by each row's sum",
        },
    ),
    Lab(
        3,
        "bigram",
        "a bigram model",
        "count character pairs, then train nn.Embedding to the same table; sample",
        {
            "bigram_counts": "start from a (vocab_size, vocab_size) tensor of zeros and add 1 at "
            "[ids[i], ids[i + 1]] for each of the N - 1 pairs, repeats included",
            "counts_to_probs": "add the smoothing to every count, then divide each ROW by its own sum "
            "(dim=1, keepdim=True)",
            "average_nll": "pick probs[ids[i], ids[i + 1]] for every pair, take the natural log, average, "
            "and flip the sign",
        },
    ),
    Lab(
        4,
        "attention",
        "one head of self-attention",
        "q, k, v by nn.Linear; scale, causal mask, softmax, weighted sum",
        {
            "causal_mask": "return a (T, T) bool tensor that is True above the diagonal (j > i): "
            "torch.triu of ones with diagonal=1",
            "attention_weights": "compute scores = q @ k^T / sqrt(head_size) with q = query(x), k = key(x); "
            "hide the future with causal_mask (-inf), then softmax each row",
            "self_attention": "get the weights from attention_weights, then blend the values: "
            "out = weights @ value(x); return (out, weights)",
        },
    ),
    Lab(
        5,
        "multihead",
        "several heads",
        "heads in parallel, merged, projected; equal to nn.MultiheadAttention",
        {
            "split_heads": "view t as (T, n_heads, head_size), then transpose(0, 1) to get (n_heads, T, head_size)",
            "merge_heads": "transpose back to (T, n_heads, head_size), then reshape to (T, n_heads * head_size)",
            "multi_head_attention": "split query(x), key(x), value(x) into heads; in every head at once "
            "softmax(causal_mask(q k^T / sqrt(head_size))) @ v; merge the heads and apply proj; "
            "return (out, weights)",
        },
    ),
    Lab(
        6,
        "transformer",
        "a tiny transformer",
        "embeddings, attention, MLP, residuals, layer norm; trained to copy",
        {
            "embed": "look up token_embedding(tokens) and add position_embedding(torch.arange(T)), "
            "with T = tokens.shape[-1]",
            "layer_norm": "over the last axis: (x - mean) / sqrt(var + eps) * weight + bias, "
            "with the biased variance (unbiased=False)",
            "block_forward": "two residual branches, each normalised first: x = x + attn(ln1(x)), "
            "then return x + mlp(ln2(x))",
        },
    ),
    Lab(
        7,
        "positions",
        "positions",
        "sinusoidal, learned, RoPE and ALiBi positions; five models trained short, tested long",
        {
            "sinusoidal_table": "with p = torch.arange(n_positions) as a column and i the column pair: angle = "
            "p / base ** (2i / d_model); put sin(angle) in the even columns 2i, cos(angle) in the odd ones 2i + 1",
            "add_positions": "add the table's first T rows to x: x + table[:T], with T = x.shape[-2] "
            "(the number of tokens)",
            "rope": "with half = d // 2, theta = base ** (-2i / d) for i < half and angles = positions[:, None] "
            "* theta; split x into a = x[..., :half] and b = x[..., half:], and return "
            "cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
            "rope_attention": "rotate q and k (not v) with rope at positions torch.arange(T); then lab 04's "
            "head: scores q @ k^T / sqrt(head_size), the future (j > i) set to -inf, softmax each row, times v",
            "alibi_bias": "a (T, T) tensor whose [i, j] is -slope * (i - j) for j <= i: 0 on the diagonal, "
            "more negative farther back (above the diagonal the mask hides it: 0 will do)",
            "alibi_attention": "scores = q @ k^T / sqrt(head_size) + alibi_bias(T, slope); then set the "
            "future (j > i) to -inf, softmax each row, and multiply by v",
        },
    ),
    Lab(
        8,
        "kv-cache",
        "the KV cache",
        "generate one word at a time from cached keys and values; every step equals the uncached model",
        {
            "embed_at": "look up token_embedding(tokens) and add position_embedding at the positions start, "
            "start + 1, ..., start + T - 1: torch.arange(start, start + T), with T = tokens.shape[-1]",
            "append_to_cache": "concatenate the cached keys and then k_new along the time axis, dim=2 of "
            "(B, heads, T, head_size); the same for the values; return (keys, values)",
            "decode_step": "split qkv(x_new) into q, k, v of (B, n_heads, 1, head_size); append k and v to the "
            "cache first; scores = q @ keys^T / sqrt(head_size), masked by row `position` of the causal mask "
            "(key j > position hidden); softmax, times the values, heads merged to (B, 1, d_model), proj; "
            "return (out, cache)",
        },
    ),
    Lab(
        9,
        "flash-attention",
        "FlashAttention by hand",
        "online softmax, then attention a tile at a time: a running max and sum, never the whole score matrix",
        {
            "online_softmax": "go along the last axis keeping m (the largest score so far, from -inf) and l "
            "(the sum so far of exp(s - m), from 0): m_new = max(m, s), l = l * exp(m - m_new) + "
            "exp(s - m_new); then return exp(scores - m) / l",
            "tiled_attention": "per query block m = -inf, l = 0, acc = 0; per key block (causal: up to the "
            "diagonal one, masked j > i): s = q_b @ k_b^T / sqrt(head_size), m_new = max(m, row max of s), "
            "p = exp(s - m_new), r = exp(m - m_new), l = r * l + row sum of p, acc = r * acc + p @ v_b; "
            "then out = acc / l, lse = m + log(l)",
        },
    ),
)


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


def reference_path(lab: Lab) -> Path:
    """The reference script, as installed with the package (a wheel or the source tree alike)."""
    path = Path(str(resources.files("attention_by_hand.lab") / "reference" / lab.filename))
    if not path.is_file():
        raise UserError(f"{path}: missing; the package's labs are incomplete (reinstall attention-by-hand)")
    return path
