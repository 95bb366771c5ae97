# Two commands do everything on a fresh machine with Python 3.10+ and make:
#   make run    create .venv, install the pinned versions, run every part of the experiment, build the site
#   make test   the same set-up, then the whole test suite (browser tests need Debian's chromium)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Python 3.10 cannot install every pin of the 3.11 lock; it gets its own (see its header).
LOCK   := $(shell $(PYTHON) -c 'import sys; print("requirements.lock" if sys.version_info >= (3, 11) else "requirements-py310.lock")')

.PHONY: run test bench serve handout wheelhouse clean

run: $(STAMP)
	$(PY) -m attention_by_hand run all
	$(PY) -m attention_by_hand build

# Two workers, one per core; each test file stays on one worker (its module fixtures, once), and
# the files go out in collection order, the slow ones first (tests/conftest.py).
test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder

# Measures, writes benchmarks/results/*.md, and copies the tables into README.md.
bench: $(STAMP)
	$(PY) benchmarks/run_breakdown.py --write
	$(PY) benchmarks/site_build.py --write
	$(PY) benchmarks/lab06.py --write
	$(PY) benchmarks/positions_length.py --write
	$(PY) benchmarks/playground.py --write
	$(PY) benchmarks/test_suite.py --write
	$(PY) benchmarks/attention_scale.py --write
	$(PY) benchmarks/kv_cache.py --write
	$(PY) benchmarks/hints_heldout.py --write
	$(PY) benchmarks/heldout_audit.py --write
	$(PY) benchmarks/worksheet_room.py --write
	$(PY) benchmarks/attention_backward.py --write
	$(PY) benchmarks/phase_change.py --write
	$(PY) benchmarks/hints.py --room --write
	$(PY) benchmarks/update_readme.py

serve: $(STAMP)
	$(PY) -m attention_by_hand serve

# One PDF for a room: the modules, the log, the labs, and the answers at the end (needs chromium).
handout: $(STAMP)
	$(PY) -m attention_by_hand build --handout

# An offline room: every pinned wheel of the lock and the project's own, in one folder to copy to a
# USB stick (README, "Teaching it to a room"). It serves machines of this OS, architecture and
# Python only. pip download keeps the wheels already there: a second run downloads none again.
# build/lib goes first: setuptools would put the files of an earlier build into the wheel.
WHEELHOUSE ?= wheelhouse
wheelhouse: $(STAMP)
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest $(WHEELHOUSE) -r $(LOCK)
	rm -rf build/lib build/bdist.*
	$(PY) -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation --wheel-dir $(WHEELHOUSE) .

# Re-installs when the pins or the package metadata change.
$(STAMP): $(LOCK) pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r $(LOCK)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis site build
