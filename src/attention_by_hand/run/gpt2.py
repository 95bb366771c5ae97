"""GPT-2 small's sizes, which the parts set beside the toy world's.

Radford et al. 2019 ("Language Models are Unsupervised Multitask Learners", Table 2) gave the
smallest model 117M parameters; OpenAI's repository later corrected the count ("our original
parameter counts were wrong", openai/gpt-2 README) and names the model 124M: 124,439,808 with
its tied word table.
Sizes from openai/gpt-2 `src/model.py` (`default_hparams`) and the released `hparams.json`.

Left out: everything computed from these (each part computes what it prints).
"""

from __future__ import annotations

__all__ = ["GPT2"]

GPT2 = {
    "d_model": 768,  # n_embd
    "d_k": 64,  # n_embd / n_head
    "heads": 12,  # n_head
    "layers": 12,  # n_layer
    "params": 124_000_000,  # the "124M" of the released checkpoint's name
    "vocab": 50_257,  # n_vocab: the rows of the word table wte
}
