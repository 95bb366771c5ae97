"""benchmarks/phase_change.py on fixed curves: the crossing, the bump, the report and the figure.

The training it measures is not run here (a minute or more); its reading of a curve is.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("bench_phase_change", ROOT / "benchmarks" / "phase_change.py")
phase_change = importlib.util.module_from_spec(spec)
spec.loader.exec_module(phase_change)

# (step, held-out loss, induction score, previous-token score)
CURVE = [(1, 3.5, 0.05, 0.10), (10, 3.2, 0.10, 0.20), (20, 3.3, 0.30, 0.40), (30, 2.0, 0.60, 0.70), (40, 1.5, 0.90, 0.95)]
FLAT = [(1, 3.5, 0.05, float("nan")), (10, 3.4, 0.10, float("nan")), (20, 3.3, 0.12, float("nan"))]


def runs():
    return [
        {"layers": 2, "seed": 0, "curve": CURVE, "seconds": 9.0, "cpu": 8.0},
        {"layers": 1, "seed": 0, "curve": FLAT, "seconds": 4.0, "cpu": 3.5},
    ]


def test_the_crossing_is_the_first_logged_step_above_the_threshold_with_its_loss():
    assert phase_change.crossing(CURVE, 0.4) == (30, 2.0)


def test_a_curve_that_never_passes_the_threshold_has_no_crossing():
    assert phase_change.crossing(FLAT, 0.4) is None


def test_the_bump_is_the_largest_rise_above_the_lowest_loss_so_far():
    rise, step = phase_change.bump(CURVE)
    assert (round(rise, 6), step) == (0.1, 20)


def test_a_loss_that_only_falls_has_no_bump():
    assert phase_change.bump(FLAT)[0] == 0.0


def test_a_rise_far_from_the_crossing_is_not_the_bump():
    late = [*CURVE, (300, 1.4, 0.9, 0.9), (310, 1.7, 0.9, 0.9)]
    assert phase_change.bump(late)[1] == 310
    assert phase_change.bump(late, around=30) == phase_change.bump(CURVE, around=30)


def test_the_report_has_one_row_per_run_and_says_whether_the_time_target_was_met():
    timed = {"walls": [25.0, 30.0], "cpus": [14.0, 15.0], "same": [True, True], "load": 3.0}
    text = phase_change.report(runs(), timed, "Measured on a test.", 0.4, 100.0, "")
    assert "| two layers | 0 | step 30 | 2.000 |" in text
    assert "| one-layer control | 0 | never in 20 steps | - |" in text
    assert "0.100 at step 20 |" in text and "| 3.300, 0.120, - | - |" in text
    assert "| wrote the shipped weights' bytes | 2 of 2 runs |" in text
    assert "**missed**, by 8 s of wall time; the CPU time alone is 14.5 s" in text and "load average 3.0" in text
    assert phase_change.DETAILS_MARKER in text


def test_the_figure_is_the_same_png_bytes_for_the_same_curves():
    first, second = phase_change.draw(runs(), 0.4), phase_change.draw(runs(), 0.4)
    assert first[:8] == b"\x89PNG\r\n\x1a\n" and first == second


@pytest.mark.parametrize("argv", [["--repeat", "0"], ["--repeat", "x"], ["--nothing"]])
def test_a_bad_argument_is_one_line_and_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        phase_change.main(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
