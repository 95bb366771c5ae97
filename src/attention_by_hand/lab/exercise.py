"""The learner's version of a lab, generated from the reference: the only copy is the reference.

Three edits, nothing else: each function the registry names keeps its signature and docstring
and its body becomes `raise NotImplementedError("<hint>")`, the hint from the registry; the
title says "(your version)"; and the cell tagged `how-to-run` (a markdown cell of the reference,
`# %% [markdown] tags=["how-to-run"]`) is replaced by one that says how THIS file is run and
checked, as a script or as a notebook. Same reference, same bytes.

Left out: turning the result into a notebook (notebook.py).
"""

from __future__ import annotations

import ast
import json
import re
import textwrap

from attention_by_hand.lab.registry import Lab

__all__ = ["learner_source", "HOW_TO_RUN"]

HOW_TO_RUN = '# %% [markdown] tags=["how-to-run"]'
_WIDTH = 96  # columns of the generated hint lines, as the labs are written


def _raise_lines(hint: str, indent: str) -> list[str]:
    """`raise NotImplementedError("...")`, the hint cut into string pieces that fit the width."""
    pieces = textwrap.wrap(hint, _WIDTH - len(indent) - 8, break_long_words=False, break_on_hyphens=False)
    pieces = [p + " " for p in pieces[:-1]] + pieces[-1:]
    return [f"{indent}raise NotImplementedError(\n"] + [f"{indent}    {json.dumps(p)}\n" for p in pieces] + [f"{indent})\n"]


def _empty_functions(source: str, lab: Lab) -> str:
    lines = source.splitlines(keepends=True)
    nodes = {n.name: n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}
    missing = sorted(set(lab.functions) - set(nodes))
    if missing:
        raise ValueError(f"{lab.filename}: the registry names functions it does not define: {', '.join(missing)}")
    # From the bottom up, so that the line numbers of the functions still to empty hold.
    for name in sorted(lab.functions, key=lambda name: nodes[name].lineno, reverse=True):
        node = nodes[name]
        docstring = node.body[0]
        if not (isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)):
            raise ValueError(f"{lab.filename}: {name}() needs a docstring: it is all the learner gets")
        indent = re.match(r"\s*", lines[docstring.lineno - 1]).group()
        lines[docstring.end_lineno : node.end_lineno] = _raise_lines(lab.functions[name], indent)
    return "".join(lines)


def _how_to_run(lab: Lab, filename: str, notebook: bool) -> str:
    n = lab.number
    if notebook:
        text = (
            f"This is your version of lab {n:02d}, as a notebook. Each function below that raises "
            "`NotImplementedError` is yours to write; its message says what to compute. Run the cells "
            "in order: a step stops at the first function it needs that is not written yet. Check your "
            f"functions from a terminal, in this folder: `attention-by-hand lab check {n} {filename}`. "
            f"The solved lab: `attention-by-hand lab notebook {n}`."
        )
    else:
        text = (
            f"This is your version of lab {n:02d}. Each function below that raises `NotImplementedError` "
            "is yours to write; its message says what to compute. Run it: "
            f"`attention-by-hand lab run {n} {filename}` (it stops at the first function not written "
            f"yet). Check it: `attention-by-hand lab check {n} {filename}`. The solved lab: "
            f"`attention-by-hand lab run {n}`. The steps sit under `if __name__ == \"__main__\":`, so "
            "that the checker can import your functions without running them."
        )
    # A command in backticks stays on one line, so it can be copied whole: its spaces are held
    # as a character textwrap does not break at, then given back.
    held = re.sub(r"`[^`]*`", lambda m: m.group().replace(" ", "\0"), text)
    wrapped = textwrap.wrap(held, _WIDTH - 2, break_long_words=False, break_on_hyphens=False)
    return HOW_TO_RUN + "\n" + "".join(f"# {line}\n".replace("\0", " ") for line in wrapped)


def _replace_how_to_run(source: str, lab: Lab, filename: str, notebook: bool) -> str:
    start = source.find(HOW_TO_RUN + "\n")
    if start < 0:
        raise ValueError(f"{lab.filename}: no cell {HOW_TO_RUN!r} to replace")
    end = source.find("\n# %%", start + len(HOW_TO_RUN))  # the next cell
    body_end = source.rfind("\n#", start, end) + 1  # the cell's last comment line
    body_end = source.find("\n", body_end) + 1
    return source[:start] + _how_to_run(lab, filename, notebook) + source[body_end:]


def learner_source(source: str, lab: Lab, filename: str | None = None, notebook: bool = False) -> str:
    """The reference lab's source -> the learner's version, to be saved as `filename`."""
    source = _empty_functions(source, lab)
    title = f"# # Lab {lab.number:02d}: "
    if title not in source:
        raise ValueError(f"{lab.filename}: no title line starting {title!r}")
    source = source.replace(title, f"# # Lab {lab.number:02d} (your version): ", 1)
    return _replace_how_to_run(source, lab, filename or lab.filename, notebook)
