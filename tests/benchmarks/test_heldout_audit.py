"""benchmarks/heldout_audit.py: the counts of a held-out set's audit by reading, from a synthetic
audit (the held-out set's own is never read by the tests)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("bench_heldout_audit", ROOT / "benchmarks" / "heldout_audit.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ha = _load()

AUDIT = """# Audit

Some words first.

| file | lab | scorer AFTER | class BEFORE | class AFTER | reason |
| --- | --- | --- | --- | --- | --- |
| a.py | 02 | named | A (borderline B) | A | named |
| b.py | 02 | observed-only | B | A (borderline C) | moved |
| c.py | 03 | wrong-name | C | C (borderline A) | says `causal \\| ks` wrongly |
| d.py | 03 | pass | pass 6/6 | pass 6/6 | correct |

## Summary
"""


def test_classes_are_counted_by_their_first_letter_before_and_after():
    before, after, _ = ha.counts(ha.rows(AUDIT))
    assert (dict(before), dict(after)) == ({"A": 1, "B": 1, "C": 1}, {"A": 2, "C": 1})


def test_the_patterns_verdict_is_crossed_with_the_class_after():
    _, _, cross = ha.counts(ha.rows(AUDIT))
    assert dict(cross) == {("named", "A"): 1, ("observed-only", "A"): 1, ("wrong-name", "C"): 1}


def test_the_table_says_the_counts_it_made():
    text = ha.table_text(ha.rows(AUDIT), "benchmarks/heldout/")
    assert "| name the mistake (A) | 1 | 2 |" in text and "| observed-only | 1 | 0 | 0 |" in text


def test_a_class_that_is_no_class_is_refused_by_name():
    with pytest.raises(ha.AuditError, match=r"a.py: class 'D' is neither A, B, C nor pass"):
        ha.counts(ha.rows(AUDIT.replace("| A (borderline B) |", "| D |")))


def test_an_audit_without_the_table_is_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "audit.md").write_text("# no table here\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "heldout_audit.py"), "--folder", str(folder)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no table whose columns begin file" in done.stderr
