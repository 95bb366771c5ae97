"""Whole-file checks of lab 10's tiled backward written with two mistakes of a tiled loop: its
tiles counted one short, and D taken from the tile's own weights where the whole row's is meant."""

from __future__ import annotations

import ast

from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.verdict import check_in_process
from labhelpers import REFERENCES, load_lab, patch_lab

LAB = LABS[9]
FUNCTION = "tiled_attention_backward"


def _reference_function() -> str:
    source = REFERENCES[LAB.filename].read_text(encoding="utf-8")
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == FUNCTION)
    return "".join(source.splitlines(keepends=True)[node.lineno - 1:node.end_lineno])


def _hints(tmp_path, old: str, new: str) -> list[str]:
    function = _reference_function()
    assert old in function
    path = tmp_path / LAB.filename
    path.write_text(patch_lab(REFERENCES[LAB.filename].read_text(encoding="utf-8"), function.replace(old, new)),
                    encoding="utf-8")
    run = check_in_process(load_lab(path), LAB)
    return [r.hint for r in run.results if not r.passed and r.label.startswith(f"{FUNCTION}:")]


def test_key_tiles_paired_by_zip_one_short_are_said_to_leave_the_last_tile_of_keys_out(tmp_path):
    hints = _hints(tmp_path, "    for j in range(0, T, block):\n",
                   "    for j, _ in zip(range(0, T, block), range(block, T, block)):\n")
    assert hints and all(h.startswith("yours is the reference's output on its inputs cut to the tiles before the last "
                                      "(on one input, `k` and `v` cut from") and "the rows after them left at zero" in h
                         for h in hints)


def test_an_argument_that_never_reaches_the_output_is_said_with_the_reference_line_that_reads_it(tmp_path):
    hints = _hints(tmp_path, "            ds = p * (dp - D[..., i : i + block, None])",
                   "            ds = p * (dp - (p * dp).sum(dim=-1, keepdim=True))")
    assert hints and all("`out` never reaches your output" in h
                         and "(the reference reads it first in `D = (d_out * out).sum(dim=-1)`)" in h for h in hints)
