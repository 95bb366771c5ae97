"""Line 3 of every log, read from the installed packages' metadata."""

import platform

import numpy as np

from attention_by_hand.run.environment import installed_version, versions_line


def test_an_installed_package_is_named_with_the_version_it_imports_as():
    assert installed_version("numpy") == np.__version__


def test_a_package_that_is_not_installed_is_missing():
    assert installed_version("no-such-package-here") == "missing"


def test_the_line_names_the_packages_in_order_then_python_then_the_seed():
    assert versions_line(("numpy",), seed=3) == f"numpy {np.__version__} | python {platform.python_version()} | seed 3"


def test_a_run_without_randomness_names_no_seed():
    assert not versions_line(("numpy",)).endswith("seed 0") and "seed" not in versions_line(("numpy",))
