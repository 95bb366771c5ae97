"""Helpers for the lab tests: labs imported by path, learner files built from the fixtures'
patches, fixtures judged in this process, and the `lab` command driven in-process.

A module of its own, not conftest.py: tests/browser/ has a conftest too, and `import conftest`
would find whichever of the two pytest loaded last.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from unittest import mock

from attention_by_hand.lab.registry import LABS

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = {lab.filename: lab.reference() for lab in LABS}  # file name -> the reference lab in its folder
FIXTURES_DIR = ROOT / "tests" / "fixtures" / "labs"


def load_lab(path: Path) -> ModuleType:
    """Import a lab script by path, as the checker does: its steps stay behind the main guard."""
    spec = importlib.util.spec_from_file_location(f"test_{path.stem.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def patch_lab(reference: str, patch: str) -> str:
    """The reference lab's source with `patch` applied; everything the patch does not touch stays
    byte for byte.

    Each top-level function of the patch takes the place of the reference's function of that name
    (whole lines, from its first decorator to its last line); a name the reference does not define
    is a mistake in the patch, a ValueError. Every other statement of the patch, its docstring
    aside, is appended after the reference: code that misbehaves at import.
    """
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    old = {node.name: node for node in ast.parse(reference).body if isinstance(node, functions)}
    lines, patch_lines = reference.splitlines(keepends=True), patch.splitlines(keepends=True)
    tree = ast.parse(patch)
    new, appended = {}, []
    for node in tree.body[1:] if ast.get_docstring(tree) is not None else tree.body:
        text = "".join(patch_lines[_first_line(node) - 1 : node.end_lineno])
        if not isinstance(node, functions):
            appended.append(text)
        elif node.name not in old:
            raise ValueError(f"the patch replaces {node.name}(), which the reference does not define")
        elif node.name in new:
            raise ValueError(f"the patch defines {node.name}() twice")
        else:
            new[node.name] = text
    # From the bottom up, so that the line numbers of the functions still to replace hold.
    for name in sorted(new, key=lambda name: old[name].lineno, reverse=True):
        lines[_first_line(old[name]) - 1 : old[name].end_lineno] = [new[name]]
    source = "".join(lines)
    if appended:
        source += ("" if source.endswith("\n") else "\n") + "\n\n" + "".join(appended)
    return source


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def learner_file(fixture_name: str, tmp_path: Path) -> Path:
    """The learner's file a fixture stands for, written into tmp_path.

    A fixture whose first line is `# patches: LAB.py` holds only what the learner changed:
    the file is that lab with the patch applied (`patch_lab`). Any other fixture is the whole
    file as it is (one that does not even parse).
    """
    text = (FIXTURES_DIR / fixture_name).read_text(encoding="utf-8")
    header = re.match(r"# patches: (\S+)\n", text)
    if header:
        text = patch_lab(REFERENCES[header.group(1)].read_text(encoding="utf-8"), text)
    path = tmp_path / fixture_name
    path.write_text(text, encoding="utf-8")
    return path


def solve(text: str, reference: str, functions) -> str:
    """A learner's file with each function in `functions` pasted whole from the reference."""
    ref_lines, lines = reference.split("\n"), text.split("\n")
    ref_nodes = {n.name: n for n in ast.parse(reference).body if isinstance(n, ast.FunctionDef)}
    nodes = {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    for name in sorted(functions, key=lambda n: nodes[n].lineno, reverse=True):
        ref = ref_nodes[name]
        lines[_first_line(nodes[name]) - 1 : nodes[name].end_lineno] = ref_lines[_first_line(ref) - 1 : ref.end_lineno]
    return "\n".join(lines)


def expectation(path: Path) -> tuple[int, int, str]:
    """(lab number, expected exit code, expected hint) from a fixture's docstring."""
    text = path.read_text(encoding="utf-8")
    lab = int(re.search(r"A learner's lab (\d+)", text).group(1))
    code = int(re.search(r"^expect-exit: (\d)$", text, re.M).group(1))
    hint = re.search(r"^expect-hint: (.+)$", text, re.M).group(1).strip()
    return lab, code, hint


def lab_parser() -> argparse.ArgumentParser:
    """The command-line parser, as `attention-by-hand` builds it."""
    from attention_by_hand.cli import build_parser

    return build_parser()


def lab_main(*argv: str) -> int:
    """`attention-by-hand lab ...` in-process, as cli.main runs it (a UserError: one line, exit 2)."""
    from attention_by_hand.cli import main

    return main(list(argv))


def failed_checks(tmp_path: Path, filename: str, patch: str, function: str) -> dict[str, str]:
    """{label: hint} of the function's failed checks, for the lab `filename` with `patch` applied,
    judged in this process, with the searches' time guards lifted (untimed())."""
    from attention_by_hand.lab.verdict import check_in_process

    path = tmp_path / filename
    path.write_text(patch_lab(REFERENCES[filename].read_text(encoding="utf-8"), patch), encoding="utf-8")
    with untimed():
        run = check_in_process(load_lab(path), LABS[int(filename[4:6]) - 1])
    return {r.label: r.hint for r in run.results if not r.passed and r.label.startswith(function + ":")}


@contextmanager
def untimed():
    """The time guards of the searches behind a hint lifted: on a busy machine (a CI runner, the
    suite's two workers beside other work) a search that stops at its guard leaves a mend or a
    parting unsaid, and a test of what a hint says would fail by the clock, not by the code. The
    guards are tested apart; the guard on one call (CALL_SECONDS, an endless loop) stays."""
    import attention_by_hand.lab.blame as blame_module
    import attention_by_hand.lab.calls as calls_module
    import attention_by_hand.lab.repair as repair_module

    lifted = 1e9
    with mock.patch.multiple(calls_module, MEND_AFTER=lifted, TRACE_SECONDS=lifted, BLAME_SECONDS=lifted), \
            mock.patch.multiple(repair_module, SECONDS=lifted), mock.patch.multiple(blame_module, MAX_SECONDS=lifted):
        yield


def check_untimed(module: ModuleType, lab):
    """check_in_process with the searches' time guards lifted (untimed()): for a test of what a hint says."""
    from attention_by_hand.lab.verdict import check_in_process

    with untimed():
        return check_in_process(module, lab)


def failed_hints(tmp_path: Path, filename: str, patch: str, function: str) -> list[str]:
    """The hints of failed_checks, in order."""
    return list(failed_checks(tmp_path, filename, patch, function).values())
